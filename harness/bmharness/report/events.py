"""The report's Skips, faults and messages section, from the summary's skip, fault and msg
records.
"""

from .doc import kv_text

NAME = "events"


def analyse(summary, out_dir=None):
    """The records the section lists: {"skips", "faults", "messages"}."""
    return {k: summary.get(k) or [] for k in ("skips", "faults", "messages")}


def section(doc, res, out_dir=None, plots=None):
    """Skips (counter sets that could not be read grouped per probe, set and reason), faults and
    firmware messages."""
    doc.h("Skips, faults and messages")
    skips = res.get("skips") or []
    # Counter sets that could not be read (one skip per sample set): one row per probe, set and reason.
    per_set = [s for s in skips if s.get("ctr_set") and "event" not in s and "set" in s]
    grouped = {}
    for s in per_set:
        key = (s.get("probe"), s.get("ctr_set"), s.get("events"), s.get("reason"))
        grouped[key] = grouped.get(key, 0) + 1
    skips = [s for s in skips if s not in per_set]
    if skips or grouped:
        std = ("probe", "set", "reason", "seq", "line")
        doc.table(["probe", "set", "detail", "reason"],
                  [[s.get("probe"), s.get("set", "-"),
                    kv_text({k: v for k, v in s.items() if k not in std}) or "-", s.get("reason")]
                   for s in skips] +
                  [[probe, "%d sets" % n, "counters %s: %s" % (cs, ev), reason]
                   for (probe, cs, ev, reason), n in sorted(grouped.items(), key=str)])
    else:
        doc.p("skips: none")
    faults = res.get("faults") or []
    if faults:
        doc.table(["vector", "name", "err", "rip", "cr2", "probe", "expected", "action"],
                  [[f.get(k) for k in ("vector", "name", "err", "rip", "cr2", "probe",
                                       "expected", "action")] for f in faults])
    else:
        doc.p("faults: none")
    msgs = res.get("messages") or []
    doc.list("[%s] %s (line %s)" % (m.get("level"), m.get("text"), m.get("line")) for m in msgs)
