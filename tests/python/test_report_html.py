"""`report --html` (report/html.py): DIR/report.html is one self-contained page rendered from the
report's Doc blocks. Without a browser: everything is escaped, tables are sortable with numeric
columns right-aligned, the first screen is at the top and every section a <details>, the first
screen's figures carry data-key/data-value attributes equal to headline.json, figures are inlined
SVG (or named, without matplotlib), and nothing refers to another file or the network.

With a browser (test_page_in_headless_chromium): Debian's chromium, which `make test` installs
(scripts/deps.sh test), loads the page; set BAREMETRIC_NO_BROWSER=1 to skip that test."""

import html
import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

import synth
from bmharness import cli
from bmharness.report import doc as doc_mod
from bmharness.report import html as html_mod
from bmharness.stream import parse

BROWSER_TIMEOUT = 60  # seconds for chromium to load and dump the page


class _Page(HTMLParser):
    """What the tests read from a page: the data-key/data-value pairs, the attributes of <body>,
    the text of <pre id="js-errors">, the tag sequence and every src/href."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.data, self.body, self.errors, self.tags, self.refs = {}, {}, None, [], []
        self._in_errors = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if "data-key" in a:
            self.data[a["data-key"]] = json.loads(a["data-value"])
        if tag == "body":
            self.body = a
        if tag == "pre" and a.get("id") == "js-errors":
            self.errors, self._in_errors = "", True
        self.refs += [v for k, v in attrs if k in ("src", "href", "xlink:href") and v]

    def handle_endtag(self, tag):
        if tag == "pre":
            self._in_errors = False

    def handle_data(self, data):
        if self._in_errors:
            self.errors += data


def _resolve(obj, key):
    """The value at a '/'-separated path in a JSON object (list indices as numbers)."""
    for part in key.split("/"):
        obj = obj[int(part)] if isinstance(obj, list) else obj[part]
    return obj


def _check_data(page, headline):
    """Every marked figure equals headline.json's; returns the keys."""
    assert page.data, "no data-key attributes in the page"
    for key, value in page.data.items():
        assert _resolve(headline, key) == value, key
    return set(page.data)


