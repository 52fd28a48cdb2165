"""The harness installs as a package (docs/hacking.md, rule 5): `pip install ./harness` works offline
with Debian's Python (no build isolation, so pip downloads nothing), and the installed console
script runs the same CLI."""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PIP_TIMEOUT_S = 300


def test_pip_installs_the_harness_offline(tmp_path):
    if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode:
        pytest.skip("no pip for %s (Debian: python3-pip)" % sys.executable)
    # Build from a copy: an in-tree build would leave build/ and *.egg-info in the checkout.
    src = tmp_path / "src"
    shutil.copytree(os.path.join(ROOT, "harness"), src,
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    target = tmp_path / "target"
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps",
                        "--target", str(target), str(src)], capture_output=True, text=True, env=env,
                       timeout=PIP_TIMEOUT_S)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (target / "bmharness" / "report" / "doc.py").exists()
    # the probe registry travels with the package: the installed harness needs no source tree
    assert (target / "bmharness" / "registry.json").read_text() == open(
        os.path.join(ROOT, "harness", "bmharness", "registry.json")).read()
    script = target / "bin" / "baremetric"
    assert script.exists(), sorted(os.listdir(target))
    # The installed package, not the checkout's: run from elsewhere with only the target on the path.
    r = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True,
                       cwd=str(tmp_path), env=dict(os.environ, PYTHONPATH=str(target)))
    assert r.returncode == 0 and "parse" in r.stdout, r.stdout + r.stderr
    r = subprocess.run([sys.executable, str(script), "qemu", "--help"], capture_output=True, text=True,
                       cwd=str(tmp_path), env=dict(os.environ, PYTHONPATH=str(target)))
    assert r.returncode == 0 and "irq_fp_k" in r.stdout, r.stdout + r.stderr
