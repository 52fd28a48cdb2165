"""Host side of the sampling profiler (bmharness/analysis/profile.py and symbolise.py,
stream/prof_records.py, report/prof_report.py, `baremetric profile`): a tiny ELF is built with gcc at test time, its functions'
addresses read back with nm, and record streams with known samples on them are synthesised
(the encoder and the CRC rule are protocol.py's / docs/protocol.md's)."""

import json
import os
import re
import shutil
import subprocess
import zlib

import pytest

from bmharness import cli
from bmharness.analysis import profile, symbolise
from bmharness.report import prof_report, report
from bmharness.stream import parse, prof_records
from synth import Stream

pytestmark = pytest.mark.skipif(not all(shutil.which(t) for t in ("gcc", "nm", "objdump",
                                                                   "addr2line")),
                                reason="needs gcc and binutils")

SRC = r"""
volatile unsigned long sink;
__attribute__((noinline)) void prof_hot_a(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink += i * 3;
}
__attribute__((noinline)) void prof_cold_b(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink ^= i;
}
"""
MAIN = "int main(void) { prof_hot_a(10); prof_cold_b(10); return 0; }\n"
FW_BASE = 0x7e5a0000        # a UEFI-like load address
PIE_BASE = 0x555555554000   # the usual first mapping of a PIE under Linux
STACK = 0x7ffff7a00000      # a pc in libc / the stack: outside the image


def _build(tmp, name, pie):
    src = tmp / (name + ".c")
    src.write_text(SRC + (MAIN if pie else ""))
    out = tmp / name
    flags = (["-fPIE", "-pie"] if pie else ["-fPIC", "-shared", "-nostdlib"])
    subprocess.run(["gcc", "-O1", "-g", "-Wl,--build-id"] + flags + [str(src), "-o", str(out)],
                   check=True)
    return out


def _nm(path):
    out = subprocess.run(["nm", "-S", str(path)], capture_output=True, text=True,
                         check=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] in ("prof_hot_a", "prof_cold_b"):
            syms[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
    return syms


def _insns(path, start, size):
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "--start-address=%d" % start,
                          "--stop-address=%d" % (start + size), str(path)],
                         capture_output=True, text=True, check=True).stdout
    return [(int(m.group(1), 16), m.group(2).split()[0], m.group(2)) for m in
            re.finditer(r"^\s*([0-9a-f]+):\s+(\S.*)$", out, re.M)]


def _image_size(path):
    out = subprocess.run(["readelf", "-lW", str(path)], capture_output=True, text=True,
                         check=True).stdout
    return max(int(m.group(1), 16) + int(m.group(2), 16) for m in re.finditer(
        r"LOAD\s+\S+\s+(0x[0-9a-f]+)\s+\S+\s+\S+\s+(0x[0-9a-f]+)", out))


@pytest.fixture(scope="module")
def elfs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("elf")
    out = {}
    for name, pie in (("fw.so", False), ("hosted", True)):
        path = _build(tmp, name, pie)
        syms = _nm(path)
        a, b = syms["prof_hot_a"], syms["prof_cold_b"]
        out[name] = {"path": path, "a": a, "b": b, "size": _image_size(path),
                     "insns_a": _insns(path, *a), "build_id": symbolise.read_build_id(path)}
    return out


def prof_stream(s, probe, base, size, build_id, per_cpu, events="cycles", lost=None,
                drop_chunk=None, bad_crc=None, bad_counted=None, source="pmi", cost=None,
                region=None, outside=None):
    """Add a profile's records to Stream s: per_cpu {cpu: [(pc, event, count)]}; chunks of 24;
    `region` the begin's (none: an older firmware's), `outside` {cpu: the end's outside=}."""
    s.add("prof", dict(kind="begin", probe=probe, source=source, events=events, unit="events",
                       period=62000, period_min=60000, period_max=64000, seed=7,
                       cpus=len(per_cpu), image_base="0x%x" % base, image_size=size,
                       build_id=build_id, **({"region": region} if region else {})))
    for cpu, entries in per_cpu.items():
        texts = []
        for k, i in enumerate(range(0, len(entries), prof_records.MAX_CHUNK)):
            part = entries[i:i + prof_records.MAX_CHUNK]
            e = ",".join("%x:%d:%d" % t for t in part)
            texts.append(e)
            if drop_chunk == (cpu, k):
                continue
            s.add("prof_data", probe=probe, cpu=cpu, i=i, n=len(part), e=e)
        counted = sum(c for _, _, c in entries)
        lo = (lost or {}).get(cpu, 0)
        crc = zlib.crc32(",".join(texts).encode()) & 0xFFFFFFFF
        if bad_crc == cpu:
            crc ^= 1
        s.add("prof", dict(kind="end", probe=probe, cpu=cpu, samples=counted + lo + (
            1 if bad_counted == cpu else 0), entries=len(entries), counted=counted, lost=lo,
            crc="%08x" % crc, handler_n=100, handler_med=180, handler_p90=240,
            **({"outside": outside[cpu]} if outside and cpu in outside else {})))
    s.add("prof", dict(dict(kind="cost", probe=probe, rounds=9, off=100000, on=101500,
                            overhead_ppm=15000, target_ppm=30000), **(cost or {})))
    return s


