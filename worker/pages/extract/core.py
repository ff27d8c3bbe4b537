"""HTML -> clean main content (markdown, plain text or cleaned HTML) plus page metadata.

Pure functions, no I/O. Heavy libraries (lxml, trafilatura, readability) are imported
inside the functions: importing this module costs nothing. Not thread-safe: lxml and
trafilatura keep module-level parsers, so a process extracts on one thread only
(worker.pages.download does; ``prepare`` imports everything on that thread first).

The pipeline, chosen by measurement (bench/extraction/run.py and sets.py,
docs/PERFORMANCE.md):

1. Parse once with lxml (through trafilatura's loader, which copes with encoding
   declarations and broken markup); start tags over MAX_TAG_CHARS are cut first. A
   page over the work budget (elements, attributes, visible text) takes a linear
   path: its text in paragraphs, serialised by libxml2.
2. Metadata (meta.py) and the page's kind (pagetype.py): article,
   documentation, forum, product, listing, collection or service.
3. Documentation, forum, listing, collection and service pages: the main region kept
   whole, minus chrome (region.py), since entry titles, short posts and
   specification lines are the content there and an article extractor drops them; a
   forum thread from its posts' schema.org markup when the page has it (comments on a
   Q&A site's posts are not posts), else from its run of alike post blocks (thread.py);
   a listing's or collection's entries one line each. Sections headed as other pages'
   content and paragraphs repeated word for word leave the region (not on listings,
   collections or documentation). trafilatura takes over when the region is nearly
   empty.
4. Products: trafilatura in balanced mode with its own fallbacks, reading the blocks
   that hold the product's name or its facts even when their class reads like chrome;
   minus the blocks that lie inside the page's reviews, other products, chrome, forms
   and what it hides by class, minus repeated lines and what stands above the name
   (product.py); the name, price, availability and description from the page's
   schema.org data go first when the text does not say them.
5. Articles: trafilatura in precision mode, with the readers' comments it finds after
   the article under a heading of their own. When its text looks short or cut, its
   balanced mode and readability-lxml are asked too (``choose`` keeps trafilatura's
   result unless it is nearly empty, truncated, or padded with boilerplate
   readability left out). When the page's region is over twice the article, trafilatura
   is asked again with its own fallbacks (balanced mode, its readability and jusText)
   and that longer text is kept when it holds the article and is not a list of
   excerpts. A page with no evidence of its kind is read as its region when the region
   is a third longer and holds the article; a page with weak evidence (its URL or
   og:type alone) when the region is three times longer and the body is built of a
   run of titled entries (an index page). Either only when the page marks its chrome
   as landmarks (nav, header, footer, aside), or the region holds as much prose that
   the article left out as the article itself: without landmarks (a table layout, most
   pages before HTML5) the region keeps the site's menus, teasers and comments.
6. If everything gives nothing, the markup's plain text.

Every stage that raises is named in the result's ``warnings`` (stage and exception
type) and the next stage takes over; WEBSEARCH_WORKER_DEBUG=1 prints the traceback
to stderr. Nothing fails silently into worse text.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections import Counter
    from typing import Any

    from lxml.html import HtmlElement  # no stubs: Any to the checker


EMPTY_KEYS = ("title", "author", "published", "site_name", "language", "canonical_url", "description")
FORMATS = ("markdown", "text", "html")

# Decision thresholds (see module docstring); measured in bench/extraction/run.py.
SHORT_SHINGLES = 100  # "nearly empty" primary result
TRUNCATED_COVER = 0.95  # share of primary's shingles found in readability's
TRUNCATED_RATIO = 0.5  # readability's share found in primary below this: primary truncated
SUBSET_COVER = 0.97  # share of readability's shingles found in primary
SUBSET_BAND = (0.6, 0.8)  # primary's share found in readability: extra boilerplate band
PARAGRAPHS_OVER_ARTICLE = 2.0  # the page's <p> words over trafilatura's: ask the second opinions too
BURY_RATIO = 5.0  # balanced mode's text this many times readability's: it buries the article
BALANCED_RATIO = 0.4  # precision's share of balanced mode's text below this: precision stopped early

# Kinds read as a whole region rather than as an article (see region.py).
REGION_KINDS = frozenset(("documentation", "forum", "listing", "collection", "service"))
# The region is "nearly empty" next to trafilatura's text below this share of its words.
REGION_MIN_SHARE = 0.5
REGION_ENOUGH = 150  # words: a region this long is taken without asking trafilatura
# An "article" with no evidence of being one, whose region is this many times longer
# and holds this share of the article's words, is read as a region (see _extract): a
# third more text around all of the article is a page's other content (a service
# page's offers, a list's entries), not a stray sidebar. Pages that say they are
# articles keep the article: their extra text is comments and teasers.
REGION_OVER_ARTICLE = 1.3
REGION_COVER = 0.8
# An article with weak evidence (see _page_type) is read as an index page's region when
# that is this many times longer and the body's largest run of titled entries holds
# this share of its words.
INDEX_OVER_ARTICLE = 3.0
INDEX_ENTRIES = 0.1
# An "article" of fewer words than FRAGMENT_WORDS is a fragment of the page (a banner, a
# footer's blurb, an intro) when the region is far longer: with no evidence of being an
# article, FRAGMENT_OVER_ARTICLE times longer, whether or not the region holds it (the
# region may have dropped it as chrome); with weak evidence, FRAGMENT_UNDER_REGION times
# longer and holding it (the article extractor stopped at a break in the markup). Pages
# with strong evidence keep their article: a news brief is short beside its sidebars.
FRAGMENT_WORDS = 150
FRAGMENT_OVER_ARTICLE = 2.0
FRAGMENT_UNDER_REGION = 5.0
# An article whose page region is this many times longer is asked for again, with
# trafilatura's fallbacks; their text is taken when this many times longer (see _extract).
ASK_AGAIN_RATIO = 2.0
# ... and this many times, for a page that does not say clearly it is an article: its
# extra text is more often article than comments, captions and teasers.
ASK_AGAIN_UNSURE = 1.4
LONGER_ARTICLE = 1.2
TEASERS = 2

# Work budget: a page past these is read by the cheap path (no trafilatura, no
# readability, no Python walk of the tree), whose cost grows only linearly. Real pages
# stay far below them (the 1,334 WCXB pages: at most 16,000 elements, 39,000
# attributes).
MAX_NODES = 40000
MAX_ATTRIBUTES = 100000
MAX_TEXT_CHARS = 1000000  # visible text: a book, not a page
# A start tag longer than this is cut to its bare name before parsing: libxml2 checks
# each attribute against all earlier ones, so one tag with 200,000 attributes costs
# minutes of CPU. Real tags (long SVG paths, inline images) stay below it.
MAX_TAG_CHARS = 50000


def prepare() -> None:
    """Import every extraction library now, on the calling thread.

    The import-time stand-ins of imports.py replace modules in sys.modules while
    trafilatura is being imported; no other thread may run then. Callers that go on
    to start threads (worker.pages.download) call this first.
    """
    from .imports import core, readability

    core()
    readability()
    import lxml.html  # noqa: F401

    from . import meta, pagetype, product, region, render, thread  # noqa: F401


def extract(html: str | bytes, url: str | None = None, fmt: str = "markdown") -> dict[str, Any]:
    """Main content and metadata of an HTML page. Never raises."""
    result: dict[str, Any] = {
        "text": "",
        "extractor": "none",
        "page_type": None,
        "warnings": [],
        "hidden_removed_chars": 0,
    }
    for k in EMPTY_KEYS:
        result[k] = None
    if fmt not in FORMATS:
        fmt = "markdown"
    try:
        if isinstance(html, bytes):
            html = html.decode("utf-8", errors="replace")
        if not isinstance(html, str) or not html.strip():
            return result
        if url is not None and not isinstance(url, str):
            url = None
        _extract(html, url, fmt, result)
    except (Exception, RecursionError) as exc:  # hostile or broken input: return what we have, and say so
        _failed(result, "pipeline", exc, "the text so far is kept")
    for k in ("_plain", "_asked_readability", "_og_type"):  # the stages' notes to each other
        result.pop(k, None)
    if not result["text"].strip():
        text = _plain_fallback_text(html) if isinstance(html, str) else ""
        if text:
            if fmt == "html":
                from html import escape

                text = "<p>%s</p>" % escape(text)
            result.update(text=text, extractor="fallback")
    return result


# ------------------------------------------------------------------ stages


def _failed(result: dict[str, Any], stage: str, exc: BaseException, then: str) -> None:
    """Record that a stage raised: a warning for the item, the traceback for a debugger."""
    import os

    result["warnings"].append("extraction stage %r failed (%s); %s" % (stage, type(exc).__name__, then))
    if os.environ.get("WEBSEARCH_WORKER_DEBUG"):
        import sys
        import traceback

        sys.stderr.write("websearch-worker: extraction stage %r failed:\n" % stage)
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)


def _stage(result, stage, then, fn, *args):
    """fn(*args), or None when it raises (recorded by _failed)."""
    try:
        return fn(*args)
    except (Exception, RecursionError) as exc:
        _failed(result, stage, exc, then)
        return None


# ------------------------------------------------------------------ pipeline


def _extract(html, url, fmt, result):
    tree = _stage(result, "parse", "plain-text fallback", _parse, html)
    if tree is None:
        return  # extract() falls back to the plain text of the markup
    _stage(result, "hidden", "hidden elements are kept", _hidden, tree, result)
    meta = _stage(result, "metadata", "no metadata", _metadata, tree, url) or {}
    result.update(meta)
    over = _over_budget(tree)
    if over:
        result["warnings"].append(
            "the page is too large to analyse (%s); its text is given as is, without navigation and scripts" % over
        )
        result["page_type"] = "unknown"
        text = _stage(result, "budget", "plain-text fallback", _cheap_text, tree, fmt) or ""
        if text:
            result.update(text=text, extractor="budget")
        return
    _stage(result, "status-messages", "a script's failure messages are kept", _status_messages, tree)
    kind, sure, facts = _stage(
        result,
        "page-type",
        "read as an article",
        _page_type,
        tree,
        url,
        meta.get("_og_type"),
        meta.get("canonical_url"),
    ) or ("article", "none", {})
    result["page_type"] = kind
    _stage(result, "scripts", "scripts are kept", _drop_code, tree)
    if kind in REGION_KINDS:
        root = _stage(
            result,
            "region",
            "read as an article",
            _region,
            tree,
            url,
            kind in ("listing", "collection"),
            kind == "documentation",
        )
        thread = None
        if kind == "forum" and root is not None:
            thread = _stage(result, "posts", "the region is kept", _thread, root)
            if thread is None:  # no schema.org markup: the posts by the page's structure (thread.py)
                thread = _stage(result, "posts-by-structure", "the region is kept", _thread_by_structure, root)
            if thread is not None:
                root = thread
        if kind in ("listing", "collection") and root is not None:
            _stage(result, "entries", "entries are kept as they are", _entries, root)
        r_text = _region_text(result, root)
        # a region this long is the content, and so is a thread's posts: no need to ask trafilatura
        if _words(r_text) >= REGION_ENOUGH or (thread is not None and r_text.strip()):
            _use_root(result, root, fmt, r_text, "region")
            return
        t_doc = _stage(result, "trafilatura", "the region is kept", _trafilatura, tree, url, False)
        t_text = _doc_text(t_doc)
        if r_text.strip() and _words(r_text) >= REGION_MIN_SHARE * _words(t_text):
            _use_root(result, root, fmt, r_text, "region")
        elif t_text.strip():
            _use_trafilatura(result, t_doc, tree, url, fmt, t_text)
        else:
            _article(result, tree, url, fmt)
        return
    if kind == "product":
        # a shop prints its name, price and labels twice, once for screen readers: once is read
        _stage(result, "screen-reader-copies", "both copies are kept", _drop_screen_reader_copies, tree)
        _stage(result, "product-blocks", "trafilatura may discard the product's blocks", _unmark_product_blocks, tree)
        # a product page is short lines (specifications, variants): precision mode drops
        # them, and trafilatura's own fallbacks (not fast) find the description more often
        t_doc = _stage(result, "trafilatura", "read as an article", _trafilatura, tree, url, False, False)
        if t_doc is not None and t_doc.body is not None:
            _stage(result, "product", "reviews and other products are kept", _product_only, tree, t_doc.body)
            body = t_doc.body
            _stage(result, "product-specifications", "the page's text is given as is", _product_specs, tree, body)
            _stage(result, "product-description", "the page's text is given as is", _product_description, tree, body)
            _stage(result, "product-facts", "the page's text is given as is", _product_facts, tree, body)
        t_text = _doc_text(t_doc)
        if t_text.strip():
            _use_trafilatura(result, t_doc, tree, url, fmt, t_text)
            return
    _article(result, tree, url, fmt)
    if result["extractor"] in ("trafilatura", "readability") and _page_may_hold_more(tree, result, fmt, sure):
        root = _stage(result, "region", "the article is kept", _region, tree, url)
        r_text = _region_text(result, root)
        a_text = result["text"] if fmt == "text" else result.get("_plain", "")
        landmarks = marks_landmarks(tree)
        if _words(r_text) > _ask_again_ratio(sure) * _words(a_text):
            # The page holds far more text than the article read: precision mode may
            # have stopped at a break in the markup. trafilatura's own fallbacks
            # (balanced mode, its readability and jusText) are asked; their text is
            # kept when it is longer and holds the article. Not on a page that does
            # not mark its chrome: there the region is long with menus, teasers and
            # comments, which says nothing of the article being cut, and the
            # fallbacks' longer text is those (docs/PERFORMANCE.md, "Fallbacks").
            longer = None
            if landmarks:
                longer = _stage(
                    result, "trafilatura-fallbacks", "the article is kept", _longer_article, tree, url, a_text
                )
            if longer is not None:
                doc, a_text = longer
                _use_trafilatura(result, doc, tree, url, fmt, a_text)
            elif result["extractor"] == "trafilatura" and not result.get("_asked_readability"):
                # no longer text from trafilatura: readability, which reads a page's main
                # container whole, is asked too (not asked yet: the text did not look short)
                r_root = _stage(result, "readability", "the article is kept", _readability, tree, url)
                if r_root is not None:
                    from .render import render

                    rb_text = _stage(result, "readability-render", "the article is kept", render, r_root, False) or ""
                    if _longer_than(rb_text, a_text):
                        a_text = rb_text
                        _use_readability(result, r_root, fmt, rb_text)
        if _region_is_the_page(sure, facts, r_text, a_text) and (
            landmarks or left_out_prose(r_text, a_text) >= _words(a_text)
        ):
            _use_root(result, root, fmt, r_text, "region")


def _page_may_hold_more(tree: HtmlElement, result: dict[str, Any], fmt: str, sure: str) -> bool:
    """Whether the page's region may be long enough, next to the article, for either rule
    below to apply. The body's text words are an upper bound of the region's (the
    region is part of the body, and its rendering splits no fewer words), counted at C
    speed; most article pages stop here, without building the region (~5-10 ms)."""
    body = tree.find(".//body")
    if body is None:
        return True
    a_words = _words(result["text"] if fmt == "text" else result.get("_plain", ""))
    ratio = _ask_again_ratio(sure)
    if sure == "none":
        ratio = min(ratio, REGION_OVER_ARTICLE)
    return _words(" ".join(body.itertext())) > ratio * a_words


def _ask_again_ratio(sure: str) -> float:
    return ASK_AGAIN_RATIO if sure == "strong" else ASK_AGAIN_UNSURE


def _region_is_the_page(sure: str, facts: dict[str, Any], r_text: str, a_text: str) -> bool:
    """Whether a page read as an article is better read as its region.

    Not every page read as an article is one: a company's service page or a list the
    classifier missed reads far longer as a region that holds the article's words too.
    With no evidence of being an article, a third longer says so; with weak evidence
    (see _page_type), three times longer and a body built of a run of titled entries
    (an index page). Pages that say clearly they are articles keep the article: their
    extra text is comments and teasers.
    """
    a_words = _words(a_text)
    longer = _words(r_text) / max(1, a_words)
    fragment = a_words < FRAGMENT_WORDS
    if sure == "none":
        if fragment and longer > FRAGMENT_OVER_ARTICLE:
            return True  # a banner or a footer's blurb, not the page's content: the region may well leave it out
        enough = longer > REGION_OVER_ARTICLE
    elif sure == "weak":
        enough = longer > INDEX_OVER_ARTICLE and facts.get("entries", 0) >= INDEX_ENTRIES
    else:
        enough = False
    if sure == "weak" and fragment and longer > FRAGMENT_UNDER_REGION:
        enough = True  # a few lines out of a long region are not its article (not for pages that say so clearly: news briefs)
    return enough and _covers(r_text, a_text) >= REGION_COVER


def marks_landmarks(tree: HtmlElement) -> bool:
    """Whether the page marks its chrome as landmarks (nav, header, footer, aside, or their
    ARIA roles), as pages built since HTML5 do.

    The region is what remains of the body once those go (region.py). A page without
    them, as most pages before HTML5 (a table layout), gives a region that still holds
    its menus, teasers and comments: longer than the article, but not with more of it.
    """
    from .region import LANDMARK_ROLES, LANDMARKS

    if tree.xpath("boolean(//%s)" % " | //".join(LANDMARKS)):
        return True
    return any((el.get("role") or "").strip().lower() in LANDMARK_ROLES for el in tree.xpath("//*[@role]"))


PROSE_WORDS = 30  # a paragraph this long is prose: not a menu entry, a teaser's title or a one-line comment


def left_out_prose(r_text: str, a_text: str) -> int:
    """Words of the region's paragraphs of PROSE_WORDS and more that the article does not
    hold, where they go on from the article (next to one of its paragraphs, or to such a
    paragraph next to it).

    Where the markup names no chrome, the region is taken over the article only when it
    holds as much of that prose as the article itself: then the article extractor
    stopped at a break in the markup, and the region is the page's text. Prose set off
    from the article by shorter lines (a comment's author and date, a teaser's title) is
    not the article's.
    """
    have = {line.strip() for line in a_text.split("\n")}
    lines = [line.strip() for line in r_text.split("\n") if line.strip()]
    kinds = ["article" if line in have else "prose" if _words(line) >= PROSE_WORDS else "other" for line in lines]
    goes_on: set[int] = set()
    for order in (range(len(lines)), range(len(lines) - 1, -1, -1)):  # after the article, and before it
        next_to_article = False
        for i in order:
            if kinds[i] == "article":
                next_to_article = True
            elif kinds[i] == "prose" and next_to_article:
                goes_on.add(i)
            else:
                next_to_article = False
    return sum(_words(lines[i]) for i in goes_on)


def _longer_than(text: str, a_text: str) -> bool:
    """Whether text is LONGER_ARTICLE times a_text, holds REGION_COVER of a_text's prose
    (its lines of PROSE_WORDS and more, or all of it when it has none), and is not a
    list of excerpts (TEASERS paragraphs cut off with an ellipsis).

    Prose, not every line: where precision mode stopped early on an old page, what it
    kept besides a paragraph is the menus, breadcrumbs and link lists around it, which
    readability rightly leaves out."""
    cut = sum(1 for line in text.split("\n") if line.rstrip().endswith(("…", "...")))
    prose = "\n".join(line for line in a_text.split("\n") if _words(line) >= PROSE_WORDS) or a_text
    return cut < TEASERS and _words(text) > LONGER_ARTICLE * _words(a_text) and _covers(text, prose) >= REGION_COVER


def _longer_article(tree, url, a_text):
    """(doc, text) of trafilatura in balanced mode with its fallbacks, when that text is
    LONGER_ARTICLE times a_text and holds REGION_COVER of it, else None. A text with
    TEASERS paragraphs cut off with an ellipsis adds excerpts of other pages, not more
    of the article."""
    doc = _trafilatura(tree, url, False, False, True)
    text = _doc_text(doc)
    cut = sum(1 for line in text.split("\n") if line.rstrip().endswith(("…", "...")))
    if cut < TEASERS and _words(text) > LONGER_ARTICLE * _words(a_text) and _covers(text, a_text) >= REGION_COVER:
        return doc, text
    return None


def _hidden(tree, result):
    """Drop what a reader cannot see before any extractor looks (worker.pages.hidden)."""
    from ..hidden import strip

    report = strip(tree)
    result["hidden_removed_chars"] = report.chars
    if report.instructions:
        result["warnings"].append(
            "the page hides text that reads like instructions to an AI model; it was removed and is not in the content"
        )


def _drop_code(tree):
    """Drop scripts and stylesheets once the stages that read them (hidden text, metadata,
    page type) are done. Every extractor drops them too, but only after copying the
    tree: on a page of many scripts, each copy and each count of the body's words cost
    more for them. JSON-LD stays: the product rules read its description."""
    for el in list(tree.iter("script", "style")):
        if el.tag == "script" and (el.get("type") or "").strip().lower() == "application/ld+json":
            continue
        parent = el.getparent()
        if parent is None:
            continue
        if el.tail:  # the text after the element is the page's: keep it
            prev = el.getprevious()
            if prev is not None:
                prev.tail = (prev.tail or "") + el.tail
            else:
                parent.text = (parent.text or "") + el.tail
        parent.remove(el)


def _status_messages(tree):
    # within the work budget only: the search costs ~1 ms a page, 150 ms on a 5 MB one
    from ..hidden import drop_status_messages

    body = tree.find(".//body")
    drop_status_messages(body if body is not None else tree)


def _buries(big: str, small: str) -> bool:
    """Whether ``small`` is an article of its own (SHORT_SHINGLES words or more) that
    ``big`` holds nearly whole inside BURY_RATIO times as much other text."""
    n = _words(small)
    return n >= SHORT_SHINGLES and _words(big) > BURY_RATIO * n and _covers(big, small) > REGION_COVER


def _cut_short(short: str, full: str) -> bool:
    """Whether ``short`` is nearly all inside ``full`` and covers under BALANCED_RATIO of it."""
    st, sf = shingles(short), shingles(full)
    ns, nf = sum(st.values()), sum(sf.values())
    if not nf or not ns:  # an empty result is not "cut short": readability answers that case
        return False
    common = sum((st & sf).values())
    return common / ns > TRUNCATED_COVER and common / nf < BALANCED_RATIO


def _doubtful(tree, t_text):
    """Whether trafilatura's article may be empty or cut short: then readability is asked.

    readability costs as much as trafilatura; on the article benchmark it changes the
    answer only where trafilatura kept little (under SHORT_SHINGLES words) or much
    less than the page's paragraphs hold.
    """
    n = _words(t_text)
    if n < SHORT_SHINGLES:
        return True
    paragraphs = 0
    for p in tree.iter("p"):
        paragraphs += len(p.text_content().split())
        if paragraphs > PARAGRAPHS_OVER_ARTICLE * n:
            return True
    return False


def _drop_screen_reader_copies(tree):
    from .region import drop_screen_reader_copies

    drop_screen_reader_copies(tree)


def _unmark_product_blocks(tree):
    from lxml import etree

    from .imports import core
    from .product import unmark_product_blocks

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


def _product_only(tree, body):
    from .product import (
        chrome_text,
        class_hidden_text,
        drop_consent,
        drop_identifiers,
        drop_initials,
        drop_other_products,
        drop_repeats,
        drop_within,
        extras_text,
        forms_text,
        start_at_name,
    )

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


def _product_description(tree, body):
    from .product import add_bare_text, add_description

    add_bare_text(tree, body)
    add_description(tree, body)


def _product_specs(tree, body):
    from .product import add_specifications

    add_specifications(tree, body)


def _entries(root):
    from .region import compact_entries

    compact_entries(root)


def _product_facts(tree, body):
    """Put the product's name, price and availability from its schema.org data first,
    each only when the extracted text does not already say it."""
    from lxml import etree

    from .meta import product_facts

    facts = product_facts(tree)
    if not facts:
        return
    name, price, availability = facts
    have = " ".join(" ".join(body.itertext()).split())
    if name and name in have:
        name = None
    if price and _price_said(price.split()[0], have):
        price = None
    if not name and not price:
        return  # availability alone is not worth a line before the description
    parts = [x for x in (name, price, availability) if x]
    p = etree.Element("p")
    p.text = " · ".join(parts)
    body.insert(0, p)


def _price_said(amount: str, text: str) -> bool:
    """Whether text states the amount ("3665.00") in any usual spelling ("3,665.00",
    "3.665,00", "3665")."""
    from ... import numbers

    value = numbers.or_none(amount, 0, 1e15)  # a page's "1e400" or "NaN" is no amount to spell
    if value is None:
        return amount in text
    spellings = {"%.2f" % value, "{:,.2f}".format(value)}
    spellings |= {x.replace(",", " ").replace(".", ",") for x in list(spellings)}
    spellings |= {"{:,.2f}".format(value).replace(",", "X").replace(".", ",").replace("X", ".")}
    if value == int(value):
        spellings |= {"%d" % value, "{:,}".format(int(value)), "{:,}".format(int(value)).replace(",", ".")}
    return any(s in text for s in spellings)


def _thread(root):
    from .region import thread_root

    return thread_root(root)


def _thread_by_structure(root):
    from .thread import thread_by_structure

    return thread_by_structure(root)


def _region_text(result, root):
    if root is None:
        return ""
    from .region import drop_repeated_paragraphs
    from .render import render

    if result.get("page_type") != "documentation":  # reference pages repeat on purpose (a parameter's description)
        _stage(result, "repeats", "repeated paragraphs are kept", drop_repeated_paragraphs, root)
    return _stage(result, "region-render", "read as an article", render, root, False) or ""


def _use_root(result, root, fmt, plain, name):
    result["extractor"] = name
    result["text"] = (
        plain
        if fmt == "text"
        else (_stage(result, "render", "plain-text fallback", _render_html_root, root, fmt, plain) or "")
    )


def _covers(big: str, small: str) -> float:
    """Share of small's \\w+ tokens (as a multiset) found in big."""
    import re
    from collections import Counter

    b, s = Counter(re.findall(r"\w+", big)), Counter(re.findall(r"\w+", small))
    n = sum(s.values())
    return sum((b & s).values()) / n if n else 0.0


