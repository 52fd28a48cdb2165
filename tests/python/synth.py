"""Synthesise valid baremetric record streams for the tests (the encoder mirrors the firmware's)."""

import random

from bmharness.stream.protocol import CHUNK_MAX, encode_record, encode_values

TSC_HZ = 2445000000
CNTFRQ = 62500000           # AArch64 generic timer under QEMU virt
MIDR_TCG = "0xf0510"        # QEMU TCG -cpu max: implementer 0x00
MIDR_N1 = "0x413fd0c1"      # Arm Neoverse N1 r3p1: implementer 0x41 (Arm)


class Stream:
    """Builds one boot's records with consecutive sequence numbers."""

    def __init__(self, seq0=0, version=1):
        self.lines = []
        self.seq = seq0
        self.version = version  # protocol version of the records and their value lists
        self.hz = TSC_HZ  # the probes' tsc_hz: the clock of begin's arch

    def add(self, rtype, fields=(), **kw):
        fields = dict(fields, **kw)
        self.lines.append(encode_record(self.seq, rtype, fields, version=self.version))
        self.seq += 1
        return self

    def begin(self, arch="x86_64"):
        self.hz = CNTFRQ if arch == "aarch64" else TSC_HZ
        return self.add("begin", proto=self.version, build="v0.1-3-g3f2a1c0", arch=arch, env="uefi",
                        fw_vendor="EDK II", fw_rev="0x10000")

    def a64_platform(self, midr=MIDR_TCG):
        """AArch64's identification and clock records as the firmware sends them."""
        self.add("plat", kind="cpu", vendor="impl_0x00" if midr == MIDR_TCG else "ARM",
                 family=15, model=81, stepping=0, brand="MIDR %s" % midr, ucode="unreadable")
        self.add("plat", kind="aarch64_id", midr=midr, revidr="0x0", mpidr="0x80000000", el=1,
                 ctr="0x8444c004", clidr="0x2000023", cntfrq=CNTFRQ, pmu_version=6)
        self.add("plat", kind="tsc", hz=CNTFRQ, source="cntfrq", disagree_ppm=0, invariant=1)
        return self

    def probe(self, name, set_id, values, iters=1, overhead=0, chunk=None, **params):
        self.add("probe", dict(name=name, set=set_id, unit="cycles", n=len(values), iters=iters,
                               overhead=overhead, tsc_hz=self.hz, **params))
        chunk = chunk or CHUNK_MAX[self.version]
        for i in range(0, len(values), chunk):
            part = values[i:i + chunk]
            self.add("samples", set=set_id, i=i, n=len(part),
                     v=encode_values(part, version=self.version))
        return self

    def end(self, status="ok", **kw):
        fields = dict(records=self.seq, status=status, faults=0, unexpected_faults=0, probes=2,
                      skips=1)
        fields.update(kw)
        return self.add("end", fields)

    def text(self, ending="\r\n"):
        return "".join(line + ending for line in self.lines)

    def data(self, ending="\r\n"):
        return self.text(ending).encode("latin-1")


def timer_values(seed=1, n=200, base=44):
    r = random.Random(seed)
    return [base + r.choice((0, 0, 0, 1, 1, 2)) + (r.randint(100, 900) if r.random() < 0.02 else 0)
            for _ in range(n)]


