"""Exa (exa.ai) search and contents through exa-py.

exa-py tracks Exa's API, so the calls go through ``Exa.search`` and
``Exa.get_contents``; we validate the options Exa would reject only after a
paid round trip (include/exclude text, additional queries, dates), build our
normalised results from the exact JSON Exa answered, and keep that JSON under
``raw``.  exa-py builds the request; it is sent by our subclass of ``Exa``,
whose ``request`` (the method every exa-py call goes through) hands it to the
keyed base (providers/keyed.py): the same transport, status codes, Retry-After
and key scrubbing as Brave, and the answer's JSON as it came.  exa-py is
imported the fast way (exa_import), only when an Exa provider answers.
"""

from __future__ import annotations

import datetime
import json
import re

from .. import checked
from ..errors import WorkerError
from ..pages.spec import DEFAULT_MAX_CHARS as DEFAULT_FETCH_CHARS  # the fetch tool's default
from .keyed import KeyedApi

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from types import ModuleType
    from typing import Any, Callable

    from ..request import FetchRequest, SearchRequest

DEFAULT_LIMIT = 5
MAX_LIMIT = 100
MAX_PHRASE_WORDS = 5
MAX_ADDITIONAL_QUERIES = 5
LIVECRAWL = ("never", "fallback", "always", "preferred", "auto")
RECENCY_DAYS = {"day": 1, "week": 7, "month": 31, "year": 366}
REQUEST_TIMEOUT = 120.0  # deep searches take tens of seconds; the call's deadline cuts it anyway
USER_AGENT = "websearch-worker (exa-py)"
DEFAULT_BASE_URL = "https://api.exa.ai"
MAX_BODY = 64 * 1024 * 1024  # contents of 100 URLs at a generous --max-chars; far beyond it is not an answer


# -- validation and request building (pure) ------------------------------------


def _bad(option: str, message: str, hint: str | None = None) -> WorkerError:
    return WorkerError("invalid_argument", "%s: %s" % (option, message), hint=hint, option=option)


def check_date(option: str, value: str | None) -> str | None:
    """An ISO 8601 date or date-time, passed on as given."""
    if value is None:
        return None
    text = value.strip()
    try:
        datetime.datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
    except ValueError:
        raise _bad(
            option,
            "%r is not an ISO 8601 date" % value[:40],
            hint="use YYYY-MM-DD or a full timestamp such as 2025-01-31T00:00:00Z",
        ) from None
    return text


def recency_start(recency: str, now: datetime.datetime | None = None) -> str:
    now = now or datetime.datetime.now(datetime.timezone.utc)
    start = now - datetime.timedelta(days=RECENCY_DAYS[recency])
    return start.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def check_phrase(option: str, phrase: str | None) -> list[str] | None:
    """Exa accepts one phrase of up to five words for include/exclude text."""
    if phrase is None:
        return None
    words = phrase.split()
    if not words:
        raise _bad(option, "the phrase is empty")
    if len(words) > MAX_PHRASE_WORDS:
        raise _bad(
            option,
            "Exa accepts one phrase of up to %d words, got %d" % (MAX_PHRASE_WORDS, len(words)),
            hint="shorten the phrase to its most distinctive words",
        )
    return [" ".join(words)]


def is_deep(search_type: str | None) -> bool:
    return bool(search_type and search_type.startswith("deep"))


def load_schema(value: str | None) -> dict[str, Any] | None:
    """--output-schema: JSON text, or @file holding it."""
    if value is None:
        return None
    source = "--output-schema"
    text = value
    if value.startswith("@"):
        source = "--output-schema file %s" % value[1:]
        from ..errors import UsageError
        from ..files import MAX_OPTION_FILE, TooLarge, read_capped

        try:
            text = read_capped(value[1:]).decode("utf-8")
        except TooLarge:
            raise UsageError(
                "--output-schema: %s is larger than %d bytes; a schema is a small JSON object"
                % (value[1:], MAX_OPTION_FILE)
            ) from None
        except UnicodeDecodeError as exc:
            raise _bad("--output-schema", "%s is not UTF-8 text (byte %d)" % (value[1:], exc.start)) from None
        except OSError as exc:
            raise _bad(
                "--output-schema", "cannot read %s (%s)" % (value[1:], exc.strerror or type(exc).__name__)
            ) from None
    try:
        schema = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise _bad("--output-schema", "%s is nested too deeply" % source) from None
    except ValueError as exc:
        raise _bad(
            "--output-schema",
            "%s is not valid JSON (%s)" % (source, exc),
            hint='e.g. --output-schema \'{"type": "text", "description": "a short answer"}\'',
        ) from None
    if not isinstance(schema, dict) or schema.get("type") not in ("text", "object"):
        raise _bad(
            "--output-schema",
            'the schema must be an object with "type": "text" or "object"',
            hint='e.g. --output-schema \'{"type": "text", "description": "a short answer"}\'',
        )
    return schema


