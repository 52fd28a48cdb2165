"""Human-readable report from a parse directory (summary.json, raw/, optional run.json).

The report is built once as a list of blocks (headings, key/value lists, tables, paragraphs) and
rendered twice: plain text for the terminal and markdown for DIR/report.md, so both always say the
same. Histogram PNGs come from plots.py when matplotlib is importable. The memory probes
(membw, latency) get their own section from memory.py instead of rows in the probe tables.
"""

import json
import os
import statistics

from . import irq_plots, plots, prof_report
from .doc import Doc, fbytes, fhz, fnum, kv_text, ns, num
from ..analysis import archinfo, checks, counters, irq, memory, multicore
from ..analysis import profile, sysregs
from ..run import qemu

FEATURE_ORDER = ("tsc", "invariant_tsc", "rdtscp", "tsc_deadline", "apic", "x2apic", "sse2",
                 "avx", "avx2", "avx512f", "erms", "fsrm", "hypervisor", "osxsave")


def _logical_cpus(cpu, smp):
    """The machine's processors from the MADT (plat kind=smp) where known, next to what CPUID says
    of one package (leaf 0xB, or leaf 1: its count means nothing without HTT)."""
    if isinstance(smp, list):
        smp = smp[0] if smp else None
    per_pkg = "%s per package (CPUID %s)" % (fnum(cpu.get("logical_cpus")),
                                            fnum(cpu.get("logical_cpus_source", "leaf 1")))
    if smp and smp.get("cpus_madt") is not None:
        return "%s present, %s online (plat smp); %s" % (fnum(smp.get("cpus_madt")), fnum(smp.get("cpus_online")),
                                                          per_pkg)
    return per_pkg


def _platform(doc, plat):
    doc.h("Platform")
    fw, cpu, feat = plat.get("firmware"), plat.get("cpu"), plat.get("features")
    if fw:
        doc.kv([("firmware", "%s rev %s, UEFI %s, SMBIOS %s, ACPI rev %s" % tuple(
            fnum(fw.get(k)) for k in ("vendor", "rev", "uefi", "smbios", "acpi")))])
    if cpu:
        hv = "yes (%s)" % cpu.get("hv_sig", "?") if cpu.get("hypervisor") else "no"
        rows = [("cpu", "%s (%s family %s model %s stepping %s)" % tuple(
                    fnum(cpu.get(k)) for k in ("brand", "vendor", "family", "model", "stepping"))),
                ("microcode", fnum(cpu.get("ucode"))), ("hypervisor", hv),
                ("logical cpus", _logical_cpus(cpu, plat.get("smp"))),
                ("cpuid leaves", "max %s, ext %s" % (fnum(cpu.get("max_leaf")),
                                                     fnum(cpu.get("max_ext_leaf"))))]
        # AArch64 records leave the CPUID-only facts out (not known is not "no"): no rows then.
        cpuid_only = {"hypervisor": "hypervisor", "logical cpus": "logical_cpus",
                      "cpuid leaves": "max_leaf"}
        doc.kv([(k, v) for k, v in rows if k not in cpuid_only or cpuid_only[k] in cpu])
    else:
        doc.p("cpu: not reported")
    if feat:
        names = ([k for k in FEATURE_ORDER if k in feat]
                 + [k for k in feat if k not in FEATURE_ORDER])
        doc.kv([("features", " ".join(k for k in names if feat.get(k) == 1) or "none"),
                ("absent", " ".join(k for k in names if feat.get(k) != 1) or "none")])
    caches = plat.get("cache") or []
    doc.h("Caches", 3)
    if caches:
        doc.table(["level", "type", "size", "line", "ways", "sets", "shared by", "source"],
                  [[c.get("level"), c.get("type"), fbytes(c.get("size")), c.get("line"),
                    "full" if c.get("ways") == 0 else c.get("ways"), c.get("sets"),
                    c.get("shared_by", "not stated"), c.get("source")] for c in caches])
    else:
        doc.p("no cache descriptors reported")
    doc.h("Memory", 3)
    mm = plat.get("memmap")
    if mm:
        doc.kv([("memory map", "%s entries; conventional %s, largest free block %s, total %s" % (
            fnum(mm.get("entries")), fbytes(mm.get("conventional")),
            fbytes(mm.get("largest_free")), fbytes(mm.get("total"))))])
    devs = plat.get("memdev") or []
    if devs:
        doc.table(["locator", "bank", "size", "type", "speed", "conf speed", "width", "maker",
                   "part"],
                  [[d.get("locator"), d.get("bank"), fbytes(d.get("size")) if d.get("size") else
                    "empty", d.get("type"), d.get("speed") or "unknown",
                    d.get("conf_speed") or "unknown",
                    "%s/%s" % (fnum(d.get("data_width")), fnum(d.get("total_width"))),
                    d.get("manufacturer"), d.get("part")] for d in devs])
    else:
        doc.p("no SMBIOS memory devices reported")
    dp = plat.get("dram_peak")
    if not dp:
        doc.kv([("DRAM peak", "unknown (not reported)")])
    elif dp.get("status") == "ok":
        mbps = num(dp.get("mbps"))
        doc.kv([("DRAM peak", "%s over %s device(s), %s (upper bound if devices share a "
                 "channel)" % ("%.2f GB/s" % (mbps / 1000.0) if mbps is not None else
                               fnum(dp.get("mbps")), fnum(dp.get("devices")),
                               fnum(dp.get("basis"))))])
    else:
        doc.kv([("DRAM peak", "unknown: %s" % fnum(dp.get("reason")))])
    doc.h("Firmware tables and devices", 3)
    pairs = []
    if plat.get("acpi"):
        a = plat["acpi"]
        pairs.append(("ACPI", "rev %s, RSDP %s, tables %s" % (fnum(a.get("rev")),
                                                             fnum(a.get("rsdp")),
                                                             fnum(a.get("tables")))))
    for kind in ("acpi_pm", "hpet", "pmu", "serial", "ebs", "alloc"):
        if plat.get(kind):
            pairs.append((kind, kv_text(plat[kind])))
    if not plat.get("pmu"):
        pairs.append(("pmu", "not reported"))
    known = {"firmware", "cpu", "features", "cache", "memmap", "memdev", "dram_peak", "acpi",
             "acpi_pm", "hpet", "pmu", "serial", "ebs", "alloc", "tsc", "tsc_cal",
             "sysreg", "sysregs", "insn_probe"}  # sysregs.section: a table of their own
    for kind, val in plat.items():
        if kind not in known:
            for v in val if isinstance(val, list) else [val]:
                pairs.append((kind, kv_text(v)))
    doc.kv(pairs)


