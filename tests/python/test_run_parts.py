"""scripts/run_parts.sh, the runner of make check's and make test's parts, and the wait of the
integration tests' timing tests for make test's other parts (tests/integration/boot_pool.py
wait_alone_after): statuses, end files, the foreground part, a stop that ends every part."""

import os
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "run_parts.sh")
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
import boot_pool  # noqa: E402


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


def test_foreground_part_on_the_terminal_waits_for_another(tmp_path):
    """The +part's output is the script's own; it can wait for a background part's end file."""
    end = tmp_path / "slow.end"
    end.write_text("stale\n")  # a previous run's: removed before any part starts
    r = run_parts(tmp_path, "slow=sleep 1; echo slow done",
                  "+fore=test ! -e %s && echo no stale end; while [ ! -e %s ]; do sleep 0.1; done; "
                  "echo after slow" % (end, end))
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert "no stale end" in out and out.index("no stale end") < out.index("after slow")
    assert "fore     ok" in out and "slow     ok" in out and "slow done" in out
    assert "after slow" not in (tmp_path / "slow.log").read_text()


def test_foreground_failure_is_counted(tmp_path):
    r = run_parts(tmp_path, "bg=true", "+fore=echo visible; exit 5")
    assert r.returncode == 1 and "visible" in r.stdout
    assert "fore     FAILED (exit 5" in r.stdout and "its output is above" in r.stdout


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


def test_wait_alone_after(tmp_path):
    said = []
    a, b = tmp_path / "a.end", tmp_path / "b.end"
    a.write_text("1\n")
    env = {boot_pool.ENV_ALONE_AFTER: "%s %s" % (a, b)}
    assert boot_pool.wait_alone_after(env, max_s=0.3, poll_s=0.05, say=said.append) == [str(b)]
    assert str(b) in said[0] and "waited" in said[-1]
    b.write_text("1\n")
    said.clear()
    assert boot_pool.wait_alone_after(env, max_s=5, poll_s=0.05, say=said.append) == []
    assert said == []
    assert boot_pool.wait_alone_after({}, max_s=5, say=said.append) == [] and said == []