def _no_constant(name: str) -> float:
    raise ValueError("%s is not a JSON number" % name)


def search_kwargs(
    request: SearchRequest, options: dict[str, Any], now: datetime.datetime | None = None
) -> tuple[dict[str, Any], list[str]]:
    """Keyword arguments for ``Exa.search`` from the command line and the provider's options."""
    kw: dict[str, Any] = {}
    warnings = []
    limit = request.limit if request.limit is not None else options.get("defaultSearchLimit", DEFAULT_LIMIT)
    if not 1 <= limit <= MAX_LIMIT:
        warnings.append(
            "--limit %d is outside Exa's range 1-%d; using %d" % (limit, MAX_LIMIT, max(1, min(MAX_LIMIT, limit)))
        )
        limit = max(1, min(MAX_LIMIT, limit))
    kw["num_results"] = limit
    search_type = (request.search_type or "").strip() or None
    if search_type:
        if not re.fullmatch(r"[a-z][a-z0-9_-]{0,39}", search_type):
            raise _bad(
                "--type",
                "%r is not a search type" % search_type[:40],
                hint="auto, neural, fast, deep, deep-lite, deep-reasoning, lite, instant",
            )
        kw["type"] = search_type
    if request.vertical == "news":
        category = (request.category or "").strip()
        if category and category != "news":
            raise _bad(
                "--category",
                "--news asks Exa for category news; %r contradicts it" % category[:40],
                hint="drop --category, or drop --news",
            )
        kw["category"] = "news"
    elif request.category:
        kw["category"] = request.category.strip()
    if request.include_domain:
        kw["include_domains"] = list(request.include_domain)
    if request.exclude_domain:
        kw["exclude_domains"] = list(request.exclude_domain)
    start = check_date("--start-published", request.start_published)
    if request.recency:
        if start:
            raise _bad("--recency", "give either --recency or --start-published, not both")
        start = recency_start(request.recency, now)
    if start:
        kw["start_published_date"] = start
    for option, attr, key in (
        ("--end-published", "end_published", "end_published_date"),
        ("--start-crawl", "start_crawl", "start_crawl_date"),
        ("--end-crawl", "end_crawl", "end_crawl_date"),
    ):
        value = check_date(option, getattr(request, attr))
        if value:
            kw[key] = value
    inc = check_phrase("--include-text", request.include_text)
    if inc:
        kw["include_text"] = inc
    exc = check_phrase("--exclude-text", request.exclude_text)
    if exc:
        kw["exclude_text"] = exc
    location = request.user_location
    if location:
        if not re.fullmatch(r"[A-Za-z]{2}", location.strip()):
            raise _bad("--user-location", "%r is not a two-letter country code" % location[:20], hint="e.g. US, DE, JP")
        kw["user_location"] = location.strip().upper()
    if request.moderation:
        kw["moderation"] = True
    extra = [q.strip() for q in request.additional_query or [] if q.strip()]
    if extra:
        if not is_deep(search_type):
            raise _bad(
                "--additional-query",
                "only deep searches take additional queries",
                hint="add --type deep (or deep-lite, deep-reasoning)",
            )
        if len(extra) > MAX_ADDITIONAL_QUERIES:
            raise _bad(
                "--additional-query", "at most %d additional queries, got %d" % (MAX_ADDITIONAL_QUERIES, len(extra))
            )
        kw["additional_queries"] = extra
    if request.system_prompt:
        kw["system_prompt"] = request.system_prompt
    schema = load_schema(request.output_schema)
    if schema is not None:
        kw["output_schema"] = schema
    contents: dict[str, Any] = {}
    if request.want_text:
        chars = options.get("defaultFetchTextMaxCharacters")
        contents["text"] = {"max_characters": chars} if chars else True
    if request.highlights:
        chars = options.get("defaultFetchHighlightsMaxCharacters")
        contents["highlights"] = {"max_characters": chars} if chars else True
    if request.summary:
        contents["summary"] = True
    kw["contents"] = contents or False  # metadata only unless asked
    return kw, warnings


