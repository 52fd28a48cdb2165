"""The fleet report as text, markdown or one self-contained HTML page, and as OCPTV diagnoses
(analysis/fleet_report.py computes it; docs/fleet.md describes it)."""

import datetime
import html

from ..analysis import ocptv

FORMATS = ("text", "markdown", "html")


def _num(x):
    return "-" if x is None else "%.4g" % x


def _rows(group):
    return [[m["metric"], str(m["n"]), _num(m["median"]), _num(m["min"]), _num(m["max"]), _num(m["mad"]),
             m["unit"]] for m in group["metrics"]]


HEAD = ["metric", "machines", "median", "min", "max", "MAD-sd", "unit"]


def _text_table(rows, head):
    widths = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    fmt = "  ".join("%%-%ds" % w for w in widths)
    return [fmt % tuple(head)] + [fmt % tuple(r) for r in rows]


def _outlier_line(o):
    return "%s: %s (%s)" % (o["machine"], o["evidence"], "worse" if o["worse"] else "better than its peers")


def text(rep, markdown=False):
    out = []
    h1, h2 = ("# ", "## ") if markdown else ("", "")
    out.append("%sFleet report: %d machine(s), %d group(s); boot-to-boot spread %.0f%%" % (
        h1, rep["machines"], len(rep["groups"]), 100 * rep["spread"]))
    for e in rep["errors"]:
        out.append("unreadable: %s: %s" % (e["machine"], e["error"]))
    for g in rep["groups"]:
        out.append("")
        out.append("%s%s" % (h2, g["identity"]))
        out.append("machines: %s" % ", ".join(g["machines"]))
        out.append("firmware: %s" % "; ".join(g["firmware"]))
        bad = [n for n, s in g["status"].items() if s != "ok"]
        if bad:
            out.append("runs not ok: %s" % ", ".join("%s (%s)" % (n, g["status"][n]) for n in bad))
        out.append("")
        rows = _rows(g)
        if markdown:
            out.append("| " + " | ".join(HEAD) + " |")
            out.append("|" + "---|" * len(HEAD))
            out += ["| " + " | ".join(r) + " |" for r in rows]
        else:
            out += _text_table(rows, HEAD)
        out.append("")
        if g["outliers"]:
            out.append("outliers:")
            out += [("- " if markdown else "  ") + _outlier_line(o) for o in g["outliers"]]
        else:
            out.append("outliers: none" + ("" if len(g["machines"]) >= 3 else
                                           " (fewer than 3 machines: no numeric test)"))
    return "\n".join(out) + "\n"


def page(rep):
    esc = html.escape
    parts = ["<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>baremetric fleet report</title>",
             "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
             "td,th{border:1px solid #bbb;padding:2px 8px}td.n{text-align:right}.bad{color:#b00}</style>",
             "</head><body>",
             "<h1>Fleet report: %d machine(s), %d group(s)</h1><p>boot-to-boot spread %.0f%%</p>" % (
                 rep["machines"], len(rep["groups"]), 100 * rep["spread"])]
    for e in rep["errors"]:
        parts.append("<p class=\"bad\">unreadable: %s: %s</p>" % (esc(e["machine"]), esc(e["error"])))
    for g in rep["groups"]:
        parts.append("<h2>%s</h2><p>machines: %s<br>firmware: %s</p>" % (
            esc(g["identity"]), esc(", ".join(g["machines"])), esc("; ".join(g["firmware"]))))
        parts.append("<table><tr>%s</tr>" % "".join("<th>%s</th>" % esc(x) for x in HEAD))
        for r in _rows(g):
            parts.append("<tr><td>%s</td>%s<td>%s</td></tr>" % (
                esc(r[0]), "".join("<td class=\"n\">%s</td>" % esc(x) for x in r[1:-1]), esc(r[-1])))
        parts.append("</table>")
        if g["outliers"]:
            parts.append("<ul>%s</ul>" % "".join("<li class=\"bad\">%s</li>" % esc(_outlier_line(o))
                                                 for o in g["outliers"]))
        else:
            parts.append("<p>outliers: none</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def render(rep, fmt):
    if fmt == "html":
        return page(rep)
    return text(rep, markdown=fmt == "markdown")


def ocptv_lines(rep, emit):
    """The report as an OCPTV run: a step per group, a diagnosis per outlier (FAIL) or one PASS
    for a group without; the run's result FAIL when any machine stands out."""
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    seq = [0]

    def line(body):
        emit(dict(body, sequenceNumber=seq[0], timestamp=stamp))
        seq[0] += 1

    line({"schemaVersion": dict(ocptv.SPEC_VERSION)})
    line({"testRunArtifact": {"testRunStart": {
        "name": "baremetric fleet report", "version": "1", "commandLine": "fleet report",
        "parameters": {"spread": rep["spread"]},
        "dutInfo": {"dutInfoId": "fleet", "name": "fleet of %d machines" % rep["machines"]}}}})
    for i, g in enumerate(rep["groups"], 1):
        sid = "group%d" % i
        line({"testStepArtifact": {"testStepId": sid, "testStepStart": {"name": g["identity"]}}})
        for o in g["outliers"]:
            line({"testStepArtifact": {"testStepId": sid, "diagnosis": {
                "verdict": "fleet-outlier-%s" % o["metric"].replace(" ", "-"), "type": "FAIL",
                "message": _outlier_line(o), "hardwareInfoId": o["machine"]}}})
        if not g["outliers"]:
            line({"testStepArtifact": {"testStepId": sid, "diagnosis": {
                "verdict": "fleet-group-consistent", "type": "PASS",
                "message": "%d machine(s), none stands out" % len(g["machines"])}}})
        line({"testStepArtifact": {"testStepId": sid, "testStepEnd": {"status": "COMPLETE"}}})
    bad = any(g["outliers"] for g in rep["groups"])
    line({"testRunArtifact": {"testRunEnd": {"status": "COMPLETE", "result": "FAIL" if bad else "PASS"}}})
