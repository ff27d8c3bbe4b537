"""DuckDuckGo (and friends) through ddgs' own engines, no key.

We drive ddgs' engine classes directly instead of ``DDGS().text``: the
aggregate call reports a blocked engine and an empty result page the same way
("No results found"), while one engine's ``search`` returns None for a non-200
answer (blocked, rate limited) and a list (possibly empty) for a parsed page.
Engines are tried in order until one answers, so one blocked engine costs a
fallback, not the call.

Default order: duckduckgo first (the tool's namesake, Bing-backed results
without ddgs' wikipedia-first ranking of ``auto``), then brave and mojeek
(independent indexes) and yahoo as fallbacks.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from .. import checked
from ..errors import WorkerError
from .base import Provider, site_operators

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Iterable
    from typing import Any

    from ..request import SearchRequest

DEFAULT_BACKENDS = ("duckduckgo", "brave", "mojeek", "yahoo")
# News: DuckDuckGo's news endpoint (Bing's index), then Bing's and Yahoo's own news pages.
DEFAULT_NEWS_BACKENDS = ("duckduckgo", "bing", "yahoo")
TIMELIMIT = {"day": "d", "week": "w", "month": "m", "year": "y"}
MAX_LIMIT = 50
MAX_PAGES = 5  # per engine, when --limit asks for more than one page holds


def clamp_limit(limit: int | None, default: int = 5) -> int:
    if limit is None:
        return default
    return max(1, min(MAX_LIMIT, int(limit)))


def _host_matches(url: str, domain: str) -> bool:
    try:
        host = (urlsplit(url).hostname or "").lower().rstrip(".")
    except ValueError:  # an engine's link such as "http://[::1": no host to match
        return False
    domain = domain.lower().strip().lstrip(".")
    return host == domain or host.endswith("." + domain)


def filter_domains(
    results: list[dict[str, Any]], include: Iterable[str], exclude: Iterable[str]
) -> list[dict[str, Any]]:
    """Engines treat site: as a hint; enforce it."""
    out = []
    for r in results:
        url = r["url"]
        if include and not any(_host_matches(url, d) for d in include):
            continue
        if any(_host_matches(url, d) for d in exclude):
            continue
        out.append(r)
    return out


def to_result(item: Any, engine: str) -> dict[str, Any]:
    return {
        "title": checked.text(item.title),
        "url": checked.text(item.href),
        "snippet": checked.text(item.body),
        "engine": engine,
    }


def news_date(value: object) -> str | None:
    """DuckDuckGo's news API dates articles in Unix seconds; Bing's and Yahoo's come as ISO text already."""
    import time

    text = str(value if value is not None else "").strip()
    seconds = checked.whole(text, 10**8, checked.MAX_EPOCH) if 9 <= len(text) <= 11 else None
    if seconds is not None:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))
    return text or None


def to_news_result(item: Any, engine: str) -> dict[str, Any]:
    """A ddgs NewsResult (date, title, body, url, image, source) in the protocol's shape."""
    r = {
        "title": " ".join(str(item.title or "").split()),
        "url": str(item.url or "").strip(),
        "snippet": " ".join(str(item.body or "").split()),
        "engine": engine,
        "published": news_date(item.date),
        "source": " ".join(str(item.source or "").split()) or None,
    }
    if item.image:
        r["image"] = str(item.image)
    return r


def env_proxy() -> str | None:
    """ddgs' own proxy variable (DDGS_PROXY; "tb" means the local Tor Browser).

    Without it primp still honours HTTPS_PROXY / ALL_PROXY and SSL_CERT_FILE by itself.
    """
    proxy = os.environ.get("DDGS_PROXY") or None
    return "socks5h://127.0.0.1:9150" if proxy == "tb" else proxy


def classify(exc: BaseException) -> tuple[str, str]:
    """A ddgs/primp exception as (code, detail)."""
    from ddgs.exceptions import RatelimitException, TimeoutException

    text = " ".join(str(exc).split())
    if isinstance(exc, TimeoutException) or "timed out" in text.lower() or "timeout" in text.lower():
        return "timeout", text
    if isinstance(exc, RatelimitException):
        return "blocked", text
    return "network", text


