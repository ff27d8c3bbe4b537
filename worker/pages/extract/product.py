"""Product pages: trafilatura's text trimmed to the product.

trafilatura (balanced mode) finds a product's description and specifications well,
but it also keeps what sits beside them on a shop's page: reviews, other products,
the shop's shipping and cookie notices, and the same description repeated by every
tab, variant or template that carries it. These functions filter trafilatura's
result (not the page: pruning the page first makes trafilatura choose other, worse
blocks as the content):

1. blocks whose whole text lies inside the page's reviews, other products, chrome,
   forms that ask the reader to type, or what it hides by class name and shows nowhere
   else, are removed, looking inside lists and tables too (one review is one list item);
2. a block or a line that says again what an earlier one said is removed, and so are
   blocks of identifiers (scrambled labels) and cookie notices;
3. headings over other products ("You may also like") and their lists are removed,
   and so is what stands before the product's name, when short.

Then what trafilatura leaves out is added from what the page states plainly: its
specification tables (tables of name and value rows, <dl>s, lists of "name: value"
items), prose written as bare lines between <br>s, and the description of its
schema.org Product, each when the text lacks most of it.
Every rule is a reader's reason, never a site's name.

Pure functions over lxml trees; no I/O.
"""

from __future__ import annotations

import functools
import re

from . import thresholds as th

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Callable

    from lxml.html import HtmlElement  # no stubs: Any to the checker


# trafilatura's containers whose parts may each be a review or another product
CONTAINERS = frozenset(("list", "table", "div", "quote", "ul", "ol", "tbody", "thead"))
_TOKEN = re.compile(r"\w+")
_DIGIT = re.compile(r"\d")
_LETTER = re.compile(r"[^\W\d_]")
_SIZE = re.compile(r"\d+(?:x\d+)+$")
_COOKIE = re.compile(r"\bcookies?\b", re.I)
_CONSENT = re.compile(
    r"\b(?:consent|privacy|browsers?|browsing|websites?|third[- ]party|opt[- ]out|tracking|preferences|settings|policy)\b",
    re.I,
)
PRODUCT_TYPES = ("product", "productgroup", "individualproduct")
_LABELLED = re.compile(r"([^:]{1,40}):\s*(\S.*)$")  # "Memory: 8 GB RAM"
_CLOCK = re.compile(r"\d:\d\d")  # "Track 1 0:37" is a time, not a name and a value
HIDDEN_CLASSES = frozenset(("hide", "hidden", "d-none", "is-hidden", "visually-hidden", "sr-only"))
# The page's chrome on a shop: its header, menus and footer, cookie and newsletter
# notices, breadcrumbs, sign-in and sponsored or "similar" items. Not dialogs, modals,
# overlays or asides: shops put the product's details and specifications in those.
CHROME_TAGS = frozenset(("header", "nav", "footer"))
PAGE_TAGS = frozenset(("html", "body", "main"))  # the whole page, whatever its class says ("menu_background")
CHROME_ROLES = frozenset(("navigation", "contentinfo", "search"))  # not "banner": shops misuse it for slides
CHROME_PARTS = frozenset(
    """
nav navbar navigation menu menubar breadcrumb breadcrumbs cookie cookies consent gdpr newsletter subscribe signup
login signin sponsored advert advertisement ads promo related recommended suggested similar masthead
""".split()
)
LINE_TAGS = ("p", "head", "item", "row", "quote")  # trafilatura's lines: paragraphs, headings, list items, rows


# What a product page carries besides the product: its reviews and ratings (review
# widgets too), other products to buy, size charts, and fine print (disclaimers and
# footnotes to its marketing claims). Matched on any part of a class
# name or id, camelCase split: these words name such blocks wherever they stand.
EXTRA_PARTS = frozenset(
    """
review reviews rating ratings testimonials yotpo okendo jdgm judgeme bazaarvoice stamped trustpilot
recommendations recommended recommendation related upsell upsells crosssell
recently viewed similar carousel disclaimer disclaimers footnote footnotes
""".split()
)
# Only whole blocks of some length: a star rating inside the description is left alone
# (removing small pieces makes trafilatura pick another block as the content).
EXTRA_TAGS = frozenset(("div", "section", "aside", "ul", "ol", "li", "article", "table"))