def _generic_timer(doc, plat):
    """AArch64: the clock is CNTVCT_EL0 at CNTFRQ_EL0 as the firmware programmed it (plat
    kind=tsc source=cntfrq), not measured against another clock; no TSC, no calibration."""
    doc.h(archinfo.clock(archinfo.A64)["title"])
    tsc = plat.get("tsc")
    if not tsc:
        doc.p("no clock summary record (plat kind=tsc)")
        return
    hz = num(tsc.get("hz"))
    doc.kv([("frequency", "%s from %s%s" % (
                "%.6f MHz" % (hz / 1e6) if hz else fnum(tsc.get("hz")), fnum(tsc.get("source")),
                " (CNTFRQ_EL0 as the firmware programmed it, not measured against another clock)"
                if tsc.get("source") == "cntfrq" else "")),
            ("tick", "%s ns" % fnum(1e9 / hz) if hz else "-"),
            ("constant rate", "yes (the generic timer's, by architecture)"
             if tsc.get("invariant") == 1 else fnum(tsc.get("invariant")))])
    doc.p("counter ticks throughout: every cycle count below is generic-timer ticks, except "
          "the sets with unit=pmu_cycles (PMCCNTR_EL0 counts)")


def _tsc(doc, plat, arch=archinfo.X86):
    if arch == archinfo.A64:
        _generic_timer(doc, plat)
        return
    doc.h("TSC calibration")
    tsc, wins = plat.get("tsc"), plat.get("tsc_cal") or []
    if tsc:
        pm_hz = tsc.get("hz_pm", tsc.get("hz_pm_timer"))
        doc.kv([("chosen", "%s from %s (invariant: %s)" % (fhz(tsc.get("hz")),
                                                          fnum(tsc.get("source")),
                                                          fnum(tsc.get("invariant")))),
                ("pm timer", fhz(pm_hz) if pm_hz else "unavailable"),
                ("hpet", fhz(tsc.get("hz_hpet")) if tsc.get("hz_hpet") else "unavailable"),
                ("cpuid 0x15 / 0x16", "%s / %s" % (fhz(tsc.get("hz_cpuid15")) if
                                                    tsc.get("hz_cpuid15") else "not given",
                                                    fhz(tsc.get("hz_cpuid16")) if
                                                    tsc.get("hz_cpuid16") else "not given")),
                ("firmware disagreement", "%s ppm" % fnum(tsc.get("disagree_ppm")))]
               if "hz_cpuid15" in tsc or "hz_cpuid16" in tsc else
               [("chosen", "%s from %s (invariant: %s)" % (fhz(tsc.get("hz")),
                                                          fnum(tsc.get("source")),
                                                          fnum(tsc.get("invariant"))))])
    else:
        doc.p("no tsc summary record")
    by_src, failed = {}, 0
    for w in wins:
        if w.get("ok", 1) != 1:  # a window the firmware itself marked unusable
            failed += 1
        elif (num(w.get("hz")) or 0) > 0:
            by_src.setdefault(str(w.get("source", "?")), []).append(w["hz"])
    if failed:
        doc.p("%d calibration window(s) marked failed by the firmware (not used below)" % failed)
    if by_src:
        rows, medians = [], {}
        for src, hzs in by_src.items():
            med = statistics.median(hzs)
            medians[src] = med
            rows.append([src, len(hzs), fhz(med), fhz(min(hzs)), fhz(max(hzs)),
                         (max(hzs) - min(hzs)) / med * 1e6])
        doc.table(["source", "windows", "median", "min", "max", "spread ppm"], rows)
        srcs = sorted(medians)
        pairs = [("%s vs %s" % (a, b),
                  "%s ppm" % fnum((medians[a] - medians[b]) / medians[b] * 1e6))
                 for i, a in enumerate(srcs) for b in srcs[i + 1:]]
        doc.kv(pairs or [("between sources", "only one source calibrated")])
    else:
        doc.p("no calibration windows reported")


