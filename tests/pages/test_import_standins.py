"""The import stand-ins (worker/pages/extract/imports.py) guess a name's kind from its spelling:
a capitalised name is a class, an upper-case one a constant, any other a function. Each name
that trafilatura and readability-lxml import from a deferred library is read here from their
installed source and checked against what the real library holds: a lower-case set or dict
imported at module level would become a function stand-in and fail during extraction, not at
import (the outside review of 2026-11-29)."""

import ast
import importlib
import inspect
import subprocess
import sys
import types

import pytest
from conftest import ROOT

from worker.pages.extract import imports, versions

_LOADED = """
import sys
from worker.pages.extract import imports
imports.core() if sys.argv[1] == "trafilatura" else imports.readability()
for name, module in sorted(sys.modules.items()):
    if (name == sys.argv[1] or name.startswith(sys.argv[1] + ".")) and getattr(module, "__file__", None):
        print(module.__file__)
"""


def _sources(package):
    """The files of the package's modules that load while the stand-ins are in place (a fresh
    interpreter: this one may have loaded the whole package already)."""
    out = subprocess.run(
        [sys.executable, "-c", _LOADED, package], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out, "no module of %s loaded" % package
    return out


def _imported(package, deferred):
    """(module, name, file) for each `from M import name` of the package's source, and each
    `M.name` after an `import M`, M deferred."""
    out = []
    for path in _sources(package):
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        plain = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names if a.asname is None}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in deferred:
                out.extend((node.module, alias.name, path) for alias in node.names if alias.name != "*")
            elif isinstance(node, ast.Attribute) and isinstance(node.value, (ast.Name, ast.Attribute)):
                module = ast.unparse(node.value)
                if module in deferred and module in plain:
                    out.append((module, node.attr, path))
    return sorted(set(out))


def _kind_guessed(name):
    if name[:1].isupper() and not name.isupper():
        return "class"
    return "constant" if name.isupper() else "function"


def _kind_real(value):
    if isinstance(value, types.ModuleType):
        return "module"  # a submodule imported by name: no stand-in kind fits it
    if inspect.isclass(value):
        return "class"
    if callable(value):
        return "function"
    return "data"


@pytest.mark.parametrize(
    "package, dist, deferred",
    [
        ("trafilatura", "trafilatura", imports.TRAFILATURA_DEFERRED),
        ("readability", "readability-lxml", imports.READABILITY_DEFERRED),
    ],
)
def test_every_name_imported_from_a_deferred_library_is_guessed_right(package, dist, deferred):
    if not versions.tested(dist):
        pytest.skip("%s is not the tested version: the stand-ins stay out (versions.py)" % dist)
    names = _imported(package, set(deferred))
    assert len(names) >= (10 if package == "trafilatura" else 1), names  # the scan finds them
    wrong = []
    for module, name, path in names:
        real = getattr(importlib.import_module(module), name)
        guessed, kind = _kind_guessed(name), _kind_real(real)
        # a constant's stand-in reads the real value at once: any kind is right for it
        if guessed != "constant" and guessed != kind:
            wrong.append("%s: from %s import %s is a %s, the stand-in a %s" % (path, module, name, kind, guessed))
    assert not wrong, "\n".join(wrong)


def test_the_check_sees_a_lower_case_set_as_data_not_a_function():
    # the case the check exists for
    assert _kind_real(frozenset()) == "data" and _kind_guessed("stop_words") == "function"
    assert _kind_real(len) == "function" and _kind_real(dict) == "class"


def test_trafilatura_reads_its_own_version_without_importlib_metadata():
    # trafilatura.xml asks importlib.metadata for its version at import; the stand-in answers it
    # with the version versions.py found installed (the only one the stand-ins are used on)
    if not versions.tested("trafilatura"):
        pytest.skip("trafilatura is not the tested version: the stand-ins stay out (versions.py)")
    code = (
        "import sys\nfrom worker.pages.extract import imports\nimports.core()\nimport trafilatura.xml as x\n"
        "print(x.PKG_VERSION, 'importlib.metadata' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    import importlib.metadata

    assert out.split() == [importlib.metadata.version("trafilatura"), "False"]