def _article(result, tree, url, fmt):
    """trafilatura with readability as a second opinion; region, then fallback, when both fail."""
    doc = _stage(result, "trafilatura", "readability takes over", _trafilatura, tree, url, True, True, True)
    t_text = _doc_text(doc)

    r_root = None
    if _doubtful(tree, t_text):
        # precision mode may have stopped early: balanced mode is asked first, and taken
        # when it holds nearly all of precision's text and much more
        balanced = _stage(
            result, "trafilatura-balanced", "precision's result is kept", _trafilatura, tree, url, False, True, True
        )
        b_text = _doc_text(balanced)
        if _cut_short(t_text, b_text):
            doc, t_text = balanced, b_text
        r_root = _stage(result, "readability", "trafilatura's result is kept", _readability, tree, url)
        result["_asked_readability"] = True
    r_text = ""
    if r_root is not None:
        from .render import render

        r_text = _stage(result, "readability-render", "trafilatura's result is kept", render, r_root, False) or ""
    choice = choose(t_text, r_text)
    kept = t_text if choice == "trafilatura" else r_text
    if _words(kept) < SHORT_SHINGLES or not _words(t_text):
        # precision mode sometimes keeps nothing of a plain page, and readability only a
        # "skip to content" link: trafilatura's balanced mode reads such pages, unless
        # readability found a real article that balanced mode buries in other text
        retry = _stage(
            result, "trafilatura-balanced", "the shorter text is kept", _trafilatura, tree, url, False, True, True
        )
        b_text = _doc_text(retry)
        if _words(b_text) > _words(kept) and not _buries(b_text, kept):
            doc, t_text, choice = retry, b_text, "trafilatura"
    if choice == "trafilatura":
        _use_trafilatura(result, doc, tree, url, fmt, t_text)
        result["_plain"] = t_text
    elif choice == "readability":
        _use_readability(result, r_root, fmt, r_text)
    else:
        _use_region(result, tree, url, fmt)


