"""The L1 data cache's architectural limits per microarchitecture: how many loads and stores a core
issues per cycle and how wide each may be, so a bandwidth in bytes per core cycle can be stated as
a fraction of what the core could do ("L1 read 63.2 B/cycle = 0.99 of 2 x 32 B").

Each row names the CPUs it covers (x86: the cpu record's vendor, family and model, as the PMU event
tables match them; AArch64: MIDR implementer and part) and, per access width in bits (the membw
kernels' 64 = scalar, 128, 256, 512), the loads per cycle and bytes per load, and the same for
stores. A row cites where its numbers come from: the vendor's optimisation manual or a measurement
paper. A CPU without a row gets no limit ("limit unknown"), never a guessed one.

Copy moves every byte twice (read, then written; the rw convention counts both): per cycle at most
min(read limit, write limit) bytes go each way, so its limit is 2 x that in rw bytes.
"""

WIDTHS = (64, 128, 256, 512)
UNKNOWN = "limit unknown"

# Sources, cited by the rows (short keys; docs/methods/core_clock.md lists them in full).
SOURCES = {
    "amd_55723": "AMD, Software Optimization Guide for AMD Family 17h Processors (pub. 55723), "
                 "load-store unit: two 128-bit loads and one 128-bit store per cycle",
    "amd_56305": "AMD, Software Optimization Guide for AMD Family 17h Models 30h and Greater "
                 "(pub. 56305), load-store unit: two 256-bit loads and one 256-bit store per cycle",
    "amd_56665": "AMD, Software Optimization Guide for AMD EPYC 7003 / family 19h (pub. 56665), "
                 "load-store unit: three memory operations per cycle, up to three loads (two of "
                 "them 256-bit vector) and two stores (one vector); AnandTech, Zen 3 deep dive "
                 "(2020), 'loads and stores per cycle ... 3 and 2'",
    "amd_57647": "AMD, Software Optimization Guide for AMD Family 19h Models 10h+ (Zen 4, pub. "
                 "57647): the Zen 3 load-store widths; a 512-bit op is two 256-bit halves "
                 "(A. Yee, 'Zen4's AVX512 Teardown', numberworld.org, 2022)",
    "amd_58455": "AMD, Software Optimization Guide for the AMD Zen5 Microarchitecture (pub. 58455, "
                 "2024): four loads, or two loads and two stores, per cycle; vector: two 512-bit "
                 "loads, 512-bit stores as two 256-bit halves (also A. Fog, 'The microarchitecture "
                 "of Intel, AMD and VIA CPUs', Zen 5 chapter; A. Yee, 'Zen5's AVX512 Teardown', "
                 "numberworld.org, 2024)",
    "intel_orm_skl": "Intel 64 and IA-32 Architectures Optimization Reference Manual (248966), "
                     "Skylake client: L1D peak 64 B/cycle load + 32 B/cycle store (2 loads, 1 "
                     "store); Skylake Server: 128 B/cycle load + 64 B/cycle store",
    "intel_orm_icl": "Intel Optimization Reference Manual (248966), Ice Lake client / Sunny Cove: "
                     "2 loads of up to 64 B and 2 stores per cycle, 64 B/cycle to the L1D (two "
                     "stores sustained only to one line: P. Cordes, Stack Overflow 45108395)",
    "laukemann_2024": "J. Laukemann, G. Hager, G. Wellein et al., 'Microarchitectural comparison "
                      "and in-core modeling of state-of-the-art CPUs: Grace, Sapphire Rapids, and "
                      "Genoa' (2024): Neoverse V2 has three 128-bit load ports and two 128-bit "
                      "store ports",
    "intel_orm_glc": "Intel Optimization Reference Manual (248966), Golden Cove: 3 loads of up to "
                     "256 bits or 2 of 512 bits, 2 stores per cycle; Chips and Cheese, 'Popping "
                     "the Hood on Golden Cove' (2021): 2 x 64 B loads per cycle with AVX-512",
}


