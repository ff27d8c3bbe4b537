"""Stack Overflow's question search (Stack Exchange API ``GET /search/advanced``): the ``stackexchange`` source.

A result is a question with what the API says of it: ``votes`` (its score),
``answered`` (the API's is_answered: an accepted or upvoted answer), ``answers``
(their count), ``accepted_answer`` (the accepted answer's URL, or null), ``tags``,
``views``, ``published`` (asked) and ``updated`` (last activity).  Its ``url`` is the
question's page, which a fetch reads through the site adapter
(worker/pages/sites/stackexchange.py) with every answer.

The API answers gzip-compressed JSON (said by Content-Encoding, and read as gzip by
its magic bytes even when a proxy drops the header).  Without a key an address may ask
300 times a day; a key (config ``sites.stackexchange.key``, or ``$STACKEXCHANGE_KEY``)
raises that to 10,000, is sent as the ``key`` parameter to the configured API only and
is never written.  ``throttle_violation`` (HTTP 400, error 502) is ``rate_limited``
with the wait the message names; a ``backoff`` in an answer holds the next request to
the API back that long, for every process sharing the state.
"""

from __future__ import annotations

import re
import time

from .. import checked
from ..errors import WorkerError
from .keyed import KeyedApi, error_body, one_line

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from ..request import SearchRequest
    from .keyed import Headers

DEFAULT_BASE_URL = "https://api.stackexchange.com/2.3"
KEY_ENV = "STACKEXCHANGE_KEY"
SITE = "stackoverflow"
MAX_PAGE_SIZE = 100
SNIPPET_CHARS = 300
RECENCY_DAYS = {"day": 1, "week": 7, "month": 31, "year": 366}
MAX_BACKOFF_S = 600.0
_TAG = re.compile(r"<[^>]*>")
_WAIT = re.compile(r"available in (\d{1,9}) seconds")
# The API's error_id -> (code, retryable): https://api.stackexchange.com/docs/error-handling
ERROR_IDS = {
    400: ("invalid_argument", False),
    401: ("auth", False),
    402: ("auth", False),
    403: ("auth", False),
    405: ("auth", False),
    406: ("auth", False),
    502: ("rate_limited", True),
}


