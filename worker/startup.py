"""The start-up tricks: every place where the worker reaches past a public module to save
time, named here, and one switch that turns them off.

Every call is a fresh process, so what a call imports is part of its latency (a cached
answer costs ~30 ms in all).  A trick is a cheaper way to the same result: a C module
instead of the public package around it, an import put off, a library's slow routine
replaced by one that gives the same answers.  Each one falls back to the public way
where its own way is missing, and each can be turned off:

    WEBSEARCH_WORKER_PLAIN=1            every trick off: the public modules, as they ship
    WEBSEARCH_WORKER_PLAIN=json,sqlite  only these off (bench/startup/tricks.py times each)

The older switches still work: ``WEBSEARCH_WORKER_PLAIN_IMPORTS`` (any value) turns off
the import stand-ins of trafilatura and readability, ``WEBSEARCH_EXA_PLAIN_IMPORT`` the
fast import of exa-py.  Outputs are the same either way (tests/test_plain.py runs the
CLI both ways).  docs/PERFORMANCE.md#start-up-tricks-one-switch-issue-46 has each trick's
measured saving: a trick must save ~5 ms to stay (json, sqlite and fast_parser pass
together only: they keep re, enum, datetime and the stdlib parser off a cached call between
them).

Standard library ``os`` only: this module is read on every call's path.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Mapping

SWITCH = "WEBSEARCH_WORKER_PLAIN"

# name -> (where, what it does instead of the public way)
TRICKS = {
    "json": ("worker/jsonio.py", "the _json C encoder and scanner instead of the json package"),
    "sqlite": ("worker/state/sqlite_file.py", "the _sqlite3 C module instead of sqlite3"),
    "fast_parser": ("worker/cli/fast.py", "plain command lines read by hand from the declarations"),
    "record": ("worker/request.py", "the requests' frozen classes built by hand instead of by dataclasses"),
    "standins": (
        "worker/pages/extract/imports.py",
        "trafilatura and readability imported with stand-ins for libraries the path never calls",
    ),
    "exa_import": ("worker/providers/exa_import.py", "exa-py imported without openai and its other imports"),
    "xpath_rewrite": ("worker/pages/extract/trafilatura_fast.py", "trafilatura's re:test XPaths rewritten"),
    "readability_fast": ("worker/pages/extract/readability_fast.py", "readability's clean and tostring replaced"),
    "regex_cache": ("worker/regex_cache.py", "compiled regular expressions kept between calls, not compiled again"),
    "gc_threshold": ("worker/startup.py", "the young generation collected every 50,000 allocations, not 700"),
    "import_ahead": ("worker/pages/extract/ahead.py", "extraction's imports on a thread while the page downloads"),
}
# The older switches: any value turns these tricks off.
ALIASES = {"WEBSEARCH_WORKER_PLAIN_IMPORTS": ("standins",), "WEBSEARCH_EXA_PLAIN_IMPORT": ("exa_import",)}
ALL = ("1", "all", "true", "yes", "on")

_off: dict[int, frozenset[str]] = {}


def off_in(environ: Mapping[str, str]) -> frozenset[str]:
    """The tricks ``environ`` turns off (names not in TRICKS are left out)."""
    value = (environ.get(SWITCH) or "").strip().lower()
    if value in ALL:
        names = set(TRICKS)
    elif value in ("", "0", "false", "no", "off"):
        names = set()
    else:
        names = {name.strip() for name in value.split(",")} & set(TRICKS)
    for variable, tricks in ALIASES.items():
        if environ.get(variable):
            names.update(tricks)
    return frozenset(names)


def on(name: str) -> bool:
    """Whether trick ``name`` runs in this process (read from the environment once)."""
    off = _off.get(0)
    if off is None:
        off = _off[0] = off_in(os.environ)
    return name not in off


# Allocations between two collections of the young generation (Python's default: 700).
GC_FIRST = 50_000


def tune_gc() -> None:
    """Collect the young generation every GC_FIRST allocations, not 700: a fetch allocates a few
    hundred thousand objects, most of them while it imports, and the collections they set off
    cost about 7% of its CPU (docs/PERFORMANCE.md).  A call lives for seconds at most; an object
    in no reference cycle is freed at once as always, and cycles are still collected, later."""
    if on("gc_threshold"):
        import gc

        _young, middle, old = gc.get_threshold()
        gc.set_threshold(GC_FIRST, middle, old)


def forget() -> None:
    """Read the switch again at the next ``on`` (tests that set it in-process)."""
    _off.clear()
