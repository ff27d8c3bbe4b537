"""Compiled regular expressions kept between calls, as Python keeps compiled modules.

Every call is a fresh process, and a fetch compiles some 250 regular expressions while it
imports its modules (trafilatura's, the extractor's, the standard library's): about 80 ms of
a 330 ms fetch on a 2-core machine, spent in ``re``'s parser and compiler, which are Python.
What they produce is small: the arguments ``re`` hands to the C engine (``_sre.compile``).
This module keeps those arguments in one file of the cache directory and hands them to the
engine again in the next call, which then skips the parser and the compiler.

- Only the code's own patterns are kept: those a module's or a class's body compiles as the
  module is imported (or code inside ``code_patterns()``).  A pattern built from a call's data
  (a ``--focus`` term, a page's words) is compiled by a function at run time and never
  written anywhere.
- The file is named for the interpreter it was made by (its cache tag, exact version and
  the engine's code format): another interpreter never reads it.  It carries a checksum,
  and the engine checks the code it is given; a file that fails either is not used
  (a one-line note on stderr) and is written again.
- Reading costs under a millisecond; the file is written only by a call that compiled a
  pattern it did not hold (the first calls after an install or an upgrade), after its answer.

``WEBSEARCH_WORKER_PLAIN=regex_cache`` (or ``=1``) turns it off (worker/startup.py).
tests/test_regex_cache.py checks that every kept pattern equals the one ``re`` compiles.
"""

from __future__ import annotations

import os
import sys
import threading

from .startup import on

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from types import FrameType
    from typing import Any

ENV = "WEBSEARCH_WORKER_REGEX_CACHE"  # the file, for the reading child (child/spawn.py)
MAGIC = b"websearch-worker regex cache 1\n"
MAX_BYTES = 4 << 20  # a fetch's patterns take about 100 KB
MAX_ENTRIES = 4000

_state: dict = {
    "path": None,
    "table": None,
    "new": {},
    "real": None,
    "engine": None,
    "hits": 0,
    "fresh": False,
    "tmp": None,
}


def file_name() -> str | None:
    """The cache file's name for this interpreter, or None where the trick cannot run."""
    try:
        import _sre

        tag = sys.implementation.cache_tag
    except ImportError:
        return None
    if not tag or _sre.CODESIZE != 4:
        return None
    return "regex-%s-%x-%d.bin" % (tag, sys.hexversion, _sre.MAGIC)


def install(directory: str, path: str | None = None) -> bool:
    """Hand ``re`` the patterns kept in ``directory`` (or the file ``path``) and record the ones
    it compiles now.  False (nothing changed) when the trick is off or cannot run here."""
    if _state["real"] is not None:
        return True
    if not on("regex_cache"):
        return False
    import re  # noqa: F401  (re._compiler)

    name = file_name()
    compiler: Any = sys.modules.get("re._compiler")
    if name is None or compiler is None or not hasattr(compiler, "compile") or not hasattr(compiler, "_sre"):
        return False
    _state["path"] = path or os.path.join(directory, name)
    _state["table"] = _UNREAD  # read at the first pattern compiled: a cached answer may compile none
    _state["real"] = compiler.compile
    _state["engine"] = engine = compiler._sre
    compiler._sre = _Engine(engine)
    compiler.compile = _compile
    return True


def install_from_env() -> bool:
    """The reading child: the parent's file, when the parent uses one (``ENV``)."""
    path = os.environ.get(ENV)
    return install(os.path.dirname(path), path) if path else False


def child_env(env: dict) -> None:
    """Name this process's file in a reading child's environment."""
    if _state["real"] is not None and _state["path"]:
        env[ENV] = _state["path"]


def _load(path: str) -> dict:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError:
        return {}
    try:
        import marshal
        import zlib

        if len(data) > MAX_BYTES or not data.startswith(MAGIC):
            raise ValueError("not a cache file of this version")
        body = data[len(MAGIC) + 4 :]
        if int.from_bytes(data[len(MAGIC) : len(MAGIC) + 4], "big") != zlib.crc32(body):
            raise ValueError("checksum")
        table = marshal.loads(body)
        if not isinstance(table, dict):
            raise ValueError("not a table")
        return table
    except Exception as exc:
        _note("%s unreadable (%s): patterns compiled again" % (path, exc))
        _state["fresh"] = True  # written again from what this process compiles, not merged
        return {}


def _note(message: str) -> None:
    try:
        sys.stderr.write("websearch-worker: regex cache: %s\n" % message)
    except Exception:
        pass


_UNREAD: dict = {}