def _no_external_refs(text, page):
    assert not [r for r in page.refs if not r.startswith("#")], page.refs[:5]
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", text, re.I)
    assert "<link" not in text.lower() and "@import" not in text and "<img" not in text.lower()


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A parsed memory run (with a failed check, so the page shows FAILED), reported with
    --html (plots drawn when matplotlib is there)."""
    tmp = tmp_path_factory.mktemp("html")
    s = synth.memory_stream(hv_sig="")
    s.lines.pop()  # its end record: add a check before a new one
    s.seq -= 1
    s.add("check", name="cmp <&> \"q\"", probe="membw", expected=1, measured=2, status="fail")
    log = tmp / "run.log"
    log.write_bytes(s.end().data())
    out = tmp / "run"
    parse.parse_log(str(log), str(out))
    assert cli.main(["report", str(out), "--html"]) == 1  # the failed check
    return out


def test_cli_writes_report_html(run_dir):
    text = (run_dir / "report.html").read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    page = _Page(text)
    _no_external_refs(text, page)
    assert page.errors == ""


def test_headline_figures_match_headline_json(run_dir):
    page = _Page((run_dir / "report.html").read_text(encoding="utf-8"))
    headline = json.loads((run_dir / "headline.json").read_text())
    keys = _check_data(page, headline)
    assert {"clock/hz", "status/ok", "memory/levels/0/read/gbps",
            "memory/levels/0/latency/ns"} <= keys
    assert page.data["status/ok"] is False


def test_sections_follow_the_markdown(run_dir):
    """The first screen first and open, then one <details> per level-2 heading of report.md."""
    text = (run_dir / "report.html").read_text(encoding="utf-8")
    md = (run_dir / "report.md").read_text()
    titles = re.findall(r"^## (.+)$", md, re.M)
    summaries = [html.unescape(t) for t in re.findall(r"<summary><h2>(.*?)</h2>", text)]
    assert summaries == titles and len(titles) > 3
    assert text.index('<section class="glance"') < text.index("<details")
    assert text.count("<details") == text.count("</details>") == len(titles)


def test_figures_inlined_as_svg(run_dir):
    pytest.importorskip("matplotlib")
    text = (run_dir / "report.html").read_text(encoding="utf-8")
    assert text.count("<figure>") >= 2 and text.count("<svg") >= 2 and "<?xml" not in text
    ids = re.findall(r'\bid="([^"]+)"', text)
    assert len(ids) == len(set(ids)), "duplicate ids"
    # every internal reference points at an id of the page
    refs = set(re.findall(r'href="#([^"]+)"', text)) | set(re.findall(r"url\(#([^)]+)\)", text))
    assert refs <= set(ids)


def test_each_figure_inlined_once_as_written(run_dir):
    """Every figure's SVG file (as figure.save wrote it: compacted) is in the page exactly once,
    and the page has no other <svg>: no figure embedded twice, none re-encoded."""
    pytest.importorskip("matplotlib")
    text = (run_dir / "report.html").read_text(encoding="utf-8")
    plain = re.sub(r'(\bid="|href="#|url\(#)f\d+-', r"\1", text)  # html.py's id prefixes
    files = sorted(run_dir.glob("*.svg"))
    assert len(files) >= 2 and text.count("<svg") == text.count("<figure>") == len(files)
    for f in files:
        svg = f.read_text(encoding="utf-8")
        assert plain.count(svg[svg.find("<svg"):]) == 1, f.name
        assert not re.search(r'\sd="[^"]*\d\.\d{3}', svg), f.name  # svg_compact's decimals


def test_no_plots_names_no_figures(tmp_path, run_dir):
    out = tmp_path / "np"
    shutil.copytree(str(run_dir), str(out))
    for f in out.glob("*.svg"):
        f.unlink()
    assert cli.main(["report", str(out), "--html", "--no-plots"]) == 1
    text = (out / "report.html").read_text(encoding="utf-8")
    assert "<svg" not in text and "<figure>" not in text
    _check_data(_Page(text), json.loads((out / "headline.json").read_text()))


def test_everything_escaped():
    d = doc_mod.Doc()
    d.h("<script>alert(1)</script>", 1)
    d.kv([("k<&>", "v \"<b>\" & 'x'")])
    d.h("A & B")
    d.table(["name<", "n"], [["<i>x</i>", 1.5], ["y&z", 2]])
    d.p("FAILED: <bad>")
    d.list(["<li>"])
    d.img("nope.png", "<cap>")
    text = html_mod.render(d, None, "<title>")
    body = text[text.index("</head>"):]
    assert "<script>alert" not in text and "<i>x" not in text and "<bad>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert "v &quot;&lt;b&gt;&quot; &amp; &#x27;x&#x27;" in body
    assert "<title>&lt;title&gt;</title>" in text
    assert "<summary><h2>A &amp; B</h2></summary>" in body
    assert '<p class="failed">FAILED: &lt;bad&gt;</p>' in body
    assert "[figure not inlined: &lt;cap&gt; (nope.png)]" in body


def test_tables_sortable_and_numbers_right_aligned():
    d = doc_mod.Doc()
    d.h("T")
    d.table(["name", "value", "note"], [["a", 10, "x"], ["b", 2.5, "-"], ["c", None, "y"]])
    text = html_mod.render(d)
    assert '<div class="wide"><table class="sortable"><thead><tr><th scope="col">name</th>' \
           '<th scope="col" class="num">value</th><th scope="col">note</th>' in text
    assert '<tr><td>a</td><td class="num">10</td><td>x</td></tr>' in text
    assert '<td class="num">-</td>' in text  # '-' in a numeric column: still right-aligned
    assert "bm_sort" in text and "addEventListener(\"click\"" in text


def test_marked_cells_and_values():
    d = doc_mod.Doc()
    d.h("At a glance", 1)
    d.kv([("clock", doc_mod.Marked("2.4 GHz", "clock/hz", 2.4e9))])
    d.table(["level", "read"], [["L1d", doc_mod.Marked("8.42 (8.1-8.6)", "a/0/gbps", 8.4217)]])
    d.h("report", 1)
    d.h("Section")
    d.p("x")
    text = html_mod.render(d)
    assert '<td data-key="clock/hz" data-value="2400000000.0">2.4 GHz</td>' in text
    # a marked number with its CI: right-aligned as the plain numbers are
    assert '<th scope="col" class="num">read</th>' in text
    assert '<td class="num" data-key="a/0/gbps" data-value="8.4217">8.42 (8.1-8.6)</td>' in text
    # the marks are invisible to text and markdown
    assert "2.4 GHz" in d.text() and "data-key" not in d.markdown()
    assert text.index('<section class="glance"') < text.index("<h1>report</h1>") \
        < text.index('<details open id="s-section">')


def _chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.mark.skipif(os.environ.get("BAREMETRIC_NO_BROWSER") == "1",
                    reason="BAREMETRIC_NO_BROWSER=1")
def test_page_in_headless_chromium(run_dir, tmp_path):
    """Load report.html in headless chromium and read the DOM it dumps after the scripts ran.

    Errors are caught two ways, so neither a quiet browser nor a changed log format hides one:
    the page's first script records every error event (a script's exception, a syntax error in a
    later script, a failed load) into <pre id="js-errors">, which must be empty in the dumped DOM,
    and <body data-js="ran"> proves the main script ran to its end; chromium's
    --enable-logging=stderr prints every console message as a CONSOLE line, and the page writes
    none, so any such line is a failure. Then the data-value attributes of the dumped DOM must
    equal headline.json's figures, and the page must refer to nothing outside itself."""
    browser = _chromium()
    if browser is None:
        pytest.fail("chromium is not installed: `make test` installs it (scripts/deps.sh test), "
                    "or apt-get install chromium; BAREMETRIC_NO_BROWSER=1 skips this test")
    page_path = (run_dir / "report.html").resolve()
    env = dict(os.environ, HOME=str(tmp_path))  # its profile and crash dumps stay in tmp
    res = subprocess.run(
        [browser, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
         "--user-data-dir=%s" % (tmp_path / "profile"), "--enable-logging=stderr", "--v=0",
         "--dump-dom", page_path.as_uri()],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=BROWSER_TIMEOUT, env=env,
        universal_newlines=True)
    assert res.returncode == 0, res.stderr[-2000:]
    console = [ln for ln in res.stderr.splitlines() if ":CONSOLE" in ln]
    assert not console, console
    dom = _Page(res.stdout)
    assert dom.body.get("data-js") == "ran", "the page's script did not run to its end"
    assert dom.errors == "", dom.errors
    keys = _check_data(dom, json.loads((run_dir / "headline.json").read_text()))
    assert "memory/levels/0/read/gbps" in keys
    _no_external_refs(res.stdout, dom)
