"""HTML -> clean main content (markdown, plain text or cleaned HTML) plus page metadata.

Pure functions, no I/O. Heavy libraries (lxml, trafilatura, readability) are imported
inside the functions: importing this module costs nothing. Not thread-safe: lxml and
trafilatura keep module-level parsers, so a process extracts on one thread only
(worker.pages.pipeline does; ``prepare`` imports everything on that thread first).

The pipeline, chosen by measurement (bench/extraction/run.py and sets.py,
docs/PERFORMANCE.md). This module runs it; which result is kept and when another
extractor is asked is decided in decide.py, parsing and the work budget are parse.py's,
and the product path's steps product.py's:

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
   the article under a heading of their own, unless the page describes itself in
   schema.org JSON-LD (decide.keeps_comments). When its text looks short or cut, its
   balanced mode and readability-lxml are asked too (``choose`` keeps trafilatura's
   result unless it is nearly empty, truncated, or padded with boilerplate
   readability left out). Where its text is a table layout read whole (more tables
   than paragraphs: trafilatura's own test), readability is asked and its article taken
   when it is half the text or more. When the page's region is over twice the article, trafilatura
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

from . import comment_section, links, stages
from . import thresholds as th
from .decide import (
    COMMENTS_MARK,
    REGION_KINDS,
    ask_again_ratio,
    asking_again_can_change,
    buries,
    choose,
    cut_short,
    doubtful,
    holds_a_layouts_article,
    keeps_comments,
    left_out_prose,
    longer_than,
    marks_landmarks,
    most_words,
    page_may_hold_more,
    page_type,
    posts_follow_an_article,
    region_can_matter,
    region_is_the_page,
    tables_over_paragraphs,
    words,
)
from .parse import markup_over_budget, over_budget, parse, plain_fallback_text, strip_attributes

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from lxml.html import HtmlElement  # no stubs: Any to the checker

EMPTY_KEYS = ("title", "author", "published", "site_name", "language", "canonical_url", "description")
FORMATS = ("markdown", "text", "html")


def prepare() -> None:
    """Import every extraction library now, on the calling thread.

    The import-time stand-ins of imports.py replace modules in sys.modules while
    trafilatura is being imported; no other thread may run then. Callers that go on
    to start threads (worker.pages.pipeline) call this first.
    """
    from .imports import core, readability

    core()
    readability()
    import lxml.html  # noqa: F401

    from . import meta, pagetype, product, region, render, thread  # noqa: F401


class Result(dict):
    """The answer as it is built: the dict extract() returns (title, text, extractor,
    page_type, warnings...), and what the stages tell each other as named fields, never
    keys of the answer."""

    def __init__(self) -> None:
        super().__init__(text="", extractor="none", page_type=None, warnings=[], hidden_removed_chars=0)
        for k in EMPTY_KEYS:
            self[k] = None
        # the kept article's plain text, when the output is markdown (the second look counts its words)
        self.plain: str | None = None
        # readability's (root, plain text), when the article path asked it (the second look reuses it)
        self.readability: tuple[Any, str] | None = None
        # trafilatura's kept result, rendered once the pipeline is done (_finish_trafilatura)
        self.pending: tuple[Any, Any, str | None, str, bool] | None = None


def extract(html: str | bytes, url: str | None = None, fmt: str = "markdown") -> dict[str, Any]:
    """Main content and metadata of an HTML page. Never raises."""
    result = Result()
    if fmt not in FORMATS:
        fmt = "markdown"
    try:
        if isinstance(html, bytes):
            html = html.decode("utf-8", errors="replace")
        if not isinstance(html, str) or not html.strip():
            return dict(result)
        if url is not None and not isinstance(url, str):
            url = None
        _extract(html, url, fmt, result)
        if result["extractor"] == "trafilatura" and result.pending is not None:
            _finish_trafilatura(result, fmt)
    except (Exception, RecursionError) as exc:  # hostile or broken input: return what we have, and say so
        _failed(result, "pipeline", exc, "the text so far is kept")
    if not result["text"].strip():
        text = plain_fallback_text(html) if isinstance(html, str) else ""
        if text:
            if fmt == "html":
                from html import escape

                text = "<p>%s</p>" % escape(text)
            result.update(text=text, extractor="fallback")
    return dict(result)


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


class Page:
    """What the pipeline knows of a page before any extractor reads it: the parsed tree,
    the output format, and the evidence of its kind (decide.page_type)."""

    def __init__(self, tree: Any, url: str | None, fmt: str, kind: str, sure: str, facts: dict[str, Any]) -> None:
        self.tree, self.url, self.fmt = tree, url, fmt
        self.kind, self.sure, self.facts = kind, sure, facts
        self.comments = keeps_comments(facts)  # trafilatura's readers' comments follow the article


def _extract(html, url, fmt, result):
    page = _prepare(html, url, fmt, result)
    if page is None:
        return
    # The paths, in the order they are asked: the first that reads the page ends it.
    for applies, read in PATHS:
        if applies(page) and read(result, page):
            return


def _prepare(html, url, fmt, result):
    """Parse, drop what a reader cannot see, read the metadata and the page's kind; a page
    over the work budget is read the cheap way here (then None, as when parsing fails)."""
    # a page of dense attributes is over the budget before libxml2 parses it (it checks
    # each attribute against the tag's others): read without its attributes, the cheap way
    dense = _stage(result, "budget", "the page is parsed as it is", markup_over_budget, html)
    if dense:
        html = strip_attributes(html)
    tree = _stage(result, "parse", "plain-text fallback", parse, html)
    if tree is None:
        return None  # extract() falls back to the plain text of the markup
    _stage(result, "hidden", "hidden elements are kept", _hidden, tree, result)
    meta: dict[str, Any] = {}
    og_type = None
    got = _stage(result, "metadata", "no metadata", stages.metadata, tree, url)
    if got is not None:
        meta, og_type = got
    result.update(meta)
    over = dense or over_budget(tree, len(html))
    if over:
        result["warnings"].append(
            "the page is too large to analyse (%s); its text is given as is, without navigation and scripts" % over
        )
        result["page_type"] = "unknown"
        from .budget_text import shaped_text  # a page over the budget is rare: its module is not paid by the others

        text = _stage(result, "budget", "plain-text fallback", shaped_text, tree, fmt) or ""
        if text:
            result.update(text=text, extractor="budget")
        return None
    kind, sure, facts = _stage(
        result,
        "page-type",
        "read as an article",
        page_type,
        tree,
        url,
        og_type,
        meta.get("canonical_url"),
    ) or ("article", "none", {})
    result["page_type"] = kind
    _stage(result, "scripts", "scripts are kept", stages.drop_code, tree)
    _stage(result, "status-messages", "a script's failure messages are kept", stages.status_messages, tree)
    # before any extractor: a heading's permalink mark is read as its text by each (0.5 ms)
    _stage(result, "permalink-marks", "the marks are kept", stages.permalink_marks, tree)
    _stage(result, "manpage-header", "a man page's NAME line is left in its header", stages.manpage_header, tree)
    return Page(tree, url, fmt, kind, sure, facts)


def _as_region(result, page):
    """A page of a REGION_KINDS kind, read as its region (a forum's as its thread). When
    its posts are a blog post's comments (decide.posts_follow_an_article) it is read as
    an article, which trafilatura gives with its comments; the evidence was a forum's."""
    if _read_region(result, page.tree, page.url, page.fmt, page.kind, page.comments):
        return True
    page.kind, page.sure = "article", "weak"
    result["page_type"] = page.kind
    return False


def _as_product(result, page):
    """A product page: trafilatura in balanced mode with its own fallbacks (a product page
    is short lines, specifications and variants, which precision mode drops), minus the
    reviews and other products, plus the specifications, description and facts the
    text does not say (product.py). Read as an article when trafilatura finds nothing."""
    from . import headings, product, product_facts
    from .region import drop_screen_reader_copies

    tree, url = page.tree, page.url
    # a shop prints its name, price and labels twice, once for screen readers: once is read
    _stage(result, "screen-reader-copies", "both copies are kept", drop_screen_reader_copies, tree)
    _stage(
        result,
        "product-blocks",
        "trafilatura may discard the product's blocks",
        product.unmark_discarded_blocks,
        tree,
    )
    t_doc = _stage(result, "trafilatura", "read as an article", stages.trafilatura_doc, tree, url, False, False)
    if t_doc is not None and t_doc.body is not None:
        _stage(result, "product", "reviews and other products are kept", product.keep_product_only, tree, t_doc.body)
        body = t_doc.body
        _stage(
            result,
            "product-specifications",
            "the page's text is given as is",
            product.add_specifications,
            tree,
            body,
        )
        _stage(
            result,
            "product-description",
            "the page's text is given as is",
            product.add_description_text,
            tree,
            body,
        )
        _stage(result, "product-facts", "the page's text is given as is", product_facts.add_facts, tree, body)
        _stage(result, "headings", "trafilatura's headings only", headings.restore, tree, body)
    t_text = stages.doc_text(t_doc)
    if t_text.strip():
        _use_trafilatura(result, t_doc, tree, url, page.fmt, t_text, page_markup=False)
        return True
    return False


def _as_article(result, page):
    """An article (_article), then the second look (_second_look)."""
    _article(result, page.tree, page.url, page.fmt, page.comments)
    _second_look(result, page)
    return True


# The paths a page is read by, in order: (applies to the page, reads it: True when done).
PATHS = (
    (lambda page: page.kind in REGION_KINDS, _as_region),
    (lambda page: page.kind == "product", _as_product),
    (lambda page: True, _as_article),
)


def _second_look(result, page):
    """After an article is read, the page's region decides whether to look again. In order:

    1. Only where the page may hold more than the article (page_may_hold_more), and its
       region could change the result (region_can_matter, asked before the region is
       built and again with the bound of its words before it is rendered).
    2. Where the region is far longer than the article (ask_again_ratio), ask again:
       trafilatura's own fallbacks on a page that marks its chrome (landmarks), else
       readability when trafilatura's text was kept; the longer text that holds the
       article is taken (longer_than).
    3. Where the page is better read as its region (region_is_the_page), on a page that
       marks its chrome or where the region holds as much left-out prose as the article:
       the region is taken.
    """
    tree, url, fmt, sure, facts = page.tree, page.url, page.fmt, page.sure, page.facts
    a_text = result["text"] if fmt == "text" else (result.plain or "")
    if result["extractor"] not in ("trafilatura", "readability") or not page_may_hold_more(tree, a_text, sure):
        return
    landmarks = marks_landmarks(tree)
    # the region is built, then rendered, only where what it says can change the result
    asks = asking_again_can_change(landmarks, result["extractor"], result.readability, a_text)
    if not region_can_matter(sure, facts, words(a_text), asks):
        return
    root = _stage(result, "region", "the article is kept", stages.region_root, tree, url)
    if not region_can_matter(sure, facts, words(a_text), asks, most_words(root)):
        return
    r_text = region_text(result, root)
    if words(r_text) > ask_again_ratio(sure) * words(a_text):
        a_text = _ask_again(result, page, landmarks, a_text)
    if region_is_the_page(sure, facts, r_text, a_text) and (
        landmarks or left_out_prose(r_text, a_text) >= words(a_text)
    ):
        _use_root(result, root, fmt, r_text, "region")


def _ask_again(result, page, landmarks, a_text):
    """The page holds far more text than the article read: precision mode may have
    stopped at a break in the markup. trafilatura's own fallbacks (balanced mode, its
    readability and jusText) are asked; their text is kept when it is longer and holds
    the article. Not on a page that does not mark its chrome: there the region is long
    with menus, teasers and comments, which says nothing of the article being cut, and
    the fallbacks' longer text is those (docs/PERFORMANCE.md, issue 26, run of 19:14).
    Returns the article's text as it now is."""
    tree, url, fmt = page.tree, page.url, page.fmt
    longer = None
    if landmarks:
        longer = _stage(
            result,
            "trafilatura-fallbacks",
            "the article is kept",
            stages.longer_article,
            tree,
            url,
            a_text,
            page.comments,
        )
    if longer is not None:
        doc, a_text = longer
        _use_trafilatura(result, doc, tree, url, fmt, a_text)
    elif result["extractor"] == "trafilatura":
        # no longer text from trafilatura: readability, which reads a page's main
        # container whole, is asked too, or its answer used again where the text
        # looked short (_article asked it then, and chose between the two on
        # other grounds); its text is taken when it is the article and more
        r_root, rb_text = result.readability or (None, "")
        if result.readability is None:
            r_root = _stage(result, "readability", "the article is kept", stages.readability_root, tree, url)
            if r_root is not None:
                from .render import render

                rb_text = _stage(result, "readability-render", "the article is kept", render, r_root, False) or ""
        if r_root is not None and longer_than(rb_text, a_text):
            a_text = rb_text
            _use_readability(result, r_root, fmt, rb_text)
    return a_text


def _read_region(result, tree, url, fmt, kind, comments):
    """Read a page of a REGION_KINDS kind as its region (a forum's as its thread);
    False when it is to be read as an article instead."""
    root = _stage(
        result,
        "region",
        "read as an article",
        stages.region_root,
        tree,
        url,
        kind in ("listing", "collection"),
        kind == "documentation",
    )
    thread = None
    if kind == "forum" and root is not None:
        thread = _stage(result, "posts", "the region is kept", stages.marked_thread, root)
        if thread is None:  # no schema.org markup: the posts by the page's structure (thread.py)
            thread = _stage(result, "posts-by-structure", "the region is kept", stages.structured_thread, root)
            if thread is not None and posts_follow_an_article(
                _stage(result, "article-before-posts", "read as a thread", stages.prose_before_posts, root) or 0
            ):
                return False
        if thread is not None:
            root = thread
    if kind in ("listing", "collection") and root is not None:
        from .region import compact_entries

        _stage(result, "entries", "entries are kept as they are", compact_entries, root)
    r_text = region_text(result, root)
    # a region this long is the content, and so is a thread's posts: no need to ask trafilatura
    if words(r_text) >= th.T.REGION_ENOUGH or (thread is not None and r_text.strip()):
        _use_root(result, root, fmt, r_text, "region")
        return True
    t_doc = _stage(result, "trafilatura", "the region is kept", stages.trafilatura_doc, tree, url, False)
    t_text = stages.doc_text(t_doc)
    if r_text.strip() and words(r_text) >= th.T.REGION_MIN_SHARE * words(t_text):
        _use_root(result, root, fmt, r_text, "region")
    elif t_text.strip():
        _use_trafilatura(result, t_doc, tree, url, fmt, t_text)
    else:
        _article(result, tree, url, fmt, comments)
    return True


def _hidden(tree, result):
    """Drop what a reader cannot see before any extractor looks (worker.pages.extract.hidden)."""
    from .hidden import strip

    report = strip(tree)
    result["hidden_removed_chars"] = report.chars
    if report.instructions:
        result["warnings"].append(
            "the page hides text that reads like instructions to an AI model; it was removed and is not in the content"
        )


def region_text(result: dict[str, Any], root: HtmlElement | None) -> str:
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
        else (_stage(result, "render", "plain-text fallback", stages.render_root, root, fmt, plain) or "")
    )


