"""The text of markup with too many elements to build a tree of, read in linear time and memory.

A parsed element costs libxml2 and lxml some 450-550 bytes: 5 MB of ``<br>`` is 1.3
million elements and took 600 MB and 7 s to read through a tree. Past MAX_ELEMENTS
start tags a page is read here instead, by regular expressions (C speed, a few
copies of the text): scripts, styles and comments dropped, block tags made paragraph
breaks, the other tags removed, entities decoded. The same paragraphs the work
budget's path gives (worker.pages.extract.core, ``extractor: "budget"``), without
its landmark removal, which needs the tree.
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
    from html import escape, unescape

    title = _TITLE.search(html, 0, 200000)
    text = _NEVER_TEXT.sub(" ", html)
    text = _BLOCK_TAG.sub("\n\n", text)
    text = _ANY_TAG.sub("", text)
    paragraphs = [" ".join(unescape(p).split()) for p in _PARAGRAPH_BREAK.split(text)]
    paragraphs = [p for p in paragraphs if p]
    if fmt == "markdown":
        from .escape import escape_line_start, md_escape

        paragraphs = [escape_line_start(md_escape(p)) for p in paragraphs]
    elif fmt == "html":
        paragraphs = ["<p>%s</p>" % escape(p) for p in paragraphs]
    return {
        "text": "\n\n".join(paragraphs),
        "extractor": "budget",
        "page_type": "unknown",
        "title": " ".join(unescape(title.group(1)).split()) or None if title else None,
        "hidden_removed_chars": 0,
        "warnings": [
            "the page is too large to analyse (over %d elements); its text is given as is, without scripts"
            % MAX_ELEMENTS
        ],
    }
