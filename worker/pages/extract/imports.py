"""Import trafilatura's extraction core without its start-up bill.

`import trafilatura` costs ~190 ms in a fresh process, most of it in libraries that
the extraction path we use (bare_extraction on a parsed tree, fast mode, no metadata)
never calls: courlan (with urllib3, tld, babel), htmldate (with dateutil),
charset_normalizer and justext, plus the package __init__ that also loads the
downloader. The worker is a fresh process per call, so this is paid on every fetch.

core() imports trafilatura.core with those libraries replaced, for the duration of
the import only, by stand-ins whose attributes load the real library on first use
(so every code path still works, it just pays then). The trafilatura package
__init__ is not run at import; its names are filled in on first access of any
attribute it defines. If anything about this fails, it falls back to the plain
import. WEBSEARCH_WORKER_PLAIN=1 (or the older WEBSEARCH_WORKER_PLAIN_IMPORTS=1) disables
it (worker/startup.py); it is off, with a warning, on a version other than the tested one
(versions.py).

tests/pages/test_extract.py checks that the output is identical either way.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types

from ...startup import on

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from importlib.machinery import ModuleSpec
    from typing import Any, Callable, Iterable, TypeVar

    T = TypeVar("T")

# Imported by trafilatura's modules at start-up, called only on paths we do not take
# (bytes decoding, URL handling, metadata, justext fallback, TEI output, downloads).
TRAFILATURA_DEFERRED = (
    "courlan",
    "htmldate",
    "charset_normalizer",
    "justext",
    "justext.core",
    "justext.utils",
    "urllib3",
    "urllib3.response",
    # trafilatura.xml asks for its own version at import (its XML output's metadata):
    # importlib.metadata with email, zipfile and the lookup cost ~12 ms (see _version)
    "importlib.metadata",
    # lxml.etree, first imported by trafilatura.core, takes inspect's getfullargspec (a
    # parser target's arity: we use none) and gzip's GzipFile (file input: we hand it
    # strings); inspect brings ast, dis and tokenize, ~7 ms of a fresh call
    "inspect",
    "gzip",
)
# readability-lxml: chardet only decodes bytes input (we pass a parsed tree);
# urllib.request only serves its command-line main().
READABILITY_DEFERRED = ("chardet", "urllib.request")

_state: dict[str, str | None] = {"mode": None}
# The thread that imports ahead of a download (ahead.py), while it is known
AHEAD: dict[str, threading.Thread] = {}


def settled() -> None:
    """Return once the imports made ahead are done, unless called on their own thread: no other
    thread may import while the stand-ins are in sys.modules (extract/ahead.py)."""
    thread = AHEAD.get("thread")
    if thread is not None and thread is not threading.current_thread():
        thread.join()


def mode() -> str | None:
    """'deferred', 'plain' or None (not imported yet): how trafilatura was loaded."""
    return _state["mode"]


def _real(modname: str) -> types.ModuleType:
    mod = sys.modules.get(modname)
    if mod is None or getattr(mod, "__worker_standin__", False):
        if mod is not None:
            del sys.modules[modname]
        mod = importlib.import_module(modname)
    return mod


class _LazyClassMeta(type):
    """A stand-in class: attribute access and calls go to the real class."""

    def _target(cls):
        return getattr(_real(cls.__worker_module__), cls.__worker_name__)

    def __getattr__(cls, attr):
        if attr.startswith("__"):  # typing and the import system probe dunders
            raise AttributeError(attr)
        return getattr(cls._target(), attr)

    def __call__(cls, *args, **kwargs):
        return cls._target()(*args, **kwargs)

    def __instancecheck__(cls, obj):
        # Nothing can be an instance of a class whose module was never imported.
        mod = sys.modules.get(cls.__worker_module__)
        if mod is None or getattr(mod, "__worker_standin__", False):
            return False
        return isinstance(obj, cls._target())

    def __subclasscheck__(cls, sub):
        mod = sys.modules.get(cls.__worker_module__)
        if mod is None or getattr(mod, "__worker_standin__", False):
            return False
        return issubclass(sub, cls._target())


def _lazy_function(modname: str, name: str) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(_real(modname), name)(*args, **kwargs)

    call.__name__ = name
    call.__qualname__ = "%s.%s" % (modname, name)
    return call


# The module objects built here get attributes ModuleType does not declare (a marker,
# a module __getattr__ of PEP 562): the type: ignores below are for those.
def _standin(modname: str) -> types.ModuleType:
    mod = types.ModuleType(modname)
    mod.__worker_standin__ = True  # type: ignore[attr-defined]
    mod.__path__ = []  # lets "import a.b" find the stand-in for a.b in sys.modules

    def __getattr__(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name[:1].isupper() and not name.isupper():
            return _LazyClassMeta(name, (), {"__worker_module__": modname, "__worker_name__": name})
        if name.isupper():  # a constant: needs the real value
            return getattr(_real(modname), name)
        return _lazy_function(modname, name)

    mod.__getattr__ = __getattr__  # type: ignore[method-assign]
    return mod


def _version(dist: str) -> str:
    """importlib.metadata.version for the stand-in: trafilatura's own is the version core()
    found installed (stand-ins are used only when it is versions.TESTED's); any other, the real."""
    from .versions import TESTED

    if dist == "trafilatura":
        return TESTED["trafilatura"]
    return _real("importlib.metadata").version(dist)


# Stand-ins' names that are answered here, not by the real module
_ANSWERED: dict[str, dict[str, Any]] = {"importlib.metadata": {"version": _version}}


def _lazy_package(spec: ModuleSpec) -> types.ModuleType:
    """The trafilatura package object without running its __init__ until needed."""
    origin, locations = spec.origin, spec.submodule_search_locations
    assert origin is not None and locations is not None  # core() hands over only a package with a source file
    pkg = types.ModuleType(spec.name)
    pkg.__spec__ = spec
    pkg.__path__ = list(locations)
    pkg.__file__ = origin
    pkg.__package__ = spec.name
    pkg.__loader__ = spec.loader

    def __getattr__(name: str) -> Any:
        if name.startswith("__") or pkg.__dict__.get("__worker_initialised__"):
            raise AttributeError(name)
        pkg.__worker_initialised__ = True  # type: ignore[attr-defined]
        with open(origin, encoding="utf-8") as f:
            exec(compile(f.read(), origin, "exec"), pkg.__dict__)
        try:
            return pkg.__dict__[name]
        except KeyError:
            raise AttributeError(name) from None

    pkg.__getattr__ = __getattr__  # type: ignore[method-assign]
    return pkg


def _with_standins(names: Iterable[str], load: Callable[[], T]) -> T:
    """Run load() with stand-ins for the modules in names that are not imported yet."""
    installed: dict[str, tuple[types.ModuleType, types.ModuleType | None, str, object]] = {}
    try:
        for name in names:
            if name not in sys.modules:
                standin = sys.modules[name] = _standin(name)
                standin.__dict__.update(_ANSWERED.get(name, {}))
                parent, _, child = name.rpartition(".")
                parent_mod = sys.modules.get(parent) if parent else None
                previous = getattr(parent_mod, child, _MISSING) if parent_mod is not None else _MISSING
                installed[name] = (standin, parent_mod, child, previous)
        return load()
    finally:
        for name, (standin, parent_mod, child, previous) in installed.items():
            if sys.modules.get(name) is standin:
                del sys.modules[name]
            # the import system also set parent.child = stand-in: put back what was there
            if parent_mod is not None and getattr(parent_mod, child, None) is standin:
                if previous is _MISSING:
                    try:
                        delattr(parent_mod, child)
                    except AttributeError:
                        pass
                else:
                    setattr(parent_mod, child, previous)


_MISSING = object()


def core() -> types.ModuleType:
    """The trafilatura.core module, imported as cheaply as is safe."""
    settled()
    if "trafilatura.core" in sys.modules:
        if _state["mode"] is None:
            _state["mode"] = "plain"
        return sys.modules["trafilatura.core"]
    if not on("standins") or "trafilatura" in sys.modules:
        return _plain("trafilatura.core")
    from .versions import tested

    if not tested("trafilatura"):  # the stand-ins name what 2.3.1 imports: another version loads as it ships
        return _plain("trafilatura.core")
    before = set(sys.modules)
    spec = importlib.util.find_spec("trafilatura")
    if spec is None or not spec.submodule_search_locations or not spec.origin:
        return _plain("trafilatura.core")

    def load() -> types.ModuleType:
        sys.modules["trafilatura"] = _lazy_package(spec)
        for sub in ("core", "xml", "htmlprocessing", "utils"):
            importlib.import_module("trafilatura." + sub)
        return sys.modules["trafilatura.core"]

    try:
        mod = _with_standins(TRAFILATURA_DEFERRED, load)
    except Exception:
        for name in set(sys.modules) - before:
            if name == "trafilatura" or name.startswith("trafilatura."):
                del sys.modules[name]
        return _plain("trafilatura.core")
    # what trafilatura's __init__ would have done: its warnings ("discarding data") are
    # not for our stderr unless the application configures logging
    import logging

    logging.getLogger("trafilatura").addHandler(logging.NullHandler())
    _state["mode"] = "deferred"
    return mod


def readability() -> types.ModuleType:
    """The readability.readability module (readability-lxml), imported as cheaply as is safe."""
    settled()
    import logging

    # readability logs a traceback at ERROR on pages it cannot parse; we fall back
    # instead, so keep it off stderr unless the application configures logging
    logging.getLogger("readability").addHandler(logging.NullHandler())
    if "readability.readability" in sys.modules:
        return sys.modules["readability.readability"]
    if not on("standins") or "readability" in sys.modules:
        return importlib.import_module("readability.readability")
    from .versions import tested

    if not tested("readability-lxml"):
        return importlib.import_module("readability.readability")
    before = set(sys.modules)
    try:
        return _with_standins(READABILITY_DEFERRED, lambda: importlib.import_module("readability.readability"))
    except Exception:
        for name in set(sys.modules) - before:
            if name == "readability" or name.startswith("readability."):
                del sys.modules[name]
        return importlib.import_module("readability.readability")


def _plain(name: str) -> types.ModuleType:
    mod = importlib.import_module(name)
    _state["mode"] = "plain"
    return mod
