"""One error vocabulary: every code the worker, the bootstrap or a host (hosts/mcp, hosts/pi,
worker.host_client) can put in an error is in worker/errors.py's list and in docs/PROTOCOL.md."""

import ast
import os
import re

from conftest import ROOT

from worker.errors import CODES

# Calls whose first argument (or ``code=``) is an error code.
CONSTRUCTORS = {
    "WorkerError",
    "error_object",
    "render_error",
    "emit_error",
    "ClientError",
    "_error_payload",
    "__init__",
}
PYTHON_TREES = ["worker", "bootstrap", "hosts"]
TS_TREES = ["hosts/pi/src", "hosts/pi/index.ts"]


def _sources(trees, suffixes):
    for top in trees:
        path = os.path.join(ROOT, top)
        if os.path.isfile(path):
            yield path
            continue
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames[:] = [d for d in dirnames if d not in ("node_modules", "__pycache__") and not d.startswith(".")]
            for name in filenames:
                if name.endswith(suffixes) and not name.endswith(".test.ts"):
                    yield os.path.join(dirpath, name)


def _name(func):
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def python_codes(source):
    """{code: where} of the error codes a Python source writes as literals."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and _name(node.func) in CONSTRUCTORS:
            args = list(node.args[:1]) + [k.value for k in node.keywords if k.arg == "code"]
            found |= {a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if isinstance(key, ast.Constant) and key.value == "code" and isinstance(value, ast.Constant):
                    found.add(value.value)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            if any(isinstance(t, ast.Name) and t.id in ("code", "error_code") for t in node.targets):
                found.add(node.value.value)
    return {c for c in found if isinstance(c, str)}


def ts_codes(source):
    return set(re.findall(r"\bcode\s*(?::|===)\s*\"([a-z_]+)\"", source))


def emitted():
    out = {}
    for path in _sources(PYTHON_TREES, (".py",)):
        with open(path, encoding="utf-8") as f:
            for code in python_codes(f.read()):
                out.setdefault(code, set()).add(os.path.relpath(path, ROOT))
    for path in _sources(TS_TREES, (".ts",)):
        with open(path, encoding="utf-8") as f:
            for code in ts_codes(f.read()):
                out.setdefault(code, set()).add(os.path.relpath(path, ROOT))
    return out


def documented():
    with open(os.path.join(ROOT, "docs", "PROTOCOL.md"), encoding="utf-8") as f:
        return set(re.findall(r"^\| `([a-z_]+)`", f.read(), re.M))


def test_the_collector_sees_codes_in_every_shape():
    src = (
        'raise WorkerError(\n    "timeout", "slow")\n'
        'x = error_object(code="network", message="m")\n'
        'd = {"code": "blocked", "message": "m"}\n'
        'code = "http_error"\n'
        'super().__init__("usage", message)\n'
        'other("not_a_code")\n'
    )
    assert python_codes(src) == {"timeout", "network", "blocked", "http_error", "usage"}
    assert ts_codes('const e = { code: "internal" }; if (e.code === "cancelled") {}') == {"internal", "cancelled"}


def test_every_code_any_part_can_emit_is_listed_and_documented():
    codes = emitted()
    # the collector reaches every part: the worker, the bootstrap, both hosts
    assert {"blocked_address", "usage", "protocol", "cancelled", "internal"} <= set(codes)
    places = {
        where.split("/")[0] if where.startswith(("worker", "bootstrap")) else where.split("/")[1]
        for paths in codes.values()
        for where in paths
    }
    assert places >= {"worker", "bootstrap", "mcp", "pi"}, places
    unlisted = {c: w for c, w in codes.items() if c not in CODES}
    assert not unlisted, "codes outside worker/errors.py CODES: %s" % unlisted
    missing = sorted((set(codes) | set(CODES)) - documented())
    assert not missing, "codes not in docs/PROTOCOL.md's table: %s" % missing
