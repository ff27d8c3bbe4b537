"""Reading and checking the config file: its settings, provider entries and keys.

Two shapes are accepted::

    {"defaultProvider": "exa-main",
     "providers": [{"name": "exa-main", "type": "exa", "apiKey": "...", "baseUrl": "...",
                    "options": {"defaultSearchLimit": 5}}],
     "cacheTtl": 600}

    {"apiKey": "...", "baseUrl": "..."}          # the Exa shorthand: one provider named "exa"

Every mistake is a ``config`` error naming the file, the problem and a minimal
valid example.  Keys are never echoed: not in messages, not in reprs.
"""

from __future__ import annotations

import os
import sys

from .. import redact
from ..errors import WorkerError
from ..providers.base import ProviderSpec
from ..providers.registry import BUILTINS, KEYED
from .path import default_path

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Mapping
    from typing import Any

# top-level settings other modules read (Config.settings): name -> (check, description)
SETTINGS = {
    "allowPrivate": ("bool", "allow private/loopback addresses in fetch (like --allow-private)"),
    "cacheTtl": ("count", "cache lifetime in seconds (like --cache-ttl); 0 disables the cache"),
    "cacheDir": ("str", "cache directory (like --cache-dir)"),
    "cacheMaxBytes": ("count", "cache size bound in bytes"),
    "cache": ("bool", "false turns the cache off (like --no-cache)"),
    "staleIfError": ("count", "seconds a cached page may stand in when its site fails (default 86400; 0: never)"),
    "robots": ("bool", "true: fetch honours robots.txt (like --respect-robots)"),
    "robotsAgent": ("header", "the product token matched against robots.txt groups (default websearch-worker)"),
    "userAgent": ("header", "the User-Agent header of page fetches (default names the worker, its version and URL)"),
    "fallback": ("names", "search providers tried in this order when one fails (rate limited, blocked...)"),
    "breaker": (
        "breaker",
        "false, or {threshold, window, cooldown, probe}: when to skip a provider that keeps refusing",
    ),
    "render": ("render", "auto, never or always: when fetch renders pages in Chromium (like --render)"),
    "browser": ("str", "the Chrome/Chromium binary fetch renders pages with (default: the system's chromium)"),
    "state": (
        "state",
        '"sqlite" (default: this machine\'s files) or "redis://[:password@]host:6379/0" (rediss:// for TLS): '
        "where the cache, rate limits and circuit breaker live; a Redis or Valkey server shares them across machines",
    ),
    "stateEnv": ("envname", 'the environment variable holding the "state" URL (when "state" is not set)'),
    "sites": (
        "sites",
        '{"github": {"apiBase": ..., "rawBase": ...}, ...}: the site adapters\' endpoints (worker.pages.sites)',
    ),
}
# The breaker's settings: name -> (kind, low, high).
BREAKER_RULES = {
    "threshold": ("int", 1, 1000),
    "window": ("number", 0.001, 24 * 3600),
    "cooldown": ("number", 0.001, 24 * 3600),
    "probe": ("number", 0.001, 3600),
}

ENTRY_KEYS = ("name", "type", "apiKey", "apiKeyEnv", "baseUrl", "options")
INT_OPTIONS = ("defaultSearchLimit", "defaultFetchTextMaxCharacters", "defaultFetchHighlightsMaxCharacters")
# Upper bounds of the "count" settings: beyond them a value is a typo, and would overflow time arithmetic.
COUNT_BOUNDS = {"cacheTtl": 365 * 24 * 3600, "cacheMaxBytes": 1 << 40, "staleIfError": 365 * 24 * 3600}
MAX_HEADER_CHARS = 300  # a "header" setting: printable ASCII, sent as an HTTP header value
# Provider options the builtin providers read: name -> (kind, low, high); no bounds (None) for the kinds without.
OPTION_RULES: dict[str, tuple[str, Any, Any]] = dict(
    {key: ("int", 1, 1000000) for key in INT_OPTIONS},
    minInterval=("number", 0, 3600),
    timeout=("number", 0.001, 24 * 3600),
    concurrency=("int", 1, 64),
    backends=("backends", None, None),
    region=("str", None, None),
    country=("str", None, None),
    searchLang=("str", None, None),
    safesearch=("str", None, None),
    extraSnippets=("bool", None, None),
)
OPTION_EXAMPLES = {"int": "5", "number": "1.0", "bool": "true", "str": '"us-en"', "backends": '["duckduckgo", "brave"]'}

