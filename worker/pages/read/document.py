"""A downloaded body read as text: an HTML page through the extractor (extract/), a PDF's
text layer, text and markdown as served.

Its own module because the item builder (item.py) and a site adapter that downloads a page
of its own (sites/arxiv.py) both read bodies, and the adapters must not import the fetch
that calls them.
"""

from __future__ import annotations

from ...errors import WorkerError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from ..net.client import Response

EXTRACTOR_FORMATS = ("markdown", "text", "html")


def document(resp: Response, fmt: str) -> tuple[str, str, dict[str, Any], str | None, list[str]]:
    """(text, out_format, metadata dict, extractor name, warnings) for a downloaded body."""
    from . import content

    ctype = resp.content_type
    kind = content.kind_of(ctype) or content.kind_of(content.sniff(resp.body))
    if kind == "binary":
        raise content.unsupported(ctype or content.sniff(resp.body))
    warnings = []
    if kind == "pdf":
        if resp.truncated:
            raise WorkerError(
                "too_large",
                "the PDF is larger than the %d-byte cap" % len(resp.body),
                hint="a PDF cannot be read in part; download it another way",
            )
        text, meta = content.pdf_text(resp.body)
        if not text.strip():
            warnings.append("the PDF has no text layer (scanned images?)")
        return text, "text", meta, "pypdf", warnings
    decoded, codec, source = content.decode(resp.body, ctype, kind)
    meta = {"charset": codec}
    if kind == "html" and fmt in EXTRACTOR_FORMATS:
        from ..checks import page as pagecheck
        from ..extract import linear
        from ..extract.core import extract

        # Invisible characters are removed from the output (build_item), not from the
        # page: over a whole page that cost a millisecond or more, and what they could
        # hide from a check (a payload spelled "ig\u200bnore") is normalised where it is read.
        pagecheck.before(resp, decoded)  # a bot challenge raises here, whatever the status
        if linear.too_many_elements(decoded):
            result = linear.extract(decoded, fmt)
        else:
            result = extract(decoded, url=resp.final_url, fmt=fmt)
        for key in ("title", "author", "published", "site_name", "language", "canonical_url", "description"):
            if result.get(key):
                meta[key] = result[key]
        text = result.get("text") or ""
        meta["page_type"] = result.get("page_type")
        meta["hidden_removed_chars"] = result.get("hidden_removed_chars") or 0
        warnings.extend(result.get("warnings") or [])
        text, extractor = pagecheck.after(resp, decoded, fmt, text, result.get("extractor"), meta, warnings)
        if not text.strip():
            warnings.append("no main text found (the page may need JavaScript, or be empty)")
        return text, fmt, meta, extractor, warnings
    if fmt == "raw":
        return decoded, "raw", meta, None, warnings
    mt = content.media_type(ctype)
    out = "markdown" if mt in ("text/markdown", "text/x-markdown") else "text"
    if kind == "html":  # --format raw handled above; nothing else reaches here
        out = "raw"
    title = content.text_title(decoded, kind) if out == "markdown" else None
    if title:
        meta["title"] = title
    extractor = "source-markdown" if getattr(resp, "source_markdown", False) else None
    if extractor and getattr(resp, "page_url", None):
        warnings.append("read from the markdown version the page names: %s" % resp.final_url)
    return decoded, out, meta, extractor, warnings
