"""arXiv papers: title, authors, date and abstract from the export API (Atom), then the
paper's text from its HTML version when there is one, else from the PDF.

The paper is downloaded here (a pool thread); it is turned into text in
Doc.render, on the calling thread, where the extractor and pypdf may run.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from . import Doc, Fallback
from .pieces import heading

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from urllib.parse import SplitResult
    from xml.etree.ElementTree import Element

    from ..net.client import Response
    from ..read.doc import Rendered
    from . import Context

NAME = "arxiv"
API = "https://export.arxiv.org/api"
HTML = "https://arxiv.org/html"
PDF = "https://arxiv.org/pdf"
ATOM = "{http://www.w3.org/2005/Atom}"
_ID = re.compile(r"^(\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(v\d+)?$")


def paper_id(path: str) -> str | None:
    segs = [s for s in path.split("/") if s]
    if len(segs) < 2 or segs[0] not in ("abs", "pdf", "html"):
        return None
    ident = "/".join(segs[1:])
    if ident.endswith(".pdf"):
        ident = ident[:-4]
    return ident if _ID.match(ident) else None


def parse_atom(body: bytes) -> tuple[str, list[str], str, str, str, str | None]:
    """(title, authors, published, updated, abstract, category) of the feed's first entry."""
    import xml.etree.ElementTree as ET

    try:
        root = ET.fromstring(body)
    except ET.ParseError:
        raise Fallback("arxiv: the API did not answer an Atom feed") from None
    entry = root.find(ATOM + "entry")
    if entry is None or entry.find(ATOM + "title") is None:
        raise Fallback("arxiv: the API knows no such paper")

    def text(el: Element | None) -> str:
        return " ".join((el.text or "").split()) if el is not None else ""

    authors = [text(a.find(ATOM + "name")) for a in entry.findall(ATOM + "author")]
    cat = entry.find("{http://arxiv.org/schemas/atom}primary_category")
    return (
        text(entry.find(ATOM + "title")),
        [a for a in authors if a],
        text(entry.find(ATOM + "published")),
        text(entry.find(ATOM + "updated")),
        text(entry.find(ATOM + "summary")),
        cat.get("term") if cat is not None else None,
    )


def head_text(ident: str, title: str, authors: list[str], published: str, abstract: str, md: bool) -> str:
    lines = [
        heading(1, title, md),
        "",
        ("- " if md else "") + "Authors: " + ", ".join(authors),
        ("- " if md else "") + "Published: " + published,
        ("- " if md else "") + "arXiv: " + ident,
        "",
        heading(2, "Abstract", md),
        "",
        abstract,
    ]
    return "\n".join(lines)


def read(ctx: Context, url: str, parts: SplitResult) -> Doc:
    ident = paper_id(parts.path)
    if ident is None:
        raise Fallback("arxiv: %s is not an abstract or PDF URL" % url)
    api = ctx.base("apiBase", API)
    resp = ctx.get("%s/query?id_list=%s" % (api, quote(ident, safe="")), accept="application/atom+xml")
    if resp.status >= 400:
        raise Fallback("arxiv: the API answered HTTP %d" % resp.status)
    title, authors, published, updated, abstract, category = parse_atom(resp.body)
    head = head_text(ident, title, authors, published, abstract, ctx.md)
    ctx.meta.update(kind="paper", id=ident, category=category, updated=updated or None)
    paper: Response | None
    paper = ctx.get("%s/%s" % (ctx.base("htmlBase", HTML), quote(ident)), accept="text/html")
    source: str | None = "html"
    if paper.status >= 400 or "html" not in (paper.content_type or "").lower():
        paper = ctx.get("%s/%s" % (ctx.base("pdfBase", PDF), quote(ident)), accept="application/pdf")
        source = "pdf"
    if paper.status >= 400:
        paper, source = None, None
    ctx.meta["text_source"] = source

    def render(fmt: str) -> Rendered:
        warnings: list[str] = []
        if paper is None:
            return (
                head + "\n",
                fmt,
                {},
                None,
                ["arxiv: neither an HTML version nor the PDF could be read; only the abstract is given"],
            )
        from ..read.document import document

        try:
            body, _fmt, _meta, _ex, more = document(paper, fmt if source == "html" else "text")
        except Exception as exc:  # an unreadable PDF: the abstract is still an answer
            return head + "\n", fmt, {}, None, ["arxiv: the paper's %s could not be read (%s)" % (source, exc)]
        warnings.extend(more)
        return (
            "%s\n\n%s\n\n%s\n" % (head, heading(2, "Paper", fmt == "markdown"), body.strip()),
            fmt,
            {},
            None,
            warnings,
        )

    return Doc(
        url,
        head + "\n",
        fmt=ctx.fmt,
        title=title,
        author=", ".join(authors) or None,
        published=published or None,
        description=abstract[:300] or None,
        render=render,
        nbytes=len(paper.body) if paper is not None else 0,
    )
