"""A page's markdown cut into the blocks focus scores: paragraphs between blank lines, heading
lines, and pieces of a sentence or two of a long paragraph; its outline of headings; and the
lines that head a reference page's entries (API signatures, definition-list terms).

No I/O: the blocks are found with a few C-level passes (blank lines, heading lines), so a
long page costs what the blocks asked for cost.
"""

from __future__ import annotations

import re
from bisect import bisect_right

PIECE = 250  # a block longer than this is scored in pieces of about this size
HEADING = re.compile(r"(#{1,6})[ \t]+\S[^\n]*")  # a markdown heading line (site/passages.py reads it too)
# a fenced code block's opening or closing line (focus and site/plain.py read it too)
FENCE = re.compile(r"^[ \t]*(?:```|~~~)", re.M)
_BLANK = re.compile(r"\n(?:[ \t>]*\n)+")  # blank lines, in a quote too ("\n>\n")
_ITEM = re.compile(r"\n[ \t]*(?:[-*+] |\d{1,3}[.)] )")  # a list item's start, on its line
_LINE_OR_SENTENCE = re.compile(r"\n|[.!?;:\u3002\uff01\uff1f](?=\s|$)")
# A box's title: DocBook (PostgreSQL's manual, and any site its stylesheets build) writes a note's
# or a tip's label as a heading (<div class="note"><h3>Note</h3>), which would end the section it
# sits in and head every paragraph after the box, the next setting's entry too. The label alone,
# one word, is no section ("Notes", a reference page's own section, is one).
_BOX_TITLE = re.compile(
    r"#{1,6}[ \t]+(?:note|tip|hint|warning|caution|important|danger|attention|notice|remark)[ \t]*:?[ \t]*(?:\n|$)",
    re.IGNORECASE,
)


class Outline:
    """The text's markdown headings, each with the chain of headings it sits under."""

    __slots__ = ("starts", "ends", "chains", "signatures")

    def __init__(self, text: str):
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.chains: list[tuple[int, ...]] = []  # indexes of the headings above it and itself, outermost first
        self.signatures: list[tuple[int, int]] = []  # API entries' signature lines (see signatures), when read
        stack: list[tuple[int, int]] = []
        find, match = text.find, HEADING.match
        # a "# comment" line of a shell or Python example is no heading: the fences' lines, in
        # order, open and close code, so a line after an odd number of them is inside one
        fences = [m.start() for m in FENCE.finditer(text)] if "```" in text or "~~~" in text else []
        at = 0 if text.startswith("#") else find("\n#")
        while at >= 0:
            m = match(text, at + (text[at] == "\n"))
            if m and fences and bisect_right(fences, m.start()) % 2:
                m = None
            if m and not _BOX_TITLE.match(text, m.start()):
                level = len(m.group(1))
                while stack and stack[-1][0] >= level:
                    stack.pop()
                stack.append((level, len(self.starts)))
                self.starts.append(m.start())
                self.ends.append(m.end())
                self.chains.append(tuple(i for _, i in stack))
            at = find("\n#", at + 1)

    def at(self, pos: int) -> int:
        """The index of the heading whose section holds ``pos``, or -1."""
        return bisect_right(self.starts, pos) - 1