def _compile(p, flags=0):
    """re._compiler.compile: a kept pattern from the table, anything else by ``re`` itself."""
    table = _state["table"]
    if table is _UNREAD:
        table = _state["table"] = _load(_state["path"])
    if table and isinstance(p, (str, bytes)):
        entry = table.get((p, flags))
        if entry is not None:
            try:
                final, code, groups, groupindex, indexgroup = entry
                out = _state["engine"].compile(
                    p, final, memoryview(code).cast("I").tolist(), groups, groupindex, indexgroup
                )
                _state["hits"] += 1
                return out
            except Exception as exc:  # the engine refused the code: nothing kept is trusted now
                _state["table"] = None
                _state["fresh"] = True  # written again, from what this process compiles
                _note("%s: a kept pattern was refused (%s): patterns compiled again" % (_state["path"], exc))
    # a str's subclass (lxml hands re:test its literals as such) cannot be written: not kept
    _Engine.asked.key = (p, flags) if type(p) in (str, bytes) else None
    try:
        return _state["real"](p, flags)
    finally:
        _Engine.asked.key = None


_BOOTSTRAP = (os.path.join("importlib", "_bootstrap.py"), os.path.join("importlib", "_bootstrap_external.py"))


class code_patterns:
    """``with code_patterns():`` the patterns compiled inside are the code's own, as at import
    (trafilatura's XPaths, rewritten at their first use: extract/trafilatura_fast.py)."""

    def __enter__(self) -> None:
        _Engine.asked.own = getattr(_Engine.asked, "own", 0) + 1

    def __exit__(self, *exc: object) -> None:
        _Engine.asked.own -= 1


_RE_MODULES = frozenset(("re", "re._compiler", "re._parser", "re._casefix", "re._constants", __name__))
_COMPREHENSIONS = frozenset(("<listcomp>", "<genexpr>", "<dictcomp>", "<setcomp>"))
_CO_OPTIMIZED = 0x1  # a function's code; a module's and a class body's have it not


def _code_own() -> bool:
    """Whether the pattern being compiled is the code's own: compiled by a module's or a class's
    body (or a comprehension in one, or a C module's start) while the module is imported, or
    inside code_patterns().  A function that runs during an import is not trusted with this:
    it could be handed data."""
    if getattr(_Engine.asked, "own", 0):
        return True
    f: FrameType | None = sys._getframe(1)
    while f is not None and f.f_globals.get("__name__") in _RE_MODULES:
        f = f.f_back
    while f is not None and f.f_code.co_name in _COMPREHENSIONS:
        f = f.f_back
    if f is None or (f.f_code.co_flags & _CO_OPTIMIZED and not _bootstrap(f)):
        return False
    while f is not None:
        if _bootstrap(f):
            return True
        f = f.f_back
    return False


def _bootstrap(f: FrameType) -> bool:
    """Whether ``f`` is the import system's ("<frozen importlib._bootstrap>", or its file where not frozen)."""
    name = f.f_code.co_filename
    return name.startswith("<frozen importlib._bootstrap") or name.endswith(_BOOTSTRAP)


class _Engine:
    """``_sre`` as re._compiler sees it: compile() also records what it was given."""

    asked = threading.local()

    def __init__(self, engine) -> None:
        self._engine = engine

    def __getattr__(self, name):
        return getattr(self._engine, name)

    def compile(self, pattern, flags, code, groups, groupindex, indexgroup):
        out = self._engine.compile(pattern, flags, code, groups, groupindex, indexgroup)
        key = getattr(_Engine.asked, "key", None)
        if key is not None and key[0] is pattern and len(_state["new"]) < MAX_ENTRIES and _code_own():
            try:
                import array

                packed = array.array("I", code).tobytes()
                _state["new"][key] = (flags, packed, groups, dict(groupindex), tuple(indexgroup))
            except (OverflowError, TypeError, ValueError):
                pass
        return out


def hits() -> int:
    """Patterns this process took from the file (tests and benches read it)."""
    return _state["hits"]


def save() -> None:
    """Write the file when this process compiled patterns it did not hold (merged with what
    the file holds now: another call may have written since).  Never raises."""
    new = _state["new"]
    path = _state["path"]
    if not new or path is None:
        return
    _state["new"] = {}
    tmp = None
    try:
        import marshal
        import zlib

        table = {} if _state["fresh"] else dict(_load(path))
        table.update(new)
        if len(table) > MAX_ENTRIES:
            return
        try:
            body = marshal.dumps(table)
        except ValueError:  # an entry of a type marshal refuses: the others are written
            body = marshal.dumps({k: v for k, v in table.items() if _writable(k, v)})
        if len(body) + len(MAGIC) + 4 > MAX_BYTES:
            return
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        tmp = _state["tmp"] = "%s.%d.tmp" % (path, os.getpid())
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            data = memoryview(MAGIC + zlib.crc32(body).to_bytes(4, "big") + body)
            while data:
                data = data[os.write(fd, data) :]
        finally:
            os.close(fd)
        os.replace(tmp, path)
        tmp = None
    except Exception:
        pass
    finally:
        if tmp is not None:
            abandon()
        _state["tmp"] = None


def _writable(key: Any, value: Any) -> bool:
    import marshal

    try:
        marshal.dumps((key, value))
        return True
    except ValueError:
        return False


def abandon() -> None:
    """Remove a file being written (the call's exit, a signal's too: worker/runtime.py)."""
    tmp = _state.get("tmp")
    if tmp:
        _state["tmp"] = None
        try:
            os.unlink(tmp)
        except OSError:
            pass
