"""The page's main region, kept whole: the extractor for pages that are not articles.

trafilatura is built for articles: it keeps the longest run of prose and drops what
looks like link lists, short lines and repeated blocks. On a listing, a forum thread,
a product or a documentation page those *are* the content (entry titles are links,
posts are short, specifications are short lines). This keeps everything in the
page's main region and removes only what a reader would call chrome:

1. what is never shown or never text (scripts, styles, forms' controls, hidden
   elements, comments);
2. the page's landmarks that are not the content (nav, header, footer, aside and
   their ARIA roles), and elements whose class or id says they are chrome (cookie
   banners, breadcrumbs, share bars, "related" blocks, pagination);
3. menus: lists whose entries are nothing but a short link;

then takes the main region (<main>, role=main, or the body) when it holds enough
of the page's text. Nothing is removed that holds most of the region's text: a
class name is a hint, not a verdict.

Pure functions over an lxml tree (which they copy); no I/O.
"""

from __future__ import annotations

import itertools
import math
import re

from . import thresholds as th
from .contents import heading_ids, is_contents
from .links import in_page
from .names import HEADINGS, LANDMARK_ROLES, LANDMARKS, chrome_named, class_parts, named_for_links, sections_header
from .tree import drop, names_code, word_count, words_over

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Callable, Iterable

    from lxml.html import HtmlElement  # no stubs: Any to the checker


NEVER_TEXT = (
    "script",
    "style",
    "noscript",
    "template",
    "svg",
    "iframe",
    "object",
    "embed",
    "canvas",
    "button",
    "select",
    "option",
    "textarea",
    "input",
    "label",
    "dialog",
    "link",
    "meta",
    "head",
)
_WORD = re.compile(r"\w+")
HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)


def hidden(el: HtmlElement) -> bool:
    """Whether el's own inline style hides it from a reader.

    Only the inline style: the [hidden] attribute and aria-hidden also mark collapsed
    tabs and accordions whose text is part of the content; so does an inline style on a
    panel that names its tab or trigger.
    """
    style = el.get("style")
    if not (style and HIDDEN_STYLE.search(style)):
        return False
    # the panel of an inactive tab or a closed accordion (ARIA's tab and accordion
    # patterns: role=tabpanel, or labelled by its trigger) is hidden until a click: content
    return (el.get("role") or "").lower() != "tabpanel" and not el.get("aria-labelledby")


def strip_never_text(root: HtmlElement) -> None:
    from lxml import etree

    # Some sites (Discourse, for one) serve their whole content to non-script readers
    # inside <noscript>: a large one is content; small ones are pixels and "enable JS".
    for el in list(root.iter("noscript")):
        if word_count(el) >= th.T.NOSCRIPT_WORDS:
            el.tag = "div"
    etree.strip_elements(root, *NEVER_TEXT, etree.Comment, etree.ProcessingInstruction, with_tail=False)
    # an anti-flicker style on a wrapper of the whole page is not "hidden from a reader"
    total = word_count(root)
    limit = th.T.KEEP_SHARE * total
    # only elements with a style can be hidden by it: libxml2 finds them, not a Python walk
    for el in [e for e in root.xpath("descendant-or-self::*[@style]") if hidden(e)]:
        if el.getparent() is not None and word_count(el) < limit:
            drop(el)
    # A modal dialog (aria-modal) shows only when opened, over the page: a privacy
    # policy, a size guide, a newsletter form. Shops put whole legal texts in them, inside
    # the footer, so they may outweigh the page; only one holding most of it is kept.
    for el in root.xpath(".//*[@aria-modal='true']"):
        if el.getparent() is not None and word_count(el) < th.T.MODAL_SHARE * total:
            drop(el)


