"""Long pages: a window of the text cut on a clean boundary, and an outline.

Pure functions.  Offsets are character indexes into the whole extracted text,
so ``--start-index`` with an outline offset or ``next_start_index`` continues
exactly there.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any


OUTLINE_MAX = 60
TITLE_MAX = 120

_MD_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.M)
_FENCE = re.compile(r"^[ \t]*(```|~~~)", re.M)
_HTML_HEADING = re.compile(r"<h([1-6])\b[^>]*>(.*?)</h\1\s*>", re.I | re.S)
_TAG = re.compile(r"<[^>]+>")
_SENTENCE_END = re.compile(r"[.!?;:]['\")\]]?\s|[\u3002\uff01\uff1f\uff1b]")


def _fenced_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    opened = None
    for m in _FENCE.finditer(text):
        if opened is None:
            opened = m.start()
        else:
            spans.append((opened, m.end()))
            opened = None
    if opened is not None:
        spans.append((opened, len(text)))
    return spans


def outline(text: str, fmt: str) -> list[dict[str, Any]]:
    """[{level, title, offset}] for markdown headings (or <h1>-<h6> in html), capped in number."""
    items: list[dict[str, Any]] = []
    if fmt == "html":
        for m in _HTML_HEADING.finditer(text):
            title = " ".join(_TAG.sub(" ", m.group(2)).split())
            if title:
                items.append({"level": int(m.group(1)), "title": title[:TITLE_MAX], "offset": m.start()})
    elif fmt in ("markdown", "text"):
        fences = _fenced_spans(text)
        for m in _MD_HEADING.finditer(text):
            if any(a <= m.start() < b for a, b in fences):
                continue
            title = m.group(2).strip()
            if title:
                items.append({"level": len(m.group(1)), "title": title[:TITLE_MAX], "offset": m.start()})
    if len(items) > OUTLINE_MAX:  # keep the top levels when there are too many headings
        for depth in (3, 2, 1):
            items = [i for i in items if i["level"] <= depth]
            if len(items) <= OUTLINE_MAX:
                break
        items = items[:OUTLINE_MAX]
    return items


def _boundary(text: str, start: int, end: int) -> int:
    """The best cut position in (start, end]: paragraph/heading, line, sentence, then word boundary."""
    floor = start + (end - start) // 2
    for pattern in ("\n\n", "\n"):
        cut = text.rfind(pattern, floor, end)
        if cut > start:
            return cut
    best = None
    for m in _SENTENCE_END.finditer(text, floor, end):
        best = m.end()
    if best and best > start:
        return best
    # Never mid-word: back up to the last whitespace anywhere in the window.
    for i in range(end, start, -1):
        if text[i - 1].isspace() or (not text[i - 1].isalnum() and text[i - 1] not in "_-'") or _cjk(text[i - 1]):
            return i
    return end  # a single "word" longer than the window: nothing better exists


def _cjk(ch: str) -> bool:
    return "\u3000" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" or "\uf900" <= ch <= "\ufaff"


def window(text: str, start_index: int | None, max_chars: int | None) -> tuple[str, bool, int | None]:
    """(content, truncated, next_start_index or None) for ``text[start_index:]`` within ``max_chars``."""
    total = len(text)
    start = max(0, min(start_index or 0, total))
    if max_chars is None or total - start <= max_chars:
        return text[start:], False, None
    end = start + max_chars
    cut = _boundary(text, start, end)
    content = text[start:cut].rstrip()
    nxt = cut
    while nxt < total and text[nxt].isspace():
        nxt += 1
    if nxt >= total:
        return content, False, None
    return content, True, nxt
