"""``fetch URL --crawl N``: read up to N pages of the URL's section and answer from all of them.

1. Map the section (worker.site.mapper), in at most MAP_SHARE of the call's time.
2. With ``--focus``: order the map's pages for it (worker.site.rank: titles, link words,
   URL words, headings, ids, the words of the pages the map read); without: map order.
3. Read the first N through the fetch pipeline (the cache, the guard, the reading child,
   the walls check), concurrently.  When the map had fewer than N pages (a section whose
   navigation the map could not walk in time, a sitemap-only site), the links of the pages
   read are followed, best first, until N are read or time runs out.
4. With ``--focus``: the passages that answer it, ranked across all pages read, within
   ``--max-total-chars`` (worker.site.passages).  Without: each page's text in map order,
   the budget shared fairly, every cut page with ``next_start_index``.
"""

from __future__ import annotations

import time

from ..errors import WorkerError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from ..request import FetchRequest
    from ..runtime import Call
    from ..site.mapper import Entry

MAP_SHARE = 0.5  # of the call's time, at most, for the map
RANK_RESERVE_S = 1.5  # kept back from the reading for ranking the passages and the answer (60 long pages: 0.3 s)
MAP_PAGES = 5000  # pages a crawl's map lists at most
DEFAULT_TOTAL_CHARS = 12000  # --max-total-chars when not given (the hosts' default too)
FOLLOW_ROUNDS = 2


def _check(request: FetchRequest) -> None:
    if request.find:
        raise WorkerError("invalid_argument", "--crawl and --find do not go together", hint="--find reads given pages")
    if request.start_index:
        raise WorkerError(
            "invalid_argument",
            "--crawl starts every page at its beginning: --start-index does not apply",
            hint="fetch the page alone with --start-index to read on",
        )