def _use_readability(result, r_root, fmt, r_text):
    result["_plain"] = r_text
    result["extractor"] = "readability"
    result["text"] = _stage(result, "render", "plain-text fallback", _render_html_root, r_root, fmt, r_text) or ""


def _use_trafilatura(result, doc, tree, url, fmt, t_text):
    result["extractor"] = "trafilatura"
    if fmt == "text":
        result["text"] = t_text
        return
    _stage(result, "links", "markdown without links", _attach_links, doc.body, tree, url)
    result["text"] = _stage(result, "render", "plain-text fallback", _render_trafilatura, doc, fmt) or ""


def _use_region(result, tree, url, fmt):
    """The main region as the last resort of the article path ("fallback")."""
    root = _stage(result, "region", "plain-text fallback", _region, tree, url)
    if root is None:
        return
    text = _stage(result, "render", "plain-text fallback", _render_html_root, root, fmt, None) or ""
    result["extractor"] = "fallback" if text.strip() else "none"
    result["text"] = text


def _doc_text(doc: Any) -> str:
    """The plain text of trafilatura's result, rendered by our renderer from a copy of its tree
    (so text and markdown are one rendering of one tree, with the page's own characters:
    trafilatura's text output unescapes entities the page escaped)."""
    if doc is None or doc.body is None:
        return ""
    import copy

    from .render import render

    return render(_traf_html(copy.deepcopy(doc.body)), markdown=False)


