"""The harness and the firmware agree by construction: registry.json (scripts/gen_registry.py) is
made from bench/core/registry.def, options.def, fields.def and the C emitters; the harness's copy
(harness/bmharness/registry.json, committed so that a fresh clone parses without a build) is
what the sources make; the harness's option checks, record types and field classes are read from
it and no harness module keeps a list of its own; and docs/hacking.md's worked example of adding a
probe compiles and, added to a copy of the tree, is accepted by `--set probes=`."""

import ast
import json
import os
import pathlib
import platform
import re
import shutil
import subprocess
import sys

import pytest

from bmharness.run import runconfig
from bmharness.stream import parse, registry, set_identity
from script_module import load_script

ROOT = pathlib.Path(__file__).resolve().parents[2]
HARNESS = ROOT / "harness"
TREE = ("lib", "arch", "drivers", "bench", "efi", "hosted", "scripts")
EXAMPLE = "example_spin"


gen_registry = load_script("gen_registry")
gen_docs = load_script("gen_docs")


def test_committed_registry_is_what_the_sources_make():
    committed = (HARNESS / "bmharness" / "registry.json").read_text()
    assert committed == gen_registry.text(), \
        "harness/bmharness/registry.json is stale: run `make registry` and commit it"
    assert registry.DATA["path"] == registry.PATH  # the tests read the package's copy


