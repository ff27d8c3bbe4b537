"""No import cycles between the worker's modules, and the layers in order.

Each module's imports, wherever they sit (at the top, inside a function, under
TYPE_CHECKING), make a graph that must have no loop: then every module can be read,
tested and changed knowing only the modules below it. The graph is read from the
source (ast), not from sys.modules: an import put off into a function to save
start-up time still ties the two modules together, and so does one for annotations.
"""

import ast
import os
import textwrap

from conftest import ROOT

PACKAGE = os.path.join(ROOT, "worker")
# Read beside the worker: the hosts call it, and the bootstrap starts both. The bootstrap's
# scripts run with their own folder on sys.path (``import run as bootstrap``), so they are
# named here as a package of their own.
PARTS = ("worker", "hosts", "bootstrap")

# Cycles older than this test, each the set of modules it joins. Listed rather than
# ignored: a new cycle fails the test, and so does a listed one that is gone (take it
# off the list then).
KNOWN_CYCLES = {
    # runtime and the state modules name each other's types in annotations only (Call;
    # State and Guard): no import between them runs.
    frozenset(
        {
            "worker.runtime",
            "worker.state.backend",
            "worker.state.breaker",
            "worker.state.redis_backend",
            "worker.state.sqlite_backend",
            "worker.state.sqlite_file",
        }
    ),
}


def modules(package_dir=PACKAGE):
    """{dotted name: path} of every module under package_dir; a package is its __init__.py."""
    top = os.path.dirname(package_dir)
    out = {}
    for dirpath, dirnames, filenames in os.walk(package_dir):
        dirnames[:] = [d for d in dirnames if not d.startswith((".", "__"))]
        for f in filenames:
            if f.endswith(".py"):
                parts = os.path.relpath(os.path.join(dirpath, f), top)[:-3].split(os.sep)
                if parts[-1] == "__init__":
                    parts.pop()
                out[".".join(parts)] = os.path.join(dirpath, f)
    return out


def imports(name, source, is_package, known):
    """The modules of ``known`` that module ``name`` imports anywhere in ``source``.

    ``from P import x`` is an import of the module P.x when there is one, else of P
    (x is a name P defines); relative imports are resolved against name's package.
    """
    package = name if is_package else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            for a in node.names:
                sub = base + "." + a.name
                out.add(sub if sub in known else base)
    return {m for m in out if m in known and m != name}


def known_modules():
    """{dotted name: path} of every module of worker/, hosts/ and bootstrap/ (a script of
    bootstrap/ also under its bare name, as its neighbours import it)."""
    out = {}
    for part in PARTS:
        out.update(modules(os.path.join(ROOT, part)))
    return out


def graph():
    """{module: modules it imports} for every module of the worker, its hosts and the bootstrap."""
    known = known_modules()
    bare = {name.split(".", 1)[1]: name for name in known if name.startswith("bootstrap.")}
    out = {}
    for name, path in known.items():
        with open(path, encoding="utf-8") as f:
            source = f.read()
        found = imports(name, source, path.endswith("__init__.py"), known)
        if name.startswith("bootstrap."):  # `import run` from a neighbour script
            found |= {bare[m] for m in imports(name, source, False, set(bare)) if m in bare}
        out[name] = found
    return out


