"""The run's empirical roofline: the compute ceilings the `flops` probe measured and the bandwidth
ceilings the memory probes measured, and where they meet (docs/methods/roofline.md).

`analyse(summary, out_dir, mem)` picks and converts, it does not measure again:

- compute ceilings, one per `flops` set (kernel, width): GFLOP/s = flops_per_op x tsc_hz / the
  median cycles per operation / 1e9, with the 95% CI of that median turned into GFLOP/s the way
  memory.point turns it into GB/s (memory.point computes the median and its CI: the order
  statistics of the raw samples, the summary's CI of the mean without them); FLOP per core cycle
  where the set carries its core clock (core_clock.set_clock, as for bytes per cycle); the
  set's `flops_exact` check. A width whose check failed is kept and flagged, never the peak;
- the peak: the best unflagged ceiling;
- bandwidth ceilings: per cache level and DRAM the read plateau the headline picks
  (headline.memory_levels over memory.analyse()'s curves: the best width's median point inside
  the level, with its CI), so the roofline says what the first screen says;
- the ridge of each level: peak GFLOP/s / its GB/s, the arithmetic intensity (FLOP/byte) above
  which a kernel streaming from that level can reach the peak.

`ert(res)` lays the result out as the Empirical Roofline Toolkit's roofline.json (Berkeley Lab's
cs-roofline-toolkit, ERT 1.1.0, as in the GitHub mirror ebugger/Empirical-Roofline-Toolkit: the
driver's build_database in Empirical_Roofline_Tool-1.1.0/Python/ert_core.py, which writes the
file, and the Roofline Visualizer's reader classes JSONRoofline, JSONRooflineType and
JSONRooflineMetric in Roofline_Visualizer-1.1.0/RooflineViewPart/src/rooflineviewpart/views/
Roofline.java): `empirical` and `spec`, each with `gflops` and `gbytes` holding `data`, a list
of [name, value] pairs, and (under `empirical`) `metadata`. What ERT has no key for (the CIs, FLOP per
cycle, kernels and widths, the flags, the machine, the run, the emulated CPU) is under the extra
top-level key `baremetric`, which those readers do not know and skip.
"""

import json
import os

from . import archinfo, core_clock, headline, memory
from ..stream.values import num

FORMAT, VERSION = "baremetric-roofline", 1
FILE = "roofline.json"
PROBE, CHECK = "flops", "flops_exact"
KERNELS = {"fma": "fused multiply-add", "mul_add": "separate multiply and add"}
LEVEL_KERNEL = "read"   # the bandwidth ceilings are read plateaus: a kernel's operands come in


def width_label(width, arch, vl_bits=None):
    """A width as the reader knows it: 'scalar', '128-bit', 'NEON 128-bit', 'SVE 256-bit'."""
    w = str(width)
    if w == "64":
        return "scalar"
    if w == "sve":
        return "SVE %s-bit" % vl_bits if num(vl_bits) else "SVE"
    if arch == archinfo.A64 and w == "128":
        return "NEON 128-bit"
    return "%s-bit" % w


def width_key(width):
    """Sort key: numeric widths ascending, then the named ones (sve)."""
    w = str(width)
    return (0, int(w), "") if w.isdigit() else (1, 0, w)


def _checks(summary):
    """{(kernel, width): check dict} of the flops_exact checks; a failure wins over a pass."""
    out = {}
    for c in summary.get("checks") or []:
        if c.get("name") != CHECK:
            continue
        key = (str(c.get("kernel")), str(c.get("width")))
        if key not in out or c.get("status") == "fail":
            out[key] = c
    return out


def _per_second(fpo, hz, cycles):
    """GFLOP/s of one operation of fpo FLOP taking `cycles` of a clock at hz, or None."""
    return fpo * hz / cycles / 1e9 if fpo and hz and cycles and cycles > 0 else None


