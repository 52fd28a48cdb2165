"""Human-readable report from a parse directory (summary.json, raw/, optional run.json).

The report is built once as a list of blocks (doc.py: headings, key/value lists, tables,
paragraphs) and rendered: plain text for the terminal, markdown for DIR/report.md and, with
`report --html`, one self-contained page DIR/report.html (html.py), so all always say the same. Below the header, every section is a module of this package listed in
SECTIONS: `analyse(summary, out_dir)` gets its result (from the analysis/ modules: they compute,
the sections only render), `draw` its plots where it has some (plots.py, irq_plots.py, when
matplotlib is importable), and `section(doc, result, out_dir, plots)` writes it. The Status line
closes the report (status_lines, with analysis/run_verdict.py's judgement of run.json).

The first section, above the header, is the first screen (headline.py: analysis/headline.py's
figures with the same status); `write_report` also writes them to DIR/headline.json, and the
machine's characterisation vector built from them to DIR/vector.json (analysis/vector.py), and
beside it the empirical roofline in ERT's layout, DIR/roofline.json (analysis/roofline.py; none
without flops sets).
"""

import json
import os

from . import checks, counters, events, headline, histograms, irq, memory, multicore
from . import roofline
from . import figure, html, platform, probes
from . import prof_report, sysregs, tsc, validation
from .doc import TEXT_WIDTH, Doc, fnum, kv_text
from ..analysis import checks as checks_analysis
from ..analysis import profile, run_verdict, vector

# The report's sections in order. Each is a module with NAME, analyse(summary, out_dir) -> result
# and section(doc, result, out_dir, plots); those with plots also draw(result, out_dir, stamp).
SECTIONS = (platform, sysregs, tsc, probes, histograms, memory, multicore, roofline, counters,
            irq, prof_report, checks, events, validation)


def status_lines(summary, run=None):
    """(ok, [reasons]) over firmware status, log validity and the QEMU run."""
    reasons = []
    end = summary.get("end")
    if not end:
        reasons.append("no end record (truncated log)")
    elif end.get("status") != "ok":
        reasons.append("firmware status %s (unexpected faults: %s)" % (
            end.get("status"), fnum(end.get("unexpected_faults"))))
    failed = checks_analysis.tally(summary)["failed"]
    if failed:
        reasons.append("%d check(s) failed: %s" % (len(failed), ", ".join(sorted(
            {"%s (%s)" % (c.get("name"), c.get("probe")) for c in failed}))))
    v = summary.get("validation") or {}
    if not v.get("ok"):
        reasons.append("log has %d problem(s)" % ((v.get("counts") or {}).get("problems")
                                                  or len(v.get("problems") or [])))
    if run:
        reasons += run_verdict.run_failed(run)
    return not reasons, reasons


def _header(doc, summary, run):
    """Title, build, environment, the QEMU run (when there was one) and the firmware config."""
    b = summary.get("begin") or {}
    doc.h("baremetric report", 1)
    doc.kv([("build", fnum(b.get("build"))), ("env", "%s %s" % (fnum(b.get("arch")),
                                                                 fnum(b.get("env")))),
            ("firmware", "%s %s" % (fnum(b.get("fw_vendor")), fnum(b.get("fw_rev")))),
            ("parsed", (summary.get("source") or {}).get("parsed_utc"))])
    if run:
        doc.kv([("qemu", "%s, %.1f s%s" % (
            run_verdict.exit_text(run), run.get("duration_s", 0),
            ", TIMED OUT" if run.get("timed_out") else "")),
            ("command", run.get("command_line"))])
    if summary.get("cfg"):
        doc.kv([("config", kv_text(summary["cfg"]))])


def analyse(summary, out_dir, results=None):
    """Every section's result, {NAME: result} in SECTIONS order; those in `results` are kept."""
    results = dict(results or {})
    for sec in SECTIONS:
        if sec.NAME not in results:
            results[sec.NAME] = sec.analyse(summary, out_dir)
    return results


