"""The firmware's registry as the harness knows it: registry.json, made from the C sources.

scripts/gen_registry.py writes it from bench/core/registry.def (the probes), options.def (the
options, their types, ranges and defaults), fields.def (each probe-record field's class) and the
record types the C code emits; every build installs it as bmharness/registry.json, the committed
copy a fresh clone (or `pip install ./harness`) reads without a firmware build. The harness keeps
no copy of its own: runconfig.py checks `--set` with it, set_identity.py classes fields with it,
parse.py knows the record types from it. tests/python/test_registry_json.py fails when the
committed file is not what the generator makes from the sources.

BAREMETRIC_REGISTRY=PATH reads another registry.json (a test's tree, a newer build's).
"""

import json
import os
import sys

ENV = "BAREMETRIC_REGISTRY"
PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "registry.json")
FORMAT = 1  # the layout this module reads (gen_registry.py FORMAT)


class RegistryError(RuntimeError):
    pass


def load(path=None):
    """The registry dict of path (default: $BAREMETRIC_REGISTRY, else the package's copy)."""
    path = path or os.environ.get(ENV) or PATH
    try:
        with open(path) as fh:
            data = json.load(fh)
    except (OSError, ValueError) as exc:
        raise RegistryError("cannot read the probe registry %s (%s): run `make registry` in the "
                            "source tree" % (path, exc))
    if data.get("format") != FORMAT:
        raise RegistryError("%s: registry format %r, this harness reads %d (run `make registry`)"
                            % (path, data.get("format"), FORMAT))
    data["path"] = path
    return data


try:
    DATA = load()
except RegistryError as _exc:  # a broken install or tree: say what to do, not a traceback
    sys.stderr.write("baremetric: error: %s\n" % _exc)
    raise SystemExit(2)
PROBES = tuple(p["name"] for p in DATA["probes"])
DEFAULT_PROBES = tuple(DATA["default_probes"])
OPTIONS = tuple(DATA["options"])  # in options.def's order: the `cfg` record's
RECORD_TYPES = frozenset(DATA["record_types"])
SET_NAMES = tuple(DATA["set_names"])
LIST_MAX = DATA["list_max"]
FIELDS = DATA["fields"]


def option(key):
    """The options.def entry of key (a dict), or None."""
    for o in OPTIONS:
        if o["key"] == key:
            return o
    return None


def default(key):
    """An option's default as a user writes it (the probes= default: the registry's list)."""
    o = option(key)
    if o is None:
        return None
    return ",".join(DEFAULT_PROBES) if o["default_from_registry"] else o["default"]