# Text for screen readers only, by the class names sites give it: "sr-only",
# "visually-hidden", "screen-reader-text", "clipped". Sites repeat a visible label in
# it ("EUR 163.12" printed and read aloud), so plain text showed it twice, run together.
_SCREEN_READER = re.compile(
    r"^(?:sr-only|sr-text|clipped|offscreen|element-invisible)$|visually-?hidden|screen-?reader"
)
_SCREEN_READER_XPATH = (
    "descendant::*[@class][contains(@class, 'sr-') or contains(@class, 'isually') or contains(@class, 'creen')"
    " or contains(@class, 'clipped') or contains(@class, 'offscreen') or contains(@class, 'invisible')]"
)


def drop_screen_reader_copies(root: HtmlElement) -> None:
    """Remove the screen-reader-only elements (see _SCREEN_READER) that repeat what is
    shown beside them: their text holds, or is held by, the rest of their parent's
    text. One that is the only label (an icon link's name) stays."""
    for el in root.xpath(_SCREEN_READER_XPATH):
        if not any(_SCREEN_READER.search(c) for c in (el.get("class") or "").lower().split()):
            continue
        parent = el.getparent()
        if parent is None:
            continue
        own = " ".join(el.text_content().split())
        if not own:
            continue
        rest = [parent.text or ""]
        for child in parent:
            if child is not el:
                rest.append(child.text_content() if isinstance(child.tag, str) else "")
            rest.append(child.tail or "")
        shown = " ".join("".join(rest).split())
        if shown and (own in shown or shown in own):
            drop(el)


def _is_menu(el: HtmlElement) -> bool:
    """A list whose entries are nothing but short links (a sub-menu nested in an entry
    counts as links too: documentation sidebars are trees of them)."""
    items = [c for c in el if isinstance(c.tag, str)]
    if len(items) < 3:
        return False
    for li in items:
        words = word_count(li)
        if words == 0:
            continue
        links = li.findall(".//a")
        if not links:
            return False
        link_words = sum(word_count(a) for a in links)
        if link_words < words or link_words > th.T.MENU_LINK_WORDS * len(links):
            return False
    return True


def _references(el: HtmlElement) -> bool:
    """Whether every entry of a list of links names code (settings, functions): the text's
    list of the API it speaks of ("the settings: SECURE_HSTS_SECONDS, ..."), not a menu."""
    links = [a for li in el for a in li.iter("a")]
    return bool(links) and all(names_code(a) for a in links)


def _toctree(el: HtmlElement) -> bool:
    """Whether el is a Sphinx toctree in the page's text, or in one ("The following
    modules are documented in this chapter:"): the chapter's contents, which is all a
    chapter's page says. A sidebar's tree of the same links is no toctree-wrapper."""
    return any("toctree-wrapper" in (anc.get("class") or "") for anc in (el, *el.iterancestors()))


def _tokens(text: str) -> int:
    """\\w+ tokens of text, counted without a string a token (findall makes one)."""
    return _WORD.subn("", text)[1]


def _is_link_bar(el: HtmlElement) -> bool:
    """A short block that is nothing but several short links (a repository's tabs, a
    tag cloud, "Home / Docs / Blog")."""
    # fewer than 3 links settles most blocks: looked for first, as that builds no string
    # and stops at the third
    if next(itertools.islice(el.iterdescendants("a"), 2, None), None) is None:
        return False
    if words_over(el, th.T.LINK_BAR_WORDS):
        return False
    words = word_count(el)
    if not words:
        return False
    links = el.findall(".//a")
    tokens = _tokens(el.text_content())  # separators ("/", "|", "·") are not words
    link_tokens = sum(_tokens(a.text_content()) for a in links)
    return link_tokens >= tokens and link_tokens <= th.T.MENU_LINK_WORDS * len(links)