def _traf_html(body):
    """trafilatura's XML body as an HTML element tree (converted in place)."""
    from trafilatura.htmlprocessing import convert_to_html

    root = convert_to_html(body)
    for el in root.iter("pre"):  # trafilatura's <code> becomes <pre> even inline
        parent = el.getparent()
        if parent is not None and parent.tag not in ("body", "div", "blockquote", "li") and "\n" not in (el.text or ""):
            el.tag = "code"
    return root


def _words(text: str | None) -> int:
    """\\w+ words: the same count for a text and its markdown."""
    import re

    return len(re.findall(r"\w+", text or ""))


def _metadata(tree, url):
    from .meta import page_metadata

    meta = page_metadata(tree, url)
    for m in tree.iterfind(".//meta"):
        if (m.get("property") or m.get("name") or "").strip().lower() == "og:type":
            meta["_og_type"] = m.get("content")
            break
    return meta


def _page_type(tree, url, og_type, canonical=None):
    """(kind, how sure: "strong", "weak" or "none", the markup's facts from pagetype.evidence).

    An article's evidence is weak when it is one signal of WEAK_ARTICLE points or fewer
    (its URL's shape, its og:type, or a bare schema.org Article): publishing systems
    set those on every page, index pages too. Other kinds' evidence counts as strong.
    """
    from .pagetype import WEAK_ARTICLE, evidence, pick

    facts: dict[str, Any] = {}
    score = evidence(tree, url, og_type, facts, canonical)
    kind = pick(score)
    if score[kind] <= 0:
        return kind, "none", facts
    if kind == "article" and score[kind] <= WEAK_ARTICLE:
        return kind, "weak", facts
    return kind, "strong", facts


