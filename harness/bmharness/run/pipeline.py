"""One QEMU run parsed (and, when asked, reported) into a directory: `baremetric run` (cli.py)
and the integration tests' boots (tests/integration/conftest.py) both go through here, so QEMU,
then parse, then the report are written once. The QEMU runner (qemu.py) knows nothing of the
report, the report asks analysis/run_verdict.py, and this module joins the two, so neither
imports the other's user."""

import os

from . import qemu
from ..report import report as report_mod
from ..stream import parse


def run_and_parse(out_dir, parse_dir=None, report=False, plot=False, **kwargs):
    """run_qemu into out_dir, then its serial log parsed into parse_dir (default out_dir) and,
    with report, report.md written there.

    kwargs go to run_qemu (its HarnessError, ConfigError and OSError pass through). Returns
    {"run": run.json dict, "summary": summary dict, "dir": parse_dir, "report": the report's
    text or None, "ok": bool, "reasons": [why not ok]}, ok with the verdict of `baremetric run`.
    results.csv and results.json are the command line's (run/inputs.py parsed)."""
    run = qemu.run_qemu(out_dir, **kwargs)
    parse_dir = parse_dir or os.path.abspath(out_dir)
    summary = parse.parse_log(run["serial_log"], parse_dir)
    text = report_mod.write_report(parse_dir, plot=plot)[0] if report else None
    ok, reasons = report_mod.status_lines(summary, run)
    return {"run": run, "summary": summary, "dir": parse_dir, "report": text, "ok": ok,
            "reasons": reasons}