def prune_chrome(root: HtmlElement, total: int | None = None) -> None:
    """Remove landmarks, chrome-named elements and menus below root (not root itself)."""
    total = total if total is not None else max(1, word_count(root))
    most = math.ceil(th.T.KEEP_SHARE * total) - 1  # an element of more words than this is kept, whatever its name
    doomed: list[HtmlElement] = []
    # What is inside a doomed element goes with it: the walk skips to the node after it
    # (a nav's or a footer's menus and link bars are not looked at one by one).
    skipping, resume = False, None
    ids = None  # heading_ids(root), made when a doomed element holds links
    for el in root.iter():
        if skipping:
            if el is not resume:
                continue
            skipping = False
        if el is root or not isinstance(el.tag, str):
            continue
        tag = el.tag
        role = (el.get("role") or "").lower()
        if (tag in LANDMARKS or role in LANDMARK_ROLES) and not sections_header(el, role):
            doom = not words_over(el, most) or _all_links(el, total)
        elif tag not in ("body", "main", "article") and chrome_named(el):
            doom = not words_over(el, most) and not _prose_named_for_links(el)
        else:
            doom = (
                (tag in ("ul", "ol") and _is_menu(el) and not _references(el))
                or (tag in ("div", "p", "section") and _is_link_bar(el))
            ) and not _toctree(el)
        if doom and _in_heading(el, root):
            doom = False  # a heading's words are the heading: Sphinx's "toc-backref" link is its whole text
        if doom and el.find(".//a") is not None:
            if ids is None:
                ids = heading_ids(root)
            doom = not is_contents(el, ids)
        if doom:
            doomed.append(el)
            resume = _after(el, root)
            if resume is None:
                break  # the rest of root is inside el
            skipping = True
    for el in doomed:
        drop(el)


def _in_heading(el: HtmlElement, root: HtmlElement) -> bool:
    """Whether el lies inside a heading (h1-h6) below root."""
    for anc in el.iterancestors():
        if anc is root:
            return False
        if anc.tag in HEADINGS:
            return True
    return False


def _prose_named_for_links(el: HtmlElement) -> bool:
    """Whether el is named only for links (names.named_for_links) and reads as prose: paragraphs of
    sentences, few of its words in links (a Webflow tab menu holding an FAQ's answers)."""
    if not named_for_links(el):
        return False
    paragraphs = sum(1 for p in el.iter("p") if _tokens(p.text_content()) >= th.T.PROSE_PARAGRAPH_WORDS)
    return paragraphs >= 2 and link_share(el) < th.T.PROSE_LINK_SHARE


def _after(el: HtmlElement, root: HtmlElement) -> HtmlElement | None:
    """The first node after el and all it holds, in document order below root; None
    when there is none."""
    while el is not root:
        nxt = el.getnext()
        if nxt is not None:
            return nxt
        el = el.getparent()
        if el is None:
            return None
    return None


def _all_links(el: HtmlElement, total: int) -> bool:
    if _tokens(el.text_content()) >= th.T.NAV_MOST * total:
        return False
    return link_share(el) >= th.T.NAV_LINK_SHARE


def link_share(el: HtmlElement) -> float:
    """The share of el's words that are link text."""
    words = _tokens(el.text_content())
    links = sum(_tokens(a.text_content()) for a in el.iter("a"))
    return links / max(1, words)


# Headings that announce other pages' content rather than this page's: what follows
# them is teasers and links to elsewhere ("Related posts", "More topics from this
# board", "You may also like", "Customers also viewed"). A reader skips the section.
OTHER_CONTENT_HEADING = re.compile(
    r"(related|similar|recommended|popular|trending|suggested|other|more|latest|recent)"
    r"( \w+){0,4}? (posts?|articles?|stories|topics?|threads?|questions|products?|items|reads?|news|content|"
    r"jobs|listings?|guides|videos|searches|reading|links|from \w+( \w+)?|like this|in \w+( \w+)?|for you)"
    r"|(related|recommended|popular|trending|most (read|popular|viewed)|read next|up next|further reading|"
    r"you (may|might) also (like|enjoy)|(customers|people) (also|who) (bought|viewed|liked|searched).*|"
    r"people also (ask|search for)|frequently bought together|recently viewed|related searches|follow us|"
    r"share this( \w+)?|share)",
    re.I,
)


def _announces_other_content(h: HtmlElement) -> bool:
    text = " ".join(_WORD.findall(h.text_content()))
    return 0 < len(text.split()) <= th.T.OTHER_HEADING_WORDS and OTHER_CONTENT_HEADING.fullmatch(text) is not None