def known_split(e, base):
    """cpu 0: 700 cycles on prof_hot_a (600 on its 2nd instruction), 250 on prof_cold_b,
    50 outside; cpu 1: 30 entries spread over prof_hot_a (two chunks), 10 each.
    l1d_misses (event 1): 40 on prof_cold_b, 10 on prof_hot_a."""
    (a, asz), (b, _) = e["a"], e["b"]
    hot = e["insns_a"][1][0]
    cpu0 = [(base + hot, 0, 600), (base + a, 0, 100), (base + b, 0, 250), (STACK, 0, 50),
            (base + b, 1, 40), (base + hot, 1, 10)]
    cpu1 = [(base + a + (k % asz), 0, 10) for k in range(30)]
    return {0: cpu0, 1: cpu1}


def _run_dir(tmp_path, s, name="run"):
    log = tmp_path / (name + ".log")
    log.write_bytes(s.end().data())
    out = tmp_path / name
    summary = parse.parse_log(str(log), str(out))
    return out, summary


def _stream(e, base, **kw):
    s = Stream().begin()
    s.add("cfg", probes="spin", profile="spin")
    s.probe("spin", 0, [1000] * 8, iters=10)
    return prof_stream(s, "spin", base, e["size"], e["build_id"], known_split(e, base),
                       events="cycles,l1d_misses", **kw)


def test_read_build_id_matches_readelf(elfs):
    e = elfs["fw.so"]
    out = subprocess.run(["readelf", "-n", str(e["path"])], capture_output=True, text=True).stdout
    assert e["build_id"] and e["build_id"] in out
    assert symbolise.read_build_id(__file__) is None


def test_attribution_shares_events_outside(elfs, tmp_path):
    e = elfs["fw.so"]
    out, summary = _run_dir(tmp_path, _stream(e, FW_BASE))
    assert summary["ok"], summary["validation"]["problems"]
    res = profile.analyse_run(str(out), elf=str(e["path"]))
    assert res["ok"] and len(res["profiles"]) == 1
    p = res["profiles"][0]
    assert p["events"] == ["cycles", "l1d_misses"]
    assert p["totals"] == {"cycles": 600 + 100 + 250 + 50 + 300, "l1d_misses": 50}
    sh = p["shares"]["cycles"]
    assert sh["prof_hot_a"] == pytest.approx(1000 / 1300)
    assert sh["prof_cold_b"] == pytest.approx(250 / 1300)
    assert sh[profile.OUTSIDE] == pytest.approx(50 / 1300)
    assert sum(sh.values()) == pytest.approx(1.0)
    assert p["outside_image"] == {"cycles": 50, "l1d_misses": 0}
    assert p["shares"]["l1d_misses"]["prof_cold_b"] == pytest.approx(0.8)
    assert [r["name"] for r in p["functions"]][:2] == ["prof_hot_a", "prof_cold_b"]
    assert p["functions"][0]["by_cpu"] == {"0": {"cycles": 700, "l1d_misses": 10},
                                           "1": {"cycles": 300}}
    assert p["samples"] == 1350 and p["lost"] == 0 and p["cpus"] == [0, 1]
    assert profile.share(res, "spin", "prof_hot_a") == pytest.approx(1000 / 1300)
    # per-instruction: the hot instruction leads, with both events and a source line of the C file
    top = p["instructions"][0]
    assert int(top["addr"], 16) == e["insns_a"][1][0] and top["function"] == "prof_hot_a"
    extra = 10 * sum(1 for k in range(30) if k % e["a"][1] == e["insns_a"][1][0] - e["a"][0])
    assert top["samples"] == {"cycles": 600 + extra, "l1d_misses": 10}
    assert top["source"] and "fw.so.c" in top["source"]
    ann = p["annotated"][0]
    assert ann["function"] == "prof_hot_a" and int(ann["peak"], 16) == e["insns_a"][1][0]
    peak = [i for i in ann["instructions"] if i["peak"]][0]
    assert peak["hot"] and peak["insn"].split()[0] == e["insns_a"][1][1]
    # pcs inside an instruction (cpu 1 samples every byte) count for the instruction they are in
    lo, hi = (x[0] - e["a"][0] for x in e["insns_a"][1:3])
    inside = 10 * sum(1 for k in range(30) if lo <= k % e["a"][1] < hi)
    assert peak["share_in_function"]["cycles"] == pytest.approx((600 + inside) / 1000)
    assert sum(i["samples"]["cycles"] for i in ann["instructions"]) == 1000
    for i in ann["instructions"]:  # every share within the function has its Wilson interval
        lo, hi = i["share_in_function_ci"]["cycles"]
        assert lo <= i["share_in_function"]["cycles"] <= hi
    for r in p["lines"] + p["functions"]:
        assert r["share_ci"]["cycles"][0] <= r["share"]["cycles"] <= r["share_ci"]["cycles"][1]
    assert [c["status"] for c in p["checks"]] == ["pass", "pass"]


