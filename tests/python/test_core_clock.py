"""Bytes per core cycle (analysis/core_clock.py, analysis/limits.py): the core clock of a set from
APERF/MPERF, PMU cycles or the firmware's add chain; the limits table looked up by CPU; the
fraction of the limit; "limit unknown"; DRAM against the SMBIOS peak -- on synthetic streams,
through the report, the first screen and results.json."""

import json

import pytest

import synth
from synth import KiB, MiB
from bmharness.analysis import core_clock, export, headline, limits, memory
from bmharness.report import headline as headline_report, report
from bmharness.stream import parse
from bmharness.stream.protocol import encode_values

N = 8
TSC = 2000000000
ITERS = 10


def parsed(tmp_path, stream, name="run"):
    log = tmp_path / ("%s.log" % name)
    log.write_bytes(stream.data())
    out = tmp_path / name
    summary = parse.parse_log(str(log), str(out))
    assert summary["ok"], summary["validation"]["problems"]
    return summary, str(out)


def ctr(s, event, values, overhead=0):
    s.add("ctr", set=0, event=event, **{"pass": 0}, overhead=overhead, wraps=0, i=0, n=len(values),
          v=encode_values(values))


def one_set(events=None, chain=None, samples=None):
    """A boot with one membw set: counter deltas per event ({event: (values, overhead)}), the
    add chain's fields (synth.core_clock_fields's) and the samples."""
    s = synth.Stream().begin()
    s.add("cfg", probes="membw", samples=N)
    s.add("plat", kind="tsc", hz=TSC, source="hpet", invariant=1)
    extra = dict(ctr_set="bandwidth", ctr_events=",".join(events), ctr_passes=1) if events else {}
    s.add("probe", dict(name="membw", set=0, unit="cycles", n=N, iters=ITERS, overhead=40,
                        tsc_hz=TSC, kernel="read", width=256, size=65536, bytes_per_op=65536,
                        **dict(extra, **(chain or {}))))
    s.add("samples", set=0, i=0, n=N, v=encode_values(samples or [20040] * N))
    for ev, (vals, ov) in (events or {}).items():
        ctr(s, ev, vals, ov)
    return s.end(probes=1, skips=0)


def test_clock_from_aperf_mperf(tmp_path):
    aperf = [3000] * (N - 1) + [3300]           # one sample 10% faster: the spread's top
    summary, out = parsed(tmp_path, one_set({"aperf": (aperf, 0), "mperf": ([2000] * N, 0)},
                                            synth.core_clock_fields(2.5e9, TSC, 40)))
    clk = core_clock.set_clock(summary["sets"][0], TSC, out)
    assert clk["source"] == core_clock.APERF_MPERF and clk["n"] == N
    assert clk["hz"] == pytest.approx(1.5 * TSC) and clk["lo_hz"] == pytest.approx(1.5 * TSC)
    assert clk["hi_hz"] == pytest.approx(1.65 * TSC)
    assert clk["add_chain_hz"] == pytest.approx(2.5e9, rel=1e-4)  # kept beside as a cross-check


def test_clock_from_pmu_cycles(tmp_path):
    # samples 20040 ticks with overhead 40: 20000 TSC ticks; 30000 core cycles -> 1.5 x TSC
    summary, out = parsed(tmp_path, one_set({"cycles": ([30000 + 30] * N, 30)}))
    clk = core_clock.set_clock(summary["sets"][0], TSC, out)
    assert clk["source"] == core_clock.PMU_CYCLES
    assert clk["hz"] == pytest.approx(1.5 * TSC) and clk["add_chain_hz"] is None
    # without the raw file the sample times are unknown: no pmu_cycles clock
    assert core_clock.set_clock(summary["sets"][0], TSC) is None


def test_clock_from_the_add_chain(tmp_path):
    summary, out = parsed(tmp_path, one_set(chain=synth.core_clock_fields(3.1e9, TSC, 40)))
    clk = core_clock.set_clock(summary["sets"][0], TSC, out)
    assert clk["source"] == core_clock.ADD_CHAIN
    assert clk["hz"] == pytest.approx(3.1e9, rel=1e-4) and clk["hi_hz"] == clk["hz"]
    assert clk["lo_hz"] == pytest.approx(3.1e9 / 1.01, rel=1e-4)  # the slowest timing
    # the overhead is taken off: without it the clock would be 40 ticks slower per timing
    ticks = summary["sets"][0]["params"]["core_clock_ticks_med"]
    assert clk["hz"] == pytest.approx(synth.CHAIN_CYCLES * TSC / (ticks - 40))


def test_no_clock_without_a_source(tmp_path):
    summary, out = parsed(tmp_path, one_set())
    assert core_clock.set_clock(summary["sets"][0], TSC, out) is None
    assert core_clock.set_clock(summary["sets"][0], None, out) is None
    assert core_clock.bytes_per_cycle(100.0, None) is None
    assert core_clock.bytes_per_cycle(100.0, {"hz": 2.5e9}) == pytest.approx(40.0)


