"""A downloaded page's item: the text read from its body (document.py) with its metadata,
the answer's window and outline, and its warnings; or the item of a page that failed.

Its own module because the fetch (pipeline.py) and the reading child (child/main.py) both
build items, and the child must not import the pipeline that starts it.
"""

from __future__ import annotations

from ...errors import WorkerError, error_object
from .document import document

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from ..net.client import Response
    from ..spec import Spec
    from .doc import Doc


# An item's error shows the fields a reader acts on; a batch error's own extras (results...) stay out.
ITEM_ERROR_FIELDS = (
    "code",
    "message",
    "status",
    "retry_after",
    "reason",
    "vendor",
    "rule",
    "agent",
    "robots_url",
    "payment_headers",
    "payment_details",
    "hint",
    "retryable",
)


def error_item(url: str, exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, WorkerError):
        err = exc.to_dict(ITEM_ERROR_FIELDS)
    else:
        err = error_object(
            "internal",
            "internal error: %s: %s" % (type(exc).__name__, " ".join(str(exc).split())[:200]),
            fields=ITEM_ERROR_FIELDS,
        )
    return {"url": url, "ok": False, "error": err}


def build_item(url: str, resp: Response | Doc, spec: Spec) -> dict[str, Any]:
    from ..answer import window

    if spec.revalidate is not None and getattr(resp, "status", None) == 304:
        from ..net import freshness

        # The site confirmed the cached copy: nothing to extract (worker.tools.fetch_cache serves it).
        headers = getattr(resp, "headers", None) or {}
        return {"url": url, "ok": True, "not_modified": True, "status": 304, "_http": freshness.describe(headers)}

    if hasattr(resp, "document"):  # a site adapter's answer (worker.pages.sites.Doc)
        text, fmt, meta, extractor, warnings = resp.document(spec.fmt)
    else:
        text, fmt, meta, extractor, warnings = document(resp, spec.fmt)
        warnings = list(getattr(resp, "adapter_warnings", ())) + warnings
    if fmt != "raw":
        from ..extract.invisible import clean_text

        text = clean_text(text)
        for key in ("title", "author", "published", "site_name", "language", "canonical_url", "description"):
            if isinstance(meta.get(key), str):
                meta[key] = clean_text(meta[key])
    piece, truncated, nxt = window.window(text, spec.start_index, spec.max_chars)
    item = {
        "url": url,
        "ok": True,
        "final_url": resp.final_url,
        "status": resp.status,
        "content_type": resp.content_type or None,
        "bytes": getattr(resp, "nbytes", None) or len(resp.body),
    }
    for key in ("title", "author", "published", "site_name", "language", "canonical_url", "description"):
        item[key] = meta.get(key)
    item.update(
        {
            "format": fmt,
            "content": piece,
            "total_chars": len(text),
            "start_index": min(spec.start_index, len(text)),
            "truncated": truncated,
            "next_start_index": nxt,
            "outline": window.outline(text, fmt),
            "extractor": extractor,
            "page_type": meta.get("page_type"),
        }
    )
    if meta.get("page_data"):
        item["page_data"] = meta["page_data"]
    if meta.get("script_built"):  # almost no text, and scripts that may build it: --render auto renders it
        item["script_built"] = True
    if "hidden_removed_chars" in meta:
        item["hidden_removed_chars"] = meta["hidden_removed_chars"]
    if meta.get("charset"):
        item["charset"] = meta["charset"]
    if meta.get("pages"):
        item["pages"] = meta["pages"]
    adapter_meta = getattr(resp, "meta", None)  # a site adapter's Doc has one
    if adapter_meta:
        item["meta"] = adapter_meta
    if resp.redirects:
        item["redirects"] = list(resp.redirects)
    if resp.truncated:
        item["body_truncated"] = True
        warnings.append("the body was cut at the %d-byte cap; the text covers only its start" % len(resp.body))
    if spec.start_index > len(text):
        warnings.append("--start-index %d is past the end of the text (%d characters)" % (spec.start_index, len(text)))
    if warnings:
        item["warnings"] = warnings
    headers = getattr(resp, "headers", None)  # a site adapter's Doc has none
    if spec.revalidate is not None and headers is not None and getattr(resp, "url", None) == url:
        from ..net import freshness

        # only the page's own response: an llms.txt or a markdown alternate has validators of its own URL
        item["_http"] = freshness.describe(headers)
    if meta.get("wall"):  # a login wall or paywall: an error, with the public part kept
        err = error_item(url, meta["wall"])
        item = dict(url=url, ok=False, error=err["error"], **{k: v for k, v in item.items() if k not in ("url", "ok")})
    return item


def item_of(url: str, resp: Response | Doc, spec: Spec) -> dict[str, Any]:
    """The item for a downloaded page, read in this process; never raises for the page's own failure
    but MemoryError (the reading child answers it as too_large)."""
    try:
        return build_item(url, resp, spec)
    except MemoryError:
        raise
    except Exception as exc:
        return error_item(url, exc)
