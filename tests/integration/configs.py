"""The QEMU boot configurations of the integration tests, as data (in the spirit of kvm-unit-tests'
unittests.cfg): one entry per boot. conftest.py turns each entry into a session fixture of the
entry's name; the boot runs once, on first use, and every test that takes the fixture shares it.
Tests read the values they assert about (sample counts, work lists) from here.

Fields of an entry:
  name     the fixture, and the boot's folder under pytest's tmp directory
  arch     x86_64 (build/x86_64/baremetric.img) or aarch64 (build/aarch64/, QEMU virt + AAVMF)
  smp      CPUs;  mem: MiB of guest memory
  options  firmware options, the harness's --set settings (checked by the harness)
  raw      config-file lines the harness does not check: deliberate bad names and values
  cpu      QEMU -cpu model (None: the harness's default, qemu64 / the virt board's)
  icount   -icount (deterministic instruction counts); icount_shift: QEMU's shift=N, one instruction
           2**N ns of virtual time (0: ~10x slower boots, as every firmware wait, OVMF's included,
           is then a nanosecond an instruction)
  machine  extra -machine properties (QEMU merges them into the harness's machine)
  qemu_args  more QEMU arguments, as given (e.g. -smbios fields)
  qemu10   boot with QEMU 10 from scripts/qemu10.sh (skipped where it cannot be fetched)
  timeout  seconds before QEMU is killed (None: the harness's default for the arch and icount)
  groups   pytest markers of the tests that take the fixture (with the arch): `pytest -m irq`
  usb_devices, serial, xhci_props, pci_devices   the harness's run_qemu keywords of the same
           names: the boot stick's bus (behind a hub, a second stick), no serial port, the xHCI's
           properties, devices before the xHCI (the bridge it sits behind, an IOMMU)
  alone    the tests of this boot assert something about time (a calibration against another
           clock, a bound on a duration or a start-up delay), or the firmware's own start is
           timing-sensitive (AAVMF and a stick behind a hub): it boots with no other boot beside
           it, after the others, and its tests run at the end (conftest.py's boot pool). Every
           other entry boots in the pool, several at a time, as soon as the session starts.
  stop_after  (text, seconds): QEMU stopped that long after text is on the serial line (run_qemu's
           keyword: a run cut on purpose, sooner than its timeout)
  extra_files  {path on the stick: text}: files put on the image beside the firmware
"""

from dataclasses import dataclass, field, replace

# AArch64 boots give QEMU this long unless an entry says otherwise (firmware start-up under TCG
# is slower than x86's).
A64_TIMEOUT_S = 120


@dataclass(frozen=True)
class BootConfig:
    name: str
    arch: str = "x86_64"
    smp: int = 1
    mem: int = 1024
    options: dict = field(default_factory=dict)
    raw: str = ""
    cpu: str = None
    icount: bool = False
    icount_shift: int = 0
    machine: tuple = ()
    qemu_args: tuple = ()
    qemu10: bool = False
    timeout: int = None
    groups: tuple = ()
    doc: str = ""
    usb_devices: tuple = ()
    serial: bool = True
    xhci_props: str = ""
    pci_devices: tuple = ()
    alone: bool = False
    stop_after: tuple = None
    extra_files: dict = field(default_factory=dict)


def _a64(name, timeout=A64_TIMEOUT_S, **kw):
    return BootConfig(name, arch="aarch64", timeout=timeout, **kw)


# The SMBIOS serial the `quick` boot's machine is given: the log must carry its hash, never itself.
SMBIOS_SERIAL = "BM-TEST-SERIAL-42"

# The x86_64 -icount boot's shift (QEMU's -icount shift=N: one instruction, 2**N ns of virtual time,
# so the TSC advances TICKS_PER_INSN a guest instruction); measured, our first record after 43 s
# at shift=0, 7.8 s at 4, 5.6 s at 6, 5.5 s at 8 (plain TCG: 4.5 s).
ICOUNT_SHIFT = 6
TICKS_PER_INSN = 1 << ICOUNT_SHIFT

# The x86_64 boots.
_MEMORY = {"probes": "membw,latency,cachefill,flops", "mem_max_mb": 2, "samples": 4, "timer_samples": 64}
_PMU = {"probes": "spin,pmu_check,pmu_cost,membw,latency,cachefill", "mem_max_mb": 1,
        "mem_kernels": "read", "samples": 4, "timer_samples": 64, "tsc_cal_windows": 1}
_HELLO = {"probes": "smp_hello,membw_mc,membw,latency,spin", "samples": 4, "mem_max_mb": 1,
          "mem_kernels": "read,copy"}