def _region(tree, url=None, teasers=False, document=False):
    from .region import main_region

    return main_region(tree, url=url, teasers=teasers, document=document)


def _over_budget(tree: HtmlElement) -> str | None:
    """Why the page is over the work budget, or None (counted by libxml2: no Python walk)."""
    from lxml import etree

    if tree.xpath("count(//*)") > MAX_NODES:
        return "over %d elements" % MAX_NODES
    if tree.xpath("count(//@*)") > MAX_ATTRIBUTES:
        return "over %d attributes" % MAX_ATTRIBUTES
    text = len(etree.tostring(tree, method="text", encoding="unicode"))
    text -= sum(len(el.text or "") for el in tree.iter("script", "style"))
    if text > MAX_TEXT_CHARS:
        return "over %d characters of text" % MAX_TEXT_CHARS
    return None


def _cheap_text(tree: HtmlElement, fmt: str) -> str:
    """The page's text in paragraphs, at C speed: for pages over the work budget.

    Drops what is never text and the navigation landmarks, marks block boundaries,
    and lets lxml serialise the text. No structure beyond paragraphs: tables, lists
    and code read as paragraphs.
    """
    import re

    from lxml import etree

    from .region import LANDMARKS, NEVER_TEXT
    from .render import BLOCK, escape_line_start, md_escape

    body = tree.find(".//body")
    if body is None:
        body = tree
    etree.strip_elements(body, *(NEVER_TEXT + LANDMARKS), etree.Comment, etree.ProcessingInstruction, with_tail=False)
    for el in body.iter(*BLOCK, "br"):
        el.tail = "\n\n" + (el.tail or "")
        el.text = "\n\n" + (el.text or "")
    text = etree.tostring(body, method="text", encoding="unicode")
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text)]
    paragraphs = [p for p in paragraphs if p]
    if fmt == "markdown":
        paragraphs = [escape_line_start(md_escape(p)) for p in paragraphs]
    elif fmt == "html":
        from html import escape

        paragraphs = ["<p>%s</p>" % escape(p) for p in paragraphs]
    return "\n\n".join(paragraphs)


