"""compare beyond one pair of sets: a real run against a perturbed copy of itself (every set
matches), the units (GB/s, ns, --cycles), sorting, --changed-only, compare.json, several boots a
side (Welch on boot medians), --boot-spread, per cache level across different sweeps, and one
boot against several (the prediction-interval t test)."""

import json
import pathlib
import random

import pytest

import restream
import synth
from bmharness import cli
from bmharness.analysis import compare
from bmharness.report import compare as compare_report

DATA = pathlib.Path(__file__).resolve().parent / "data"


def load(path, tmp_path):
    return compare.load_run(str(path), str(tmp_path))


# --- two boots of one image on one machine -------------------------------------------------

@pytest.mark.parametrize("arch", ["x86_64", "hosted", "aarch64"])
def test_real_run_against_perturbed_copy_matches_every_set(arch, tmp_path):
    text = (DATA / ("%s_excerpt.log" % arch)).read_text()
    recs = restream.read_records(text)
    other = restream.perturb(recs, seed=11)
    (tmp_path / "b.log").write_text(restream.write(other))
    (tmp_path / "a.log").write_text(text)
    a, b = load(tmp_path / "a.log", tmp_path), load(tmp_path / "b.log", tmp_path)
    # the copy really differs in measured fields (timer_hz, arm_cycles_median, armed, ...)
    changed = {k for sa, sb in zip(a["summary"]["sets"], b["summary"]["sets"])
               for k in sa["params"] if sa["params"][k] != sb["params"].get(k)}
    assert len(changed) >= 5
    if arch != "aarch64":
        assert {"timer_hz", "arm_cycles_median", "armed"} <= changed
    res = compare.compare(a, b)
    assert not res["only_a"] and not res["only_b"]
    assert len(res["rows"]) == len(a["summary"]["sets"])
    assert all(r["set_a"] == r["set_b"] for r in res["rows"])


# --- units, order, changed-only, json ------------------------------------------------------

def mem_runs(tmp_path, scale_b=1.0, **kw):
    out = []
    for name, scale, seed in (("a", 1.0, 1), ("b", scale_b, 2)):
        log = tmp_path / (name + ".log")
        log.write_bytes(synth.memory_stream(scale=scale, seed=seed,
                                            sizes=synth.sweep_sizes(4 * synth.KiB, 64 * synth.MiB),
                                            **kw).data())
        out.append(load(log, tmp_path))
    return out


def test_units_gbps_and_ns_by_default_cycles_on_request(tmp_path):
    a, b = mem_runs(tmp_path)
    rows = compare.compare(a, b)["rows"]
    s = next(s for s in a["summary"]["sets"] if s["name"] == "membw")
    r = next(r for r in rows if r["set_a"] == s["set"])
    want = s["params"]["bytes_per_op"] * synth.TSC_HZ / 1e9 / s["stats"]["per_op"]["median"]
    assert r["unit"] == "GB/s" and r["higher_is_better"]
    assert r["median_a"] == pytest.approx(want, rel=0.01)
    lat = next(s for s in a["summary"]["sets"] if s["name"] == "latency")
    r = next(r for r in rows if r["set_a"] == lat["set"])
    assert r["unit"] == "ns" and r["median_a"] == pytest.approx(
        lat["stats"]["per_op"]["median"] * 1e9 / synth.TSC_HZ, rel=0.01)
    rows = compare.compare(a, b, cycles=True)["rows"]
    assert {r["unit"] for r in rows} == {"cycles"}


def test_slower_machine_is_b_slower_in_gbps_and_ns_rows_sorted(tmp_path):
    a, b = mem_runs(tmp_path, scale_b=1.2)
    res = compare.compare(a, b)
    rows = res["rows"]
    bw = [r for r in rows if r["unit"] == "GB/s"]
    lat = [r for r in rows if r["unit"] == "ns"]
    assert bw and lat
    assert all(r["shift"] < 0 and r["verdict"] == "B slower" for r in bw)  # fewer GB/s
    assert all(r["shift"] > 0 and r["verdict"] == "B slower" for r in lat)  # more ns
    eff = [abs(r["shift_pct"]) for r in rows if r["shift_pct"] is not None]
    assert eff == sorted(eff, reverse=True)