# irq_fp_ms=1 wherever irq_footprint runs under TCG: a series' first batch runs whole whatever the
# time bound, which the tests' n == irq_fp_samples assertions check, and the boot does not depend
# on how loaded the machine is (TCG models no caches, so no series repeats past its first batch)
_FP_MS = 1
_FOOTPRINT = {"probes": "irq_footprint", "irq_fp_samples": 8, "irq_fp_k": "50,300", "irq_fp_ms": _FP_MS}
_LATENCY = {"probes": "irq_latency,noise", "irq_samples": 200, "irq_set_ms": 20000, "irq_timeout_ms": 2000,
            "noise_ms": 300}
_IRQ_REPEATS = 4

X86_64 = [
    BootConfig("quick", options={"probes": "timer,spin", "timer_samples": 512, "samples": 16},
               qemu_args=("-smbios", "type=1,manufacturer=Acme Lab,product=Bench 9,version=2.1,serial=" + SMBIOS_SERIAL,
                          "-smbios", "type=2,manufacturer=Acme Boards,product=B9-MB,serial=" + SMBIOS_SERIAL + "-B"),
               groups=("boot",), alone=True,
               doc="The short default boot: timer and spin; SMBIOS system and board set (-smbios), their serials "
                   "to be sent as hashes only. Alone: its TSC calibration is held against the PM timer, the "
                   "HPET and the host's rate (x86_64/test_boot.py)."),
    BootConfig("smp2", smp=2, mem=2048,
               options={"probes": "timer,spin,fault_ap_ud2,smp_hello", "timer_samples": 256, "apic_mode": "x2apic"},
               groups=("boot", "smp", "faults", "x2apic"),
               doc="Two CPUs and 2 GiB of guest memory: the CPU count and the memory map past 2 GiB "
                   "(x86_64/test_boot.py), a fault on an AP and the AP working on (x86_64/test_smp.py), and "
                   "apic_mode=x2apic refused, as QEMU 7.2 has no x2APIC (x86_64/test_x2apic.py). One boot: "
                   "they were four boots (mem2g, smp2_fault and qemu72_x2apic besides)."),
    BootConfig("faults", options={"timer_samples": 64},
               raw="probes = fault_ud2,spin,no_such_probe,fault_gp,timer\nno_such_key = 1\ntsc_cal_windows = many\n"
                   "serial_baud = 230400\n",
               groups=("boot", "faults"),
               doc="Bad options ride along: they must be reported and the run must go on with defaults "
               "(serial_baud=230400 is a valid value the PC UART's clock cannot make)."),
    BootConfig("icount", icount=True, icount_shift=ICOUNT_SHIFT,
               options={"probes": "timer,spin,prof_split,irq_displace,prim", "timer_samples": 256, "tsc_cal_windows": 1,
                        "profile": "prof_split", "profile_period": 10000 * TICKS_PER_INSN,
                        "target_ns": 5000000 * TICKS_PER_INSN, "samples": 10,
                        "irq_disp_samples": 4, "irq_disp_ms": 1 * TICKS_PER_INSN,
                        "irq_disp_period_us": 50 * TICKS_PER_INSN,
                        "irq_disp_work": ",".join(str(w * TICKS_PER_INSN) for w in (0, 1000, 10000, 30000))},
               groups=("boot", "icount", "profile", "irq"),
               doc="prof_split rides along, profiled (x86_64/test_profile.py), irq_displace, exact under "
                   "icount (x86_64/test_displace.py), and prim, where the TSC is an instruction clock: every "
                   "fixed-path kernel takes the same time per instruction (x86_64/test_prim.py). Under "
                   "shift=0 the boot was slow to start (~35 s of OVMF's waits, each nanosecond an "
                   "instruction: 43 s to our first record, 5.6 s at shift=6), so it runs at "
                   "ICOUNT_SHIFT with every time and cycle option TICKS_PER_INSN times its shift=0 "
                   "value: the probes run about the instructions they ran at shift=0, and the tests "
                   "read ticks over TICKS_PER_INSN as instructions. Not exactly the same: the "
                   "runner's calibration lands on fewer prof_split iterations at shift=6 (209,674 "
                   "a sample against 257,876), 4,477 profile samples with samples=8 against 5,369, "
                   "so samples=10 keeps the split test's 5,000."),
    BootConfig("s5", options={"probes": "timer", "timer_samples": 64, "shutdown": "acpi", "serial_baud": 921600,
                              "serial_clock_hz": 14745600}, groups=("boot", "fw"),
               doc="shutdown=acpi: the FADT's PM1a_CNT with \\_S5's SLP_TYP powers QEMU off. The line at "
               "921600 baud on a stated 14.7456 MHz UART clock (QEMU's 16550 ignores the rate)."),
    BootConfig("noserial", options={"probes": "timer,spin", "timer_samples": 64, "serial": "io:0x2e8", "hold_s": 1},
               groups=("boot", "fw"), doc="A serial port with no UART behind it. The screen is then the only copy: "
               "without hold_s it would wait for a key (x86_64/test_screen.py)."),
    BootConfig("memory_max", cpu="max", options=_MEMORY, groups=("memory",),
               doc="-cpu max: SSE2 and AVX2 kernels run, AVX-512 is absent under TCG."),
    BootConfig("smp1", smp=1, options=_HELLO, groups=("smp",)),
    # alone: the application processors' bring-up is held to its 200 ms bound (x86_64/test_smp.py)
    BootConfig("smp2_hello", smp=2, options=_HELLO, groups=("smp",), alone=True),
    BootConfig("smp4_hello", smp=4, options=_HELLO, groups=("smp",), alone=True),
    BootConfig("irqb", smp=2,
               options={"probes": "fault_irq,irq_latency,irq_exception,irq_displace,irq_footprint,noise,smp_hello",
                        "irq_samples": 200, "irq_set_ms": 20000, "irq_timeout_ms": 2000, "irq_disp_samples": 4,
                        "irq_disp_ms": 10, "irq_fp_samples": 8, "irq_fp_ms": _FP_MS, "noise_ms": 300,
                        "samples": 4},
               groups=("irq",),
               doc="Every interrupt probe; fault_irq first: it faults with a periodic timer armed, "
                   "everything after must be clean."),
    BootConfig("repeat", smp=2,
               options={"probes": ",".join(["fault_irq,irq_latency"] * _IRQ_REPEATS), "irq_samples": 100,
                        "irq_set_ms": 20000, "irq_timeout_ms": 2000},
               groups=("irq", "faults"), doc="fault_irq and irq_latency, four times over."),
    BootConfig("lat", smp=2, options=_LATENCY, groups=("irq",), alone=True,
               doc="Alone: the HPET calibrated against the TSC is held to 1% (x86_64/test_latency.py)."),
    BootConfig("lat_intel", cpu="Skylake-Client",
               options={"probes": "irq_latency,noise", "irq_samples": 20, "irq_set_ms": 5000, "noise_ms": 200,
                        "irq_timeout_ms": 2000},
               groups=("irq",),
               doc="An Intel CPU model: the SMI paths run (TCG reads MSR_SMI_COUNT as 0). irq_timeout_ms as "
                   "in the other interrupt boots: a loaded host can hold QEMU's timer back past the 50 ms "
                   "default, and a late interrupt is then late, not lost."),
    BootConfig("fpb", options=_FOOTPRINT, groups=("irq",), alone=True,
               doc="Alone: the whole boot is held to a duration (x86_64/test_footprint.py)."),
    BootConfig("amd", options=dict(_PMU, probes=_PMU["probes"] + ",flops", mem_kernels="read,copy_nt"),
               groups=("pmu", "memory"),
               doc="The default CPU model, qemu64 (AuthenticAMD): the AMD discovery path, and no AVX, so the "
                   "256/512-bit memory and flops kernels must be skips (one boot: it was two of the same "
                   "machine, quick_memory beside it)."),
    BootConfig("intel", cpu="Skylake-Client", options=dict(_PMU, pmu_events="none"),
               raw="pmu_events = cycles,l3_bogus\n", groups=("pmu",),
               doc="An Intel model: the CPUID 0xA path. pmu_events=none plus a bad list after it: the bad "
                   "value is reported and `none` stays."),
    BootConfig("epyc", cpu="EPYC",
               options={"probes": "spin,pmu_check", "samples": 4, "timer_samples": 64, "tsc_cal_windows": 1},
               groups=("pmu",)),
    BootConfig("spin_membw", smp=2,
               options={"probes": "spin,membw,membw_mc,fault_ud2", "profile": "spin,membw,membw_mc,fault_ud2",
                        "profile_period": 250000, "samples": 8, "target_ns": 10000000, "mem_max_mb": 1,
                        "mem_min_kb": 512, "mem_kernels": "read", "timer_samples": 64, "tsc_cal_windows": 1,
                        "save_mb": 16},
               groups=("profile",),
               doc="spin, membw and membw_mc profiled on both cores (x86_64/test_profile.py), saving beside "
                   "them (SAVE_KEPT; save_mb=16: the profiler's default 64 MiB log does not fit the test "
                   "stick, which refused it until 2026-11-29). membw from 512 KiB, read only: ~7,000 "
                   "samples where the test needs 50, membw_mc ~6,500 (it swept 4 KiB-1 MiB with three "
                   "kernels: 47 s of 65; from 64 KiB, read and copy: ~40,000 membw samples, 17.6 s alone "
                   "without saving, 8.4 s now)."),
    BootConfig("prof_auto", options=dict(_FOOTPRINT, irq_fp_inst=1, probes="spin,irq_footprint", profile="spin",
                                         samples=8, timer_samples=64, tsc_cal_windows=1),
               groups=("profile", "irq"),
               doc="spin profiled at the automatic period: run again, muted, until the profile has 1000 samples. "
                   "target_ns at its default (1000x the timer overhead): each run is short, so its set-up and "
                   "records are a large part of the time, which the profile must count apart (outside the "
                   "measured region). Then irq_footprint with irq_fp_inst=1, the L1I level's code chains "
                   "(x86_64/test_footprint.py; the boot `instb` of its own once), after the profiler's timer "
                   "has been given back."),
    BootConfig("x2", smp=2, cpu="max", qemu10=True, timeout=120,
               options={"probes": "smp_hello,membw_mc,irq_latency,irq_exception,irq_displace,fault_irq,irq_latency",
                        "apic_mode": "x2apic", "samples": 4, "mem_max_mb": 1, "mem_kernels": "read,copy",
                        "irq_samples": 20, "irq_set_ms": 20000, "irq_timeout_ms": 2000, "irq_disp_samples": 3,
                        "irq_disp_ms": 20, "irq_disp_work": "0,10000"},
               groups=("smp", "irq", "x2apic", "qemu10"),
               doc="x2APIC for real on QEMU 10 -cpu max; two irq_latency runs: one on a clean platform, one "
                   "after fault_irq abandoned a periodic timer. irq_displace's windows (20 ms, three a "
                   "handler) span ~250 ms: QEMU fires its timers from a host thread that a loaded host "
                   "can starve for tens of ms, and with two 5 ms windows a handler (~40 ms in all) once "
                   "took none of its 102 armed interrupts (a make test of 2026-11-30)."),
]

