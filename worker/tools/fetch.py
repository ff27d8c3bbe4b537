"""The fetch command: URLs in, one item per URL out (in input order).

``run_fetch`` checks the request, serves each URL from the cache when it can
and asks the provider for the rest; the download-and-extract pipeline behind the
local provider is worker.pages.pipeline.
"""

from __future__ import annotations

import os
import time

from ..errors import WorkerError
from ..pages.net import DEFAULT_MAX_BYTES
from ..pages.spec import DEFAULT_MAX_CHARS
from . import textview
from .fetch_cache import cached_fetch

MAX_URLS = 100

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Mapping
    from typing import Any

    from ..request import FetchRequest
    from ..runtime import Call


def batch_error(items: list[dict[str, Any]]) -> WorkerError:
    """The WorkerError for a batch in which every URL failed (items ride along)."""
    from collections import Counter

    codes = Counter(it["error"]["code"] for it in items)
    code, _ = codes.most_common(1)[0]
    if len(codes) > 1 and list(codes.values()).count(codes[code]) > 1:
        code = "network"  # no single most common cause
    first = next(it for it in items if it["error"]["code"] == code) if code in codes else items[0]
    if len(items) == 1:
        message = first["error"]["message"]
    elif len(codes) == 1:
        message = "all %d URLs failed (%s); first: %s" % (len(items), code, first["error"]["message"])
    else:
        message = "all %d URLs failed (%s); first: %s" % (
            len(items),
            ", ".join("%s x%d" % kv for kv in codes.most_common()),
            items[0]["error"]["message"],
        )
    extra = {"results": items}
    statuses = {it["error"].get("status") for it in items}
    if code == "http_error" and len(statuses) == 1 and None not in statuses:
        extra["status"] = statuses.pop()
    retryable = any(it["error"].get("retryable") for it in items if it["error"]["code"] == code)
    return WorkerError(code, message, hint=first["error"].get("hint"), retryable=retryable, **extra)


def settle(
    request: FetchRequest, settings: Mapping[str, Any], environ: Mapping[str, str] | None = None
) -> FetchRequest:
    """The request with what the config and the environment decide filled in; the providers get this one."""
    environ = os.environ if environ is None else environ
    settled = dict(
        allow_private=bool(request.allow_private or settings.get("allowPrivate")),
        max_chars_given=request.max_chars is not None,  # providers with their own default (Exa) need to know
        max_chars=request.max_chars
        if request.max_chars is not None
        else settings.get("fetchMaxChars") or DEFAULT_MAX_CHARS,
        max_bytes=int(settings.get("fetchMaxBytes") or DEFAULT_MAX_BYTES),
        respect_robots=bool(request.respect_robots or settings.get("robots")),
        robots_agent=settings.get("robotsAgent") if (request.respect_robots or settings.get("robots")) else None,
        user_agent=settings.get("userAgent") or None,
        no_cache=bool(request.no_cache or settings.get("cache") is False),
        # auto, the default, stays None: the cache keys of calls that do not choose are what they were
        browser=settings.get("browser") or None,
        render=None
        if (request.render or settings.get("render") or "auto") == "auto"
        else (request.render or settings.get("render")),
    )
    if not request.no_adapters:
        # In the cache key: other endpoints, or a GitHub token (private repositories), are other answers.
        settled["sites"] = settings.get("sites") or None
        settled["github_auth"] = (
            bool(environ.get("GITHUB_TOKEN", "").strip() or environ.get("GH_TOKEN", "").strip()) or None
        )
    return request.replace(**settled)


def check_focus(focus: str | None) -> None:
    """--focus must hold something to look for, and no more than a query may."""
    from ..request import MAX_QUERY_CHARS

    if focus is None:
        return
    if not focus.strip():
        raise WorkerError("invalid_argument", "--focus is empty", hint="give the question or the words to look for")
    if len(focus) > MAX_QUERY_CHARS:
        raise WorkerError(
            "invalid_argument",
            "--focus is %d characters; the limit is %d" % (len(focus), MAX_QUERY_CHARS),
            hint="shorten it to the question itself",
        )


