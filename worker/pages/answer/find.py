"""Every occurrence of a text in a page's whole extracted text: ``fetch --find TEXT``.

Pure functions.  A match ignores case and spacing: the words of TEXT in order, any run
of whitespace (line breaks included) between them.  Each match has its ``offset`` in the
whole text (pass it as ``--start-index`` to read from there), its ``length``, a
``context`` of about CONTEXT characters on each side (cut at word boundaries,
whitespace folded) and the ``section`` it is in (the last outline heading before it).
A text's ``count`` is every occurrence; its ``matches`` list the first MAX_MATCHES.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any, Sequence

CONTEXT = 150  # characters each side of a match: a few hundred around it
MAX_MATCHES = 50  # matches listed per text; count says how many there are
MAX_TERMS = 10  # --find given more often than this is an invalid_argument
MAX_TERM_CHARS = 500


def pattern(needle: str) -> re.Pattern[str]:
    """The words of ``needle`` in order, any whitespace between them, case ignored."""
    return re.compile(r"\s+".join(re.escape(word) for word in needle.split()), re.IGNORECASE)


def context(text: str, start: int, end: int, width: int = CONTEXT) -> str:
    """About ``width`` characters each side of text[start:end], cut at word boundaries, on one line."""
    lo, hi = max(0, start - width), min(len(text), end + width)
    if lo > 0:
        space = text.find(" ", lo, start)
        lo = space + 1 if space != -1 else lo
    if hi < len(text):
        space = text.rfind(" ", end, hi)
        hi = space if space != -1 else hi
    return ("..." if lo > 0 else "") + " ".join(text[lo:hi].split()) + ("..." if hi < len(text) else "")


def section(outline: Sequence[Any], offset: int) -> str | None:
    """The title of the last outline heading at or before ``offset``."""
    title = None
    for entry in outline or ():
        if isinstance(entry, dict) and isinstance(entry.get("offset"), int) and entry["offset"] <= offset:
            title = entry.get("title")
    return title if isinstance(title, str) and title else None


def find(text: str, needle: str, outline: Sequence[Any] = ()) -> dict[str, Any]:
    """``{"text", "count", "matches": [{"offset", "length", "context", "section"?}]}`` for one needle."""
    matches: list[dict[str, Any]] = []
    count = 0
    for m in pattern(needle).finditer(text):
        count += 1
        if len(matches) < MAX_MATCHES:
            match: dict[str, Any] = {
                "offset": m.start(),
                "length": m.end() - m.start(),
                "context": context(text, m.start(), m.end()),
            }
            where = section(outline, m.start())
            if where:
                match["section"] = where
            matches.append(match)
    return {"text": needle, "count": count, "matches": matches}


def find_all(text: str, needles: Sequence[str], outline: Sequence[Any] = ()) -> list[dict[str, Any]]:
    """``find`` for each needle, in the order given."""
    return [find(text, needle, outline) for needle in needles]