def _article(result, tree, url, fmt, comments):
    """trafilatura with readability as a second opinion; region, then fallback, when both fail.
    comments: whether trafilatura's readers' comments follow the article (decide.keeps_comments)."""
    doc = _stage(
        result, "trafilatura", "readability takes over", stages.trafilatura_doc, tree, url, True, True, comments
    )
    t_text = stages.doc_text(doc)

    r_root = balanced = None
    laid_out = bool(doc is not None and doc.body is not None and tables_over_paragraphs(doc.body))
    asked = doubtful(tree, t_text)
    if asked:
        # precision mode may have stopped early: balanced mode is asked first, and taken
        # when it holds nearly all of precision's text and much more
        balanced = _stage(
            result,
            "trafilatura-balanced",
            "precision's result is kept",
            stages.trafilatura_doc,
            tree,
            url,
            False,
            True,
            comments,
        )
        b_text = stages.doc_text(balanced)
        if cut_short(t_text, b_text):
            doc, t_text = balanced, b_text
    if asked or laid_out:
        r_root = _stage(result, "readability", "trafilatura's result is kept", stages.readability_root, tree, url)
    r_text = ""
    if r_root is not None:
        from .render import render

        r_text = _stage(result, "readability-render", "trafilatura's result is kept", render, r_root, False) or ""
    if asked or laid_out:  # what readability said, for the page's second look (_second_look)
        result.readability = (r_root, r_text)
    choice = choose(t_text, r_text)
    if laid_out and choice == "trafilatura" and holds_a_layouts_article(r_text, t_text):
        choice = "readability"
    kept = t_text if choice == "trafilatura" else r_text
    if words(kept) < th.T.RETRY_WORDS or not words(t_text):
        # precision mode sometimes keeps nothing of a plain page, and readability only a
        # "skip to content" link: trafilatura's balanced mode reads such pages, unless
        # readability found a real article that balanced mode buries in other text
        retry = balanced  # asked already when precision's text looked short: the same call gives the same text
        if retry is None:
            retry = _stage(
                result,
                "trafilatura-balanced",
                "the shorter text is kept",
                stages.trafilatura_doc,
                tree,
                url,
                False,
                True,
                comments,
            )
        b_text = stages.doc_text(retry)
        if words(b_text) > words(kept) and not buries(b_text, kept):
            doc, t_text, choice = retry, b_text, "trafilatura"
    if choice == "trafilatura":
        _use_trafilatura(result, doc, tree, url, fmt, t_text)
        result.plain = t_text
    elif choice == "readability":
        _use_readability(result, r_root, fmt, r_text)
    else:
        _use_region(result, tree, url, fmt)


