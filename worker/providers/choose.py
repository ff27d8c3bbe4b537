"""Which provider answers a call: the routing between the config's providers.

``select`` picks the one provider of a fetch or a map (and of a search named with
--provider); ``search_chain`` the providers a search tries in turn.  The builtins' tools,
keys and verticals are the registry's (worker.providers.registry); a provider of the user's
own ("module:Class") says them on its class, which is imported here, a config error when
that fails.
"""

from __future__ import annotations

from ..errors import WorkerError
from .registry import BUILTINS, FETCH_FALLBACK, SEARCH_FALLBACK, load_class

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from ..config.schema import Config
    from .base import Provider, ProviderSpec


def _config_error(path: str | None, problem: str, **kw: str) -> WorkerError:
    from ..config.schema import config_error  # a mistake's wording is the config's own

    return config_error(path, problem, **kw)


def tools_of(cfg: Config, spec: ProviderSpec) -> frozenset[str]:
    """The tools ``spec`` answers; imports a user's own class (a config error if that fails)."""
    if spec.type in BUILTINS:
        return BUILTINS[spec.type].tools
    return frozenset(provider_class(cfg, spec).tools)


def needs_key(cfg: Config, spec: ProviderSpec) -> bool:
    if spec.type in BUILTINS:
        return BUILTINS[spec.type].key_env is not None
    return bool(getattr(provider_class(cfg, spec), "needs_key", False))


def provider_class(cfg: Config, spec: ProviderSpec) -> type[Provider]:
    """The class behind ``spec``; for "module:Class" types a failed import is a config error."""
    from .base import Provider

    if spec.type in BUILTINS:
        return load_class(spec.type)
    try:
        cls = load_class(spec.type)
    except Exception as exc:  # ImportError, AttributeError, or the module's own failure
        raise _config_error(
            cfg.path,
            "provider %r: type %r cannot be imported (%s: %s)"
            % (spec.name, spec.type, type(exc).__name__, " ".join(str(exc).split())[:200]),
            example='{"providers": [{"name": "mine", "type": "mypackage.search:MyProvider"}]}',
            hint="the module must be importable by the worker's Python (installed in its venv or on "
            "PYTHONPATH) and define a subclass of worker.providers.base.Provider",
        ) from None
    if not (isinstance(cls, type) and issubclass(cls, Provider)):
        raise _config_error(
            cfg.path,
            "provider %r: %r is not a subclass of worker.providers.base.Provider" % (spec.name, spec.type),
            example='{"providers": [{"name": "mine", "type": "mypackage.search:MyProvider"}]}',
        )
    return cls


def available(cfg: Config, spec: ProviderSpec) -> bool:
    return bool(spec.api_key) or not needs_key(cfg, spec)


def _missing_key(cfg: Config, spec: ProviderSpec) -> WorkerError:
    from ..config.schema import key_env

    env_name = key_env(spec.type)
    where = ("none in %s" % cfg.path) if cfg.loaded else "no config file (%s)" % cfg.path
    env_part = " and %s is not set" % env_name if env_name else ""
    example = '{"providers": [{"name": "%s", "type": "%s", "apiKey": "YOUR_KEY"}]}' % (spec.name, spec.type)
    return WorkerError(
        "config",
        "provider %r (%s) needs an API key: %s%s" % (spec.name, spec.type, where, env_part),
        hint=('export %s=... or add "apiKey" to its entry; a minimal valid config: %s' % (env_name, example))
        if env_name
        else 'add "apiKey" to its entry: %s' % example,
        file=cfg.path,
    )


def select(config: Config, tool: str, requested: str | None = None) -> ProviderSpec:
    """The ProviderSpec that answers ``tool`` given ``--provider`` (or None).

    No --provider: the file's defaultProvider when it answers ``tool``, else
    auto.  Auto for search: the first available provider in file order
    (keyed ones need a key), then the env-key builtins, ddgs last; for fetch:
    the defaultProvider when it can fetch, else the local fetcher.
    """
    cfg = config
    name = (requested or "").strip() or None
    if name is None and cfg.default and cfg.default != "auto":
        default = cfg.providers[cfg.default]
        if tool in tools_of(cfg, default):
            if not available(cfg, default):
                raise _missing_key(cfg, default)
            return default
        name = "auto"
    if name is None or name == "auto":
        return _auto(cfg, tool)
    spec = cfg.providers.get(name)
    if spec is None:
        from ..config.schema import EXAMPLE_ENTRY

        raise WorkerError(
            "config",
            "unknown provider %r; configured: %s%s" % (name, ", ".join(cfg.providers), ", auto"),
            hint=("define it in %s, e.g. %s" % (cfg.path, EXAMPLE_ENTRY)) if cfg.path else None,
            file=cfg.path,
        )
    tools_of(cfg, spec)  # a user's own class must import and be a Provider
    if not available(cfg, spec):
        raise _missing_key(cfg, spec)
    return spec