def is_extra(el: HtmlElement) -> bool:
    """Whether el is a review, a rating or another product (see EXTRA_PARTS)."""
    if el.get("itemprop") in ("review", "aggregateRating"):
        return True
    names = el.get("class") or ""
    ident = el.get("id") or ""
    if not (names or ident):
        return False  # most elements: nothing to read
    return _extra_names(names + " " + ident)


@functools.lru_cache(maxsize=4096)  # asked of every block of a shop's page, whose class names repeat
def _extra_names(names: str) -> bool:
    from .names import class_parts

    for name in names.split():
        if any(p in EXTRA_PARTS for p in class_parts(name, camel=True)):
            return True
    return False


def extras_text(tree: HtmlElement) -> str:
    """The text of the blocks of a product page that are not the product (see
    EXTRA_PARTS), whitespace-normalised and joined; never a block holding the page's <h1>."""
    from .tree import word_count

    found: list[HtmlElement] = []
    # the blocks inside one found, gathered once when it is found (found blocks are never
    # nested): each block is looked up once, not each block's ancestors in the found list
    inside: set[HtmlElement] = set()
    for el in tree.iter(*EXTRA_TAGS):
        if el in inside:
            continue
        if is_extra(el) and word_count(el) >= th.T.EXTRA_WORDS and el.find(".//h1") is None:
            found.append(el)
            inside.update(el.iter(*EXTRA_TAGS))
    return "\n".join(" ".join("".join(el.itertext()).split()) for el in found)


_TYPED = frozenset(("text", "email", "tel", "search"))


def _asks_to_type(el: HtmlElement) -> bool:
    return el.find(".//textarea") is not None or any(
        (i.get("type") or "text").lower() in _TYPED for i in el.iter("input")
    )


def forms_text(tree: HtmlElement) -> str:
    """The text of the page's forms and dialogs that ask the reader to type something
    (a textarea, a text, email, phone or search field): reporting the item, naming a
    collection, a newsletter, a gift message, a lower price seen elsewhere. Not a form
    holding the page's <h1> or KEEP_SHARE of its words (a form that wraps the page, as
    ASP.NET's and some checkouts' do), and not one whose only field is a number (the
    quantity of the product's own "add to cart")."""
    from .tree import word_count

    body = tree.find(".//body")
    limit = th.T.KEEP_SHARE * word_count(body if body is not None else tree)
    found: list[HtmlElement] = []
    for el in tree.iter("form", "dialog", "div", "section", "aside"):
        if el.tag in ("div", "section", "aside") and (el.get("role") or "").lower() not in ("dialog", "alertdialog"):
            continue
        if any(a in found for a in el.iterancestors()) or el.find(".//h1") is not None:
            continue
        if word_count(el) >= limit:
            continue
        if _asks_to_type(el):
            found.append(el)
    return "\n".join(" ".join("".join(el.itertext()).split()) for el in found)


def _own(el: HtmlElement) -> str:
    """el's text without white space: trafilatura joins and splits lines differently
    from the page's markup, so text is compared as its characters alone."""
    return "".join("".join(el.itertext()).split())


def _inside(own: str, text: str) -> bool:
    """Whether own (a block's text) is in text, or nearly all of a long one is: trafilatura
    leaves out short pieces ("Verified Purchase", "Helpful") from the middle of a review."""
    if own in text:
        return True
    if len(own) < 2 * th.T.CHUNK_CHARS:
        return False
    chunks = [own[i : i + th.T.CHUNK_CHARS] for i in range(0, len(own) - th.T.CHUNK_CHARS + 1, th.T.CHUNK_CHARS)]
    return sum(c in text for c in chunks) >= th.T.CHUNK_SHARE * len(chunks)


