"""The text of markup with too many elements to build a tree of, read in linear time and memory.

A parsed element costs libxml2 and lxml some 450-550 bytes: 5 MB of ``<br>`` is 1.3
million elements and took 600 MB and 7 s to read through a tree. Past MAX_ELEMENTS
start tags a page is read here instead, by regular expressions (C speed, a few
copies of the text): scripts, styles and comments dropped, block tags made paragraph
breaks, the other tags removed, entities decoded. The shape the work budget's path
keeps (budget_text.py: its marks, written by its ``written``), headings, code blocks
and list items, without its landmark removal and tables, which need the tree. Such a
page is most often one of code, each token highlighted in an element of its own.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

# Start tags past which no tree is built: ~160 MB of tree, within the extraction
# child's memory (worker.pages.child.spawn). The 1,334 WCXB pages have at most
# 16,000 elements; 100,000 links in a list (200,000 start tags) still get a tree.
MAX_ELEMENTS = 250000

_NEVER_TEXT = re.compile(
    r"(?is)<(script|style|noscript|template|svg|iframe|object|canvas)\b[^>]*>.*?</\1\s*>|<!--.*?-->|<!\[CDATA\[.*?\]\]>"
)
_BLOCK_TAG = re.compile(
    r"(?i)</?(?:address|article|aside|blockquote|body|br|caption|dd|details|div|dl|dt|figcaption|figure|footer|form"
    r"|h[1-6]|header|hr|li|main|nav|ol|p|pre|section|summary|table|td|th|tr|ul)\b[^>]*>"
)
_HEADING_START = re.compile(r"(?i)<h([1-6])\b[^>]*>")
_ITEM_START = re.compile(r"(?i)<li\b[^>]*>")
_PRE_START = re.compile(r"(?i)<pre\b[^>]*>")
_PRE_END = re.compile(r"(?i)</pre\s*>")
_BREAK = re.compile(r"(?i)<br\b[^>]*>")
_ANY_TAG = re.compile(r"<[!/?]?[A-Za-z][^>]*>|<!\w[^>]*>")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_TITLE = re.compile(r"(?is)<title\b[^>]*>(.*?)</title\s*>")


def too_many_elements(html: str) -> bool:
    """Whether ``html`` has more than MAX_ELEMENTS start tags (counted with str.count: C speed)."""
    if len(html) < MAX_ELEMENTS * 3:  # "<b>" is the shortest element
        return False
    return html.count("<") - html.count("</") > MAX_ELEMENTS


def extract(html: str, fmt: str) -> dict[str, Any]:
    """A result shaped like worker.pages.extract.core.extract's, for a page past MAX_ELEMENTS."""
    from html import unescape

    from . import budget_text

    title = _TITLE.search(html, 0, 200000)
    text = budget_text.MARKS.sub("", html)  # the marks' characters, should the page write them
    text = _NEVER_TEXT.sub(" ", text)
    shaped: list[str] = []
    text = _code_blocks(text, fmt, shaped)
    # the same marks as budget_text's, before the tags go: headings and list items
    text = _HEADING_START.sub("\n\n" + budget_text.HEAD + r"\1", text)
    text = _ITEM_START.sub("\n\n%s-%s" % (budget_text.ITEM, budget_text.ITEM), text)
    text = _BLOCK_TAG.sub("\n\n", text)
    text = _ANY_TAG.sub("", text)
    written = budget_text.written(_PARAGRAPH_BREAK.split(text), shaped, fmt, entities=True)
    return {
        "text": written,
        "extractor": "budget",
        "page_type": "unknown",
        "title": " ".join(unescape(title.group(1)).split()) or None if title else None,
        "hidden_removed_chars": 0,
        "warnings": [
            "the page is too large to analyse (over %d elements); its text is given as is, without scripts"
            % MAX_ELEMENTS
        ],
    }


def _code_blocks(text: str, fmt: str, shaped: list[str]) -> str:
    """``text`` with its first MAX_SHAPED code blocks (``<pre>`` to ``</pre>``) put in ``shaped``,
    written with their line breaks, and a placeholder paragraph in their place. Each block's end
    is looked for once from its start (no backtracking: a page of unclosed ``<pre>`` stays linear)."""
    from html import unescape

    from . import budget_text

    out: list[str] = []
    pos = 0
    for start in _PRE_START.finditer(text):
        if start.start() < pos:
            continue  # inside the block taken before
        end = _PRE_END.search(text, start.end())
        if end is None or len(shaped) >= budget_text.MAX_SHAPED:
            break
        code = unescape(_ANY_TAG.sub("", _BREAK.sub("\n", text[start.end() : end.start()])))
        out.append(text[pos : start.start()])
        out.append("\n\n%s%d%s\n\n" % (budget_text.SHAPED, len(shaped), budget_text.SHAPED))
        shaped.append(budget_text.code_text(budget_text.MARKS.sub("", code), fmt))
        pos = end.end()
    out.append(text[pos:])
    return "".join(out)
