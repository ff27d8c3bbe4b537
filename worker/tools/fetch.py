"""The fetch command: URLs in, one item per URL out (in input order).

``run_fetch`` checks the request, serves each URL from the cache when it can
and asks the provider for the rest; the download-and-extract pipeline behind the
local provider is worker.pages.download.
"""

from __future__ import annotations

import os
import time

from ..errors import WorkerError
from ..pages.download import DEFAULT_MAX_CHARS, error_item
from ..pages.net import DEFAULT_MAX_BYTES
from . import textview

MAX_URLS = 100

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Mapping
    from typing import Any

    from ..config import Config
    from ..providers.base import ProviderSpec
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


def cached_fetch(urls: list[str], request: FetchRequest, call: Call, cfg: Config, spec: ProviderSpec) -> dict[str, Any]:
    """The provider's answer for ``urls``, each URL served from the cache when it can be.

    Cached per URL, so a later batch reuses any of its URLs; only successful
    items are stored.  The provider is built only when some URL misses.
    """
    from ..providers import registry
    from ..state import cache

    call.state_dir = cache.resolve_dir(request, cfg.settings)
    store = cache.open_store(request, cfg.settings, call)
    fields = cache.request_fields(request, exclude=("urls",))
    keys = [cache.make_key("fetch", spec, dict(fields, url=url)) for url in urls]
    hits = store.get_many(set(keys))
    misses = list(dict.fromkeys(url for url, key in zip(urls, keys) if key not in hits))
    fresh, meta, warnings, waited, raw = {}, {}, [], 0, None
    if misses:
        from ..state import ratelimit

        provider = registry.build(spec, call, "fetch")
        answer = provider.fetch(misses, request)
        meta, warnings = dict(answer.get("meta", {})), list(answer.get("warnings", []))
        raw = answer.get("raw")
        fresh = dict(zip(misses, answer.get("results", [])))  # items come in input order
        store.put_many([(keys[urls.index(url)], "fetch", spec.name, it) for url, it in fresh.items() if it.get("ok")])
        waited = ratelimit.waited_ms()
    store.close()
    items = []
    for url, key in zip(urls, keys):
        if key in hits:
            item, age = hits[key]
            item = dict(item, cached=True, cache_age_s=round(age, 1))
        else:
            item = dict(fresh.get(url) or error_item(url, WorkerError("provider", "the provider returned no item")))
            if item.get("ok"):
                item["cached"] = False
        items.append(item)
    meta["cache_hits"] = len(urls) - sum(1 for key in keys if key not in hits)
    meta["cached"] = not misses
    meta["slot_wait_ms"] = waited
    answer = {"results": items, "meta": meta, "warnings": warnings}
    if raw is not None:
        answer["raw"] = raw
    return answer


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
    cfg = config_mod.load(request)
    spec = config_mod.select(cfg, "fetch", request.provider)
    request = settle(request, getattr(cfg, "settings", None) or {})
    started = time.monotonic()
    answer = cached_fetch(urls, request, call, cfg, spec)
    items = answer.get("results", [])
    meta = dict(answer.get("meta", {}))
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
