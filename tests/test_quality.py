"""Quality gates, run by the test command like any test: ruff (lint and format) over
the code, mypy over worker/, bootstrap/ and hosts/mcp (settings in pyproject.toml), and every
public function of those annotated."""

import ast
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINTED = ["worker", "bootstrap", "tests", "bench", "hosts/mcp"]
TYPED = ["worker", "bootstrap", "hosts/mcp"]


def _run(*args, timeout=300):
    r = subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    return r.returncode, (r.stdout + r.stderr)[-6000:]


def test_ruff_lint():
    rc, out = _run("ruff", "check", "--no-cache", *LINTED)
    assert rc == 0, out


def test_ruff_format():
    rc, out = _run("ruff", "format", "--check", "--no-cache", *LINTED)
    assert rc == 0, "run: .venv-dev/bin/python -m ruff format %s\n%s" % (" ".join(LINTED), out)


@pytest.mark.slow
def test_mypy(tmp_path):
    rc, out = _run("mypy", "--cache-dir", str(tmp_path / "mypy"), timeout=600)
    assert rc == 0, out


def _python_files():
    for top in TYPED:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, top)):
            dirnames[:] = [d for d in dirnames if not d.startswith((".", "__"))]
            for name in filenames:
                if name.endswith(".py"):
                    yield os.path.join(dirpath, name)


def unannotated(source, filename="<source>"):
    """["file:line name"] of public functions and methods missing a parameter or return annotation."""
    out = []
    tree = ast.parse(source, filename)

    def visit(node, in_function, in_class):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                # nested helpers are private to their function; dunders other than
                # __init__ follow the data model's own signatures
                public = not child.name.startswith("_") or child.name == "__init__"
                if public and not in_function:
                    a = child.args
                    params = a.posonlyargs + a.args + a.kwonlyargs + [p for p in (a.vararg, a.kwarg) if p]
                    if params and params[0].arg in ("self", "cls") and in_class:
                        params = params[1:]
                    missing = [p.arg for p in params if p.annotation is None]
                    if missing or (child.returns is None and child.name != "__init__"):
                        out.append("%s:%d %s" % (filename, child.lineno, child.name))
                visit(child, True, False)
            elif isinstance(child, ast.ClassDef):
                if not child.name.startswith("_") and not in_function:
                    visit(child, False, True)
            else:  # an if/try block keeps its owner: a method under `if TYPE_CHECKING:` is a method
                visit(child, in_function, in_class)

    visit(tree, False, False)
    return out


def test_the_annotation_check_sees_what_is_missing():
    src = (
        "def ok(a: int, *b: str, c: int = 1, **d: int) -> None: ...\n"
        "def no_return(a: int): ...\n"
        "def no_param(a) -> int: ...\n"
        "def _private(a): ...\n"
        "class C:\n"
        "    def __init__(self, a: int): ...\n"
        "    def m(self, x) -> None: ...\n"
        "    def _p(self, x): ...\n"
        "    def __repr__(self): ...\n"
        "class D:\n"
        "    if True:\n"
        "        def n(self, x: int) -> None: ...\n"
        "class _Hidden:\n"
        "    def m(self, x): ...\n"
    )
    assert [x.split(" ")[1] for x in unannotated(src)] == ["no_return", "no_param", "m"]


def test_public_functions_are_annotated():
    missing = []
    for path in _python_files():
        with open(path, encoding="utf-8") as f:
            missing += unannotated(f.read(), os.path.relpath(path, ROOT))
    assert not missing, "%d public functions without annotations:\n%s" % (len(missing), "\n".join(missing))