# The defaults (seed given explicitly), for the record-shape comparison (test_record_shapes.py).
# AArch64's repeats less (SHAPE_SHORT, as the hosted shape run): the same layouts, keys and record
# counts as the full defaults (compared with the stored shape, made from the full defaults): 25 s
# alone against 114 s whole (irq_disp_samples and irq_set_ms: 56 s -> 25 s; TCG's displacement
# windows are ~130 ms each, and the 2 MiB-touching latency sets run to their time bound).
# x86_64's stays whole: its stream's size is held to the default's budget.
SHAPE_SHORT = {"seed": 1, "samples": 4, "irq_samples": 1000, "noise_ms": 300, "irq_fp_ms": 1,
               "irq_disp_samples": 4, "irq_set_ms": 300}
SHAPES = [
    BootConfig("shape_x86", options={"seed": 1}, timeout=300, groups=("shape",),
               doc="The default x86_64 boot: its record types and keys against shapes/x86_64.json."),
    _a64("shape_a64", options=SHAPE_SHORT, timeout=300, groups=("shape",),
         doc="The default AArch64 boot, repeated less: its record types and keys against "
             "shapes/aarch64.json."),
]

AARCH64 = [
    # probes goes in raw: the harness refuses unknown probe names in options.
    _a64("a64", timeout=90,
         options={"timer_samples": 256, "samples": 8, "mem_max_mb": 1, "noise_ms": 200, "profile": "spin",
                  "mem_kernels": "read,write_nt,rep_movsb"},
         raw="probes = timer,fault_ud2,spin,fault_gp,pmu_check,latency,noise,membw,no_such_probe\n",
         groups=("boot", "faults"), doc="The AArch64 default-ish boot, an unknown probe name riding along."),
    _a64("a64noacpi", timeout=60, machine=("acpi=off",), options={"probes": "timer", "timer_samples": 64},
         groups=("boot", "fw"), doc="No ACPI tables: the devicetree path."),
    _a64("a64el2", timeout=60, cpu="max", machine=("virtualization=on",), options={"samples": 4, "el2": "stay"},
         raw="probes = fault_ud2,spin,fault_gp\n", groups=("boot", "faults"),
         doc="Entered at EL2 (virtualization=on; QEMU merges the -machine into the harness's virt) "
             "and kept there (el2=stay): our EL2 vectors."),
    _a64("a64el2run", smp=2, timeout=180, cpu="max", machine=("virtualization=on",),
         options={"probes": "smp_hello,irq_latency,irq_exception,membw_mc", "irq_samples": 50,
                  "irq_set_ms": 5000, "irq_timeout_ms": 2000, "profile": "membw_mc", "profile_source": "pmu",
                  "profile_period": 1000000, "samples": 4, "mem_max_mb": 4},
         groups=("irq", "smp", "profile"),
         doc="Entered at EL2 on 2 cores and left for EL1 (el2=leave, the default): smp_hello on both "
             "(PSCI starts the second core at EL2 too), the interrupt probes through the GICv3 and the "
             "EL1 timers, membw_mc profiled on PMU overflow on both cores."),
    _a64("a64el2gicv2", smp=2, timeout=120, cpu="max", machine=("virtualization=on", "gic-version=2"),
         options={"probes": "smp_hello,irq_latency", "irq_samples": 50, "irq_set_ms": 5000,
                  "irq_timeout_ms": 2000, "samples": 4},
         groups=("irq", "smp"),
         doc="Entered at EL2 with a GICv2 (no GIC system registers: ICC_SRE_EL2 untouched), left for "
             "EL1: both cores, every armed interrupt through the memory-mapped CPU interface."),
    _a64("a64el2pmu", icount=True, cpu="max", machine=("virtualization=on",),
         options={"probes": "spin,pmu_check,prim", "samples": 8, "timer_samples": 128},
         groups=("pmu", "icount"),
         doc="Entered at EL2, left for EL1: the PMU's counters given to EL1 count exactly under -icount "
             "(aarch64/test_el2.py), and probe prim's kernels by them: each fixed-path kernel's "
             "instructions per iteration are its static count (aarch64/test_prim.py)."),
    _a64("a64mem", timeout=90, cpu="max",
         options={"probes": "membw,cachefill,flops,spin", "samples": 5, "mem_max_mb": 1, "mem_kernels": "all"},
         groups=("memory", "boot"),
         doc="-cpu max: every memory kernel, the caches, flops (aarch64/test_memory.py), and the system "
             "registers' records with MOPS's refusal and spin after it (aarch64/test_sysregs.py; the boot "
             "a64sys of its own once)."),
    _a64("a64smp2", smp=2, options={"samples": 4, "mem_max_mb": 4, "timer_samples": 64},
         raw="probes = smp_hello,fault_ap_ud2,membw_mc\n", groups=("smp", "faults"),
         doc="membw_mc at its smallest per-core buffer (4 MiB): the test is about structure, not GB/s."),
    _a64("a64irq", icount=True,
         options={"probes": "fault_irq,irq_latency,irq_exception,spin", "irq_samples": 50, "irq_set_ms": 5000,
                  "irq_timeout_ms": 2000, "profile": "spin", "profile_source": "timer",
                  "profile_period": 250000, "samples": 8, "target_ns": 10000000},
         groups=("irq", "icount", "profile")),
    _a64("a64irq_cost",
         options={"probes": "irq_displace,irq_footprint", "irq_disp_samples": 6, "irq_disp_ms": 5,
                  "irq_disp_work": "0,1000,10000,100000", "irq_fp_samples": 8, "irq_fp_k": "50,300",
                  "irq_fp_ms": _FP_MS},
         groups=("irq",), alone=True,
         doc="What an interrupt costs: displacement and cache footprint. Alone: the whole boot is held to a "
             "duration (aarch64/test_irq_cost.py)."),
    _a64("a64pmu", icount=True,
         options={"probes": "timer,spin,pmu_check,pmu_cost,prof_split", "samples": 8, "timer_samples": 128,
                  "profile": "prof_split", "profile_event": "instructions", "profile_source": "pmu",
                  "profile_period": 10000, "target_ns": 8000000},
         groups=("pmu", "icount", "profile"),
         doc="The PMU under -icount: counted exactly (aarch64/test_pmu.py), then prof_split profiled on "
             "the instructions counter's overflow (aarch64/test_profile.py) after the counting probes "
             "have left the PMU (one boot: a64prof was a boot of its own on the same machine)."),
    _a64("a64gicv2", smp=2, timeout=180, machine=("gic-version=2",),
         options={"probes": "smp_hello,irq_latency,irq_exception,membw_mc", "irq_samples": 50,
                  "irq_set_ms": 5000, "irq_timeout_ms": 2000, "profile": "membw_mc", "profile_source": "pmu",
                  "profile_period": 1000000, "samples": 4, "mem_max_mb": 4},
         groups=("irq", "smp", "profile"),
         doc="A GICv2 (QEMU virt,gic-version=2: MADT GICD version 2, GICC CPU interface, no "
             "redistributor) on 2 cores: smp_hello, irq_latency, irq_exception, and membw_mc profiled on "
             "PMU overflow on both cores (each core's banked PPI 23 through its own CPU interface)."),
    _a64("a64gicv2noacpi", timeout=60, machine=("gic-version=2", "acpi=off"),
         options={"probes": "irq_latency", "irq_samples": 20, "irq_set_ms": 5000, "irq_timeout_ms": 2000},
         groups=("irq", "fw"),
         doc="A GICv2 without ACPI tables: QEMU virt's addresses, the GIC told apart by GICv2's ICPIDR2."),
    _a64("a64prof_smp", smp=2,
         options={"probes": "membw_mc", "profile": "membw_mc", "profile_period": 1000000, "samples": 4,
                  "mem_max_mb": 4},
         groups=("profile", "smp")),
]

