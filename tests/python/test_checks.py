"""The Checks section and the verdict failed checks add to the report's status."""
from bmharness.analysis import checks
from bmharness.report import checks as checks_report, report


def summary(*cs):
    return {"checks": list(cs), "end": {"status": "ok"}, "validation": {"ok": True, "problems": []}}


def chk(name, probe, status, **kw):
    return dict(name=name, probe=probe, status=status, expected=0, measured=0, line=1, seq=2, **kw)


def test_tally_counts_statuses_and_failures():
    t = checks.tally(summary(chk("a", "p", "pass"), chk("b", "p", "fail"), chk("c", "q", "saturated")))
    assert t["n"] == 3 and t["by_status"] == {"pass": 1, "fail": 1, "saturated": 1}
    assert [c["name"] for c in t["failed"]] == ["b"]


def test_failed_check_fails_the_status_line():
    ok, reasons = report.status_lines(summary(chk("footprint_k", "irq_footprint", "fail", level=1)))
    assert not ok and any("footprint_k (irq_footprint)" in r for r in reasons)
    ok, reasons = report.status_lines(summary(chk("footprint_k", "irq_footprint", "saturated")))
    assert ok, reasons


def test_cleanup_checks_collapse_but_others_do_not():
    rows = checks.grouped([chk("irq_cleanup", "irq_latency", "pass", left=0)] * 3 +
                          [chk("footprint_k", "irq_footprint", "pass", k=20)] * 2)
    assert [(c["name"], n) for c, n in rows] == [("irq_cleanup", 3), ("footprint_k", 1), ("footprint_k", 1)]


def test_section_lists_details():
    doc = report.Doc()
    checks_report.section(doc, checks.analyse(summary(chk("irq_cleanup", "fault_irq", "pass", delivered=1, in_service=0, left=0))))
    text = doc.text()
    assert "CHECKS" in text.upper() and "irq_cleanup" in text and "delivered=1" in text and "PASS" in text
    empty = report.Doc()
    checks_report.section(empty, checks.analyse(summary()))
    assert "CHECKS" not in empty.text().upper()


def test_long_details_are_cut():
    c = chk("displace_vs_direct", "irq_displace", "pass", **{"f%02d" % i: 123456.789 for i in range(30)})
    d = checks_report._detail(c)
    assert len(d) == checks_report.DETAIL_MAX and d.endswith("…") and d.startswith("f00=123456.789")
