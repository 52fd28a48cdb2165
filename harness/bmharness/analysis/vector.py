"""A machine's characterisation vector (hbench-OS, Brown's thesis ch. 4.1): the time each primitive
costs on this machine, every coefficient a latency -- nanoseconds per byte for data movement,
nanoseconds per invocation for discrete primitives -- so that its dot product with an
application's vector (bytes moved through each primitive, invocations of each: app_vector.py)
predicts the application's time (predict.py).

`machine_vector(hl, summary)` picks, it does not measure: the coefficients are the run's headline
figures (headline.compute), converted to latencies, each with the CI of the point it comes from:
- read/write/copy ns per byte at each cache level and DRAM: 1 / the plateau's GB/s (GB/s is bytes
  per ns), the best kernel width of each (the headline's choice), CI [1/hi, 1/lo];
- load ns at each level: the random pointer chase's plateau latency (one dependent load);
- DRAM, where the headline has no DRAM plateau (cache sizes unknown or beyond the sweep): the
  largest buffer's figures, said so in the source;
- insn ns: one simple instruction: one add of the dependent add chain timed beside every
  bandwidth set (core_clock.py: one add is one core cycle), the median over the sets, interval
  from the sets' lowest and highest; without those sets the spin probe's dependent
  two-instruction loop (dec/jnz, subs/b.ne), its median time per iteration over insns_per_iter,
  CI from the set's 95% CI (a loop whose branch costs a cycle of its own on some cores: Zen 3
  takes two cycles per iteration);
- irq ns: one interrupt delivered: the median latency of the first source the headline lists;
- op_ns.<primitive>: one operation of each kind probe `prim` times (prim_costs.py): integer add
  (int_indep, int_dep), L1 load and store, conditional and indirect branch predicted and
  mispredicted (branch, branch_miss, indirect, indirect_miss), call/return, FP add, and hosted a
  system call, a page fault and a context switch.
A coefficient the run did not measure is absent (never 0): prediction then says it is missing.

Names: `<op>_ns_per_byte.<level>` (op read, write, copy; level L1d, L2, L3, ..., DRAM),
`load_ns.<level>`, `insn_ns`, `irq_ns`, `op_ns.<primitive>`."""

import json
import os

from . import core_clock, memory, prim_costs
from .. import stats
from ..stream.values import num

FORMAT, VERSION = "baremetric-machine-vector", 1
FILE = "vector.json"
OPS = ("read", "write", "copy")


def _coef(value, lo, hi, unit, source):
    return {"value": value, "lo": lo if lo is not None else value,
            "hi": hi if hi is not None else value, "unit": unit, "source": source}


def _per_byte(point):
    """ns per byte of a bandwidth point {gbps, ci_lo_gbps, ci_hi_gbps}."""
    g, lo, hi = num(point.get("gbps")), num(point.get("ci_lo_gbps")), num(point.get("ci_hi_gbps"))
    if not g or g <= 0:
        return None
    return 1.0 / g, (1.0 / hi if hi and hi > 0 else None), (1.0 / lo if lo and lo > 0 else None)


def _level_coefs(out, level):
    name = level.get("name")
    for op in OPS:
        p = level.get(op)
        t = _per_byte(p) if p else None
        if t:
            out["%s_ns_per_byte.%s" % (op, name)] = _coef(
                t[0], t[1], t[2], "ns/byte", "%s plateau %s (%s)" % (op, name, p.get("curve")))
    lat = level.get("latency")
    if lat and num(lat.get("ns")):
        out["load_ns.%s" % name] = _coef(num(lat["ns"]), num(lat.get("ci_lo_ns")),
                                         num(lat.get("ci_hi_ns")), "ns",
                                         "random chase plateau %s" % name)


def _insn_add_chain(summary):
    """ns per dependent add from the add chains beside the bandwidth sets, or None."""
    hzs = []
    for s in summary.get("sets") or []:
        clk = core_clock.add_chain(s.get("params") or {}, num(s.get("tsc_hz")),
                                   num(s.get("overhead")))
        if clk:
            hzs.append(clk["hz"])
    if not hzs:
        return None
    hzs.sort()
    med = stats.median(hzs)
    return _coef(1e9 / med, 1e9 / hzs[-1], 1e9 / hzs[0], "ns",
                 "one dependent add (the core clock beside %d bandwidth set(s))" % len(hzs))