def _use_readability(result, r_root, fmt, r_text):
    result.plain = r_text
    result["extractor"] = "readability"
    result["text"] = _stage(result, "render", "plain-text fallback", stages.render_root, r_root, fmt, r_text) or ""


def _use_trafilatura(result, doc, tree, url, fmt, t_text, page_markup=True):
    """trafilatura's text is the result. It is rendered from the page's own markup where
    that gives the same words (project.py), once the pipeline is done (_finish_trafilatura):
    a later stage may still take another extractor's text instead. Not on a product page,
    whose text adds what the markup does not say, nor with readers' comments, which
    trafilatura puts after the article under a heading of its own."""
    result["extractor"] = "trafilatura"
    commented = bool(doc.body.xpath("*[@%s]" % COMMENTS_MARK))  # the marks go with the chrome
    if comment_section.drop_chrome(doc):
        t_text = stages.doc_text(doc)
    result["text"] = t_text
    result.pending = (doc, tree, url, t_text, page_markup and not commented)


def _finish_trafilatura(result, fmt):
    assert result.pending is not None  # extract() asks only then
    from . import headings

    doc, tree, url, t_text, page_markup = result.pending
    if page_markup:
        body = tree.find(".//body")
        root = _stage(
            result,
            "page-markup",
            "trafilatura's own tree is rendered",
            stages.projected,
            tree if body is None else body,
            t_text,
            url,
        )
        if root is not None:
            result["text"] = _stage(result, "render", "plain-text fallback", stages.render_root, root, fmt, None) or ""
            if result["text"].strip():
                return
    # the page's markup did not give trafilatura's text: its tree, with the headings it dropped
    # (not on a product page, done by then, nor among readers' comments, whose headings are counts)
    if page_markup and _stage(result, "headings", "trafilatura's headings only", headings.restore, tree, doc.body):
        t_text = stages.doc_text(doc)
    if fmt == "text":
        result["text"] = t_text
        return
    _stage(result, "links", "markdown without links", links.attach_links, doc.body, tree, url)
    result["text"] = _stage(result, "render", "plain-text fallback", stages.render_trafilatura, doc, fmt) or ""


def _use_region(result, tree, url, fmt):
    """The main region as the last resort of the article path ("fallback")."""
    root = _stage(result, "region", "plain-text fallback", stages.region_root, tree, url)
    if root is None:
        return
    text = _stage(result, "render", "plain-text fallback", stages.render_root, root, fmt, None) or ""
    result["extractor"] = "fallback" if text.strip() else "none"
    result["text"] = text


# ------------------------------------------------------------------ rendering


# ------------------------------------------------------------------ links
