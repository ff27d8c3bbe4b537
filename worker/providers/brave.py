"""Brave Search web API (``/res/v1/web/search``) over plain urllib.

The API is one GET with a handful of query parameters, so a client library
would cost more import time than it saves code.  Mapping the request and the
response are pure functions (``build_params``, ``parse_results``,
``error_from_response``); ``BraveProvider.search`` is the I/O edge.

Request id: Brave documents no request-id header for the web search API (only
the X-RateLimit-* family), but its error bodies carry ``error.id``.  We record
the first of ``X-Request-Id`` / ``Request-Id`` / ``X-Brave-Request-Id`` when a
response has one, else ``error.id`` for errors, as ``meta.request_id`` (None
when Brave sent neither).
"""

import contextlib
import html
import json
import re
import socket
import urllib.error
import urllib.parse
import urllib.request

from .. import __version__
from .. import numbers
from ..errors import WorkerError
from .base import Provider, site_operators

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
    "q": "the query", "count": "--limit", "offset": "--page", "freshness": "--recency",
    "country": "--country", "search_lang": "--search-lang", "safesearch": "--safesearch",
}

_TAG = re.compile(r"<[^>]{0,200}>")


def clamp_count(limit, default=DEFAULT_COUNT, high=MAX_COUNT):
    if limit is None:
        return max(MIN_COUNT, min(high, int(default)))
    return max(MIN_COUNT, min(high, int(limit)))


def build_params(args, options=None):
    """The query parameters for one web (or news) search; raises before any I/O on what Brave would refuse."""
    options = options or {}
    news = getattr(args, "vertical", None) == "news"
    q = site_operators(args.query, getattr(args, "include_domain", None) or [], getattr(args, "exclude_domain", None) or [])
    if len(q) > MAX_QUERY_CHARS or len(q.split()) > MAX_QUERY_WORDS:
        raise WorkerError("invalid_query",
                          "Brave accepts at most %d characters and %d words (with domain filters); this query has %d and %d"
                          % (MAX_QUERY_CHARS, MAX_QUERY_WORDS, len(q), len(q.split())),
                          hint="shorten the query or use fewer --include-domain/--exclude-domain filters")
    page = getattr(args, "page", 1) or 1
    if page - 1 > MAX_OFFSET:
        raise WorkerError("invalid_argument", "Brave serves at most %d pages; --page %d is out of range" % (MAX_OFFSET + 1, page),
                          hint="use --page 1 to %d" % (MAX_OFFSET + 1), field="offset")
    params = {
        "q": q,
        "count": clamp_count(getattr(args, "limit", None), options.get("defaultSearchLimit", DEFAULT_COUNT),
                             MAX_NEWS_COUNT if news else MAX_COUNT),
        "offset": page - 1,
    }
    if not news:  # the news endpoint takes neither
        params["text_decorations"] = "false"  # plain snippets, no <strong> markup
        params["result_filter"] = "web"  # only the web section: a smaller answer
    if options.get("extraSnippets", True):
        params["extra_snippets"] = "true"
    recency = getattr(args, "recency", None)
    if recency:
        params["freshness"] = FRESHNESS[recency]
    country = getattr(args, "country", None) or options.get("country")
    if country:
        params["country"] = country
    lang = getattr(args, "search_lang", None) or options.get("searchLang")
    if lang:
        params["search_lang"] = lang
    safesearch = getattr(args, "safesearch", None) or options.get("safesearch")
    if safesearch:
        params["safesearch"] = SAFESEARCH.get(safesearch, safesearch)
    return params


def _plain(value):
    """A string field as plain one-line text (defends against markup and non-strings)."""
    if not isinstance(value, str):
        return ""
    return " ".join(html.unescape(_TAG.sub("", value)).split())


def _usable_url(value):
    if not isinstance(value, str):
        return None
    value = value.strip()
    scheme = value.split(":", 1)[0].lower()
    if scheme not in ("http", "https") or any(ch.isspace() for ch in value):
        return None
    return value


def _usable(items):
    """([(item, result with title, url and snippet)], skipped) for a list of items."""
    pairs, skipped = [], 0
    for item in items:
        url = _usable_url(item.get("url")) if isinstance(item, dict) else None
        if not url:
            skipped += 1
            continue
        pairs.append((item, {"title": _plain(item.get("title")), "url": url,
                             "snippet": _plain(item.get("description"))}))
    return pairs, skipped


