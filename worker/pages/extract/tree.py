"""What the extraction stages (region, thread, product, pagetype, project) all do to an lxml
tree: count the words below an element, remove an element but not the text after it, and
tell a link that names code (an API's name) from one that names a page.

Its own module so the stages share it without importing one another: region builds a
thread from thread's posts, and thread's cleaning needs these two as much as region's.
Pure functions over lxml elements; no I/O.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from lxml.html import HtmlElement  # no stubs: Any to the checker


_STRING: Any = None  # lxml XPath "string()", compiled on first use (extraction runs on one thread)


def word_count(el: HtmlElement) -> int:
    """Whitespace-separated words of all the text below el."""
    try:
        # libxml2 joins the text nodes: 2.5 times faster than "".join(el.itertext()), the same words
        return len(_text_of(el).split())
    except ValueError:
        return 0


def words_over(el: HtmlElement, limit: int) -> bool:
    """Whether el holds more than limit words (as word_count counts them); splits no
    further than that (cheap on big elements)."""
    try:
        text = _text_of(el)
    except ValueError:
        return False
    if limit < 0:
        return bool(text)
    return len(text.split(None, limit)) > limit


def _text_of(el: HtmlElement) -> str:
    global _STRING
    if _STRING is None:
        from lxml import etree

        _STRING = etree.XPath("string()")
    return str(_STRING(el))


def drop(el: HtmlElement) -> None:
    """Remove el and its content, keeping the text that followed it."""
    if el.getparent() is None:
        return
    if hasattr(el, "drop_tree"):  # lxml.html elements join the tail to what came before
        el.drop_tree()
        return
    parent, prev = el.getparent(), el.getprevious()
    tail = el.tail or ""
    parent.remove(el)
    if tail:
        if prev is not None:
            prev.tail = (prev.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail


CODE = ("code", "tt", "kbd", "samp")


def names_code(a: HtmlElement) -> bool:
    """Whether all of a link's text is code: a reference to an API name or a setting
    (``Response.json()``, ``SECURE_HSTS_SECONDS``), which documentation lists in its text;
    a menu's entries and a box of related stories are words."""
    total = len("".join(_text_of(a).split()))
    if not total:
        return False
    inside = 0
    for c in a.iter(*CODE):
        up = c.getparent()
        while up is not None and up is not a and up.tag not in CODE:
            up = up.getparent()
        if up is a:  # the outermost code element in the link (a nested one is counted in it)
            inside += len("".join(_text_of(c).split()))
    return inside >= total