# The boot stick (test_save_stick.py): the same short run on differently attached sticks.
SAVE_SHORT = {"probes": "timer,spin", "samples": 4, "timer_samples": 64, "tsc_cal_windows": 1}
# ... with a 1 MiB log (the run's ~40 KB fit): the boots that test where the stick sits, not the
# default size save_serial asserts, skip pre-allocating 16 MiB through the emulated controller
# (measured: 6.1-7.2 s a boot against 7.6)
SAVE_SMALL = dict(SAVE_SHORT, save_mb=1)
SAVE_HUB_PORT = 2
SAVE_KILL_AFTER_S = 45  # seconds: QEMU is killed while the noise probe still runs (noise_ms below)
# ... or sooner: 3 s after spin's last record (its counter skip, from the TCG PMU's absence), while
# spin's sets go to the stick or noise spins. timer's sets were flushed before spin began (the
# runner flushes between probes), so the stick holds sets whenever the kill lands, and a kill during
# the flush is the torn log the test is about. (A whole 45 s cost make test a core for ~30 s more;
# 10 s after that record, ~7 s more.)
SAVE_KILL_AT = ("skip probe=spin ", 3)
_HUB = ("-device", "usb-hub,bus=xhci.0,port=%d" % SAVE_HUB_PORT,
        "-device", "usb-storage,drive=stick,bus=xhci.0,port=%d.1" % SAVE_HUB_PORT)
