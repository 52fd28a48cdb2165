"""Which fields of a `probe` record name the sample set, and which the boot measured or chose.

A set's identity is what it measures, as asked for: the same image with the same configuration
on the same machine writes the same identity every boot. `compare` (and anything else that
pairs sets between boots) matches sets on the identity fields only. Every field of a `probe`
record is in one of four classes:

- identity  -- names the set (probe name, unit, kernel, width, size, source, wait, what, k, ...);
- condition -- how this machine or boot ran the set (the page size the buffer got, the APIC
               mode, the eviction method, the level's geometry): not matched on, but a pair
               whose conditions differ says so;
- derived   -- chosen or computed on this boot from the configuration and calibration
               (iterations, cycle equivalents of configured times, the counters this PMU
               offers, the set number);
- measured  -- an outcome of the measurement (armed/taken, timer_hz, gaps, mlines, ...).

The table is the firmware's: bench/core/fields.def, beside the probe registry, read here from
registry.json (stream/registry.py); docs/protocol.md ("Set identity") states the same table and a
test keeps the two equal. A field the table does not know (a new firmware field) counts as
identity: it can then split a set in two (visible: "only in A / only in B", with the field
named as unclassified), whereas treating an unknown parameter as measured could pair two
different sets and report a difference that is not one.
"""

from . import registry

IDENTITY, CONDITION, DERIVED, MEASURED = "identity", "condition", "derived", "measured"
CLASSES = (IDENTITY, CONDITION, DERIVED, MEASURED)
DEFAULT_CLASS = registry.FIELDS["default_class"]  # for a field the table does not know
if tuple(registry.FIELDS["classes"]) != CLASSES:
    raise registry.RegistryError("%s: field classes %s, this harness knows %s" % (
        registry.DATA["path"], registry.FIELDS["classes"], CLASSES))

# Fields with one class in every probe's records (fields.def's ALL lines).
COMMON = {c: tuple(f) for c, f in registry.FIELDS["all"].items()}
# Per record name: the fields of its own (fields also in COMMON take COMMON's class).
PROBES = {name: {c: tuple(f) for c, f in t.items()} for name, t in registry.FIELDS["records"].items()}


def _index(table):
    out = {}
    for cls, fields in table.items():
        for f in fields:
            out[f] = cls
    return out


_COMMON = _index(COMMON)
_PER_PROBE = {name: _index(t) for name, t in PROBES.items()}


def field_class(probe, field):
    """The class of one field of a probe's records, or None when the table does not know it."""
    return _COMMON.get(field) or _PER_PROBE.get(probe, {}).get(field)


def effective_class(probe, field):
    """field_class, with DEFAULT_CLASS for a field the table does not know."""
    return field_class(probe, field) or DEFAULT_CLASS


def fields_of(s):
    """A summary set's probe-record fields (its params plus the standard ones it carries)."""
    out = dict(s.get("probe") or {})
    out.update(s.get("params") or {})
    return out


def identity(s):
    """The fields naming a summary set: {field: value} of its identity (and unknown) fields."""
    name = s.get("name")
    out = {"name": name}
    for k, v in fields_of(s).items():
        if k not in ("set",) and effective_class(name, k) == IDENTITY:
            out[k] = v
    if s.get("unit") is not None:
        out["unit"] = s.get("unit")
    return out


def key(s):
    """A hashable identity of a summary set: equal for the same set in another boot."""
    return tuple(sorted((k, str(v)) for k, v in identity(s).items()))


def conditions(s):
    """{field: value} of a set's condition fields."""
    name = s.get("name")
    return {k: v for k, v in fields_of(s).items() if field_class(name, k) == CONDITION}


def unclassified(sets):
    """Sorted (probe, field) pairs of the given summary sets that the table does not know."""
    return sorted({(s.get("name"), k) for s in sets for k in fields_of(s)
                   if field_class(s.get("name"), k) is None})


def table_rows():
    """(probe, {class: sorted fields}) per probe, the common fields first as probe '*': the
    rows of docs/protocol.md's table."""
    rows = [("*", {c: sorted(COMMON.get(c, ())) for c in CLASSES})]
    for name in sorted(PROBES):
        rows.append((name, {c: sorted(PROBES[name].get(c, ())) for c in CLASSES}))
    return rows