def _doomed(el: HtmlElement, text: str, out: list[HtmlElement], page: str | None) -> int:
    """Collect el, or the parts of el, whose whole text is inside text (and not also
    elsewhere in page, when given); their length."""
    own = _own(el)
    if len(own) >= th.T.BLOCK_CHARS and _inside(own, text) and (page is None or page.count(own) <= text.count(own)):
        out.append(el)
        return len(own)
    if el.tag not in CONTAINERS:
        return 0
    return sum(_doomed(c, text, out, page) for c in el if isinstance(c.tag, str))


def drop_within(body: HtmlElement, text: str, most: float | None = None, page: str | None = None) -> None:
    """Remove the blocks of body (trafilatura's result), or the items of its lists and
    tables, whose whole text is found in text; nothing when they would be more than
    ``most`` of body's text (then the page is not the product page it seemed). With
    ``page`` (the page's whole text), a block the page says more often than text does
    stands outside text too, and stays: a menu that repeats the content's lines."""
    from .tree import drop

    if not text:
        return
    text = "".join(text.split())
    page = "".join(page.split()) if page is not None else None
    doomed: list[HtmlElement] = []
    gone = sum(_doomed(el, text, doomed, page) for el in body if isinstance(el.tag, str))
    if not doomed or gone > (th.T.DROP_MAX if most is None else most) * len(_own(body)):
        return
    for el in doomed:
        drop(el)


def drop_repeats(body: HtmlElement) -> None:
    """Remove the top-level blocks of body that repeat an earlier block's text word for
    word, then the lines (LINE_TAGS) that do: a shop repeats a description in its tabs,
    variants and mobile layout, and a reader reads it once."""
    from .region import drop_repeated, drop_repeated_paragraphs

    def key(el: HtmlElement) -> str | None:
        own = _own(el)
        return own if len(own) >= th.T.REPEAT_CHARS else None

    drop_repeated([el for el in body if isinstance(el.tag, str)], key)
    # A shop prints its lines again for each layout, tab and variant ("Free 90-day
    # returns", "About this seller", a feature list), each too short for a block above.
    drop_repeated_paragraphs(body, LINE_TAGS, th.T.LINE_REPEAT_WORDS)


# Headings a shop puts over other products it sells: the heading, and the lists or
# tables right below it (their pictures and prices are gone from the text), go.
_OTHER_PRODUCTS = re.compile(
    r"\b(?:also (?:viewed|bought|liked?)|you (?:may|might) (?:also )?like|related (?:products|items)"
    r"|recently viewed|similar (?:items|products)|frequently bought together|complete the look"
    r"|recommended for you|explore related)\b",
    re.I,
)


def drop_other_products(body: HtmlElement) -> None:
    """Remove the top-level headings of body that head other products ("You may also
    like", "Similar items", "Frequently bought together") and the lists and tables
    that follow them; the text after those (a paragraph) is the product's again."""
    from .tree import drop

    doomed: list[HtmlElement] = []
    under = False
    for el in body:
        if not isinstance(el.tag, str):
            continue
        if el.tag == "head":
            said = " ".join(" ".join(el.itertext()).split())
            under = len(said.split()) <= th.T.OTHER_PRODUCTS_HEADING_WORDS and bool(_OTHER_PRODUCTS.search(said))
        elif el.tag not in ("list", "table"):
            under = False
        if under:
            doomed.append(el)
    for el in doomed:
        drop(el)


def _name_heading(tree: HtmlElement) -> HtmlElement | None:
    """The page's first <h1> that says something: the product's name."""
    return next((h for h in tree.iter("h1") if "".join(h.itertext()).strip()), None)