# issue 30's enumeration variants, sharing boots: the NEC controller (another vendor's register
# layout and port order) with the stick two (full-speed) hubs deep, the qemu-xhci one beside it empty
SAVE_NEC_PCI_ID = 0x10330194  # QEMU's nec-usb-xhci: NEC uPD720200 (hw/usb/hcd-xhci-nec.c)
_NEC_TWO_HUBS = ("-device", "nec-usb-xhci,id=nec",
                 "-device", "usb-hub,bus=nec.0,port=%d" % SAVE_HUB_PORT,
                 "-device", "usb-hub,bus=nec.0,port=%d.1" % SAVE_HUB_PORT,
                 "-device", "usb-storage,drive=stick,bus=nec.0,port=%d.1.3" % SAVE_HUB_PORT)

# The stick on a USB 2 EHCI controller, the machine's qemu-xhci left empty: refused with the reason
# docs/saving.md quotes (test_save_refused.py).
_EHCI = ("-device", "usb-ehci,id=ehci", "-device", "usb-storage,drive=stick,bus=ehci.0")

SAVE = [
    BootConfig("save_ehci", options=SAVE_SHORT, usb_devices=_EHCI, groups=("save",)),
    BootConfig("save_serial", options=SAVE_SHORT, groups=("save",)),
    BootConfig("save_noserial", options=SAVE_SMALL, serial=False, groups=("save",)),
    BootConfig("save_hub", options=SAVE_SMALL, usb_devices=_HUB, groups=("save",)),
    BootConfig("save_high", options=SAVE_SMALL, xhci_props=",p3=0", groups=("save",),
               doc="qemu-xhci offers each bus port at USB 2 (p2) and USB 3 (p3) speed, and usb-storage takes "
                   "SuperSpeed where it can: with no USB 3 ports (p3=0) it attaches at high speed."),
    # The controller behind PCI bridges and beside an IOMMU (efi/save_pci.c, save_iommu.c): the
    # bridges above it enabled from the device path, DMAR read with translation off (OVMF has no
    # VT-d driver), and the stick's copy still byte-identical to serial.
    BootConfig("save_root_port", options=SAVE_SMALL, groups=("save",), xhci_props=",bus=rp1",
               pci_devices=("-device", "pcie-root-port,id=rp1,bus=pcie.0,chassis=1,slot=1")),
    BootConfig("save_pci_bridge", options=SAVE_SMALL, groups=("save",), xhci_props=",bus=pb1,addr=3",
               pci_devices=("-device", "pci-bridge,id=pb1,bus=pcie.0,chassis_nr=1")),
    BootConfig("save_iommu", options=SAVE_SMALL, groups=("save",), pci_devices=("-device", "intel-iommu")),
    BootConfig("save_super_only", options=SAVE_SMALL, xhci_props=",p2=0", groups=("save",),
               doc="No USB 2 ports (p2=0): the stick on a USB 3 port at SuperSpeed, nothing to fall back to."),
    BootConfig("save_nec_hubs", options=SAVE_SMALL, usb_devices=_NEC_TWO_HUBS, groups=("save",),
               doc="nec-usb-xhci with the stick two hubs deep (route string of two tiers); an empty qemu-xhci "
                   "beside it is not the boot device's controller."),
    BootConfig("save_too_small", options=dict(SAVE_SHORT, save_mb=200), groups=("save",)),
    BootConfig("save_killed", options=dict(SAVE_SHORT, probes="timer,spin,noise", noise_ms=600000),
               timeout=SAVE_KILL_AFTER_S, stop_after=SAVE_KILL_AT, groups=("save",)),
    _a64("a64_save_serial", options=SAVE_SHORT, groups=("save",)),
    _a64("a64_save_noserial", options=SAVE_SMALL, serial=False, groups=("save",)),
    # virt's SMMUv3 (IORT; AAVMF leaves it off) and the controller behind a root port
    _a64("a64_save_smmu", options=SAVE_SMALL, groups=("save",), machine=("iommu=smmuv3",), xhci_props=",bus=rp1",
         pci_devices=("-device", "pcie-root-port,id=rp1,bus=pcie.0,chassis=1,slot=1")),
    _a64("a64_save_nec_super_only", options=SAVE_SMALL,
         usb_devices=("-device", "nec-usb-xhci,id=nec,p2=0", "-device", "usb-storage,drive=stick,bus=nec.0"),
         groups=("save",), doc="AArch64: the stick on nec-usb-xhci with USB 3 ports only."),
    # alone: AAVMF lists its boot options before a stick behind a hub has enumerated now and then
    # and starts its shell (2 of 6 boots one at a time; in the pool, beside another boot, both
    # boots of a fresh-clone make test): one boot at a time, as before the pool
    _a64("a64_save_hub", options=SAVE_SMALL, usb_devices=_HUB, groups=("save",), alone=True),
]