def full_stream(n_timer=200, version=1):
    """A typical complete boot: config, platform facts, two timer sets, a spin set, a skip, a
    fault and the end record, in protocol `version`."""
    s = Stream(version=version).begin()
    s.add("msg", level="warn", text="unknown key 'foo' ignored")
    s.add("cfg", probes="timer,spin,fault_ud2", samples=16, timer_samples=n_timer, target_ns=0,
          tsc_cal_ms=100, tsc_cal_windows=3, serial="auto", shutdown="debug-exit")
    s.add("plat", kind="firmware", vendor="EDK II", rev="0x10000", uefi="2.70", smbios="3.0",
          acpi=2)
    s.add("plat", kind="cpu", vendor="AuthenticAMD", family=23, model=1, stepping=2,
          brand="AMD EPYC Processor", ucode="unreadable", hypervisor=1, hv_sig="TCGTCGTCGTCG",
          max_leaf=13, max_ext_leaf="0x80000008", logical_cpus=1)
    s.add("plat", kind="features", tsc=1, invariant_tsc=0, rdtscp=1, tsc_deadline=0, x2apic=0,
          apic=1, sse2=1, avx=0, avx2=0, avx512f=0, erms=1, fsrm=0, hypervisor=1, osxsave=0)
    s.add("plat", kind="cache", level=1, type="data", size=32768, line=64, ways=8, sets=64,
          shared_by=1, source="cpuid80000005")
    s.add("plat", kind="cache", level=2, type="unified", size=524288, line=64, ways=16,
          sets=512, shared_by=1, source="cpuid80000006")
    s.add("plat", kind="memmap", entries=120, desc_size=48, conventional=1000000000,
          largest_free=900000000, total=1073741824, t_conventional=1000000000)
    s.add("plat", kind="memdev", handle="0x1100", locator="DIMM 0", bank="", size=1073741824,
          type="RAM", type_code=7, speed=0, conf_speed=0, data_width=64, total_width=64,
          manufacturer="QEMU", part="")
    s.add("plat", kind="dram_peak", status="unknown", mbps=0, devices=1, basis="smbios17",
          reason="no configured speed in SMBIOS")
    s.add("plat", kind="acpi", rsdp="0x7fb7e014", rev=2, tables="FACP,APIC,HPET,MCFG,WAET,BGRT")
    s.add("plat", kind="serial", access="io", base="0x3f8", baud=115200, source="default")
    s.add("plat", kind="pmu", present=0, reason="cpuid leaf 0xA reports no PMU", vendor_version=0)
    s.add("plat", kind="ebs", tries=1, status="ok")
    for w, (src, hz) in enumerate([("pm_timer", 2445001000), ("pm_timer", 2445003000),
                                   ("hpet", 2445000500), ("hpet", 2445002500)]):
        s.add("plat", kind="tsc_cal", window=w % 2, ms=100, source=src, ref_ticks=357954,
              ref_hz=3579545, tsc_ticks=hz // 10, hz=hz)
    s.add("plat", kind="tsc", hz=TSC_HZ, source="hpet", hz_pm=2445002000, hz_hpet=2445001500,
          hz_cpuid15=0, hz_cpuid16=0, disagree_ppm=0.2, invariant=0)
    s.probe("timer", 1, timer_values(1, n_timer), method="rdtsc")
    s.probe("timer", 2, timer_values(2, n_timer, base=60), method="rdtscp")
    s.probe("spin", 3, [10000 + i % 3 for i in range(16)], iters=1000, overhead=44)
    s.add("skip", probe="fault_gp", reason="not requested")
    s.add("fault", vector=6, name="#UD", err=0, rip="0x7e5a1234", cr2="0x0", probe="fault_ud2",
          expected=1, action="continue")
    return s.end(faults=1, probes=3)


# --- memory probes ----------------------------------------------------------------------------

KiB, MiB = 1 << 10, 1 << 20
CACHES = (32 * KiB, 512 * KiB, 32 * MiB)
LAT_CYCLES = (4.0, 14.0, 45.0, 250.0)       # L1, L2, L3, DRAM
READ_BPC = (64.0, 32.0, 16.0, 6.0)          # bytes per cycle from each level (read kernel)


def hit_model(size, caches, per_level):
    """Random-access mix: the fraction served by level k is min(1, C_k/S) - min(1, C_(k-1)/S);
    returns the fraction-weighted sum of per_level (len(caches) + 1 values)."""
    total, prev = 0.0, 0.0
    for cap, v in zip(caches, per_level):
        f = min(1.0, cap / size)
        total += v * (f - prev)
        prev = f
    return total + per_level[len(caches)] * (1.0 - prev)


def sweep_sizes(lo=4 * KiB, hi=256 * MiB):
    out, s = [], lo
    while s <= hi:
        out.append(s)
        s *= 2
    return out


def _samples(r, per_op, iters, overhead, n, bimodal):
    """n raw samples whose per-op values are per_op with 0.3% jitter; bimodal: half of them
    1.6x slower (the median then falls between the modes)."""
    vals = []
    for k in range(n):
        v = per_op * (1.6 if bimodal and k % 2 else 1.0) * (1 + r.gauss(0, 0.003))
        vals.append(max(0, int(round(v * iters))) + overhead)
    return vals


STAND_IN_REASON = ("CCSIDR_EL1 gives 1 set x 1 way, a hypervisor's stand-in (Linux KVM gives every "
                   "cache so), not a cache's geometry")


CHAIN_CYCLES = 32768  # the firmware's add chain: 2048 iterations of 16 adds
REF_OPS = 131072      # its load reference: 8192 iterations of 16 loads


def core_clock_fields(core_hz, tsc_hz, overhead):
    """A membw probe record's core_clock fields for a core at core_hz timed on tsc_hz, the
    timer's overhead included as the firmware leaves it; the slowest timing 1% slower."""
    ticks = CHAIN_CYCLES * tsc_hz / float(core_hz)
    return dict(core_clock="add_chain", core_clock_cycles=CHAIN_CYCLES,
                core_clock_ticks_lo=int(round(ticks)) + overhead,
                core_clock_ticks_med=int(round(ticks)) + overhead,
                core_clock_ticks_hi=int(round(ticks * 1.01)) + overhead)


def load_ref_fields(loads_per_cycle, core_hz, tsc_hz, overhead):
    """The load reference's fields beside the core clock's: REF_OPS loads at loads_per_cycle per
    core cycle (core_hz) timed on tsc_hz; the slowest timing 2% slower."""
    ticks = REF_OPS / float(loads_per_cycle) * tsc_hz / float(core_hz)
    return dict(core_ref="load_burst", core_ref_ops=REF_OPS,
                core_ref_ticks_lo=int(round(ticks)) + overhead,
                core_ref_ticks_med=int(round(ticks)) + overhead,
                core_ref_ticks_hi=int(round(ticks * 1.02)) + overhead)


def memory_stream(caches=CACHES, cpuid=None, sizes=None, lat=LAT_CYCLES, bpc=READ_BPC,
                  noise=0.0, seed=1, bimodal=(), flat=False, dram_mbps=None, n=24,
                  kernels=(("read", 256), ("copy", 256)), latency=True, scale=1.0,
                  arch="x86_64", midr=MIDR_TCG, hv_sig="", stand_in=(), core_hz=None,
                  cpu=("GenuineIntel", 6, 85), then=None, load_ref=None, share=None):
    """A boot with membw and latency sweeps over a cache hierarchy `caches` (the hit model
    above), CPUID reporting `cpuid` (default: the same sizes), per-point noise (relative sigma
    between sizes), sizes in `bimodal` given bimodal samples, `flat`: no hierarchy (QEMU TCG),
    `scale`: every per-op cost multiplied (a slower machine); `arch="aarch64"`: AArch64's
    records (MIDR `midr`, CCSIDR caches, the generic timer), `hv_sig`: x86 CPUID hypervisor
    vendor (TCGTCGTCGTCG: QEMU TCG); `stand_in`: the cache levels (True: all) whose records are
    as the firmware gives a hypervisor's one set of one way (Linux KVM's guest CCSIDR): no size,
    `geometry=unknown`; `core_hz`: the membw sets carry the firmware's add-chain core clock at
    that rate (core_clock fields: 4 timings at it, the slowest 1% slower); `cpu`: the x86 cpu
    record's (vendor, family, model), by default a Skylake Server; `then`: a callable given the
    stream and the next free set number, adding more records before the end (it returns the next
    free set number); `load_ref`: the membw sets also carry the load reference at that many loads
    per core cycle (needs core_hz); `share`: a callable of the set's number giving the share of
    the core's load ports the run had during that set (another thread took the rest): the set's
    samples and its load reference slow by it, the add chain does not."""
    r = random.Random(seed)
    sizes = sizes or sweep_sizes()
    cpuid = caches if cpuid is None else cpuid
    a64 = arch == "aarch64"
    s = Stream().begin(arch)
    s.add("cfg", probes="membw,latency", samples=n)
    if a64:
        s.a64_platform(midr)
    else:
        s.add("plat", kind="cpu", vendor=cpu[0], family=cpu[1], model=cpu[2], stepping=4,
              brand="Synthetic CPU", ucode="0x1", hypervisor=1 if hv_sig else 0, hv_sig=hv_sig,
              max_leaf=22, max_ext_leaf="0x80000008", logical_cpus=1)
    where = dict(source="ccsidr") if a64 else dict(shared_by=1, source="cpuid4")
    for level, size in enumerate(cpuid, 1):
        geom = dict(size=size, ways=8, sets=size // 512) if not (
            stand_in is True or level in stand_in) else dict(
            ways=1, sets=1, geometry="unknown", reason=STAND_IN_REASON)
        s.add("plat", kind="cache", level=level, type="data" if level == 1 else "unified",
              line=64, **dict(geom, **where))
        if level == 1:
            s.add("plat", kind="cache", level=1, type="inst", line=64, **dict(geom, **where))
    if dram_mbps:
        s.add("plat", kind="dram_peak", status="ok", mbps=dram_mbps, devices=2,
              basis="smbios17")
    else:
        s.add("plat", kind="dram_peak", status="unknown", mbps=0, devices=1, basis="smbios17",
              reason="no configured speed in SMBIOS")
    if not a64:
        s.add("plat", kind="tsc", hz=TSC_HZ, source="hpet", hz_pm=TSC_HZ, hz_hpet=TSC_HZ,
              hz_cpuid15=0, hz_cpuid16=0, disagree_ppm=0.1, invariant=1)
    set_id = 0
    jitter = {size: (1 + r.gauss(0, noise)) for size in sizes}
    for kernel, width in kernels:
        reads, writes = (1, 1) if kernel.startswith("copy") else (0, 1) if kernel.startswith(
            "write") else (1, 0)
        for size in sizes:
            per_byte = hit_model(size, caches, [1.0 / b for b in bpc]) if not flat else 1 / 4.0
            nbytes = (reads + writes) * size
            part = share(set_id) if share else 1.0
            per_op = (nbytes * per_byte * scale * jitter[size] * (1.3 if writes and reads else 1)
                      / part)
            clock = core_clock_fields(core_hz, s.hz, 40) if core_hz else {}
            if core_hz and load_ref:
                clock.update(load_ref_fields(load_ref * part, core_hz, s.hz, 40))
            s.probe("membw", set_id, _samples(r, per_op, 1, 40, n, size in bimodal), iters=1,
                    overhead=40, target=26000 + set_id, cal_steps=r.randint(1, 5), cal_capped=0,
                    kernel=kernel, width=width, size=size, bytes_per_op=nbytes,
                    convention="rw", read_bytes=reads * size, write_bytes=writes * size,
                    page="2M", cpus=1, **clock)
            set_id += 1
    if latency:
        for size in sizes:
            per_op = (hit_model(size, caches, lat) if not flat else 60.0) * scale * jitter[size]
            s.probe("latency", set_id, _samples(r, per_op, 1000, 40, n, size in bimodal),
                    iters=1000, overhead=40, target=26000, cal_steps=r.randint(1, 9),
                    cal_capped=0, pattern="random", size=size, line=64, nodes=size // 64,
                    stride=64, seed=set_id, page="2M")
            set_id += 1
    if then:
        set_id = then(s, set_id)
    s.add("skip", probe="membw", kernel="read", width=512, reason="CPU lacks AVX-512F")
    return s.end(probes=set_id, skips=1)