def _age_and_extras(item, r):
    age = _plain(item.get("age"))
    if age:
        r["age"] = age
    extra = item.get("extra_snippets")
    if isinstance(extra, list):
        extra = [s for s in (_plain(x) for x in extra) if s]
        if extra:
            r["extra_snippets"] = extra


def parse_results(body):
    """(results, skipped) from a 200 body; never raises on a missing or mistyped field."""
    web = body.get("web") if isinstance(body, dict) else None
    items = web.get("results") if isinstance(web, dict) else None
    if not isinstance(items, list):
        return [], 0
    out = []
    pairs, skipped = _usable(items)
    for item, r in pairs:
        page_age = item.get("page_age")
        if isinstance(page_age, str) and page_age.strip():
            r["published"] = page_age.strip()
        _age_and_extras(item, r)
        profile = item.get("profile")
        if isinstance(profile, dict) and _plain(profile.get("name")):
            r["site"] = _plain(profile.get("name"))
        lang = item.get("language")
        if isinstance(lang, str) and lang:
            r["language"] = lang
        out.append(r)
    return out, skipped


def parse_news_results(body):
    """(results, skipped) from a news endpoint's 200 body: ``results`` at the top level.

    ``source`` is the publisher as Brave names it (``profile.name``), else the
    host Brave shows (``meta_url.hostname``)."""
    items = body.get("results") if isinstance(body, dict) else None
    if not isinstance(items, list):
        return [], 0
    out = []
    pairs, skipped = _usable(items)
    for item, r in pairs:
        page_age = item.get("page_age")
        r["published"] = page_age.strip() if isinstance(page_age, str) and page_age.strip() else None
        profile = item.get("profile") if isinstance(item.get("profile"), dict) else {}
        meta_url = item.get("meta_url") if isinstance(item.get("meta_url"), dict) else {}
        source = _plain(profile.get("name")) or _plain(meta_url.get("hostname")) or _plain(meta_url.get("netloc"))
        r["source"] = source or None
        if item.get("breaking") is True:
            r["breaking"] = True
        _age_and_extras(item, r)
        thumb = item.get("thumbnail") if isinstance(item.get("thumbnail"), dict) else {}
        image = _usable_url(thumb.get("src"))
        if image:
            r["image"] = image
        out.append(r)
    return out, skipped


def _header(headers, names):
    for name in names:
        value = headers.get(name) if headers is not None else None
        if value:
            return " ".join(str(value).split())[:200]
    return None


def _number_list(value):
    """Brave's comma-separated X-RateLimit-* values; a part that is not a sane number is left out."""
    out = []
    for part in (value or "").split(",")[:8]:
        n = numbers.or_none(part, lo=0, hi=MAX_RETRY_AFTER)
        if n is not None:
            out.append(n)
    return out


def retry_after(headers):
    """Seconds to wait from Retry-After, else from Brave's X-RateLimit-Reset for the exhausted window."""
    value = headers.get("Retry-After") if headers is not None else None
    if value:
        value = value.strip()
        seconds = numbers.or_none(value, lo=0, hi=MAX_RETRY_AFTER, integer=True)
        if seconds is not None:
            return seconds
        if not value[:1].isdigit():
            try:
                from email.utils import parsedate_to_datetime
                import time

                return min(MAX_RETRY_AFTER, max(0, int(round(parsedate_to_datetime(value).timestamp() - time.time()))))
            except (TypeError, ValueError, OverflowError, IndexError):
                pass
    resets = _number_list(headers.get("X-RateLimit-Reset") if headers is not None else None)
    remaining = _number_list(headers.get("X-RateLimit-Remaining") if headers is not None else None)
    if resets:
        exhausted = [r for r, left in zip(resets, remaining) if left <= 0]
        return max(1, int(round(max(exhausted) if exhausted else resets[0])))
    return None


