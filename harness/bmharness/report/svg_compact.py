"""Fewer bytes for matplotlib's SVG figures, the same picture: figure.save passes every SVG it
writes through compact(), and report.html inlines those files, so their size is the page's.

What matplotlib writes and what is kept of it:
- coordinates with 6 decimals (points, 1/72 in): DIGITS decimals are kept in path data and
  marker positions, 0.01 pt, far below a pixel at any zoom a page or a paper is read at (text
  keeps its positions); path data loses its whitespace around the commands, a line along an
  axis is written as H or V (histogram steps, CDF steps, the noise timeline's and error bars'
  vertical lines), a repeated command without its letter
  ("M 1.234567 2 \\nL 1.234567 4 \\nL 3 4" -> "M1.23 2V4H3");
- a marker as one <use> per point, each with the same style: a group whose <use> elements all
  share one style of inherited paint properties gets that style once, on the group; likewise a
  group of paths (error bars: a LineCollection) that share their clip-path and style;
- the elements' indentation;
- ten font names on every text (svg.fonttype 'none', text as text): FONTS, set by figure.save
  for the SVG only.
Still vector: every path, marker and text element stays, none is rasterised.
"""

import re

DIGITS = 2
FONTS = ["DejaVu Sans"]  # the font matplotlib ships; the SVG adds the generic sans-serif
# Paint properties SVG inherits (opacity is not: on a group it would blend the markers as one)
INHERITED = ("fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity",
             "stroke-linecap", "stroke-linejoin", "stroke-dasharray", "stroke-dashoffset",
             "stroke-miterlimit")

_NUMBER = re.compile(r"-?\d+\.\d+")
_PATH_DATA = re.compile(r'(\sd=")([^"]*)"')
# a marker's position (text keeps matplotlib's: a browser snaps glyphs to pixels, and 0.005 pt
# moved a rotated label by a pixel)
_USE_XY = re.compile(r'(<use [^>]*?\sx=")([^"]*)("\s+y=")([^"]*)"')
_USE_GROUP = re.compile(r'(<g(?: clip-path="[^"]*")?)>((?:\s*<use [^>]*/>)+)(\s*</g>)')
_PATH_GROUP = re.compile(r'(<g id="[^"]*")>((?:\s*<path d="[^"]*"[^>]*/>)+)(\s*</g>)')
_STYLE = re.compile(r' style="([^"]*)"')


def _round(m):
    text = ("%.*f" % (DIGITS, float(m.group(0)))).rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def short_path(d):
    """Path data (absolute M, L, Q, C and z, as matplotlib writes it) at DIGITS decimals, a line
    along an axis as H or V, a command repeated without its letter."""
    out, last, cur, start = [], None, (None, None), (None, None)
    tokens = re.findall(r"[A-Za-z]|-?\d+(?:\.\d+)?", _NUMBER.sub(_round, d))
    i = 0
    while i < len(tokens):
        cmd = tokens[i]
        arity = {"M": 2, "L": 2, "Q": 4, "C": 6}.get(cmd, 0)
        args = tokens[i + 1:i + 1 + arity]
        i += 1 + arity
        if cmd in "zZ":
            cur, letter = start, cmd
        elif len(args) != arity or not arity:
            return " ".join(tokens)  # not matplotlib's commands: left as it is, rounded
        else:
            letter = cmd
            if cmd == "L" and args[0] == cur[0]:
                letter, args = "V", args[1:]
            elif cmd == "L" and args[1] == cur[1]:
                letter, args = "H", args[:1]
            cur = (tokens[i - 2], tokens[i - 1])
            start = cur if cmd == "M" else start
        # a command repeated needs no letter, but M repeated would mean L
        sep = " " if letter == last and letter not in "MzZ" else letter
        out.append(sep + " ".join(args))
        last = letter
    return "".join(out)


def _path_data(m):
    return m.group(1) + short_path(m.group(2)) + '"'


def _inherited_only(style):
    names = [decl.split(":")[0].strip() for decl in style.split(";") if decl.strip()]
    return bool(names) and all(n in INHERITED for n in names)


def _hoist(m):
    """One <g> of <use> markers: their common style on the group, when they share one."""
    uses = re.findall(r"<use [^>]*/>", m.group(2))
    styles = {(_STYLE.search(u) or [None, None])[1] for u in uses}
    if len(uses) < 2 or len(styles) != 1:
        return m.group(0)
    style = styles.pop()
    if style is None or not _inherited_only(style):
        return m.group(0)
    body = m.group(2).replace(' style="%s"' % style, "")
    return '%s style="%s">%s%s' % (m.group(1), style, body, m.group(3))


def _hoist_paths(m):
    """One <g> of paths that share their clip-path and style: both once, on the group."""
    attrs = set(re.findall(r'<path d="[^"]*"( clip-path="[^"]*" style="[^"]*")/>', m.group(2)))
    n = m.group(2).count("<path ")
    if n < 2 or len(attrs) != 1:
        return m.group(0)
    common = attrs.pop()
    if not _inherited_only(_STYLE.search(common).group(1)):
        return m.group(0)
    return "%s%s>%s%s" % (m.group(1), common, m.group(2).replace(common, ""), m.group(3))


def compact(svg):
    """The SVG text with the module docstring's reductions."""
    svg = _PATH_DATA.sub(_path_data, svg)
    svg = _USE_XY.sub(lambda m: m.group(1) + _NUMBER.sub(_round, m.group(2)) + m.group(3)
                      + _NUMBER.sub(_round, m.group(4)) + '"', svg)
    svg = _USE_GROUP.sub(_hoist, svg)
    svg = _PATH_GROUP.sub(_hoist_paths, svg)
    # between elements only: a text's content is on its element's line and keeps its spaces
    return re.sub(r">\n[ \t]+<", ">\n<", svg)