EXAMPLE_LIST = (
    '{"defaultProvider": "exa-main", "providers": [{"name": "exa-main", "type": "exa", '
    '"apiKey": "YOUR_EXA_KEY"}, {"name": "ddgs", "type": "ddgs"}]}'
)
EXAMPLE_SHORTHAND = '{"apiKey": "YOUR_EXA_KEY"}'
EXAMPLE_ENTRY = '{"name": "exa-main", "type": "exa", "apiKey": "YOUR_EXA_KEY"}'


class Config:
    def __init__(
        self,
        path: str | None = None,
        providers: dict[str, ProviderSpec] | None = None,
        default: str | None = None,
        settings: dict[str, Any] | None = None,
        order: list[str] | None = None,
        loaded: bool = False,
    ) -> None:
        self.path = path  # the file consulted (it may not exist)
        self.loaded = loaded  # did the file exist and parse?
        self.providers = providers or {}  # name -> ProviderSpec, builtins included
        self.default = default  # the file's defaultProvider, or None
        self.settings = settings or {}  # top-level non-provider settings
        self.order = order or list(self.providers)  # candidates for --provider auto, in order


def config_error(path: str | None, problem: str, example: str = EXAMPLE_LIST, hint: str | None = None) -> WorkerError:
    where = "config file %s" % path if path else "provider selection"
    return WorkerError(
        "config", "%s: %s" % (where, problem), hint=hint or "a minimal valid config: %s" % example, file=path
    )


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def read_text(path: str, explicit: bool) -> str | None:
    """The file's text, or None when it is absent and nobody named it on the command line."""
    from ..files import MAX_OPTION_FILE, TooLarge, read_capped

    try:
        data = read_capped(path)
    except TooLarge:
        raise config_error(
            path,
            "is larger than %d bytes; a config file is a few lines of JSON" % MAX_OPTION_FILE,
            hint="name the right file with --config; a minimal valid config: %s" % EXAMPLE_SHORTHAND,
        ) from None
    except FileNotFoundError:
        if explicit:
            raise config_error(
                path,
                "no such file (named by --config)",
                hint="create it, or drop --config to use %s; a minimal valid config: %s"
                % (default_path(), EXAMPLE_SHORTHAND),
            ) from None
        return None
    except IsADirectoryError:
        raise config_error(path, "is a directory, not a JSON file") from None
    except OSError as exc:
        raise config_error(
            path,
            "cannot be read (%s)" % (exc.strerror or type(exc).__name__),
            hint="check its permissions (chmod 600 %s)" % path,
        ) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise config_error(path, "is not UTF-8 text (byte %d)" % exc.start) from None


def parse_json(path: str, text: str) -> Any:
    from ..jsonio import loads  # json's C scanner; json itself loads only to word an error

    try:
        return loads(text)
    except ValueError as exc:  # json.JSONDecodeError
        # json.JSONDecodeError, a ValueError; naming it would import json here
        where = (exc.lineno, exc.colno, exc.msg)  # type: ignore[attr-defined]
        raise config_error(path, "invalid JSON at line %d column %d: %s" % where) from None
    except RecursionError:
        raise config_error(path, "invalid JSON: nested too deeply") from None


def _check_setting(path: str, key: str, value: Any) -> None:
    kind = SETTINGS[key][0]
    if kind == "names":
        return _check_names(path, key, value)
    if kind == "breaker":
        return _check_breaker(path, value)
    if kind == "render":
        from ..cli.options import RENDER_MODES

        if value not in RENDER_MODES:
            raise config_error(
                path,
                '"render" must be one of %s, got %s' % (", ".join(RENDER_MODES), _short(value)),
                example='{"render": "auto"}',
            )
        return None
    if kind == "state":
        return _check_state(path, value)
    if kind == "envname":
        if not (isinstance(value, str) and value and value.replace("_", "a").isalnum() and value.isascii()):
            raise config_error(
                path,
                '"%s" must name an environment variable (letters, digits, _), got %s' % (key, _short(value)),
                example='{"%s": "WEBSEARCH_STATE_URL"}' % key,
            )
        return None
    if kind == "sites":
        from ..pages import sites

        problem = sites.check_config(value)
        if problem:
            raise config_error(
                path, problem, example='{"sites": {"github": {"apiBase": "https://github.example.com/api/v3"}}}'
            )
        return None
    ok = {
        "bool": isinstance(value, bool),
        "str": isinstance(value, str) and bool(value.strip()) and "\0" not in value,
        "count": _number_ok(value, 0, COUNT_BOUNDS.get(key), integer=True),
        "header": isinstance(value, str)
        and 0 < len(value.strip()) <= MAX_HEADER_CHARS
        and all(" " <= c <= "~" for c in value),
    }[kind]
    if not ok:
        want = {
            "bool": "true or false",
            "str": "a non-empty string without NUL characters",
            "count": "a whole number from 0 to %d" % COUNT_BOUNDS.get(key, 0),
            "header": "printable ASCII text of at most %d characters (an HTTP header value)" % MAX_HEADER_CHARS,
        }[kind]
        raise config_error(
            path,
            '"%s" must be %s, got %s' % (key, want, _short(value)),
            example='{"%s": %s}'
            % (key, {"bool": "true", "str": '"~/.cache/websearch"', "count": "600", "header": '"mybot"'}[kind]),
        )


