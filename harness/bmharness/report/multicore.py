"""The report's Multi-core bandwidth section (`membw_mc` sets), from analysis/multicore.py's result:
per kernel and core count the aggregate GB/s, the per-core range and sum, the scaling over one core
and the share of the DRAM peak.
"""

from .doc import fnum
from .memory import range_text
from ..analysis.memory import size_text
from ..analysis.multicore import analyse

NAME = "multicore"
__all__ = ("NAME", "analyse", "section")


def section(doc, mc, out_dir=None, plots=None):
    """The report's Multi-core bandwidth section (nothing when the run had no membw_mc)."""
    if not mc["rows"] and not mc["skips"]:
        return
    doc.h("Multi-core bandwidth")
    if not mc["rows"]:
        doc.list("skipped: %s" % (k.get("reason") or "no reason given") for k in mc["skips"])
        return
    doc.p("Every core streams its own buffers with the same kernel and pass count, released by one "
          "common start. aggregate = all cores' bytes / (latest end - earliest start); per core = "
          "each core's own timing; sum = the per-core rates added (> aggregate when the cores did "
          "not overlap fully). Scaling is over the 1-core aggregate. GB/s = 10^9 B/s, a copy "
          "counts bytes read + written.")
    per_cycle = any(r.get("core_bpc_min") is not None for r in mc["rows"])
    rows = []
    for r in mc["rows"]:
        agg = r["agg"] or {}
        rows.append([r["kernel"], r["width"], size_text(r["size"]) if r["size"] else "-",
                     r["cpus"], fnum(agg.get("gbps")),
                     range_text(agg.get("gbps_lo"), agg.get("gbps_hi")),
                     range_text(r["core_min"], r["core_max"])]
                    + ([range_text(r.get("core_bpc_min"), r.get("core_bpc_max"))] if per_cycle else [])
                    + [fnum(r["core_sum"]),
                     fnum(r["scaling"]), fnum(r["efficiency"]),
                     "%.0f%%" % r["pct_peak"] if r["pct_peak"] is not None else "-",
                     "%d missing" % r["missing_cores"] if r["missing_cores"] else "ok"])
    doc.table(["kernel", "width", "buffer/core", "cores", "aggregate GB/s", "CI95", "per core GB/s"]
              + (["per core B/cycle"] if per_cycle else [])
              + ["sum", "scaling", "efficiency", "of DRAM peak", "sets"], rows)
    if per_cycle:
        doc.p("per core B/cycle: each core's bytes per cycle of its own core clock during its set "
              "(methods/core_clock.md), lowest and highest over the cores.")
    if mc["peak_gbps"]:
        doc.p("DRAM peak (SMBIOS): %s GB/s" % fnum(mc["peak_gbps"]))
    else:
        doc.p("of DRAM peak: %s" % mc["peak_reason"])
    doc.list("skipped: %s" % (k.get("reason") or "no reason given") for k in mc["skips"])