def test_hot_loop_found(elfs, tmp_path):
    """Samples on the body of prof_hot_a's loop: the annotation names the loop (target of the
    backward jump .. the jump) and the report's excerpt shows it."""
    e = elfs["fw.so"]
    back = [(a, int(t.split()[1], 16)) for a, m, t in e["insns_a"]
            if m.startswith("j") and int(t.split()[1], 16) < a]
    assert back, e["insns_a"]  # -O1 compiles the for loop to a backward conditional jump
    jump, target = back[-1]
    body = [a for a, _, _ in e["insns_a"] if target <= a <= jump]
    s = Stream().begin()
    prof_stream(s, "spin", FW_BASE, e["size"], e["build_id"],
                {0: [(FW_BASE + a, 0, 100 + 10 * k) for k, a in enumerate(body)]
                 + [(FW_BASE + e["a"][0], 0, 5)]})
    out, _ = _run_dir(tmp_path, s)
    shutil.copy(e["path"], out / (e["build_id"] + ".elf"))
    res = profile.analyse_run(str(out))
    loop = res["profiles"][0]["annotated"][0]["loop"]
    total = sum(100 + 10 * k for k in range(len(body)))
    assert (int(loop["start"], 16), int(loop["end"], 16)) == (target, jump)
    assert loop["instructions"] == len(body) and loop["samples"]["cycles"] == total
    assert loop["share_in_function"]["cycles"] == pytest.approx(total / (total + 5))
    text, _ = report.write_report(str(out), plot=False)
    assert "hot loop of prof_hot_a: 0x%x..0x%x" % (target, jump) in text


def test_cpu_filter(elfs, tmp_path):
    e = elfs["fw.so"]
    out, _ = _run_dir(tmp_path, _stream(e, FW_BASE))
    p = profile.analyse_run(str(out), elf=str(e["path"]), cpu=1)["profiles"][0]
    assert p["totals"]["cycles"] == 300 and p["shares"]["cycles"]["prof_hot_a"] == 1.0


def test_unknown_symbol_row(elfs, tmp_path):
    """A pc inside the image but below every function (the ELF header) is counted as unknown."""
    e = elfs["fw.so"]
    s = Stream().begin()
    prof_stream(s, "spin", FW_BASE, e["size"], e["build_id"],
                {0: [(FW_BASE + 0x10, 0, 5), (FW_BASE + e["a"][0], 0, 15)]})
    out, _ = _run_dir(tmp_path, s)
    p = profile.analyse_run(str(out), elf=str(e["path"]))["profiles"][0]
    assert p["shares"]["cycles"][profile.UNKNOWN] == 0.25 and p["unknown"]["cycles"] == 5