class DdgsProvider(Provider):
    tools = frozenset({"search"})
    verticals = frozenset({"web", "news"})

    def engine_classes(self, backend: str | None, vertical: str = "web") -> list[tuple[str, Any]]:
        from ddgs.engines import ENGINES

        default = DEFAULT_NEWS_BACKENDS if vertical == "news" else self.spec.options.get("backends", DEFAULT_BACKENDS)
        names = [b.strip() for b in (backend or ",".join(default)).split(",") if b.strip()]
        engines = ENGINES.get("news" if vertical == "news" else "text", {})
        unknown: list[str | None] = [n for n in names if n not in engines]
        if unknown or not names:
            raise WorkerError(
                "invalid_argument",
                "unknown ddgs %sbackend %s"
                % ("news " if vertical == "news" else "", ", ".join(map(repr, unknown or [backend]))),
                hint="available: %s" % ", ".join(sorted(engines)),
            )
        return [(n, engines[n]) for n in names]

    def search(self, request: SearchRequest) -> dict[str, Any]:
        vertical = request.vertical or "web"
        limit = clamp_limit(request.limit, self.spec.options.get("defaultSearchLimit", 5))
        query = site_operators(request.query, request.include_domain, request.exclude_domain)
        # Engines named with --backend are all tried: the user asked for them.
        guard = self.call.breaker if self.call is not None and not request.backend else None
        recorder = self.call.breaker if self.call is not None else None
        failures = []
        skipped = []
        for name, cls in self.engine_classes(request.backend, vertical):
            circuit = "ddgs%s:%s" % ("-news" if vertical == "news" else "", name)
            if guard is not None:
                decision = guard.check(circuit)
                if decision.state == "skip":
                    skipped.append(decision.skipped(guard.now(), provider=self.name, engine=name))
                    continue
            timeout = self.call.bounded(10)  # type: ignore[union-attr]  # a search runs within a call
            engine = cls(proxy=env_proxy(), timeout=max(1, int(round(timeout))))
            try:
                results = self._collect(engine, name, query, request, limit, vertical)
            except WorkerError:
                raise
            except Exception as exc:  # one engine failing is a fallback, not the call
                code, detail = classify(exc)
                failures.append((name, code, detail))
                if recorder is not None:
                    recorder.record(circuit, code)
                continue
            if results is None:
                failures.append((name, "blocked", "answered with a non-200 status (blocked or rate limited)"))
                if recorder is not None:
                    recorder.record(circuit, "blocked")
                continue
            if recorder is not None:
                recorder.record(circuit, None)
                recorder.skipped.extend(skipped)
            meta = {"engine": name, "limit": limit, "page": request.page}
            if failures:
                meta["fallbacks"] = [{"engine": n, "error": c, "detail": d[:200]} for n, c, d in failures]
            warnings = ["engine %s failed (%s); answered by %s" % (n, c, name) for n, c, _ in failures]
            return {"results": results, "meta": meta, "warnings": warnings}
        if recorder is not None:
            recorder.skipped.extend(skipped)
        if skipped and not failures:
            soonest = min(s["retry_in_s"] for s in skipped)
            err = WorkerError(
                "blocked",
                "every ddgs engine is cooling down after repeated blocks (%s)"
                % "; ".join("%s until %s" % (s["engine"], s["until"]) for s in skipped),
                hint="retry after %d s, or name engines with --backend to try them anyway"
                % max(1, int(round(soonest + 0.49))),
                retry_after=max(1, int(round(soonest + 0.49))),
            )
            # search.py reads it with getattr: a skip, not a new failure
            err.circuit_open = True  # type: ignore[attr-defined]  # this error's own mark
            raise err
        raise self._all_failed(failures)

    def _collect(self, engine, name, query, request, limit, vertical="web"):
        """Results from one engine, paging until ``limit``; None if its first page is refused."""
        from ..tools.canonical import canonical_key

        convert = to_news_result if vertical == "news" else to_result
        seen = set()
        out = []
        for page in range(request.page, request.page + MAX_PAGES):
            items = engine.search(
                query,
                region=request.region or self.spec.options.get("region", "us-en"),
                safesearch=request.safesearch or "moderate",
                timelimit=TIMELIMIT.get(request.recency),
                page=page,
            )
            if items is None:
                if page == request.page:
                    return None
                break
            fresh = []
            for item in items:
                r = convert(item, name)
                key = canonical_key(r["url"])  # the same page on two result pages is one result
                if r["url"] and key not in seen:
                    seen.add(key)
                    fresh.append(r)
            out.extend(filter_domains(fresh, request.include_domain, request.exclude_domain))
            if len(out) >= limit or not fresh:
                break
        return out[:limit]

    @staticmethod
    def _all_failed(failures):
        codes = {c for _, c, _ in failures}
        summary = "; ".join("%s: %s" % (n, c) for n, c, _ in failures)
        if codes == {"blocked"}:
            return WorkerError(
                "blocked",
                "every search engine refused the request (%s)" % summary,
                hint="the engines rate-limit by IP: wait a minute, try --backend with another engine, "
                "or configure a keyed provider (exa, brave)",
            )
        if "timeout" in codes and codes <= {"timeout", "blocked"}:
            return WorkerError(
                "timeout", "every search engine timed out (%s)" % summary, hint="check the network or raise --timeout"
            )
        detail = next((d for _, c, d in failures if c == "network"), "")
        return WorkerError(
            "network",
            "no search engine could be reached (%s)%s" % (summary, (": " + detail[:200]) if detail else ""),
            hint="check the network connection, proxy settings (HTTPS_PROXY) and DNS",
        )