def fetch_kwargs(request: FetchRequest, options: dict[str, Any]) -> tuple[dict[str, Any], int, int]:
    """(keyword arguments for ``Exa.get_contents``, characters asked for, start index)."""
    kw: dict[str, Any] = {}
    fmt = request.fetch_format
    if fmt == "raw":
        raise _bad(
            "--format",
            "Exa returns extracted text, not raw bytes",
            hint="use --format markdown/text/html, or --provider local for the raw page",
        )
    max_chars = request.max_chars
    if options.get("defaultFetchTextMaxCharacters") and (max_chars is None or _is_tool_default(request)):
        max_chars = options["defaultFetchTextMaxCharacters"]
    max_chars = max_chars or DEFAULT_FETCH_CHARS
    start = request.start_index or 0
    text: dict[str, Any] = {"max_characters": start + max_chars}
    if fmt == "html":
        text["include_html_tags"] = True
    kw["text"] = text
    if request.highlights:
        chars = options.get("defaultFetchHighlightsMaxCharacters")
        kw["highlights"] = {"max_characters": chars} if chars else True
    if request.summary:
        kw["summary"] = True
    livecrawl = request.livecrawl
    if livecrawl:
        if livecrawl not in LIVECRAWL:
            raise _bad("--livecrawl", "%r is not one of %s" % (livecrawl[:20], ", ".join(LIVECRAWL)))
        if request.max_age_hours is not None:
            raise _bad(
                "--livecrawl",
                "Exa does not accept --livecrawl together with --max-age-hours",
                hint="use --max-age-hours alone (0 = always fetch fresh)",
            )
        kw["livecrawl"] = livecrawl
    if request.livecrawl_timeout is not None:
        kw["livecrawl_timeout"] = request.livecrawl_timeout
    if request.max_age_hours is not None:
        if request.max_age_hours < -1:
            raise _bad("--max-age-hours", "must be -1 (cache only), 0 (always fresh) or a number of hours")
        kw["max_age_hours"] = request.max_age_hours
    if request.subpages:
        kw["subpages"] = request.subpages
    targets = [t.strip() for t in request.subpage_target or [] if t.strip()]
    if targets:
        kw["subpage_target"] = targets if len(targets) > 1 else targets[0]
    extras = {}
    if request.links:
        extras["links"] = request.links
    if request.image_links:
        extras["image_links"] = request.image_links
    if extras:
        kw["extras"] = extras
    return kw, max_chars, start


def _is_tool_default(request: FetchRequest) -> bool:
    """Did --max-chars come from the fetch tool's default rather than the user?

    The fetch tool fills ``request.max_chars`` with its default before a provider
    sees it; it may say so in ``request.max_chars_given``.  Without that marker an
    explicit --max-chars equal to the default counts as not given.
    """
    given = request.max_chars_given
    if given is not None:
        return not given
    return request.max_chars == DEFAULT_FETCH_CHARS


# -- response shaping (pure) -------------------------------------------------


def _snippet(item: dict[str, Any]) -> str:
    highlights = checked.texts(item.get("highlights"))
    if highlights:
        return " ... ".join(h for h in highlights if h)
    if checked.text(item.get("summary")):
        return item["summary"]
    text = " ".join(checked.text(item.get("text")).split())
    return text[:300] + ("..." if len(text) > 300 else "")


def source_of(url: str | None) -> str | None:
    """The publisher of a news result as its host (Exa names no publisher): ``www.`` dropped."""
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(url or "").hostname or "").rstrip(".")
    except ValueError:
        return None
    return (host[4:] if host.startswith("www.") else host) or None


# The optional fields a result or item passes on, each read as the type Exa documents (else left out).
PASSED_ON: dict[str, Callable[[Any], Any]] = {
    "text": checked.text,
    "highlights": checked.texts,
    "summary": checked.text,
    "image": checked.text,
    "favicon": checked.text,
    "subpages": checked.objs,
    "extras": checked.obj,
}