# Two boots of the same options on the same machine (test_compare_boots.py), and two boots of an
# Intel CPU model for the results store (test_store_cpus.py), whose other machine is the two
# compare boots (QEMU's default qemu64, AuthenticAMD): two boots fewer than a pair of its own
# (EPYC-v1 until 2026-11-30), ~4.5 CPU-s each.
COMPARE_OPTIONS = {"probes": "timer,spin,membw,latency,irq_latency,irq_exception,noise", "samples": 4,
                   "timer_samples": 64, "mem_max_mb": 1, "mem_kernels": "read,copy", "irq_samples": 100,
                   "irq_set_ms": 5000, "irq_timeout_ms": 2000, "noise_ms": 200}
STORE_OPTIONS = {"probes": "membw,latency", "samples": 4, "mem_max_mb": 1, "mem_kernels": "read,copy"}
STORE_CPU = "Skylake-Client-v1"
COMPARE_BOOTS = ("cmp1", "cmp2")


def store_boot_name(cpu, i):
    return "st_%s_%d" % (cpu.replace("-", "_").lower(), i)


TWICE = [BootConfig(name, smp=2, options=COMPARE_OPTIONS, groups=("compare", "store")) for name in COMPARE_BOOTS]
TWICE += [BootConfig(store_boot_name(STORE_CPU, i), cpu=STORE_CPU, options=STORE_OPTIONS, groups=("store",))
          for i in (1, 2)]

