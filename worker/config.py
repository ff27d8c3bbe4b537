"""Which providers exist and which one answers a call.

Minimal foundation version: the builtin no-key providers (ddgs for search,
local for fetch).  The config file and keyed providers extend this module.
"""

from .errors import WorkerError
from .providers.base import ProviderSpec

SEARCH_FALLBACK = "ddgs"
FETCH_FALLBACK = "local"


class Config:
    def __init__(self, path=None, providers=None, default=None, settings=None):
        self.path = path
        self.providers = providers or {}
        self.default = default
        self.settings = settings or {}


def builtin_specs():
    return {
        "ddgs": ProviderSpec("ddgs", "ddgs"),
        "local": ProviderSpec("local", "local"),
    }


def load(args):
    return Config(providers=builtin_specs())


def select(config, tool, requested=None):
    """The ProviderSpec that answers ``tool`` given ``--provider`` (or None)."""
    name = requested or config.default or "auto"
    if name == "auto":
        name = SEARCH_FALLBACK if tool == "search" else FETCH_FALLBACK
    spec = config.providers.get(name)
    if spec is None:
        known = ", ".join(sorted(config.providers)) or "none"
        raise WorkerError("config", "unknown provider %r (configured: %s)" % (name, known),
                          hint="pass --provider with one of the configured names")
    return spec
