"""The two tools a host offers a model, web_search and web_fetch, read from the CLI's declarations.

A tool parameter names a worker option (``limit`` -> ``--limit``); its JSON Schema type,
range and choices come from that option's declaration in worker/cli/options.py, so a value the
schema allows is one the CLI accepts.  What only a model needs (a description written
for it, a narrower range such as ``limit`` 1-50, a cap on list lengths) is added here.
The MCP host (hosts/mcp) uses ``input_schema``, ``output_schema``, ``argv`` and
``DESCRIPTIONS`` directly; the pi host keeps its TypeBox schemas (pi validates with
them), and its unit tests check them against ``python -m worker.tool_schemas``.

Standard library only and never imported by a search or fetch call.
"""

from __future__ import annotations

from . import cli
from .request import MAX_QUERY_CHARS

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any, Iterable

# Far below the kernel's 128 KiB per argument and the argv + environment total.
ARGV_BUDGET_BYTES = 64 * 1024
MAX_URLS = 20
MAX_DOMAINS = 20
# Page text for a whole web_fetch call when the model does not say: an MCP result carries
# the text three times (the text field, its structured copy, and the pages' content in it),
# and 20 pages of it stay under Claude Code's 25,000-token limit (docs/focus.md).
HOST_MAX_TOTAL_CHARS = 12000
MAX_CRAWL = 100  # pages a host's crawl reads at most (the CLI takes 200): MCP clients time out at 60 s
MAP = "map"  # web_fetch's ``map``: not an option but the worker's map command
MAP_PAGES = 100  # pages a host's map lists unless ``crawl`` says


class Param:
    """One tool parameter: the worker flag it becomes and what the model is told."""

    def __init__(
        self,
        name: str,
        flag: str | None,
        description: str,
        minimum: int | None = None,
        maximum: int | None = None,
        max_items: int | None = None,
        default: Any = None,
        only: str | None = None,
    ):
        self.name = name
        self.flag = flag  # None: the command's positional argument (query / urls)
        self.description = description
        self.minimum = minimum
        self.maximum = maximum
        self.max_items = max_items
        self.default = default
        self.only = only  # the provider type this parameter belongs to (exa, brave); None: every provider


SEARCH = "web_search"
FETCH = "web_fetch"
COMMANDS = {SEARCH: "search", FETCH: "fetch"}

PARAMS = {
    SEARCH: [
        Param(
            "query",
            None,
            "The search query; put exact phrases in double quotes.",
        ),
        Param("queries", "--query", "More phrasings, merged into one list.", max_items=4),
        Param("sources", "--sources", "Default web."),
        Param("limit", "--limit", "Number of results (default 5).", minimum=1, maximum=50),
        Param("provider", "--provider", "A configured provider name; leave unset unless the user asked for one."),
        Param("recency", "--recency", "Only recent results."),
        Param("news", "--news", "News instead of the web."),
        Param(
            "include_domains",
            "--include-domain",
            "Only these domains.",
            max_items=MAX_DOMAINS,
        ),
        Param("exclude_domains", "--exclude-domain", "Never these domains.", max_items=MAX_DOMAINS),
        Param("fetch_top", "--fetch-top", "Also read the top N pages for excerpts.", default=0),
        Param("region", "--region", "Region such as us-en or de-de."),
        Param("type", "--type", "Exa search type: auto, neural, keyword, fast, deep.", only="exa"),
        Param("category", "--category", "Exa category, e.g. 'research paper', news, company, pdf.", only="exa"),
        Param("start_published", "--start-published", "Exa: earliest publication date, YYYY-MM-DD.", only="exa"),
        Param("end_published", "--end-published", "Exa: latest publication date, YYYY-MM-DD.", only="exa"),
        Param("include_text", "--include-text", "Exa: a phrase (up to 5 words) every page must contain.", only="exa"),
        Param("exclude_text", "--exclude-text", "Exa: a phrase (up to 5 words) no page may contain.", only="exa"),
        Param("highlights", "--highlights", "Exa: add each page's most relevant passages.", only="exa"),
        Param("summary", "--summary", "Exa: add a short summary of each page.", only="exa"),
        Param("country", "--country", "Brave: two-letter country code, e.g. US.", only="brave"),
        Param("search_lang", "--search-lang", "Brave: result language, e.g. en.", only="brave"),
    ],
    FETCH: [
        Param("urls", None, "http(s) URLs, answered in order.", max_items=MAX_URLS),
        Param("max_chars", "--max-chars", "Characters per page."),
        Param("start_index", "--start-index", "Continue from this offset (next_start_index)."),
        Param("format", "--format", "Default markdown."),
        Param("provider", "--provider", "A configured provider name; leave unset unless the user asked for one."),
        Param("focus", "--focus", "Passages answering this question, with offsets."),
        Param("find", "--find", "Text to find: every match, with offsets."),
        Param(
            "max_total_chars",
            "--max-total-chars",
            "Characters for the whole call.",
            default=HOST_MAX_TOTAL_CHARS,
        ),
        Param("crawl", "--crawl", "Read N pages of the URL's section (best for focus).", maximum=MAX_CRAWL),
        Param("map", MAP, "List the section's pages (crawl: how many) instead."),
        Param("render", "--render", "Render script-built pages."),
        Param("highlights", "--highlights", "Exa: add the most relevant passages (provider exa).", only="exa"),
        Param("summary", "--summary", "Exa: add a short summary of the page (provider exa).", only="exa"),
    ],
}