# trafilatura discards blocks named "meta" (an article's byline and date) and "expand"
# (its "read more" gadgets). A shop names so its product's facts ("game_meta_data":
# developer, publisher, ratings; "metafield": a feature's text) and the collapsible
# panels of its description ("product-expanders"): on a product page they are read.
PRODUCT_BLOCK_PARTS = frozenset("meta metafield metafields expand expander expanders expandable".split())


@functools.lru_cache(maxsize=4096)
def _product_block_name(names: str) -> bool:
    from .names import class_parts

    return any(p in PRODUCT_BLOCK_PARTS for name in names.split() for p in class_parts(name, camel=True))


def unmark_product_blocks(tree: HtmlElement, discards: Callable[[HtmlElement], bool]) -> None:
    """Remove the class and id of the blocks of the product that discards (trafilatura's
    rule by class and id) would throw away, so that trafilatura reads them:

    - the blocks holding the product's name: shops put the name, price and description
      in a "sidebar", a "bar" or an "options" panel, and the block that holds the
      product's name is never the page's chrome;
    - blocks named as the product's facts or its collapsible panels (PRODUCT_BLOCK_PARTS),
      outside the page's chrome, reviews, other products and what it hides by class."""
    doomed: list[HtmlElement] = []
    h1 = _name_heading(tree)
    if h1 is not None:
        doomed.extend(el for el in h1.iterancestors() if el.tag not in PAGE_TAGS and discards(el))
    for el in tree.iter("div", "section", "span", "p", "ul", "li", "dl"):
        names = ((el.get("class") or "") + " " + (el.get("id") or "")).strip()
        if not names or not _product_block_name(names) or not discards(el):
            continue
        if _kept_out(el) or any(_kept_out(a) for a in el.iterancestors() if a.tag not in PAGE_TAGS):
            continue
        doomed.append(el)
    for el in doomed:
        for name in ("class", "id"):
            el.attrib.pop(name, None)


def start_at_name(tree: HtmlElement, body: HtmlElement) -> None:
    """Remove what body says before the product's name (the page's <h1>) when that is
    short: a shop's banner, its "people also viewed" strip and gallery labels ("Picture
    1 of 4") stand above the name, and a product's text starts with it. More words
    before it are kept: they may be the description, placed above the name."""
    from .tree import drop

    h1 = _name_heading(tree)
    name = " ".join("".join(h1.itertext()).split()).lower() if h1 is not None else ""
    if len(name) < 4:
        return
    blocks = [el for el in body if isinstance(el.tag, str)]
    words = 0
    for k, el in enumerate(blocks):
        text = " ".join("".join(el.itertext()).split()).lower()
        if name in text and len(text) < 2 * len(name):  # the name's own line, not a sentence naming it
            for before in blocks[:k]:
                drop(before)
            return
        words += len(text.split())
        if words > th.T.BEFORE_NAME_WORDS:
            return


def _chrome(el: HtmlElement) -> bool:
    """Whether el is the page's chrome: by its tag, its role, or a class name or id that
    starts or ends with a CHROME_PARTS word ("site-footer", "newsletterSignup")."""
    if el.tag in CHROME_TAGS or (el.get("role") or "").lower() in CHROME_ROLES:
        return True
    cls, ident = el.get("class"), el.get("id")
    return bool(cls and _chrome_name(cls)) or bool(ident and _chrome_name(ident))


@functools.lru_cache(maxsize=4096)  # pages repeat their class names thousands of times
def _chrome_name(names: str) -> bool:
    from .names import class_parts

    for name in names.split():
        parts = class_parts(name, camel=True)
        if parts and (parts[0] in CHROME_PARTS or parts[-1] in CHROME_PARTS):
            return True
    return False