def ceiling(s, hz, arch, check, out_dir=None):
    """One flops set as a compute ceiling (module docstring)."""
    params = s.get("params") or {}
    p = memory.point(s, hz, out_dir)  # median cycles per op and its CI, as for bandwidth
    fpo = num(params.get("flops_per_op"))
    gflops = _per_second(fpo, hz, p["cycles"])
    clk = core_clock.set_clock(s, hz, out_dir)
    status = check.get("status") if check else None
    flag = None
    if status == "fail":
        flag = "check %s failed (expected %s, measured %s)" % (
            CHECK, check.get("expected"), check.get("measured"))
    elif gflops is None:
        flag = "no rate: median below the timer overhead or flops_per_op missing"
    return {
        "set": s.get("set"), "kernel": params.get("kernel"), "width": params.get("width"),
        "label": width_label(params.get("width"), arch, params.get("vl_bits")),
        "insn": params.get("insn"), "precision": params.get("precision"),
        "lanes": params.get("lanes"), "accumulators": params.get("accumulators"),
        "vl_bits": params.get("vl_bits"), "flops_per_op": fpo, "n": p["n"],
        "cycles_per_op": p["cycles"], "cycles_lo": p["cycles_lo"], "cycles_hi": p["cycles_hi"],
        "ci": p["ci"], "ci_coverage": p["ci_coverage"],
        "gflops": gflops,
        # fewer cycles -> more FLOP/s: the CI's ends swap
        "ci_lo_gflops": _per_second(fpo, hz, p["cycles_hi"]),
        "ci_hi_gflops": _per_second(fpo, hz, p["cycles_lo"]),
        # GFLOP/s over the core clock: the same ratio as bytes per cycle
        "flop_per_cycle": core_clock.bytes_per_cycle(gflops, clk),
        "core_hz": (clk or {}).get("hz"), "core_clock_source": (clk or {}).get("source"),
        "check": status or "none", "check_expected": (check or {}).get("expected"),
        "check_measured": (check or {}).get("measured"), "flag": flag,
        "complete": s.get("complete", True), "bimodal": p["bimodal"],
    }


def compute_ceilings(summary, out_dir=None):
    """The flops sets as ceilings, kernel then width order."""
    plat_hz = num(((summary.get("platform") or {}).get("tsc") or {}).get("hz"))
    arch = archinfo.arch(summary)
    checks = _checks(summary)
    rows = []
    for s in summary.get("sets") or []:
        if s.get("name") != PROBE:
            continue
        params = s.get("params") or {}
        check = checks.get((str(params.get("kernel")), str(params.get("width"))))
        rows.append(ceiling(s, num(s.get("tsc_hz")) or plat_hz, arch, check, out_dir))
    rows.sort(key=lambda r: (str(r["kernel"]), width_key(r["width"]), str(r["set"])))
    return rows


def ert_level(name):
    """ERT's name of a level: L1, L2, L3, DRAM (ours says L1d for a data cache)."""
    return name[:-1] if name.endswith("d") and name[:-1][1:].isdigit() else name


def bandwidth_ceilings(mem):
    """Per cache level and DRAM the read plateau (headline.memory_levels' pick): [{name,
    ert_name, gbps, ci_lo_gbps, ci_hi_gbps, curve, size_bytes, set}], fastest level first."""
    lv = headline.memory_levels(mem or {})
    rows = list(lv.get("levels") or [])
    if lv.get("dram") and lv["dram"].get("measured"):
        rows.append(lv["dram"])
    out = []
    for row in rows:
        p = row.get(LEVEL_KERNEL)
        if not p or not num(p.get("gbps")):
            continue
        out.append({"name": row["name"], "ert_name": ert_level(row["name"]), "gbps": p["gbps"],
                    "ci_lo_gbps": p.get("ci_lo_gbps"), "ci_hi_gbps": p.get("ci_hi_gbps"),
                    "curve": p.get("curve"), "size_bytes": p.get("size_bytes"),
                    "set": p.get("set"), "bytes_per_cycle": p.get("bytes_per_cycle")})
    return out


def _why_none(skips):
    """One line saying why there is no roofline."""
    if skips:
        reasons = sorted({str(s.get("reason") or "no reason given") for s in skips})
        return "no roofline: every flops width was skipped (%s)" % "; ".join(reasons)
    return "no roofline: the flops probe did not run in this boot (no flops sets)"


