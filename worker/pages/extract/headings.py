"""Section headings put back into trafilatura's own tree, where that tree is what is rendered.

trafilatura's rules drop a heading whose markup reads like chrome (a product page's
"Description" and "Specifications" tabs, a blog's styled h2) while keeping the text it heads,
and the page's markup cannot always be rendered in its place (project.py). A heading
of the page is put back right before the block of trafilatura's tree that holds the
page's first text after the heading: it names what follows. A heading whose section
trafilatura left out stays out, and so does one already there.

Pure functions over lxml trees; no I/O.
"""

from __future__ import annotations

from . import thresholds as th

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only
    from typing import Any

    from lxml.html import HtmlElement  # no stubs: Any to the checker

SECTION_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_FIRST_TEXT = "following::text()[normalize-space()][1]"


def _norm(s: str) -> str:
    return " ".join(s.split())


def _text(el: Any) -> str:
    return _norm("".join(x for x in el.itertext() if isinstance(x, str)))


def restore(page: HtmlElement, body: Any) -> int:
    """Put the page's section headings back into body (trafilatura's XML body, in place);
    the number put back."""
    blocks = [el for el in body if isinstance(el.tag, str)]
    if not blocks:
        return 0
    texts = [_text(el) for el in blocks]
    have = {t for el, t in zip(blocks, texts) if el.tag == "head"}
    index: dict[str, int] = {}  # a block's opening words -> the first block opening so
    for n, t in enumerate(texts):
        index.setdefault(t[: th.T.HEAD_PROBE], n)
    wanted: dict[int, tuple[str, str]] = {}  # block index -> (tag, heading text)
    for h in page.iter(*SECTION_HEADINGS):
        title = _text(h)
        if not th.T.HEAD_MIN <= len(title) <= th.T.HEAD_MAX or title in have:
            continue
        after = h.xpath(_FIRST_TEXT)
        if not after:
            continue
        probe = _norm(str(after[0]))
        if len(probe) < th.T.HEAD_PROBE_MIN:
            continue
        i = index.get(probe[: th.T.HEAD_PROBE]) if len(probe) >= th.T.HEAD_PROBE else None
        if i is None:
            i = next((k for k, t in enumerate(texts) if t.startswith(probe)), None)
        if i is None or i in wanted:
            continue
        if i > 0 and texts[i - 1] == title:
            wanted[i - 1] = (h.tag, "")  # trafilatura kept the heading as a paragraph
        else:
            wanted[i] = (h.tag, title)
        have.add(title)
    from lxml import etree

    for i, (tag, title) in wanted.items():
        if not title:
            el = blocks[i]
            el.tag, el.attrib["rend"] = "head", tag
            continue
        head = etree.Element("head", rend=tag)
        head.text = title
        blocks[i].addprevious(head)
    return len(wanted)
