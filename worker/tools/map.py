"""The map command: one URL in, the pages of its section (or site) out, each with its title and
where it was found (worker.site.mapper walks the sources)."""

from __future__ import annotations

from ..errors import WorkerError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Mapping
    from typing import Any

    from ..request import FetchRequest, MapRequest
    from ..runtime import Call
    from ..site.mapper import Result

DEFAULT_MAX_PAGES = 1000
ANSWER_RESERVE_S = 1.0  # kept back from --timeout for building and writing the answer


def start_url(urls: tuple[str, ...] | list[str], what: str) -> str:
    """The one start URL of a map or crawl, checked as a fetch checks it (invalid_url)."""
    from ..pages.net import guard

    if len(urls) != 1:
        raise WorkerError(
            "invalid_argument",
            "%s takes one URL (the start page of the site or section); got %d" % (what, len(urls)),
            hint="give the section's start page, e.g. https://docs.example.org/guide/",
        )
    url = urls[0].strip()
    guard.check_url(url)
    return url


def reserve(call: Call | None) -> float:
    left = call.remaining() if call is not None else None
    return 0.0 if left is None else min(ANSWER_RESERVE_S, left * 0.1)


def robots_check(request: MapRequest | FetchRequest, settings: Mapping[str, Any], call: Call | None) -> Any:
    """The robots.txt check when the request or the config respects it, else None."""
    if not (request.respect_robots or settings.get("robots")):
        return None
    from ..pages.fetch.robots import RobotsCheck

    return RobotsCheck(
        settings.get("robotsAgent"),
        getattr(call, "state_dir", None),
        not (request.no_cache or settings.get("cache") is False),
        call,
    )


def site_map(
    request: MapRequest | FetchRequest,
    call: Call,
    url: str,
    *,
    mode: str,
    max_pages: int,
    deadline: float | None,
    fetch_limit: int | None = None,
    keep_bodies: bool = False,
) -> Result:
    """The map of ``url``'s section or site with the call's config, cache and robots.txt rules."""
    from .. import config as config_mod
    from ..pages.net import DEFAULT_MAX_BYTES
    from ..site.mapper import Mapper
    from ..state import backend, cache

    cfg = config_mod.load(request)
    settings = getattr(cfg, "settings", None) or {}
    backend.attach(call, cache.resolve_dir(request, settings), settings)
    store = cache.open_store(request, settings, call)
    try:
        mapper = Mapper(
            call,
            url,
            mode=mode,
            max_pages=max_pages,
            deadline=deadline,
            allow_private=bool(request.allow_private or settings.get("allowPrivate")),
            robots=robots_check(request, settings, call),
            store=None if store.policy is None else store,
            user_agent=settings.get("userAgent") or None,
            max_bytes=int(settings.get("fetchMaxBytes") or DEFAULT_MAX_BYTES),
            fetch_limit=fetch_limit,
            keep_bodies=keep_bodies,
        )
        return mapper.run()
    finally:
        store.close()


def run_map(request: MapRequest, call: Call) -> dict[str, Any]:
    """The map payload for ``request``."""
    import time

    from . import sitetext

    url = start_url(request.urls, "map")
    started = time.monotonic()
    deadline = None if call.deadline is None else call.deadline - reserve(call)
    result = site_map(
        request,
        call,
        url,
        mode=request.scope or "section",
        max_pages=request.max_pages or DEFAULT_MAX_PAGES,
        deadline=deadline,
    )
    entries = result.pages()
    if result.start_error is not None and not any(e.key != result.entries[0].key for e in entries):
        raise result.start_error  # nothing but a start page that failed: its error is the map's
    pages = [e.public() for e in entries]
    meta = dict(result.stats)
    meta["pages"] = len(pages)
    meta["elapsed_ms"] = int((time.monotonic() - started) * 1000)
    payload = {
        "tool": "map",
        "provider": "local",
        "url": url,
        "scope": {"mode": result.scope.mode, "host": result.scope.host, "prefix": result.scope.prefix},
        "results": pages,
        "meta": meta,
        "warnings": list(call.warnings) + list(result.warnings),
    }
    payload["text"] = sitetext.map_text(payload)
    return payload