def chrome_text(tree: HtmlElement) -> str:
    """The text of the page's chrome (CHROME_TAGS, CHROME_ROLES, CHROME_PARTS), joined by
    newlines; never of a block holding the page's <h1> or KEEP_SHARE of its words (a
    template that wraps the content in its "footer" is no footer)."""
    from .tree import word_count

    body = tree.find(".//body")
    limit = th.T.KEEP_SHARE * word_count(body if body is not None else tree)
    found: list[HtmlElement] = []
    stack = [tree]
    while stack:  # a walk that does not go below what it found: one visit per element
        el = stack.pop()
        if el.tag not in PAGE_TAGS and _chrome(el):
            if el.find(".//h1") is None and th.T.CHROME_WORDS_MIN <= word_count(el) < limit:
                found.append(el)
                continue
        stack.extend(c for c in el if isinstance(c.tag, str))
    return "\n".join("".join(el.itertext()) for el in found)


def _class_hidden(el: HtmlElement) -> bool:
    names = el.get("class")
    return bool(names) and _hidden_names(names)


@functools.lru_cache(maxsize=4096)  # asked of every element of a shop's page, whose class names repeat
def _hidden_names(names: str) -> bool:
    return any(n in HIDDEN_CLASSES for n in names.lower().split())


def class_hidden_text(tree: HtmlElement) -> str:
    """The text of the elements the page hides by a class name (HIDDEN_CLASSES: "hide",
    "d-none"), joined by newlines: a shop keeps its internal fields there
    ("shipping_chunk-1: ..."), never a block holding the page's <h1>."""
    found: list[HtmlElement] = []
    stack = [tree]
    while stack:  # a walk that does not go below what it found
        el = stack.pop()
        if el.tag not in PAGE_TAGS and _class_hidden(el) and el.find(".//h1") is None:
            found.append(el)
            continue
        stack.extend(c for c in el if isinstance(c.tag, str))
    return "\n".join("".join(el.itertext()) for el in found)


def ld_description(tree: HtmlElement) -> str | None:
    """The description of the page's schema.org Product (JSON-LD), as plain text
    (markup and entities some shops leave in it removed), or None."""
    import html
    import re

    from .meta import json_ld_objects, ld_type

    for obj in json_ld_objects(tree):
        if not any(t in PRODUCT_TYPES for t in ld_type(obj)):
            continue
        desc = obj.get("description")
        if isinstance(desc, str) and desc.strip():
            if "%20" in desc and " " not in desc.strip():  # some shops URL-encode it
                from urllib.parse import unquote

                desc = unquote(desc)
            text = html.unescape(re.sub(r"<[^>]*>", "\n", desc))
            return "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip()) or None
    return None


def add_description(tree: HtmlElement, body: HtmlElement) -> None:
    """Put the product's description from its schema.org data first in body when the
    extracted text leaves most of it out: a shop often shows its description in a tab
    or accordion that trafilatura passes over, while its structured data states it."""
    import re
    from collections import Counter

    from lxml import etree

    desc = ld_description(tree)
    if not desc:
        return
    words = Counter(re.findall(r"\w+", desc))
    n = sum(words.values())
    if n < th.T.DESCRIPTION_WORDS:
        return
    have = Counter(re.findall(r"\w+", " ".join(body.itertext())))
    if sum((words & have).values()) >= th.T.DESCRIPTION_SAID * n:
        return
    for line in reversed(desc.splitlines()):
        p = etree.Element("p")
        p.text = line
        body.insert(0, p)


def _bare_text(el: HtmlElement) -> str:
    """The text el holds itself, between its children (lines broken by <br>), not theirs."""
    return " ".join(" ".join([el.text or ""] + [c.tail or "" for c in el]).split())


