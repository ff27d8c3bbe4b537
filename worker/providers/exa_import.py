"""Import exa-py without the parts a search or fetch never touches.

``import exa_py`` eagerly imports ``openai`` (only for exa-py's OpenAI-wrapper
helpers) and the websets, research, monitors and agent sub-packages (hundreds
of pydantic models, only for their own clients, which ``Exa.__init__``
merely constructs).  That is most of a second in a fresh process; the search
and contents calls need none of it.

While ``exa_py`` is being imported, a meta-path finder answers:

* ``openai`` and its sub-modules, imported *by exa_py*, with an inert module
  holding placeholder classes for exactly the names exa-py uses (annotations
  and one subclass for the wrapper helpers);
* the four sub-packages with placeholder packages that keep the real
  ``__path__`` (so the small real sub-modules exa-py needs, the JSON encoder
  and the beta headers, still load) and hand out deferred clients: the real
  sub-package is imported the first time such a client is used.

Anything the finder does not know (a new name, a new import) raises inside
the import, and we fall back to the plain ``import exa_py``.  The known names
are listed below; tests/providers/test_exa.py scans the installed exa-py and fails when
its imports no longer match them.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
from importlib.machinery import ModuleSpec

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from types import ModuleType
else:
    ModuleType = type(sys)  # the same class, without importing types

# names exa-py imports from openai (api.py, utils.py)
OPENAI_NAMES = frozenset({"OpenAI", "ChatCompletionMessageParam", "ChatModel", "ChatCompletion"})

# deferred sub-package -> the names exa_py.api imports from it
DEFERRED = {
    "exa_py.websets": frozenset({"WebsetsClient", "AsyncWebsetsClient"}),
    "exa_py.websets.core": frozenset(),  # only a path holder for websets.core.base
    "exa_py.research": frozenset({"ResearchClient", "AsyncResearchClient"}),
    "exa_py.monitors": frozenset({"SearchMonitorsClient", "AsyncSearchMonitorsClient"}),
    "exa_py.agent": frozenset({"AgentNamespace", "AsyncAgentNamespace", "BetaClient", "AsyncBetaClient"}),
}

#: how exa_py was imported in this process: "fast", "plain" or None
mode = None
#: why the fast path was not taken (for meta and the bench)
fallback_reason = None


class _Unavailable:
    """Placeholder for an openai name: harmless to annotate with or subclass, fails when used."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("exa-py's OpenAI helpers are not available in websearch-worker's fast exa import")