def _insn(summary):
    """ns per simple instruction: the add chain's, else the spin probe's sets (the median set by
    its median)."""
    chain = _insn_add_chain(summary)
    if chain:
        return chain
    rows = []
    for s in summary.get("sets") or []:
        if s.get("name") != "spin":
            continue
        per_op = ((s.get("stats") or {}).get("per_op")) or {}
        ipi = num((s.get("params") or {}).get("insns_per_iter"))
        hz = num(s.get("tsc_hz"))
        med = num(per_op.get("median"))
        if not (ipi and hz and med) or s.get("unit") != "cycles":
            continue
        ci = per_op.get("ci95") or [None, None]
        scale = 1e9 / hz / ipi
        rows.append((med * scale, num(ci[0]) * scale if num(ci[0]) else None,
                     num(ci[1]) * scale if num(ci[1]) else None, s.get("set")))
    if not rows:
        return None
    v, lo, hi, set_no = stats.median(rows, key=lambda r: r[0])
    return _coef(v, lo, hi, "ns", "spin set %s: one instruction of a dependent 2-instruction loop"
                 % set_no)


def _dram_from_largest(coefs, summary):
    """DRAM coefficients from the sweep's largest buffer where the headline found no DRAM plateau
    (the cache sizes unknown, or the largest reported beyond the sweep: this VM's CPUID gives an
    L3 larger than its memory): per kernel the best width's GB/s at the largest size, and the
    random chase's load there. Labelled as such in the source."""
    best = {}
    for c in memory.curves(summary):
        if not c["points"]:
            continue
        p = c["points"][-1]
        if c["probe"] == "membw" and c.get("kernel") in OPS and p.get("gbps"):
            if c["kernel"] not in best or p["gbps"] > best[c["kernel"]][1]["gbps"]:
                best[c["kernel"]] = (c, p)
        elif c["probe"] == "latency" and c["params"].get("pattern") == "random" and p.get("ns"):
            coefs.setdefault("load_ns.DRAM", _coef(
                p["ns"], p.get("ns_lo"), p.get("ns_hi"), "ns",
                "random chase at the largest buffer, %d MiB (no DRAM plateau in this run)" % (
                    p["size"] // (1 << 20))))
    for op, (c, p) in best.items():
        t = _per_byte({"gbps": p["gbps"], "ci_lo_gbps": p.get("gbps_lo"),
                       "ci_hi_gbps": p.get("gbps_hi")})
        if t:
            coefs.setdefault("%s_ns_per_byte.DRAM" % op, _coef(
                t[0], t[1], t[2], "ns/byte", "%s at the largest buffer, %d MiB (%s; no DRAM "
                "plateau in this run)" % (op, p["size"] // (1 << 20), c["label"])))


def machine_vector(hl, summary):
    """The vector dict of one run: {format, format_version, machine, emulated, coefficients}."""
    coefs = {}
    mem = hl.get("memory") or {}
    for level in mem.get("levels") or []:
        _level_coefs(coefs, level)
    if mem.get("dram") and mem["dram"].get("measured"):
        _level_coefs(coefs, mem["dram"])
    if not any(k.endswith(".DRAM") for k in coefs):
        _dram_from_largest(coefs, summary)
    insn = _insn(summary)
    if insn:
        coefs["insn_ns"] = insn
    for row in hl.get("irq_latency") or []:
        if num(row.get("median_ns")):
            ci = row.get("median_ci_ns") or [None, None]
            coefs["irq_ns"] = _coef(num(row["median_ns"]), num(ci[0]), num(ci[1]), "ns",
                                    "interrupt latency median, %s (%s)" % (row.get("source"),
                                                                           row.get("wait")))
            break
    coefs.update(prim_costs.coefficients(summary))
    m = hl.get("machine") or {}
    return {"format": FORMAT, "format_version": VERSION,
            "machine": {k: m.get(k) for k in ("cpu", "vendor", "family", "model", "arch", "env", "os",
                                              "build", "parsed_utc") if k in m},
            "emulated": hl.get("emulated"), "coefficients": coefs}


def write_json(path, vec):
    with open(path, "w") as fh:
        json.dump(vec, fh, indent=1, sort_keys=True)
        fh.write("\n")


def load(path):
    """A machine vector from a vector.json file or a results directory holding one. Raises
    OSError / ValueError with the reason."""
    if os.path.isdir(path):
        path = os.path.join(path, FILE)
    with open(path) as fh:
        vec = json.load(fh)
    if vec.get("format") != FORMAT:
        raise ValueError("%s is not a machine vector (format %r)" % (path, vec.get("format")))
    return vec