@pytest.mark.parametrize("damage,kind", [({"bad_crc": 0}, "prof_crc"),
                                         ({"drop_chunk": (1, 0)}, "prof_missing"),
                                         ({"bad_counted": 1}, "prof_balance")])
def test_damage_flagged(elfs, tmp_path, damage, kind):
    e = elfs["fw.so"]
    out, summary = _run_dir(tmp_path, _stream(e, FW_BASE, **damage))
    assert not summary["ok"]
    assert kind in summary["validation"]["problem_counts"]
    res = profile.analyse_run(str(out), elf=str(e["path"]))
    assert not res["ok"] and kind in {q["kind"] for q in res["problems"]}
    p = res["profiles"][0]
    assert not p["records_ok"] and p["checks"][0]["status"] == "fail"
    assert p["totals"]["cycles"] > 0  # what arrived is still attributed


def test_outside_the_measurement_counted_apart(elfs, tmp_path):
    """region=marked: the ends' `outside` samples (taken outside the measured region) are in no
    total or share; profile.json and the report state them, per CPU too. whole_run and an older
    log say why none are separated; an `outside` that is no count is a prof_field problem."""
    e = elfs["fw.so"]
    out, summary = _run_dir(tmp_path, _stream(e, FW_BASE, region="marked", outside={0: 450}))
    assert summary["ok"], summary["validation"]["problems"]
    shutil.copy(e["path"], out / (e["build_id"] + ".elf"))
    p = profile.analyse_run(str(out))["profiles"][0]
    assert p["region"] == "marked" and p["outside_measurement"] == 450
    assert [c["outside"] for c in p["per_cpu"]] == [450, None]
    assert p["samples"] == 1350 and p["totals"]["cycles"] == 1300  # the shares are unchanged
    assert p["shares"]["cycles"]["prof_hot_a"] == pytest.approx(1000 / 1300)
    text, _ = report.write_report(str(out), plot=False)
    flat = " ".join(text.split())
    assert "outside the measurement 450 of the 1800 taken (25.0 [" in flat
    assert "1350 in the measurement" in flat
    assert re.search(r"cpu\s+samples\s+outside\s+counted", text)
    for region, says in (("whole_run", "the probe marks no measured region"),
                         (None, "a log from before measured regions")):
        out, _ = _run_dir(tmp_path, _stream(e, FW_BASE, region=region), "r_%s" % region)
        p = profile.analyse_run(str(out))["profiles"][0]
        assert p["outside_measurement"] is None and p["region"] == region
        flat = " ".join(report.write_report(str(out), plot=False)[0].split())
        assert says in flat and "1350 taken" in flat
    out, summary = _run_dir(tmp_path, _stream(e, FW_BASE, region="marked", outside={0: "x"}), "bad")
    assert "prof_field" in summary["validation"]["problem_counts"]


def test_lost_balances_and_missing_end(elfs, tmp_path):
    e = elfs["fw.so"]
    s = Stream().begin()
    prof_stream(s, "spin", FW_BASE, e["size"], e["build_id"], {0: [(FW_BASE + e["a"][0], 0, 9)]},
                lost={0: 3})
    s.add("prof_data", probe="spin", cpu=4, i=0, n=2, e="zz:0:1,%x:0:2" % FW_BASE)
    out, summary = _run_dir(tmp_path, s)
    kinds = summary["validation"]["problem_counts"]
    assert "prof_balance" not in kinds  # 9 counted + 3 lost = 12 samples
    assert "prof_end_missing" in kinds and "prof_entry" in kinds
    p = profile.analyse_run(str(out), elf=str(e["path"]))["profiles"][0]
    assert p["lost"] == 3 and p["totals"]["cycles"] == 11


def test_garbage_never_raises(elfs, tmp_path):
    s = Stream().begin()
    s.add("prof", kind="begin", probe="x", events="", image_base="nothex", build_id="")
    s.add("prof_data", probe="x", cpu="q", i="a", n="b", e="::,")
    s.add("prof_data", probe="y", cpu=0, i=5, n=1, e="10:9:1")
    s.add("prof", kind="end", probe="x", cpu=0)
    s.add("prof", kind="weird", probe="x", cpu=0)
    out, summary = _run_dir(tmp_path, s)
    assert not summary["ok"]
    res = profile.analyse_run(str(out))
    assert len(res["profiles"]) == 2 and not res["ok"]
    report.write_report(str(out), plot=False)


