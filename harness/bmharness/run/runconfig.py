"""The firmware configuration file (`baremetric.cfg`, lines `key = value`).

The firmware defines the defaults and warns (msg record) about unknown keys, so the harness only
writes the keys listed in KEYS (the registry's options, stream/registry.py), after checking each
value against its option's type, range and names. QEMU_DEFAULTS are the settings
for a quick QEMU run; `--set key=value` options override them.
"""

import re

from ..stream import registry

# Every option and probe comes from the registry (bench/core/options.def, registry.def): the
# harness checks a value as the firmware's option types do (bench/core/options.c), so a new
# option or probe needs no edit here.
PROBES = registry.PROBES

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


def _u64(o):
    def check(value):
        if not _UINT.match(value):
            return "not an unsigned number (%s)" % o["accepts"]
        return None if o["min"] <= int(value, 0) <= o["max"] else "out of range: %s" % o["accepts"]
    return check


def _u64_list(o, auto=False):
    """A comma list of 1..LIST_MAX distinct numbers in the option's range (or auto)."""
    def check(value):
        if auto and value == "auto":
            return None
        items = value.split(",")
        nums = [int(i, 0) for i in items if _UINT.match(i)]
        if not (1 <= len(items) <= registry.LIST_MAX and len(nums) == len(items)
                and len(set(nums)) == len(nums) and all(o["min"] <= n <= o["max"] for n in nums)):
            return "expected %s, got %r" % (o["accepts"], value)
        return None
    return check


def _choice(options):
    def check(value):
        return None if value in options else "must be one of %s" % ", ".join(options)
    return check


def _serial(value):
    return None if _SERIAL.match(value) else "must be auto, none, io:0xPORT or mmio:0xADDR"


def _names(o, words):
    """A comma list of the option's names, or one of `words` alone (all, auto, none)."""
    def check(value):
        if value in words:
            return None
        bad = [k for k in value.split(",") if k not in o["names"]]
        return "unknown name(s) %s (known: %s)" % (", ".join(bad), ", ".join(
            list(words) + o["names"])) if bad else None
    return check


def _profile(value):
    """The profiler's probe list (OPT_PROFILE): none, all, or probe names."""
    return None if value in ("none", "all") else _check_probes(value)


def _checker(o):
    """key -> value check (returns an error string or None), by the option's type."""
    return {
        "U64": lambda: _u64(o),
        "BOOL": lambda: _choice(("0", "1")),
        "U64_LIST": lambda: _u64_list(o),
        "U64_LIST_AUTO": lambda: _u64_list(o, auto=True),
        "CHOICE": lambda: _choice(tuple(o["names"])),
        "NAME": lambda: _choice(tuple(o["names"])),
        "SERIAL": lambda: _serial,
        "PROBES": lambda: _check_probes,
        "PROFILE": lambda: _profile,
        "NAMES_OR_ALL": lambda: _names(o, ("all",)),
        "EVENTS": lambda: _names(o, ("auto", "none")),
    }.get(o["type"], lambda: _unchecked)()


def _unchecked(value):
    """An option type this harness does not know (a newer firmware's): the firmware checks it."""
    return None


KEYS = {o["key"]: _checker(o) for o in registry.OPTIONS}

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


_LINE_END = re.compile(r"(\r\n|\r|\n)")
_BLANKS = " \t"
HARNESS_MARK = "# --- set by the harness (baremetric qemu): "


def read_settings(text):
    """[(line number, key, value)] of a config file's `key = value` lines, as the firmware reads
    them (lib/config.c: a `#` before the `=` makes a comment line, one after it ends the value;
    LF, CRLF or CR line ends; a UTF-8 byte-order mark skipped)."""
    out = []
    for n, line in enumerate(_LINE_END.split(text.lstrip("\ufeff"))[::2], 1):
        hash_at, eq = line.find("#"), line.find("=")
        if eq < 0 or 0 <= hash_at < eq:
            continue
        value = line[eq + 1:hash_at if hash_at >= 0 else len(line)]
        out.append((n, line[:eq].strip(_BLANKS), value.strip(_BLANKS)))
    return out


def overlay(image_text, overrides=None, defaults=None):
    """An image's own config file with the harness's settings on top: (text, settings, changes).

    Precedence: the harness's defaults (QEMU_DEFAULTS unless given) < the image's own lines <
    overrides (`--set`). The image's text is kept byte for byte, except each line of a key the
    harness sets, which becomes a comment (the firmware reports a key given twice); the
    harness's lines follow under a marker. settings: every key's value as the firmware will see
    it (the image's values unchecked: the firmware reports a bad one). changes: [(key, the
    image's value or None, the harness's value, why)] for each key the harness set: a --set
    value the image's file does not already have, a QEMU default the file does not set and the
    firmware would not take anyway (registry.json's default)."""
    overrides = {k: str(v) for k, v in (overrides or {}).items()}
    defaults = dict(QEMU_DEFAULTS if defaults is None else defaults)
    validate(dict(defaults, **overrides))
    found = read_settings(image_text)
    own = {k: v for _, k, v in found}
    # a default the firmware has anyway changes nothing: not written
    wanted = {k: v for k, v in defaults.items() if k not in own and v != registry.default(k)}
    wanted.update(overrides)
    ours = {k: v for k, v in wanted.items() if own.get(k) != v}  # what the harness changes
    changes = [(k, own.get(k), v, "--set" if k in overrides else "QEMU default")
               for k, v in ours.items()]
    replaced = {n for n, k, _ in found if k in ours}
    parts = _LINE_END.split(image_text)
    for i in range(0, len(parts), 2):
        if i // 2 + 1 in replaced:
            parts[i] = "# " + parts[i] + "  # replaced by the harness below"
    text = "".join(parts)
    if ours:
        end = _LINE_END.search(image_text)
        nl = end.group(0) if end else "\n"  # the image's own line ends
        if text and not text.endswith(("\n", "\r")):
            text += nl
        text += (HARNESS_MARK + ", ".join("%s (%s)" % (k, why) for k, _, _, why in changes)
                 + "\n" + render(ours)).replace("\n", nl)
    settings = dict(defaults, **own)
    settings.update(ours)
    return text, settings, changes


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
