#!/usr/bin/env python3
"""docs/options.md from the one description of options and probes.

Reads bench/core/options.def (the options table), bench/core/registry.def (the probes, their
order, the default list) and each probe's `const struct probe_desc probe_<id>` (its description,
the options it reads, why it cannot be profiled). Nothing here is typed twice: change those files,
then run `make docs` (this script with --write). tests/python/test_docs_generated.py fails when the
committed docs/options.md differs from what this prints.

  scripts/gen_docs.py            print docs/options.md
  scripts/gen_docs.py --write    write it
  scripts/gen_docs.py --check    exit 1 when the committed file is stale
"""
import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OPTIONS_DEF = ROOT / "bench/core/options.def"
REGISTRY_DEF = ROOT / "bench/core/registry.def"
PROBE_SOURCES = ROOT / "bench"
OUT = ROOT / "docs/options.md"

OPTION_FIELDS = ("key", "type", "field", "min", "max", "names", "default", "accepts", "what")
# How each option type reads, for a reader of the docs (enum option_type in bench/core/options.c).
TYPE_WORDS = {
    "U64": "integer",
    "BOOL": "0 or 1",
    "U64_LIST": "integer list",
    "U64_LIST_AUTO": "integer list or auto",
    "CHOICE": "one word",
    "SERIAL": "serial line",
    "PROBES": "probe list",
    "PROFILE": "probe list",
    "NAMES_OR_ALL": "name list",
    "EVENTS": "event list",
    "NAME": "one name",
}
DEFAULT_FROM_REGISTRY = "PROBE_DEFAULT_LIST"
STRING = r'"(?:[^"\\]|\\.)*"'


def split_args(text):
    """The top-level, comma-separated arguments of a macro call (strings and parentheses kept whole)."""
    args, depth, cur, i = [], 0, "", 0
    while i < len(text):
        c = text[i]
        if c == '"':
            m = re.match(STRING, text[i:])
            cur += m.group(0)
            i += len(m.group(0))
            continue
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
        else:
            cur += c
        i += 1
    args.append(cur.strip())
    return args


def unquote(arg):
    if not re.fullmatch(STRING, arg):
        raise ValueError(f"expected one string literal, got {arg!r}")
    return bytes(arg[1:-1], "utf-8").decode("unicode_escape")


def macro_lines(path, macro):
    """The argument lists of every `MACRO(...)` line of an X-macro file."""
    calls = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if line.startswith(macro + "("):
            if not line.endswith(")"):
                raise ValueError(f"{path.name}:{n}: one entry per line, ending with ')'")
            calls.append(split_args(line[len(macro) + 1:-1]))
    return calls


def read_options():
    options = []
    for args in macro_lines(OPTIONS_DEF, "OPTION"):
        if len(args) != len(OPTION_FIELDS):
            raise ValueError(f"options.def: {args[0]}: {len(args)} fields, want {len(OPTION_FIELDS)}")
        o = dict(zip(OPTION_FIELDS, args))
        for k in ("default", "accepts", "what"):
            if not (k == "default" and o[k] == DEFAULT_FROM_REGISTRY):
                o[k] = unquote(o[k])
        options.append(o)
    return options


def read_descs():
    """Every probe_desc in bench/: id -> {field: string}, with the file it is in."""
    descs = {}
    pattern = re.compile(r"const struct probe_desc probe_(\w+) = \{(.*?)\n\};", re.S)
    field = re.compile(r"\.(\w+)\s*=\s*((?:" + STRING + r"\s*)+|[^,\n]+),")
    for path in sorted(PROBE_SOURCES.rglob("*.c")):
        for m in pattern.finditer(path.read_text()):
            d = {"file": str(path.relative_to(ROOT))}
            for f in field.finditer(m.group(2)):
                value = f.group(2).strip()
                if value.startswith('"'):
                    value = "".join(unquote(s) for s in re.findall(STRING, value))
                d[f.group(1)] = value
            descs[m.group(1)] = d
    return descs


def read_probes():
    descs = read_descs()
    probes = []
    for args in macro_lines(REGISTRY_DEF, "PROBE"):
        pid, lst = args
        if pid not in descs:
            raise ValueError(f"registry.def names probe_{pid}, which no file under bench/ declares")
        d = descs[pid]
        if d.get("name") != pid:
            raise ValueError(f"probe_{pid} in {d['file']} is named {d.get('name')!r}, not {pid!r}")
        opts = [o for o in d.get("options", "").split(",") if o]
        probes.append({"name": pid, "default": lst == "DEFAULT", "what": d.get("what", ""),
                       "options": opts, "unprofiled": d.get("unprofiled"), "file": d["file"]})
    return probes


def cell(text):
    return text.replace("|", "\\|")


def render(options, probes):
    default_list = ",".join(p["name"] for p in probes if p["default"])
    readers = {o["key"]: [p["name"] for p in probes if o["key"] in p["options"]] for o in options}
    out = [
        "# Options",
        "",
        "<!-- Generated by scripts/gen_docs.py from bench/core/options.def, bench/core/registry.def",
        "     and the probes' own declarations. Do not edit: change those, then run `make docs`. -->",
        "",
        "Options are `key=value` words: load options of the firmware, lines of `baremetric.cfg` on the",
        "boot volume (`key = value`, `#` comments), or arguments of the hosted program. A bad key or",
        "value never stops a run: it is reported and the default stays.",
        "",
        "| option | type | accepts | default | what | read by |",
        "|---|---|---|---|---|---|",
    ]
    for o in options:
        default = default_list if o["default"] == DEFAULT_FROM_REGISTRY else o["default"]
        who = ", ".join(f"`{n}`" for n in readers[o["key"]]) or "—"
        out.append(f"| `{o['key']}` | {TYPE_WORDS[o['type']]} | {cell(o['accepts'])} | `{cell(default)}` "
                   f"| {cell(o['what'])} | {who} |")
    out += [
        "",
        "Options no probe lists (—) are read by the environment (efi/, hosted/) or by the profiler,",
        "whichever probe runs.",
        "",
        "## Default probe list",
        "",
        "`probes=` runs these, in this order, unless told otherwise:",
        "",
        f"`{default_list}`",
        "",
        "## Probes",
        "",
        "Every registered probe in run order (docs/probes.md describes each one).",
        "",
        "| probe | default | what | options | profiled |",
        "|---|---|---|---|---|",
    ]
    for p in probes:
        opts = ", ".join(f"`{o}`" for o in p["options"]) or "—"
        prof = f"no: {p['unprofiled']}" if p["unprofiled"] else "yes"
        out.append(f"| `{p['name']}` | {'yes' if p['default'] else 'no'} | {cell(p['what'])} | {opts} "
                   f"| {cell(prof)} |")
    return "\n".join(out) + "\n"


def generate():
    return render(read_options(), read_probes())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="write docs/options.md")
    ap.add_argument("--check", action="store_true", help="exit 1 when docs/options.md is stale")
    args = ap.parse_args()
    text = generate()
    if args.write:
        OUT.write_text(text)
    elif args.check:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run `make docs`", file=sys.stderr)
            return 1
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