def test_missing_elf_message_and_raw_table(elfs, tmp_path, capsys):
    e = elfs["fw.so"]
    s = Stream().begin()
    prof_stream(s, "spin", FW_BASE, e["size"], "00" * 20, known_split(e, FW_BASE),
                events="cycles,l1d_misses")
    out, _ = _run_dir(tmp_path, s)
    assert cli.main(["profile", str(out)]) == 0
    text = capsys.readouterr().out
    assert "NOT FOUND" in text and "no ELF with build id " + "00" * 20 in text
    assert "%x" % (FW_BASE + e["insns_a"][1][0]) in text  # the raw pc
    pj = json.loads((out / "profile.json").read_text())
    p = pj["profiles"][0]
    assert p["elf"]["path"] is None and not p["elf"]["symbolised"]
    assert p["shares"]["cycles"][profile.UNMAPPED] == pytest.approx(1250 / 1300)
    assert p["shares"]["cycles"][profile.OUTSIDE] == pytest.approx(50 / 1300)
    text, _ = report.write_report(str(out), plot=False)
    assert "NOT FOUND" in text and "hottest pcs" in text


def test_excerpt_window_around_peak():
    insns = [{"peak": k == 45} for k in range(50)]
    win, lo = prof_report._window(insns, profile.EXCERPT)
    assert len(win) == profile.EXCERPT and lo == 30 and win[15]["peak"]
    win, lo = prof_report._window(insns[:8], profile.EXCERPT)
    assert len(win) == 8 and lo == 0


def test_elf_found_by_build_id(elfs, tmp_path):
    e = elfs["fw.so"]
    repo = tmp_path / "repo"
    d = repo / "build" / "x86_64" / "elf"
    d.mkdir(parents=True)
    shutil.copy(e["path"], d / (e["build_id"] + ".elf"))
    f = symbolise.find_elf(e["build_id"], str(tmp_path / "run"), repo_root=str(repo))
    assert f["path"] == str(d / (e["build_id"] + ".elf")) and f["match"]
    # a file with the right name but another build id is not taken
    shutil.copy(elfs["hosted"]["path"], tmp_path / (e["build_id"] + ".elf"))
    os.remove(d / (e["build_id"] + ".elf"))
    f = symbolise.find_elf(e["build_id"], str(tmp_path / "run"), repo_root=str(repo))
    assert f["path"] is None and "no ELF with build id" in f["how"]
    # explicit --elf with another build id is used but said so
    f = symbolise.find_elf(e["build_id"], explicit=str(elfs["hosted"]["path"]))
    assert f["path"] and f["match"] is False and "differs" in f["how"]


def test_run_dir_elf_and_report_section(elfs, tmp_path):
    e = elfs["fw.so"]
    out, _ = _run_dir(tmp_path, _stream(e, FW_BASE))
    shutil.copy(e["path"], out / (e["build_id"] + ".elf"))
    text, ok = report.write_report(str(out), plot=False)
    assert ok
    md = (out / "report.md").read_text()
    for t in (text, md):
        assert "Profile of spin" in t and "prof_hot_a" in t and "l1d_misses" in t
        assert "=>" in t and e["insns_a"][1][1] in t  # the hot instruction, marked
        assert "15000 ppm" in t and "within target" in t
        assert "cycles by cpu 0/1" in t and "700/300" in t
    pj = json.loads((out / "profile.json").read_text())
    assert pj["profiles"][0]["elf"]["how"] == "found by build id"
    assert pj["profiles"][0]["shares"]["cycles"]["prof_hot_a"] == pytest.approx(1000 / 1300)


def test_overhead_above_target_flagged(elfs, tmp_path):
    e = elfs["fw.so"]
    s = Stream().begin()
    prof_stream(s, "spin", FW_BASE, e["size"], e["build_id"], {0: [(FW_BASE + e["a"][0], 0, 9)]},
                cost={"overhead_ppm": 45000})
    out, _ = _run_dir(tmp_path, s)
    shutil.copy(e["path"], out / (e["build_id"] + ".elf"))
    text, _ = report.write_report(str(out), plot=False)
    assert "ABOVE TARGET" in text
    p = json.loads((out / "profile.json").read_text())["profiles"][0]
    assert p["cost"]["above_target"] and p["checks"][1]["status"] == "fail"


