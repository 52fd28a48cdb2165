"""The report's Validation section: what the parser found in the log (records valid, corrupt,
duplicate, missing, conflicting; boots; complete sets) and its problems, the first REPORT_PROBLEMS
of them (summary.json keeps counts per kind).
"""

from .doc import fnum

NAME = "validation"
REPORT_PROBLEMS = 40  # problems listed in the report (summary.json: counts per kind)


def analyse(summary, out_dir=None):
    """{"validation", "source"}: the parser's findings and the log they are about."""
    return {"validation": summary.get("validation") or {}, "source": summary.get("source") or {}}


def section(doc, res, out_dir=None, plots=None):
    """Records, boots and sets as the parser counted them, and the problems it found."""
    v = res.get("validation") or {}
    c = v.get("counts") or {}
    doc.h("Validation")
    doc.kv([("log", (res.get("source") or {}).get("log")),
            ("records", "%s valid in the analysed boot, %s corrupt, %s duplicate, %s missing, "
             "%s conflicting, %s unknown version" % tuple(fnum(c.get(k)) for k in (
                 "records_analysed", "corrupt", "duplicates", "missing", "conflicts",
                 "unknown_version"))),
            ("boots", "%d (analysed: boot %s, %s)" % (c.get("boots", len(v.get("boots") or [])),
                                                      v.get("analysed_boot"),
                                                      v.get("analysed_why", "the last")) if
             len(v.get("boots") or []) > 1 else "1" if v.get("boots") else "0"),
            ("sets", "%s of %s complete" % (fnum(c.get("sets_complete")), fnum(c.get("sets")))),
            ("complete", fnum(v.get("complete"))), ("truncated", fnum(v.get("truncated")))])
    probs = v.get("problems") or []
    counts = v.get("problem_counts") or {}
    if sum(counts.values()) > len(probs[:REPORT_PROBLEMS]):
        doc.p("problems by kind: " + ", ".join("%s %d" % kv for kv in sorted(
            counts.items(), key=lambda kv: -kv[1])) + "; the first %d listed" % len(
                probs[:REPORT_PROBLEMS]))
    doc.list(["%s%s: %s" % (p["kind"], " (line %d)" % p["line"] if p.get("line") else "",
                            p["message"]) for p in probs[:REPORT_PROBLEMS]])
    doc.list(["note: " + n for n in v.get("notes") or []])
    if not probs:
        doc.p("no problems found")
