"""The config file, and the provider that answers a call.

The file (``--config PATH``, else ``$WEBSEARCH_CONFIG``, else
``$XDG_CONFIG_HOME/websearch-worker/config.json``, ``~/.config/...`` without
it; the old pi location ``~/.pi/agent/web-search.json`` is still read when the
new one does not exist) is optional.  Without it the builtins answer:
ddgs for search, the local fetcher for fetch, and ``exa`` / ``brave`` when
``EXA_API_KEY`` / ``BRAVE_API_KEY`` are set.  The parts:

    path.py    finding the file, and what --help says of it
    schema.py  reading and checking it: settings, provider entries, keys (its shapes)
    worker/providers/choose.py   which provider answers (select, search_chain): routing,
               named here too, as config.select etc., for the callers of one package

``load`` is the one call a command makes: the file found, read and checked.  Every
mistake is a ``config`` error naming the file, the problem and a minimal valid
example.  Keys are never echoed: not in messages, not in reprs.
"""

from __future__ import annotations

from ..providers.choose import available, needs_key, provider_class, search_chain, select, tools_of, verticals_of
from ..providers.registry import BUILTINS, KEYED
from .path import DEFAULT_PATH, ENV_PATH, LEGACY_PATH, as_written, config_path, default_path, help_text, lookup
from .schema import (
    SETTINGS,
    Config,
    builtin_specs,
    config_error,
    parse_config,
    parse_entry,
    parse_json,
    read_text,
    resolve_key,
    warn_if_exposed,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from ..request import Request

# The package's public names: finding the file (path.py), reading and checking it
# (schema.py), and choosing providers (worker.providers.choose), read as config.NAME.
__all__ = [
    "BUILTINS",
    "DEFAULT_PATH",
    "ENV_PATH",
    "LEGACY_PATH",
    "SETTINGS",
    "Config",
    "as_written",
    "available",
    "builtin_specs",
    "config_error",
    "config_path",
    "default_path",
    "help_text",
    "load",
    "lookup",
    "needs_key",
    "parse_config",
    "parse_entry",
    "parse_json",
    "provider_class",
    "read_text",
    "resolve_key",
    "search_chain",
    "select",
    "tools_of",
    "verticals_of",
    "warn_if_exposed",
]


def load(request: Request | None = None) -> Config:
    path, explicit = config_path(request)
    text = read_text(path, explicit)
    if text is None:
        return Config(path=path, providers=builtin_specs(), order=list(KEYED), loaded=False)
    cfg = parse_config(path, parse_json(path, text))
    warn_if_exposed(path, cfg)
    return cfg
