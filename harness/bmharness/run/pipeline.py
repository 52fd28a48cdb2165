"""One QEMU run parsed (and reported) into a directory, for integration tests and scripts: the
QEMU runner (qemu.py) knows nothing of the report, the report asks analysis/run_verdict.py, and this module
joins the two, so neither imports the other's user."""

from . import qemu
from ..report import report as report_mod
from ..stream import parse


def run_and_parse(out_dir, report=True, plot=False, **kwargs):
    """run_qemu + parse (+ report) into out_dir, for integration tests and scripts.

    kwargs go to run_qemu. Returns {"run": run.json dict, "summary": summary dict,
    "ok": bool, "reasons": [why not ok]} with the same verdict as `baremetric run`."""
    run = qemu.run_qemu(out_dir, **kwargs)
    summary = parse.parse_log(run["serial_log"], out_dir)
    if report:
        report_mod.write_report(out_dir, plot=plot)
    ok, reasons = report_mod.status_lines(summary, run)
    return {"run": run, "summary": summary, "ok": ok, "reasons": reasons}
