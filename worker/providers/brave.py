"""Brave Search web API (``/res/v1/web/search``) over plain urllib.

The API is one GET with a handful of query parameters, so a client library
would cost more import time than it saves code.  Mapping the request and the
response are pure functions (``build_params``, ``parse_results``,
``error_from_response``); the key, the transport, the status codes and the
Retry-After are the keyed base's (providers/keyed.py).

Request id: Brave documents no request-id header for the web search API (only
the X-RateLimit-* family), but its error bodies carry ``error.id``.  We record
the first of ``X-Request-Id`` / ``Request-Id`` / ``X-Brave-Request-Id`` when a
response has one, else ``error.id`` for errors, as ``meta.request_id`` (None
when Brave sent neither).
"""

from __future__ import annotations

import html
import re

from .. import checked, numbers
from ..errors import WorkerError
from .base import ProviderSpec, site_operators
from .keyed import KeyedApi

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from ..request import SearchRequest
    from .keyed import Headers

DEFAULT_BASE_URL = "https://api.search.brave.com"
ENDPOINT = "/res/v1/web/search"
NEWS_ENDPOINT = "/res/v1/news/search"
MAX_NEWS_COUNT = 50  # the news endpoint serves up to 50 per page
FRESHNESS = {"day": "pd", "week": "pw", "month": "pm", "year": "py"}
SAFESEARCH = {"on": "strict", "moderate": "moderate", "off": "off"}
MIN_COUNT, MAX_COUNT, DEFAULT_COUNT = 1, 20, 5
MAX_OFFSET = 9  # Brave pages are offset 0..9
MAX_QUERY_CHARS = 400  # Brave's documented limits for q
MAX_QUERY_WORDS = 50
REQUEST_TIMEOUT = 20.0
DEFAULT_MIN_INTERVAL = 1.0  # free plan: one request per second
REQUEST_ID_HEADERS = ("X-Request-Id", "Request-Id", "X-Brave-Request-Id")
MAX_RETRY_AFTER = 31 * 24 * 3600  # Brave's longest window is a month; a larger value is not a wait

# Brave's parameter names -> the option a user types, for 422 messages.
FIELD_OPTIONS = {
    "q": "the query",
    "count": "--limit",
    "offset": "--page",
    "freshness": "--recency",
    "country": "--country",
    "search_lang": "--search-lang",
    "safesearch": "--safesearch",
}

_TAG = re.compile(r"<[^>]{0,200}>")


def clamp_count(limit: int | None, default: Any = DEFAULT_COUNT, high: int = MAX_COUNT) -> int:
    if limit is None:
        return max(MIN_COUNT, min(high, int(default)))
    return max(MIN_COUNT, min(high, int(limit)))