def _check_state(path: str, value: Any) -> None:
    """The "state" setting: "sqlite" or a redis:// URL that parses; messages never show its password."""
    if value == "sqlite":
        return
    from ..state.backend import parse_url

    try:
        parse_url(value)
    except ValueError as exc:
        raise config_error(
            path,
            '"state" %s' % exc,
            example='{"state": "redis://127.0.0.1:6379/0"}',
            hint='"sqlite" (the default), or a Redis/Valkey URL: redis://[:PASSWORD@]HOST[:PORT][/DB], '
            "rediss:// for TLS",
        ) from None


def _check_names(path: str, key: str, value: Any) -> None:
    example = '{"%s": ["exa-main", "brave", "ddgs"]}' % key
    if not isinstance(value, list) or not value or len(value) > 20:
        raise config_error(
            path, '"%s" must be a list of 1 to 20 provider names, got %s' % (key, _short(value)), example=example
        )
    seen: set[str] = set()
    for name in value:
        if not isinstance(name, str) or not name.strip() or name.strip() == "auto":
            raise config_error(
                path, '"%s" must list provider names (not "auto"), got %s' % (key, _short(name)), example=example
            )
        if name.strip() in seen:
            raise config_error(path, '"%s" names %r twice' % (key, name.strip()), example=example)
        seen.add(name.strip())


def _check_breaker(path: str, value: Any) -> None:
    example = '{"breaker": {"threshold": 3, "window": 60, "cooldown": 120}}'
    if isinstance(value, bool):
        return
    if not isinstance(value, dict):
        raise config_error(path, '"breaker" must be true, false or an object, got %s' % _short(value), example=example)
    for key, item in value.items():
        rule = BREAKER_RULES.get(key)
        if rule is None:
            if _is_comment(key):
                continue
            raise config_error(
                path, '"breaker" has unknown key "%s" (accepted: %s)' % (key, ", ".join(BREAKER_RULES)), example=example
            )
        kind, lo, hi = rule
        if not _number_ok(item, lo, hi, integer=kind == "int"):
            raise config_error(
                path,
                '"breaker": "%s" must be %s from %g to %g, got %s'
                % (key, "a whole number" if kind == "int" else "a number of seconds", lo, hi, _short(item)),
                example=example,
            )


def _number_ok(value: Any, lo: float | None, hi: float | None, integer: bool = False) -> bool:
    """A JSON number (not a boolean, not a string) within [lo, hi], by the one strict number reader."""
    from .. import numbers

    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return numbers.or_none(value, lo, hi, integer) is not None


def _check_options(path: str, where: str, name: str, ptype: str, options: dict[str, Any]) -> dict[str, Any]:
    """Provider options of the wrong type or range are config errors naming the key, never a crash later.

    Returns the options with ``backends`` normalised to a list (a string names
    one backend, or several separated by commas, as --backend does).
    """
    out = dict(options)
    for key, value in options.items():
        rule = OPTION_RULES.get(key)
        if rule is None:
            continue  # options of a user's own provider, or ones we do not read: theirs to interpret
        kind, lo, hi = rule
        if kind == "int":
            ok, want = _number_ok(value, lo, hi, integer=True), "a whole number from %d to %d" % (lo, hi)
        elif kind == "number":
            ok, want = _number_ok(value, lo, hi), "a number of seconds from %g to %g" % (lo, hi)
        elif kind == "bool":
            ok, want = isinstance(value, bool), "true or false"
        elif kind == "str":
            ok, want = isinstance(value, str) and bool(value.strip()) and len(value) <= 200, "a non-empty string"
        else:  # backends
            if isinstance(value, str):
                value = [part for part in value.split(",")]
            ok = (
                isinstance(value, list)
                and bool(value)
                and len(value) <= 20
                and all(isinstance(v, str) and v.strip() and "," not in v for v in value)
            )
            want = 'a list of engine names such as ["duckduckgo", "brave"]'
            if ok:
                out[key] = [v.strip() for v in value]
        if not ok:
            raise config_error(
                path,
                '%s: option "%s" must be %s, got %s' % (where, key, want, _short(options[key])),
                example='{"name": "%s", "type": "%s", "options": {"%s": %s}}'
                % (name, ptype, key, OPTION_EXAMPLES[kind]),
            )
    return out


