"""The report as one self-contained HTML page (DIR/report.html, `report --html`), rendered from the
same Doc blocks as the terminal text and report.md, so all three say the same.

Self-contained: the CSS and the few lines of JavaScript are inline, and each figure is its SVG copy
(figure.save writes one beside every PNG) inlined; a figure without one (no matplotlib) is named, not linked. Nothing
refers to another file or to the network, so the page works offline and can be mailed alone.

Layout: the first section (the first screen, "At a glance") stays open at the top; the report's
title and header follow; every further level-2 section is a <details> element (open; buttons fold
them all). Tables sort by a click on a header (numbers numerically, '-' last); numeric columns
(doc.right_columns) are right-aligned. A Marked cell or value (doc.Marked) gets data-key and
data-value attributes: the headline figures can be read back from the page and compared with
headline.json. Errors a script raises are written into <pre id="js-errors"> (a test reads them in
the DOM a headless browser dumps). Every text is escaped with html.escape.
"""

import html
import json
import os
import re

from .doc import Marked, right_columns

CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1em 2em; color: #222; max-width: 110em; }
h1 { font-size: 1.5em; margin: 0.6em 0 0.3em; }
h2 { font-size: 1.2em; display: inline; }
h3 { font-size: 1.05em; margin: 0.8em 0 0.3em; }
section.glance { border: 2px solid #4477aa; border-radius: 6px; padding: 0 1em 0.6em; }
details { border-top: 1px solid #ccc; padding: 0.3em 0; }
summary { cursor: pointer; padding: 0.2em 0; }
table { border-collapse: collapse; margin: 0.4em 0 0.8em; }
div.wide { overflow-x: auto; }  /* a wide table scrolls, not the page */
th, td { padding: 0.15em 0.6em; border-bottom: 1px solid #e4e4e4; vertical-align: top;
         text-align: left; }
table.sortable thead th { cursor: pointer; background: #f2f2f2; white-space: nowrap; }
table.sortable thead th[aria-sort=ascending]::after { content: " \\25b2"; }
table.sortable thead th[aria-sort=descending]::after { content: " \\25bc"; }
table.kv th { font-weight: 600; white-space: nowrap; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.failed { color: #b00020; font-weight: 600; }
figure { margin: 0.5em 0; }
figure svg { max-width: 100%; height: auto; }
figcaption, .nofig { color: #555; font-style: italic; }
#js-errors:empty { display: none; }
#js-errors { color: #b00020; }
"""

# First in <head>: records the errors of every later script (and failed loads) in the page.
ERRORS_JS = """
window.bm_errors = [];
window.addEventListener("error", function (e) {
  window.bm_errors.push(e.message || ("failed to load " + (e.target && e.target.tagName)));
  var pre = document.getElementById("js-errors");
  if (pre) pre.textContent = window.bm_errors.join("\\n");
}, true);
"""

# Sorting and folding; sets data-js="ran" on <body> when done, so a test sees it did run.
MAIN_JS = """
function bm_key(td) {
  var v = td.hasAttribute("data-value") ? td.getAttribute("data-value") : td.textContent;
  var n = parseFloat(v.replace(/^[\\u00b1>=<~]+/, ""));
  return isNaN(n) ? null : n;
}
function bm_sort(th) {
  var table = th.closest("table"), body = table.tBodies[0], col = th.cellIndex;
  var asc = th.getAttribute("aria-sort") !== "ascending";
  table.querySelectorAll("thead th").forEach(function (h) { h.removeAttribute("aria-sort"); });
  th.setAttribute("aria-sort", asc ? "ascending" : "descending");
  var rows = Array.prototype.slice.call(body.rows);
  rows.sort(function (a, b) {
    var x = bm_key(a.cells[col]), y = bm_key(b.cells[col]), d;
    if (x !== null && y !== null) d = x - y;
    else if (x !== null || y !== null) return x === null ? 1 : -1;  /* '-' and text last */
    else d = a.cells[col].textContent.localeCompare(b.cells[col].textContent);
    return asc ? d : -d;
  });
  rows.forEach(function (r) { body.appendChild(r); });
}
document.querySelectorAll("table.sortable thead th").forEach(function (th) {
  th.addEventListener("click", function () { bm_sort(th); });
});
function bm_fold(open) {
  document.querySelectorAll("details").forEach(function (d) { d.open = open; });
}
document.body.setAttribute("data-js", "ran");
"""


def svg_path(path):
    """The SVG figure.save writes beside a figure's PNG."""
    return os.path.splitext(path)[0] + ".svg"


def _attrs(text, classes=()):
    """' class=.. data-key=.. data-value=..' of a cell or value (empty when there is nothing)."""
    out = ' class="%s"' % " ".join(classes) if classes else ""
    if isinstance(text, Marked):
        out += ' data-key="%s" data-value="%s"' % (html.escape(text.key),
                                                   html.escape(json.dumps(text.value)))
    return out


def _figure_cell(c):
    """A cell that shows one marked number (e.g. '8.42 (8.1-8.6)': a value with its CI)."""
    return isinstance(c, Marked) and isinstance(c.value, (int, float)) \
        and not isinstance(c.value, bool)


def _table(headers, rows):
    # numeric columns, and those whose cells are marked numbers with their CI, right-aligned
    right = [r or (bool(rows) and all(_figure_cell(row[i]) or row[i] == "-" for row in rows)
                   and any(_figure_cell(row[i]) for row in rows))
             for i, r in enumerate(right_columns(headers, rows))]
    cls = [("num",) if r else () for r in right]
    out = ['<div class="wide"><table class="sortable"><thead><tr>']
    out += ['<th scope="col"%s>%s</th>' % (_attrs(h, c), html.escape(h))
            for h, c in zip(headers, cls)]
    out.append("</tr></thead><tbody>")
    for r in rows:
        out.append("<tr>" + "".join("<td%s>%s</td>" % (_attrs(v, c), html.escape(v))
                                    for v, c in zip(r, cls)) + "</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def _kv(pairs):
    out = ['<table class="kv"><tbody>']
    for k, v in pairs:
        v = v if isinstance(v, str) else str(v)
        failed = ("failed",) if v.startswith("FAILED") else ()
        out.append('<tr><th scope="row">%s</th><td%s>%s</td></tr>'
                   % (html.escape(k), _attrs(v, failed), html.escape(v)))
    out.append("</tbody></table>")
    return "".join(out)


def _figure(path, caption, out_dir, number):
    """The figure's SVG copy inlined, its ids prefixed so several figures' ids cannot clash;
    a line naming it when there is no SVG copy."""
    svg_file = os.path.join(out_dir, svg_path(path)) if out_dir else None
    try:
        with open(svg_file, encoding="utf-8") as fh:
            svg = fh.read()
    except (OSError, TypeError):
        return '<p class="nofig">[figure not inlined: %s (%s)]</p>' % (
            html.escape(caption), html.escape(path))
    svg = svg[svg.find("<svg"):]  # no XML declaration or DOCTYPE inside HTML
    pre = "f%d-" % number
    svg = re.sub(r'\bid="', 'id="' + pre, svg)
    svg = re.sub(r'href="#', 'href="#' + pre, svg)
    svg = svg.replace("url(#", "url(#" + pre)
    return "<figure>%s<figcaption>%s</figcaption></figure>" % (svg, html.escape(caption))


def _block(b, out_dir, state):
    """One block's HTML (headings are handled by render)."""
    kind = b[0]
    if kind == "kv":
        return _kv(b[1])
    if kind == "table":
        return _table(b[1], b[2])
    if kind == "p":
        cls = ' class="failed"' if b[1].startswith("FAILED") else ""
        return "<p%s>%s</p>" % (cls, html.escape(b[1]))
    if kind == "list":
        return "<ul>%s</ul>" % "".join("<li>%s</li>" % html.escape(t) for t in b[1])
    if kind == "img":
        state["figures"] += 1
        return _figure(b[1], b[2], out_dir, state["figures"])
    return ""  # "width": the plain text's only


def render(doc, out_dir=None, title="baremetric report"):
    """The whole page as a string. out_dir: where the figures' SVG copies are (None: no
    figures inlined)."""
    body, state = [], {"figures": 0, "open": None, "ids": set()}

    def close():
        if state["open"]:
            body.append("</%s>" % state["open"])
        state["open"] = None

    first = True
    for b in doc.blocks:
        if b[0] != "h":
            body.append(_block(b, out_dir, state))
        elif b[1] <= 1 and first:  # the first screen: open, at the top
            first = False
            body.append('<section class="glance" id="glance"><h1>%s</h1>' % html.escape(b[2]))
            state["open"] = "section"
        elif b[1] <= 1:
            close()
            body.append("<h1>%s</h1>" % html.escape(b[2]))
            body.append('<p><button type="button" onclick="bm_fold(true)">expand all</button> '
                        '<button type="button" onclick="bm_fold(false)">collapse all</button></p>')
        elif b[1] == 2:
            close()
            body.append('<details open id="%s"><summary><h2>%s</h2></summary>'
                        % (_slug(b[2], state), html.escape(b[2])))
            state["open"] = "details"
        else:
            body.append("<h%d>%s</h%d>" % (min(b[1], 6), html.escape(b[2]), min(b[1], 6)))
    close()
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>%s</title>" % html.escape(title),
        "<script>%s</script>" % ERRORS_JS, "<style>%s</style>" % CSS, "</head><body>",
        '<pre id="js-errors"></pre>'] + body + [
        "<script>%s</script>" % MAIN_JS, "</body></html>", ""])


def _slug(title, state):
    """A section's id from its title, made unique in the page."""
    base = "s-" + (re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "section")
    slug, k = base, 1
    while slug in state["ids"]:
        k += 1
        slug = "%s-%d" % (base, k)
    state["ids"].add(slug)
    return slug