def _text(html_text: Any, limit: int | None = None) -> str:
    """The API's HTML (bodies) or HTML-escaped text (titles) as one plain line."""
    import html

    text = " ".join(html.unescape(_TAG.sub(" ", checked.text(html_text))).split())
    if limit is not None and len(text) > limit:
        cut = text.rfind(" ", 0, limit - 3)
        text = text[: cut if cut > limit // 2 else limit - 3] + "..."
    return text


def _iso(value: Any) -> str | None:
    seconds = checked.whole(value, 0, checked.MAX_EPOCH)
    return None if seconds is None else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def result_of(item: dict[str, Any]) -> dict[str, Any] | None:
    """One result from a search item, or None when it has no usable page URL."""
    url = checked.text(item.get("link")).strip()
    if not url.startswith(("https://", "http://")) or any(ch.isspace() for ch in url):
        return None
    accepted = checked.whole(item.get("accepted_answer_id"), 1, 10**15 - 1)
    origin = "/".join(url.split("/")[:3])  # https://stackoverflow.com
    r: dict[str, Any] = {
        "title": _text(item.get("title"), 300),
        "url": url,
        "snippet": _text(item.get("body"), SNIPPET_CHARS),
        "votes": checked.whole(item.get("score"), -(10**9), 10**9),
        "answered": checked.flag(item.get("is_answered")),
        "answers": checked.whole(item.get("answer_count"), 0, 10**9),
        "accepted_answer": "%s/a/%d" % (origin, accepted) if accepted else None,
        "tags": [t for t in checked.texts(item.get("tags"))[:10] if t],
        "views": checked.whole(item.get("view_count"), 0, 10**12),
        "published": _iso(item.get("creation_date")),
        "updated": _iso(item.get("last_activity_date")),
    }
    return r


class StackExchangeSearch(KeyedApi):
    tools = frozenset({"search"})
    verticals = frozenset({"dev"})
    needs_key = False  # a key raises the daily quota; the API answers without one
    label = "the Stack Exchange API"
    key_env = KEY_ENV
    default_base_url = DEFAULT_BASE_URL
    # 30 requests a second from one address is the API's limit; spacing also lets a backoff hold later requests.
    min_interval = 0.05
    rate_hint = "without a key an address may ask 300 times a day; set %s for 10,000" % KEY_ENV

    def check_key(self) -> str:
        return self.spec.api_key or ""

    def auth_headers(self) -> dict[str, str]:
        return {}  # the key is a query parameter

    def decode(self, raw: bytes) -> dict[str, Any]:
        if raw[:2] == b"\x1f\x8b":  # gzip the headers did not announce (a proxy dropped Content-Encoding)
            import zlib

            try:
                d = zlib.decompressobj(16 + zlib.MAX_WBITS)
                raw = d.decompress(raw, self.max_body)
            except zlib.error as exc:
                raise WorkerError("provider", "%s sent a corrupt gzip body: %s" % (self.label, exc)) from None
        return super().decode(raw)

    def http_error(self, status: int, headers: Headers | None, raw: bytes) -> WorkerError:
        body = error_body(raw)
        error_id = checked.whole(body.get("error_id"), 0, 10**6)
        name = one_line(body.get("error_name"), 60)
        message = one_line(body.get("error_message"))
        if error_id is None and not name:
            return super().http_error(status, headers, raw)
        code, retryable = ERROR_IDS.get(error_id or 0, ("provider", status >= 500 or (error_id or 0) >= 500))
        if name == "throttle_violation":
            code, retryable = "rate_limited", True
        extra: dict[str, Any] = {"status": status, "error_name": name or None}
        hint = "retry in a moment"
        if code == "rate_limited":
            m = _WAIT.search(message)
            if m:
                extra["retry_after"] = int(m.group(1))
            hint = "wait %s and retry; %s" % (
                "%d s" % extra["retry_after"] if "retry_after" in extra else "a while",
                self.rate_hint,
            )
        elif code == "auth":
            hint = "check the Stack Exchange key (sites.stackexchange.key or $%s)" % KEY_ENV
        elif code == "invalid_argument":
            hint = "check the query"
        return WorkerError(
            code,
            self.scrub(
                "%s answered %s (HTTP %d)%s"
                % (self.label, name or "an error", status, ": " + message if message else "")
            ),
            hint=hint,
            retryable=retryable,
            **extra,
        )

    def search(self, request: SearchRequest) -> dict[str, Any]:
        limit = max(1, min(MAX_PAGE_SIZE, int(request.limit or self.spec.options.get("defaultSearchLimit") or 5)))
        params: dict[str, Any] = {
            "q": request.query,
            "site": self.spec.options.get("site") or SITE,
            "order": "desc",
            "sort": "relevance",
            "pagesize": limit,
            "page": request.page or 1,
            "filter": "withbody",
        }
        days = RECENCY_DAYS.get(request.recency or "")
        if days:
            params["fromdate"] = int(time.time()) - days * 86400
        if self.spec.api_key:
            params["key"] = self.spec.api_key
        _headers, body = self.call_api("GET", "/search/advanced", params=params)
        if "error_id" in body:  # an error the API sent with a 200
            from .. import jsonio

            raise self.http_error(200, None, jsonio.dumps(body).encode("utf-8", "replace"))
        results = [r for r in (result_of(i) for i in checked.objs(body.get("items"))) if r is not None]
        facts: dict[str, Any] = {
            "site": params["site"],
            "has_more": checked.flag(body.get("has_more")),
            "quota_remaining": checked.whole(body.get("quota_remaining"), 0, 10**9),
            "key": bool(self.spec.api_key),
        }
        warnings: list[str] = []
        backoff = checked.number(body.get("backoff"), 0, 10**6)
        if backoff:
            facts["backoff_s"] = backoff
            self._hold_back(min(float(backoff), MAX_BACKOFF_S))
            warnings.append("Stack Exchange asked for a pause of %g s before its next request" % backoff)
        return {"results": results, "meta": self.meta(None, facts), "warnings": warnings}

    def _hold_back(self, seconds: float) -> None:
        """The API's ``backoff``: no request to it before ``seconds`` from now, for every process sharing the state."""
        from ..state import ratelimit

        interval = float(self.spec.options.get("minInterval", self.min_interval))
        ratelimit.defer(self.call, "%s-interval-%s" % (self.spec.type, self.name), seconds, interval)