def _pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A long block as spans of about PIECE characters, cut after a line or a sentence."""
    spans = []
    while end - start > PIECE * 3 // 2:
        cut = None
        m = _ITEM.search(text, start + PIECE // 3, start + PIECE * 3 // 2)
        if m:
            cut = m.start()  # a list's items are pieces of their own where they can be
        for m in () if cut else _LINE_OR_SENTENCE.finditer(text, start + PIECE // 2, start + PIECE):
            cut = m.end()
        if cut is None:
            space = text.rfind(" ", start + PIECE // 2, start + PIECE)
            cut = space if space > start else start + PIECE
        spans.append((start, cut))
        while cut < end and text[cut].isspace():
            cut += 1
        start = cut
    spans.append((start, end))
    return spans


class Finder:
    """The block around a position: the paragraph (blank lines around it), a heading line, or a piece of a
    long paragraph.  Only blocks that hold a term are ever found, so a long page costs what its hits cost."""

    def __init__(self, text: str, outline: Outline):
        self.text = text
        self.outline = outline
        self.cache: dict[int, list[tuple[int, int]]] = {}
        breaks = [(m.start(), m.end()) for m in _BLANK.finditer(text)]
        self.break_starts = [s for s, _ in breaks]
        self.break_ends = [e for _, e in breaks]

    def block(self, pos: int) -> tuple[int, int]:
        text = self.text
        i = bisect_right(self.break_starts, pos) - 1
        start = self.break_ends[i] if i >= 0 else 0
        end = self.break_starts[i + 1] if i + 1 < len(self.break_starts) else len(text)
        if end - start <= PIECE * 3 // 2 and text[start] != "#" and text.find("\n#", start, end) < 0:
            return start, end  # a plain paragraph: most blocks, and no heading to look up
        h = self.outline.at(pos)
        if h >= 0 and pos < self.outline.ends[h]:
            return self.outline.starts[h], self.outline.ends[h]
        if h >= 0 and start <= self.outline.ends[h]:
            start = self.outline.ends[h] + 1  # text right under the heading, without a blank line
        while start < end and text[start].isspace():
            start += 1
        if end - start <= PIECE * 3 // 2:
            return start, end
        spans = self.cache.get(start)
        if spans is None:
            spans = self.cache[start] = _pieces(text, start, end)
        for a, b in spans:
            if pos < b:
                return a, b
        return spans[-1]

    def paragraph(self, pos: int) -> tuple[int, int]:
        """The run of text between blank lines around ``pos`` (a long one holds several blocks)."""
        i = bisect_right(self.break_starts, pos) - 1
        start = self.break_ends[i] if i >= 0 else 0
        end = self.break_starts[i + 1] if i + 1 < len(self.break_starts) else len(self.text)
        return start, end

    def after(self, end: int) -> tuple[int, int] | None:
        """The block right after one that ends at ``end``."""
        text = self.text
        pos = end
        while pos < len(text) and text[pos].isspace():
            pos += 1
        return self.block(pos) if pos < len(text) else None


# An API entry's signature, alone on its line between blank lines: what a reference page's
# description paragraphs are about (Sphinx, Javadoc and rustdoc flatten their entries to such lines):
# ``*class *pkg.Name(*a*, *b=1*)``, ``@functools.lru_cache(*maxsize=128*)``, ``void Py_DECREF(PyObject \*o)``,
# ``Popen.returncode``.  A line of prose ends with a stop, or has more than two words before its "(".
_SIGNATURE = re.compile(
    r"[ \t]*(?:\*[A-Za-z ]{1,30}\*[ ]?)?(?:[A-Za-z_][\w\[\]()./:]*(?: \\?\*+)? ){0,2}@?"
    r"(?:[A-Za-z_][\w.]*\([^\n]*\)(?:[ ]*(?:->|\u2192)[^\n]{1,80})?|[A-Za-z_]\w*(?:\.\w+)+(?: = [^\n]{1,60})?)[ \t]*"
)
_ONE_LINE = re.compile(r"\n\n([ \t]*[*@A-Za-z_`][^\n]{2,400})(?=\n\n)")  # a paragraph of one line
# A definition list's term, alone on its line: code spans and the brackets, commas and slashes between
# them. Reference pages flatten their entries to such lines too: PostgreSQL's ```work_mem` (`integer`)``,
# a command's ```CONCURRENTLY```, a program's ```--clean```; the paragraphs under one describe it.
_TERM = re.compile(r"[ \t]*`[^`\n]+`(?:[ ,/()\[\]|]*`[^`\n]+`)*[ )\]]*")
TERM_MAX = 120  # a longer line of code spans is code, not an entry's name


def signatures(text: str) -> list[tuple[int, int]]:
    """The spans of the text's API signature lines (_SIGNATURE) and entry terms (_TERM), each a block of its own."""
    out = []
    full = _SIGNATURE.fullmatch
    padded = "\n\n" + text + "\n\n"  # the first and last paragraphs too: offsets are 2 more than the text's
    for m in _ONE_LINE.finditer(padded):
        start, end = m.start(1) - 2, m.end(1) - 2
        if text[end - 1] not in ".:;,!?" and (
            full(text, start, end) or end - start <= TERM_MAX and _TERM.fullmatch(text, start, end)
        ):
            while text[start] in " \t":
                start += 1
            out.append((start, end))
    return out