def _ports(n, max_bits, n_at=None):
    """{width: (ops per cycle, bytes per op)}: n ops per cycle of min(width, max_bits) bits;
    n_at overrides the count at some widths ({width: n})."""
    out = {}
    for w in WIDTHS:
        if w <= max_bits:
            out[w] = ((n_at or {}).get(w, n), w // 8)
    return out


def _model_in(*ranges):
    return lambda model: any(lo <= model <= hi for lo, hi in ranges)


# name, vendor, family (x86) or implementer (Arm), model test, loads, stores, source key.
# AArch64 rows: vendor "arm", family the MIDR implementer, model the MIDR part number.
# x86 families and models as the cpu record states them (decimal there; hex here, as the manuals).
ROWS = (
    {"name": "Zen / Zen+", "vendor": "AuthenticAMD", "family": 0x17, "model": _model_in((0x00, 0x2F)),
     "loads": _ports(2, 128), "stores": _ports(1, 128), "source": "amd_55723"},
    {"name": "Zen 2", "vendor": "AuthenticAMD", "family": 0x17, "model": _model_in((0x30, 0xFF)),
     "loads": _ports(2, 256), "stores": _ports(1, 256), "source": "amd_56305"},
    # Zen 3 / Zen 4 split as the PMU event tables (and Linux's perf mapfile) split family 19h
    {"name": "Zen 3", "vendor": "AuthenticAMD", "family": 0x19,
     "model": _model_in((0x00, 0x0F), (0x20, 0x2F), (0x40, 0x5F)),
     "loads": _ports(2, 256, {64: 3}), "stores": _ports(1, 256, {64: 2}), "source": "amd_56665"},
    {"name": "Zen 4", "vendor": "AuthenticAMD", "family": 0x19,
     "model": _model_in((0x10, 0x1F), (0x30, 0x3F), (0x60, 0xFF)),
     "loads": _ports(2, 512, {64: 3, 512: 1}), "stores": _ports(1, 512, {64: 2, 512: 0.5}),
     "source": "amd_57647"},
    {"name": "Zen 5", "vendor": "AuthenticAMD", "family": 0x1A, "model": _model_in((0x00, 0xFF)),
     # two vector memory ops per cycle, a 512-bit store as two 256-bit halves: 64 B stored per
     # cycle at 256 and at 512 bits
     "loads": _ports(2, 512, {64: 4}), "stores": _ports(2, 512, {512: 1}), "source": "amd_58455"},
    {"name": "Skylake client", "vendor": "GenuineIntel", "family": 6,
     "model": _model_in((0x4E, 0x4E), (0x5E, 0x5E), (0x8E, 0x8E), (0x9E, 0x9E), (0xA5, 0xA6)),
     "loads": _ports(2, 256), "stores": _ports(1, 256), "source": "intel_orm_skl"},
    {"name": "Skylake Server / Cascade Lake", "vendor": "GenuineIntel", "family": 6,
     "model": _model_in((0x55, 0x55)),
     "loads": _ports(2, 512), "stores": _ports(1, 512), "source": "intel_orm_skl"},
    {"name": "Ice Lake / Tiger Lake (Sunny, Willow Cove)", "vendor": "GenuineIntel", "family": 6,
     "model": _model_in((0x6A, 0x6A), (0x6C, 0x6C), (0x7D, 0x7E), (0x8C, 0x8D)),
     "loads": _ports(2, 512), "stores": _ports(2, 512, {512: 1}), "source": "intel_orm_icl"},
    # Alder / Raptor Lake are hybrid: the row is the P-core's (Golden / Raptor Cove); a run on an
    # E-core (Gracemont) is not told apart by family and model
    {"name": "Golden Cove / Raptor Cove (Sapphire Rapids, Alder / Raptor Lake P-core)",
     "vendor": "GenuineIntel", "family": 6,
     "model": _model_in((0x8F, 0x8F), (0x97, 0x97), (0x9A, 0x9A), (0xB7, 0xB7), (0xBA, 0xBA),
                        (0xBF, 0xBF), (0xCF, 0xCF)),
     "loads": _ports(3, 512, {512: 2}), "stores": _ports(2, 512, {512: 1}), "source": "intel_orm_glc"},
    # Neoverse V2 (Grace, Graviton 4): SVE at 128 bits; N1 and V1 have no row yet (no source
    # checked for their per-width load and store counts)
    {"name": "Neoverse V2", "vendor": "arm", "family": 0x41, "model": _model_in((0xD4F, 0xD4F)),
     "loads": _ports(3, 128), "stores": _ports(2, 128), "source": "laukemann_2024"},
)


def _int(x):
    try:
        return int(x, 0) if isinstance(x, str) else int(x)
    except (TypeError, ValueError):
        return None


MIDR_IMPL_SHIFT, MIDR_PART_SHIFT, MIDR_PART_MASK = 24, 4, 0xFFF


def lookup(cpu, midr=None):
    """The row for a cpu record's fields ({vendor, family, model}: plat kind=cpu), or for an
    AArch64 MIDR (plat kind=aarch64_id midr) when given; None without one."""
    if midr is not None and _int(midr) is not None:
        m = _int(midr)
        cpu = {"vendor": "arm", "family": (m >> MIDR_IMPL_SHIFT) & 0xFF,
               "model": (m >> MIDR_PART_SHIFT) & MIDR_PART_MASK}
    cpu = cpu or {}
    fam, model = _int(cpu.get("family")), _int(cpu.get("model"))
    for row in ROWS:
        if row["vendor"] == cpu.get("vendor") and row["family"] == fam and model is not None \
                and row["model"](model):
            return row
    return None


def by_name(name):
    """The row of that name, or None."""
    return next((r for r in ROWS if r["name"] == name), None)


def width_bits(width):
    """A membw width parameter as bits (64 / 128 / 256 / 512), None for another (rep, lib, an
    AArch64 kernel's name)."""
    try:
        w = int(width)
    except (TypeError, ValueError):
        return None
    return w if w in WIDTHS else None


def _widest(ports, width):
    """(ops, bytes) at `width` bits, or at the widest the row gives below it."""
    ws = [w for w in ports if width is None or w <= width]
    return ports[max(ws)] if ws else None


def _fmt(n):
    return ("%g" % n) if n != int(n) else "%d" % n


def limit(row, kernel, width):
    """{bpc, text} for a kernel (read / write / copy) at a width in bits (None: the widest), or
    None without a row or for another kernel. text says what the limit is made of: "2 x 32 B"."""
    if not row or kernel not in ("read", "write", "copy"):
        return None
    ld, st = _widest(row["loads"], width), _widest(row["stores"], width)
    if not ld or not st:
        return None
    r, w = ld[0] * ld[1], st[0] * st[1]
    rt, wt = "%s x %d B" % (_fmt(ld[0]), ld[1]), "%s x %d B" % (_fmt(st[0]), st[1])
    if kernel == "read":
        return {"bpc": float(r), "text": rt}
    if kernel == "write":
        return {"bpc": float(w), "text": wt}
    return {"bpc": 2.0 * min(r, w), "text": "2 x min(%s, %s)" % (rt, wt)}


def fraction(bpc, lim):
    """bpc / the limit's bytes per cycle, or None when either is unknown."""
    return bpc / lim["bpc"] if bpc is not None and lim and lim.get("bpc") else None


def text(kernel_label, bpc, lim):
    """One line: 'L1 read 128.4 B/cycle = 1.00 of 2 x 64 B', or '... = limit unknown'."""
    if bpc is None:
        return "%s: no core clock, B/cycle unknown" % kernel_label
    if not lim:
        return "%s %.1f B/cycle, %s" % (kernel_label, bpc, UNKNOWN)
    return "%s %.1f B/cycle = %.2f of %s" % (kernel_label, bpc, fraction(bpc, lim), lim["text"])
