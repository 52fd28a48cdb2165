"""Characterisation vectors (hbench-OS ch. 4.1): the machine vector from a run's figures
(analysis/vector.py), the application vector from cachegrind's counts (analysis/app_vector.py),
their dot product and ranking (analysis/predict.py) and the command line (vector_cli.py).
Known answers: the synthetic memory boot's L1 is 64 bytes and 4 cycles at 2.445 GHz, so its read
coefficient is 1 / (64 x 2.445) ns per byte and its load 4 / 2.445 ns; a dot product worked by
hand."""

import json
import os
import shutil
import subprocess
import sys

import pytest

import synth
from bmharness.analysis import app_vector, headline, predict, vector
from bmharness.report import report
from bmharness.stream import parse

HARNESS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                       "harness", "baremetric")

GHZ = synth.TSC_HZ / 1e9

CG_OUT = """\
desc: I1 cache:         32768 B, 64 B, 8-way associative
desc: D1 cache:         32768 B, 64 B, 8-way associative
desc: LL cache:         33554432 B, 64 B, 16-way associative
cmd: gzip -c in.txt
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
fl=/x.c
fn=main
1 10 0 0 5 1 0 2 0 0
summary: 1000000 100 10 300000 20000 1000 100000 5000 500
"""


def _run(tmp_path, stream, name="run"):
    log = tmp_path / (name + ".log")
    log.write_bytes(stream.data())
    out = tmp_path / name
    parse.parse_log(str(log), str(out))
    return out


@pytest.fixture
def memory_run(tmp_path):
    out = _run(tmp_path, synth.memory_stream())
    report.write_report(str(out), plot=False)
    return out


def test_machine_vector_known_answers(memory_run):
    vec = vector.load(str(memory_run))  # report wrote it
    c = vec["coefficients"]
    assert vec["format"] == vector.FORMAT and vec["machine"]["cpu"] == "Synthetic CPU"
    l1 = c["read_ns_per_byte.L1d"]
    assert l1["value"] == pytest.approx(1 / (synth.READ_BPC[0] * GHZ), rel=1e-3)
    assert l1["lo"] <= l1["value"] <= l1["hi"] and l1["unit"] == "ns/byte"
    assert c["load_ns.L1d"]["value"] == pytest.approx(synth.LAT_CYCLES[0] / GHZ, rel=1e-3)
    # slower levels cost more per byte and per load; DRAM is there (the sweep reaches it)
    for op in ("read", "load"):
        key = "%s_ns_per_byte.%%s" % op if op == "read" else "load_ns.%s"
        vals = [c[key % lv]["value"] for lv in ("L1d", "L2", "L3", "DRAM")]
        assert vals == sorted(vals), (op, vals)
    assert "write_ns_per_byte.L1d" not in c  # no write kernel in this boot: absent, never 0
    assert "insn_ns" not in c and "irq_ns" not in c


def test_insn_coefficient_from_spin_sets():
    mk = lambda n, med, lo, hi: {"name": "spin", "unit": "cycles", "set": n, "tsc_hz": 2e9,  # noqa
                                 "params": {"insns_per_iter": 2},
                                 "stats": {"per_op": {"median": med, "ci95": [lo, hi]}}}
    summary = {"sets": [mk(1, 2.0, 1.9, 2.1), mk(2, 4.0, 3.8, 4.2), mk(3, 3.0, 2.9, 3.1),
                        {"name": "timer", "unit": "cycles"}]}
    vec = vector.machine_vector({}, summary)
    insn = vec["coefficients"]["insn_ns"]
    # the median set (3.0 cycles per 2-instruction iteration at 2 GHz): 0.75 ns per instruction
    assert insn["value"] == pytest.approx(0.75) and insn["lo"] == pytest.approx(0.725)
    assert "spin set 3" in insn["source"]


