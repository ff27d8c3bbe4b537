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

from .decide import (
    COMMENTS_MARK,
    LONGER_ARTICLE,
    PROSE_WORDS,
    REGION_COVER,
    REGION_ENOUGH,
    REGION_KINDS,
    REGION_MIN_SHARE,
    SHORT_SHINGLES,
    TEASERS,
    ask_again_ratio,
    asking_again_can_change,
    buries,
    choose,
    covers,
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
from .parse import cheap_text, markup_over_budget, over_budget, parse, plain_fallback_text, strip_attributes

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
        if result["extractor"] == "trafilatura" and "_trafilatura" in result:
            _finish_trafilatura(result, fmt)
    except (Exception, RecursionError) as exc:  # hostile or broken input: return what we have, and say so
        _failed(result, "pipeline", exc, "the text so far is kept")
    for k in ("_plain", "_readability", "_og_type", "_trafilatura"):  # the stages' notes to each other
        result.pop(k, None)
    if not result["text"].strip():
        text = plain_fallback_text(html) if isinstance(html, str) else ""
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
    # a page of dense attributes is over the budget before libxml2 parses it (it checks
    # each attribute against the tag's others): read without its attributes, the cheap way
    dense = _stage(result, "budget", "the page is parsed as it is", markup_over_budget, html)
    if dense:
        html = strip_attributes(html)
    tree = _stage(result, "parse", "plain-text fallback", parse, html)
    if tree is None:
        return  # extract() falls back to the plain text of the markup
    _stage(result, "hidden", "hidden elements are kept", _hidden, tree, result)
    meta = _stage(result, "metadata", "no metadata", _metadata, tree, url) or {}
    result.update(meta)
    over = dense or over_budget(tree, len(html))
    if over:
        result["warnings"].append(
            "the page is too large to analyse (%s); its text is given as is, without navigation and scripts" % over
        )
        result["page_type"] = "unknown"
        text = _stage(result, "budget", "plain-text fallback", cheap_text, tree, fmt) or ""
        if text:
            result.update(text=text, extractor="budget")
        return
    kind, sure, facts = _stage(
        result,
        "page-type",
        "read as an article",
        page_type,
        tree,
        url,
        meta.get("_og_type"),
        meta.get("canonical_url"),
    ) or ("article", "none", {})
    result["page_type"] = kind
    comments = keeps_comments(facts)
    _stage(result, "scripts", "scripts are kept", _drop_code, tree)
    _stage(result, "status-messages", "a script's failure messages are kept", _status_messages, tree)
    # before any extractor: a heading's permalink mark is read as its text by each (0.5 ms)
    _stage(result, "permalink-marks", "the marks are kept", _permalink_marks, tree)
    if kind in REGION_KINDS:
        if _read_region(result, tree, url, fmt, kind, comments):
            return
        # the posts are a blog post's comments (decide.posts_follow_an_article): read as an
        # article, which trafilatura gives with its comments; the evidence was a forum's
        kind, sure = "article", "weak"
        result["page_type"] = kind
    if kind == "product":
        from . import product
        from .region import drop_screen_reader_copies

        # a shop prints its name, price and labels twice, once for screen readers: once is read
        _stage(result, "screen-reader-copies", "both copies are kept", drop_screen_reader_copies, tree)
        _stage(
            result,
            "product-blocks",
            "trafilatura may discard the product's blocks",
            product.unmark_discarded_blocks,
            tree,
        )
        # a product page is short lines (specifications, variants): precision mode drops
        # them, and trafilatura's own fallbacks (not fast) find the description more often
        t_doc = _stage(result, "trafilatura", "read as an article", _trafilatura, tree, url, False, False)
        if t_doc is not None and t_doc.body is not None:
            _stage(
                result, "product", "reviews and other products are kept", product.keep_product_only, tree, t_doc.body
            )
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
            _stage(result, "product-facts", "the page's text is given as is", product.add_facts, tree, body)
        t_text = _doc_text(t_doc)
        if t_text.strip():
            _use_trafilatura(result, t_doc, tree, url, fmt, t_text, page_markup=False)
            return
    _article(result, tree, url, fmt, comments)
    if result["extractor"] in ("trafilatura", "readability") and page_may_hold_more(tree, result, fmt, sure):
        a_text = result["text"] if fmt == "text" else result.get("_plain", "")
        landmarks = marks_landmarks(tree)
        # the region is built, then rendered, only where what it says can change the result
        asks = asking_again_can_change(landmarks, result["extractor"], result.get("_readability"), a_text)
        if not region_can_matter(sure, facts, words(a_text), asks):
            return
        root = _stage(result, "region", "the article is kept", _region, tree, url)
        if not region_can_matter(sure, facts, words(a_text), asks, most_words(root)):
            return
        r_text = _region_text(result, root)
        if words(r_text) > ask_again_ratio(sure) * words(a_text):
            # The page holds far more text than the article read: precision mode may
            # have stopped at a break in the markup. trafilatura's own fallbacks
            # (balanced mode, its readability and jusText) are asked; their text is
            # kept when it is longer and holds the article. Not on a page that does
            # not mark its chrome: there the region is long with menus, teasers and
            # comments, which says nothing of the article being cut, and the
            # fallbacks' longer text is those (docs/PERFORMANCE.md, issue 26, run of 19:14).
            longer = None
            if landmarks:
                longer = _stage(
                    result, "trafilatura-fallbacks", "the article is kept", _longer_article, tree, url, a_text, comments
                )
            if longer is not None:
                doc, a_text = longer
                _use_trafilatura(result, doc, tree, url, fmt, a_text)
            elif result["extractor"] == "trafilatura":
                # no longer text from trafilatura: readability, which reads a page's main
                # container whole, is asked too, or its answer used again where the text
                # looked short (_article asked it then, and chose between the two on
                # other grounds); its text is taken when it is the article and more
                r_root, rb_text = result.get("_readability") or (None, "")
                if "_readability" not in result:
                    r_root = _stage(result, "readability", "the article is kept", _readability, tree, url)
                    if r_root is not None:
                        from .render import render

                        rb_text = (
                            _stage(result, "readability-render", "the article is kept", render, r_root, False) or ""
                        )
                if r_root is not None and longer_than(rb_text, a_text):
                    a_text = rb_text
                    _use_readability(result, r_root, fmt, rb_text)
        if region_is_the_page(sure, facts, r_text, a_text) and (
            landmarks or left_out_prose(r_text, a_text) >= words(a_text)
        ):
            _use_root(result, root, fmt, r_text, "region")


def _read_region(result, tree, url, fmt, kind, comments):
    """Read a page of a REGION_KINDS kind as its region (a forum's as its thread);
    False when it is to be read as an article instead."""
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
            if thread is not None and posts_follow_an_article(
                _stage(result, "article-before-posts", "read as a thread", _prose_before_posts, root) or 0
            ):
                return False
        if thread is not None:
            root = thread
    if kind in ("listing", "collection") and root is not None:
        from .region import compact_entries

        _stage(result, "entries", "entries are kept as they are", compact_entries, root)
    r_text = _region_text(result, root)
    # a region this long is the content, and so is a thread's posts: no need to ask trafilatura
    if words(r_text) >= REGION_ENOUGH or (thread is not None and r_text.strip()):
        _use_root(result, root, fmt, r_text, "region")
        return True
    t_doc = _stage(result, "trafilatura", "the region is kept", _trafilatura, tree, url, False)
    t_text = _doc_text(t_doc)
    if r_text.strip() and words(r_text) >= REGION_MIN_SHARE * words(t_text):
        _use_root(result, root, fmt, r_text, "region")
    elif t_text.strip():
        _use_trafilatura(result, t_doc, tree, url, fmt, t_text)
    else:
        _article(result, tree, url, fmt, comments)
    return True


def _longer_article(tree, url, a_text, comments):
    """(doc, text) of trafilatura in balanced mode with its fallbacks, when that text is
    LONGER_ARTICLE times a_text and holds REGION_COVER of it, else None. A text with
    TEASERS paragraphs cut off with an ellipsis adds excerpts of other pages, not more
    of the article."""
    doc = _trafilatura(tree, url, False, False, comments)
    text = _doc_text(doc)
    cut = sum(1 for line in text.split("\n") if line.rstrip().endswith(("…", "...")))
    if cut < TEASERS and words(text) > LONGER_ARTICLE * words(a_text) and covers(text, a_text) >= REGION_COVER:
        return doc, text
    return None


def _hidden(tree, result):
    """Drop what a reader cannot see before any extractor looks (worker.pages.extract.hidden)."""
    from .hidden import strip

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
    # within the work budget only: the search costs ~1 ms a page, 150 ms on a 5 MB one;
    # after the scripts are gone (their code holds "error" and "again": half the time)
    from .hidden import drop_status_messages

    body = tree.find(".//body")
    drop_status_messages(body if body is not None else tree)


def _permalink_marks(tree):
    from .chrome import permalink_marks

    permalink_marks(tree)


def _thread(root):
    from .region import thread_root

    return thread_root(root)


def _thread_by_structure(root):
    from .thread import thread_by_structure

    return thread_by_structure(root)


def _prose_before_posts(root):
    from .thread import prose_before_posts

    return prose_before_posts(root, PROSE_WORDS)


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


def _article(result, tree, url, fmt, comments):
    """trafilatura with readability as a second opinion; region, then fallback, when both fail.
    comments: whether trafilatura's readers' comments follow the article (decide.keeps_comments)."""
    doc = _stage(result, "trafilatura", "readability takes over", _trafilatura, tree, url, True, True, comments)
    t_text = _doc_text(doc)

    r_root = balanced = None
    laid_out = bool(doc is not None and doc.body is not None and tables_over_paragraphs(doc.body))
    asked = doubtful(tree, t_text)
    if asked:
        # precision mode may have stopped early: balanced mode is asked first, and taken
        # when it holds nearly all of precision's text and much more
        balanced = _stage(
            result, "trafilatura-balanced", "precision's result is kept", _trafilatura, tree, url, False, True, comments
        )
        b_text = _doc_text(balanced)
        if cut_short(t_text, b_text):
            doc, t_text = balanced, b_text
    if asked or laid_out:
        r_root = _stage(result, "readability", "trafilatura's result is kept", _readability, tree, url)
    r_text = ""
    if r_root is not None:
        from .render import render

        r_text = _stage(result, "readability-render", "trafilatura's result is kept", render, r_root, False) or ""
    if asked or laid_out:  # what readability said, for the page's second look (_extract)
        result["_readability"] = (r_root, r_text)
    choice = choose(t_text, r_text)
    if laid_out and choice == "trafilatura" and holds_a_layouts_article(r_text, t_text):
        choice = "readability"
    kept = t_text if choice == "trafilatura" else r_text
    if words(kept) < SHORT_SHINGLES or not words(t_text):
        # precision mode sometimes keeps nothing of a plain page, and readability only a
        # "skip to content" link: trafilatura's balanced mode reads such pages, unless
        # readability found a real article that balanced mode buries in other text
        retry = balanced  # asked already when precision's text looked short: the same call gives the same text
        if retry is None:
            retry = _stage(
                result,
                "trafilatura-balanced",
                "the shorter text is kept",
                _trafilatura,
                tree,
                url,
                False,
                True,
                comments,
            )
        b_text = _doc_text(retry)
        if words(b_text) > words(kept) and not buries(b_text, kept):
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


def _use_trafilatura(result, doc, tree, url, fmt, t_text, page_markup=True):
    """trafilatura's text is the result. It is rendered from the page's own markup where
    that gives the same words (project.py), once the pipeline is done (_finish_trafilatura):
    a later stage may still take another extractor's text instead. Not on a product page,
    whose text adds what the markup does not say, nor with readers' comments, which
    trafilatura puts after the article under a heading of its own."""
    result["extractor"] = "trafilatura"
    comments = bool(doc.body.xpath("*[@%s]" % COMMENTS_MARK))  # the marks go with the chrome
    if _drop_comment_chrome(doc):
        t_text = _doc_text(doc)
    result["text"] = t_text
    result["_trafilatura"] = (doc, tree, url, t_text, page_markup and not comments)


def _finish_trafilatura(result, fmt):
    doc, tree, url, t_text, page_markup = result["_trafilatura"]
    if page_markup:
        body = tree.find(".//body")
        root = _stage(
            result,
            "page-markup",
            "trafilatura's own tree is rendered",
            _projected,
            tree if body is None else body,
            t_text,
            url,
        )
        if root is not None:
            result["text"] = _stage(result, "render", "plain-text fallback", _render_html_root, root, fmt, None) or ""
            if result["text"].strip():
                return
    if fmt == "text":
        result["text"] = t_text
        return
    _stage(result, "links", "markdown without links", _attach_links, doc.body, tree, url)
    result["text"] = _stage(result, "render", "plain-text fallback", _render_trafilatura, doc, fmt) or ""


def _projected(body, t_text, url):
    from .chrome import strip
    from .project import project

    root = project(body, t_text, url)
    if root is not None:
        strip(root)  # the docs generators' furniture (chrome.py)
    return root


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


def _metadata(tree, url):
    from .meta import page_metadata

    meta = page_metadata(tree, url)
    for m in tree.iterfind(".//meta"):
        if (m.get("property") or m.get("name") or "").strip().lower() == "og:type":
            meta["_og_type"] = m.get("content")
            break
    return meta


def _region(tree, url=None, teasers=False, document=False):
    from .chrome import strip
    from .region import main_region

    root = main_region(tree, url=url, teasers=teasers, document=document)
    if root is not None:
        strip(root)  # the docs generators' furniture (chrome.py)
    return root


def _trafilatura(tree, url, precision=True, fast=True, comments=False):
    from .imports import core
    from .trafilatura_fast import install_once

    bare_extraction = core().bare_extraction
    install_once()  # its XPaths' regex tests, asked only where they can hold

    # Links off: with include_links trafilatura keeps link-dense blocks and loses ~0.06 F1
    # on the benchmark; links are put back afterwards for markdown/html (_attach_links).
    # Metadata off: meta.py does it in ~1 ms instead of ~7 ms, and states no guesses.
    # Not the "python" format: that one also writes the body and the comments as text
    # (xmltotxt, ~0.7 ms a call), which nothing reads: the text is rendered from doc.body.
    doc = bare_extraction(
        tree,
        url=url,
        output_format="txt",
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

# The comment section's own furniture, not anyone's comment: its count ("2 comments",
# "10 thoughts on ..."), the form's prompts and notices, reply and quote buttons,
# "comments are closed". Matched on a short element's whole text only.
COMMENT_CHROME = (
    r"(\W*(\d+|no|one)\s+(comments?|responses?|replies|thoughts?|trackbacks?)\b.*|comments?\W*|"
    r"(this (article|story|post|entry) has )?no comments( yet)?\W*|there are no comments( added)? yet\W*|"
    r"be the first to (post a |leave a |add a )?comment\b.*|"
    r"(leave|post|add|write|submit)( a| your| own| new)* (reply|comment|response)\b.*|"
    r".*comments (are|have (now )?been) closed.*|report (this comment |this )?(as )?(inappropriate|abuse)\W*|"
    r"vote on this comment\b.*|\d+ agree \| \d+ disagree|"
    r".*(must|need to) (be )?(log(ged)? ?in|sign(ed)? ?in|registered)\b.*|(log ?in|sign ?in|register) to (leave|post|add)\b.*|"
    r".*(want to join the discussion|feel free to contribute|join the conversation).*|"
    r".*your email( address)? will not be published.*|.*required fields are marked.*|\W*(reply|quote|share)\W*|"
    r"cancel reply|\W*(previous|older|newer|next) comments\W*|total comments \(\d+\)|no account\?.*)"
)
COMMENT_CHROME_WORDS = 25


def _append_comments(doc: Any) -> None:
    """The readers' comments trafilatura found, after the article under a heading of their
    own, so that a reader (or a model) can tell the article from what others said of it.
    The section's furniture (COMMENT_CHROME) is marked here and left out of the text
    given (_drop_comment_chrome); the decisions between extractors see it as before."""
    import re

    from lxml import etree

    comments, body = getattr(doc, "commentsbody", None), doc.body
    if comments is None or body is None or not len(comments) or not "".join(comments.itertext()).strip():
        return
    chrome = re.compile(COMMENT_CHROME, re.I)
    head = etree.SubElement(body, "head", rend="h2")
    head.text = COMMENTS_HEADING
    head.set(COMMENTS_MARK, "head")
    for child in list(comments):
        text = " ".join("".join(child.itertext()).split())
        if not text or (len(text.split()) <= COMMENT_CHROME_WORDS and chrome.fullmatch(text)):
            child.set(COMMENTS_MARK, "chrome")
        elif child.tail and chrome.fullmatch(" ".join(child.tail.split())):
            child.set(COMMENTS_MARK, "tail")  # a "Reply" button after the comment's text
        body.append(child)


def _drop_comment_chrome(doc: Any) -> bool:
    """Remove the comment section's marked furniture from doc, and the section's heading
    when no comment is left ("0 comments" and a reply form are not what the page says).
    Whether anything was removed."""
    body = getattr(doc, "body", None)
    if body is None:
        return False
    marked = body.xpath("*[@%s]" % COMMENTS_MARK)
    if not marked:
        return False
    dropped = False
    for el in marked:
        if el.get(COMMENTS_MARK) == "chrome":
            body.remove(el)  # its tail goes too: after furniture, what follows is furniture or space
            dropped = True
        elif el.get(COMMENTS_MARK) == "tail":
            el.tail = None
            dropped = True
    head = marked[0] if marked[0].get(COMMENTS_MARK) == "head" else None
    if head is not None and head.getnext() is None:
        body.remove(head)
        dropped = True
    for el in marked:  # the marks are notes between stages, not the page's: html output shows none
        el.attrib.pop(COMMENTS_MARK, None)
    return dropped


def _readability(tree, url):
    """readability-lxml on a copy of the tree; returns the summary's root element or None."""
    import copy

    import lxml.html
    from lxml import etree

    from .imports import readability
    from .readability_fast import install, install_block_test

    rd = readability()
    install(rd)  # its text cleaning, the same strings in less time (readability_fast.py)
    install_block_test(rd)  # its test of a <div> for blocks, the same answers in less time
    base: Any = rd.Document  # a class of a module loaded at run time: no static type

    class _Doc(base):
        # readability's default parse runs lxml's html Cleaner (~7 ms a page) and, on
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
    from .chrome import strip
    from .region import absolute_links

    strip(root)  # the docs generators' furniture (chrome.py)

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