def _auto(cfg: Config, tool: str) -> ProviderSpec:
    if tool == "fetch":
        if cfg.default and cfg.default != "auto":
            spec = cfg.providers[cfg.default]
            if "fetch" in tools_of(cfg, spec) and available(cfg, spec):
                return spec
        return cfg.providers[FETCH_FALLBACK]
    for name in cfg.order:
        spec = cfg.providers[name]
        if tool in tools_of(cfg, spec) and available(cfg, spec):
            return spec
    return cfg.providers[SEARCH_FALLBACK]


# -- the search chain -------------------------------------------------------------


def verticals_of(cfg: Config, spec: ProviderSpec) -> frozenset[str]:
    """The search verticals ``spec`` answers; a user's own class says so in ``verticals``."""
    if spec.type in BUILTINS:
        return BUILTINS[spec.type].verticals
    return frozenset(getattr(provider_class(cfg, spec), "verticals", None) or {"web"})


def search_chain(
    cfg: Config, requested: str | None = None, vertical: str = "web"
) -> tuple[list[tuple[ProviderSpec, WorkerError | None]], bool, bool]:
    """(candidates, explicit, listed) for a search.

    ``candidates`` is a list of (spec, error): the providers to try in order;
    ``error`` is a config WorkerError for a listed provider that cannot be used
    (no key), reported in its turn instead of tried.  ``explicit``: the user
    named one provider (only it is tried, and the breaker never skips it).
    ``listed``: the order comes from the config's ``fallback`` list, so auth and
    config failures are reported and the next provider is tried.

    ``--provider X``: X alone.  Otherwise the ``defaultProvider`` (if any) first,
    then the ``fallback`` list, or without one the auto order: usable providers
    in file order, the env-key builtins, ddgs last.
    """
    name = (requested or "").strip() or None
    if name is not None and name != "auto":
        spec = select(cfg, "search", name)
        if vertical not in verticals_of(cfg, spec):
            raise WorkerError(
                "invalid_argument",
                "provider %r (%s) has no %s search" % (spec.name, spec.type, vertical),
                hint="use a provider that does (%s), or --provider auto"
                % ", ".join(n for n, b in BUILTINS.items() if "search" in b.tools and vertical in b.verticals),
            )
        return [(spec, None)], True, False
    listed = cfg.settings.get("fallback")
    names = []
    if name is None and cfg.default and cfg.default != "auto":
        default = cfg.providers[cfg.default]
        if "search" in tools_of(cfg, default) and not available(cfg, default) and not listed:
            raise _missing_key(cfg, default)  # the user's chosen provider: a config mistake is said, not skipped
        names.append(cfg.default)
    names += list(listed) if listed else list(cfg.order) + [SEARCH_FALLBACK]
    out: list[tuple[ProviderSpec, WorkerError | None]] = []
    seen: set[str] = set()
    for n in names:
        if n in seen:
            continue
        seen.add(n)
        spec = cfg.providers[n]
        if "search" not in tools_of(cfg, spec):
            if listed and n in listed:
                raise _config_error(
                    cfg.path,
                    '"fallback" names %r (%s), which cannot search' % (n, spec.type),
                    example='{"fallback": ["exa-main", "brave", "ddgs"]}',
                )
            continue
        if vertical not in verticals_of(cfg, spec):
            continue
        if not available(cfg, spec):
            if listed:
                out.append((spec, _missing_key(cfg, spec)))
            continue
        out.append((spec, None))
    if not out:
        if listed:
            raise _config_error(
                cfg.path,
                'no provider in "fallback" has %s search' % vertical,
                example='{"fallback": ["exa-main", "brave", "ddgs"]}',
                hint='add ddgs (no key), exa or brave to "fallback", or name one with --provider',
            )
        out.append((cfg.providers[SEARCH_FALLBACK], None))
    elif not any(err is None for _, err in out) and not listed:
        out.append((cfg.providers[SEARCH_FALLBACK], None))
    return out, False, bool(listed)