def cycles(edges):
    """The strongly connected sets of two or more nodes of ``edges`` ({node: nodes}), by
    Tarjan's algorithm."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            members = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                members.add(w)
                if w == v:
                    break
            if len(members) > 1:
                found.append(frozenset(members))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def _describe(cycle, edges):
    return "; ".join("%s -> %s" % (m, ", ".join(sorted(edges[m] & cycle))) for m in sorted(cycle))


def test_the_import_reader_sees_every_kind_of_import():
    source = textwrap.dedent(
        """
        from . import b
        from .c import name
        import worker.d
        TYPE_CHECKING = False
        if TYPE_CHECKING:
            from ..e import T
        def f():
            from .pkg import sub, Thing
        """
    )
    known = {
        "worker.x",
        "worker.x.a",
        "worker.x.b",
        "worker.x.c",
        "worker.d",
        "worker.e",
        "worker.x.pkg",
        "worker.x.pkg.sub",
    }
    assert imports("worker.x.a", source, False, known) == {
        "worker.x.b",
        "worker.x.c",
        "worker.d",
        "worker.e",
        "worker.x.pkg",
        "worker.x.pkg.sub",
    }
    assert imports("worker.x", "from .c import name\nfrom . import a", True, known) == {"worker.x.c", "worker.x.a"}
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}) == [frozenset("abc")]


def test_no_import_cycles_but_the_known_ones():
    edges = graph()
    assert "worker.pages.extract.region" in edges and "worker.pages.sites.github" in edges  # the reader found them
    assert "hosts.mcp.server" in edges and "bootstrap.run" in edges
    assert "bootstrap.run" in edges["bootstrap.lock"]  # a script's bare import of its neighbour
    found = set(cycles(edges))
    new = found - KNOWN_CYCLES
    assert not new, "import cycles: %s" % " | ".join(_describe(c, edges) for c in new)
    gone = KNOWN_CYCLES - found
    assert not gone, "no longer cycles, take them off KNOWN_CYCLES: %s" % [sorted(c) for c in gone]


def test_the_parts_of_pages_do_not_import_each_other_in_a_circle():
    """worker/pages/ one level down, a sub-package (extract/, sites/, net/, render/) one
    node: no cycle between them either, whichever of a package's modules makes it
    (the fetch pipeline and sites/ once imported each other through different modules)."""

    def part(module):
        bits = module.split(".")
        return ".".join(bits[:3]) if bits[:2] == ["worker", "pages"] and len(bits) > 2 else None

    parts = {}
    for module, targets in graph().items():
        if part(module) is not None:
            parts.setdefault(part(module), set()).update(
                part(t) for t in targets if part(t) not in (None, part(module))
            )
    assert "worker.pages.sites" in parts and "worker.pages.pipeline" in parts
    assert cycles(parts) == [], [_describe(c, parts) for c in cycles(parts)]


def test_the_worker_imports_neither_its_hosts_nor_the_bootstrap():
    """Layers in one direction: the bootstrap may start the hosts and the worker, a host may
    call the worker, and the worker knows nothing of either (the MCP server has its own
    entry, `python -m hosts.mcp`)."""
    edges = graph()
    assert any(t.startswith("worker.") for t in edges["hosts.mcp.server"])  # the reader sees hosts -> worker
    assert "hosts.mcp.settings" in edges["bootstrap.run"]
    upward = sorted(
        "%s -> %s" % (m, t)
        for m, targets in edges.items()
        if m.split(".")[0] == "worker"
        for t in targets
        if t.split(".")[0] in ("hosts", "bootstrap")
    )
    assert not upward, upward
    assert not [
        m for m, targets in edges.items() if m.startswith("hosts.") and any(t.startswith("bootstrap.") for t in targets)
    ]


# Private names read across modules, older than the test below: listed rather than
# ignored (a new one fails it, and so does a listed one that is gone).
KNOWN_PRIVATE_READS: set[str] = set()


def _private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_reads(name, source, is_package, known):
    """Where module ``name`` reads a private name (``_x``, not ``__x__``) of another module of
    ``known``: ``from M import _x``, or ``M._x`` / ``M.sub._x`` through a name bound by import."""
    package = name if is_package else name.rpartition(".")[0]
    bound, out = {}, set()
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            for a in node.names:
                if base + "." + a.name in known:
                    bound[a.asname or a.name] = base + "." + a.name
                elif base in known and base != name and _private(a.name):
                    out.add("%s: from %s import %s" % (name, base, a.name))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in known:
                    bound[a.asname] = a.name if a.asname else None
                    if not a.asname:
                        bound[a.name.split(".")[0]] = a.name.split(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            chain, value = [], node.value
            while isinstance(value, ast.Attribute):
                chain.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name) and bound.get(value.id):
                module = ".".join([bound[value.id]] + chain[::-1])
                if module in known and module != name:
                    out.add("%s: %s.%s" % (name, module, node.attr))
    return out


def test_the_private_name_reader_sees_both_forms():
    known = {"worker.a", "worker.b", "worker.b.c", "worker"}
    source = textwrap.dedent(
        """
        from .b import _hidden, public, __version__
        from . import b
        from .b import c as see
        import worker.b
        b._x, see._y, worker.b._z, b.ok, b.__doc__
        self._mine
        """
    )
    assert private_reads("worker.a", source, False, known) == {
        "worker.a: from worker.b import _hidden",
        "worker.a: worker.b._x",
        "worker.a: worker.b.c._y",
        "worker.a: worker.b._z",
    }


def test_no_module_reads_another_modules_private_names():
    """A name with a leading underscore is its module's own: worker/ and hosts/ read each
    other's public names only (a test may reach further)."""
    known = known_modules()
    found = set()
    for name, path in known.items():
        if name.split(".")[0] in ("worker", "hosts"):
            with open(path, encoding="utf-8") as f:
                found |= private_reads(name, f.read(), path.endswith("__init__.py"), known)
    new = sorted(found - KNOWN_PRIVATE_READS)
    assert not new, "private names read from another module: %s" % new
    gone = sorted(KNOWN_PRIVATE_READS - found)
    assert not gone, "no longer read, take them off KNOWN_PRIVATE_READS: %s" % gone