def check_find(find: tuple[str, ...]) -> None:
    """--find: at most MAX_TERMS texts, each with something to look for and no longer than MAX_TERM_CHARS."""
    from ..pages.answer.find import MAX_TERM_CHARS, MAX_TERMS

    if len(find) > MAX_TERMS:
        raise WorkerError(
            "invalid_argument", "--find given %d times; the limit is %d" % (len(find), MAX_TERMS), hint="look for fewer"
        )
    for text in find:
        if not text.split():
            raise WorkerError("invalid_argument", "--find is empty", hint="give the text to look for")
        if len(text) > MAX_TERM_CHARS:
            raise WorkerError(
                "invalid_argument",
                "--find is %d characters; the limit is %d" % (len(text), MAX_TERM_CHARS),
                hint="look for a shorter, distinctive part of it",
            )


def whole_pages(request: FetchRequest) -> FetchRequest:
    """What the provider is asked for: with --focus, --max-total-chars or --find, each page's whole text
    (cut here afterwards, so the cache holds a page once for every focus and budget); with --find from
    its start, since every occurrence in the page is looked for."""
    if not (request.focus or request.max_total_chars or request.find):
        return request
    from . import fit

    whole = request.replace(focus=None, max_total_chars=None, find=(), max_chars=fit.FULL_CHARS, max_chars_given=True)
    return whole.replace(start_index=0) if request.find else whole


def found(items: list[dict[str, Any]], request: FetchRequest) -> list[dict[str, Any]]:
    """Each page (its whole text) with ``find``: every occurrence of each --find text; then its text
    from --start-index on, as the provider would have given it."""
    if not request.find:
        return items
    from ..pages.answer import find

    out = []
    for item in items:
        content = item.get("content") if isinstance(item, dict) else None
        if not isinstance(content, str):
            out.append(item)
            continue
        item = dict(item, find=find.find_all(content, request.find, item.get("outline") or ()))
        if request.start_index:
            item["content"] = content[request.start_index :]
            item["start_index"] = min(request.start_index, len(content))
        out.append(item)
    return out


def fitted(items: list[dict[str, Any]], request: FetchRequest) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The provider's whole pages cut to --focus, --max-chars and --max-total-chars (as they came without them)."""
    if not (request.focus or request.max_total_chars or request.find):
        return items, None
    from . import fit

    return fit.fit_items(items, request.focus, int(request.max_chars or DEFAULT_MAX_CHARS), request.max_total_chars)


def run_fetch(request: FetchRequest, call: Call) -> dict[str, Any]:
    """The fetch payload for ``request`` (a worker.request.FetchRequest)."""
    from .. import config as config_mod

    urls = list(request.urls)
    if len(urls) > MAX_URLS:
        raise WorkerError(
            "invalid_argument",
            "%d URLs in one call; the limit is %d" % (len(urls), MAX_URLS),
            hint="split the URLs over several calls",
        )
    check_focus(request.focus)
    check_find(request.find)
    cfg = config_mod.load(request)
    spec = config_mod.select(cfg, "fetch", request.provider)
    request = settle(request, getattr(cfg, "settings", None) or {})
    started = time.monotonic()
    answer = cached_fetch(urls, whole_pages(request), call, cfg, spec)
    items, budget = fitted(found(answer.get("results", []), request), request)
    meta = dict(answer.get("meta", {}))
    if request.focus or request.max_total_chars or request.find:
        meta["max_chars"] = request.max_chars  # the provider was asked for whole pages
    if budget is not None:
        meta["budget"] = budget
    meta.setdefault("elapsed_ms", int((time.monotonic() - started) * 1000))
    meta["ok"] = sum(1 for it in items if it.get("ok"))
    meta["failed"] = len(items) - meta["ok"]
    if items and meta["ok"] == 0:
        raise batch_error(items)
    payload = {
        "tool": "fetch",
        "provider": spec.name,
        "provider_type": spec.type,
        "results": items,
        "meta": meta,
        "warnings": list(call.warnings) + list(answer.get("warnings", [])),
    }
    if "raw" in answer:  # the provider's own response (Exa), for hosts that need more than we map
        payload["raw"] = answer["raw"]
    payload["text"] = textview.fetch_text(payload)
    return payload
