"""The report's Platform section: firmware, CPU, features, caches, memory map and devices, the DRAM
peak, firmware tables and devices, from the summary's platform records (plat kinds). The AArch64
system registers have a section of their own (sysregs.py), the clock another (tsc.py).
"""

from .doc import fbytes, fnum, kv_text, num

NAME = "platform"


def analyse(summary, out_dir=None):
    """The platform records (summary["platform"])."""
    return summary.get("platform") or {}


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


def section(doc, plat, out_dir=None, plots=None):
    """The Platform section: firmware, CPU, features, caches, memory, firmware tables."""
    doc.h("Platform")
    _cpu(doc, plat)
    _caches(doc, plat)
    _memory(doc, plat)
    _tables(doc, plat)


def _cpu(doc, plat):
    """Firmware, CPU and its features."""
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
    el = _exception_level(plat.get("el2"))
    if el:
        doc.kv([("exception level", el)])
    if feat:
        names = ([k for k in FEATURE_ORDER if k in feat]
                 + [k for k in feat if k not in FEATURE_ORDER])
        doc.kv([("features", " ".join(k for k in names if feat.get(k) == 1) or "none"),
                ("absent", " ".join(k for k in names if feat.get(k) != 1) or "none")])


def _exception_level(e):
    """AArch64: where the firmware started us and where the run went on (plat kind=el2)."""
    if not e:
        return None
    if e.get("action") == "dropped":
        return ("started at EL2, ran at EL1 (EL2 configured for EL1: %s of the PMU's event "
                "counters given to EL1)" % fnum(e.get("hpmn")))
    if e.get("action") == "kept":
        return ("EL2 for the whole run (%s): the PMU, interrupts and other cores were refused"
                % fnum(e.get("reason")))
    return "EL%s (as the firmware started us)" % fnum(e.get("el"))


def _caches(doc, plat):
    caches = plat.get("cache") or []
    doc.h("Caches", 3)
    if caches:
        doc.table(["level", "type", "size", "line", "ways", "sets", "shared by", "source"],
                  [[c.get("level"), c.get("type"),
                    "unknown" if c.get("geometry") == "unknown" else fbytes(c.get("size")),
                    c.get("line"), "full" if c.get("ways") == 0 else c.get("ways"), c.get("sets"),
                    c.get("shared_by", "not stated"), c.get("source")] for c in caches])
        for c in caches:
            if c.get("geometry") == "unknown":
                doc.p("L%s %s: geometry unknown: %s" % (c.get("level"), c.get("type"),
                                                         c.get("reason") or "no reason given"))
    else:
        doc.p("no cache descriptors reported")


def _memory(doc, plat):
    """The memory map, the SMBIOS memory devices and the DRAM peak they imply."""
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


def _tables(doc, plat):
    """ACPI and the other platform records, the unknown kinds included."""
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
             "sysreg", "sysregs", "insn_probe"}  # sysregs.py: a table of their own
    for kind, val in plat.items():
        if kind not in known:
            for v in val if isinstance(val, list) else [val]:
                pairs.append((kind, kv_text(v)))
    doc.kv(pairs)
