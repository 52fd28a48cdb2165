"""A JSON Schema (draft 2020-12) checker for the OCPTV output schema, standard library only: the
keywords the OCPTV 2.0 schema files use (tests/python/data/ocptv_schema, vendored from
opencomputeproject/ocp-diag-core) and no others -- $ref (by $id and to #/$defs), type, properties,
required, additionalProperties, unevaluatedProperties (properties evaluated by the schema itself
and by the oneOf branch that matched), oneOf, enum, const, minimum, items and the date-time
format (RFC 3339). A keyword it does not know fails loudly (a newer schema must not pass
unchecked).

`errors(obj)` gives the reasons one output line breaks the root schema (empty: valid).
"""

import json
import os
import re

SCHEMA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "ocptv_schema")
ID_BASE = "https://github.com"
KNOWN = {"$schema", "$id", "$ref", "$defs", "$comment", "title", "description", "type", "properties",
         "required", "additionalProperties", "unevaluatedProperties", "oneOf", "enum", "const",
         "minimum", "items", "format"}
DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
TYPES = {"string": str, "object": dict, "array": list, "boolean": bool}


def load():
    """{$id: schema} of every vendored file."""
    out = {}
    for name in sorted(os.listdir(SCHEMA_DIR)):
        if name.endswith(".json"):
            with open(os.path.join(SCHEMA_DIR, name)) as fh:
                s = json.load(fh)
            out[s["$id"]] = s
    return out


SCHEMAS = load()
ROOT = SCHEMAS[ID_BASE + "/opencomputeproject/ocp-diag-core/output"]


def _type_ok(value, t):
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, TYPES[t])


def _resolve(ref, doc):
    if ref.startswith("#/"):
        node = doc
        for part in ref[2:].split("/"):
            node = node[part]
        return node, doc
    target = SCHEMAS[ID_BASE + ref]
    return target, target


def check(value, schema, doc, path="$"):
    """(errors, evaluated property names) of value against schema (doc: its file, for #/$defs)."""
    unknown = set(schema) - KNOWN
    if unknown:
        raise ValueError("schema keyword(s) this checker does not know: %s" % sorted(unknown))
    errs, seen = [], set()
    if "$ref" in schema:
        target, tdoc = _resolve(schema["$ref"], doc)
        e, s = check(value, target, tdoc, path)
        errs += e
        seen |= s
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_type_ok(value, t) for t in types):
            return errs + ["%s: %r is not of type %s" % (path, value, types)], seen
    if "const" in schema and value != schema["const"]:
        errs.append("%s: %r is not %r" % (path, value, schema["const"]))
    if "enum" in schema and value not in schema["enum"]:
        errs.append("%s: %r is not one of %s" % (path, value, schema["enum"]))
    if "minimum" in schema and isinstance(value, (int, float)) and value < schema["minimum"]:
        errs.append("%s: %r is below %r" % (path, value, schema["minimum"]))
    if schema.get("format") == "date-time" and isinstance(value, str) and not DATE_TIME.match(value):
        errs.append("%s: %r is not an RFC 3339 date-time" % (path, value))
    if "items" in schema and isinstance(value, list):
        for i, item in enumerate(value):
            errs += check(item, schema["items"], doc, "%s[%d]" % (path, i))[0]
    if isinstance(value, dict):
        e, s = _object(value, schema, doc, path)
        errs += e
        seen |= s
    return errs, seen


def _object(value, schema, doc, path):
    errs, seen = [], set()
    props = schema.get("properties", {})
    for key in schema.get("required", []):
        if key not in value:
            errs.append("%s: required property %r missing" % (path, key))
    for key, sub in props.items():
        if key in value:
            errs += check(value[key], sub, doc, "%s.%s" % (path, key))[0]
            seen.add(key)
    if "oneOf" in schema:
        passing = []
        for branch in schema["oneOf"]:
            e, s = check(value, branch, doc, path)
            if not e:
                passing.append(s)
        if len(passing) != 1:
            errs.append("%s: matches %d of the oneOf branches, not exactly one" % (path, len(passing)))
        else:
            seen |= passing[0]
    if schema.get("additionalProperties") is False:
        extra = set(value) - set(props)
        if extra:
            errs.append("%s: properties not allowed: %s" % (path, sorted(extra)))
    if schema.get("unevaluatedProperties") is False:
        extra = set(value) - seen
        if extra:
            errs.append("%s: unevaluated properties: %s" % (path, sorted(extra)))
    return errs, seen


def errors(obj):
    """Why one OCPTV output line (a parsed dict) breaks the 2.0 root schema; [] when valid."""
    return check(obj, ROOT, ROOT)[0]