def _passed_on(item: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {key: PASSED_ON[key](item[key]) for key in keys if item.get(key) is not None}


def search_result(item: dict[str, Any], news: bool = False) -> dict[str, Any]:
    url = checked.text(item.get("url"))
    r: dict[str, Any] = {
        "title": checked.text(item.get("title")),
        "url": url,
        "snippet": _snippet(item),
        "published": checked.text(item.get("publishedDate")) or None,
        "author": checked.text(item.get("author")) or None,
        "score": checked.number(item.get("score")),
        "id": checked.text(item.get("id")) or None,
    }
    r.update(_passed_on(item, ("text", "highlights", "summary", "image", "favicon", "subpages", "extras")))
    if news:
        r["source"] = source_of(url)
    return r


def search_results(data: dict[str, Any], news: bool = False) -> list[dict[str, Any]]:
    """The results of a search answer that have a url, in Exa's order."""
    return [search_result(r, news) for r in checked.objs(data.get("results")) if checked.text(r.get("url"))]


def raw_summary(data: dict[str, Any]) -> dict[str, Any]:
    """The facts Exa returned beside the results (request id, cost, timing...)."""
    return {k: v for k, v in data.items() if k not in ("results", "statuses")}


def response_meta(data: dict[str, Any], api: KeyedApi, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The meta of an answer: Exa's facts beside the results, then ``extra``."""
    facts: dict[str, Any] = {}
    if checked.text(data.get("resolvedSearchType")):
        facts["resolved_search_type"] = data["resolvedSearchType"]
    cost = checked.number(checked.obj(data.get("costDollars")).get("total"), 0)
    if cost is not None:
        facts["cost_dollars"] = cost
    took = checked.number(data.get("searchTime"), 0)
    if took is not None:
        facts["search_time_ms"] = took
    meta = api.meta(checked.text(data.get("requestId")) or None, facts)
    meta.update(extra or {})
    return meta


def _norm_url(url: str | None) -> str:
    return (url or "").strip().rstrip("/").lower()


# Exa's per-URL errors name its tag and the page's status; they have always been without retryable.
ITEM_ERROR_FIELDS = ("code", "message", "tag", "status")


def status_error(status: dict[str, Any]) -> dict[str, Any]:
    """An Exa per-URL status with ``status: "error"`` as our item error."""
    err: Any = status.get("error") if isinstance(status.get("error"), dict) else {}  # an object, by the test
    tag = checked.text(err.get("tag"))[:100] or "UNKNOWN"
    http = checked.whole(err.get("httpStatusCode"), 100, 599)
    message = "Exa could not fetch this URL (%s%s)" % (tag, ", HTTP %s" % http if http else "")
    if "TIMEOUT" in tag.upper() or http == 408:
        code = "timeout"
    elif http is not None and 400 <= http < 600 and http not in (408,):
        code = "http_error"
    else:
        code = "provider"
    extra: dict[str, Any] = {"tag": tag}
    if http is not None:
        extra["status"] = http
    return WorkerError(code, message, **extra).to_dict(ITEM_ERROR_FIELDS)


def fetch_items(urls: list[str], data: dict[str, Any], max_chars: int, start: int) -> list[dict[str, Any]]:
    """One item per requested URL, in input order, from Exa's results and statuses."""
    results = checked.objs(data.get("results"))
    by_key: dict[str, dict[str, Any]] = {}
    for r in results:
        for key in (checked.text(r.get("id")), checked.text(r.get("url"))):
            if key:
                by_key.setdefault(_norm_url(key), r)
    statuses: dict[str, dict[str, Any]] = {}
    for s in checked.objs(data.get("statuses")):
        if checked.text(s.get("id")):
            statuses.setdefault(_norm_url(s["id"]), s)
    items: list[dict[str, Any]] = []
    for url in urls:
        key = _norm_url(url)
        status = statuses.get(key)
        result = by_key.get(key)
        if status is not None and status.get("status") not in (None, "success"):
            items.append({"url": url, "ok": False, "error": status_error(status)})
            continue
        if result is None:
            items.append(
                {
                    "url": url,
                    "ok": False,
                    "error": WorkerError("provider", "Exa returned no content for this URL").to_dict(ITEM_ERROR_FIELDS),
                }
            )
            continue
        text = checked.text(result.get("text"))
        content = text[start:]
        item = {
            "url": url,
            "ok": True,
            "title": checked.text(result.get("title")),
            "author": checked.text(result.get("author")) or None,
            "published": checked.text(result.get("publishedDate")) or None,
            "content": content,
            "truncated": len(text) >= start + max_chars,
        }
        final = checked.text(result.get("url"))
        if final and final != url:
            item["final_url"] = final
        if start:
            item["start_index"] = start
        item.update(_passed_on(result, ("highlights", "summary", "subpages", "extras", "image", "favicon")))
        if status is not None and checked.text(status.get("source")):
            item["source"] = status["source"]
        items.append(item)
    return items


# -- the provider ------------------------------------------------------------------

_client_classes: dict[type, type] = {}  # exa-py's Exa -> our subclass of it


def client_class(exa_py: ModuleType) -> type:
    """exa-py's ``Exa`` with its one HTTP method, ``request``, sending through a KeyedApi."""
    cls = _client_classes.get(exa_py.Exa)
    if cls is not None:
        return cls

    class Client(exa_py.Exa):  # type: ignore[name-defined]  # exa-py's class, known at run time only
        # websearch_* names: exa-py's own attributes may grow, ours must not collide with them
        def __init__(self, api: KeyedApi, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.websearch_api = api
            self.websearch_answer: dict[str, Any] | None = None  # the JSON object Exa answered, as decoded

        def request(
            self,
            endpoint,
            data=None,
            method="POST",
            params=None,
            headers=None,
            timeout=None,
            extra_headers=None,
            extra_query=None,
            extra_body=None,
        ):
            # ``timeout`` is left to the keyed base: the call's deadline bounds every request
            if extra_query or extra_body or isinstance(data, str) or (isinstance(data, dict) and data.get("stream")):
                raise TypeError("websearch-worker sends JSON objects only: no streams, no extra query or body fields")
            sent = dict(self.headers)
            sent.update(headers or {})
            sent.update({k: v for k, v in (extra_headers or {}).items() if v is not None})
            _headers, answer = self.websearch_api.call_api(
                method.upper(), endpoint, params=params, payload=data or None, headers=sent
            )
            self.websearch_answer = answer
            return answer

    _client_classes[exa_py.Exa] = Client
    return Client


class ExaProvider(KeyedApi):
    tools = frozenset({"search", "fetch"})
    verticals = frozenset({"web", "news"})
    label = "Exa"
    key_env = "EXA_API_KEY"
    default_base_url = DEFAULT_BASE_URL
    request_timeout = REQUEST_TIMEOUT
    max_body = MAX_BODY

    def auth_headers(self) -> dict[str, str]:
        return {"x-api-key": self.check_key()}

    def _call(self, method, *args, **kwargs):
        """(Exa's JSON answer, how exa-py was imported) for one exa-py call."""
        from . import exa_import

        self.check_key()
        exa_py = exa_import.import_exa()
        client = client_class(exa_py)(self, api_key=self.spec.api_key, user_agent=USER_AGENT, base_url=self.base_url())
        try:
            getattr(client, method)(*args, **kwargs)
        except WorkerError:
            raise
        except Exception as exc:  # exa-py refused our arguments, or could not read what Exa answered
            what = "could not read Exa's answer" if client.websearch_answer is not None else "refused the request"
            raise WorkerError(
                "provider",
                "exa-py %s: %s: %s" % (what, type(exc).__name__, self.scrub(" ".join(str(exc).split()))[:300]),
            ) from None
        return client.websearch_answer, exa_import.mode

    def search(self, request: SearchRequest) -> dict[str, Any]:
        kw, warnings = search_kwargs(request, self.spec.options)
        data, mode = self._call("search", request.query, **kw)
        news = request.vertical == "news"
        results = search_results(data, news)
        meta = response_meta(data, self, {"limit": kw["num_results"], "exa_import": mode})
        if kw.get("type"):
            meta["type"] = kw["type"]
        answer = {"results": results, "meta": meta, "raw": raw_summary(data), "warnings": warnings}
        output = checked.obj(data.get("output"))
        if output.get("content") is not None:
            answer["output"] = output
        return answer

    def fetch(self, urls: list[str], request: FetchRequest) -> dict[str, Any]:
        kw, max_chars, start = fetch_kwargs(request, self.spec.options)
        data, mode = self._call("get_contents", list(urls), **kw)
        items = fetch_items(list(urls), data, max_chars, start)
        meta = response_meta(data, self, {"exa_import": mode, "max_chars": max_chars})
        raw = raw_summary(data)
        if data.get("statuses") is not None:
            raw["statuses"] = data["statuses"]
        return {"results": items, "meta": meta, "raw": raw}
