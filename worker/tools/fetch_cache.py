"""The fetch command's cache: each URL is served fresh, revalidated, stale, or fetched (a miss).

* **fresh**: the stored item is younger than our TTL (``--cache-ttl``), or than what
  the site said (``max-age``, ``Expires``; ``no-cache`` means never fresh).
* **revalidated**: past that, a stored item with an ``ETag`` or ``Last-Modified`` is
  asked for with ``If-None-Match`` / ``If-Modified-Since``; a 304 serves the stored
  item again (no body, no extraction) and restarts its freshness.
* **stale**: when the site fails (network, timeout, 5xx), a stored item confirmed at
  most ``staleIfError`` seconds ago (default a day) stands in, with a warning naming
  the error and its age; never for ``must-revalidate`` pages.
* **miss**: downloaded and extracted; stored unless the site said ``no-store``.

Every item says which (``cache``) and when its bytes came from the site
(``fetched_at``).  Rows are kept past the TTL (``KEEP_S`` at least) so they can be
revalidated or stand in; what the response said of reuse rides in the stored
item as ``_http`` (worker.pages.net.freshness) and never reaches the answer.
"""

from __future__ import annotations

import time

from ..errors import WorkerError
from ..pages.read.item import error_item

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Mapping
    from typing import Any

    from ..config import Config
    from ..providers.base import ProviderSpec
    from ..request import FetchRequest
    from ..runtime import Call

DEFAULT_STALE_IF_ERROR = 24 * 3600
KEEP_S = 24 * 3600  # rows live at least this long past their writing, for revalidation
PRIVATE = ("_http", "not_modified", "_fetched")  # the cache's own fields, never in an answer


def stale_bound(settings: Mapping[str, Any]) -> float:
    """Seconds a stored item may stand in for a failing site (config ``staleIfError``; 0: never)."""
    value = settings.get("staleIfError")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return float(DEFAULT_STALE_IF_ERROR)
    return max(0.0, float(value))