def shingles(text: str | None, n: int = 4) -> Counter[tuple[str, ...]]:
    """Multiset of n-token shingles over \\w+ tokens (the benchmark's unit of text)."""
    import re
    from collections import Counter

    tokens = re.findall(r"\w+", text or "")
    if len(tokens) < n:
        return Counter([tuple(tokens)]) if tokens else Counter()
    return Counter(zip(*(tokens[i:] for i in range(n))))


def choose(t_text: str, r_text: str) -> str:
    """Which extraction to keep: "trafilatura", "readability" or "fallback"."""
    st, sr = shingles(t_text), shingles(r_text)
    nt, nr = sum(st.values()), sum(sr.values())
    if not nt and not nr:
        return "fallback"
    if not nr:
        return "trafilatura"
    if not nt:
        return "readability"
    common = sum((st & sr).values())
    t_in_r = common / nt
    r_in_t = common / nr
    if nt < SHORT_SHINGLES and nr > 2 * nt:
        return "readability"
    if t_in_r > TRUNCATED_COVER and r_in_t < TRUNCATED_RATIO:
        return "readability"
    if r_in_t > SUBSET_COVER and SUBSET_BAND[0] < t_in_r < SUBSET_BAND[1] and nr > 50:
        return "readability"
    return "trafilatura"