def run_crawl(request: FetchRequest, call: Call) -> dict[str, Any]:
    """The payload of ``fetch URL --crawl N`` (see the module's docstring)."""
    from .. import config as config_mod
    from ..site import editions, rank
    from . import fetch, sitetext
    from . import map as map_tool

    url = map_tool.start_url(request.urls, "--crawl")
    fetch.check_focus(request.focus)
    _check(request)
    cfg = config_mod.load(request)
    spec = config_mod.select(cfg, "fetch", request.provider)
    if spec.type != "local":
        raise WorkerError(
            "invalid_argument",
            "--crawl reads pages itself; provider %r (%s) cannot crawl" % (spec.name, spec.type),
            hint="leave --provider out, or give --provider local",
        )
    request = fetch.settle(request, getattr(cfg, "settings", None) or {})
    started = time.monotonic()
    left = call.remaining()
    map_deadline = None if left is None else started + left * MAP_SHARE
    want = int(request.crawl or 1)
    result = map_tool.site_map(
        request,
        call,
        url,
        mode=request.scope or "section",
        max_pages=MAP_PAGES,
        deadline=map_deadline,
        keep_bodies=True,
    )
    map_ms = int((time.monotonic() - started) * 1000)
    entries = result.pages()
    if not entries:
        raise result.start_error or WorkerError("http_error", "%s: no page of the section could be read" % url)
    prefix = result.scope.prefix
    records = [_page(e) for e in entries]
    scores: list[float] = [0.0] * len(entries)
    if request.focus:
        ranked = rank.order(records, request.focus, prefix, _linked_from_start(entries))
        order = [i for i, _ in ranked]
        scores = [0.0] * len(entries)
        for i, s in ranked:
            scores[i] = s
    else:
        order = list(range(len(entries)))
    # a single-page edition of the section (all.html, print.html) says what the pages it holds say,
    # at the cost of them all: they are read instead
    skipped = editions.editions([e.record for e in entries])
    chosen = [entries[i] for i in order if i not in skipped][:want]
    by_url: dict[str, float] = {e.url: scores[i] for i, e in enumerate(entries)}
    # the chosen pages the map downloaded are read as it got them: no second request to the site
    prefetched = {e.url: result.bodies[e.url] for e in chosen if e.url in result.bodies}
    result.bodies.clear()  # the others' bodies go now, before the reading's memory
    items = _read([e.url for e in chosen], request, call, cfg, spec, prefetched)
    meta_reused = len(prefetched)
    del prefetched
    warnings = list(result.warnings)
    followed = 0
    thin = len(entries) < want or any(not e.fetched for e in chosen)
    for _ in range(FOLLOW_ROUNDS):
        if not thin or len(items) >= want or (call.remaining() or 1) < 2:
            break
        more = _follow(items, result.scope, {e.key for e in entries}, request.focus, want - len(items), prefix)
        if not more:
            break
        got = _read([u for u, _ in more], request, call, cfg, spec)
        for u, s in more:
            by_url[u] = s
        items += got
        followed += len(got)
    read_ms = int((time.monotonic() - started) * 1000) - map_ms
    ok = [it for it in items if it.get("ok") and isinstance(it.get("content"), str)]
    if not ok:
        raise fetch.batch_error(items) if items else WorkerError("http_error", "%s: no page could be read" % url)
    total = request.max_total_chars or DEFAULT_TOTAL_CHARS
    crawl: dict[str, Any] = {
        "url": url,
        "scope": result.scope.describe(),
        "mode": result.scope.mode,
        "focus": request.focus,
        "mapped": len(entries),
        "read": len(ok),
        "failed": len(items) - len(ok),
        "followed": followed,
    }
    if skipped:
        crawl["editions"] = [entries[i].url for i in sorted(skipped)]
    titles = {e.url: e.title for e in entries}
    suffix = rank.site_suffix(titles.values())
    meta: dict[str, Any] = {"map": result.stats, "map_ms": map_ms, "read_ms": read_ms, "reused": meta_reused}
    payload: dict[str, Any] = {"tool": "fetch", "provider": spec.name, "provider_type": spec.type, "crawl": crawl}
    if request.focus:
        from ..site import passages

        found = passages.rank(
            [it["content"] for it in ok], request.focus, total, [by_url.get(it["url"], 0.0) for it in ok]
        )
        out = []
        for p in found:
            item = ok[p["page"]]
            out.append(
                {
                    "url": item.get("final_url") or item["url"],
                    # the page's own <title> as the map read it (an extracted title may be the site's name)
                    "title": rank.short_title(titles.get(item["url"]) or item.get("title"), suffix),
                    "section": p["section"],
                    "offset": p["offset"],
                    "length": p["length"],
                    "text": p["text"],
                    "score": p["score"],
                }
            )
        payload["passages"] = out
        used = sum(_weight(p["text"]) for p in out)
        meta["budget"] = {"max_total_chars": total, "used_chars": used, "passages": len(out)}
        payload["results"] = [
            _brief(it, sum(1 for p in out if p["url"] == (it.get("final_url") or it["url"]))) for it in items
        ]
    else:
        from . import fit

        fitted, budget = fit.fit_items(items, None, int(request.max_chars or fit.FULL_CHARS), total)
        payload["results"] = fitted
        if budget is not None:
            meta["budget"] = budget
    meta["elapsed_ms"] = int((time.monotonic() - started) * 1000)
    payload["meta"] = meta
    payload["warnings"] = list(call.warnings) + warnings
    payload["text"] = sitetext.crawl_text(payload)
    return payload


def _linked_from_start(entries: list[Entry]) -> set[int]:
    """The indexes of the entries the start page links to: the pages of the chapter whose contents
    the user gave (in a site whose pages share one folder, the section alone does not say it).
    None from a folder's index page: a crawl from a site's home is asked about the whole site, and
    the home's links are its top pages (about, download, the manual's parts), no answer's
    neighbourhood (from SQLite's home: 14 answers of 35 with them, 18 without)."""
    from ..site import scope as scope_mod
    from ..site.mapper import resolved_links

    start = next((e for e in entries if "start" in e.found), None)
    if start is None or not start.record or _is_index(start.url):
        return set()
    keys = {scope_mod.key(url) for url, _, _ in resolved_links(start.record, start.url)}
    return {i for i, e in enumerate(entries) if e.key in keys and e is not start}