def _probes(doc, summary, tsc_hz):
    sets = summary.get("sets") or []
    clk = archinfo.clock(summary)
    doc.h("Probes")
    if not sets:
        doc.p("no probe sets")
        return
    mem = {}
    for s in sets:
        if s.get("name") in memory.SECTION_PROBES + irq.SECTION_PROBES:
            mem[s["name"]] = mem.get(s["name"], 0) + 1
    for where, names in (("Memory", memory.PROBES), ("Multi-core bandwidth", ("membw_mc",)),
                         ("Interrupts", irq.SECTION_PROBES)):
        here = ["%d %s set(s)" % (n, name) for name, n in sorted(mem.items()) if name in names]
        if here:
            doc.p("%s: in the %s section" % (", ".join(here), where))
    if mem:
        sets = [s for s in sets if s.get("name") not in memory.SECTION_PROBES + irq.SECTION_PROBES]
        if not sets:
            return
    rows_c, rows_ns, notes = [], [], []
    for s in sets:
        st = (s.get("stats") or {}).get("per_op") or {}
        hz = num(s.get("tsc_hz")) or num(tsc_hz)
        if s.get("unit") == "pmu_cycles":  # AArch64 PMCCNTR_EL0 counts: no known rate, no ns
            hz = None
        params = " ".join("%s=%s" % kv for kv in (s.get("params") or {}).items())
        recv = "%s/%s" % (s.get("received"), fnum(s.get("n")))
        ci = "±%s" % fnum(st.get("ci95_half")) if st.get("ci95_half") is not None else "-"
        rel = "%.1f%%" % (100 * st["ci95_rel"]) if st.get("ci95_rel") is not None else "-"
        rows_c.append([s.get("set"), s.get("name"), params or "-", recv, s.get("iters"),
                       st.get("min"), st.get("median"), st.get("trimmed_mean"), st.get("mean"),
                       ci, rel, st.get("stddev"), st.get("p1"), st.get("p99"), st.get("max"),
                       "YES" if st.get("bimodal") else "no"])
        rows_ns.append([s.get("set"), s.get("name"), params or "-"] +
                       [ns(st.get(k), hz) for k in ("min", "median", "trimmed_mean", "mean")] +
                       ["±%s" % fnum(ns(st.get("ci95_half"), hz)) if st.get("ci95_half")
                        is not None else "-"] +
                       [ns(st.get(k), hz) for k in ("p99", "max")])
        note = "set %s %s: " % (s.get("set"), s.get("name"))
        if st.get("n", 0) == 0:
            note += st.get("note", "no samples")
        else:
            note += st.get("bimodal_explanation", "")
            note += "; CI within 5%% of mean: %s" % fnum(st.get("ci_within_5pct"))
            if (s.get("stats") or {}).get("negative"):
                note += "; %d values below the timer overhead" % s["stats"]["negative"]
        if not s.get("complete"):
            note += "; INCOMPLETE: " + "; ".join(s.get("problems") or ["samples missing"])
        notes.append(note)
    doc.p("%s per operation ((sample - overhead) / iters%s); CI = 95%% Student t; p1/p99 only "
          "from N >= 100 (fewer samples do not reach a 1%% tail: '-')" % (
              clk["unit"], "; generic timer CNTVCT_EL0, PMCCNTR_EL0 counts for unit=pmu_cycles "
              "sets" if clk is archinfo.CLOCKS[archinfo.A64] else ""))
    doc.table(["set", "probe", "params", "N", "iters", "min", "median", "tmean10", "mean",
               "ci95", "ci/mean", "sd", "p1", "p99", "max", "bimodal"], rows_c)
    if any(num(s.get("tsc_hz")) for s in sets) or num(tsc_hz):
        doc.p("nanoseconds per operation (%s / %s%s)" % (
            clk["short"], clk["hz"], "; none for pmu_cycles sets: no known rate"
            if any(s.get("unit") == "pmu_cycles" for s in sets) else ""))
        doc.table(["set", "probe", "params", "min", "median", "tmean10", "mean", "ci95", "p99",
                   "max"], rows_ns)
    else:
        doc.p("nanoseconds: unknown (no %s frequency)" % clk["hz_source"])
    doc.list(notes)