def iso_time(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def _span(seconds: float) -> str:
    seconds = int(max(0, seconds))
    if seconds < 120:
        return "%d s" % seconds
    if seconds < 7200:
        return "%d min" % (seconds // 60)
    if seconds < 2 * 86400:
        return "%d h %d min" % (seconds // 3600, seconds % 3600 // 60)
    return "%d days" % (seconds // 86400)


def site_failed(item: Mapping[str, Any]) -> bool:
    """Is an error item the site failing (a stored copy may stand in), not the page refusing us?"""
    err: dict[str, Any] = item["error"] if isinstance(item.get("error"), dict) else {}
    code = err.get("code")
    status = err.get("status")
    return code in ("network", "timeout") or (code == "http_error" and isinstance(status, int) and status >= 500)


def public(value: Mapping[str, Any], state: str, age: float | None, fetched_at: float) -> dict[str, Any]:
    """The item as the answer shows it: the cache's own fields out, ``cache`` and ``fetched_at`` in."""
    item = {k: v for k, v in value.items() if k not in PRIVATE}
    item["fetched_at"] = iso_time(fetched_at)
    item["cache"] = state
    item["cached"] = state != "miss"
    if age is not None:
        item["cache_age_s"] = round(max(0.0, age), 1)
    return item


def _fetched_epoch(value: Mapping[str, Any], now: float, age: float) -> float:
    """When a stored item's bytes came from the site (rows written before ``fetched_at`` existed: their age)."""
    stamp = value.get("_fetched")
    return float(stamp) if isinstance(stamp, (int, float)) and not isinstance(stamp, bool) else now - age


def _stale(url: str, failed: Mapping[str, Any], stored: Mapping[str, Any], age: float, now: float) -> dict[str, Any]:
    err: dict[str, Any] = failed["error"] if isinstance(failed.get("error"), dict) else {}
    fetched = _fetched_epoch(stored, now, age)
    warning = "%s: the site failed (%s: %s); served the copy confirmed %s ago (downloaded %s)" % (
        url,
        err.get("code"),
        " ".join(str(err.get("message") or "").split())[:200],
        _span(age),
        iso_time(fetched),
    )
    item = public(stored, "stale", age, fetched)
    item["warnings"] = list(item.get("warnings") or []) + [warning]
    return item


def cached_fetch(urls: list[str], request: FetchRequest, call: Call, cfg: Config, spec: ProviderSpec) -> dict[str, Any]:
    """The provider's answer for ``urls``, each URL fresh from the cache, revalidated, stale or fetched.

    Cached per URL, so a later batch reuses any of its URLs; only successful
    items are stored.  The provider is built only when some URL is not fresh.
    """
    from ..pages.net import freshness
    from ..providers import registry
    from ..state import backend, cache

    backend.attach(call, cache.resolve_dir(request, cfg.settings), cfg.settings)
    store = cache.open_store(request, cfg.settings, call)
    pol = store.policy
    stale_s = stale_bound(cfg.settings) if pol is not None else 0.0
    fields = cache.request_fields(request, exclude=("urls",))
    keys = [cache.make_key("fetch", spec, dict(fields, url=url)) for url in urls]
    kept = store.get_many(set(keys), max_age=float("inf"))
    fresh_hits, stored = {}, {}
    for key, (value, age) in kept.items():
        if age < freshness.fresh_for(value.get("_http"), pol.ttl if pol is not None else 0):
            fresh_hits[key] = (value, age)
        else:
            stored[key] = (value, age)
    by_url = dict(zip(urls, keys))
    misses = [url for url in dict.fromkeys(urls) if by_url[url] not in fresh_hits]
    got: dict[str, dict[str, Any]] = {}
    meta: dict[str, Any] = {}
    warnings: list[str] = []
    waited, raw = 0, None
    if misses:
        from ..state import ratelimit

        revalidate = None
        if pol is not None:
            revalidate = {
                url: stored[by_url[url]][0].get("_http")
                for url in misses
                if by_url[url] in stored and freshness.conditional(stored[by_url[url]][0].get("_http"))
            }
        provider = registry.build(spec, call, "fetch")
        answer = provider.fetch(misses, request.replace(revalidate=revalidate))
        meta, warnings = dict(answer.get("meta", {})), list(answer.get("warnings", []))
        raw = answer.get("raw")
        got = dict(zip(misses, answer.get("results", [])))  # items come in input order
        waited = ratelimit.waited_ms()
    now = time.time()
    served: dict[str, dict[str, Any]] = {}
    rows = []
    for url in misses:
        key = by_url[url]
        item = got.get(url) or error_item(url, WorkerError("provider", "the provider returned no item"))
        prior = stored.get(key)
        if item.get("not_modified"):
            if prior is None:
                served[url] = error_item(
                    url,
                    WorkerError("http_error", "%s answered 304 Not Modified to a request without validators" % url),
                )
                continue
            value = dict(prior[0], _http=freshness.merge(prior[0].get("_http") or {}, item.get("_http") or {}))
            value["_fetched"] = _fetched_epoch(prior[0], now, prior[1])
            served[url] = public(value, "revalidated", 0.0, value["_fetched"])
            if not value["_http"].get("no_store"):
                rows.append((key, "fetch", spec.name, value))
        elif item.get("ok"):
            value = dict(item, _fetched=now)
            served[url] = public(value, "miss", None, now)
            if not (item.get("_http") or {}).get("no_store"):
                rows.append((key, "fetch", spec.name, value))
        elif (
            prior is not None
            and site_failed(item)
            and prior[1] <= stale_s
            and not (prior[0].get("_http") or {}).get("must_revalidate")
        ):
            served[url] = _stale(url, item, prior[0], prior[1], now)
            warnings.extend(served[url]["warnings"][-1:])
        else:
            served[url] = {k: v for k, v in item.items() if k not in PRIVATE}
    if pol is not None:
        store.put_many(rows, keep=max(pol.ttl, stale_s, KEEP_S))
    store.close()
    items = []
    for url, key in zip(urls, keys):
        if key in fresh_hits:
            value, age = fresh_hits[key]
            items.append(public(value, "fresh", age, _fetched_epoch(value, now, age)))
        else:
            items.append(dict(served[url]))
    counts = {state: 0 for state in ("fresh", "revalidated", "stale", "miss")}
    for item in items:
        if item.get("cache") in counts:
            counts[item["cache"]] += 1
    meta["cache_hits"] = counts["fresh"]
    meta["cache"] = counts
    meta["cached"] = not misses
    meta["slot_wait_ms"] = waited
    answer = {"results": items, "meta": meta, "warnings": warnings}
    if raw is not None:
        answer["raw"] = raw
    return answer