def test_changed_only_and_json(tmp_path, capsys):
    a, b = mem_runs(tmp_path, scale_b=1.0)
    (tmp_path / "c.log").write_bytes(synth.memory_stream(
        seed=3, sizes=synth.sweep_sizes(4 * synth.KiB, 64 * synth.MiB), latency=False,
        kernels=(("read", 256),), bpc=(32.0, 32.0, 16.0, 6.0)).data())  # a slower L1 only
    argv = ["compare", str(tmp_path / "a.log"), str(tmp_path / "c.log"), "--out",
            str(tmp_path / "o")]
    assert cli.main(argv + ["--changed-only"]) == 0
    md = (tmp_path / "o" / "compare.md").read_text()
    data = json.loads((tmp_path / "o" / "compare.json").read_text())
    changed = [r for r in data["rows"] if r["changed"]]
    assert changed and len(changed) < len(data["rows"])  # json keeps every row
    assert md.count("B slower (within-boot only)") >= len(changed)
    assert "no significant difference" not in md and "--changed-only" in md
    assert data["scope"] == "within-boot" and "Mann-Whitney" in data["method"]
    capsys.readouterr()
    assert cli.main(argv + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rows"] and out["only_b"] == [] and len(out["only_a"]) > 0  # no latency in C


# --- several boots a side -------------------------------------------------------------------

def boot_stream(seed, level, boot_sd=0.0, sample_sd=2.0, n_sets=6):
    """spin sets whose level moves from boot to boot by boot_sd % (one draw per boot), with
    small noise inside the boot."""
    r = random.Random(seed)
    s = synth.Stream().begin()
    s.add("plat", kind="tsc", hz=synth.TSC_HZ, source="hpet", invariant=1)
    boot = 1 + r.gauss(0, boot_sd / 100.0)
    for k in range(n_sets):
        vals = [int(round(level * boot + r.gauss(0, sample_sd))) for _ in range(40)]
        s.probe("spin", k, vals, iters=1, overhead=0, loop="dec_jnz", unroll=k)
    return s.end()


def boots(tmp_path, name, seeds, level, boot_sd):
    out = []
    for seed in seeds:
        log = tmp_path / ("%s%d.log" % (name, seed))
        log.write_bytes(boot_stream(seed, level, boot_sd).data())
        out.append(load(log, tmp_path))
    return out


def test_boot_is_the_unit_with_several_boots(tmp_path):
    # Every boot sits 3% off at random: one boot a side "finds" differences that are the
    # boots', five a side do not.
    a = boots(tmp_path, "a", range(1, 6), 5000, boot_sd=3.0)
    b = boots(tmp_path, "b", range(11, 16), 5000, boot_sd=3.0)
    one = compare.compare(a[0], b[0])
    assert one["scope"] == compare.WITHIN and any(r["changed"] for r in one["rows"])
    many = compare.compare(a, b)
    assert many["scope"] == compare.BOOTS
    assert not any(r["changed"] for r in many["rows"])
    for r in many["rows"]:
        assert r["scope"] == compare.BOOTS and len(r["boot_medians_a"]) == 5
    # a real 15% change stands out of the boot-to-boot spread
    c = boots(tmp_path, "c", range(21, 26), 5750, boot_sd=3.0)
    res = compare.compare(a, c)
    assert all(r["changed"] and r["verdict"] == "B slower" for r in res["rows"])
    text = compare_report.build_doc(a, c, res).text()
    assert "Welch t on the per-boot medians" in text and "5 boots of A" in text


def test_boot_spread_with_one_boot_a_side(tmp_path):
    a = boots(tmp_path, "a", [1], 5000, boot_sd=0.0)
    b = boots(tmp_path, "b", [2], 5200, boot_sd=0.0)  # +4%
    res = compare.compare(a, b)
    assert all(r["changed"] for r in res["rows"])
    assert "no boot-to-boot spread stated" in compare_report.method_text(res)
    res = compare.compare(a, b, boot_spread_pct=5.0)
    assert not any(r["changed"] for r in res["rows"])
    assert {r["verdict"] for r in res["rows"]} == {"within the boot-to-boot spread"}
    assert "stated boot-to-boot spread of 5%" in compare_report.method_text(res)


def test_cli_sides(tmp_path, capsys):
    for name, seed in (("a1", 1), ("a2", 2), ("b1", 3), ("b2", 4)):
        (tmp_path / (name + ".log")).write_bytes(boot_stream(seed, 5000, 1.0).data())
    logs = {n: str(tmp_path / (n + ".log")) for n in ("a1", "a2", "b1", "b2")}
    assert cli.main(["compare", "--a", logs["a1"], logs["a2"], "--b", logs["b1"], logs["b2"],
                     "--out", str(tmp_path / "o"), "--boot-spread", "3"]) == 0
    data = json.loads((tmp_path / "o" / "compare.json").read_text())
    assert data["scope"] == "boot-to-boot" and len(data["a"]) == 2 and len(data["b"]) == 2
    assert "boots A/B" in (tmp_path / "o" / "compare.md").read_text()
    capsys.readouterr()
    assert cli.main(["compare", logs["a1"], "--a", logs["a2"], "--b", logs["b1"]]) == 2
    assert cli.main(["compare", logs["a1"]]) == 2
    assert cli.main(["compare", "--a", logs["a1"]]) == 2
    assert "RUN_A RUN_B" in capsys.readouterr().err


# --- per cache level, across different sweeps -----------------------------------------------

def test_levels_pair_by_name_across_different_sweeps(tmp_path):
    ka, kb = (32 * synth.KiB, 512 * synth.KiB, 32 * synth.MiB), \
        (48 * synth.KiB, 1280 * synth.KiB, 16 * synth.MiB)
    sizes_b, s = [], 6 * synth.KiB
    while s <= 256 * synth.MiB:
        sizes_b.append(s)
        s = (int(s * 1.5) + 63) // 64 * 64
    (tmp_path / "a.log").write_bytes(synth.memory_stream(caches=ka, seed=1).data())
    # B: another machine, its own cache sizes and sweep, and an L2 twice as fast
    (tmp_path / "b.log").write_bytes(synth.memory_stream(
        caches=kb, sizes=sizes_b, bpc=(64.0, 64.0, 16.0, 6.0), seed=2).data())
    a, b = load(tmp_path / "a.log", tmp_path), load(tmp_path / "b.log", tmp_path)
    res = compare.compare(a, b)
    assert len(res["only_a"]) > len(res["rows"])  # few sizes shared
    lv = {(r["curve"], r["level"]): r for r in res["levels"]["rows"]}
    assert {lvl for _, lvl in lv} == {"L1d", "L2", "L3", "DRAM"}
    read_l1, read_l2 = lv[("read/256", "L1d")], lv[("read/256", "L2")]
    assert read_l1["sizes_a"] != read_l1["sizes_b"]
    assert not read_l1["changed"] and abs(read_l1["shift_pct"]) < 2
    assert read_l2["changed"] and read_l2["verdict"] == "B faster" and read_l2["unit"] == "GB/s"
    assert {r["unit"] for r in res["levels"]["rows"] if r["probe"] == "latency"} == {"ns"}
    [row] = [b for b in res["levels"]["bounds_b"] if b[0] == "L2"]
    assert 24 * synth.KiB <= row[1] / 2 <= 96 * synth.KiB  # twice L1d (its knee or size)
    text = compare_report.build_doc(a, b, res).text()
    assert "PER CACHE LEVEL" in text


# --- one boot against several ----------------------------------------------------------------

def test_prediction_t_known_value():
    # ys 10, 12, 14: mean 12, s 2; x 20: t = 8 / (2 sqrt(4/3)) = sqrt(12), df 2, and for df 2
    # the two-sided p is 1 - |t| / sqrt(2 + t^2) = 1 - sqrt(6/7)
    pt = compare.prediction_t(20.0, [10.0, 12.0, 14.0])
    assert pt["t"] == pytest.approx(12 ** 0.5) and pt["df"] == 2
    assert pt["p"] == pytest.approx(1 - (6 / 7) ** 0.5, rel=1e-9)
    assert compare.prediction_t(4.0, [10.0, 12.0, 14.0])["t"] == pytest.approx(-12 ** 0.5)
    assert compare.prediction_t(5.0, [5.0, 5.0])["p"] == 1.0
    assert compare.prediction_t(6.0, [5.0, 5.0])["p"] == 0.0
    assert compare.prediction_t(5.0, [5.0]) is None


def test_prediction_t_against_scipy():
    sp = pytest.importorskip("scipy.stats")
    r = random.Random(7)
    for _ in range(50):
        ys = [r.gauss(100, 5) for _ in range(r.randint(2, 12))]
        x = r.gauss(100, 15)
        n, m = len(ys), sum(ys) / len(ys)
        s = (sum((y - m) ** 2 for y in ys) / (n - 1)) ** 0.5
        t = (x - m) / (s * (1 + 1 / n) ** 0.5)
        got = compare.prediction_t(x, ys)
        assert got["t"] == pytest.approx(t)
        assert got["p"] == pytest.approx(2 * sp.t.sf(abs(t), n - 1), rel=1e-9, abs=1e-15)


def test_one_boot_against_several_uses_the_other_sides_boot_spread(tmp_path):
    # Every boot sits 3% off at random. One boot against five, with its samples pooled
    # against theirs, "finds" the boot's own offset; against the five boot medians it is a
    # plausible sixth boot.
    a = boots(tmp_path, "a", [1], 5000, boot_sd=3.0)
    b = boots(tmp_path, "b", range(11, 16), 5000, boot_sd=3.0)
    pooled = compare.compare(a, b[:1])
    assert pooled["scope"] == compare.WITHIN and any(r["changed"] for r in pooled["rows"])
    res = compare.compare(a, b)
    assert res["scope"] == compare.ONE_VS_BOOTS == "one-vs-boots"
    assert not any(r["changed"] for r in res["rows"])
    for r in res["rows"]:
        assert r["scope"] == compare.ONE_VS_BOOTS and r["df"] == 4
        pt = compare.prediction_t(r["boot_medians_a"][0], r["boot_medians_b"])
        assert r["p"] == pytest.approx(pt["p"]) and r["shift"] == pytest.approx(-pt["diff"])
    # a real 30% change stands out of the five boots' spread, whichever side has one boot
    # (one boot against five is a weak test, df 4: this one boot sits 4.5% low, and a 15%
    # change is not called)
    c = boots(tmp_path, "c", range(21, 26), 6500, boot_sd=3.0)
    for x, y, verdict in ((a, c, "B slower"), (c, a, "B faster")):
        res = compare.compare(x, y)
        assert res["scope"] == compare.ONE_VS_BOOTS
        assert all(r["changed"] and r["verdict"] == verdict for r in res["rows"])
    text = compare_report.build_doc(c, a, res).text()
    assert "one boot against several (5 boot(s) of A, 1 of B)" in text
    assert "ASSUMES B's boot-to-boot spread equals A's" in text
    assert "B faster (one boot: equal boot spread assumed)" in text


def test_one_vs_boots_in_compare_json_and_two_a_side_stays_boots(tmp_path):
    for name, seed in (("a1", 1), ("b1", 3), ("b2", 4), ("b3", 5)):
        (tmp_path / (name + ".log")).write_bytes(boot_stream(seed, 5000, 1.0).data())
    logs = {n: str(tmp_path / (n + ".log")) for n in ("a1", "b1", "b2", "b3")}
    out = tmp_path / "o"
    assert cli.main(["compare", "--a", logs["a1"], "--b", logs["b1"], logs["b2"], logs["b3"],
                     "--out", str(out), "--boot-spread", "3"]) == 0
    data = json.loads((out / "compare.json").read_text())
    assert data["scope"] == "one-vs-boots" and "prediction-interval t" in data["method"]
    assert "boot spread (3%) is not used" in data["method"]
    assert {r["scope"] for r in data["rows"]} == {"one-vs-boots"}
    # the per-cache-level rows take the same treatment
    mem = []
    for seed in (1, 2, 3):
        log = tmp_path / ("m%d.log" % seed)
        log.write_bytes(synth.memory_stream(seed=seed, n=12).data())
        mem.append(load(log, tmp_path))
    levels = compare.compare(mem[:1], mem[1:])["levels"]["rows"]
    assert levels and {r["scope"] for r in levels} == {"one-vs-boots"}
    assert compare.side_scope(2, 3) == compare.BOOTS
    assert compare.side_scope(1, 1) == compare.WITHIN
    assert compare.side_scope(3, 1) == compare.ONE_VS_BOOTS
