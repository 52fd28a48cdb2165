"""scripts/run_phases.sh, the set-up phases of `make run`: one line per phase on the terminal,
every phase's output in the log, and a failing phase stops the run with its log's tail, the
log's path and the phase's exit status. Fake commands stand in for apt, gcc and the image."""

import os
import subprocess

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "run_phases.sh")


def run(tmp_path, *phases, env=None):
    log = tmp_path / "sub" / "make-run.log"
    r = subprocess.run(["sh", SCRIPT, str(log)] + list(phases), capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})))
    return r, log


def test_one_line_per_phase_output_in_the_log(tmp_path):
    r, log = run(tmp_path, "packages=echo apt says a lot; echo more", "build=echo gcc -c x.c >&2",
                 "image=true")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert [l.split()[:3] for l in lines[:3]] == [["[1/3]", "packages", "ok"], ["[2/3]", "build", "ok"],
                                                   ["[3/3]", "image", "ok"]]
    assert len(lines) == 4 and str(log) in lines[3]
    assert "apt says" not in r.stdout and "gcc" not in r.stdout + r.stderr
    text = log.read_text()
    assert "apt says a lot\nmore\n" in text and "gcc -c x.c\n" in text  # stderr too
    assert text.index("===== packages") < text.index("===== build") < text.index("===== image")


def test_failing_phase_stops_with_tail_and_status(tmp_path):
    r, log = run(tmp_path, "packages=true", "build=seq 1 100; echo 'x.c:1: error: boom'; exit 3",
                 "image=echo never > %s" % (tmp_path / "image_ran"), env={"RUN_PHASES_TAIL": "5"})
    assert r.returncode == 3
    out = r.stdout
    assert "[2/3] build" in out and "FAILED (exit 3" in out
    assert "x.c:1: error: boom" in out and "\n97\n" in out and "\n95\n" not in out  # the last 5 lines
    assert str(log) in out.splitlines()[-1]
    assert not (tmp_path / "image_ran").exists()  # later phases do not run


def test_bad_usage(tmp_path):
    r, _ = run(tmp_path, "no_equals_sign")
    assert r.returncode == 2 and "NAME=COMMAND" in r.stderr
    r = subprocess.run(["sh", SCRIPT], capture_output=True, text=True)
    assert r.returncode == 2
