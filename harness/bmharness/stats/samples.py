"""The one reader of the raw sample files (raw/<set>.txt, written by stream/parse.py) and the
rule that decides which samples the statistics use.

A raw file is `# key: value` header lines and then one integer sample per line, in the order
taken. A sample at or above WRAP_LIMIT (2^63) is a negative difference seen as unsigned (a clock
or counter read that went backwards, or wrapped): the files keep it, the statistics leave it out
and the summary counts it (`wrapped`).
"""

import os

from .describe import per_op

WRAP_LIMIT = 1 << 63


def usable(values):
    """The samples the statistics use: those below WRAP_LIMIT (the raw files keep them all)."""
    return [v for v in values if v < WRAP_LIMIT]


def read_raw(path):
    """Read a raw/*.txt file back: (header dict, list of int samples). OSError when it cannot be
    read, ValueError when a sample line is not an integer."""
    header, values = {}, []
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if line.startswith("#"):
                key, sep, value = line[1:].partition(":")
                if sep:
                    header[key.strip()] = value.strip()
            elif line:
                values.append(int(line))
    return header, values


def set_samples(out_dir, s):
    """A summary set's samples from its raw file under out_dir, all of them in the order taken,
    or None when there is no such file or it cannot be read."""
    if not out_dir or not s.get("raw_file"):
        return None
    try:
        return read_raw(os.path.join(out_dir, s["raw_file"]))[1]
    except (OSError, ValueError):
        return None


def raw_per_op(out_dir, s):
    """A summary set's per-operation values from its raw file under out_dir, from the samples the
    statistics use (usable), or None when there is no such file, it cannot be read or it holds
    none."""
    raw = set_samples(out_dir, s)
    if raw is None:
        return None
    return per_op(usable(raw), s.get("overhead") or 0, s.get("iters") or 1) or None
