"""Markdown as the words a reader sees: what a crawl's passages are given as.

A passage that answers a question is read for its words: a link's address, the
backticks around code, emphasis marks and quote markers cost a model's budget
and split the sentence it needs.  ``plain`` keeps the text, the line breaks,
heading and list markers and code blocks' lines, and drops the rest.  Pure
functions, regular expressions only.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_QUOTE = re.compile(r"^(?:[ \t]*>[ \t]?)+")
_CODE = re.compile(r"(`+)(.+?)\1", re.S)
_IMAGE = re.compile(r"!\[([^\]\n]*)\]\([^)\s]*(?:\s+\"[^\"\n]*\")?\)")
_LINK = re.compile(r"\[((?:[^\[\]]|\[[^\[\]]*\]){0,1000}?)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"\n]*\")?\)")
_AUTOLINK = re.compile(r"<(https?://[^<>\s]+)>")
_STRONG = re.compile(r"(?<![\w*])(\*\*|__)(?=\S)((?:(?!\n\n).){1,1000}?)(?<=\S)\1(?![\w*])", re.S)
_EMPH = re.compile(r"(?<![\w*\\])([*_])(?=[^\s*_])((?:(?!\n\n).){1,1000}?)(?<=[^\s\\])\1(?![\w*])", re.S)
# A backslash escape, or the "&lt;" the renderer writes for a "<" that would open a tag
# (worker/pages/extract/escape.py); "\\&lt;" is the text "&lt;" itself
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~\"'&])|&lt;")
_HARD_BREAK = re.compile(r"[ \t]+$|\\$", re.M)


def _inline(line: str) -> str:
    """One line of prose without inline markup; code spans keep their text as it is."""
    codes: list[str] = []

    def keep(m: re.Match[str]) -> str:
        codes.append(m.group(2).strip() if m.group(2).strip() else m.group(2))
        return "\x00%d\x00" % (len(codes) - 1)

    line = _CODE.sub(keep, line)
    line = _IMAGE.sub(lambda m: m.group(1), line)
    for _ in range(3):  # a link inside a link's text
        changed = _LINK.sub(lambda m: m.group(1), line)
        if changed == line:
            break
        line = changed
    line = _AUTOLINK.sub(lambda m: m.group(1), line)
    line = _STRONG.sub(lambda m: m.group(2), line)
    line = _EMPH.sub(lambda m: m.group(2), line)
    line = _ESCAPE.sub(lambda m: m.group(1) or "<", line)
    if codes:
        line = re.sub("\x00(\\d+)\x00", lambda m: codes[int(m.group(1))], line)
    return line


def plain(markdown: str, in_code: bool = False) -> str:
    """``markdown`` as plain text (see the module's docstring); code blocks' lines as they are.
    ``in_code``: the text starts inside a code block (a passage cut from a page: ``in_code_at``)."""
    out: list[str] = []
    prose: list[str] = []

    def flush() -> None:
        if prose:
            out.extend(_inline("\n".join(prose)).split("\n"))
            prose.clear()

    for line in markdown.split("\n"):
        line = _QUOTE.sub("", line)
        if _FENCE.match(line):
            flush()
            in_code = not in_code
            continue
        if in_code:
            out.append(line)
        else:
            prose.append(_HARD_BREAK.sub("", line))
    flush()
    return "\n".join(out)


def in_code_at(markdown: str, pos: int) -> bool:
    """Whether ``pos`` of ``markdown`` is inside a fenced code block."""
    inside = False
    from ..pages.answer.focus import FENCE

    for _ in FENCE.finditer(markdown, 0, pos):
        inside = not inside
    return inside
