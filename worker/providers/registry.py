"""The builtin providers, one row each, and how a provider is loaded.

The config and the search chain read a builtin's facts from this table rather
than from its class, so choosing a provider imports no provider module: a cached
answer never pays for a provider library.  A provider of the user's own is a
"module:Class" reference; its class declares the same facts (base.Provider), and
is imported when the config names it.  tests/providers/test_registry.py checks
each builtin class declares what its row says.
"""

TYPE_CHECKING = False  # typing's own flag, without importing typing on every call
if TYPE_CHECKING:
    from collections.abc import Iterable

    from ..runtime import Call
    from .base import Provider, ProviderSpec


class Builtin:
    """What the worker knows about a builtin provider type without importing it."""

    __slots__ = ("ref", "tools", "key_env", "verticals", "engine_circuits", "search_concurrency")

    def __init__(
        self,
        ref: str,
        tools: "Iterable[str]",
        key_env: "str | None" = None,
        verticals: "Iterable[str]" = ("web",),
        engine_circuits: bool = False,
        search_concurrency: "int | None" = None,
    ):
        self.ref = ref  # "module:Class", the module relative to this package
        self.tools = frozenset(tools)  # "search", "fetch"
        self.key_env = key_env  # the environment variable holding its API key; None: it needs no key
        self.verticals = frozenset(verticals)  # search verticals it answers ("web", "news")
        # Its engines keep a breaker circuit each (providers/ddgs.py), so the chain keeps none for the provider.
        self.engine_circuits = engine_circuits
        self.search_concurrency = search_concurrency  # concurrent searches across processes; None: the default


# Table order is the auto order of the keyed ones (exa before brave).
BUILTINS = {
    "ddgs": Builtin(
        ".ddgs:DdgsProvider",
        {"search"},
        verticals={"web", "news"},
        engine_circuits=True,
        # the no-key engines block whole IP ranges when hammered
        search_concurrency=5,
    ),
    "local": Builtin(".local:LocalFetchProvider", {"fetch"}),
    "exa": Builtin(".exa:ExaProvider", {"search", "fetch"}, key_env="EXA_API_KEY", verticals={"web", "news"}),
    "brave": Builtin(".brave:BraveProvider", {"search"}, key_env="BRAVE_API_KEY", verticals={"web", "news"}),
}
# The developer sources a search can add with --sources (worker/tools/multisearch.py): not in the
# provider chain, never chosen by --provider; the config's "sites" settings configure them.
SOURCES = {
    # GitHub asks clients not to send searches concurrently (its secondary rate limits)
    "github": Builtin(".github_search:GithubSearch", {"search"}, verticals={"dev"}, search_concurrency=2),
    "stackexchange": Builtin(
        ".stackexchange_search:StackExchangeSearch", {"search"}, verticals={"dev"}, search_concurrency=5
    ),
}
SEARCH_FALLBACK = "ddgs"  # answers a search when nothing else can: no key
FETCH_FALLBACK = "local"  # answers a fetch unless the config's default provider can
DEFAULT_SEARCH_CONCURRENCY = 5
KEYED = tuple(name for name, b in BUILTINS.items() if b.key_env)


def search_concurrency(spec: "ProviderSpec") -> int:
    """How many searches with ``spec`` may run at once across processes: its "concurrency" option, else its type's."""
    builtin = BUILTINS.get(spec.type) or SOURCES.get(spec.type)
    default = (builtin and builtin.search_concurrency) or DEFAULT_SEARCH_CONCURRENCY
    limit = (spec.options or {}).get("concurrency", default)
    try:
        return max(1, int(limit))
    except (TypeError, ValueError):
        return DEFAULT_SEARCH_CONCURRENCY


def engine_circuits(spec: "ProviderSpec") -> bool:
    builtin = BUILTINS.get(spec.type)
    return bool(builtin and builtin.engine_circuits)


def load_class(type_name: str) -> "type[Provider]":
    """The provider class for a builtin type or a "module:attr" reference."""
    from importlib import import_module

    builtin = BUILTINS.get(type_name) or SOURCES.get(type_name)
    ref = builtin.ref if builtin is not None else type_name
    module_name, _, attr = ref.partition(":")
    module = import_module(module_name, __package__)
    return getattr(module, attr)


def build(spec: "ProviderSpec", call: "Call | None", tool: str) -> "Provider":
    """The provider for ``spec``, checked to answer ``tool`` ("search" or "fetch")."""
    from ..errors import WorkerError
    from ..pages.net import proxy

    # Before any provider or library reads a proxy variable its own way; here, so an answer
    # served from the cache pays for no check (nor for urllib.parse).
    proxy.check_environment()
    provider = load_class(spec.type)(spec, call)
    if tool not in provider.tools:
        raise WorkerError(
            "invalid_argument",
            "provider %r (%s) cannot %s" % (spec.name, spec.type, tool),
            hint="choose a provider that supports %s with --provider" % tool,
        )
    return provider
