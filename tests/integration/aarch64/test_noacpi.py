"""One short AArch64 boot with `-machine virt,acpi=off` (no ACPI tables at all): the firmware
must identify QEMU virt from SMBIOS (System Information Manufacturer "QEMU") before it uses QEMU's
fixed addresses — UART0 at 0x09000000, the GICv3 at 0x08000000/0x080A0000, PMU overflow PPI 23 —
and must not claim what it did not measure (no PM timer fields, no tsc disagree_ppm). ~5 s.
Structure only: the numbers are TCG's."""


from conftest import single

INTID_PMU_QEMU_VIRT = 23


def test_runs_and_powers_off_without_acpi(a64noacpi):
    b = a64noacpi
    assert "acpi=off" in b.run["command_line"]
    assert not b.run["timed_out"] and b.run["exit_code"] == 0  # EFI ResetSystem (no FADT: no PSCI)
    assert b.summary["ok"], b.summary["validation"]["problems"]
    assert b.summary["end"]["status"] == "ok"


def test_qemu_virt_defaults_only_after_identification(a64noacpi):
    p = a64noacpi.summary["platform"]
    assert p["acpi"]["present"] == 0
    assert p["serial"]["source"] == "default" and p["serial"]["base"] == "0x9000000"
    assert p["serial"]["driver"] == "pl011"
    g = single(a64noacpi.plat("gic"))
    assert g["ready"] == 1 and g["bases_from"] == "qemu_virt_default" and g["gicd"] == "0x8000000"
    assert g["intid_pmu"] == INTID_PMU_QEMU_VIRT and g["intid_pmu_from"] == "qemu_virt_default"
    assert g["guard_fires"] == 1


def test_no_unmeasured_claims(a64noacpi):
    p = a64noacpi.summary["platform"]
    pm = p["acpi_pm"]
    assert "port" not in pm and "width" not in pm and pm["reason"]
    tsc = p["tsc"]
    assert "disagree_ppm" not in tsc and tsc["hz"] > 0 and tsc["source"] == "cntfrq"