# QEMU CPU models: one short boot per model, booted two at a time by
# test_cpu_models.py's pool (not one fixture each: a fixture per entry would boot them one after
# another). The options are the cheapest that still run every default fact (the platform records,
# the cache records among them) and end the run: the timer probe with few samples and one short
# calibration window, 256 MiB of guest memory. The models are a sample of x86 generations and Arm
# cores; the known answers are in cpu_models.py. Models QEMU 7.2 lacks boot on QEMU 10
# (scripts/qemu10.sh; QEMU10_ARCH=aarch64 for the Arm one) where it has them; MODELS_LACKING names the rest.
# save=off: the tests read identification and caches, nothing saved (see SAVE_KEPT below).
_MODEL_OPTIONS = {"probes": "timer", "timer_samples": 16, "samples": 4, "tsc_cal_windows": 1, "tsc_cal_ms": 10,
                  "save": "off"}
_MODEL_MEM = 256
MODEL_TIMEOUT_S = 180  # a loaded 2-core host runs two TCG boots at once


def _model(cpu, arch="x86_64", qemu10=False):
    name = "model_%s_%s" % ("x86" if arch == "x86_64" else "a64", cpu.replace("-", "_").lower())
    return BootConfig(name, arch=arch, mem=_MODEL_MEM, options=dict(_MODEL_OPTIONS), cpu=cpu, qemu10=qemu10,
                      timeout=MODEL_TIMEOUT_S, groups=("models",))


MODELS = [_model(c) for c in ("Conroe", "Nehalem", "SandyBridge", "Haswell", "Skylake-Server", "Icelake-Server",
                              "Snowridge", "Opteron_G5", "EPYC", "EPYC-Rome", "EPYC-Milan", "max")]
MODELS += [_model(c, qemu10=True) for c in ("SapphireRapids", "EPYC-Genoa")]
MODELS += [_model(c, arch="aarch64") for c in ("cortex-a53", "cortex-a57", "cortex-a72", "cortex-a76",
                                               "neoverse-n1", "max")]
MODELS += [_model("neoverse-v1", arch="aarch64", qemu10=True)]  # FEAT_CCIDX: the 64-bit CCSIDR layout
# Asked for, and in neither QEMU the table can boot: (arch, model, why). None at present.
MODELS_LACKING = []

