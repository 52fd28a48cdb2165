#!/usr/bin/env python3
"""registry.json: what the firmware's C sources say the harness must know, in one file.

The harness (harness/bmharness/stream/registry.py) reads this instead of keeping copies:
  probes        bench/core/registry.def and each probe's struct probe_desc (gen_docs.read_probes)
  options       bench/core/options.def, with the name tables of bench/core/options.c and the
                constants of bench/core/options.h and lib/config.h resolved to values
  record_types  every record type the C sources emit (emit_start("x"), emit_values("x", ...))
  set_names     the `name`s probe records carry (registry ids and probe_declare_set literals)
  fields        bench/core/fields.def: each probe-record field's class

  scripts/gen_registry.py OUT      write OUT (the build's build/gen/registry.json)
  scripts/gen_registry.py --check  exit 1 when harness/bmharness/registry.json is stale
  scripts/gen_registry.py --write  write harness/bmharness/registry.json

`make registry` (part of every build: make unit, make hosted, make) writes build/gen/registry.json and
installs it as harness/bmharness/registry.json when it differs; the committed copy is what a fresh
clone's harness reads without a build, and tests/python/test_registry_json.py fails when it is not
what this script makes from the sources. ROOT (--root) lets a test run it on a copy of the tree.
"""
import argparse
import importlib.util
import json
import pathlib
import re
import sys


