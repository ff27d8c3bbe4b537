"""The worker's messages in the MCP tool's own terms.

The worker writes its errors, hints and notes for its command line ("raise --timeout",
"continue with --start-index 20000", "pass --allow-private").  Through MCP a model can
only set the called tool's parameters, and a person can only change the server's flags:
a flag the tool has as a parameter becomes the parameter's name, a server flag is named
as one, and a hint that needs any other flag is left out rather than sent unusable.
Pure functions; the server applies ``payload`` to every result.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Flags of `bootstrap/run.py mcp` itself: a person sets them where the client starts the server.
SERVER_FLAGS = ("--allow-private", "--config")
_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9-]*[a-z0-9])\b")
# Lines of the worker's text view that the worker writes itself (never a page's or an engine's words).
_OWN_LINES = ("[... truncated", "warning: ", "status: error", "- ", "find ", "[passage: ", "passage ")


def vocabulary(tool_params: dict[str, str]) -> dict[str, str]:
    """{worker flag: what to write instead} for a tool whose parameters are ``{flag: name}``."""
    out = {flag: name for flag, name in tool_params.items()}
    for flag in SERVER_FLAGS:
        out[flag] = "the server's %s flag" % flag
    return out


def translate(text: str, words: dict[str, str]) -> tuple[str, bool]:
    """(text with every flag in ``words`` replaced, whether a flag outside them remains)."""
    stray = False

    def swap(m: re.Match[str]) -> str:
        nonlocal stray
        flag = m.group(0)
        if flag in words:
            return words[flag]
        stray = True
        return m.group(1).replace("-", "_")

    return _FLAG.sub(swap, text), stray


def _error(error: dict[str, Any], words: dict[str, str]) -> dict[str, Any]:
    out = dict(error)
    if isinstance(out.get("message"), str):
        out["message"] = translate(out["message"], words)[0]
    if isinstance(out.get("hint"), str):
        hint, stray = translate(out["hint"], words)
        if stray:
            del out["hint"]  # advice the caller cannot follow through this tool
        else:
            out["hint"] = hint
    return out


def _warnings(warnings: Any, words: dict[str, str]) -> Any:
    if not isinstance(warnings, list):
        return warnings
    return [translate(w, words)[0] if isinstance(w, str) else w for w in warnings]


def text_view(text: str, words: dict[str, str]) -> str:
    """The worker's text view with its own lines translated; page text, titles and snippets untouched."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith(_OWN_LINES) and "--" in line:
            lines[i] = translate(line, words)[0]
    return "\n".join(lines)


def payload(data: dict[str, Any], words: dict[str, str]) -> dict[str, Any]:
    """A worker payload with its errors, hints, warnings and text view in the tool's terms."""
    out = dict(data)
    if isinstance(out.get("error"), dict):
        out["error"] = _error(out["error"], words)
    if "warnings" in out:
        out["warnings"] = _warnings(out["warnings"], words)
    if isinstance(out.get("text"), str):
        out["text"] = text_view(out["text"], words)
    results = out.get("results")
    if isinstance(results, list):
        fixed = []
        for item in results:
            if isinstance(item, dict):
                item = dict(item)
                for key in ("error", "fetch_error"):
                    if isinstance(item.get(key), dict):
                        item[key] = _error(item[key], words)
                if "warnings" in item:
                    item["warnings"] = _warnings(item["warnings"], words)
            fixed.append(item)
        out["results"] = fixed
    return out