def prune_other_content(root: HtmlElement, total: int | None = None) -> None:
    """Remove the sections that a heading announces as other pages' content (see
    OTHER_CONTENT_HEADING): the heading's own container when the heading opens it,
    else the heading and its following siblings up to the next heading of its rank
    or higher. Never a section holding KEEP_SHARE of root's words."""
    total = total if total is not None else max(1, word_count(root))
    limit = th.T.KEEP_SHARE * total
    for h in [h for h in root.iter(*HEADINGS) if _announces_other_content(h)]:
        if not any(a is root for a in h.iterancestors()):
            continue  # already removed with an earlier section
        rank = int(h.tag[1])
        # the heading opens its container (possibly through wrappers): the container is the section
        box = h
        while box.getparent() is not None and box.getparent() is not root:
            parent = box.getparent()
            first = next((c for c in parent if isinstance(c.tag, str) and word_count(c)), None)
            if first is not box or word_count(parent) >= limit:
                break
            box = parent
        if box is not h:
            drop(box)
            continue
        doomed = [h]
        for sib in h.itersiblings():
            if isinstance(sib.tag, str) and sib.tag in HEADINGS and int(sib.tag[1]) <= rank:
                break
            doomed.append(sib)
        if sum(word_count(d) for d in doomed) < limit:
            for d in doomed:
                drop(d)


