"""The report's AArch64 system-register section (bmharness/report/sysregs.py) from synthetic records:
one row per `plat kind=sysreg` (value, or the fault's EC and ESR), the FEAT_MOPS probe, the
summary line with the registers a higher EL refused; absent from a boot without the records."""

import synth
from bmharness.report import report
from bmharness.stream import parse


def _boot(tmp_path, records):
    s = synth.Stream().begin()
    for fields in records:
        s.add("plat", fields)
    s.end()
    log = tmp_path / "serial.log"
    log.write_bytes(s.data())
    parse.parse_log(str(log), str(tmp_path / "p"))
    return report.write_report(str(tmp_path / "p"))[0]


def test_sysreg_section(tmp_path):
    text = _boot(tmp_path, [
        dict(kind="sysreg", name="pmcr_el0", enc="S3_3_C9_C12_0", gate="ID_AA64DFR0_EL1[11:8]=1..14",
             expect="present", how="vectors", status="ok", value="0x410130c1"),
        dict(kind="sysreg", name="amevcntr00_el0", enc="S3_3_C13_C4_0",
             gate="ID_AA64PFR0_EL1[47:44]=1..15", expect="present", how="vectors", status="fault",
             esr="0x2000000", ec="0x0", ec_name="UNDEF", unexpected=1),
        dict(kind="sysreg", name="mdcr_el2", enc="S3_4_C1_C1_1", gate="EL2", expect="absent",
             how="vectors", status="fault", esr="0x2000000", ec="0x0", ec_name="UNDEF"),
        dict(kind="insn_probe", name="setp", feature="FEAT_MOPS", gate="ID_AA64ISAR2_EL1[19:16]=1..15",
             expect="absent", how="vectors", status="fault", esr="0x2000000", ec="0x0", ec_name="UNDEF"),
        dict(kind="sysregs", el=1, guarded=1, count=3, ok=1, faulted=2, not_read=0, unexpected=1,
             faults="amevcntr00_el0,mdcr_el2", trapped="amevcntr00_el0", write_guard="fault",
             write_guard_ec="0x0"),
    ])
    assert "System registers (AArch64, guarded access)" in text
    assert "EL1, faults caught by our vectors" in text
    assert "1 read, 2 faulted, 0 not read of 3" in text
    lines = text.splitlines()
    assert any("present but refused" in ln and "amevcntr00_el0" in ln for ln in lines)
    assert any(ln.split()[:1] == ["pmcr_el0"] and "0x410130c1" in ln for ln in lines)
    assert any(ln.split()[:1] == ["amevcntr00_el0"] and "UNEXPECTED" in ln and "EC 0x0 (UNDEF)" in ln
               for ln in lines)
    assert any(ln.startswith("  setp (FEAT_MOPS)") and "fault" in ln for ln in lines)
    # the records are in the table, not repeated as key=value lines of the platform section
    assert "kind=sysreg" not in text and "name=pmcr_el0" not in text


def test_no_section_without_records(tmp_path):
    assert "System registers" not in _boot(tmp_path, [dict(kind="serial", access="io", base="0x3f8")])


def test_exception_level_row(tmp_path):
    """plat kind=el2 (AArch64): where the firmware started us and where the run went on."""
    cpu = dict(kind="cpu", brand="QEMU", vendor="arm", family=0, model=0, stepping=0)
    for d in "abc":
        (tmp_path / d).mkdir()
    text = _boot(tmp_path / "a", [cpu, dict(kind="el2", entry_el=2, el=1, action="dropped",
                                            hcr_el2="0x80000000", mdcr_el2="0x6", hpmn=6)])
    (row,) = [ln for ln in text.splitlines() if "exception level" in ln]
    assert "started at EL2, ran at EL1" in row and "6 of the PMU's event counters" in row
    text = _boot(tmp_path / "b", [cpu, dict(kind="el2", entry_el=2, el=2, action="kept",
                                            reason="the el2=stay option")])
    (row,) = [ln for ln in text.splitlines() if "exception level" in ln]
    assert "EL2 for the whole run (the el2=stay option)" in row and "refused" in row
    text = _boot(tmp_path / "c", [cpu])
    assert "exception level" not in text
