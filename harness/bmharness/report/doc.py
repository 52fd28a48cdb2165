"""The report's document model and formatters: `Doc` (one block list rendered to plain text and to
markdown; report/html.py renders the same blocks to HTML) and the number formatters every section uses (`fnum`, `fbytes`, `fhz`, `num`, `ns`,
`kv_text`). This module imports nothing from the package, so any module may import it without a
cycle (tests/python/test_import_graph.py holds it to that).

The plain text can be kept to a width (the report's terminal text: TEXT_WIDTH columns):
paragraphs, list items and key/value values wrap onto indented continuation lines; a table wider
than that wraps the cells of its text columns (continuation lines sit under the cell), or, where
they would get narrower than MIN_WRAP, is split into column groups, each repeating the leading
key columns. A `width` block narrows what follows (the first screen). Markdown is not wrapped
(its reader wraps)."""

import textwrap

TEXT_WIDTH = 160     # widest terminal line of a rendered Doc
MIN_COL = 12         # a wrapped table column keeps at least this many characters
MIN_WRAP = 24        # narrower than this the cells read badly: the table is split instead
KEY_WIDTH = 40       # leading text columns repeated in each part of a split table


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


class Marked(str):
    """A cell or value text that also carries the figure it shows: `key` (its path in the JSON
    file it comes from, '/'-separated, e.g. memory/levels/0/read/gbps in headline.json) and
    `value` (the unrounded number). Text and markdown see only the string; the HTML renderer
    writes data-key and data-value attributes, so a test can read the figures back."""

    def __new__(cls, text, key, value):
        obj = super().__new__(cls, text)
        obj.key, obj.value = key, value
        return obj


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

    def width(self, width):
        """The plain text's width from here on (None: the whole text's again); markdown ignores
        it. The first screen keeps itself narrower than the rest."""
        self.blocks.append(("width", width))

    def text(self, width=None):
        """Plain text; with a width (the report's: TEXT_WIDTH) no line wider than that (see the
        module comment)."""
        whole = width = width or float("inf")
        out = []
        for b in self.blocks:
            if b[0] == "width":
                width = min(b[1], whole) if b[1] else whole
            elif b[0] == "h":
                out += ["", b[2].upper() if b[1] <= 2 else b[2],
                        ("=" if b[1] <= 1 else "-") * len(b[2])]
            elif b[0] == "kv":
                w = max(len(k) for k, _ in b[1])
                for k, v in b[1]:
                    out += _wrap(str(v), width, "  %-*s  " % (w, k), " " * (w + 4))
            elif b[0] == "table":
                out += _table_text(b[1], b[2], width)
            elif b[0] == "p":
                out += _wrap(b[1], width, "  ", "    ")
            elif b[0] == "list":
                for t in b[1]:
                    out += _wrap(t, width, "  - ", "    ")
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
                                          for rj in right_columns(b[1], b[2])) + "|")
                out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in b[2]]
                out.append("")
            elif b[0] == "p":
                out += [b[1], ""]
            elif b[0] == "list":
                out += ["- " + t for t in b[1]] + [""]
            elif b[0] == "img":
                out += ["![%s](%s)" % (b[2], b[1])]
                if b[1].endswith(".png"):  # report/figure.py writes an SVG beside every PNG
                    out[-1] += " ([SVG](%s))" % (b[1][:-4] + ".svg")
                out.append("")
        return "\n".join(out).lstrip("\n")


def _numeric(s):
    if not s:
        return False
    s = s.lstrip("±-").replace(".", "", 1).replace("%", "").replace("e-", "", 1)
    return s.isdigit()


def right_columns(headers, rows):
    """Right-align columns (except the first) whose cells are all numbers or '-'."""
    return [i > 0 and bool(rows) and all(_numeric(r[i]) or r[i] == "-" for r in rows)
            and any(_numeric(r[i]) for r in rows) for i in range(len(headers))]


def _wrap(text, width, first, rest):
    """text after the prefix `first`, continued after `rest`, in lines of at most width (a word
    longer than a line is cut)."""
    if len(first) + len(text) <= width:
        return [first + text]
    return textwrap.wrap(text, width, initial_indent=first, subsequent_indent=rest,
                         break_on_hyphens=False) or [first.rstrip()]


def _natural(headers, rows):
    return [max(len(r[i]) for r in [headers] + rows) for i in range(len(headers))]


def _fit_widths(natural, right, width):
    """Column widths whose table fits width: the text (left-aligned) columns are capped at the
    largest common width that fits, never below MIN_COL (numeric columns are never wrapped).
    None when even that does not fit."""
    def total(cap):
        return 2 + 2 * (len(natural) - 1) + sum(w if right[i] else min(w, cap)
                                                for i, w in enumerate(natural))
    cap = max(natural)
    while cap > MIN_COL and total(cap) > width:
        cap -= 1
    return [w if right[i] else min(w, cap) for i, w in enumerate(natural)] \
        if total(cap) <= width else None


def _split_columns(natural, right, width):
    """Column groups of a table too wide even with wrapped cells, each led by the key columns
    (the leading text columns, up to KEY_WIDTH characters together)."""
    keys = 1
    while (keys < len(natural) - 1 and not right[keys]
           and sum(natural[:keys + 1]) + 2 * keys <= KEY_WIDTH):
        keys += 1
    lead = 2 + sum(natural[:keys]) + 2 * keys
    parts, cur, used = [], [], lead
    for i in range(keys, len(natural)):
        w = natural[i] if right[i] else min(natural[i], 2 * MIN_WRAP)  # longer text wraps
        if cur and used + w + 2 > width:
            parts.append(cur)
            cur, used = [], lead
        cur.append(i)
        used += w + 2
    parts.append(cur)
    return [list(range(keys)) + part for part in parts]


def _table_text(headers, rows, width):
    """A table's lines: wrapped cells where that fits width, else split into column groups."""
    right = right_columns(headers, rows)
    natural = _natural(headers, rows)
    widths = _fit_widths(natural, right, width)
    if widths is None or any(w < min(n, MIN_WRAP) for w, n in zip(widths, natural)):
        groups = _split_columns(natural, right, width)
        if len(groups) > 1:
            out = []
            for k, cols in enumerate(groups):
                if k:
                    out.append("  (continued: %s)" % ", ".join(headers[i] for i in cols))
                out += _table_text([headers[i] for i in cols],
                                   [[r[i] for i in cols] for r in rows], width)
            return out
        widths = widths or natural
    out = []

    def fmt(r):
        cells = [textwrap.wrap(c, w, break_on_hyphens=False) or [""] if len(c) > w else [c]
                 for c, w in zip(r, widths)]
        for k in range(max(len(c) for c in cells)):
            out.append("  " + "  ".join(
                (c[k] if k < len(c) else "").rjust(w) if rj else
                (c[k] if k < len(c) else "").ljust(w)
                for c, w, rj in zip(cells, widths, right)).rstrip())
    fmt(headers)
    out.append("  " + "  ".join("-" * w for w in widths))
    for r in rows:
        fmt(r)
    return out
