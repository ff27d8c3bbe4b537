"""--fetch-top: fetch the top N search results and attach a bounded excerpt to each.

Enrichment is a bonus on a search that already succeeded, so nothing here may
turn it into a failed call: a source that fails keeps its search snippet and
gains ``fetch_error``; if the fetch pipeline itself fails or overruns, every
source is marked and the search answer goes out as it is.  The fetch runs on
its own thread and is abandoned (it is a daemon; the process exits soon) when
it outlives its bound, which always ends before the call's own deadline.
"""

from __future__ import annotations

import threading

from ..errors import WorkerError, error_object
from .fit import FULL_CHARS

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Callable
    from typing import Any

    from ..request import SearchRequest
    from ..runtime import Call

GRACE_S = 1.0  # beyond the per-source timeout, for fetch_many's own bookkeeping
RESERVE_S = 0.5  # kept back from the call's deadline for rendering the answer


def excerpt(text: object, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters at a word boundary, whitespace folded."""
    text = " ".join(str(text or "").split())
    if len(text) <= limit:
        return text, False
    cut = text.rfind(" ", 0, limit - 3)
    if cut < limit // 2:
        cut = limit - 3
    return text[:cut].rstrip() + "...", True


def focused_excerpt(text: str, query: str, limit: int) -> dict[str, Any]:
    """A source's excerpt fields: the passages of ``text`` most relevant to the query, whitespace
    folded, each with its offset in the page; the page's start when none mentions it."""
    from ..pages.answer import focus, window

    view = focus.focused(text, query, limit)
    if view is None:
        cut, truncated = excerpt(text, limit)
        nxt = window.window(text, 0, limit)[2] if truncated else None
        return {"excerpt": cut, "excerpt_truncated": truncated, "next_start_index": nxt}
    return {
        "excerpt": " ".join(view["content"].split()),
        "excerpt_truncated": view["next_start_index"] is not None,
        "excerpt_passages": view["passages"],
        "next_start_index": view["next_start_index"],
    }


def _limits(texts: list[Any], limit: int, total: int | None) -> list[int]:
    """Each source's excerpt size: ``limit``, and within ``total`` for all of them when it is given."""
    from .fit import char_limits

    readable = [t if isinstance(t, str) else "" for t in texts]
    return [max(n, 1) for n in char_limits(readable, limit, total)]


def _fetch_bounded(
    fetch_many: Callable[..., list[dict[str, Any]]], urls: list[Any], call: Call, wait_s: float, **kw: Any
) -> list[dict[str, Any]]:
    """fetch_many's items, or raise WorkerError("timeout") when it outlives ``wait_s``."""
    box: dict[str, Any] = {}
    done = threading.Event()

    def target():
        try:
            box["items"] = fetch_many(urls, call, **kw)
        except BaseException as exc:  # reported to the caller below
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=target, name="websearch-enrich", daemon=True).start()
    if not done.wait(wait_s):
        raise WorkerError("timeout", "the pages did not arrive within %.1f s" % wait_s)
    if "error" in box:
        raise box["error"]
    return box["items"]


def _robots(request: SearchRequest, call: Call, settings: dict[str, Any]) -> Any:
    """The robots.txt check when the config asks for it ("robots": true), else None."""
    if not settings.get("robots"):
        return None
    from ..pages.fetch.robots import RobotsCheck

    use_cache = not request.no_cache and settings.get("cache") is not False
    return RobotsCheck(settings.get("robotsAgent"), call.state_dir, use_cache, call)


def _mark_failed(result: dict[str, Any], code: str, message: object) -> None:
    result["fetched"] = False
    result["fetch_error"] = error_object(code, " ".join(str(message).split())[:300], fields=("code", "message"))


def enrich(
    results: list[dict[str, Any]],
    request: SearchRequest,
    call: Call,
    settings: dict[str, Any] | None = None,
    adapters: bool = False,
) -> list[str]:
    """Fetch the top ``request.fetch_top`` results in place; returns the warnings to add.

    ``settings`` is the config file's top level: its ``allowPrivate`` lifts the
    private-address guard here as it does for fetch.  ``adapters``: GitHub and Stack
    Exchange pages read through their APIs, as fetch reads them (the config's ``sites``).
    """
    n = min(int(request.fetch_top or 0), len(results))
    if n <= 0:
        return []
    top = results[:n]
    per_source = float(request.source_timeout or 6.0)
    limit = int(request.excerpt_chars or 600)
    left = call.remaining()
    if left is not None:
        per_source = max(0.1, min(per_source, left - RESERVE_S - GRACE_S))
    wait_s = per_source + GRACE_S
    try:
        from ..pages.pipeline import fetch_many

        items = _fetch_bounded(
            fetch_many,
            [r.get("url") for r in top],
            call,
            wait_s,
            fmt="text",
            max_chars=FULL_CHARS,  # the whole text: the excerpt is chosen from all of it
            per_url_timeout=per_source,
            allow_private=bool(request.allow_private or (settings or {}).get("allowPrivate")),
            concurrency=n,
            robots=_robots(request, call, settings or {}),
            user_agent=(settings or {}).get("userAgent") or None,
            adapters=adapters,
            sites=(settings or {}).get("sites") if adapters else None,
        )
        if not isinstance(items, list) or len(items) != n:
            raise WorkerError(
                "internal",
                "the fetch pipeline returned %s items for %d urls"
                % (len(items) if isinstance(items, list) else "no", n),
            )
    except WorkerError as exc:
        items = [{"ok": False, "error": exc.to_dict()}] * n
    except Exception as exc:  # a bug in fetching must not cost the search answer
        items = [{"ok": False, "error": error_object("internal", "%s: %s" % (type(exc).__name__, exc))}] * n

    warnings = []
    texts = [it.get("content") if isinstance(it, dict) and it.get("ok") else None for it in items]
    limits = _limits(texts, limit, request.max_total_chars)
    for i, (result, item, budget) in enumerate(zip(top, items, limits), 1):
        item = item if isinstance(item, dict) else {}
        content = item.get("content") if item.get("ok") else None
        if isinstance(content, str) and content.strip():
            result.update(focused_excerpt(content, request.query, budget))
            result["total_chars"] = item.get("total_chars")
            result["fetched"] = True
            stated = item.get("canonical_url")
            if isinstance(stated, str) and stated.startswith(("http://", "https://")):
                result["canonical_url"] = stated  # what the page says it is: dedupe merges AMP/mobile copies by it
            continue
        if item.get("ok"):
            code, message = "unsupported_content", "the page had no extractable text"
        else:
            err: Any = item.get("error") if isinstance(item.get("error"), dict) else {}  # an object, by the test
            code, message = str(err.get("code") or "internal"), err.get("message") or "no detail"
        _mark_failed(result, code, message)
        warnings.append("source %d: %s; showing the search snippet only" % (i, code))
    return warnings