def _parse(html: str) -> HtmlElement | None:
    if len(html) > MAX_TAG_CHARS:
        html = _cut_long_tags(html)
    html = _late_end_tags(html)
    try:
        from .imports import core

        core()
        tree = _load_html(html)
    except (Exception, RecursionError):
        tree = None
    if tree is None:
        try:
            import lxml.html

            tree = lxml.html.document_fromstring(html)
        except (Exception, RecursionError):
            tree = None
    return tree


_PARSERS = None


def _html_parser():
    """trafilatura's parser settings with a class lookup done in C, one parser per thread.

    lxml.html's own lookup is Python code called for every element object lxml hands
    out, some 20,000 calls a page and about a tenth of extraction time; every element
    is an HtmlElement all the same (the form-control subclasses it would pick are never
    used here), so the output is the same. Parsers are not shared across threads.
    """
    global _PARSERS
    import threading

    import lxml.html
    from lxml import etree

    if _PARSERS is None:
        _PARSERS = threading.local()
    parser = getattr(_PARSERS, "parser", None)
    if parser is None:
        parser = lxml.html.HTMLParser(
            collect_ids=False, default_doctype=False, encoding="utf-8", remove_comments=True, remove_pis=True
        )
        parser.set_element_class_lookup(
            etree.ElementDefaultClassLookup(
                element=lxml.html.HtmlElement,
                comment=lxml.html.HtmlComment,
                pi=lxml.html.HtmlProcessingInstruction,
                entity=lxml.html.HtmlEntity,
            )
        )
        _PARSERS.parser = parser
    return parser


def _load_html(html: str) -> HtmlElement | None:
    """trafilatura.utils.load_html for a str, with our parser (see _html_parser)."""
    import lxml.html
    from trafilatura.utils import repair_faulty_html

    parser = _html_parser()
    beginning = html[:50].lower()
    html = repair_faulty_html(html, beginning)
    tree, as_bytes = None, False
    try:
        tree = lxml.html.fromstring(html, parser=parser)
    except ValueError:  # "Unicode strings with encoding declaration are not supported"
        as_bytes = True
    except Exception:
        tree = None
    if as_bytes or tree is None or len(tree) < 1:
        try:
            tree = lxml.html.fromstring(html.encode("utf8", "surrogatepass"), parser=parser)
        except Exception:
            tree = None if as_bytes else tree
    if tree is not None and "html" not in beginning and len(tree) < 2:
        return None  # trafilatura's test: not (well-formed) HTML at all
    return tree


_END_TAGS = None


def _late_end_tags(html: str) -> str:
    """The markup without its </body> and </html> when markup follows them.

    A browser reads what comes after a stray </html> into the body (templates that
    print their footer's end tags before the article do this); libxml2 stops there and
    drops the rest, which was the whole article on such pages. Looked for with str.find
    (C speed); the regex runs only on such pages.
    """
    global _END_TAGS
    end = html.find("</html")
    if end < 0:
        end = html.find("</HTML")
    if end < 0:
        return html
    close = html.find(">", end)
    if close < 0 or "<" not in html[close:]:
        return html
    if _END_TAGS is None:
        import re

        _END_TAGS = re.compile(r"</(?:body|html)\s*>", re.I)
    return _END_TAGS.sub("", html)


def _cut_long_tags(html: str) -> str:
    """Start tags longer than MAX_TAG_CHARS reduced to their bare name (see MAX_TAG_CHARS)."""
    import re

    return re.sub(r"<([A-Za-z][A-Za-z0-9:-]{0,30})\b[^<>]{%d,}>" % MAX_TAG_CHARS, r"<\1>", html)


def _trafilatura(tree, url, precision=True, fast=True, comments=False):
    from .imports import core

    bare_extraction = core().bare_extraction

    # Links off: with include_links trafilatura keeps link-dense blocks and loses ~0.06 F1
    # on the benchmark; links are put back afterwards for markdown/html (_attach_links).
    # Metadata off: meta.py does it in ~1 ms instead of ~7 ms, and states no guesses.
    doc = bare_extraction(
        tree,
        url=url,
        fast=fast,
        favor_precision=precision,
        include_comments=comments,
        include_tables=True,
        include_formatting=True,  # one extraction for every format: text is rendered from it
        include_links=False,
        with_metadata=False,
    )
    if comments and doc is not None:
        _append_comments(doc)
    return doc


COMMENTS_HEADING = "Comments"


def _append_comments(doc: Any) -> None:
    """The readers' comments trafilatura found, after the article under a heading of their
    own, so that a reader (or a model) can tell the article from what others said of it."""
    from lxml import etree

    comments, body = getattr(doc, "commentsbody", None), doc.body
    if comments is None or body is None or not len(comments) or not "".join(comments.itertext()).strip():
        return
    head = etree.SubElement(body, "head", rend="h2")
    head.text = COMMENTS_HEADING
    for child in list(comments):
        body.append(child)


def _readability(tree, url):
    """readability-lxml on a copy of the tree; returns the summary's root element or None."""
    import copy

    import lxml.html
    from lxml import etree

    from .imports import readability

    rd = readability()
    base: Any = rd.Document  # a class of a module loaded at run time: no static type

    class _Doc(base):
        # readability's default _parse runs lxml's html Cleaner (~7 ms a page) and, on
        # its retry pass, re-uses a tree it already mutated. This does the cleaning that
        # matters for scoring on a fresh copy every pass, and drops page chrome that is
        # never the article (nav, aside, footer, ...): ~6 ms a page less, same F1.
        # Not <form>: ASP.NET pages wrap the whole body in one.
        def _parse(self, input):
            doc = copy.deepcopy(input)
            for elem in doc.xpath("//*[@hidden]"):
                elem.drop_tree()
            display_none = rd.REGEXES["displayNoneRe"]
            for elem in doc.xpath("//*[@style]"):
                if display_none.search(elem.get("style") or ""):
                    elem.drop_tree()
            etree.strip_elements(
                doc,
                "script",
                "style",
                "link",
                "noscript",
                "svg",
                "nav",
                "aside",
                "footer",
                "iframe",
                "select",
                "button",
                etree.Comment,
                etree.ProcessingInstruction,
                with_tail=False,
            )
            return doc

    html = _Doc(tree).summary(html_partial=True)
    if not html or not html.strip():
        return None
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    from .region import absolute_links

    absolute_links(root, url)  # on the small summary only: on the whole page this costs ~4 ms
    return root