def draw(results, out_dir, stamp=None):
    """The plots of the sections that have them, {NAME: plot info}, drawn in SECTIONS order;
    stamp: figure.stamp's (the machine, the run, the watermark) for every figure."""
    return {sec.NAME: sec.draw(results[sec.NAME], out_dir, stamp) for sec in SECTIONS
            if hasattr(sec, "draw")}


def build(summary, out_dir, run=None, plots=None, results=None, hl=None):
    """The report Doc and whether the run is ok. results: analyse()'s (the sections not in it are
    analysed here); plots: draw()'s, or None when nothing was drawn; hl: the headline dict
    (headline.compute's), computed here when not given."""
    doc = Doc()
    results = analyse(summary, out_dir, results)
    status = status_lines(summary, run)
    headline.section(doc, hl or headline.compute(summary, out_dir, results, run), status)
    _header(doc, summary, run)
    for sec in SECTIONS:
        sec.section(doc, results[sec.NAME], out_dir, None if plots is None else plots.get(sec.NAME))
    ok, reasons = status
    doc.h("Status")
    doc.p("OK: log complete and valid, firmware status ok" if ok else
          "FAILED: " + "; ".join(reasons))
    return doc, ok


def load(out_dir):
    """(summary, run or None) from out_dir/summary.json and run.json. Raises OSError/ValueError
    if summary.json is unreadable."""
    with open(os.path.join(out_dir, "summary.json")) as fh:
        summary = json.load(fh)
    run = None
    run_path = os.path.join(out_dir, "run.json")
    if os.path.exists(run_path):
        with open(run_path) as fh:
            run = json.load(fh)
    return summary, run


def write_summary(out_dir):
    """The first screen only (`report --summary`): writes headline.json, returns (text, ok)."""
    summary, run = load(out_dir)
    status = status_lines(summary, run)
    hl = headline.compute(summary, out_dir, run=run)
    headline.write_json(os.path.join(out_dir, "headline.json"), hl, status)
    vector.write_json(os.path.join(out_dir, vector.FILE), vector.machine_vector(hl, summary))
    roofline.write_json(out_dir, roofline.analyse(summary, out_dir))
    return headline.summary_text(hl, status), status[0]


def write_report(out_dir, plot=True, html_page=False):
    """Read out_dir/summary.json (+ run.json), draw the plots, write profile.json (when a probe was
    profiled), headline.json, vector.json, roofline.json (with flops sets), report.md and with
    html_page report.html (the plots' SVG copies inlined). Returns (terminal text, ok). Raises
    OSError/ValueError if summary.json is unreadable."""
    summary, run = load(out_dir)
    results = analyse(summary, out_dir)
    drawn = draw(results, out_dir, figure.stamp(summary, run, out_dir)) if plot else None
    prof = results[prof_report.NAME]
    if prof["profiles"]:
        profile.write_json(os.path.join(out_dir, "profile.json"), prof)
    hl = headline.compute(summary, out_dir, results, run)
    headline.write_json(os.path.join(out_dir, "headline.json"), hl, status_lines(summary, run))
    vector.write_json(os.path.join(out_dir, vector.FILE), vector.machine_vector(hl, summary))
    roofline.write_json(out_dir, results[roofline.NAME])
    doc, ok = build(summary, out_dir, run, drawn, results, hl)
    with open(os.path.join(out_dir, "report.md"), "w") as fh:
        fh.write(doc.markdown())
    if html_page:
        b = summary.get("begin") or {}
        title = "baremetric report: %s %s, build %s" % (b.get("arch"), b.get("env"), b.get("build"))
        with open(os.path.join(out_dir, "report.html"), "w", encoding="utf-8") as fh:
            fh.write(html.render(doc, out_dir, title))
    return doc.text(TEXT_WIDTH), ok