# What a host sends when the model leaves a parameter out (the MCP server and the pi extension).
HOST_DEFAULTS = {FETCH: {"max_total_chars": HOST_MAX_TOTAL_CHARS}}


def with_host_defaults(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` with the host's defaults filled in where the model left them out."""
    return dict(HOST_DEFAULTS.get(tool, {}), **{k: v for k, v in arguments.items() if v is not None})


DESCRIPTIONS = {
    SEARCH: (
        "Search the web: results with title, URL, snippet and date; then web_fetch the best URLs. On blocked or "
        "rate_limited, retry once later."
    ),
    FETCH: (
        "Read web pages in parallel as clean markdown; a cut page gives next_start_index for start_index. "
        "Private addresses need the server's --allow-private flag."
    ),
}

# What a host with a request timeout of its own (an MCP client: 60 s is common) offers as ``timeout``:
# the worker's deadline stays well inside it, so the answer, not the client's timeout, arrives first.
TIMEOUT_DEFAULT = 45
TIMEOUT_MAX = 50


def timeout_schema(default: int = TIMEOUT_DEFAULT, maximum: int = TIMEOUT_MAX) -> dict[str, Any]:
    return {
        "type": "number",
        "exclusiveMinimum": 0,
        "maximum": maximum,
        "default": default,
        "description": "Seconds for the whole call.",
    }


def _declaration(command: str, flag: str) -> tuple[str, dict[str, Any]]:
    """(dest, keyword arguments of its declaration) of a worker option, from worker/cli/options.py."""
    top, sub = cli.declared(command)
    option = sub.options.get(flag) or top.options.get(flag)
    if option is None:
        raise KeyError("worker %s has no option %s" % (command, flag))
    return option


def _narrow(schema: dict[str, Any], param: Param, lo: float | None, hi: float | None) -> None:
    """Apply a tool's own range, which may only narrow the CLI's."""
    for key, mine, cli_bound, tighter in (("minimum", param.minimum, lo, max), ("maximum", param.maximum, hi, min)):
        if mine is None:
            continue
        if cli_bound is not None and tighter(mine, cli_bound) != mine:
            raise ValueError("%s: %s %s is outside the CLI's range" % (param.name, key, mine))
        schema[key] = mine


def param_schema(tool: str, param: Param) -> dict[str, Any]:
    command = COMMANDS[tool]
    if param.flag is None:
        if command == "search":
            return {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS, "description": param.description}
        return {
            "type": "array",
            "minItems": 1,
            "maxItems": param.max_items,
            "description": param.description,
            "items": {"type": "string", "minLength": 1},
        }
    if param.flag == MAP:
        return {"type": "boolean", "description": param.description}
    _dest, kw = _declaration(command, param.flag)
    schema: dict[str, Any]
    action = kw.get("action")
    if action == "store_true":
        schema = {"type": "boolean"}
    elif action == "append":
        choices = getattr(kw.get("type"), "items", None)  # a list of names (--sources)
        item = {"type": "string", "enum": list(choices)} if choices else {"type": "string", "minLength": 1}
        schema = {"type": "array", "items": item}
        if param.max_items:
            schema["maxItems"] = param.max_items
    elif getattr(kw.get("type"), "bounds", None) is not None:
        lo, hi = kw["type"].bounds
        schema = {"type": "integer"}
        if lo is not None:
            schema["minimum"] = lo
        if hi is not None:
            schema["maximum"] = hi
        _narrow(schema, param, lo, hi)
    elif kw.get("type") is None:
        schema = {"type": "string", "minLength": 1}
    else:
        raise TypeError("%s: no JSON Schema for the type of %s" % (param.name, param.flag))
    if kw.get("choices"):
        schema = {"type": "string", "enum": list(kw["choices"])}
    if param.default is not None:
        schema["default"] = param.default
    schema["description"] = param.description
    return schema


def input_schema(tool: str, hide: Iterable[str] = (), timeout: dict[str, Any] | None = None) -> dict[str, Any]:
    """The tool's JSON Schema without the parameters named in ``hide`` (a host leaves out the options of
    providers that are not configured); ``timeout``: a host's own timeout parameter."""
    hidden = set(hide)
    chosen = [p for p in PARAMS[tool] if p.name not in hidden or p.flag is None]
    props = {p.name: param_schema(tool, p) for p in chosen}
    if timeout is not None:
        props["timeout"] = timeout
    required = [p.name for p in chosen if p.flag is None]
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def unsupported(tool: str, arguments: dict[str, Any], provider_type: str) -> str | None:
    """Why these arguments cannot be honoured by the provider that will answer (one line), or None:
    a provider's own option given to another provider is said, never silently dropped."""
    for p in PARAMS[tool]:
        value = arguments.get(p.name)
        if p.only is None or p.only == provider_type or value in (None, False, [], ""):
            continue
        return "%s is an option of the %s provider; this call goes to %s: leave %s out or set provider to %s" % (
            p.name,
            p.only,
            provider_type,
            p.name,
            p.only,
        )
    return None


_ERROR = {
    "type": "object",
    "required": ["code", "message"],
    "properties": {
        "code": {"type": "string", "description": "stable error code (docs/PROTOCOL.md)"},
        "message": {"type": "string"},
        "hint": {"type": "string"},
        "retryable": {"type": "boolean"},
    },
}


def brief_output_schema(tool: str) -> dict[str, Any]:
    """The payload's outline, for hosts that pay for every character of the tool list (MCP):
    the full shape is output_schema() and docs/PROTOCOL.md."""
    return {"type": "object", "required": ["ok"], "properties": {"ok": {"type": "boolean"}}}


def output_schema(tool: str) -> dict[str, Any]:
    """The worker's payload: a SEARCH_OK payload, or (in an error result) the SEARCH_ERROR one."""
    if tool == SEARCH:
        item = {
            "type": "object",
            "required": ["url"],
            "properties": {
                "title": {"type": ["string", "null"]},
                "url": {"type": "string"},
                "snippet": {"type": ["string", "null"]},
                "published": {"type": ["string", "null"]},
                "excerpt": {"type": ["string", "null"]},
                "fetched": {"type": "boolean"},
            },
        }
    else:
        item = {
            "type": "object",
            "required": ["url", "ok"],
            "properties": {
                "url": {"type": "string"},
                "ok": {"type": "boolean"},
                "final_url": {"type": ["string", "null"]},
                "status": {"type": ["integer", "null"]},
                "title": {"type": ["string", "null"]},
                "content": {"type": ["string", "null"]},
                "total_chars": {"type": ["integer", "null"]},
                "truncated": {"type": ["boolean", "null"]},
                "next_start_index": {"type": ["integer", "null"]},
                "fetched_at": {"type": "string", "description": "when the bytes came from the site (UTC)"},
                "cache": {"type": "string", "enum": ["fresh", "revalidated", "stale", "miss"]},
                "error": _ERROR,
            },
        }
    return {
        "type": "object",
        "required": ["ok", "v"],
        "properties": {
            "ok": {"type": "boolean"},
            "v": {"type": "integer", "description": "protocol version"},
            "tool": {"type": "string", "enum": [COMMANDS[tool]]},
            "provider": {"type": "string"},
            "query": {"type": "string"},
            "results": {"type": "array", "items": item},
            "meta": {"type": "object"},
            "warnings": {"type": "array", "items": {"type": "string"}},
            "text": {"type": "string", "description": "the answer as text for a model"},
            "error": _ERROR,
        },
    }


class ArgumentError(ValueError):
    """Tool arguments the worker cannot be called with (the schema's checks, repeated for hosts that skip them)."""


def fold_arguments(tool: str, arguments: Any) -> Any:
    """Models often send web_fetch a ``url`` (or a string ``urls``): fold it into the list."""
    if tool != FETCH or not isinstance(arguments, dict):
        return arguments
    if "url" not in arguments and not isinstance(arguments.get("urls"), str):
        return arguments
    out = dict(arguments)
    urls = out.get("urls")
    urls = [urls] if isinstance(urls, str) else list(urls or [])
    url = out.pop("url", None)
    if isinstance(url, str) and url.strip():
        urls.append(url)
    out["urls"] = urls
    return out


def argv(
    tool: str,
    arguments: dict[str, Any],
    config: str | None = None,
    allow_private: bool = False,
    timeout: float | None = None,
) -> list[str]:
    """Worker argv for a tool call.  ``arguments`` must already satisfy input_schema(tool)."""
    if tool not in PARAMS:
        raise ArgumentError("unknown tool %r" % (tool,))
    if tool == FETCH and arguments.get("map"):
        return _map_argv(arguments, config, allow_private, timeout)
    command = COMMANDS[tool]
    out = [command]
    if config:
        out += ["--config", config]
    if allow_private:
        out.append("--allow-private")
    if timeout:
        out += ["--timeout", "%g" % timeout]
    positional = []
    for param in PARAMS[tool]:
        value = arguments.get(param.name)
        if value is None:
            continue
        if param.flag is None:
            values = [value] if isinstance(value, str) else list(value)
            positional = [v.strip() for v in values if v.strip()]
            if not positional:
                raise ArgumentError("%s needs a non-empty %s" % (tool, param.name))
        elif param.flag == MAP:
            continue
        elif value is True:
            out.append(param.flag)
        elif value is False:
            continue
        else:
            # --flag=value: a value starting with "-" (a domain, a phrase) is never read as an option.
            for v in value if isinstance(value, list) else [value]:
                out.append("%s=%s" % (param.flag, str(v).strip()))
    if not positional:
        raise ArgumentError("%s needs %s" % (tool, PARAMS[tool][0].name))
    out.append("--")  # a query or URL starting with "-" is never read as an option
    out += positional
    size = sum(len(a.encode("utf-8", "surrogatepass")) + 1 for a in out)
    if size > ARGV_BUDGET_BYTES:
        raise ArgumentError(
            "the arguments are %d KiB, over the %d KiB limit: use a shorter query, or fewer or "
            "shorter URLs per call" % (-(-size // 1024), ARGV_BUDGET_BYTES // 1024)
        )
    return out


def _map_argv(arguments: dict[str, Any], config: str | None, allow_private: bool, timeout: float | None) -> list[str]:
    """web_fetch with ``map``: the worker's map of the one URL's section, ``crawl`` pages at most."""
    urls = arguments.get("urls") or []
    urls = [u.strip() for u in ([urls] if isinstance(urls, str) else urls) if isinstance(u, str) and u.strip()]
    if len(urls) != 1:
        raise ArgumentError("web_fetch with map takes one URL (the section's start page); got %d" % len(urls))
    out = ["map"]
    if config:
        out += ["--config", config]
    if allow_private:
        out.append("--allow-private")
    if timeout:
        out += ["--timeout", "%g" % timeout]
    out.append("--max-pages=%d" % int(arguments.get("crawl") or MAP_PAGES))
    return out + ["--", urls[0]]


def all_schemas() -> dict[str, Any]:
    """Everything a host needs, as one JSON-ready dict (what ``python -m worker.tool_schemas`` prints)."""
    return {
        tool: {
            "description": DESCRIPTIONS[tool],
            "inputSchema": input_schema(tool),
            "outputSchema": output_schema(tool),
        }
        for tool in PARAMS
    }


if __name__ == "__main__":
    import json
    import sys

    sys.stdout.write(json.dumps(all_schemas(), indent=2, sort_keys=True) + "\n")