# Saving (save=auto: every boot here boots from a USB stick) pre-allocates the log file, 16 MiB, 64
# MiB with the profiler on, and writes it through the firmware's own xHCI and FAT path: about 7 s of
# a short boot's ~24 s under TCG (Conroe model boot alone: 24.3 s saving, 16.6 s with save=off), ten
# times that under -icount. Boots whose tests read nothing of what was saved boot with save=off;
# what saving covers stays covered by the boots that keep it: the SAVE table (every way a stick is
# attached, too small, killed mid-run; both CPUs), the default boots of SHAPES (the save records in
# the default stream's shape), and SAVE_KEPT, saving beside the profiler and a second core.
SAVE_KEPT = ("spin_membw",)
SAVES = ("save", "shape")  # groups whose boots keep the default save=auto


def _save_off(cfg):
    if "save" in cfg.options or "save" in cfg.raw or cfg.name in SAVE_KEPT or set(cfg.groups) & set(SAVES):
        return cfg
    return replace(cfg, options=dict(cfg.options, save="off"))


# Unattended fleet boots (test_unattended.py): one stick whose baremetric.cfg a file named after
# the SMBIOS system product overrides (QEMU's -smbios), repeat=2 from that file, after=boot-os.
FLEET_PRODUCT = "Fleet Box 7"  # with a blank: FAT long names keep it
FLEET_BOARD = "FB7-MB"
FLEET_BASE = {"probes": "timer,spin", "timer_samples": 64, "samples": 4, "after": "boot-os"}
FLEET_FILES = {"EFI/BOOT/cfg/%s.cfg" % FLEET_PRODUCT: "# this machine's own options\nrepeat = 2\nsamples = 5\n"}
FLEET_SMBIOS = ("-smbios", "type=1,manufacturer=Acme,product=%s" % FLEET_PRODUCT,
                "-smbios", "type=2,manufacturer=Acme,product=%s" % FLEET_BOARD)
DONE_LINE = "baremetric: done"  # efi/after_run.h AFTER_RUN_DONE_LINE, docs/fleet.md
HOLD_AFTER_S = 5  # the held machine is stopped this long after its done line (a power-off: < 1 s; 10 s held a pool slot idle)
UNATTENDED = [
    BootConfig("unattended", options=FLEET_BASE, qemu_args=FLEET_SMBIOS, timeout=120,
               extra_files=FLEET_FILES, groups=("fleet",),
               doc="The product's file chosen: two passes, BootNext set."),
    BootConfig("unattended_other", options=dict(FLEET_BASE, after="reboot"), timeout=120,
               qemu_args=("-smbios", "type=1,product=Other Box"), extra_files=FLEET_FILES,
               groups=("fleet",),
               doc="A machine with another product: its file is not there, baremetric.cfg alone "
                   "counts; and after=reboot."),
    _a64("unattended_a64", options=FLEET_BASE, qemu_args=FLEET_SMBIOS[:2], extra_files=FLEET_FILES,
         groups=("fleet",), doc="The same on AArch64 (QEMU virt, AAVMF): the product file, two passes, "
                                "BootNext."),
    BootConfig("unattended_held", options={"probes": "timer", "timer_samples": 64, "after": "hold"},
               timeout=120, stop_after=(DONE_LINE, HOLD_AFTER_S), groups=("fleet",),
               doc="after=hold: the done line, then the machine stays: stopped HOLD_AFTER_S after that "
                   "line (120 s: the run takes ~20 s under TCG)."),
]

X86_64, AARCH64, TWICE, UNATTENDED = ([_save_off(c) for c in t] for t in (X86_64, AARCH64, TWICE, UNATTENDED))
_ALL = X86_64 + AARCH64 + SHAPES + SAVE + TWICE + UNATTENDED
CONFIGS = {c.name: c for c in _ALL}
assert len(CONFIGS) == len(_ALL), "two boot configurations share a name"
assert not set(c.name for c in MODELS) & set(CONFIGS), "a model boot shares a name with a boot"
assert len({c.name for c in MODELS}) == len(MODELS), "two model boots share a name"


def _model_host(model):
    """The boot of CONFIGS that already runs `model`'s CPU model the model table's way (the same
    arch, QEMU and -cpu, one CPU, no other -machine, QEMU, USB or PCI extras, no -icount), or None.
    Its cache and identification records are the model's: test_cpu_models.py reads them there
    instead of booting the model again (each x86_64 boot costs ~4 CPU-s of OVMF before our first
    record)."""
    for c in _ALL:
        if (c.arch, c.cpu, c.qemu10) == (model.arch, model.cpu, model.qemu10) and c.smp == 1 and not (
                c.machine or c.qemu_args or c.usb_devices or c.pci_devices or c.xhci_props or c.icount
                or c.stop_after or c.alone or c.raw or c.extra_files or not c.serial):
            return c.name
    return None


# {model boot name: the CONFIGS entry whose boot stands for it}
MODEL_HOSTS = {m.name: h for m, h in ((m, _model_host(m)) for m in MODELS) if h}


def work_list(value):
    """An option's comma-separated list of integers (irq_disp_work, irq_fp_k) as a tuple."""
    return tuple(int(w) for w in str(value).split(","))