def test_cost_skipped_and_auto_period(elfs, tmp_path):
    """The firmware's cost record may carry `skipped=why` only; an AP without samples sends no
    end (not a problem), cpu 0 always does."""
    e = elfs["fw.so"]
    s = Stream().begin()
    s.add("prof", kind="begin", probe="spin", source="timer", events="time", unit="ns",
          period=50000, period_min=40000, period_max=60000, seed=1, cpus=2,
          image_base="0x%x" % FW_BASE, image_size=e["size"], build_id=e["build_id"],
          period_auto=1, auto_sample_cost=1200, runs=12, extend_stop="time", min_samples=1000,
          extend_max_ms=20000)
    ent = "%x:0:7" % (FW_BASE + e["a"][0])
    s.add("prof_data", probe="spin", cpu=0, i=0, n=1, e=ent)
    s.add("prof", kind="end", probe="spin", cpu=0, samples=7, entries=1, counted=7, lost=0,
          crc="0x%x" % (zlib.crc32(ent.encode()) & 0xFFFFFFFF))
    s.add("prof", kind="cost", probe="spin", skipped="no calibrated spin loop")
    out, summary = _run_dir(tmp_path, s)
    assert summary["ok"], summary["validation"]["problems"]
    shutil.copy(e["path"], out / (e["build_id"] + ".elf"))
    text, _ = report.write_report(str(out), plot=False)
    assert "not measured: no calibrated spin loop" in text
    assert "chosen by the firmware to stay under the overhead target, 1200 cycles" in text
    flat = " ".join(text.split())  # the kv column wraps
    assert ("12 run(s) of the probe, the later ones muted: the probe's records are those of the "
            "first; the time bound (20000 ms) came first (goal 1000 samples)") in flat
    s = Stream().begin()
    prof_stream(s, "spin", FW_BASE, e["size"], e["build_id"], {1: [(FW_BASE + e["a"][0], 0, 3)]})
    out, summary = _run_dir(tmp_path, s, "nocpu0")
    assert summary["validation"]["problem_counts"].get("prof_end_missing") == 1


def test_cli_annotate_hosted_pie(elfs, tmp_path, capsys):
    """Hosted: image_base is the PIE's load base; libc pcs fall outside the image."""
    e = elfs["hosted"]
    s = Stream().begin()
    prof_stream(s, "spin", PIE_BASE, e["size"], e["build_id"], known_split(e, PIE_BASE),
                events="cycles,l1d_misses", source="perf")
    out, _ = _run_dir(tmp_path, s)
    assert cli.main(["profile", str(out), "--elf", str(e["path"]), "--probe", "spin",
                     "--top", "5"]) == 0
    text = capsys.readouterr().out
    assert "Profile of spin" in text and "prof_hot_a" in text and "prof_cold_b" in text
    assert "(outside the image)" in text
    hot = [ln for ln in text.splitlines() if ln.strip().startswith("=>")]
    assert hot and e["insns_a"][1][1] in hot[0] and "%x" % e["insns_a"][1][0] in hot[0]
    p = json.loads((out / "profile.json").read_text())["profiles"][0]
    assert p["shares"]["cycles"]["prof_hot_a"] == pytest.approx(1000 / 1300)
    assert p["source"] == "perf" and p["image_base"] == "0x%x" % PIE_BASE


def test_cli_serial_log_and_unknown_probe(elfs, tmp_path, capsys):
    e = elfs["hosted"]
    s = _stream(e, PIE_BASE)
    log = tmp_path / "serial.log"
    log.write_bytes(s.end().data())
    assert cli.main(["profile", str(log), "--elf", str(e["path"]), "--probe", "membw"]) == 1
    assert "not profiled in this run: membw (profiled: spin)" in capsys.readouterr().out
    assert cli.main(["profile", str(tmp_path / "nope")]) == 2


def test_no_profile_no_section(tmp_path):
    s = Stream().begin()
    s.probe("spin", 0, [1000] * 8, iters=10)
    out, summary = _run_dir(tmp_path, s)
    text, _ = report.write_report(str(out), plot=False)
    assert "PROFILE" not in text and not (out / "profile.json").exists()
