"""The pieces the adapters write their answers with: a heading and a code block, in
markdown or plain text; a file's language, to name its fence; a Unix time as a date.

An API's HTML (Stack Exchange's post bodies) is rendered by the page extractor's
renderer, worker.pages.extract.render, like every other HTML the worker turns to text.
"""

from __future__ import annotations

from ..extract.code_block import fence

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any


LANGUAGES = {
    "py": "python",
    "pyi": "python",
    "js": "javascript",
    "mjs": "javascript",
    "cjs": "javascript",
    "ts": "typescript",
    "tsx": "tsx",
    "jsx": "jsx",
    "rs": "rust",
    "go": "go",
    "c": "c",
    "h": "c",
    "cc": "cpp",
    "cpp": "cpp",
    "cxx": "cpp",
    "hpp": "cpp",
    "hh": "cpp",
    "java": "java",
    "kt": "kotlin",
    "rb": "ruby",
    "php": "php",
    "cs": "csharp",
    "swift": "swift",
    "scala": "scala",
    "sh": "bash",
    "bash": "bash",
    "zsh": "bash",
    "ps1": "powershell",
    "sql": "sql",
    "json": "json",
    "yaml": "yaml",
    "yml": "yaml",
    "toml": "toml",
    "ini": "ini",
    "cfg": "ini",
    "xml": "xml",
    "html": "html",
    "css": "css",
    "scss": "scss",
    "md": "markdown",
    "rst": "rst",
    "txt": "text",
    "lua": "lua",
    "r": "r",
    "m": "objectivec",
    "pl": "perl",
    "hs": "haskell",
    "ex": "elixir",
    "exs": "elixir",
    "erl": "erlang",
    "clj": "clojure",
    "dart": "dart",
    "zig": "zig",
    "nim": "nim",
    "vue": "vue",
    "svelte": "svelte",
    "proto": "protobuf",
    "tf": "hcl",
    "gradle": "groovy",
    "groovy": "groovy",
    "jl": "julia",
    "ml": "ocaml",
    "fs": "fsharp",
}
NAMED = {
    "dockerfile": "dockerfile",
    "makefile": "makefile",
    "cmakelists.txt": "cmake",
    "gemfile": "ruby",
    "rakefile": "ruby",
    "justfile": "just",
}


def language_of(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1].lower()
    if name in NAMED:
        return NAMED[name]
    if "." not in name:
        return None
    return LANGUAGES.get(name.rsplit(".", 1)[-1])


def heading(level: int, title: str, md: bool) -> str:
    return ("#" * level + " " + title) if md else title


def code_block(code: str, lang: str | None, md: bool) -> str:
    return fence(code, lang) if md else code.rstrip("\n")


def iso_date(seconds: Any) -> str | None:
    """A Unix time as an ISO 8601 UTC date-time, or None."""
    import time

    try:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(seconds)))
    except (TypeError, ValueError, OverflowError, OSError):
        return None
