"""Re-write real record streams for the tests: cut a small excerpt out of a real serial log (the
fixtures under data/), and make a "second boot" of the same image on the same machine by
changing every measured and derived value of it (set_identity's classes).

    /usr/bin/python3 tests/python/restream.py LOG OUT [PER_PROBE [MAX_SAMPLES]]

writes an excerpt of LOG: every record before the first probe, then per probe name its first
PER_PROBE sets (6) with at most MAX_SAMPLES samples each (16), counters left out; new sequence
numbers and CRCs, and an `end` that counts them.
"""

import random
import re
import sys

from bmharness.stream import protocol, set_identity

_NUM = re.compile(r"-?[0-9]+\Z")


def read_records(text):
    """[(type, fields, version)] of every valid record of a log's text, in order."""
    out = []
    for line in text.splitlines():
        for cand in protocol.split_candidates(line):
            try:
                r = protocol.parse_candidate(cand)
            except protocol.RecordError:
                continue
            out.append((r["type"], dict(r["fields"]), r["version"]))
    return out


def excerpt(records, per_probe=6, max_samples=16):
    """The records before the first probe, then per probe name its first per_probe sets cut to
    max_samples samples; ctr records and the counter declaration fields dropped."""
    out, kept, count, taken = [], {}, {}, {}
    for rtype, f, ver in records:
        if rtype in ("probe",):
            name = f.get("name")
            if count.get(name, 0) >= per_probe:
                continue
            count[name] = count.get(name, 0) + 1
            n = min(int(f.get("n", 0)), max_samples)
            kept[f.get("set")] = n
            f = {k: v for k, v in f.items() if k not in ("ctr_set", "ctr_events", "ctr_passes",
                                                         "ctr_refused")}
            f["n"] = str(n)
            out.append((rtype, f, ver))
        elif rtype == "samples":
            sid = f.get("set")
            if sid not in kept:
                continue
            i, want = int(f["i"]), kept[sid]
            if i >= want:
                continue
            vals = (protocol.decode_values_v2(f["v"]) if ver == 2
                    else protocol.decode_values(f["v"]))[:want - i]
            taken[sid] = taken.get(sid, 0) + len(vals)
            out.append((rtype, dict(f, n=str(len(vals)),
                                    v=protocol.encode_values(vals, version=ver)), ver))
        elif rtype in ("ctr", "prof", "prof_data"):
            continue
        elif rtype == "skip" and f.get("set") not in (None,) and f.get("set") not in kept:
            continue
        else:
            out.append((rtype, f, ver))
    return out


def _bump(value, r, lo=0.02, hi=0.09):
    """An integer field moved by 2-9% (at least 1), in a random direction."""
    x = int(value)
    d = max(1, int(abs(x) * r.uniform(lo, hi)))
    return str(x + d if x == 0 or r.random() < 0.5 else x - d if x - d >= 0 else x + d)


def perturb(records, seed=7):
    """Another boot of the same image on the same machine: every measured and derived numeric
    field of every probe record changed (the set number excepted: sets keep their order), every
    sample scaled by a few percent, the clock's rate moved by a few ppm."""
    r = random.Random(seed)
    out = []
    for rtype, f, ver in records:
        f = dict(f)
        if rtype == "probe":
            name = f.get("name")
            for k, v in list(f.items()):
                cls = set_identity.effective_class(name, k)
                if k in ("set", "n") or cls not in (set_identity.MEASURED, set_identity.DERIVED):
                    continue
                if k in ("iters", "tsc_hz") and _NUM.match(v):
                    f[k] = str(int(v) + (1 if k == "iters" else r.randint(1, 9000)))
                elif _NUM.match(v):
                    f[k] = _bump(v, r)
        elif rtype == "samples":
            vals = (protocol.decode_values_v2(f["v"]) if ver == 2
                    else protocol.decode_values(f["v"]))
            scale = r.uniform(0.97, 1.03)
            f["v"] = protocol.encode_values([int(v * scale) for v in vals], version=ver)
        elif rtype == "plat" and f.get("kind") == "tsc" and _NUM.match(f.get("hz", "")):
            f["hz"] = str(int(f["hz"]) + r.randint(1, 9000))
        out.append((rtype, f, ver))
    return out


def write(records, ending="\r\n"):
    """The records as log text with new sequence numbers and CRCs; `end records=` corrected."""
    lines = []
    for seq, (rtype, f, ver) in enumerate(records):
        if rtype == "end":
            f = dict(f, records=str(seq))
        lines.append(protocol.encode_record(seq, rtype, f, version=ver))
    return "".join(line + ending for line in lines)


def main(argv):
    src, dst = argv[1], argv[2]
    per_probe = int(argv[3]) if len(argv) > 3 else 6
    max_samples = int(argv[4]) if len(argv) > 4 else 16
    with open(src, errors="replace") as fh:
        recs = read_records(fh.read())
    with open(dst, "w", newline="") as fh:
        fh.write(write(excerpt(recs, per_probe, max_samples)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