def test_cachegrind_parse_and_app_vector():
    cg = app_vector.parse_cachegrind(CG_OUT)
    assert cg["line"] == 64 and cg["cmd"] == "gzip -c in.txt" and cg["events"]["Ir"] == 1000000
    bw = app_vector.app_vector(cg)["uses"]
    assert bw == {"insn_ns": 1000000,
                  "read_ns_per_byte.L2": ((20000 - 1000) + (100 - 10)) * 64,
                  "read_ns_per_byte.DRAM": (1000 + 10) * 64,
                  "write_ns_per_byte.L2": (5000 - 500) * 64,
                  "write_ns_per_byte.DRAM": 500 * 64}
    lat = app_vector.app_vector(cg, "latency")["uses"]
    assert lat["load_ns.L2"] == 19090 and lat["load_ns.DRAM"] == 1010
    assert "read_ns_per_byte.DRAM" not in lat and lat["write_ns_per_byte.DRAM"] == 500 * 64


@pytest.mark.parametrize("text, why", [
    ("events: Ir\n", "not a cachegrind output"),
    ("events: Ir Dr\nsummary: 1\n", "1 counts for 2 events"),
    ("events: Ir\nsummary: 5\n", "--cache-sim=yes"),
])
def test_cachegrind_bad_files(text, why):
    with pytest.raises(app_vector.VectorError, match=why.replace("-", "\\-").replace(".", "\\.")):
        app_vector.parse_cachegrind(text)


def _mvec(**coefs):
    return {"format": vector.FORMAT, "coefficients": {
        k: {"value": v[0], "lo": v[1], "hi": v[2], "unit": "ns"} for k, v in coefs.items()}}


def test_dot_product_interval_and_ranking():
    app = {"uses": {"insn_ns": 1000, "read_ns_per_byte.DRAM": 640, "write_ns_per_byte.L2": 0}}
    fast = _mvec(insn_ns=(0.5, 0.4, 0.6), **{"read_ns_per_byte.DRAM": (0.1, 0.09, 0.12)})
    slow = _mvec(insn_ns=(5.0, 4.0, 6.0), **{"read_ns_per_byte.DRAM": (0.2, 0.2, 0.2)})
    partial = _mvec(insn_ns=(0.5, 0.5, 0.5))
    rows = predict.predict(app, [("slow", slow), ("partial", partial), ("fast", fast)])
    assert [r["label"] for r in rows] == ["fast", "slow", "partial"]
    f, s, p = rows
    assert f["seconds"] == pytest.approx((1000 * 0.5 + 640 * 0.1) * 1e-9)
    assert f["lo_seconds"] == pytest.approx((1000 * 0.4 + 640 * 0.09) * 1e-9)
    assert f["hi_seconds"] == pytest.approx((1000 * 0.6 + 640 * 0.12) * 1e-9)
    assert f["rank"] == 1 and s["rank"] == 2
    assert s["ratio_to_fastest"] == pytest.approx((5000 + 128) / (500 + 64))
    assert f["terms"][0]["name"] == "insn_ns" and sum(t["share"] for t in f["terms"]) == \
        pytest.approx(1)
    # a use the machine has no coefficient for: no prediction, never one without the term
    assert p["seconds"] is None and p["rank"] is None and p["missing"] == ["read_ns_per_byte.DRAM"]