@pytest.mark.parametrize("cpu,name", [
    ({"vendor": "AuthenticAMD", "family": 25, "model": 1}, "Zen 3"),        # Milan
    ({"vendor": "AuthenticAMD", "family": 25, "model": 0x21}, "Zen 3"),     # Vermeer
    ({"vendor": "AuthenticAMD", "family": 25, "model": 0x11}, "Zen 4"),     # Genoa
    ({"vendor": "AuthenticAMD", "family": 25, "model": 0x61}, "Zen 4"),     # Raphael
    ({"vendor": "AuthenticAMD", "family": 26, "model": 0x44}, "Zen 5"),     # Granite Ridge
    ({"vendor": "AuthenticAMD", "family": "0x1a", "model": "0x2"}, "Zen 5"),
    ({"vendor": "AuthenticAMD", "family": 23, "model": 0x31}, "Zen 2"),     # Rome
    ({"vendor": "GenuineIntel", "family": 6, "model": 0x55}, "Skylake Server / Cascade Lake"),
    ({"vendor": "GenuineIntel", "family": 6, "model": 0x9E}, "Skylake client"),
    ({"vendor": "GenuineIntel", "family": 6, "model": 0x6A},
     "Ice Lake / Tiger Lake (Sunny, Willow Cove)"),
    ({"vendor": "GenuineIntel", "family": 6, "model": 0x8F},
     "Golden Cove / Raptor Cove (Sapphire Rapids, Alder / Raptor Lake P-core)"),
])
def test_lookup_by_cpu(cpu, name):
    row = limits.lookup(cpu)
    assert row["name"] == name and row["source"] in limits.SOURCES


@pytest.mark.parametrize("cpu", [
    {"vendor": "GenuineIntel", "family": 6, "model": 0x1A},     # Nehalem: no row
    {"vendor": "AuthenticAMD", "family": 21, "model": 2},       # Bulldozer
    {"vendor": "ARM", "family": 15, "model": 81},               # AArch64: by MIDR only
    {"vendor": "AuthenticAMD", "family": 25},                   # no model
    {}, None])
def test_no_row_is_limit_unknown(cpu):
    assert limits.lookup(cpu) is None
    assert limits.limit(None, "read", 256) is None
    assert limits.text("L1 read", 40.0, None) == "L1 read 40.0 B/cycle, limit unknown"


def test_lookup_by_midr():
    assert limits.lookup({}, "0x410fd4f0")["name"] == "Neoverse V2"     # Grace, Graviton 4
    assert limits.lookup({}, synth.MIDR_N1) is None                     # N1: no row (limit unknown)
    assert limits.lookup({}, synth.MIDR_TCG) is None                    # QEMU TCG
    assert limits.limit(limits.lookup({}, "0x410fd4f0"), "read", None)["text"] == "3 x 16 B"


def test_aarch64_run_without_a_row_says_limit_unknown(tmp_path):
    summary, _ = parsed(tmp_path, synth.memory_stream(arch="aarch64", midr=synth.MIDR_N1, n=8))
    assert memory.cpu_limits(summary)["cpu"] is None
    summary, _ = parsed(tmp_path, synth.memory_stream(arch="aarch64", midr="0x410fd4f0", n=8),
                        name="v2")
    assert memory.cpu_limits(summary)["cpu"] == "Neoverse V2"


def test_limits_and_fractions():
    zen5, zen4, zen3 = (limits.by_name(n) for n in ("Zen 5", "Zen 4", "Zen 3"))
    # the example the report gives: Zen 5 with AVX-512 reads 2 x 64 B per cycle
    li = limits.limit(zen5, "read", 512)
    assert li == {"bpc": 128.0, "text": "2 x 64 B"}
    assert limits.text("L1 read", 128.4, li) == "L1 read 128.4 B/cycle = 1.00 of 2 x 64 B"
    assert limits.fraction(121.6, li) == pytest.approx(0.95)
    assert limits.limit(zen5, "write", 512)["bpc"] == 64.0
    assert limits.limit(zen5, "read", 256)["bpc"] == 64.0    # AVX2 on Zen 5: 2 x 32 B
    # Zen 4: 512-bit ops are two 256-bit halves: one 512-bit load, half a 512-bit store per cycle
    assert limits.limit(zen4, "read", 512) == {"bpc": 64.0, "text": "1 x 64 B"}
    assert limits.limit(zen4, "write", 512)["bpc"] == 32.0
    # Zen 3 has no 512-bit path: a width above its widest takes its widest (2 x 32 B)
    assert limits.limit(zen3, "read", 512)["bpc"] == limits.limit(zen3, "read", None)["bpc"] == 64
    assert limits.limit(zen3, "read", 64) == {"bpc": 24.0, "text": "3 x 8 B"}  # scalar: 3 loads
    # copy: each byte loaded and stored, counted twice (rw): 2 x min(read, write)
    assert limits.limit(zen3, "copy", 256)["bpc"] == 64.0
    assert limits.limit(zen5, "copy", 512)["bpc"] == 128.0
    assert limits.limit(zen3, "write_nt", 256) is None
    assert limits.fraction(None, li) is None and limits.fraction(64.0, None) is None
    assert limits.width_bits("256") == 256 and limits.width_bits("rep") is None


