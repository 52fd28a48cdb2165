"""The harness package has no import cycle, counting imports inside functions too (a late import
only hides a cycle); its subpackages are layers that import only downwards, stats <- stream <-
analysis <- report <- run and the command line (cli, prof_cli, store_cli, __main__; the results store
beside the analyses), so the analyses stay pure and the
report only renders; and report/doc.py (Doc and the formatters) imports nothing of the package, so
every section may use it. The graph is read from the source with ast, nothing is imported; so
that it sees every edge, no module hands a module object to another (`sys.modules[__name__]`, a
module passed, returned or stored as a value: the receiver then calls back into it, a circle no
import shows) or imports by a computed name (importlib, __import__)."""

import ast
import os

import pytest

PKG_ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        "harness", "bmharness")
LEAF = "bmharness.report.doc"
# Layers from the bottom: a module may import its own layer and those below, never one above.
# The package's own __init__ (bmharness) is below them all: every dotted import runs it.
LAYERS = (("stats",), ("stream",), ("analysis", "store"), ("report",),
          ("run", "cli", "prof_cli", "store_cli", "vector_cli", "ocptv_cli", "fleet_report_cli",
           "__main__", "fleet", "fleet_cli"))


def modules(root, package="bmharness"):
    """{module name: path} of every .py file under root (a package directory)."""
    out = {}
    for dirpath, _, files in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        parts = [package] + ([] if rel == "." else rel.split(os.sep))
        for f in files:
            if f.endswith(".py"):
                name = parts if f == "__init__.py" else parts + [f[:-3]]
                out[".".join(name)] = os.path.join(dirpath, f)
    return out


def imports_of(name, path, known):
    """The package modules `name` imports anywhere in its source (module level or in functions).
    `from X import y` counts X and, where X.y is a module, X.y as well."""
    is_pkg = os.path.basename(path) == "__init__.py"
    here = name.split(".") if is_pkg else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(open(path).read(), path)):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[:len(here) - node.level + 1] + (node.module.split(".") if node.module else [])
            else:
                base = node.module.split(".")
            base = ".".join(base)
            targets = [base] + [base + "." + a.name for a in node.names]
        else:
            continue
        for t in targets:
            # a dotted import also runs every parent package's __init__
            parts = t.split(".")
            for i in range(1, len(parts) + 1):
                mod = ".".join(parts[:i])
                if mod in known and mod != name:
                    found.add(mod)
    return found


