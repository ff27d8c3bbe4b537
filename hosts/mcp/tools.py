"""What the MCP server offers and how a call's arguments become a worker call, as plain data.

Standard library only (worker.tool_schemas and worker.config are too): the first-run
server in bootstrap answers ``tools/list`` with the same list before the venv exists.
"""

from __future__ import annotations

from worker import tool_schemas

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TITLES = {tool_schemas.SEARCH: "Web search", tool_schemas.FETCH: "Web fetch"}
INSTRUCTIONS = (
    "web_search finds pages (titles, URLs, snippets); web_fetch reads up to 20 pages at once as clean markdown. "
    "Search first, then fetch the most promising URLs before relying on their details; cite the URLs you used."
)
# A worker deadline this far past the tool's timeout means the worker hung: the host stops it.
HANG_MARGIN_S = 15.0


class Reach:
    """What a call can reach with the server's config: provider types, and the provider names per tool."""

    def __init__(self, types: set[str], names: dict[str, set[str]]) -> None:
        self.types = types
        self.names = names  # tool -> names a call may pass as ``provider``

    def hidden(self, tool: str) -> set[str]:
        """Parameter names to leave out of the tool's schema."""
        hidden = {p.name for p in tool_schemas.PARAMS[tool] if p.only and p.only not in self.types}
        if len(self.names.get(tool, ())) <= 1:
            hidden.add("provider")  # nothing to choose between
        return hidden


def reach(config_path: str | None) -> Reach:
    """Every keyless builtin, keyed ones with a key, a user's own provider classes that import.

    A config the worker would refuse gives the keyless builtins: the call then reports the
    config error itself, with the file and the fix.
    """
    from types import SimpleNamespace

    from worker import config
    from worker.errors import WorkerError

    keyless = {t for t, b in config.BUILTINS.items() if b.key_env is None}
    try:
        cfg = config.load(SimpleNamespace(config=config_path))  # type: ignore[arg-type]  # load reads .config only
    except (WorkerError, OSError, ValueError):
        return Reach(keyless, {})
    types: set[str] = set()
    names: dict[str, set[str]] = {tool: set() for tool in tool_schemas.PARAMS}
    for spec in cfg.providers.values():
        try:
            if not config.available(cfg, spec):
                continue
            answers = config.tools_of(cfg, spec)
        except WorkerError:
            continue
        types.add(spec.type)
        for tool, command in tool_schemas.COMMANDS.items():
            if command in answers:
                names[tool].add(spec.name)
    return Reach(types, names)


def tool_list(where: Reach) -> list[dict[str, Any]]:
    """``tools/list``'s tools: a provider's own parameters only when that provider is configured."""
    return [
        {
            "name": name,
            "title": TITLES[name],
            "description": tool_schemas.DESCRIPTIONS[name],
            "inputSchema": input_schema(name, where),
            "outputSchema": tool_schemas.brief_output_schema(name),
            "annotations": {"readOnlyHint": True, "openWorldHint": True},
        }
        for name in tool_schemas.PARAMS
    ]


def input_schema(tool: str, where: Reach) -> dict[str, Any]:
    return tool_schemas.input_schema(tool, hide=where.hidden(tool), timeout=tool_schemas.timeout_schema())


def call_timeout(arguments: dict[str, Any]) -> float:
    value = arguments.get("timeout")
    return float(value) if isinstance(value, (int, float)) and value > 0 else float(tool_schemas.TIMEOUT_DEFAULT)


def words(tool: str) -> dict[str, str]:
    """{worker flag: the tool's parameter name} for hosts.mcp.terms."""
    from hosts.mcp import terms

    out = {p.flag: p.name for p in tool_schemas.PARAMS[tool] if p.flag}
    out["--timeout"] = "timeout"
    if tool == tool_schemas.FETCH:
        out["--max-pages"] = "crawl"  # web_fetch with map: crawl bounds the pages listed
    return terms.vocabulary(out)


def unsupported(tool: str, arguments: dict[str, Any], config_path: str | None) -> str | None:
    """A provider's option sent to another provider, said (see tool_schemas.unsupported); None when
    fine, or when the provider cannot be chosen here (the worker reports that itself)."""
    from types import SimpleNamespace

    from worker import config
    from worker.errors import WorkerError

    try:
        cfg = config.load(SimpleNamespace(config=config_path))  # type: ignore[arg-type]
        spec = config.select(cfg, tool_schemas.COMMANDS[tool], arguments.get("provider"))
    except (WorkerError, OSError, ValueError):
        return None
    return tool_schemas.unsupported(tool, arguments, spec.type)


def result_text(tool: str, payload: dict[str, Any]) -> str:
    """A result's text content: the worker's text view, or for an error its code, message and hint."""
    if payload.get("ok"):
        return str(payload.get("text") or "")
    error = payload.get("error") or {}
    text = "%s failed (%s): %s" % (tool, error.get("code", "internal"), error.get("message", ""))
    if error.get("hint"):
        text += "\nhint: %s" % error["hint"]
    return text