def _error_body(raw):
    try:
        body = json.loads(raw.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return {}
    err = body.get("error") if isinstance(body, dict) else None
    return err if isinstance(err, dict) else {}


def _invalid_fields(err):
    """[(field, message)] from a 422 body's error.meta.errors[].loc/msg."""
    meta = err.get("meta") if isinstance(err.get("meta"), dict) else {}
    errors = meta.get("errors") if isinstance(meta.get("errors"), list) else []
    out = []
    for e in errors:
        if not isinstance(e, dict):
            continue
        loc = e.get("loc")
        field = loc[-1] if isinstance(loc, list) and loc else e.get("field")
        if field is not None:
            out.append((str(field)[:60], _plain(e.get("msg") or e.get("message"))[:200]))
    return out


def error_from_response(status, headers, raw, name="brave"):
    """A WorkerError for a non-200 answer (pure: status, headers, body bytes)."""
    err = _error_body(raw)
    detail = _plain(err.get("detail") or err.get("message") or err.get("code"))[:300]
    extra = {"status": status}
    rid = _header(headers, REQUEST_ID_HEADERS) or (_plain(err.get("id"))[:200] or None)
    if rid:
        extra["request_id"] = rid
    suffix = (": " + detail) if detail else ""
    if status in (401, 403):
        return WorkerError("auth", "Brave refused the API key of provider %r (HTTP %d)%s" % (name, status, suffix),
                           hint="check BRAVE_API_KEY or the apiKey of provider %r in the config file" % name, **extra)
    if status == 402:
        return WorkerError("quota", "the Brave account of provider %r is out of credit (HTTP 402)%s" % (name, suffix),
                           hint="check the plan and billing in the Brave API dashboard", **extra)
    if status == 422:
        fields = _invalid_fields(err)
        if fields:
            extra["field"] = fields[0][0]
            parts = ["%s (%s): %s" % (f, FIELD_OPTIONS.get(f, "option"), m) if m else "%s (%s)" % (f, FIELD_OPTIONS.get(f, "option"))
                     for f, m in fields[:5]]
            message = "Brave rejected the request: invalid %s" % "; ".join(parts)
        else:
            message = "Brave rejected the request (HTTP 422)%s" % suffix
        return WorkerError("invalid_argument", message, hint="fix the named option and try again", **extra)
    if status == 429:
        wait = retry_after(headers)
        if wait is not None:
            extra["retry_after"] = wait
        return WorkerError("rate_limited", "Brave rate limit reached for provider %r (HTTP 429)%s" % (name, suffix),
                           hint="wait %s and retry; the free plan allows one request per second"
                                % ("%d s" % wait if wait is not None else "a second"), **extra)
    if status >= 500:
        return WorkerError("provider", "Brave answered HTTP %d%s" % (status, suffix), hint="retry in a moment", **extra)
    return WorkerError("provider", "Brave answered HTTP %d%s" % (status, suffix),
                       retryable=False, hint="this request is not one Brave accepts", **extra)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """The API never redirects; following one would resend the key to wherever it points."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


def _opener():
    return urllib.request.build_opener(_NoRedirect)


def _rate_slot(call, key, min_interval, limit):
    """Brave's per-plan spacing between request starts, across every worker process of the user.

    Concurrency itself is the search tool's slot (registry.search_concurrency); this
    one only adds the minimum interval (free plan: 1 s; paid plans set
    ``options.minInterval`` lower, or 0 to skip it).
    """
    if min_interval <= 0:
        return contextlib.nullcontext(0.0)
    from ..state import ratelimit

    return ratelimit.slot(call, key, limit=limit, min_interval=min_interval)


class BraveProvider(Provider):
    tools = frozenset({"search"})
    verticals = frozenset({"web", "news"})
    needs_key = True

    def _scrub(self, text):
        key = self.spec.api_key
        return text.replace(key, "***") if key and isinstance(text, str) else text

    def _check_key(self):
        if not self.spec.api_key:
            raise WorkerError("config", "provider %r (brave) has no API key" % self.name,
                              hint='export BRAVE_API_KEY=... or add "apiKey" to its entry in the config file')

    def url(self, params, endpoint=ENDPOINT):
        base = (self.spec.base_url or DEFAULT_BASE_URL).rstrip("/")
        return base + endpoint + "?" + urllib.parse.urlencode(params)

    def search(self, args):
        self._check_key()
        params = build_params(args, self.spec.options)
        news = getattr(args, "vertical", None) == "news"
        req = urllib.request.Request(self.url(params, NEWS_ENDPOINT if news else ENDPOINT), headers={
            "Accept": "application/json",
            "Accept-Encoding": "gzip",
            "User-Agent": "websearch-worker/%s" % __version__,
            "X-Subscription-Token": self.spec.api_key,
        })
        interval = float(self.spec.options.get("minInterval", DEFAULT_MIN_INTERVAL))
        with _rate_slot(self.call, "brave-interval-%s" % self.name, interval, int(self.spec.options.get("concurrency", 5))):
            status, headers, raw = self._send(req)
        if status != 200:
            exc = error_from_response(status, headers, raw, self.name)
            exc.message = self._scrub(exc.message)
            if "request_id" in exc.extra:  # a server may echo the token in its request id
                exc.extra["request_id"] = self._scrub(exc.extra["request_id"])
            raise exc
        from .. import jsonio

        try:
            body = jsonio.tame(json.loads(raw.decode("utf-8", errors="replace")))
        except (ValueError, RecursionError):  # jsonio.Untamed is a ValueError
            raise WorkerError("provider", "Brave answered with a body that is not JSON it can use (%d bytes)" % len(raw),
                              hint="retry in a moment") from None
        if not isinstance(body, dict):
            raise WorkerError("provider", "Brave answered with an unexpected JSON shape", hint="retry in a moment")
        results, skipped = parse_news_results(body) if news else parse_results(body)
        meta = {
            "request_id": self._scrub(_header(headers, REQUEST_ID_HEADERS)),
            "count": params["count"],
            "offset": params["offset"],
            "skipped": skipped,
        }
        for key in ("freshness", "country", "search_lang", "safesearch"):
            if key in params:
                meta[key] = params[key]
        if self.spec.key_source:
            meta["key_source"] = self.spec.key_source
        remaining = headers.get("X-RateLimit-Remaining") if headers is not None else None
        if remaining:
            meta["ratelimit_remaining"] = " ".join(remaining.split())[:60]
        warnings = []
        query = body.get("query") if isinstance(body.get("query"), dict) else {}
        if isinstance(query.get("more_results_available"), bool):
            meta["more_results_available"] = query["more_results_available"]
        altered = _plain(query.get("altered"))
        if altered and altered != params["q"]:
            meta["altered_query"] = altered
            warnings.append("Brave searched for %r instead of the query as typed" % altered)
        if skipped:
            warnings.append("%d result%s without a usable url skipped" % (skipped, "" if skipped == 1 else "s"))
        return {"results": results, "meta": meta, "warnings": warnings}

    def _send(self, req):
        """(status, headers, body bytes); maps transport failures to timeout/network."""
        timeout = self.call.bounded(float(self.spec.options.get("timeout", REQUEST_TIMEOUT)))
        try:
            resp = _opener().open(req, timeout=timeout)
        except urllib.error.HTTPError as exc:
            with contextlib.closing(exc):
                return exc.code, exc.headers, self._read(exc, exc.headers)
        except (socket.timeout, TimeoutError):
            raise WorkerError("timeout", "Brave did not answer within %.0f s" % timeout,
                              hint="retry, or raise --timeout") from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, (socket.timeout, TimeoutError)):
                raise WorkerError("timeout", "Brave did not answer within %.0f s" % timeout,
                                  hint="retry, or raise --timeout") from None
            raise WorkerError("network", "cannot reach Brave at %s: %s" % (self._host(), self._scrub(str(reason))[:200]),
                              hint="check the network connection, proxy settings (HTTPS_PROXY) and DNS") from None
        except (ConnectionError, OSError) as exc:
            raise WorkerError("network", "cannot reach Brave at %s: %s" % (self._host(), self._scrub(str(exc))[:200]),
                              hint="check the network connection and proxy settings") from None
        with contextlib.closing(resp):
            try:
                return resp.status, resp.headers, self._read(resp, resp.headers)
            except (socket.timeout, TimeoutError):
                raise WorkerError("timeout", "Brave's answer stalled (no data within %.0f s)" % timeout,
                                  hint="retry, or raise --timeout") from None
            except (ConnectionError, OSError) as exc:
                raise WorkerError("network", "the connection to Brave broke: %s" % str(exc)[:200],
                                  hint="retry in a moment") from None

    def _host(self):
        return urllib.parse.urlsplit(self.spec.base_url or DEFAULT_BASE_URL).netloc or "?"

    @staticmethod
    def _read(resp, headers, cap=8 * 1024 * 1024):
        raw = resp.read(cap + 1)
        if len(raw) > cap:
            raise WorkerError("provider", "Brave's answer exceeded %d bytes" % cap)
        if (headers.get("Content-Encoding") or "").lower() == "gzip":
            import zlib

            try:
                d = zlib.decompressobj(16 + zlib.MAX_WBITS)
                raw = d.decompress(raw, cap)
                if d.unconsumed_tail:
                    raise WorkerError("provider", "Brave's decompressed answer exceeded %d bytes" % cap)
            except zlib.error as exc:
                raise WorkerError("provider", "Brave sent a corrupt gzip body: %s" % exc) from None
        return raw
