"""The versions of trafilatura and readability-lxml whose internals the worker rewrites at run time.

imports.py loads both with stand-ins for libraries they import, trafilatura_fast.py rewrites
trafilatura's XPaths and readability_fast.py replaces two of readability's functions. Each was
checked against one version, the one requirements.lock pins (tests/pages/test_versions.py keeps
TESTED equal to the lock, and the wheel requires exactly these: bootstrap/build_backend.py).  On
any other installed version ``tested(dist)`` is False, each rewrite stays out, and the library
runs as it ships, with one warning on stderr a process.

The version is read from the ``*.dist-info`` folder's name beside the package: a directory
listing, where importlib.metadata would cost ~36 ms of every call's start-up.
"""

from __future__ import annotations

import os
import sys

TESTED = {"trafilatura": "2.3.1", "readability-lxml": "0.9"}
MODULE = {"trafilatura": "trafilatura", "readability-lxml": "readability"}  # dist -> its import package

_known: dict[str, bool] = {}


def _folder(module: str) -> str | None:
    """The folder that holds ``module``'s package (site-packages), without importing it."""
    loaded = sys.modules.get(module)
    origin = loaded.__dict__.get("__file__") if loaded is not None else None  # no stand-in's __getattr__
    if origin is None:
        import importlib.util

        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            return None
        origin = spec.origin if spec is not None else None
    if not origin:
        return None
    return os.path.dirname(os.path.dirname(os.path.abspath(origin)))


def _norm(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


def installed_versions(dist: str, folder: str | None = None) -> list[str]:
    """The versions of ``dist`` that ``*.dist-info`` folders beside its package name (one when
    installed once; none when it is not installed or not as a wheel, e.g. from a source tree)."""
    folder = folder if folder is not None else _folder(MODULE.get(dist, dist))
    if folder is None:
        return []
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    want = _norm(dist)
    out = []
    for name in names:
        if name.endswith(".dist-info"):
            project, _, version = name[: -len(".dist-info")].partition("-")
            if _norm(project) == want and version:
                out.append(version)
    return sorted(out)


def installed_version(dist: str) -> str | None:
    """The installed version of ``dist``; None when there is none, or more than one folder says."""
    versions = installed_versions(dist)
    return versions[0] if len(versions) == 1 else None


def tested(dist: str) -> bool:
    """Whether the installed ``dist`` is the version its rewrites were tested on; asked once a
    process, and the first False says so on stderr."""
    known = _known.get(dist)
    if known is None:
        version = installed_version(dist)
        known = _known[dist] = version == TESTED[dist]
        if not known:
            _warn(dist, version)
    return known


def _warn(dist: str, version: str | None) -> None:
    try:
        sys.stderr.write(
            "websearch-worker: warning: %s %s is installed, not %s, the version the worker's run-time "
            "rewrites of it were tested on: they are off, and %s runs as it ships (slower)\n"
            % (dist, version or "(version unknown)", TESTED[dist], dist)
        )
        sys.stderr.flush()
    except Exception:  # a closed stderr is no reason to fail the call
        pass
