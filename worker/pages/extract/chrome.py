"""Furniture that site generators print inside the content, removed before any extractor reads.

Small named steps over one tree, each a rule a person can check on the page:

- permalink_marks: the mark beside a heading that links to the heading itself (Sphinx's
  "¶", MkDocs' and GitHub's "#", "§", a link symbol). It is not the heading's text: with it,
  no heading of a Sphinx site reads as the page's heading.
- docbook_navigation: DocBook's Prev / Up / Home / Next tables at the top and foot of
  every page (PostgreSQL's manual, the Linux documentation project).
- edit_links: "Edit on GitHub", "Edit this page", "View page source", "Suggest an edit".
- breadcrumbs: the trail of the page's parents (marked by class, id, ARIA label or
  schema.org's BreadcrumbList).

And one the other way, run on the whole page before any extractor reads:

- manpage_header: AsciiDoc and Asciidoctor write a man page's NAME section ("git-log - Show
  commit logs") inside ``div#header``, which every reader drops as the site's header; it is
  moved to the top of ``div#content``, where the page shows it. The header's title ("git-log(1)
  Manual Page") stays: it is the page's <title> again, and as the heading over the whole page it
  would lend every block its words (a Git question lost to it).

Pure functions over lxml trees; no I/O.
"""

from __future__ import annotations

import re

from .tree import drop

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only
    from lxml.html import HtmlElement  # no stubs: Any to the checker

# The whole text of a link that marks a permalink: a symbol, not a word
PERMALINK_MARKS = frozenset(("", "¶", "§", "#", "🔗", "⚓", "⚓︎", "link", "permalink", "anchor"))
_EDIT = re.compile(
    r"(edit (this )?(page|file|doc|document|article|section)( on (github|gitlab|bitbucket))?|"
    r"edit on (github|gitlab|bitbucket)|suggest (an )?(edit|change)s?( to this page)?|"
    r"view (the )?(page )?source|show source|view on github|improve this (page|doc|document|article)|"
    r"report an? (issue|problem) with this page)\W*",
    re.I,
)
# The text nodes inside links that hold a word of _EDIT (libxml2 tests each text node; a
# link's whole string value, built for every link of the page, cost 2 ms a page)
_EDIT_XPATH = (
    ".//a//text()[contains(., 'dit') or contains(., 'DIT') or contains(., 'ource') or "
    "contains(., 'OURCE') or contains(., 'mprove') or contains(., 'MPROVE') or contains(., 'uggest') or "
    "contains(., 'UGGEST') or contains(., 'eport') or contains(., 'EPORT')]"
)
_BREADCRUMB_XPATH = (
    "//*[contains(translate(@class, 'BREADCUM', 'breadcum'), 'breadcrumb') or "
    "contains(translate(@id, 'BREADCUM', 'breadcum'), 'breadcrumb') or "
    "contains(translate(@aria-label, 'BREADCUM', 'breadcum'), 'breadcrumb') or "
    "contains(@itemtype, 'BreadcrumbList')]"
)


def _words(el: HtmlElement) -> str:
    return " ".join("".join(t for t in el.itertext() if isinstance(t, str)).split())


def permalink_marks(tree: HtmlElement) -> int:
    """Drop links to the page's own fragments whose whole text is a mark (¶, #, §...), and
    Sphinx's and MkDocs' headerlinks whatever they show. Returns how many."""
    n = 0
    for a in tree.xpath(".//a[not(@href) or starts-with(normalize-space(@href), '#')]"):
        cls = (a.get("class") or "").lower()
        text = _words(a)
        if text.lower() in PERMALINK_MARKS and (text or "headerlink" in cls or "anchor" in cls or "permalink" in cls):
            drop(a)
            n += 1
        elif "headerlink" in cls.split():
            drop(a)
            n += 1
    return n


def docbook_navigation(tree: HtmlElement) -> int:
    """Drop DocBook's navigation header and footer (a table of Prev / Up / Home / Next)."""
    found = tree.xpath(".//div[@class='navheader' or @class='navfooter']")
    for el in found:
        drop(el)
    return len(found)


def edit_links(tree: HtmlElement) -> int:
    """Drop "Edit on GitHub" and its kin, with the block that held only that link."""
    n = 0
    # libxml2 picks the links whose text holds one of the words; Python reads only those
    links: list[HtmlElement] = []
    for node in tree.xpath(_EDIT_XPATH):
        a = node.getparent()
        while a is not None and a.tag != "a":
            a = a.getparent()
        if a is not None and not any(a is b for b in links):
            links.append(a)
    for a in links:
        if a.getparent() is None:
            continue  # inside a holder dropped already
        text = _words(a)
        if not text or len(text) > 60 or not _EDIT.fullmatch(text):
            continue
        holder = a
        parent = a.getparent()
        # the small block that holds only the link (a <p>, <li>, <div> or <span> around it)
        while parent is not None and parent.tag in ("p", "li", "span", "div", "small") and _words(parent) == text:
            holder, parent = parent, parent.getparent()
        drop(holder)
        n += 1
    return n


def breadcrumbs(tree: HtmlElement) -> int:
    """Drop the breadcrumb trail (the outermost element that says it is one)."""
    found = tree.xpath(_BREADCRUMB_XPATH)
    dropped = 0
    for el in found:
        if any(anc in found for anc in el.iterancestors()):
            continue  # inside a trail already dropped
        if el.tag in ("html", "body", "main", "article"):
            continue  # a page whose body says "breadcrumb" in its class is more than its trail
        if len(_words(el)) > 400:
            continue  # a trail is a line of links, not a section
        drop(el)
        dropped += 1
    return dropped


def manpage_header(tree: HtmlElement) -> int:
    """Move a man page's NAME section out of its header into its content (see above).
    Returns how many elements moved."""
    body = tree.find(".//body")
    if body is None or "manpage" not in (body.get("class") or "").split():
        return 0
    header, content = body.find("div[@id='header']"), body.find("div[@id='content']")
    if header is None or content is None:
        return 0
    moved = [
        el for el in header if el.tag == "h2" or el.tag == "div" and "sectionbody" in (el.get("class") or "").split()
    ]
    for el in reversed(moved):
        content.insert(0, el)
    return len(moved)


# Applied to what an extractor chose (the region, the page's markup for trafilatura's text,
# readability's article: core), not to the page first: those are small, and the page's
# links are many (finding the edit links among all of them cost 2 ms a page). DocBook's
# navigation too, once the region is chosen: the region is found by the page's landmarks,
# and those tables are one. Breadcrumbs are the region's chrome already (region.py), and
# trafilatura's and readability's.
STEPS = (permalink_marks, docbook_navigation, edit_links)


def strip(tree: HtmlElement) -> None:
    for step in STEPS:
        step(tree)
