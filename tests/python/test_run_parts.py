"""scripts/run_parts.sh, the runner of make check's parts: statuses, end files, a failed part's
tail, a refused part, a stop that ends every part with its children."""

import os
import signal
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "run_parts.sh")


def run_parts(logdir, *parts, **kw):
    return subprocess.run(["sh", SCRIPT, str(logdir)] + list(parts), capture_output=True, text=True,
                          timeout=60, **kw)


def test_statuses_end_files_and_the_failed_parts_tail(tmp_path):
    r = run_parts(tmp_path, "good=echo fine", "bad=echo broken; exit 3")
    assert r.returncode == 1, r.stdout
    assert "good     ok" in r.stdout and "fine" in r.stdout
    assert "bad      FAILED (exit 3" in r.stdout and "broken" in r.stdout
    assert (tmp_path / "good.status").read_text().strip() == "0"
    assert (tmp_path / "bad.status").read_text().strip() == "3"
    assert (tmp_path / "good.end").exists() and (tmp_path / "bad.end").exists()


def test_bad_part_refused(tmp_path):
    r = run_parts(tmp_path, "no-equals-sign")
    assert r.returncode == 2 and "is not NAME=COMMAND" in r.stderr


def test_sigterm_ends_background_parts(tmp_path):
    """A stopped run leaves no part running: each background part is a session of its own, ended
    whole (its children too)."""
    pidfile = tmp_path / "child.pid"
    p = subprocess.Popen(["sh", SCRIPT, str(tmp_path), "long=sh -c 'echo $$ > %s; exec sleep 60'" % pidfile],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    while not pidfile.exists() and time.monotonic() - t0 < 10:
        time.sleep(0.05)
    child = int(pidfile.read_text())
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=10)
    assert p.returncode == 130 and "stopped" in err
    t0 = time.monotonic()
    while time.monotonic() - t0 < 5:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(child, signal.SIGKILL)
        raise AssertionError("the part's sleep outlived the stopped run")