def _bindings(tree, name, is_pkg, known):
    """({local name: module}, {local name: module}): the names an import binds to a module of
    the package (`from . import cli`, `import bmharness.run.qemu as q`), and those it binds to
    something defined in one (`from .store_cli import add_parser`)."""
    here = name.split(".") if is_pkg else name.split(".")[:-1]
    mods, funcs = {}, {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = (here[:len(here) - node.level + 1] + (node.module.split(".") if node.module else [])
                    if node.level else node.module.split("."))
            for a in node.names:
                full = ".".join(base + [a.name])
                if full in known:
                    mods[a.asname or a.name] = full
                elif ".".join(base) in known:
                    funcs[a.asname or a.name] = ".".join(base)
        elif isinstance(node, ast.Import):
            mods.update((a.asname, a.name) for a in node.names if a.asname and a.name in known)
    return mods, funcs


def _values(node):
    """The expressions an argument hands over (the items of a literal list, tuple, set or dict
    too)."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [v for e in node.elts for v in _values(e)]
    if isinstance(node, ast.Dict):
        return [v for e in node.values for v in _values(e)]
    return [node]


def _handed(v, name, mods):
    """The module an argument expression is: a module name, or sys.modules[__name__] (this one)."""
    if isinstance(v, ast.Name) and v.id in mods:
        return mods[v.id]
    if isinstance(v, ast.Subscript) and isinstance(v.value, ast.Attribute) and \
            v.value.attr == "modules" and isinstance(v.value.value, ast.Name) and \
            v.value.value.id == "sys":
        return name if isinstance(v.slice, ast.Name) and v.slice.id == "__name__" else "?"
    return None


def handed_edges(name, path, known):
    """{(receiver, module)}: a module object handed to a function of another package module,
    which can then call into it without importing it (as cli.py once gave itself to store_cli):
    an edge the import statements do not show. An import by a computed name (importlib,
    __import__) or another sys.modules entry cannot be resolved: its edge is (name, "?")."""
    tree = ast.parse(open(path).read(), path)
    mods, funcs = _bindings(tree, name, os.path.basename(path) == "__init__.py", known)
    edges = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if (isinstance(f, ast.Name) and f.id == "__import__") or (
                isinstance(f, ast.Attribute) and f.attr == "import_module"):
            edges.add((name, "?"))
        receiver = (mods.get(f.value.id) if isinstance(f, ast.Attribute) and
                    isinstance(f.value, ast.Name) else funcs.get(f.id) if isinstance(f, ast.Name)
                    else None)
        for a in node.args + [k.value for k in node.keywords]:
            for v in _values(a):
                m = _handed(v, name, mods)
                if m == "?":
                    edges.add((name, "?"))
                elif m and receiver and receiver != m:
                    edges.add((receiver, m))
    return edges


def graph(root, package="bmharness"):
    """{module: the package modules it imports}, plus the edges of modules handed over as values
    (handed_edges: the receiver uses the module as if it imported it)."""
    mods = modules(root, package)
    g = {name: imports_of(name, path, mods) for name, path in mods.items()}
    for name, path in mods.items():
        for receiver, m in handed_edges(name, path, mods):
            g.setdefault(receiver, set()).add(m)
    return g


def find_cycle(g):
    """One import cycle as a list [a, b, ..., a], or None (depth-first search, three colours).
    An edge from a module to a package it lies in is not followed: that package's __init__ has
    begun before the module runs (a package re-exporting its submodules, as stats/ does, whose
    submodules import each other, is no circle); its other edges are."""
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(x for x in g.get(n, ()) if not n.startswith(x + ".")):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if not state.get(m):
                cyc = visit(m)
                if cyc:
                    return cyc
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(g):
        if not state.get(n):
            cyc = visit(n)
            if cyc:
                return cyc
    return None


def layer_of(name, layers=LAYERS):
    """Index of a module's layer in `layers` (by its first name below the package); -1 for the
    package itself."""
    parts = name.split(".")
    if len(parts) == 1:
        return -1
    for i, names in enumerate(layers):
        if parts[1] in names:
            return i
    raise AssertionError("%s is in no layer: add it to LAYERS" % name)


def upward_imports(g, layers=LAYERS):
    """["a -> b", ...]: the imports from a module to one in a higher layer."""
    return sorted("%s -> %s" % (a, b) for a, targets in g.items() for b in targets
                  if layer_of(b, layers) > layer_of(a, layers))


def test_harness_has_no_import_cycle():
    g = graph(PKG_ROOT)
    assert len(g) > 20 and "bmharness.stream.parse" in g  # the walk found the package
    assert find_cycle(g) is None, " -> ".join(find_cycle(g))


def test_no_unresolved_module_is_handed_over():
    """Every module handed over is known (no computed import, no sys.modules lookup of another
    name): otherwise the graph could miss a circle through it."""
    g = graph(PKG_ROOT)
    assert not [n for n, targets in g.items() if "?" in targets]


@pytest.mark.parametrize("how", ["sys.modules[__name__]", "this"])
def test_a_module_handed_over_closes_a_circle(tmp_path, how):
    """cli.py handing itself (or a module that imports store_cli) to store_cli is a circle the
    import statements do not show; the graph sees it through the handed-over edge."""
    pkg = tmp_path / "hm"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "store_cli.py").write_text("_CLI = []\ndef add_parser(sub, cli):\n    _CLI[:] = [cli]\n")
    (pkg / "cli.py").write_text("import sys\nfrom . import store_cli\nfrom . import cli as this\n"
                                "def main():\n    store_cli.add_parser(1, %s)\n" % how)
    g = graph(str(pkg), "hm")
    assert "hm.cli" in g["hm.store_cli"]
    assert find_cycle(g) == ["hm.cli", "hm.store_cli", "hm.cli"]
    (pkg / "cli.py").write_text("from .store_cli import add_parser\nfrom . import other\n"
                                "def main():\n    add_parser(1, cli=[other])\n")
    (pkg / "other.py").write_text("from . import store_cli\n")
    assert find_cycle(graph(str(pkg), "hm")) == ["hm.other", "hm.store_cli", "hm.other"]
    (pkg / "cli.py").write_text("from . import store_cli\ndef main():\n    store_cli.add_parser(1, 2)\n")
    assert find_cycle(graph(str(pkg), "hm")) is None
    (pkg / "cli.py").write_text("import importlib\nm = importlib.import_module('hm.store_cli')\n")
    assert "?" in graph(str(pkg), "hm")["hm.cli"]


def test_doc_imports_nothing_of_the_package():
    g = graph(PKG_ROOT)
    assert LEAF in g
    assert g[LEAF] == set()


def test_sections_reach_doc_directly():
    """The edges the old late imports stood for are still seen: the Memory section uses doc's fnum,
    the memory analysis reads raw files through the statistics' one reader."""
    g = graph(PKG_ROOT)
    assert LEAF in g["bmharness.report.memory"]
    assert "bmharness.stats" in g["bmharness.analysis.memory"]


def test_layers_import_only_downwards():
    g = graph(PKG_ROOT)
    assert {layer_of(n) for n in g} == {-1, 0, 1, 2, 3, 4}  # every layer has modules
    assert upward_imports(g) == []
    # the analyses render nothing: none of them reaches the report's formatters
    assert not any(LEAF in g[n] for n in g if n.startswith("bmharness.analysis."))


def test_layer_check_fails_on_an_upward_import(tmp_path):
    """A lower layer importing a higher one is caught, at module level or late in a function; the
    same import downwards is not."""
    pkg = tmp_path / "ly"
    for sub in ("stream", "analysis", "report"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "report" / "doc.py").write_text("def fnum(x):\n    return str(x)\n")
    (pkg / "stream" / "parse.py").write_text("import os\n")
    (pkg / "analysis" / "memory.py").write_text("from ..stream import parse\n"
                                                "def section():\n    from ..report import doc\n")
    (pkg / "cli.py").write_text("from .report import doc\nfrom .analysis import memory\n")
    layers = (("stream",), ("analysis",), ("report",), ("cli",))
    assert upward_imports(graph(str(pkg), "ly"), layers) == [
        "ly.analysis.memory -> ly.report", "ly.analysis.memory -> ly.report.doc"]
    (pkg / "analysis" / "memory.py").write_text("from ..stream import parse\n")
    assert upward_imports(graph(str(pkg), "ly"), layers) == []
    (pkg / "stream" / "parse.py").write_text("from ..analysis.memory import x\n")
    assert upward_imports(graph(str(pkg), "ly"), layers) == [
        "ly.stream.parse -> ly.analysis", "ly.stream.parse -> ly.analysis.memory"]


def test_cycle_finder():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"a"}}) == ["a", "a"]
    # a submodule reaching its own package's __init__ is no circle; reaching a sibling back is
    assert find_cycle({"p": {"p.x"}, "p.x": {"p", "p.y"}, "p.y": {"p"}}) is None
    assert find_cycle({"p": {"p.x"}, "p.x": {"p.y"}, "p.y": {"p.x"}}) == ["p.x", "p.y", "p.x"]


@pytest.mark.parametrize("late", [False, True])
def test_cycle_found_in_a_package(tmp_path, late):
    """A package whose modules import each other (at module level, or late inside a function, as
    report and qemu once did) is caught; the same package without the back edge is not."""
    pkg = tmp_path / "cyc"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .sub import b\n")
    back = ("def f():\n    from .. import a\n    return a\n" if late else "from .. import a\n")
    (pkg / "sub" / "b.py").write_text(back)
    g = graph(str(pkg), "cyc")
    assert g["cyc.a"] >= {"cyc.sub", "cyc.sub.b"}
    assert find_cycle(g) is not None and "cyc.a" in find_cycle(g)
    (pkg / "sub" / "b.py").write_text("import os\n")
    assert find_cycle(graph(str(pkg), "cyc")) is None


def test_leaf_check_fails_on_an_import(tmp_path):
    pkg = tmp_path / "lf"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "doc.py").write_text("def fnum(x):\n    from .other import y\n    return y\n")
    (pkg / "other.py").write_text("y = 1\n")
    assert graph(str(pkg), "lf")["lf.doc"] == {"lf", "lf.other"}  # the package __init__ runs too
