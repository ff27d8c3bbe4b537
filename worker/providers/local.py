"""The default fetch provider: the worker downloads and extracts pages itself, no key."""

from __future__ import annotations

from ..pages import pipeline
from ..pages.net import DEFAULT_MAX_BYTES
from ..pages.spec import DEFAULT_MAX_CHARS, Spec
from .base import Provider

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from ..request import FetchRequest


class LocalFetchProvider(Provider):
    tools = frozenset({"fetch"})

    def fetch(self, urls: list[str], request: FetchRequest) -> dict[str, Any]:
        spec = Spec(
            fmt=request.fetch_format or "markdown",
            max_chars=request.max_chars or DEFAULT_MAX_CHARS,
            start_index=request.start_index or 0,
            allow_private=bool(request.allow_private),
            max_bytes=request.max_bytes or DEFAULT_MAX_BYTES,
            sites=request.sites,
            adapters=not request.no_adapters,
            llms_txt=bool(request.llms_txt),
            revalidate=request.revalidate,
            robots=_robots(request, self.call),
            user_agent=request.user_agent,
            prefetched=dict(request.prefetched) if request.prefetched else None,
        )
        concurrency = request.concurrency or pipeline.DEFAULT_CONCURRENCY
        items = pipeline.fetch_all(urls, self.call, spec, concurrency)
        from ..pages.render.hook import complete

        items, rendering = complete(items, urls, self.call, spec, request.render or "auto", request.browser)
        meta = {
            "format": spec.fmt,
            "max_chars": spec.max_chars,
            "start_index": spec.start_index,
            "concurrency": min(concurrency, len(urls)),
            "max_bytes": spec.max_bytes,
        }
        if spec.robots is not None:
            meta["robots_txt_fetched"] = spec.robots.fetched
        meta.update(rendering)
        return {"results": items, "meta": meta}


def _robots(request: FetchRequest, call: Any) -> Any:
    """The robots.txt check when the request respects it (--respect-robots, config "robots"), else None."""
    if not request.respect_robots:
        return None
    from ..pages.fetch.robots import RobotsCheck

    return RobotsCheck(request.robots_agent, getattr(call, "state_dir", None), not request.no_cache, call)
