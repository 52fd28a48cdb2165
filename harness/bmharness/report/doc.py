"""The report's document model and formatters: `Doc` (one block list rendered to plain text and to
markdown) and the number formatters every section uses (`fnum`, `fbytes`, `fhz`, `num`, `ns`,
`kv_text`). This module imports nothing from the package, so any module may import it without a
cycle (tests/python/test_import_graph.py holds it to that)."""


def fnum(x, unit=""):
    """Compact number: ints as is, floats with 3-4 significant digits; None -> '-'."""
    if x is None or x == "":
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return "%d%s" % (x, unit)
    if isinstance(x, float):
        a = abs(x)
        fmt = ("%.0f" if a >= 1000 else "%.1f" if a >= 100 else "%.2f" if a >= 10 else
               "%.3f" if a >= 0.1 or a == 0 else "%.3g")
        return (fmt % x) + unit
    return str(x) + unit


def num(x):
    """x as a float if it is a number (the firmware may send anything), else None."""
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def ns(cycles, hz):
    """cycles at hz in nanoseconds; None when either is not a number (or hz is 0)."""
    return cycles / hz * 1e9 if num(cycles) is not None and num(hz) else None


def fbytes(n):
    if num(n) is None:
        return fnum(n)
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            v = n / scale
            return ("%d %s" % (v, unit)) if v == int(v) else ("%.1f %s" % (v, unit))
    return "%d B" % n


def fhz(hz):
    return "%.6f GHz" % (hz / 1e9) if num(hz) else fnum(hz)


def kv_text(d, skip=()):
    return " ".join("%s=%s" % (k, fnum(v)) for k, v in d.items() if k not in skip)


class Doc:
    """Blocks: ('h', level, title), ('kv', [(k, v)]), ('table', headers, rows), ('p', text),
    ('list', [text]), ('img', path, caption)."""

    def __init__(self):
        self.blocks = []

    def h(self, title, level=2):
        self.blocks.append(("h", level, title))

    def kv(self, pairs):
        pairs = [(k, v) for k, v in pairs if v is not None]
        if pairs and self.blocks and self.blocks[-1][0] == "kv":
            self.blocks[-1][1].extend(pairs)  # one aligned list, not several
        elif pairs:
            self.blocks.append(("kv", pairs))

    def table(self, headers, rows):
        self.blocks.append(("table", headers, [[fnum(c) if not isinstance(c, str) else c
                                                for c in r] for r in rows]))

    def p(self, text):
        self.blocks.append(("p", text))

    def list(self, items):
        if items:
            self.blocks.append(("list", list(items)))

    def img(self, path, caption):
        self.blocks.append(("img", path, caption))

    def text(self):
        out = []
        for b in self.blocks:
            if b[0] == "h":
                out += ["", b[2].upper() if b[1] <= 2 else b[2],
                        ("=" if b[1] <= 1 else "-") * len(b[2])]
            elif b[0] == "kv":
                w = max(len(k) for k, _ in b[1])
                out += ["  %-*s  %s" % (w, k, v) for k, v in b[1]]
            elif b[0] == "table":
                cols = [b[1]] + b[2]
                widths = [max(len(r[i]) for r in cols) for i in range(len(b[1]))]
                right = _right_columns(b[1], b[2])

                def fmt(r):
                    return "  " + "  ".join(c.rjust(w) if rj else c.ljust(w)
                                            for c, w, rj in zip(r, widths, right)).rstrip()
                out.append(fmt(b[1]))
                out.append("  " + "  ".join("-" * w for w in widths))
                out += [fmt(r) for r in b[2]]
            elif b[0] == "p":
                out.append("  " + b[1])
            elif b[0] == "list":
                out += ["  - " + t for t in b[1]]
            elif b[0] == "img":
                out.append("  [%s: %s]" % (b[2], b[1]))
        return "\n".join(out).lstrip("\n") + "\n"

    def markdown(self):
        out = []

        def esc(s):
            return str(s).replace("|", "\\|")
        for b in self.blocks:
            if b[0] == "h":
                out += ["", "#" * b[1] + " " + b[2], ""]
            elif b[0] == "kv":
                out += ["- **%s**: %s" % (k, esc(v)) for k, v in b[1]] + [""]
            elif b[0] == "table":
                out.append("| " + " | ".join(esc(h) for h in b[1]) + " |")
                out.append("|" + "|".join("---:" if rj else "---"
                                          for rj in _right_columns(b[1], b[2])) + "|")
                out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in b[2]]
                out.append("")
            elif b[0] == "p":
                out += [b[1], ""]
            elif b[0] == "list":
                out += ["- " + t for t in b[1]] + [""]
            elif b[0] == "img":
                out += ["![%s](%s)" % (b[2], b[1]), ""]
        return "\n".join(out).lstrip("\n")


def _numeric(s):
    if not s:
        return False
    s = s.lstrip("±-").replace(".", "", 1).replace("%", "").replace("e-", "", 1)
    return s.isdigit()


def _right_columns(headers, rows):
    """Right-align columns (except the first) whose cells are all numbers or '-'."""
    return [i > 0 and bool(rows) and all(_numeric(r[i]) or r[i] == "-" for r in rows)
            and any(_numeric(r[i]) for r in rows) for i in range(len(headers))]
