"""Small pieces the adapters share: an API's HTML fragment to markdown, headings, fences.

The fragments are an API's own post bodies (Stack Exchange), a known small subset
of HTML, so a stdlib parser does; the page extractor (lxml, trafilatura) is
neither needed nor safe off the calling thread, where adapters run.
"""

from __future__ import annotations

from html.parser import HTMLParser

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


def fence(code: str, lang: str | None = None) -> str:
    """``code`` in a fence longer than any backtick run inside it, so the code cannot close it."""
    longest, run = 0, 0
    for ch in code:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    ticks = "`" * max(3, longest + 1)
    return "%s%s\n%s\n%s" % (ticks, lang or "", code.rstrip("\n"), ticks)


def heading(level: int, title: str, md: bool) -> str:
    return ("#" * level + " " + title) if md else title


def code_block(code: str, lang: str | None, md: bool) -> str:
    return fence(code, lang) if md else code.rstrip("\n")


class _ToMarkdown(HTMLParser):
    BLOCKS = {"p", "div", "blockquote", "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6", "table", "tr", "hr"}

    def __init__(self, md: bool):
        super().__init__(convert_charrefs=True)
        self.md = md
        self.out: list[str] = []
        self.pre: list[str] | None = None  # text of the <pre> being read
        self.lists: list[list[Any]] = []  # [tag, items so far] of each open list
        self.quote = 0
        self.href: list[str | None] = []

    def _nl(self, n: int = 2) -> None:
        text = "".join(self.out)
        stripped = text.rstrip(" ")
        have = len(stripped) - len(stripped.rstrip("\n"))
        if stripped and have < n:
            self.out.append("\n" * (n - have))

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self.pre is not None:
            return
        if tag == "pre":
            self._nl()
            self.pre = []
        elif tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self._nl()
            if self.md:
                self.out.append("#" * int(tag[1]) + " ")
        elif tag in ("p", "div", "table"):
            self._nl()
        elif tag in ("ul", "ol"):
            self._nl(1 if self.lists else 2)
            self.lists.append([tag, 0])
        elif tag == "li":
            self._nl(1)
            depth = max(0, len(self.lists) - 1)
            kind: list[Any] = self.lists[-1] if self.lists else ["ul", 0]
            kind[1] += 1
            self.out.append("  " * depth + ("%d. " % kind[1] if kind[0] == "ol" else "- "))
        elif tag == "blockquote":
            self._nl()
            self.quote += 1
            self.out.append("> ")
        elif tag == "br":
            self.out.append("  \n" if self.md else "\n")
        elif tag == "hr":
            self._nl()
            self.out.append("---" if self.md else "")
            self._nl()
        elif tag == "code":
            self.out.append("`" if self.md else "")
        elif tag in ("strong", "b") and self.md:
            self.out.append("**")
        elif tag in ("em", "i") and self.md:
            self.out.append("*")
        elif tag == "a":
            self.href.append(attrs.get("href"))
            if self.md and attrs.get("href"):
                self.out.append("[")
        elif tag == "img":
            alt = attrs.get("alt") or "image"
            self.out.append("![%s](%s)" % (alt, attrs.get("src") or "") if self.md else "[%s]" % alt)
        elif tag in ("td", "th"):
            self.out.append(" | ")

    def handle_endtag(self, tag):
        if self.pre is not None:
            if tag == "pre":
                code = "".join(self.pre)
                self.pre = None
                self.out.append(code_block(code, None, self.md))
                self._nl()
            return
        if tag in ("p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "table"):
            self._nl()
        elif tag in ("ul", "ol"):
            if self.lists:
                self.lists.pop()
            self._nl(1 if self.lists else 2)
        elif tag == "tr":
            self._nl(1)
        elif tag == "blockquote":
            self.quote = max(0, self.quote - 1)
            self._nl()
        elif tag == "code":
            self.out.append("`" if self.md else "")
        elif tag in ("strong", "b") and self.md:
            self.out.append("**")
        elif tag in ("em", "i") and self.md:
            self.out.append("*")
        elif tag == "a":
            href = self.href.pop() if self.href else None
            if self.md and href:
                self.out.append("](%s)" % href)

    def handle_data(self, data):
        if self.pre is not None:
            self.pre.append(data)
            return
        text = " ".join(data.split("\n"))
        if self.quote and "".join(self.out).endswith("\n"):
            text = "> " + text.lstrip()
        self.out.append(text)


def html_to_text(fragment: str | None, md: bool = True) -> str:
    """An API's HTML fragment as markdown (or plain text); code blocks kept verbatim."""
    parser = _ToMarkdown(md)
    parser.feed(fragment or "")
    parser.close()
    if parser.pre is not None:  # an unclosed <pre>: keep what it held
        parser.out.append(code_block("".join(parser.pre), None, md))
    # Blank lines are left as written: inside a code block they are the code.
    return "".join(parser.out).strip("\n")


def iso_date(seconds: Any) -> str | None:
    """A Unix time as an ISO 8601 UTC date-time, or None."""
    import time

    try:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(seconds)))
    except (TypeError, ValueError, OverflowError, OSError):
        return None
