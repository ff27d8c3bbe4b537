"""Markdown escaping: what CommonMark would read as markup in running text, and only that.

Its own module because every renderer of text uses it (render.py, parse.py's and
linear.py's cheap paths, checks/shells.py), and none of them should need the tree renderer.
"""

from __future__ import annotations

import re

_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_MD_RISKY = re.compile(r"[\\_*`\[<&]")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_LINE_START = re.compile(r"(#{1,6}(?=\s|$)|[>]|[-+*](?=\s|$)|\d{1,9}(?=[.)](?:\s|$))|[=-]+\s*$|`{3,}|~{3,})")


def md_url(u: str | None) -> str:
    return (u or "").strip().replace(" ", "%20").replace("(", "%28").replace(")", "%29")


def md_escape(s: str) -> str:
    """Escape what CommonMark would read as markup in a piece of running text, and only that.

    ``snake_case_name`` and ``SEARCH_DONE`` stay as they are: an underscore between two
    letters or digits can neither open nor close emphasis. A ``*`` with space on both
    sides is literal too. Neighbours outside the piece are unknown, so edges are
    treated as the riskier case.
    """
    if not _MD_RISKY.search(s):
        return s
    return _MD_RISKY.sub(_md_escape_one, s)


def _md_escape_one(m: re.Match[str]) -> str:
    s, i, c = m.string, m.start(), m.group(0)
    prev = s[i - 1] if i else ""
    nxt = s[i + 1 : i + 2]
    if c == "\\":
        return "\\\\" if (nxt in _ASCII_PUNCT or not nxt) else c
    if c == "_":
        return c if prev.isalnum() and nxt.isalnum() else "\\_"
    if c == "*":
        return c if prev.isspace() and nxt.isspace() else "\\*"
    if c == "`":
        return "\\`"
    if c == "[":
        close = s.find("]", i + 1)
        after = s[close + 1 : close + 2] if close >= 0 else ""
        return c if (close >= 0 and after and after not in "([:") else "\\["
    if c == "<":
        # "&lt;", not "\\<": the same text to a markdown reader, and tools that strip tags
        # before they read escapes (a scorer, a search) keep "Option<T>" and "<boolean>"
        return "&lt;" if (nxt.isalpha() or nxt in "/!?") else c
    if c == "&":
        return "\\&" if _ENTITY.match(s, i) else c
    return c


def escape_line_start(line: str) -> str:
    """Escape a line's opening characters that would make it a heading, quote, list,
    rule or fence in CommonMark (the text after a list marker counts as a line start)."""
    m = _LINE_START.match(line)
    if not m:
        return line
    if m.group(0)[:1].isdigit():  # "1. text": the dot or parenthesis makes the list
        end = m.end()
        return line[:end] + "\\" + line[end:]
    return "\\" + line