class _OpenAIStub(ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name not in OPENAI_NAMES:
            raise AttributeError("fast exa import: exa-py uses openai.%s, which is not known" % name)
        cls = type(name, (_Unavailable,), {"__module__": self.__name__})
        setattr(self, name, cls)
        return cls


def _deferred_client(package, name):
    """A stand-in for a client class of a deferred sub-package."""

    class Deferred:
        __slots__ = ("_args", "_kwargs", "_real")

        def __init__(self, *args, **kwargs):
            object.__setattr__(self, "_args", args)
            object.__setattr__(self, "_kwargs", kwargs)
            object.__setattr__(self, "_real", None)

        def _resolve(self):
            real = object.__getattribute__(self, "_real")
            if real is None:
                cls = getattr(_load_real(package), name)
                real = cls(*object.__getattribute__(self, "_args"), **object.__getattribute__(self, "_kwargs"))
                object.__setattr__(self, "_real", real)
            return real

        def __getattr__(self, attr):
            return getattr(self._resolve(), attr)

    Deferred.__name__ = Deferred.__qualname__ = "Deferred" + name
    return Deferred


class _DeferredPackage(ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name not in DEFERRED.get(self.__name__, ()):
            raise AttributeError("fast exa import: exa-py uses %s.%s, which is not known" % (self.__name__, name))
        cls = _deferred_client(self.__name__, name)
        setattr(self, name, cls)
        return cls


def _load_real(package):
    """Replace the placeholder packages under ``package``'s top sub-package by the real ones."""
    top = ".".join(package.split(".")[:2])
    for mod_name in sorted(DEFERRED, key=len, reverse=True):
        mod = sys.modules.get(mod_name)
        if (mod_name == top or mod_name.startswith(top + ".")) and isinstance(mod, _DeferredPackage):
            del sys.modules[mod_name]
    real = importlib.import_module(package)
    parent, _, child = package.rpartition(".")
    setattr(sys.modules[parent], child, real)
    return real


class _Finder:
    """Meta-path finder active only while exa_py is imported, and only for the thread importing it.

    Every import on that thread in that window is exa_py's (or one of its
    dependencies'); an import of openai by anyone else, on another thread,
    gets the real package.  A dependency that imported openai would get the
    stub too, which fails on any name exa-py does not use: the plain import
    then takes over.
    """

    def __init__(self):
        self.stubbed = []
        self.thread = threading.get_ident()

    def find_spec(self, fullname, path=None, target=None):
        if threading.get_ident() != self.thread:
            return None
        if fullname == "openai" or fullname.startswith("openai."):
            if fullname != "openai" and not isinstance(sys.modules.get("openai"), _OpenAIStub):
                return None
            if fullname.rpartition(".")[2][:1].isupper():
                # `from openai.x import Name` retries Name as a sub-module when the
                # attribute is unknown: let that fail as an ImportError
                return None
            return ModuleSpec(fullname, self, is_package=True)  # type: ignore[arg-type]  # a loader by duck typing
        if fullname in DEFERRED:
            return ModuleSpec(fullname, self, is_package=True)  # type: ignore[arg-type]  # a loader by duck typing
        return None

    def create_module(self, spec):
        name = spec.name
        if name in DEFERRED:
            parent = sys.modules[name.rpartition(".")[0]]
            directory = os.path.join(parent.__path__[0], name.rpartition(".")[2])
            if not os.path.isfile(os.path.join(directory, "__init__.py")):
                raise ImportError("fast exa import: %s is not a package any more" % name)
            module: ModuleType = _DeferredPackage(name)
            module.__path__ = [directory]
        else:
            module = _OpenAIStub(name)
            module.__path__ = []
        self.stubbed.append(name)
        return module

    def exec_module(self, module):
        pass


def _purge(prefixes):
    for name in list(sys.modules):
        if any(name == p or name.startswith(p + ".") for p in prefixes):
            del sys.modules[name]


_importing = threading.Lock()  # the queries of one search run on threads: one of them imports, the others wait


def import_exa() -> ModuleType:
    """The ``exa_py`` module: the fast way when it works, else the plain import."""
    with _importing:  # sys.modules holds exa_py before its import ends: only a finished one is handed out
        return _import_exa()


def _import_exa() -> ModuleType:
    global mode, fallback_reason
    if "exa_py" in sys.modules:
        return sys.modules["exa_py"]
    from ..startup import on  # WEBSEARCH_WORKER_PLAIN (or the older WEBSEARCH_EXA_PLAIN_IMPORT): exa-py as it ships

    if not on("exa_import") or "openai" in sys.modules:
        fallback_reason = "disabled" if not on("exa_import") else "openai already imported"
        return _plain()
    finder = _Finder()
    sys.meta_path.insert(0, finder)
    try:
        exa_py = importlib.import_module("exa_py")
        exa_cls = exa_py.Exa
        for attr in ("search", "get_contents", "request"):
            if not callable(getattr(exa_cls, attr, None)):
                raise ImportError("fast exa import: Exa.%s is missing" % attr)
    except Exception as exc:  # anything unexpected: the plain import is always correct
        fallback_reason = "%s: %s" % (type(exc).__name__, exc)
        sys.meta_path.remove(finder)
        _purge(["exa_py", "openai"])
        return _plain()
    sys.meta_path.remove(finder)
    # Only the openai stubs leave sys.modules; a later real `import openai` gets
    # the real package (exa_py keeps its placeholder names, used only by the
    # wrapper helpers).  The deferred packages stay until a client needs them.
    for name in finder.stubbed:
        if name == "openai" or name.startswith("openai."):
            sys.modules.pop(name, None)
    mode = "fast"
    return exa_py


def _plain():
    global mode
    exa_py = importlib.import_module("exa_py")
    mode = "plain"
    return exa_py
