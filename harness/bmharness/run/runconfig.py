"""The firmware configuration file (`baremetric.cfg`, lines `key = value`).

The firmware defines the defaults and warns (msg record) about unknown keys, so the harness only
writes the keys listed in KEYS, after a light check of each value. QEMU_DEFAULTS are the settings
for a quick QEMU run; `--set key=value` options override them.
"""

import re

PROBES = ("timer", "spin", "pmu_check", "pmu_cost", "membw", "latency", "cachefill", "flops", "smp_hello",
          "membw_mc", "irq_latency", "irq_exception", "irq_displace", "irq_footprint", "noise", "fault_ud2",
          "fault_gp", "fault_ap_ud2", "fault_irq", "prof_split")
SHUTDOWN = ("auto", "debug-exit", "acpi", "reset", "halt")

_UINT = re.compile(r"(0|[1-9][0-9]*|0x[0-9a-fA-F]+)\Z")
_SERIAL = re.compile(r"(auto|none|io:0x[0-9a-fA-F]+|mmio:0x[0-9a-fA-F]+)\Z")


def _check_probes(value):
    names = [p.strip() for p in value.split(",") if p.strip()]
    if not names:
        return "empty probe list"
    bad = [p for p in names if p not in PROBES]
    if bad:
        return "unknown probe(s) %s (known: %s)" % (", ".join(bad), ", ".join(PROBES))
    return None


def _uint(value):
    return None if _UINT.match(value) else "not an unsigned number"


def _choice(options):
    def check(value):
        return None if value in options else "must be one of %s" % ", ".join(options)
    return check


def _serial(value):
    return None if _SERIAL.match(value) else "must be auto, none, io:0xPORT or mmio:0xADDR"


KERNELS = ("read", "write", "copy", "write_nt", "copy_nt", "memset", "memcpy", "rep_stosb", "rep_movsb")


def _fp_k(value):
    """irq_fp_k: auto, or a comma list of at most 8 distinct held-out K in 1..262144 (lib/config.c)."""
    if value == "auto":
        return None
    parts = value.split(",")
    if len(parts) > 8 or len(set(parts)) != len(parts) or \
            not all(_UINT.match(p) and not p.startswith("0x") and 1 <= int(p) <= 262144 for p in parts):
        return "must be auto or a comma list of at most 8 distinct integers 1..262144"
    return None


def _kernels(value):
    if value == "all":
        return None
    bad = [k for k in value.split(",") if k not in KERNELS]
    return "unknown kernel(s) %s (known: all, %s)" % (", ".join(bad), ", ".join(KERNELS)) if bad else None


# key -> value check (returns an error string or None)
# Counter events pmu_events= accepts (lib/config.c config_pmu_event_names).
PMU_EVENTS = ("cycles", "instructions", "ref_cycles", "llc_references", "llc_misses", "branches",
              "branch_misses", "l1d_misses", "l1i_misses", "l2_misses", "dtlb_misses", "itlb_misses",
              "stall_cycles", "l1d_demand_misses", "l2_demand_misses", "aperf", "mperf", "energy_pkg", "energy_dram", "energy_core")


def _uint_list(value):
    items = value.split(",")
    if not all(i.isdigit() for i in items) or len(set(items)) != len(items) or not 1 <= len(items) <= 8:
        return "expected a comma list of 1..8 distinct unsigned integers, got %r" % value
    return None


def _pmu_events(value):
    if value in ("auto", "none"):
        return None
    bad = [e for e in value.split(",") if e not in PMU_EVENTS]
    return "unknown event(s) %s (known: auto, none, %s)" % (", ".join(bad), ", ".join(PMU_EVENTS)) if bad else None


def _profile(value):
    """The profiler's probe list (lib/config.c OPT_PROFILE): none, all, or probe names."""
    return None if value in ("none", "all") else _check_probes(value)


KEYS = {
    "probes": _check_probes,
    "samples": _uint,
    "timer_samples": _uint,
    "target_ns": _uint,
    "tsc_cal_ms": _uint,
    "tsc_cal_windows": _uint,
    "serial": _serial,
    "serial_baud": _uint,
    "serial_clock_hz": _uint,
    "shutdown": _choice(SHUTDOWN),
    "debug_exit_port": _uint,
    "hold_s": _uint,
    "wait_key": _choice(("0", "1")),
    "save": _choice(("auto", "usb", "off")),
    "save_mb": _uint,
    "arena_mb": _uint,
    "mem_min_kb": _uint,
    "mem_max_mb": _uint,
    "mem_kernels": _kernels,
    "seed": _uint,
    "smp": _choice(("0", "1")),
    "apic_mode": _choice(("auto", "xapic", "x2apic")),
    "el2": _choice(("leave", "stay")),
    "pmu_events": _pmu_events,
    "irq_samples": _uint,
    "irq_set_ms": _uint,
    "irq_delay_us": _uint,
    "irq_timeout_ms": _uint,
    "irq_disp_samples": _uint,
    "irq_disp_ms": _uint,
    "irq_disp_period_us": _uint,
    "irq_fp_samples": _uint,
    "irq_fp_ms": _uint,
    "irq_fp_k": _fp_k,
    "irq_fp_inst": _choice(("0", "1")),
    "irq_disp_work": _uint_list,
    "noise_ms": _uint,
    "noise_threshold_ns": _uint,
    "profile": _profile,
    "profile_event": _choice(PMU_EVENTS),
    "profile_period": _uint,
    "profile_source": _choice(("auto", "pmu", "timer")),
}

QEMU_DEFAULTS = {
    "shutdown": "debug-exit",
    "timer_samples": "1024",
    "samples": "16",
    "tsc_cal_ms": "100",
    "tsc_cal_windows": "3",
    # TCG has no caches: a short sweep shows the shape without minutes of emulated copying.
    "mem_max_mb": "16",
}


class ConfigError(ValueError):
    pass


def parse_set_args(items):
    """['key=value', ...] -> {key: value}; raises ConfigError on unknown keys or bad values."""
    out = {}
    for item in items or ():
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key:
            raise ConfigError("--set %r: expected key=value" % item)
        out[key] = value
    validate(out)
    return out


def validate(settings):
    """Raise ConfigError if a key is unknown or a value fails its check."""
    for key, value in settings.items():
        if key not in KEYS:
            raise ConfigError("unknown config key %r (known: %s)" % (key, ", ".join(KEYS)))
        value = str(value)
        if not value or any(c in value for c in "\r\n#"):
            raise ConfigError("%s: empty value or forbidden character" % key)
        err = KEYS[key](value)
        if err:
            raise ConfigError("%s = %s: %s" % (key, value, err))


def merged(overrides=None, defaults=None):
    """Defaults (QEMU_DEFAULTS unless given) updated with overrides, values as strings."""
    out = dict(QEMU_DEFAULTS if defaults is None else defaults)
    out.update({k: str(v) for k, v in (overrides or {}).items()})
    validate(out)
    return out


def render(settings):
    """The file text: `key = value` lines in KEYS order (no comments: the firmware's parser
    is not assumed to accept them)."""
    lines = []
    for key in KEYS:
        if key in settings:
            lines.append("%s = %s" % (key, settings[key]))
    return "\n".join(lines) + "\n"


def write(path, settings, extra=""):
    """Validate and write the config file; returns its text. `extra` (raw lines, unchecked) is
    appended: tests use it to feed the firmware unknown keys and bad values on purpose."""
    validate(settings)
    text = render(settings)
    if extra:
        text += extra if extra.endswith("\n") else extra + "\n"
    with open(path, "w", newline="\n") as fh:
        fh.write(text)
    return text