def _is_comment(key: str) -> bool:
    return key.startswith("$") or key.startswith("_")


def parse_config(path: str, data: Any, environ: Mapping[str, str] | None = None) -> Config:
    """A Config from the parsed JSON ``data``; raises a config WorkerError on any mistake."""
    environ = os.environ if environ is None else environ
    if not isinstance(data, dict):
        raise config_error(path, "the top level must be a JSON object, got %s" % _json_type(data))
    settings: dict[str, Any] = {}
    for key, value in data.items():
        if key in SETTINGS:
            _check_setting(path, key, value)
            settings[key] = value
    shorthand = "providers" not in data and ("apiKey" in data or "baseUrl" in data)
    allowed = set(SETTINGS) | ({"apiKey", "baseUrl", "options"} if shorthand else {"providers", "defaultProvider"})
    unknown = [k for k in data if k not in allowed and not _is_comment(k)]
    if unknown:
        raise config_error(
            path,
            "unknown key %s at the top level (accepted: %s)"
            % (", ".join('"%s"' % k for k in unknown), ", ".join(sorted(allowed))),
            example=EXAMPLE_SHORTHAND if shorthand else EXAMPLE_LIST,
        )

    if shorthand:
        entries = [dict({k: data[k] for k in ("apiKey", "baseUrl", "options") if k in data}, name="exa", type="exa")]
        default = None
    elif "providers" in data:
        entries = data["providers"]
        if not isinstance(entries, list):
            raise config_error(path, '"providers" must be a list of provider objects, got %s' % _json_type(entries))
        if not entries:
            raise config_error(path, '"providers" is an empty list; list at least one provider or remove the key')
        default = data.get("defaultProvider")
    else:
        entries = []
        default = data.get("defaultProvider")

    configured: dict[str, ProviderSpec] = {}
    for index, entry in enumerate(entries):
        spec = parse_entry(path, index, entry, environ)
        if spec.name in configured:
            raise config_error(
                path,
                "duplicate provider name %r (entries %d and %d); names must be unique"
                % (spec.name, list(configured).index(spec.name) + 1, index + 1),
            )
        configured[spec.name] = spec

    providers = builtin_specs(environ)
    order = list(configured) + [n for n in KEYED if n not in configured]
    providers.update(configured)

    for name in settings.get("fallback") or []:
        if name.strip() not in providers:
            raise config_error(
                path,
                '"fallback" names %r, which is not a provider (configured: %s; builtins: %s)'
                % (name.strip(), ", ".join(configured) or "none", ", ".join(BUILTINS)),
                example='{"fallback": ["exa-main", "brave", "ddgs"]}',
            )
    if "fallback" in settings:
        settings["fallback"] = [n.strip() for n in settings["fallback"]]
    if default is not None:
        if not isinstance(default, str) or not default.strip():
            raise config_error(path, '"defaultProvider" must be a provider name (a string), got %s' % _short(default))
        if default != "auto" and default not in providers:
            raise config_error(
                path,
                '"defaultProvider" is %r, which is not in "providers" (configured: %s)'
                % (default, ", ".join(configured) or "none"),
            )
    return Config(path=path, providers=providers, default=default, settings=settings, order=order, loaded=True)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def parse_entry(path: str, index: int, entry: Any, environ: Mapping[str, str]) -> ProviderSpec:
    where = "provider entry %d" % (index + 1)
    if not isinstance(entry, dict):
        raise config_error(path, "%s must be an object, got %s" % (where, _json_type(entry)), example=EXAMPLE_ENTRY)
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise config_error(path, '%s needs a "name" (a non-empty string)' % where, example=EXAMPLE_ENTRY)
    name = name.strip()
    where = "provider %r" % name
    if name == "auto":
        raise config_error(
            path, '%s: "auto" is reserved for automatic selection; pick another name' % where, example=EXAMPLE_ENTRY
        )
    unknown = [k for k in entry if k not in ENTRY_KEYS and not _is_comment(k)]
    if unknown:
        raise config_error(
            path,
            "%s has unknown key %s (accepted: %s)"
            % (where, ", ".join('"%s"' % k for k in unknown), ", ".join(ENTRY_KEYS)),
            example=EXAMPLE_ENTRY,
        )
    ptype = entry.get("type", name if name in BUILTINS else None)
    if not isinstance(ptype, str) or not ptype.strip():
        raise config_error(
            path,
            '%s needs a "type": one of %s, or "module:Class" for your own provider' % (where, ", ".join(BUILTINS)),
            example=EXAMPLE_ENTRY,
        )
    ptype = ptype.strip()
    if ptype not in BUILTINS and not _is_class_ref(ptype):
        raise config_error(
            path,
            '%s has unknown type %s; use one of %s, or "module:Class" for your own provider'
            % (where, _short(ptype), ", ".join(BUILTINS)),
            example=EXAMPLE_ENTRY,
        )
    base_url = entry.get("baseUrl")
    if base_url is not None and (not isinstance(base_url, str) or not base_url.startswith(("http://", "https://"))):
        raise config_error(
            path,
            '%s: "baseUrl" must be an http(s) URL string, got %s' % (where, _short(base_url)),
            example='{"name": "exa-main", "type": "exa", "apiKey": "YOUR_EXA_KEY", "baseUrl": "https://api.exa.ai"}',
        )
    options = entry.get("options", {})
    if not isinstance(options, dict):
        raise config_error(
            path,
            '%s: "options" must be an object, got %s' % (where, _json_type(options)),
            example='{"name": "exa-main", "type": "exa", "options": {"defaultSearchLimit": 5}}',
        )
    options = _check_options(path, where, name, ptype, options)
    key, source = resolve_key(path, where, ptype, entry, environ)
    return ProviderSpec(
        name,
        ptype,
        api_key=key,
        key_source=source,
        base_url=base_url.rstrip("/") if base_url else None,
        options=options,
    )