def analyse(summary, out_dir=None, mem=None):
    """{"measured": False, "why", "skips"} without flops sets, else {"measured": True, compute,
    bandwidth, peak, ridges, skips, emulated, machine, run, dram_peak_gbps}. mem:
    memory.analyse()'s result when the caller has it (computed here otherwise)."""
    skips = [s for s in summary.get("skips") or [] if s.get("probe") == PROBE
             and not s.get("ctr_set")]
    if not any(s.get("name") == PROBE for s in summary.get("sets") or []):
        return {"measured": False, "why": _why_none(skips), "skips": skips}
    mem = memory.analyse(summary, out_dir) if mem is None else mem
    comp = compute_ceilings(summary, out_dir)
    bw = bandwidth_ceilings(mem)
    peak = max((c for c in comp if c["gflops"] and not c["flag"]), key=lambda c: c["gflops"],
               default=None)
    ridges = [{"name": b["name"], "ert_name": b["ert_name"], "gbps": b["gbps"],
               "flop_per_byte": peak["gflops"] / b["gbps"]} for b in bw] if peak else []
    m = headline.machine(summary)
    # as the first screen states it: {emulator, evidence, why}
    emulated = headline.emulation(summary) if archinfo.emulated_cpu(summary) else None
    return {"measured": True, "compute": comp, "bandwidth": bw, "peak": peak, "ridges": ridges,
            "skips": skips, "emulated": emulated, "arch": archinfo.arch(summary),
            "machine": {k: m.get(k) for k in ("cpu", "vendor", "family", "model", "arch", "env",
                                              "os", "build", "parsed_utc")},
            "run": os.path.basename(os.path.normpath(out_dir)) if out_dir else None,
            "dram_peak_gbps": ((mem or {}).get("dram") or {}).get("peak_gbps"),
            "no_bandwidth": "no bandwidth plateaus: compute ceilings only" if not bw else None}


def ert_gflops_name(c):
    """ERT names a compute ceiling '<what> GFLOPs'; ours says precision, kernel and width."""
    return "%s %s %s GFLOPs" % (str(c.get("precision") or "fp64").upper(), c["kernel"],
                                c["label"])


def ert(res):
    """roofline.json's dict (module docstring): ERT's keys, the unflagged compute ceilings peak
    first (a reader taking the first entry takes the peak), the bandwidth ceilings fastest
    first; everything else under `baremetric`. None without flops sets."""
    if not res.get("measured"):
        return None
    good = sorted((c for c in res["compute"] if c["gflops"] and not c["flag"]),
                  key=lambda c: -c["gflops"])
    machine = res.get("machine") or {}
    emp_meta = {"SOURCE": "baremetric", "PRECISION": "FP64", "THREADS": 1,
                "MACHINE": machine.get("cpu") or machine.get("vendor"),
                "ARCH": machine.get("arch"), "RUN": res.get("run"),
                "BUILD": machine.get("build"), "EMULATED": bool(res.get("emulated"))}
    spec_bytes = [["DRAM", res["dram_peak_gbps"]]] if res.get("dram_peak_gbps") else []
    extra = {k: res.get(k) for k in ("compute", "bandwidth", "peak", "ridges", "skips",
                                     "emulated", "machine", "run", "no_bandwidth")}
    extra.update(format=FORMAT, format_version=VERSION, units={
        "gflops": "10^9 FP64 operations per second", "gbps": "10^9 bytes per second",
        "flop_per_byte": "ridge: peak GFLOP/s / GB/s", "ci": "95% CI of the median"})
    return {
        "empirical": {
            "metadata": emp_meta,
            "gflops": {"data": [[ert_gflops_name(c), c["gflops"]] for c in good],
                       "metadata": {"KERNELS": sorted({c["kernel"] for c in good})}},
            "gbytes": {"data": [[b["ert_name"], b["gbps"]] for b in res["bandwidth"]],
                       "metadata": {"KERNEL": LEVEL_KERNEL}},
        },
        # ERT's configured (theoretical) figures: the SMBIOS DRAM peak where the run has one
        "spec": {"gflops": {"data": []}, "gbytes": {"data": spec_bytes}},
        "baremetric": extra,
    }


def write_json(path, doc):
    with open(path, "w") as fh:
        json.dump(doc, fh, indent=1, sort_keys=True)
        fh.write("\n")