def _events(doc, summary):
    doc.h("Skips, faults and messages")
    skips = summary.get("skips") or []
    # Counter sets that could not be read (one skip per sample set): one row per probe, set and reason.
    per_set = [s for s in skips if s.get("ctr_set") and "event" not in s and "set" in s]
    grouped = {}
    for s in per_set:
        key = (s.get("probe"), s.get("ctr_set"), s.get("events"), s.get("reason"))
        grouped[key] = grouped.get(key, 0) + 1
    skips = [s for s in skips if s not in per_set]
    if skips or grouped:
        std = ("probe", "set", "reason", "seq", "line")
        doc.table(["probe", "set", "detail", "reason"],
                  [[s.get("probe"), s.get("set", "-"),
                    kv_text({k: v for k, v in s.items() if k not in std}) or "-", s.get("reason")]
                   for s in skips] +
                  [[probe, "%d sets" % n, "counters %s: %s" % (cs, ev), reason]
                   for (probe, cs, ev, reason), n in sorted(grouped.items(), key=str)])
    else:
        doc.p("skips: none")
    faults = summary.get("faults") or []
    if faults:
        doc.table(["vector", "name", "err", "rip", "cr2", "probe", "expected", "action"],
                  [[f.get(k) for k in ("vector", "name", "err", "rip", "cr2", "probe",
                                       "expected", "action")] for f in faults])
    else:
        doc.p("faults: none")
    msgs = summary.get("messages") or []
    doc.list("[%s] %s (line %s)" % (m.get("level"), m.get("text"), m.get("line")) for m in msgs)


REPORT_PROBLEMS = 40  # problems listed in the report (summary.json: counts per kind)


def _validation(doc, summary, run):
    v = summary.get("validation") or {}
    c = v.get("counts") or {}
    doc.h("Validation")
    doc.kv([("log", (summary.get("source") or {}).get("log")),
            ("records", "%s valid in the analysed boot, %s corrupt, %s duplicate, %s missing, "
             "%s conflicting, %s unknown version" % tuple(fnum(c.get(k)) for k in (
                 "records_analysed", "corrupt", "duplicates", "missing", "conflicts",
                 "unknown_version"))),
            ("boots", "%d (analysed: boot %s, %s)" % (c.get("boots", len(v.get("boots") or [])),
                                                      v.get("analysed_boot"),
                                                      v.get("analysed_why", "the last")) if
             len(v.get("boots") or []) > 1 else "1" if v.get("boots") else "0"),
            ("sets", "%s of %s complete" % (fnum(c.get("sets_complete")), fnum(c.get("sets")))),
            ("complete", fnum(v.get("complete"))), ("truncated", fnum(v.get("truncated")))])
    probs = v.get("problems") or []
    counts = v.get("problem_counts") or {}
    if sum(counts.values()) > len(probs[:REPORT_PROBLEMS]):
        doc.p("problems by kind: " + ", ".join("%s %d" % kv for kv in sorted(
            counts.items(), key=lambda kv: -kv[1])) + "; the first %d listed" % len(
                probs[:REPORT_PROBLEMS]))
    doc.list(["%s%s: %s" % (p["kind"], " (line %d)" % p["line"] if p.get("line") else "",
                            p["message"]) for p in probs[:REPORT_PROBLEMS]])
    doc.list(["note: " + n for n in v.get("notes") or []])
    if not probs:
        doc.p("no problems found")


