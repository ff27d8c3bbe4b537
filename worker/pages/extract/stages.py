"""The extraction pipeline's stages: each reads the parsed page (or another stage's
result) and gives a value: trafilatura's document, readability's root, the main
region, the page's metadata, a thread's posts, a rendering. core.py calls them by
module attribute (``stages.trafilatura_doc``), so a test replaces one stage by name.

Heavy libraries are imported inside the functions: importing this module costs nothing.
"""

from __future__ import annotations

from . import thresholds as th
from .tree import drop

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from lxml.html import HtmlElement  # no stubs: Any to the checker


def drop_code(tree: HtmlElement) -> None:
    """Drop scripts and stylesheets once the stages that read them (hidden text, metadata,
    page type) are done. Every extractor drops them too, but only after copying the
    tree: on a page of many scripts, each copy and each count of the body's words cost
    more for them. JSON-LD stays: the product rules read its description."""
    for el in list(tree.iter("script", "style")):
        if el.tag == "script" and (el.get("type") or "").strip().lower() == "application/ld+json":
            continue
        drop(el)  # the text after it is the page's: kept


def status_messages(tree: HtmlElement) -> None:
    # within the work budget only: the search costs ~1 ms a page, 150 ms on a 5 MB one;
    # after the scripts are gone (their code holds "error" and "again": half the time)
    from .hidden import drop_status_messages

    body = tree.find(".//body")
    drop_status_messages(body if body is not None else tree)


def permalink_marks(tree: HtmlElement) -> None:
    from .chrome import permalink_marks

    permalink_marks(tree)


def manpage_header(tree: HtmlElement) -> None:
    from .chrome import manpage_header

    manpage_header(tree)


def marked_thread(root: HtmlElement) -> HtmlElement | None:
    from .thread import thread_root

    return thread_root(root)


def structured_thread(root: HtmlElement) -> HtmlElement | None:
    from .thread import thread_by_structure

    return thread_by_structure(root)


def prose_before_posts(root: HtmlElement) -> int:
    from . import thread

    return thread.prose_before_posts(root, th.T.PROSE_WORDS)


def projected(body: HtmlElement, t_text: str, url: str | None) -> HtmlElement | None:
    from .chrome import strip
    from .project import project

    root = project(body, t_text, url)
    if root is not None:
        strip(root)  # the docs generators' furniture (chrome.py)
    return root


def doc_text(doc: Any) -> str:
    """The plain text of trafilatura's result, rendered by our renderer from a copy of its tree
    (so text and markdown are one rendering of one tree, with the page's own characters:
    trafilatura's text output unescapes entities the page escaped)."""
    if doc is None or doc.body is None:
        return ""
    import copy

    from .render import render

    return render(traf_html(copy.deepcopy(doc.body)), markdown=False)


def traf_html(body: Any) -> HtmlElement:
    """trafilatura's XML body as an HTML element tree (converted in place)."""
    from trafilatura.htmlprocessing import convert_to_html

    root = convert_to_html(body)
    for el in root.iter("pre"):  # trafilatura's <code> becomes <pre> even inline
        parent = el.getparent()
        if parent is not None and parent.tag not in ("body", "div", "blockquote", "li") and "\n" not in (el.text or ""):
            el.tag = "code"
    return root


def metadata(tree: HtmlElement, url: str | None) -> tuple[dict[str, Any], str | None]:
    """(the page's metadata for the answer, its og:type for the page type)."""
    from .meta import page_metadata

    meta = page_metadata(tree, url)
    for m in tree.iterfind(".//meta"):
        if (m.get("property") or m.get("name") or "").strip().lower() == "og:type":
            return meta, m.get("content")
    return meta, None


def region_root(
    tree: HtmlElement, url: str | None = None, teasers: bool = False, document: bool = False
) -> HtmlElement | None:
    from .chrome import strip
    from .region import main_region

    root = main_region(tree, url=url, teasers=teasers, document=document)
    if root is not None:
        strip(root)  # the docs generators' furniture (chrome.py)
    return root


def trafilatura_doc(
    tree: HtmlElement, url: str | None, precision: bool = True, fast: bool = True, comments: bool = False
) -> Any:
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
        from . import comment_section

        comment_section.append(doc)
    return doc


def readability_root(tree: HtmlElement, url: str | None) -> HtmlElement | None:
    """readability-lxml on a copy of the tree; returns the summary's root element or None."""
    import copy

    import lxml.html
    from lxml import etree

    from .imports import readability
    from .readability_fast import install, install_block_test, install_quiet_steps

    rd = readability()
    install(rd)  # its text cleaning, the same strings in less time (readability_fast.py)
    install_block_test(rd)  # its test of a <div> for blocks, the same answers in less time
    install_quiet_steps(rd)  # its pass over unlikely candidates and its debug messages, in less time
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


def render_trafilatura(doc: Any, fmt: str) -> str:
    root = traf_html(doc.body)
    if fmt == "markdown":
        # our renderer, not trafilatura's: one markdown for every extractor, escaped only
        # where CommonMark would read markup (trafilatura escapes every "_" and "*")
        from .render import render

        return render(root, markdown=True)
    from lxml.etree import tostring

    html = tostring(root, encoding="unicode", method="html")
    return strip_html_wrapper(html)


def render_root(root: HtmlElement | None, fmt: str, plain: str | None) -> str:
    from .render import render

    if root is None:
        return ""
    if fmt == "text":
        return plain if plain is not None else render(root, markdown=False)
    if fmt == "markdown":
        return render(root, markdown=True)
    import lxml.html

    return lxml.html.tostring(root, encoding="unicode", method="html")


def strip_html_wrapper(html: str | None) -> str:
    import re

    m = re.search(r"<body[^>]*>(.*)</body>", html or "", re.S)
    return (m.group(1) if m else (html or "")).strip()


def longer_article(tree: HtmlElement, url: str | None, a_text: str, comments: bool) -> tuple[Any, str] | None:
    """(doc, text) of trafilatura in balanced mode with its fallbacks, when that text is
    ``longer_than`` a_text (all of it, not its prose alone), else None."""
    from .decide import longer_than

    doc = trafilatura_doc(tree, url, False, False, comments)
    text = doc_text(doc)
    return (doc, text) if longer_than(text, a_text, prose=False) else None