def key_env(ptype: str) -> str | None:
    builtin = BUILTINS.get(ptype)
    return builtin.key_env if builtin is not None else None


def _is_class_ref(ptype: str) -> bool:
    module, sep, attr = ptype.partition(":")
    return bool(
        sep
        and module
        and attr
        and all(p.isidentifier() for p in module.split("."))
        and all(p.isidentifier() for p in attr.split("."))
    )


def resolve_key(
    path: str, where: str, ptype: str, entry: dict[str, Any], environ: Mapping[str, str]
) -> tuple[str | None, str | None]:
    """(key, source): the file's apiKey wins over the environment."""
    key = entry.get("apiKey")
    if key is not None:
        if not isinstance(key, str) or not key.strip():
            raise config_error(path, '%s: "apiKey" must be a non-empty string' % where, example=EXAMPLE_ENTRY)
        return redact.register(key.strip()), "config"
    env_name = entry.get("apiKeyEnv")
    if env_name is not None and (not isinstance(env_name, str) or not env_name.strip()):
        raise config_error(
            path,
            '%s: "apiKeyEnv" must name an environment variable' % where,
            example='{"name": "exa-main", "type": "exa", "apiKeyEnv": "EXA_API_KEY"}',
        )
    env_name = env_name or key_env(ptype)
    if env_name and (environ.get(env_name) or "").strip():
        return redact.register(environ[env_name].strip()), "env:%s" % env_name
    return None, None


def builtin_specs(environ: Mapping[str, str] | None = None) -> dict[str, ProviderSpec]:
    """One provider per builtin type, named after it; keyed ones take their key from the environment."""
    environ = os.environ if environ is None else environ
    specs = {}
    for ptype, builtin in BUILTINS.items():
        env_name = builtin.key_env
        key = redact.register((environ.get(env_name) or "").strip() if env_name else "")
        specs[ptype] = ProviderSpec(ptype, ptype, api_key=key or None, key_source="env:%s" % env_name if key else None)
    return specs


def warn_if_exposed(path: str, cfg: Config) -> None:
    """Keys in a file others can read: say so on stderr, do not fail."""
    if not any(s.key_source == "config" for s in cfg.providers.values()):
        return
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if mode & 0o044:
        sys.stderr.write(
            "websearch-worker: warning: %s holds API keys and is readable by %s (mode %03o); "
            "run: chmod 600 %s\n"
            % (
                path,
                "group and others" if mode & 0o004 and mode & 0o040 else "others" if mode & 0o004 else "group",
                mode & 0o777,
                path,
            )
        )
        sys.stderr.flush()