def build_params(request: SearchRequest, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The query parameters for one web (or news) search; raises before any I/O on what Brave would refuse."""
    options = options or {}
    news = request.vertical == "news"
    q = site_operators(request.query, request.include_domain or [], request.exclude_domain or [])
    if len(q) > MAX_QUERY_CHARS or len(q.split()) > MAX_QUERY_WORDS:
        raise WorkerError(
            "invalid_query",
            "Brave accepts at most %d characters and %d words (with domain filters); this query has %d and %d"
            % (MAX_QUERY_CHARS, MAX_QUERY_WORDS, len(q), len(q.split())),
            hint="shorten the query or use fewer --include-domain/--exclude-domain filters",
        )
    page = request.page or 1
    if page - 1 > MAX_OFFSET:
        raise WorkerError(
            "invalid_argument",
            "Brave serves at most %d pages; --page %d is out of range" % (MAX_OFFSET + 1, page),
            hint="use --page 1 to %d" % (MAX_OFFSET + 1),
            field="offset",
        )
    params: dict[str, Any] = {
        "q": q,
        "count": clamp_count(
            request.limit, options.get("defaultSearchLimit", DEFAULT_COUNT), MAX_NEWS_COUNT if news else MAX_COUNT
        ),
        "offset": page - 1,
    }
    if not news:  # the news endpoint takes neither
        params["text_decorations"] = "false"  # plain snippets, no <strong> markup
        params["result_filter"] = "web"  # only the web section: a smaller answer
    if options.get("extraSnippets", True):
        params["extra_snippets"] = "true"
    recency = request.recency
    if recency:
        params["freshness"] = FRESHNESS[recency]
    country = request.country or options.get("country")
    if country:
        params["country"] = country
    lang = request.search_lang or options.get("searchLang")
    if lang:
        params["search_lang"] = lang
    safesearch = request.safesearch or options.get("safesearch")
    if safesearch:
        params["safesearch"] = SAFESEARCH.get(safesearch, safesearch)
    return params


def _plain(value: object) -> str:
    """A string field as plain one-line text (defends against markup and non-strings)."""
    if not isinstance(value, str):
        return ""
    return " ".join(html.unescape(_TAG.sub("", value)).split())


def _usable_url(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    value = value.strip()
    scheme = value.split(":", 1)[0].lower()
    if scheme not in ("http", "https") or any(ch.isspace() for ch in value):
        return None
    return value


def _usable(items: list[Any]) -> tuple[list[tuple[dict[str, Any], dict[str, Any]]], int]:
    """([(item, result with title, url and snippet)], skipped) for a list of items."""
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    skipped = 0
    for item in items:
        url = _usable_url(item.get("url")) if isinstance(item, dict) else None
        if not url:
            skipped += 1
            continue
        pairs.append(
            (item, {"title": _plain(item.get("title")), "url": url, "snippet": _plain(item.get("description"))})
        )
    return pairs, skipped


def _age_and_extras(item: dict[str, Any], r: dict[str, Any]) -> None:
    age = _plain(item.get("age"))
    if age:
        r["age"] = age
    extra = [s for s in (_plain(x) for x in checked.texts(item.get("extra_snippets"))) if s]
    if extra:
        r["extra_snippets"] = extra


def parse_results(body: Any) -> tuple[list[dict[str, Any]], int]:
    """(results, skipped) from a 200 body; never raises on a missing or mistyped field."""
    items = checked.obj(checked.obj(body).get("web")).get("results")
    if not isinstance(items, list):
        return [], 0
    out = []
    pairs, skipped = _usable(items)
    for item, r in pairs:
        page_age = checked.text(item.get("page_age")).strip()
        if page_age:
            r["published"] = page_age
        _age_and_extras(item, r)
        site = _plain(checked.obj(item.get("profile")).get("name"))
        if site:
            r["site"] = site
        lang = checked.text(item.get("language"))
        if lang:
            r["language"] = lang
        out.append(r)
    return out, skipped


def parse_news_results(body: Any) -> tuple[list[dict[str, Any]], int]:
    """(results, skipped) from a news endpoint's 200 body: ``results`` at the top level.

    ``source`` is the publisher as Brave names it (``profile.name``), else the
    host Brave shows (``meta_url.hostname``)."""
    items = checked.obj(body).get("results")
    if not isinstance(items, list):
        return [], 0
    out = []
    pairs, skipped = _usable(items)
    for item, r in pairs:
        r["published"] = checked.text(item.get("page_age")).strip() or None
        profile, meta_url = checked.obj(item.get("profile")), checked.obj(item.get("meta_url"))
        source = _plain(profile.get("name")) or _plain(meta_url.get("hostname")) or _plain(meta_url.get("netloc"))
        r["source"] = source or None
        if item.get("breaking") is True:
            r["breaking"] = True
        _age_and_extras(item, r)
        image = _usable_url(checked.obj(item.get("thumbnail")).get("src"))
        if image:
            r["image"] = image
        out.append(r)
    return out, skipped


def _number_list(value: str | None) -> list[float]:
    """Brave's comma-separated X-RateLimit-* values; a part that is not a sane number is left out."""
    out = []
    for part in (value or "").split(",")[:8]:
        n = numbers.or_none(part, lo=0, hi=MAX_RETRY_AFTER)
        if n is not None:
            out.append(n)
    return out


def retry_after(headers: Headers | None) -> int | None:
    """Seconds to wait from Retry-After, else from Brave's X-RateLimit-Reset for the exhausted window."""
    seconds = numbers.retry_after(headers.get("Retry-After") if headers is not None else None, MAX_RETRY_AFTER)
    if seconds is not None:
        return int(round(seconds))
    resets = _number_list(headers.get("X-RateLimit-Reset") if headers is not None else None)
    remaining = _number_list(headers.get("X-RateLimit-Remaining") if headers is not None else None)
    if resets:
        exhausted = [r for r, left in zip(resets, remaining) if left <= 0]
        return max(1, int(round(max(exhausted) if exhausted else resets[0])))
    return None


def _invalid_fields(err: dict[str, Any]) -> list[tuple[str, str]]:
    """[(field, message)] from a 422 body's error.meta.errors[].loc/msg."""
    out = []
    for e in checked.objs(checked.obj(err.get("meta")).get("errors")):
        loc = e.get("loc")
        field = loc[-1] if isinstance(loc, list) and loc else e.get("field")
        if field is not None:
            out.append((str(field)[:60], _plain(e.get("msg") or e.get("message"))[:200]))
    return out


def error_from_response(status: int, headers: Headers | None, raw: bytes, name: str = "brave") -> WorkerError:
    """A WorkerError for a non-200 answer (pure: status, headers, body bytes)."""
    return BraveProvider(ProviderSpec(name, "brave"), None).http_error(status, headers, raw)


class BraveProvider(KeyedApi):
    tools = frozenset({"search"})
    verticals = frozenset({"web", "news"})
    label = "Brave"
    key_env = "BRAVE_API_KEY"
    default_base_url = DEFAULT_BASE_URL
    request_timeout = REQUEST_TIMEOUT
    min_interval = DEFAULT_MIN_INTERVAL
    max_retry_after = MAX_RETRY_AFTER
    request_id_headers = REQUEST_ID_HEADERS
    rate_hint = "the free plan allows one request per second"

    def auth_headers(self) -> dict[str, str]:
        return {"X-Subscription-Token": self.check_key()}

    def retry_wait(self, headers: Headers | None) -> int | None:
        return retry_after(headers)

    def refine_error(self, exc: WorkerError, status: int, body: dict[str, Any]) -> WorkerError:
        err = checked.obj(body.get("error"))
        fields = _invalid_fields(err) if status == 422 else []
        if fields:
            exc.extra["field"] = fields[0][0]
            parts = [
                "%s (%s): %s" % (f, FIELD_OPTIONS.get(f, "option"), m)
                if m
                else "%s (%s)" % (f, FIELD_OPTIONS.get(f, "option"))
                for f, m in fields[:5]
            ]
            exc.message = "Brave rejected the request: invalid %s" % "; ".join(parts)
            exc.hint = "fix the named option and try again"
        return exc

    def search(self, request: SearchRequest) -> dict[str, Any]:
        self.check_key()
        params = build_params(request, self.spec.options)
        news = request.vertical == "news"
        headers, body = self.call_api("GET", NEWS_ENDPOINT if news else ENDPOINT, params=params)
        results, skipped = parse_news_results(body) if news else parse_results(body)
        facts = {"count": params["count"], "offset": params["offset"], "skipped": skipped}
        for key in ("freshness", "country", "search_lang", "safesearch"):
            if key in params:
                facts[key] = params[key]
        meta = self.meta(self.request_id(headers), facts)
        remaining = headers.get("X-RateLimit-Remaining") if headers is not None else None
        if remaining:
            meta["ratelimit_remaining"] = " ".join(remaining.split())[:60]
        warnings = []
        query = checked.obj(body.get("query"))
        if isinstance(query.get("more_results_available"), bool):
            meta["more_results_available"] = query["more_results_available"]
        altered = _plain(query.get("altered"))
        if altered and altered != params["q"]:
            meta["altered_query"] = altered
            warnings.append("Brave searched for %r instead of the query as typed" % altered)
        if skipped:
            warnings.append("%d result%s without a usable url skipped" % (skipped, "" if skipped == 1 else "s"))
        return {"results": results, "meta": meta, "warnings": warnings}
