"""The page's own table of contents: a list whose links each go to a heading of the page.

Readers and the page show it where it stands (an article's "In this article", Sphinx's local
"Contents" box); its entries are the page's section titles, which a model reads as the
page's map at a few tokens. It looks like chrome (a nav of links, named "toc"), and the
chrome rules would drop it; a sidebar's tree of links to other pages is no such list.

Pure functions over lxml trees; no I/O.
"""

from __future__ import annotations

from .names import HEADINGS

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only
    from lxml.html import HtmlElement  # no stubs: Any to the checker

# share of an element's links that must go to a heading of the page (the rest: a "Top" link,
# an entry whose anchor the page renamed)
TO_HEADINGS = 0.8


def heading_ids(root: HtmlElement) -> set[str]:
    """The ids (and anchor names) a link to a heading of root uses: the heading's own, those
    of the elements inside it, and those of the section it heads (its parent)."""
    ids: set[str] = set()
    for h in root.iter(*HEADINGS):
        parent = h.getparent()
        for el in (h, *h.iterdescendants(), *(() if parent is None else (parent,))):
            for name in (el.get("id"), el.get("name")):
                if name:
                    ids.add(name)
    return ids


def is_contents(el: HtmlElement, ids: set[str]) -> bool:
    """Whether el holds the page's table of contents and nothing else: two links or more,
    each to a place on the page ("#install"; a bare "#" toggle aside), TO_HEADINGS of them
    to a heading (ids: heading_ids of the page)."""
    targets = []
    for a in el.iter("a"):
        href = (a.get("href") or "").strip()
        if href == "#":
            continue
        if not href.startswith("#"):
            return False
        targets.append(href[1:])
    return len(targets) >= 2 and sum(1 for t in targets if t in ids) >= TO_HEADINGS * len(targets)