def add_bare_text(tree: HtmlElement, body: HtmlElement) -> None:
    """Put first in body the prose the page writes as bare text broken into lines by
    <br> (no paragraphs), when body leaves most of it out: trafilatura reads paragraphs,
    and a shop's description written so ("About this game") is lost to it. Not in the
    page's chrome, reviews, other products or what it hides by class name, and never
    a cookie notice."""
    import re
    from collections import Counter

    from lxml import etree

    have = Counter(re.findall(r"\w+", " ".join(body.itertext())))
    found: list[list[str]] = []
    for el in tree.iter("div", "td", "section", "article"):
        if el.find("br") is None:
            continue
        bare = _bare_text(el)
        words = Counter(re.findall(r"\w+", bare))
        n = sum(words.values())
        if n < th.T.BARE_WORDS or sum((words & have).values()) >= th.T.DESCRIPTION_SAID * n or _consent(bare):
            continue
        if _kept_out(el) or any(_kept_out(a) for a in el.iterancestors() if a.tag not in PAGE_TAGS):
            continue
        lines = [el.text or ""] + [
            (c.tail or "") if c.tag == "br" else "".join(c.itertext()) + (c.tail or "") for c in el
        ]
        found.append([" ".join(x.split()) for x in "\n".join(lines).split("\n") if x.strip()])
        have += words
    for lines in reversed(found):
        for line in reversed(lines):
            p = etree.Element("p")
            p.text = line
            body.insert(0, p)


def _identifiers(own: str) -> bool:
    """Whether a block's text is mostly identifiers (UUIDs, hashes: tokens that mix
    letters and digits; not sizes like "39x75x16"), as when a shop scrambles its
    sponsored items' labels."""
    if len(own) < th.T.GIBBERISH_CHARS:
        return False
    tokens = _TOKEN.findall(own)
    mixed = sum(len(t) for t in tokens if len(t) >= 4 and _DIGIT.search(t) and _LETTER.search(t) and not _SIZE.match(t))
    return mixed >= th.T.GIBBERISH_SHARE * sum(len(t) for t in tokens)


def drop_initials(body: HtmlElement) -> None:
    """Remove the lines of body (LINE_TAGS) that are one letter alone: the initial a shop
    shows for a seller or a reviewer without a picture, never a product's text."""
    from .tree import drop

    for el in [el for el in body.iter(*LINE_TAGS) if len("".join(el.itertext()).strip()) == 1]:
        if "".join(el.itertext()).strip().isalpha():
            drop(el)


def drop_identifiers(body: HtmlElement) -> None:
    """Remove the top-level blocks of body that are mostly identifiers: leaked markup,
    never the product's text (a part number stands among words)."""
    from .tree import drop

    # tables are left alone: a table of part numbers or sizes is a specification
    for el in [
        el
        for el in body
        if isinstance(el.tag, str) and el.tag not in ("table", "list") and _identifiers(" ".join(el.itertext()))
    ]:
        drop(el)


def _pairs(el: HtmlElement) -> list[tuple[str, str]]:
    """The (name, value) pairs of a specification table: <table> rows of two cells, a
    <dl>'s terms and definitions, a list whose items nearly all read "name: value"."""

    def say(x: HtmlElement) -> str:
        return " ".join(" ".join(x.itertext()).split())

    pairs: list[tuple[str, str]] = []
    if el.tag == "dl":
        name = None
        for c in el.iter("dt", "dd"):
            if c.tag == "dt":
                name = say(c)
            elif name:
                value = say(c)
                if value:
                    pairs.append((name, value))
                name = None
        return pairs
    if el.tag in ("ul", "ol"):
        items = [say(li) for li in el if li.tag == "li"]
        found = [m for m in (_LABELLED.match(x) for x in items) if m and not _CLOCK.search(m.group(0))]
        if len(found) < th.T.LIST_PAIRS_SHARE * len(items):
            return []
        return [(m.group(1).strip(), m.group(2).strip()) for m in found]
    for row in el.iter("tr"):
        cells = [c for c in row if c.tag in ("td", "th")]
        if len(cells) == 2 and not is_extra(row):
            name, value = say(cells[0]), say(cells[1])
            if name and value:
                pairs.append((name, value))
    return pairs


def _kept_out(el: HtmlElement) -> bool:
    """Whether el is chrome, a review or another product, or hidden by its class name
    ("hide", "hidden": shops keep internal fields so). Not an inline style: collapsed
    accordions and tabs hide the product's own specifications so."""

    return _chrome(el) or is_extra(el) or _class_hidden(el)