def _load_gen_docs():
    """scripts/gen_docs.py (the .def readers docs/options.md is made with), loaded by its path."""
    spec = importlib.util.spec_from_file_location(
        "gen_docs", pathlib.Path(__file__).resolve().parent / "gen_docs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gen_docs = _load_gen_docs()

FORMAT = 1
CLASSES = ("identity", "condition", "derived", "measured")
DEFAULT_CLASS = "identity"  # a field no FIELDS line names (fields.def)
ALL_RECORDS = "ALL"
COMMITTED = "harness/bmharness/registry.json"
# Headers whose `#define NAME value` may stand for an option's min or max in options.def.
CONSTANT_HEADERS = ("bench/core/options.h", "lib/config.h")
LIMITS = {"UINT64_MAX": (1 << 64) - 1, "UINT32_MAX": (1 << 32) - 1, "UINT16_MAX": (1 << 16) - 1}
EMIT_CALL = re.compile(r'\bemit_(?:start|values)\(\s*"([a-z_]+)"')
SET_CALL = re.compile(r"\bprobe_declare_set(?:_unit)?\(")
NAME_TABLE = re.compile(r"const char \*const (\w+)\[\] = \{(.*?)\};", re.S)
DEFINE = re.compile(r"^#define (\w+) +(\S+)", re.M)
NUMBER = re.compile(r"(0x[0-9a-fA-F]+|[0-9]+)(?:ull|ULL|ul|UL|u|U)?\Z")


def use_root(root):
    """Point gen_docs' readers (and this script) at another tree: a test's copy."""
    root = pathlib.Path(root).resolve()
    gen_docs.ROOT = root
    gen_docs.OPTIONS_DEF = root / "bench/core/options.def"
    gen_docs.REGISTRY_DEF = root / "bench/core/registry.def"
    gen_docs.PROBE_SOURCES = root / "bench"
    return root


def c_sources(root):
    """The C files of the firmware's and the hosted program's layers (not the tests)."""
    return sorted(p for d in ("lib", "arch", "drivers", "bench", "efi", "hosted")
                  for p in (root / d).rglob("*.c"))


def constants(root):
    out = dict(LIMITS)
    for h in CONSTANT_HEADERS:
        for name, value in DEFINE.findall((root / h).read_text()):
            out[name] = value
    return out


def number(expr, consts):
    """An option bound of options.def as an int: a literal, or a constant named in a header."""
    seen = set()
    while isinstance(expr, str) and expr in consts and expr not in seen:
        seen.add(expr)
        expr = consts[expr]
    if isinstance(expr, int):
        return expr
    m = NUMBER.match(expr.strip())
    if not m:
        raise ValueError(f"options.def: cannot read the bound {expr!r} (a literal or a #define "
                         f"of {', '.join(CONSTANT_HEADERS)})")
    return int(m.group(1), 0)


def name_tables(root):
    """{table: [names]} of bench/core/options.c's NULL-terminated name arrays."""
    text = (root / "bench/core/options.c").read_text()
    out = {}
    for name, body in NAME_TABLE.findall(text):
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        out[name] = [gen_docs.unquote(s) for s in re.findall(gen_docs.STRING, body)]
    return out


def read_options(root):
    consts, tables = constants(root), name_tables(root)
    out = []
    for o in gen_docs.read_options():
        names = None
        if o["names"] != "NULL":
            if o["names"] not in tables:
                raise ValueError(f"options.def: {o['key']}: no name table {o['names']} in options.c")
            names = tables[o["names"]]
        out.append({"key": o["key"], "type": o["type"], "min": number(o["min"], consts),
                    "max": number(o["max"], consts), "names": names,
                    "default": None if o["default"] == gen_docs.DEFAULT_FROM_REGISTRY else o["default"],
                    "default_from_registry": o["default"] == gen_docs.DEFAULT_FROM_REGISTRY,
                    "accepts": o["accepts"], "what": o["what"]})
    return out, int(number("CONFIG_LIST_MAX", consts))


def emitted(root):
    """(record types, probe-record set names given as literals) of the C sources."""
    types, sets = set(), set()
    for path in c_sources(root):
        text = path.read_text()
        types.update(EMIT_CALL.findall(text))
        for m in SET_CALL.finditer(text):
            name = call_args(text, m.end())[2:3]  # (env, &r, name, ...)
            if name and re.fullmatch(gen_docs.STRING, name[0]):
                sets.add(gen_docs.unquote(name[0]))
    return sorted(types), sets


def call_args(text, start):
    """The arguments of the call whose '(' ends just before start."""
    depth, i = 1, start
    while i < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    return gen_docs.split_args(text[start:i - 1])


def read_fields(root, set_names):
    """fields.def as {"all": {class: [fields]}, "records": {name: {class: [fields]}}}; refuses a
    record no probe emits, a class not in CLASSES and a field in two classes of one record."""
    common, records = {}, {}
    for args in gen_docs.macro_lines(root / "bench/core/fields.def", "FIELDS"):
        if len(args) != 3:
            raise ValueError(f"fields.def: {args}: want FIELDS(record, class, \"fields\")")
        rec, cls, names = args[0], args[1].lower(), gen_docs.unquote(args[2]).split()
        if cls not in CLASSES:
            raise ValueError(f"fields.def: {rec}: class {args[1]} is not one of "
                             f"{', '.join(c.upper() for c in CLASSES)}")
        if rec != ALL_RECORDS and rec not in set_names:
            raise ValueError(f"fields.def: no probe emits records named {rec!r}")
        table = common if rec == ALL_RECORDS else records.setdefault(rec, {})
        table.setdefault(cls, []).extend(names)
    for rec, table in [(ALL_RECORDS, common)] + sorted(records.items()):
        flat = [f for fs in table.values() for f in fs]
        twice = sorted({f for f in flat if flat.count(f) > 1})
        shared = sorted(set(flat) & {f for fs in common.values() for f in fs}) if table is not common else []
        if twice or shared:
            raise ValueError(f"fields.def: {rec}: fields classed twice: {twice + shared}")
    return {"classes": list(CLASSES), "default_class": DEFAULT_CLASS, "all": common,
            "records": records}


def generate(root=None):
    """The registry as a dict (the JSON's content)."""
    root = use_root(root) if root else gen_docs.ROOT
    probes = gen_docs.read_probes()
    options, list_max = read_options(root)
    types, literal_sets = emitted(root)
    set_names = sorted({p["name"] for p in probes} | literal_sets)
    return {
        "format": FORMAT,
        "generated_by": "scripts/gen_registry.py from bench/core/registry.def, options.def, "
                        "fields.def and the C emitters; do not edit (make registry)",
        "probes": [{"name": p["name"], "default": p["default"], "options": p["options"],
                    "what": p["what"], "file": p["file"]} for p in probes],
        "default_probes": [p["name"] for p in probes if p["default"]],
        "options": options,
        "list_max": list_max,
        "record_types": types,
        "set_names": set_names,
        "fields": read_fields(root, set(set_names)),
    }


def text(root=None):
    return json.dumps(generate(root), indent=1, sort_keys=False) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?", help="write the registry here")
    ap.add_argument("--root", help="the source tree (default: this script's)")
    ap.add_argument("--write", action="store_true", help="write " + COMMITTED)
    ap.add_argument("--check", action="store_true", help="exit 1 when %s is stale" % COMMITTED)
    args = ap.parse_args(argv)
    root = pathlib.Path(args.root).resolve() if args.root else gen_docs.ROOT
    try:
        made = text(root)
    except (ValueError, OSError) as exc:
        print("gen_registry: %s" % exc, file=sys.stderr)
        return 2
    committed = root / COMMITTED
    if args.check:
        if not committed.exists() or committed.read_text() != made:
            print("%s is stale: run `make registry`" % COMMITTED, file=sys.stderr)
            return 1
        return 0
    targets = ([pathlib.Path(args.out)] if args.out else []) + ([committed] if args.write else [])
    if not targets:
        sys.stdout.write(made)
    for t in targets:
        t.parent.mkdir(parents=True, exist_ok=True)
        if not t.exists() or t.read_text() != made:
            t.write_text(made)
    return 0


if __name__ == "__main__":
    sys.exit(main())