def status_lines(summary, run=None):
    """(ok, [reasons]) over firmware status, log validity and the QEMU run."""
    reasons = []
    end = summary.get("end")
    if not end:
        reasons.append("no end record (truncated log)")
    elif end.get("status") != "ok":
        reasons.append("firmware status %s (unexpected faults: %s)" % (
            end.get("status"), fnum(end.get("unexpected_faults"))))
    failed = checks.tally(summary)["failed"]
    if failed:
        reasons.append("%d check(s) failed: %s" % (len(failed), ", ".join(sorted(
            {"%s (%s)" % (c.get("name"), c.get("probe")) for c in failed}))))
    v = summary.get("validation") or {}
    if not v.get("ok"):
        reasons.append("log has %d problem(s)" % ((v.get("counts") or {}).get("problems")
                                                  or len(v.get("problems") or [])))
    if run:
        reasons += qemu.run_failed(run)
    return not reasons, reasons


def build(summary, out_dir, run=None, plot_info=None, mem=None, prof=None):
    doc = Doc()
    b = summary.get("begin") or {}
    doc.h("baremetric report", 1)
    doc.kv([("build", fnum(b.get("build"))), ("env", "%s %s" % (fnum(b.get("arch")),
                                                                 fnum(b.get("env")))),
            ("firmware", "%s %s" % (fnum(b.get("fw_vendor")), fnum(b.get("fw_rev")))),
            ("parsed", (summary.get("source") or {}).get("parsed_utc"))])
    if run:
        doc.kv([("qemu", "exit %s -> firmware status %s, %.1f s%s" % (
            run.get("exit_code"), run.get("firmware_status_name"), run.get("duration_s", 0),
            ", TIMED OUT" if run.get("timed_out") else "")),
            ("command", run.get("command_line"))])
    if summary.get("cfg"):
        doc.kv([("config", kv_text(summary["cfg"]))])
    plat = summary.get("platform") or {}
    _platform(doc, plat)
    sysregs.section(doc, plat)
    _tsc(doc, plat, archinfo.arch(summary))
    tsc_hz = (plat.get("tsc") or {}).get("hz")
    _probes(doc, summary, tsc_hz)
    doc.h("Histograms", 3)
    if plot_info is None:
        doc.p("not drawn")
    elif plot_info.get("error"):
        doc.p("none: %s" % plot_info["error"])
    for name, path in (plot_info or {}).get("files", []):
        doc.img(os.path.relpath(path, out_dir), "histogram of %s" % name)
    doc.list((plot_info or {}).get("notes", []))
    memory.section(doc, mem if mem is not None else memory.analyse(summary, out_dir), out_dir,
                   None if plot_info is None else plot_info.get("memory", {}))
    multicore.section(doc, multicore.analyse(summary, out_dir))
    counters.section(doc, counters.analyse(summary), summary)
    irq_res = irq.analyse(summary, out_dir)
    irq.section(doc, irq_res, out_dir, None if plot_info is None else irq_plots.draw(irq_res, out_dir))
    prof_report.section(doc, prof if prof is not None else profile.analyse_dir(out_dir))
    checks.section(doc, summary)
    _events(doc, summary)
    _validation(doc, summary, run)
    ok, reasons = status_lines(summary, run)
    doc.h("Status")
    doc.p("OK: log complete and valid, firmware status ok" if ok else
          "FAILED: " + "; ".join(reasons))
    return doc, ok


def write_report(out_dir, plot=True):
    """Read out_dir/summary.json (+ run.json), draw histograms, write report.md.
    Returns (terminal text, ok). Raises OSError/ValueError if summary.json is unreadable."""
    with open(os.path.join(out_dir, "summary.json")) as fh:
        summary = json.load(fh)
    run = None
    run_path = os.path.join(out_dir, "run.json")
    if os.path.exists(run_path):
        with open(run_path) as fh:
            run = json.load(fh)
    mem = memory.analyse(summary, out_dir)
    plot_info = plots.draw(summary, out_dir) if plot else None
    if plot_info is not None:
        plot_info["memory"] = plots.draw_memory(mem, out_dir)
    prof = profile.analyse_dir(out_dir)
    if prof["profiles"]:
        profile.write_json(os.path.join(out_dir, "profile.json"), prof)
    doc, ok = build(summary, out_dir, run, plot_info, mem, prof)
    with open(os.path.join(out_dir, "report.md"), "w") as fh:
        fh.write(doc.markdown())
    return doc.text(), ok