def add_specifications(tree: HtmlElement, body: HtmlElement) -> None:
    """Add the page's specification tables (<table>s of name and value rows, <dl>s) that
    the extracted text leaves out, after it, as trafilatura writes tables: trafilatura
    drops short lines, and a shop's specifications are nothing else. Not those inside
    the page's chrome, reviews or other products."""
    import re
    from collections import Counter

    from lxml import etree

    have = Counter(re.findall(r"\w+", " ".join(body.itertext())))
    for el in tree.iter("table", "dl", "ul", "ol"):
        if _kept_out(el) or any(_kept_out(a) for a in el.iterancestors() if a.tag not in PAGE_TAGS):
            continue
        pairs = _pairs(el)
        if not th.T.SPEC_ROWS[0] <= len(pairs) <= th.T.SPEC_ROWS[1]:
            continue
        words = Counter(re.findall(r"\w+", " ".join(n + " " + v for n, v in pairs)))
        if sum((words & have).values()) >= th.T.SPEC_SAID * sum(words.values()):
            continue
        table = etree.SubElement(body, "table")
        for name, value in pairs:
            row = etree.SubElement(table, "row")
            etree.SubElement(row, "cell").text = name
            etree.SubElement(row, "cell").text = value
        have += words


def _consent(text: str) -> bool:
    return bool(_COOKIE.search(text) and _CONSENT.search(text))


def drop_consent(body: HtmlElement) -> None:
    """Remove the top-level blocks of body that speak of the site's cookies and consent,
    privacy or browsers: a cookie notice is never a product's text (a biscuit's
    description speaks of cookies, not of consent to them)."""
    from .tree import drop

    for el in [el for el in body if isinstance(el.tag, str) and _consent(" ".join(el.itertext()))]:
        drop(el)


# ---------------------------------------------------------- the product path's steps


def unmark_discarded_blocks(tree: HtmlElement) -> None:
    """unmark_product_blocks with trafilatura's own rule for what it discards by class and id."""
    from lxml import etree

    from .imports import core

    core()  # trafilatura's modules loaded the one way this process loads them
    from trafilatura.xpaths import OVERALL_DISCARD_XPATH

    # The first of them discards by class and id (tests/pages/test_extract_product.py
    # checks it still does); the others discard hidden blocks and comments: left alone.
    # It reads an element's own tag and attributes only, so it is asked of a bare copy
    # of each block: over the whole page it takes 10-20 ms.
    rule = OVERALL_DISCARD_XPATH[0]

    def discards(el) -> bool:
        holder = etree.Element("div")
        etree.SubElement(holder, el.tag, dict(el.attrib))
        return bool(rule(holder))

    unmark_product_blocks(tree, discards)


def keep_product_only(tree: HtmlElement, body: HtmlElement) -> None:
    """trafilatura's text of a product page (body) without what lies in the page's
    reviews, other products, chrome, forms and what it hides by class, its repeated
    lines and identifiers, and what stands above the product's name."""
    drop_within(body, extras_text(tree))
    drop_within(body, forms_text(tree))
    # the shop's menus and footers may repeat the content's lines: those stay
    page = tree.find(".//body")
    page_text = "".join((page if page is not None else tree).itertext())
    drop_within(body, chrome_text(tree), page=page_text)
    # what the page hides by class name, unless it also says it where a reader sees it
    drop_within(body, class_hidden_text(tree), page=page_text)
    drop_repeats(body)
    drop_identifiers(body)
    drop_initials(body)
    drop_consent(body)
    drop_other_products(body)
    start_at_name(tree, body)


def add_description_text(tree: HtmlElement, body: HtmlElement) -> None:
    """The description's bare text between line breaks, and the schema.org description
    when the text does not say it."""
    add_bare_text(tree, body)
    add_description(tree, body)
