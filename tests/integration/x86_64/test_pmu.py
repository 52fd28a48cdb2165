"""Performance counters end to end. Under QEMU TCG there is no PMU (CPUID 0xA is 0 on Intel models,
no PerfCtrExtCore on AMD ones, and MSRs that only pretend): the `pmu` record must say absent and
why, every probe that asked for counters must still produce its timing samples plus one `skip` per
set carrying the reason, nothing may print counts, and nothing may fault. The same assertions
accept a machine that has a PMU (the hardware path): then every such set carries a complete
counter value per sample and event, and pmu_check's instructions-retired count must have passed.
The hosted build (ring 3) reports the PMU absent with its own reason, but runs pmu_check through
perf_event: on a Linux machine whose kernel sees a PMU the check must pass there too."""

import os
import subprocess

import pytest

from bmharness.stream import parse
from conftest import ROOT

# Probes whose every sample carries counter deltas where a PMU exists.
RUNNER_PROBES = ("spin", "membw", "latency", "cachefill")
HOSTED_BIN = os.path.join(ROOT, "build", "hosted", "baremetric")


def counter_skips(summary):
    return [k for k in summary["skips"] if k.get("ctr_set")]


def check_counters_or_skips(b):
    s = b.summary
    assert s["validation"]["complete"] and s["ok"], s["validation"]["problems"]
    assert s["end"]["status"] == "ok" and b.run["firmware_status"] == 0
    assert s["faults"] == [] and s["end"]["faults"] == 0
    pmu = b.plat("pmu")
    for key in ("present", "reason", "pmu", "gp", "gp_width", "fixed", "full_width", "global_ctrl",
                "aperf_mperf", "rapl"):
        assert key in pmu, key
    assert pmu["reason"]
    sets = [x for x in s["sets"] if x["name"] in RUNNER_PROBES]
    assert {x["name"] for x in sets} == set(RUNNER_PROBES)
    # one skip per probe, counter set and reason (not one per set); every set names the counter
    # set it went without
    set_skips = [k for k in counter_skips(s) if "event" not in k]
    keyed = {(k["probe"], k["ctr_set"], k["reason"]) for k in set_skips}
    assert len(keyed) == len(set_skips), "repeated identical counter skips"
    for x in sets:
        # the timing samples are there either way
        assert x["complete"] and x["received"] == s["cfg"]["samples"], x["set"]
        if pmu["present"]:
            c = x["counters"]
            assert c["complete"] and c["events"], x["set"]
            for ev in c["events"].values():
                assert len(ev["values"]) == x["n"]
        else:
            assert "counters" not in x, "counter values without a PMU (set %s)" % x["set"]
            cs = x["params"]["ctr_skipped"]
            assert (x["name"], cs, pmu["reason"]) in keyed, (x["set"], cs)
    if not pmu["present"]:
        assert len(set_skips) < len(sets), "one skip per set again"
        assert all(k["events"] for k in set_skips)
        assert not any(r["type"] == "ctr" for r in _records(b))
    # end skips= counts every skip record the stream carries
    assert s["end"]["skips"] == len(s["skips"]), (s["end"]["skips"], len(s["skips"]))
    return pmu


def _records(b):
    import json

    with open(os.path.join(b.out_dir, "parsed", "records.jsonl")) as fh:
        return [json.loads(line) for line in fh]


def check_consistency(b, pmu):
    """pmu_check: instructions retired by a loop of known length, exact within the counter
    overhead where a PMU exists; a skip with the reason where none does (QEMU: always)."""
    s = b.summary
    checks = [c for c in s["checks"] if c.get("probe") == "pmu_check"]
    skips = [k for k in s["skips"] if k["probe"] == "pmu_check"]
    if pmu["present"]:
        (c,) = checks
        assert c["status"] == "pass", c
        assert abs(c["measured"] - c["expected"]) <= c["tolerance"]
    else:
        assert checks == []
        (k,) = skips
        assert k["reason"] == pmu["reason"]
        (cost,) = [k for k in s["skips"] if k["probe"] == "pmu_cost"]
        assert cost["reason"] == pmu["reason"]


def test_amd_model_counters_or_skips(amd):
    pmu = check_counters_or_skips(amd)
    assert amd.plat("cpu")["vendor"] == "AuthenticAMD"
    if not pmu["present"]:
        assert "PerfCtrExtCore" in pmu["reason"] or "do not count" in pmu["reason"]
    check_consistency(amd, pmu)


def test_latency_sets_name_their_level(amd):
    if amd.plat("pmu")["present"]:
        pytest.skip("counter sets are checked through their ctr records on this machine")
    sets = {k["ctr_set"] for k in counter_skips(amd.summary) if k["probe"] == "latency"}
    assert sets and sets <= {"latency_l1", "latency_l2", "latency_l3", "latency_mem"}
    bw = {k["ctr_set"] for k in counter_skips(amd.summary) if k["probe"] == "membw"}
    assert bw == {"bandwidth"}


def test_intel_model_absent_and_none_honoured(intel):
    s = intel.summary
    assert s["validation"]["complete"] and s["end"]["status"] == "ok"
    assert intel.plat("cpu")["vendor"] == "GenuineIntel"
    pmu = intel.plat("pmu")
    assert pmu["present"] == 0 and "CPUID 0xA" in pmu["reason"]
    assert s["cfg"]["pmu_events"] == "none"
    assert counter_skips(s) == []  # none asked for: nothing to skip
    warns = [m["text"] for m in s["messages"] if m["level"] == "warn"]
    assert any("unknown name 'l3_bogus' in 'pmu_events'" in w for w in warns), warns
    check_consistency(intel, pmu)
    assert all(x["complete"] for x in s["sets"])


def test_hosted_reports_absent_with_reason(tmp_path):
    if not os.access(HOSTED_BIN, os.X_OK):
        pytest.fail("%s is missing: run `make hosted`" % HOSTED_BIN)
    p = subprocess.run([HOSTED_BIN, "probes=spin,pmu_check", "samples=4", "tsc_cal_windows=1",
                        "tsc_cal_ms=20"], capture_output=True, timeout=120)
    log = tmp_path / "hosted.log"
    log.write_bytes(p.stdout)
    s = parse.parse_log(str(log), str(tmp_path / "parsed"))
    assert p.returncode == 0 and s["ok"], s["validation"]["problems"]
    pmu = s["platform"]["pmu"]
    assert pmu["present"] == 0
    assert pmu["reason"] == "hosted build: counters need ring 0 (perf_event serves only pmu_check)"
    (spin,) = [x for x in s["sets"] if x["name"] == "spin"]
    assert spin["complete"] and "counters" not in spin
    assert [k["reason"] for k in s["skips"] if k["probe"] == "spin"] == [pmu["reason"]]
    checks = [c for c in s["checks"] if c.get("probe") == "pmu_check"]
    if checks:  # the kernel sees a PMU: the consistency check ran through perf_event
        (c,) = checks
        assert c["counter"] == "perf_event" and c["status"] == "pass", c
        assert abs(c["measured"] - c["expected"]) <= c["tolerance"]
    else:
        (k,) = [k for k in s["skips"] if k["probe"] == "pmu_check"]
        assert k["reason"].startswith("perf_event_open(instructions): "), k