def test_build_installs_the_generated_file():
    """`make registry` (every build) writes build/gen/registry.json and installs it as the
    harness's copy; a built tree's two files are equal."""
    r = subprocess.run(["make", "-s", "-n", "registry"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    built = ROOT / "build" / "gen" / "registry.json"
    if built.exists() and built.stat().st_mtime >= max(
            (ROOT / "bench/core" / f).stat().st_mtime for f in ("registry.def", "options.def",
                                                                 "fields.def")):
        assert built.read_text() == (HARNESS / "bmharness" / "registry.json").read_text()


def test_harness_tables_are_the_registrys():
    probes = [p["name"] for p in gen_docs.read_probes()]
    options = [o["key"] for o in gen_docs.read_options()]
    assert list(runconfig.PROBES) == probes and list(registry.DEFAULT_PROBES) == [
        p["name"] for p in gen_docs.read_probes() if p["default"]]
    assert list(runconfig.KEYS) == options  # the cfg record's order, render()'s order
    types, _ = gen_registry.emitted(ROOT)
    assert parse.KNOWN_TYPES == set(types) >= {"begin", "probe", "samples", "end", "prof_data"}
    fields = gen_registry.read_fields(ROOT, set(registry.SET_NAMES))
    assert {c: list(f) for c, f in set_identity.COMMON.items()} == fields["all"]
    assert {n: {c: list(f) for c, f in t.items()} for n, t in set_identity.PROBES.items()} == \
        fields["records"]
    assert set(set_identity.PROBES) <= set(registry.SET_NAMES)


def test_option_checks_follow_the_c_ranges():
    """Every default is accepted; a number just outside an option's range (options.def) is
    refused; names come from options.c's tables."""
    for o in registry.OPTIONS:
        runconfig.validate({o["key"]: registry.default(o["key"])})
        if o["type"] == "U64":
            runconfig.validate({o["key"]: str(o["max"])})
            with pytest.raises(runconfig.ConfigError):
                runconfig.validate({o["key"]: str(o["max"] + 1)})
            if o["min"] > 0:
                with pytest.raises(runconfig.ConfigError):
                    runconfig.validate({o["key"]: str(o["min"] - 1)})
        if o["type"] in ("CHOICE", "NAME"):
            runconfig.validate({o["key"]: o["names"][-1]})
            with pytest.raises(runconfig.ConfigError):
                runconfig.validate({o["key"]: "no_such_name"})
    assert "rep_movsb" in registry.option("mem_kernels")["names"]
    assert registry.option("irq_fp_k")["max"] == 262144  # CONFIG_FP_K_MAX, resolved
    with pytest.raises(runconfig.ConfigError):
        runconfig.validate({"irq_disp_work": ",".join(str(i) for i in range(registry.LIST_MAX + 1))})


def _literals(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            yield node.lineno, [e.value for e in node.elts if isinstance(e, ast.Constant)]
        elif isinstance(node, ast.Dict):
            yield node.lineno, [k.value for k in node.keys if isinstance(k, ast.Constant)]


def test_no_harness_module_keeps_a_copy():
    """No literal of the harness lists half or more of the probes, the options or the record
    types: such a list is a copy of a .def file that can drift (registry.py reads the one)."""
    wanted = {"probes": set(registry.PROBES), "options": {o["key"] for o in registry.OPTIONS},
              "record types": set(registry.RECORD_TYPES)}
    found = []
    for path in sorted((HARNESS / "bmharness").rglob("*.py")):
        for line, items in _literals(ast.parse(path.read_text(), str(path))):
            for what, names in wanted.items():
                if len(set(items) & names) >= max(4, len(names) // 2):
                    found.append("%s:%d: %s" % (path.relative_to(ROOT), line, what))
    assert not found, "hand copies of the registry: %s" % found


def copy_tree(dst):
    for d in TREE:
        shutil.copytree(ROOT / d, dst / d, ignore=shutil.ignore_patterns("__pycache__"))
    return dst


def generate(root):
    r = subprocess.run([sys.executable, str(root / "scripts/gen_registry.py"), "--root", str(root),
                        str(root / "registry.json")], capture_output=True, text=True)
    return r.returncode, r.stderr


@pytest.mark.parametrize("line, says", [
    ('FIELDS(no_such_probe, IDENTITY, "x")', "no probe emits records named 'no_such_probe'"),
    ('FIELDS(spin, IDENTITYY, "x")', "class IDENTITYY"),
    ('FIELDS(spin, MEASURED, "loop")', "classed twice: ['loop']"),
    ('FIELDS(spin, MEASURED, "n")', "classed twice: ['n']"),
])
def test_generator_refuses_a_bad_fields_line(tmp_path, line, says):
    root = copy_tree(tmp_path)
    with open(root / "bench/core/fields.def", "a") as fh:
        fh.write(line + "\n")
    code, err = generate(root)
    assert code == 2 and says in err, err


def test_generator_refuses_an_unknown_bound(tmp_path):
    root = copy_tree(tmp_path)
    path = root / "bench/core/options.def"
    path.write_text(path.read_text().replace("1, 32, NULL", "1, TSC_WINDOWS_MAX, NULL"))
    code, err = generate(root)
    assert code == 2 and "TSC_WINDOWS_MAX" in err, err


def worked_example():
    """(file text, registry.def lines, fields.def lines) of docs/hacking.md's worked example."""
    text = (ROOT / "docs/hacking.md").read_text()
    sec = text.split("### Worked example: `%s`" % EXAMPLE, 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```(\w*)\n(.*?)```", sec, re.S)
    source = [b for lang, b in blocks if lang == "c"][0]
    lines = [ln for lang, b in blocks if not lang for ln in b.splitlines()]
    return (source, [ln for ln in lines if ln.startswith("PROBE(")],
            [ln for ln in lines if ln.startswith("FIELDS(")])


def test_worked_example_compiles(tmp_path):
    """The example's file is a probe as the tree's headers declare one (hosted flags)."""
    if shutil.which("gcc") is None:
        pytest.skip("no gcc")
    source, _, _ = worked_example()
    src = tmp_path / ("%s.c" % EXAMPLE)
    src.write_text(source)
    obj = tmp_path / "example.o"
    # the hosted build's include path: the tree, and the host CPU's part of the arch contracts
    cpu_inc = os.path.join(str(ROOT), "arch", platform.machine(), "include")
    if not os.path.isdir(cpu_inc):
        pytest.skip("no arch/%s in the tree for this host" % platform.machine())
    r = subprocess.run(["gcc", "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror", "-I", str(ROOT),
                        "-I", cpu_inc, "-c", str(src), "-o", str(obj)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    syms = subprocess.run(["nm", str(obj)], capture_output=True, text=True).stdout
    assert re.search(r" [DR] probe_%s$" % EXAMPLE, syms, re.M), syms  # defined, global


def harness(args, env_registry=None):
    env = dict(os.environ, PYTHONPATH=str(HARNESS))
    env.pop(registry.ENV, None)
    if env_registry:
        env[registry.ENV] = str(env_registry)
    return subprocess.run([sys.executable, "-m", "bmharness"] + args, capture_output=True,
                          text=True, env=env, cwd=str(ROOT))


def test_adding_a_probe_is_one_file_and_one_registry_line(tmp_path):
    """docs/hacking.md's example added to a copy of the tree: the generated registry lists the
    probe and its field's class, and the harness given that registry accepts --set
    probes=example_spin (it goes on to the image, which the test leaves out); the real registry
    refuses the name."""
    source, probe_lines, field_lines = worked_example()
    assert len(probe_lines) == 1 and field_lines
    root = copy_tree(tmp_path / "tree")
    (root / "bench/probes" / ("%s.c" % EXAMPLE)).write_text(source)
    with open(root / "bench/core/registry.def", "a") as fh:
        fh.write(probe_lines[0] + "\n")
    with open(root / "bench/core/fields.def", "a") as fh:
        fh.write("\n".join(field_lines) + "\n")
    code, err = generate(root)
    assert code == 0, err
    made = json.loads((root / "registry.json").read_text())
    new = [p for p in made["probes"] if p["name"] == EXAMPLE]
    assert new and not new[0]["default"] and new[0]["file"] == "bench/probes/%s.c" % EXAMPLE
    assert EXAMPLE not in made["default_probes"] and EXAMPLE in made["set_names"]
    assert made["fields"]["records"][EXAMPLE]["identity"] == ["variant"]
    args = ["qemu", "--out", str(tmp_path / "out"), "--image", str(tmp_path / "none.img"),
            "--set", "probes=spin,%s" % EXAMPLE]
    r = harness(args)
    assert r.returncode == 2 and "unknown probe(s) %s" % EXAMPLE in r.stderr, r.stderr
    r = harness(args, env_registry=root / "registry.json")
    assert r.returncode == 2 and "unknown probe" not in r.stderr, r.stderr
    assert "none.img" in r.stderr or "qemu-system" in r.stderr, r.stderr  # past the config check
    r = subprocess.run([sys.executable, "-c", "from bmharness.stream import set_identity as s; "
                        "print(s.field_class(%r, 'variant'))" % EXAMPLE], capture_output=True,
                       text=True, env=dict(os.environ, PYTHONPATH=str(HARNESS),
                                           **{registry.ENV: str(root / "registry.json")}))
    assert r.stdout.strip() == "identity", r.stderr


def test_a_missing_registry_is_a_clear_error(tmp_path):
    r = harness(["parse", "--help"], env_registry=tmp_path / "none.json")
    assert r.returncode != 0 and "make registry" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_a_fresh_clone_parses_without_a_build(tmp_path):
    """harness/ alone (no build/, no C sources: a fresh clone before any make) parses a log: the
    registry it needs is its committed copy."""
    shutil.copytree(HARNESS, tmp_path / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    env = dict(os.environ)
    env.pop(registry.ENV, None)
    env.pop("PYTHONPATH", None)
    r = subprocess.run([sys.executable, str(tmp_path / "harness" / "baremetric"), "parse",
                        str(ROOT / "tests/python/data/hosted_excerpt.log"), "--out",
                        str(tmp_path / "p")], capture_output=True, text=True, env=env,
                       cwd=str(tmp_path))
    assert r.returncode in (0, 1) and "parsed" in r.stdout, r.stdout + r.stderr
    assert (tmp_path / "p" / "summary.json").exists()