def test_cli_predict(memory_run, tmp_path):
    app = tmp_path / "app.json"
    app_vector.write_json(str(app), app_vector.app_vector(app_vector.parse_cachegrind(CG_OUT)))
    vec_file = tmp_path / "m.json"
    shutil.copy(str(memory_run / vector.FILE), str(vec_file))
    out = tmp_path / "pred.json"
    r = subprocess.run([sys.executable, HARNESS, "predict", str(app), str(memory_run),
                        str(vec_file), "--json", str(out)], capture_output=True, text=True)
    # the synthetic boot measured no instruction time and no write kernel: both targets lack them
    assert r.returncode == 1, r.stderr
    assert "missing: insn_ns" in r.stdout
    rows = json.loads(out.read_text())["predictions"]
    want = ["insn_ns", "write_ns_per_byte.DRAM", "write_ns_per_byte.L2"]
    assert [x["missing"] for x in rows] == [want, want]
    r = subprocess.run([sys.executable, HARNESS, "predict", str(app), str(tmp_path / "nothing")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "no such results directory" in r.stderr


@pytest.mark.skipif(not shutil.which("valgrind"), reason="valgrind not installed")
def test_cli_characterise_runs_cachegrind(tmp_path):
    out = tmp_path / "true.json"
    r = subprocess.run([sys.executable, HARNESS, "characterise", "--out", str(out), "--startup",
                        "", "--", "true"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    vec = app_vector.load(str(out))
    assert vec["tool"] == "cachegrind" and vec["command"] == "true" and vec["model"] == "prim"
    u = vec["uses"]
    assert u["op_ns.int_indep"] > 1000 and u["op_ns.load"] > 100 and u["op_ns.branch"] > 100
    assert vec["line_bytes"] in (32, 64, 128)
    # the OS counts: an exec'd program makes system calls and faults its pages in
    if shutil.which("strace") and os.path.exists("/usr/bin/time"):
        assert u["op_ns.syscall"] > 5 and u["op_ns.page_fault"] > 5
    # with its own start-up taken off, an empty program uses (almost) nothing
    r = subprocess.run([sys.executable, HARNESS, "characterise", "--out", str(out), "--", "true"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert app_vector.load(str(out))["uses"]["op_ns.int_indep"] < u["op_ns.int_indep"] / 10
    r = subprocess.run([sys.executable, HARNESS, "characterise", "--valgrind", "/nonexistent/vg",
                        "--", "true"], capture_output=True, text=True)
    assert r.returncode == 2 and "install Debian's valgrind" in r.stderr


def _cache_dir(root, name, level, ctype, size, ways, line):
    d = root / name
    d.mkdir(parents=True)
    for k, v in (("level", level), ("type", ctype), ("size", size),
                 ("ways_of_associativity", ways), ("coherency_line_size", line)):
        (d / k).write_text("%s\n" % v)


def test_last_level_option_from_sysfs(tmp_path):
    _cache_dir(tmp_path, "index0", 1, "Data", "32K", 8, 64)
    _cache_dir(tmp_path, "index1", 1, "Instruction", "32K", 8, 64)
    _cache_dir(tmp_path, "index3", 3, "Unified", "32768K", 16, 64)
    assert app_vector.last_level_option(str(tmp_path)) == "--LL=33554432,16,64"
    # sets not a power of two (a 12-way 30 MiB L3): cachegrind cannot simulate it, so none given
    odd = tmp_path / "odd"
    _cache_dir(odd, "index3", 3, "Unified", "30720K", 12, 64)
    assert app_vector.last_level_option(str(odd)) is None
    assert app_vector.last_level_option(str(tmp_path / "absent")) is None


def test_insn_coefficient_from_the_add_chain_first():
    """One dependent add is one core cycle (core_clock.py): with the chain's timings beside the
    bandwidth sets, insn_ns is 1 / the median set's core clock, the spin loop set aside."""
    def membw(n, ghz):
        ticks = lambda g: int(round(32768 * 2e9 / (g * 1e9))) + 50  # noqa: E731
        return {"name": "membw", "unit": "cycles", "set": n, "tsc_hz": 2e9, "overhead": 50,
                "params": {"core_clock": "add_chain", "core_clock_cycles": 32768,
                           "core_clock_ticks_lo": ticks(ghz * 1.01),
                           "core_clock_ticks_med": ticks(ghz), "core_clock_ticks_hi": ticks(ghz * 0.99)}}
    spin = {"name": "spin", "unit": "cycles", "set": 9, "tsc_hz": 2e9,
            "params": {"insns_per_iter": 2}, "stats": {"per_op": {"median": 4.0, "ci95": [4, 4]}}}
    vec = vector.machine_vector({}, {"sets": [membw(1, 3.0), membw(2, 2.0), membw(3, 4.0), spin]})
    insn = vec["coefficients"]["insn_ns"]
    assert insn["value"] == pytest.approx(1 / 3.0, rel=1e-3)
    assert insn["lo"] == pytest.approx(1 / 4.0, rel=1e-3) and insn["hi"] == pytest.approx(0.5, rel=1e-3)
    assert "dependent add" in insn["source"]
