"""What a run's architecture changes in the harness's words and verdicts.

The architecture is the `begin` record's `arch` (x86_64 or aarch64; a log without it is taken
as x86_64, the only architecture older logs can be from). It decides:

- the clock the "cycles" of every set count in: x86_64's TSC (cycles at the calibrated TSC
  rate), AArch64's generic timer (CNTVCT_EL0: counter ticks at CNTFRQ_EL0, 62.5 MHz under QEMU
  virt) -- `clock(summary)` gives the words;
- which counters can exist at all: APERF/MPERF, RAPL and SMI counts are x86 only (`x86_only`);
- where the cache sizes come from: CPUID on x86_64, CLIDR_EL1/CCSIDR_EL1 on AArch64, and which
  caches have no size at all (`unknown_geometry`: `plat kind=cache geometry=unknown`, e.g. the
  one set of one way Linux KVM gives an AArch64 guest for every cache);
- whether the CPU is emulated, so that no cache level can be found in its timing
  (`emulated_cpu`): QEMU TCG on x86_64 names itself in CPUID 0x40000000 ("TCGTCGTCGTCG"); on
  AArch64 TCG's `max` CPU has MIDR implementer 0x00, reserved for software use by the Arm ARM
  (no silicon has it), and a named core under TCG (-cpu cortex-a53 ...) is told by the `plat
  kind=emulator` record (QEMU's board with QEMU's PMU) -- the same tests the firmware makes in
  arch/cache_model.h.
"""

X86, A64 = "x86_64", "aarch64"
TCG_HV_SIG = "TCGTCGTCGTCG"            # CPUID 0x40000000 vendor of QEMU's TCG
MIDR_IMPL_SHIFT, MIDR_IMPL_MASK = 24, 0xFF
MIDR_IMPL_SOFTWARE = 0x00              # reserved for software use: QEMU TCG's max CPU
NO_CACHES = "no caches to find knees of"

CLOCKS = {
    X86: {"name": "TSC", "title": "TSC calibration", "unit": "cycles", "short": "cycles",
          "hz": "TSC Hz", "rate": "the TSC rate", "hz_source": "TSC"},
    A64: {"name": "generic timer (CNTVCT_EL0)", "title": "Clock: generic timer (CNTVCT_EL0)",
          "unit": "counter ticks", "short": "ticks", "hz": "CNTFRQ", "rate": "CNTFRQ_EL0",
          "hz_source": "CNTFRQ"},
}
CACHE_SOURCES = {X86: "CPUID", A64: "CLIDR/CCSIDR"}


def arch(summary):
    """The run's architecture from its begin record (x86_64 when not stated)."""
    a = (summary.get("begin") or {}).get("arch")
    return a if isinstance(a, str) and a else X86


def clock(summary_or_arch):
    """The words for the run's cycle clock: {name, title, unit, short, hz, rate, hz_source}."""
    a = summary_or_arch if isinstance(summary_or_arch, str) else arch(summary_or_arch)
    return CLOCKS.get(a, CLOCKS[X86])


def x86_only(summary):
    """True where APERF/MPERF, RAPL and SMI counts can exist (x86_64)."""
    return arch(summary) == X86


def cache_source(summary):
    """Where the platform's cache sizes come from, for labels: CPUID or CLIDR/CCSIDR."""
    return CACHE_SOURCES.get(arch(summary), "CPUID")


def _cache_name(c):
    ctype = c.get("type")
    return "L%s%s" % (c.get("level"), {"data": "d", "inst": "i"}.get(ctype, ""))


def unknown_geometry(summary, data_only=True):
    """The caches whose geometry the firmware could not believe (`geometry=unknown`, no size):
    [{"name": "L1d", "level", "type", "reason"}]; data_only: only data and unified caches (the
    ones knees are judged against)."""
    out = []
    for c in (summary.get("platform") or {}).get("cache") or []:
        if c.get("geometry") != "unknown":
            continue
        if data_only and c.get("type") not in ("data", "unified"):
            continue
        out.append({"name": _cache_name(c), "level": c.get("level"), "type": c.get("type"),
                    "reason": c.get("reason") or "no reason given"})
    return out


def _first(val):
    if isinstance(val, list):
        return val[0] if val else None
    return val


def _int(x):
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return x
    if isinstance(x, str):
        try:
            return int(x, 0)
        except ValueError:
            return None
    return None


def emulated_cpu(summary):
    """Why the CPU is emulated (a sentence ending in 'no caches to find knees of'), or None
    where it may be real silicon."""
    plat = summary.get("platform") or {}
    if arch(summary) == A64:
        ident = _first(plat.get("aarch64_id")) or {}
        midr = _int(ident.get("midr"))
        if midr is not None and (midr >> MIDR_IMPL_SHIFT) & MIDR_IMPL_MASK == MIDR_IMPL_SOFTWARE:
            return ("emulated CPU (MIDR 0x%08x: implementer 0x00, reserved for software, as QEMU "
                    "TCG's max CPU): %s" % (midr, NO_CACHES))
        # plat kind=emulator: the hosted AArch64 build's verdict (hosted/aarch64/emulator.c: also a
        # real MIDR under qemu-aarch64 -cpu <model>, seen from /proc/cpuinfo not being an arm64
        # kernel's) or the firmware's (bench/facts/aarch64/emulator.h: a named core under TCG,
        # seen from QEMU's board with QEMU's PMU).
        em = _first(plat.get("emulator")) or {}
        if _int(em.get("emulated")):
            return "emulated CPU (%s): %s" % (em.get("reason") or "an emulator runs the process",
                                              NO_CACHES)
        return None
    cpu = _first(plat.get("cpu")) or {}
    if cpu.get("hv_sig") == TCG_HV_SIG:
        return "emulated CPU (QEMU TCG: CPUID hypervisor vendor %s): %s" % (TCG_HV_SIG, NO_CACHES)
    return None