def _is_index(url: str) -> bool:
    """Whether the URL names its folder's index page (``docs/``, ``docs/index.html``)."""
    from urllib.parse import urlsplit

    from ..site.scope import INDEX_FILES

    path = urlsplit(url).path
    return path.endswith("/") or path.rsplit("/", 1)[-1] in INDEX_FILES


def _weight(text: str) -> int:
    from .fit import weight

    return weight(text)


def _page(entry: Entry) -> dict[str, Any]:
    """What worker.site.rank reads of a map entry."""
    return {"url": entry.url, "title": entry.title, "texts": entry.texts, "record": entry.record}


def _brief(item: dict[str, Any], passages: int) -> dict[str, Any]:
    """A page read by a focused crawl, without its text (its passages carry what answers)."""
    keep = ("url", "ok", "final_url", "status", "title", "total_chars", "cache", "fetched_at", "error", "warnings")
    out = {k: item[k] for k in keep if k in item}
    if item.get("ok"):
        out["passages"] = passages
    return out


def _read(
    urls: list[str], request: FetchRequest, call: Call, cfg: Any, spec: Any, prefetched: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The pages' whole texts through the fetch pipeline (the cache, the guard, the reading child);
    ``prefetched``: pages the map downloaded, by URL, read as they are."""
    from . import fit
    from .fetch_cache import cached_fetch

    if not urls:
        return []
    fmt = "markdown" if request.focus else request.fetch_format
    whole = request.replace(
        urls=tuple(urls),
        crawl=None,
        scope=None,
        focus=None,
        max_total_chars=None,
        fetch_format=fmt,
        max_chars=fit.FULL_CHARS,
        max_chars_given=True,
        prefetched=prefetched or None,
    )
    within: Any = _Within(call, RANK_RESERVE_S)  # a Call in all but its deadline
    answer = cached_fetch(urls, whole, within, cfg, spec)
    return list(answer.get("results", []))


class _Within:
    """The call as the reading sees it: the same call, with a deadline ``reserve`` seconds earlier
    (at most a fifth of the time left), so the pages not read by then are ``timeout`` items and the
    passages are still ranked and answered within --timeout."""

    def __init__(self, call: Call, reserve: float) -> None:
        self._call = call
        left = call.remaining()
        self.deadline = None if call.deadline is None or left is None else call.deadline - min(reserve, left / 5)

    def remaining(self, default: float | None = None) -> float | None:
        if self.deadline is None:
            return self._call.remaining(default)
        return max(0.0, self.deadline - time.monotonic())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._call, name)


def _follow(
    items: list[dict[str, Any]], scope: Any, known: set[str], focus: str | None, room: int, prefix: str
) -> list[tuple[str, float]]:
    """Up to ``room`` pages the pages read link to that the map did not list, best first for ``focus``."""
    import re

    from ..site import rank
    from ..site import scope as scope_mod

    links: dict[str, list[str]] = {}
    for item in items:
        if not item.get("ok"):
            continue
        base = item.get("final_url") or item["url"]
        for text, href in re.findall(r"\[([^\[\]\n]{0,200})\]\(([^()\s]+)\)", item.get("content") or ""):
            target = scope_mod.absolute(base, href)
            if target is None or not scope.contains(target):
                continue
            key = scope_mod.key(target)
            if key in known:
                continue
            links.setdefault(target, []).append(text.strip("`* "))
    read = {scope_mod.key(it.get("final_url") or it["url"]) for it in items}
    urls = [u for u in links if scope_mod.key(u) not in read]
    candidates: list[dict[str, Any]] = [{"url": u, "title": None, "texts": links[u][:24], "record": None} for u in urls]
    if not candidates:
        return []
    if focus:
        ranked = rank.order(candidates, focus, prefix)
    else:
        ranked = [(i, 0.0) for i in range(len(candidates))]
    chosen = [(urls[i], s) for i, s in ranked[:room]]
    known.update(scope_mod.key(u) for u, _ in chosen)
    return chosen
