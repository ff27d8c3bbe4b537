"""Links as a focused view shows them: their text alone, the address left out (it costs the
budget more than its words do, and docs URLs repeat every term of a question).

Pure functions over a page's markdown.
"""

from __future__ import annotations

import re

_LINK_TARGET = re.compile(r"\]\([^)\s]*\)")
# A link, as focused passages show it: its text only (the address costs the budget more than its words
# do); an inline code span is matched first so that a link inside one stays as it is.  Images stay.
_LINK = re.compile(
    r"(`+)[^`\n]*?\1|(?<!!)\[((?:[^\[\]\n]|\[[^\[\]\n]*\]){0,300}?)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"\n]*\")?\)"
)
_FENCE_LINE = re.compile(r"^[ \t]*(?:```|~~~)", re.M)
# Where a link or a code span can start: _LINK is tried only there (as finditer would, in
# order, from the end of the last match), which costs a third less than letting the regex
# engine try both of its branches at every character of a long page.
_START = re.compile(r"[`\[]")


def _matches(text: str) -> list[re.Match[str]]:
    """_LINK.finditer(text), the same matches."""
    out: list[re.Match[str]] = []
    end = 0
    match = _LINK.match
    for s in _START.finditer(text):
        at = s.start()
        if at < end:
            continue
        m = match(text, at)
        if m is not None:
            out.append(m)
            end = m.end()
    return out


def link_targets(text: str) -> list[tuple[int, int]]:
    """The spans of markdown link addresses, ``](...)``, in order."""
    return [(m.start(), m.end()) for m in _LINK_TARGET.finditer(text)]


class Links:
    """The text's links outside code, each shown as its text alone in a focused view: what a span
    costs shown that way, and the span so shown."""

    __slots__ = ("spans", "starts", "saved")

    def __init__(self, text: str):
        self.spans: list[tuple[int, int, int, int]] = []  # (start, end, text's start, text's end)
        self.starts: list[int] = []
        self.saved = [0]  # characters the first i links save
        if "](" not in text:
            return
        fences = [m.start() for m in _FENCE_LINE.finditer(text)]
        from bisect import bisect_right

        for m in _matches(text):
            if m.group(2) is None or bisect_right(fences, m.start()) % 2:
                continue  # a code span, or a link inside a code block
            self.spans.append((m.start(), m.end(), m.start(2), m.end(2)))
            self.starts.append(m.start())
            self.saved.append(self.saved[-1] + (m.end() - m.start()) - (m.end(2) - m.start(2)))

    def _range(self, start: int, end: int) -> tuple[int, int]:
        """The indexes [i, j) of the links wholly inside text[start:end]."""
        from bisect import bisect_left

        i = bisect_left(self.starts, start)
        j = bisect_left(self.starts, end, i)
        while j > i and self.spans[j - 1][1] > end:
            j -= 1
        return i, j

    def cost(self, start: int, end: int) -> int:
        """The length of text[start:end] with its links shown as their text."""
        if not self.spans:
            return end - start
        i, j = self._range(start, end)
        return end - start - (self.saved[j] - self.saved[i])

    def shown(self, text: str, start: int, end: int) -> str:
        """text[start:end] with its links shown as their text."""
        i, j = self._range(start, end) if self.spans else (0, 0)
        out, at = [], start
        for a, b, ta, tb in self.spans[i:j]:
            out.append(text[at:a])
            out.append(text[ta:tb])
            at = b
        out.append(text[at:end])
        return "".join(out)


def inside(spans: list[tuple[int, int]], pos: int) -> bool:
    from bisect import bisect_right

    i = bisect_right(spans, (pos, 1 << 62)) - 1
    return i >= 0 and spans[i][0] <= pos < spans[i][1]