REGION_PARAGRAPHS = ("p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "dd", "dt", "div", "section")


def drop_repeated(elements: Iterable[HtmlElement], key: Callable[[HtmlElement], str | None]) -> None:
    """Remove each of elements whose key (its text, as the caller compares it) repeats an
    earlier one's; an element whose key is None is not compared."""
    seen: set[str] = set()
    doomed = []
    for el in elements:
        k = key(el)
        if k is None:
            continue
        if k in seen:
            doomed.append(el)
        seen.add(k)
    for el in doomed:
        drop(el)


def drop_repeated_paragraphs(
    root: HtmlElement, tags: tuple[str, ...] = REGION_PARAGRAPHS, least: int | None = None
) -> None:
    """Remove from root each innermost paragraph (one of tags) whose text repeats an
    earlier one's (``least`` words or more); never inside code."""
    names = frozenset(tags)
    # most regions hold no code at all: then no element needs its ancestors looked at
    code = root.xpath("boolean(ancestor-or-self::pre | ancestor-or-self::code | descendant::pre | descendant::code)")

    def key(el: HtmlElement) -> str | None:
        if next((d for d in el.iterdescendants() if d.tag in names), None) is not None:
            return None  # not innermost: its own paragraphs are looked at
        if code and next((a for a in el.iterancestors() if a.tag in ("pre", "code")), None) is not None:
            return None
        words = "".join(el.itertext()).split()  # joined only when long enough to compare
        return " ".join(words) if len(words) >= (th.T.REPEAT_WORDS if least is None else least) else None

    drop_repeated(list(root.iter(*tags)), key)


_CONTENT_NAMED = (
    ".//*[contains(translate(@class, 'CONTENT', 'content'), 'content')"
    " or contains(translate(@id, 'CONTENT', 'content'), 'content')]"
)


def _named_content(body: HtmlElement, total: int) -> HtmlElement | None:
    """The innermost element below body whose class or id names it the content
    ("content" as a word of the name) and that holds CONTENT_SHARE of total words; not
    the content of the chrome ("sidebar-content", a menu's "content" inside a <nav>), and
    not one nearly all links (a navigation tree that outweighs a short page)."""
    found = None
    for el in body.xpath(_CONTENT_NAMED):  # in document order: nested candidates come later
        names = ((el.get("class") or "") + " " + (el.get("id") or "")).split()
        if (
            not any("content" in class_parts(n, camel=True) for n in names)
            or word_count(el) < th.T.CONTENT_SHARE * total
        ):
            continue
        if chrome_named(el) or link_share(el) >= th.T.NAV_LINK_SHARE:
            continue
        if any(a.tag in LANDMARKS or (a.get("role") or "").lower() in LANDMARK_ROLES for a in el.iterancestors()):
            continue
        found = el  # two elements of over half the words each are nested: this one is inside
    return found


def main_region(
    tree: HtmlElement, url: str | None = None, teasers: bool = False, document: bool = False
) -> HtmlElement | None:
    """A cleaned copy of the page's main region (an element), or None; links made
    absolute against url. Sections announcing other pages' content are removed unless
    ``teasers``: on a listing or a collection, teasers of other pages are the content.
    On a ``document`` (documentation) with no <main>, the element named as the content
    is the region (see CONTENT_SHARE)."""
    import copy

    body = tree.find(".//body")
    if body is None:
        body = tree
    body = copy.deepcopy(body)
    strip_never_text(body)
    total = word_count(body)
    if not total:
        return None
    root = body
    for cand in body.xpath(".//main | .//*[@role='main']"):
        if word_count(cand) >= th.T.MAIN_SHARE * total:
            root = cand
            break
    if root is body and document:
        named = _named_content(body, total)
        root = named if named is not None else body
    prune_chrome(root, word_count(root))
    if not teasers:
        prune_other_content(root)
    drop_page_footer(root)
    absolute_links(root, url)
    return root


# Lines about the page rather than of it, which sites print after its content outside
# any footer landmark: when it was last changed, its copyright and licence, "was this
# page helpful?", a wiki's "Retrieved from", an "edit this page" link. A reader stops
# before them. Only at the region's end: within the text such words are content.
PAGE_FOOTER_LINE = re.compile(
    r"(last (updated|modified|edited|reviewed)\b|(this )?page (was )?last (updated|modified|edited)\b|"
    r"copyright\b|©|\(c\) (19|20)\d\d|all rights reserved|was this (page |article |information )?(helpful|useful)|"
    r"(did you find|is) this .{0,40}(helpful|useful)|rate this (page|article)|retrieved from\b|"
    r"except as otherwise noted|(edit|improve) this (page|article)|edit (on|in) github|suggest (an )?edits?\b|"
    r"report (an|a) (issue|problem) with this page)",
    re.I,
)
_BLOCKS = frozenset(("p", "div", "li", "section", "footer", "dd", "dt", "td", "h1", "h2", "h3", "h4", "h5", "h6"))


def drop_page_footer(root: HtmlElement) -> None:
    """Remove the innermost blocks at the end of root that are lines about the page
    (PAGE_FOOTER_LINE), from the last one back to the first that is not."""
    for el in reversed(list(root.iter(*_BLOCKS))):  # from the end; most pages stop at the first
        if el is root or next(el.iterdescendants(*_BLOCKS), None) is not None:
            continue  # not innermost: its own blocks are looked at
        text = " ".join(el.text_content().split())
        if not text:
            continue
        if len(text.split()) > th.T.PAGE_FOOTER_WORDS or not PAGE_FOOTER_LINE.match(text):
            break
        drop(el)


def absolute_links(root: HtmlElement, url: str | None) -> None:
    """Make root's link targets absolute against url; drop in-page and script targets (a
    link to a place on the page itself, written out in full, is in-page too).

    lxml's make_links_absolute runs urljoin on every link (3 s on a page of 60,000
    links); most hrefs are already absolute or rooted, which string work settles.
    """
    from urllib.parse import urljoin, urlsplit

    origin = scheme = ""  # read only when url parsed, which sets them
    if url:
        try:
            parts = urlsplit(url)
            scheme, origin = parts.scheme, "%s://%s" % (parts.scheme, parts.netloc)
        except ValueError:
            url = None
    for a in root.iter("a"):
        href = (a.get("href") or "").strip()
        if not href or href.startswith(("#", "javascript:", "data:")):
            a.attrib.pop("href", None)  # in-page and script links are not links for a reader
            continue
        if not url or href.startswith("mailto:"):
            continue
        try:
            if href.startswith(("http://", "https://")):
                pass
            elif href.startswith("//"):
                href = scheme + ":" + href
            elif href.startswith("/"):
                href = origin + href
            else:
                href = urljoin(url, href)
        except (ValueError, TypeError):
            a.attrib.pop("href", None)
            continue
        if in_page(href, url):
            a.attrib.pop("href", None)
        else:
            a.set("href", href)


ENTRY_TAGS = ("article", "div", "li", "section")  # not table rows: a table stays a table


def _alike_runs(root: HtmlElement) -> list[list[HtmlElement]]:
    """Runs (lists) of alike sibling entries below root, outermost first; a run inside a
    member of another run is left out."""
    runs: list[list[HtmlElement]] = []
    taken: set[HtmlElement] = set()
    for parent in root.iter():
        if not isinstance(parent.tag, str) or len(parent) < th.T.ENTRY_MIN or parent in taken:
            continue
        groups: dict[tuple[str, str], list[HtmlElement]] = {}
        for child in parent:
            if isinstance(child.tag, str) and child.tag in ENTRY_TAGS:
                cls = (child.get("class") or "").split()
                groups.setdefault((child.tag, cls[0] if cls else ""), []).append(child)
        for members in groups.values():
            texty = [m for m in members if 2 <= word_count(m) <= th.T.ENTRY_MAX_WORDS and not _has_parts(m)]
            if len(texty) < th.T.ENTRY_MIN or len(texty) < th.T.ENTRY_SHARE * len(members):
                continue
            runs.append(texty)
            for m in texty:
                taken.update(m.iter())
    return runs


def _has_parts(el: HtmlElement) -> bool:
    """Whether el holds lists, tables or code: then it is a section, not one entry."""
    return next(el.iterdescendants("ul", "ol", "table", "pre", "dl"), None) is not None


def _pieces(el: HtmlElement) -> list[str]:
    """The element's text as it reads: one piece per line of its rendering."""
    from .render import render

    return [line.strip() for line in render(el, markdown=False).split("\n") if line.strip()]


def _entry_title(el: HtmlElement, pieces: list[str]) -> tuple[str | None, str | None]:
    """(text, href) of an entry's title: its first heading, else its longest link; when
    that link is the whole card, the card's first line."""
    for tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
        h = el.find(".//" + tag)
        if h is not None and word_count(h):
            a = h.find(".//a")
            if a is None:
                a = next((p for p in h.iterancestors() if p.tag == "a"), None)
            return " ".join("".join(h.itertext()).split()), (a.get("href") if a is not None else None)
    links = [a for a in el.iter("a") if word_count(a)]
    if not links:
        return None, None
    a = max(links, key=word_count)
    if pieces and word_count(a) > th.T.CARD_LINK_SHARE * word_count(el):
        return pieces[0], a.get("href")
    return " ".join("".join(a.itertext()).split()), a.get("href")


def compact_entries(root: HtmlElement) -> None:
    """Rewrite root's runs of entries as one line each (in place): the title, linked,
    then the entry's other lines."""
    from lxml import etree

    for run in _alike_runs(root):
        for m in run:
            ps = _pieces(m)
            title, href = _entry_title(m, ps)
            if title and any(title in p and title != p for p in ps):
                title = None  # the title is inside a longer line (a card that is one link): keep the line
            rest: list[str] = []
            kept: set[str] = set()
            for p in ps:
                if p == title or p in kept:
                    continue
                kept.add(p)
                rest.append(p)
            line = etree.Element("li" if m.tag == "li" else "p")
            if title:
                a = etree.SubElement(line, "a")
                a.text = title
                if href:
                    a.set("href", href)
                a.tail = (" — " + " · ".join(rest)) if rest else None
            else:
                line.text = " · ".join(rest)
            if not title and not rest:
                line = None
            parent = m.getparent()
            if line is None:
                drop(m)
            else:
                line.tail = m.tail
                parent.replace(m, line)
