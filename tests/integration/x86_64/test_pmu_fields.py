"""The pmu record's per-CPU facts under QEMU TCG, where the hardware behaves as documented in
/work/shared/notes/qemu-facts.md: rdpmc raises #UD (the fault-safe rdpmc must catch it and the
boot go on: `rdpmc=faults`, no fault reported), unknown MSRs read 0 and ignore writes (AMD DE_CFG
then cannot be set: lfence_serializing is not "set"). The new fields are present with values from
their documented sets. One boot, an AMD Zen model (family 17h: the DE_CFG path)."""



LFENCE = {"yes", "set", "no", "unknown"}
FREEZE = {"set", "already", "not_offered", "refused", "unknown"}


def test_pmu_record_fields_and_caught_rdpmc(epyc):
    s = epyc.summary
    assert s["validation"]["complete"] and s["ok"], s["validation"]["problems"]
    assert s["end"]["status"] == "ok" and epyc.run["firmware_status"] == 0
    assert s["faults"] == [] and s["end"]["faults"] == 0  # the #UD of rdpmc was a fixup, not a fault
    cpu = epyc.plat("cpu")
    assert cpu["vendor"] == "AuthenticAMD"
    pmu = epyc.plat("pmu")
    assert pmu["rdpmc"] == "faults"
    assert pmu["lfence_serializing"] in LFENCE and pmu["lfence_serializing"] != "set"
    assert pmu["freeze_while_smm"] == "not_offered"  # not Intel
    assert "rapl_dram_esu" in pmu and pmu["fixed_dead"] in (0, "0x0")
    if not pmu["present"]:
        (k,) = [k for k in s["skips"] if k["probe"] == "pmu_check"]
        assert k["reason"] == pmu["reason"]