def test_every_row_cites_a_source_and_gives_every_width_up_to_its_widest():
    for row in limits.ROWS:
        assert limits.SOURCES[row["source"]]
        for ports in (row["loads"], row["stores"]):
            assert 64 in ports and all(n > 0 and b == w // 8 for w, (n, b) in ports.items())


L1_SIZES = [4 * KiB, 8 * KiB, 16 * KiB, 32 * KiB, 64 * KiB, 256 * KiB, 512 * KiB, 1 * MiB,
            4 * MiB, 32 * MiB, 128 * MiB, 256 * MiB]


def test_report_states_l1_fraction_and_dram_peak(tmp_path):
    # Skylake Server (6/85) reads 2 x 32 B per cycle at width 256; the synthetic L1 gives 64 B per
    # TSC cycle and the core runs at the TSC's rate: 1.00 of the limit
    summary, out = parsed(tmp_path, synth.memory_stream(core_hz=synth.TSC_HZ, sizes=L1_SIZES,
                                                        dram_mbps=51200, n=8))
    mem = memory.analyse(summary, out)
    lv = headline.memory_levels(mem)
    rd = lv["levels"][0]["read"]
    assert rd["core_clock_source"] == "add_chain"
    assert rd["core_hz"] == pytest.approx(synth.TSC_HZ, rel=1e-3)
    assert rd["bytes_per_cycle"] == pytest.approx(64.0, rel=0.01)
    assert rd["limit"]["text"] == "2 x 32 B" and rd["limit"]["fraction"] == pytest.approx(1, 0.01)
    assert "limit" not in lv["levels"][1]["read"]     # only the L1 is held against the limit
    dram = lv["dram"]
    best = max(dram[k]["gbps"] for k in ("read", "copy") if dram.get(k))
    assert dram["peak_gbps"] == pytest.approx(51.2)
    assert dram["peak_fraction"] == pytest.approx(best / 51.2)
    lines = headline_report.per_cycle_lines(lv)
    assert lines[0].startswith("L1d B/cycle: read 64.0 = 1.00 of 2x32 B")
    assert "DRAM %.2f of SMBIOS peak 51.2 GB/s" % dram["peak_fraction"] in lines[1]
    text, _ = report.write_report(out, plot=False)
    md = open(out + "/report.md").read()
    assert "### Bytes per core cycle" in md and "1.00 of 2 x 32 B" in md
    first = text.split("\nSTATUS")[0]  # the first screen (AT A GLANCE) ends with its status
    assert "L1d B/cycle: read 64.0 = 1.00 of 2x32 B" in first
    res = export.build(summary, out)
    assert res["bandwidth_limits"]["cpu"] == "Skylake Server / Cascade Lake"
    l1 = [r for r in res["rows"] if r["cache_level"] == "L1d" and r["params"].get("kernel") == "read"]
    assert l1 and all(r["limit"]["bytes_per_cycle"] == 64 for r in l1)
    assert all(r["limit_fraction"] == pytest.approx(1, 0.02) for r in l1)
    l2 = [r for r in res["rows"] if r["cache_level"] == "L2" and r["probe"] == "membw"]
    assert l2 and all(r["limit"] is None and r["bytes_per_cycle"] for r in l2)
    json.dumps(res, allow_nan=False)


def test_unknown_cpu_and_peak_say_so(tmp_path):
    summary, out = parsed(tmp_path, synth.memory_stream(core_hz=3e9, sizes=L1_SIZES, n=8,
                                                        cpu=("GenuineIntel", 6, 0x1A)))
    lv = headline.memory_levels(memory.analyse(summary, out))
    assert lv["limits"]["cpu"] is None
    rd = lv["levels"][0]["read"]
    assert rd["limit"] is None and rd["bytes_per_cycle"] == pytest.approx(64.0 * 2.445 / 3, 0.01)
    lines = headline_report.per_cycle_lines(lv)
    assert lines[0].endswith("(limit unknown)")
    assert lines[1].endswith("DRAM peak unknown")
    report.write_report(out, plot=False)
    assert "limit unknown: no row for this CPU" in open(out + "/report.md").read()
    res = export.build(summary, out)
    assert res["bandwidth_limits"] == {"cpu": None, "source": None, "note": "limit unknown"}
    assert all(r["limit"] is None and r["limit_fraction"] is None for r in res["rows"])


def test_old_logs_without_a_core_clock(tmp_path):
    summary, out = parsed(tmp_path, synth.memory_stream(sizes=L1_SIZES, n=8))
    lv = headline.memory_levels(memory.analyse(summary, out))
    rd = lv["levels"][0]["read"]
    assert rd["core_hz"] is None and rd["bytes_per_cycle"] is None
    assert headline_report.per_cycle_lines(lv)[0] == "L1d B/cycle: no core clock for its sets"