# ------------------------------------------------------------------ rendering


def _render_trafilatura(doc, fmt):
    root = _traf_html(doc.body)
    if fmt == "markdown":
        # our renderer, not trafilatura's: one markdown for every extractor, escaped only
        # where CommonMark would read markup (trafilatura escapes every "_" and "*")
        from .render import render

        return render(root, markdown=True)
    from lxml.etree import tostring

    html = tostring(root, encoding="unicode", method="html")
    return _strip_html_wrapper(html)


def _render_html_root(root, fmt, plain):
    from .render import render

    if root is None:
        return ""
    if fmt == "text":
        return plain if plain is not None else render(root, markdown=False)
    if fmt == "markdown":
        return render(root, markdown=True)
    import lxml.html

    return lxml.html.tostring(root, encoding="unicode", method="html")


def _strip_html_wrapper(html: str | None) -> str:
    import re

    m = re.search(r"<body[^>]*>(.*)</body>", html or "", re.S)
    return (m.group(1) if m else (html or "")).strip()


def _plain_fallback_text(html: str) -> str:
    import re
    from html import unescape

    html = html[:2000000]  # last resort only; bounded work on hostile input
    text = re.sub(r"(?is)<(script|style|noscript|template)\b[^>]*>.*?</\1\s*>", " ", html)
    text = re.sub(r"(?s)<!--.*?-->|<[^>]*>", " ", text)
    return " ".join(unescape(text).split())


# ------------------------------------------------------------------ links


def _anchors(tree: HtmlElement, url: str | None, limit: int = 2000) -> dict[str, str]:
    import re

    """{anchor text: absolute href} for the page's links, first occurrence wins."""
    from urllib.parse import urljoin

    out: dict[str, str] = {}
    for i, a in enumerate(tree.iter("a")):
        if i >= limit:
            break
        href = (a.get("href") or "").strip()
        if not href or href.startswith(("#", "javascript:", "data:")):
            continue
        text = " ".join(a.text_content().split())
        if not (2 <= len(text) <= 150) or text in out:
            continue
        if url:
            try:
                href = urljoin(url, href)
            except ValueError:
                continue
        if re.match(r"^(https?:|mailto:|/)", href) or not url:
            out[text] = href
    return out


# A run of word characters, or one character that is neither word nor space: where a
# link text can start in text (re's \w, so the same word boundaries as (?<!\w) / (?!\w)).
_TOKEN_PATTERN = r"\w+|[^\w\s]"


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _attach_links(body: HtmlElement, tree: HtmlElement, url: str | None) -> None:
    """Turn occurrences of the page's link texts in trafilatura's body back into links.

    trafilatura extracts better without links (see _trafilatura); for markdown and html
    each link text found in the extracted text becomes a <ref target> again, first
    occurrence only, never inside code.
    """
    import re

    from lxml.etree import Element

    anchors = _anchors(tree, url)
    if not anchors:
        return
    keys = sorted(anchors, key=len, reverse=True)[:1000]
    # Link texts by their first token, longest first. One regex alternation of up to
    # 1,000 texts cost ~17 ms a page to compile (re's compiler is Python code) and more
    # to run; this finds the same matches: the leftmost, the longest text there, whole
    # words only, and after a match the search goes on from its end.
    token = re.compile(_TOKEN_PATTERN)  # re's own cache keeps it compiled after the first page
    by_token: dict[str, list[str]] = {}
    for k in keys:
        first = token.match(k)
        if first:
            by_token.setdefault(first.group(0), []).append(k)
    used: set[str] = set()

    def split(text: str) -> list[tuple[str, str | None]] | None:
        """[(before, match or None)] pieces of text; each anchor used once."""
        pieces: list[tuple[str, str | None]] = []
        pos = resume = 0
        for m in token.finditer(text):
            start = m.start()
            if start < resume:
                continue
            candidates = by_token.get(m.group(0))
            if not candidates or (start and _is_word(text[start - 1])):
                continue
            for k in candidates:
                end = start + len(k)
                if text.startswith(k, start) and not (end < len(text) and _is_word(text[end])):
                    break
            else:
                continue
            resume = end
            if k in used:
                continue
            used.add(k)
            pieces.append((text[pos:start], k))
            pos = end
        if not pieces:
            return None
        pieces.append((text[pos:], None))
        return pieces

    def make_refs(pieces: list[tuple[str, str | None]]) -> list[HtmlElement]:
        refs = []
        for i in range(len(pieces) - 1):
            ref = Element("ref")
            ref.text = pieces[i][1]
            # every piece but the last ends at a match: its key is a str
            ref.set("target", anchors[pieces[i][1]])  # type: ignore[index]
            ref.tail = pieces[i + 1][0]
            refs.append(ref)
        return refs

    slots = []
    for el in body.iter():
        if not isinstance(el.tag, str) or el.tag in ("code", "ref", "graphic"):
            continue
        if any(anc.tag in ("code", "ref") for anc in el.iterancestors()):
            continue
        slots.append(el)
    for el in slots:
        if el.text:
            pieces = split(el.text)
            if pieces:
                el.text = pieces[0][0]
                for i, ref in enumerate(make_refs(pieces)):
                    el.insert(i, ref)
        parent = el.getparent()
        if el.tail and parent is not None and parent.tag not in ("code", "ref") and el is not body:
            pieces = split(el.tail)
            if pieces:
                el.tail = pieces[0][0]
                anchor = el
                for ref in make_refs(pieces):
                    anchor.addnext(ref)
                    anchor = ref
