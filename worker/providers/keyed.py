"""The base of the keyed JSON APIs (Brave, Exa): what they share, written once.

A keyed provider declares its service (label, key variable, default base URL,
the header that carries the key) and maps its own request and response; the
base does the rest the same way for every such API: the key check, the
spacing between requests (rate slot), the deadline, the size cap, JSON
decoding, HTTP status to error code (``STATUS_CODES``), Retry-After, keeping
the key out of its messages and request ids, and the meta every answer carries.

The transport is urllib with redirects refused: the API never redirects, and
following one would resend the key to wherever it points.  Exa's requests
come here too, from exa-py's own request method (providers/exa.py), so both
APIs fail, time out and report in the same words.
"""

from __future__ import annotations

import contextlib
import socket
import urllib.error
import urllib.parse
import urllib.request

from .. import __version__, numbers
from ..errors import WorkerError
from ..redact import MASK
from .base import Provider

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Mapping
    from email.message import Message
    from typing import Any

    # An answer's headers: http.client's message, or a plain dict (tests, error_from_response).
    Headers = Mapping[str, str] | Message

MAX_BODY = 8 * 1024 * 1024  # a search answer is tens of KB; far beyond it is a broken or hostile server
RETRY_STATUSES = (429, 503)  # answers whose Retry-After is waited out once within the call
MAX_RETRY_WAIT = 30.0  # the longest Retry-After waited out in a call (the fetch client's bound too)
RETRY_MARGIN_S = 1.0  # what must be left after the wait for the second ask

# HTTP error status -> (code, retryable).  400 and 422 are the two ways these APIs say
# "this request is wrong" (Exa answers 400, Brave 422); anything else not listed is the
# service failing: retryable when 5xx, not when another 4xx (a wrong baseUrl, say).
STATUS_CODES = {
    400: ("invalid_argument", False),
    422: ("invalid_argument", False),
    401: ("auth", False),
    403: ("auth", False),
    402: ("quota", False),
    429: ("rate_limited", True),
}


def status_code(status: int) -> tuple[str, bool]:
    """(code, retryable) for an HTTP error status from a keyed API."""
    if status in STATUS_CODES:
        return STATUS_CODES[status]
    return "provider", status >= 500


def error_body(raw: bytes) -> dict[str, Any]:
    """The JSON object of an error answer, or {} when it is not one."""
    from .. import jsonio

    try:
        body = jsonio.loads(raw.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return {}
    return body if isinstance(body, dict) else {}


def one_line(value: object, limit: int = 300) -> str:
    """A server's text as one line of at most ``limit`` characters ("" for what is not text)."""
    if not isinstance(value, str):
        return ""
    return " ".join(value.split())[:limit]


def error_detail(body: dict[str, Any]) -> tuple[str, str | None]:
    """(detail, request id) from an error body: Brave's {"error": {"detail", "id"}},
    Exa's {"error": "...", "requestId"}, or a plain {"message"}."""
    err = body.get("error")
    if isinstance(err, dict):
        return (
            one_line(err.get("detail")) or one_line(err.get("message")) or one_line(err.get("code")),
            one_line(err.get("id"), 200) or None,
        )
    return one_line(err) or one_line(body.get("message")), one_line(body.get("requestId"), 200) or None


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class KeyedApi(Provider):
    """A provider behind one keyed JSON API; subclasses declare the service and map its calls."""

    needs_key = True
    #: the service as messages name it
    label = "the API"
    #: the environment variable a user puts the key in (hints name it)
    key_env: str | None = None
    default_base_url: str = None  # type: ignore[assignment]  # each API declares its own; no default here
    #: seconds per connect and per read unless options.timeout says; the call's deadline cuts it
    request_timeout = 20.0
    #: seconds between request starts unless options.minInterval says (across processes)
    min_interval = 0.0
    max_body = MAX_BODY
    #: the longest Retry-After worth reporting
    max_retry_after = numbers.MAX_RETRY_AFTER
    #: response headers that may carry a request id, first found wins
    request_id_headers: tuple[str, ...] = ()
    #: added to the rate-limit hint
    rate_hint = ""
    #: the Retry-After this provider waited out before asking again (once per call), or None
    retried_after: float | None = None

    # -- declared by each API ------------------------------------------------------

    def auth_headers(self) -> dict[str, str]:
        """The request headers that carry the key."""
        raise NotImplementedError

    def retry_wait(self, headers: Headers | None) -> float | None:
        """Seconds to wait after a 429, from its headers (Retry-After unless the API says more)."""
        return numbers.retry_after(_get(headers, "Retry-After"), self.max_retry_after)

    def refine_error(self, exc: WorkerError, status: int, body: dict[str, Any]) -> WorkerError:
        """The API's own reading of an error answer (e.g. the field a 422 names); returns the error."""
        return exc

    def waitable(self, status: int, headers: Headers | None) -> float | None:
        """Seconds to wait before asking once more after a 429 or 503, or None when its Retry-After
        (none, too long, past what is left of the call or of this attempt) is not worth waiting for."""
        if status not in RETRY_STATUSES or self.retried_after is not None:
            return None
        wait = self.retry_wait(headers) if status == 429 else numbers.retry_after(_get(headers, "Retry-After"))
        if wait is None or wait > MAX_RETRY_WAIT:
            return None
        left = self.call.remaining() if self.call is not None else None
        if left is not None and wait + RETRY_MARGIN_S > left:
            return None
        return float(wait)

    # -- shared --------------------------------------------------------------------

    def scrub(self, text: Any) -> Any:
        """``text`` with the key masked; what is not a string passes through as it is."""
        key = self.spec.api_key
        return text.replace(key, MASK) if key and isinstance(text, str) else text

    def check_key(self) -> str:
        """The key; a config error when there is none."""
        if not self.spec.api_key:
            raise WorkerError(
                "config",
                "provider %r (%s) has no API key" % (self.name, self.spec.type),
                hint='export %s=... or add "apiKey" to its entry in the config file' % self.key_env,
            )
        return self.spec.api_key

    def base_url(self) -> str:
        return (self.spec.base_url or self.default_base_url).rstrip("/")

    def host(self) -> str:
        return urllib.parse.urlsplit(self.base_url()).netloc or "?"

    def request_id(self, headers: Headers | None) -> str | None:
        """The first request-id header the answer has (one line, key masked), else None."""
        for name in self.request_id_headers:
            value = one_line(_get(headers, name), 200)
            if value:
                return self.scrub(value)
        return None

    def meta(self, request_id: str | None, facts: dict[str, Any] | None = None) -> dict[str, Any]:
        """The meta of an answer: request id, the provider's facts, where the key came from."""
        meta = {"request_id": self.scrub(request_id)}
        meta.update(facts or {})
        if self.retried_after is not None:
            meta["retried_after_s"] = round(self.retried_after, 1)
        if self.spec.key_source:
            meta["key_source"] = self.spec.key_source
        return meta

    def call_api(
        self,
        method: str,
        path: str,
        params: dict[str, Any] | None = None,
        payload: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[Headers, dict[str, Any]]:
        """(response headers, JSON object) for one request; raises WorkerError for anything else.

        ``payload`` is sent as a JSON body; ``headers`` are the caller's, the key's are added last.
        """
        self.check_key()
        url = self.base_url() + path + ("?" + urllib.parse.urlencode(params) if params else "")
        sent = {
            "Accept": "application/json",
            "Accept-Encoding": "gzip",
            "User-Agent": "websearch-worker/%s" % __version__,
        }
        sent.update(headers or {})
        data = None
        if payload is not None:
            from .. import jsonio

            data = jsonio.dumps(payload).encode("ascii")
            sent["Content-Type"] = "application/json"
        sent.update(self.auth_headers())
        req = urllib.request.Request(url, data=data, headers=sent, method=method)
        with self._rate_slot():
            status, answer_headers, raw = self._send(req)
        wait = self.waitable(status, answer_headers)
        if wait is not None:
            # Honoured, not passed on: the wait is the fleet's (no start for this API before it), then one more ask.
            slot = self._rate_slot(after=wait)
            try:
                slot.__enter__()
            except WorkerError as exc:
                if exc.code != "timeout":
                    raise
                # other calls hold the slots up to the deadline: the first answer stands
            else:
                self.retried_after = wait
                try:
                    status, answer_headers, raw = self._send(req)
                finally:
                    slot.__exit__(None, None, None)
        if status != 200:
            raise self.http_error(status, answer_headers, raw)
        return answer_headers, self.decode(raw)

    def decode(self, raw: bytes) -> dict[str, Any]:
        """A 200 body as a JSON object, NaN and Infinity made null."""
        from .. import jsonio

        try:
            body = jsonio.tame(jsonio.loads(raw.decode("utf-8", errors="replace")))
        except (ValueError, RecursionError):  # jsonio.Untamed is a ValueError
            raise WorkerError(
                "provider",
                "%s answered with a body that is not JSON it can use (%d bytes)" % (self.label, len(raw)),
                hint="retry in a moment",
            ) from None
        if not isinstance(body, dict):
            raise WorkerError(
                "provider", "%s answered with an unexpected JSON shape" % self.label, hint="retry in a moment"
            )
        return body

    def http_error(self, status: int, headers: Headers | None, raw: bytes) -> WorkerError:
        """The WorkerError for a non-200 answer (status, headers, body bytes: no I/O)."""
        body = error_body(raw)
        detail, body_id = error_detail(body)
        code, retryable = status_code(status)
        extra: dict[str, Any] = {"status": status}
        rid = self.request_id(headers) or body_id
        if rid:
            extra["request_id"] = rid
        suffix = (": " + detail) if detail else ""
        label, name = self.label, self.name
        if code == "auth":
            message = "%s refused the API key of provider %r (HTTP %d)%s" % (label, name, status, suffix)
            hint = "check %s or the apiKey of provider %r in the config file" % (self.key_env, name)
        elif code == "quota":
            message = "the %s account of provider %r is out of credit (HTTP %d)%s" % (label, name, status, suffix)
            hint = "check the plan and credit in the %s dashboard, or use another provider with --provider" % label
        elif code == "rate_limited":
            wait = self.retry_wait(headers)
            if wait is not None:
                extra["retry_after"] = wait = int(round(wait))
            message = "%s rate limit reached for provider %r (HTTP %d)%s" % (label, name, status, suffix)
            hint = "wait %s and retry" % ("%d s" % wait if wait is not None else "a moment")
            if self.rate_hint:
                hint += "; " + self.rate_hint
        elif code == "invalid_argument":
            message = "%s rejected the request (HTTP %d)%s" % (label, status, suffix)
            hint = "check the %s options given" % label
        elif retryable:
            message = "%s answered HTTP %d%s" % (label, status, suffix)
            hint = "retry in a moment"
        else:
            message = "%s answered HTTP %d%s" % (label, status, suffix)
            hint = "this request is not one %s accepts; check the provider's baseUrl" % label
        exc = self.refine_error(WorkerError(code, message, hint=hint, retryable=retryable, **extra), status, body)
        exc.message = self.scrub(exc.message)
        if "request_id" in exc.extra:  # a server may echo the key in its request id
            exc.extra["request_id"] = self.scrub(exc.extra["request_id"])
        return exc

    def _rate_slot(self, after: float | None = None):
        """The API's spacing between request starts, across every worker process sharing the state
        (this user's on this machine, or the fleet's on Redis).

        Concurrency itself is the search tool's slot (registry.search_concurrency); this
        only adds the minimum interval (Brave's free plan: 1 s; options.minInterval
        sets it, 0 skips it) and, ``after`` a 429 or 503, its Retry-After.
        """
        options = self.spec.options
        interval = float(options.get("minInterval", self.min_interval))
        if interval <= 0 and not after:
            return contextlib.nullcontext(0.0)
        from ..state import ratelimit

        return ratelimit.slot(
            self.call,
            "%s-interval-%s" % (self.spec.type, self.name),
            limit=int(options.get("concurrency", 5)),
            min_interval=max(interval, 0.0),
            after=after,
        )

    def _timeout(self):
        seconds = float(self.spec.options.get("timeout", self.request_timeout))
        return self.call.bounded(seconds) if self.call is not None else seconds

    def _send(self, req: urllib.request.Request) -> tuple[int, Headers, bytes]:
        """(status, headers, body bytes); transport failures become timeout/network."""
        timeout = self._timeout()
        label = self.label
        try:
            resp = urllib.request.build_opener(_NoRedirect).open(req, timeout=timeout)
        except urllib.error.HTTPError as exc:
            with contextlib.closing(exc):
                return exc.code, exc.headers, self._read(exc, exc.headers)
        except (socket.timeout, TimeoutError):
            raise WorkerError(
                "timeout", "%s did not answer within %.0f s" % (label, timeout), hint="retry, or raise --timeout"
            ) from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, (socket.timeout, TimeoutError)):
                raise WorkerError(
                    "timeout", "%s did not answer within %.0f s" % (label, timeout), hint="retry, or raise --timeout"
                ) from None
            raise WorkerError(
                "network",
                "cannot reach %s at %s: %s" % (label, self.host(), self.scrub(str(reason))[:200]),
                hint="check the network connection, proxy settings (HTTPS_PROXY), DNS and the provider's baseUrl",
            ) from None
        except (ConnectionError, OSError) as exc:
            raise WorkerError(
                "network",
                "cannot reach %s at %s: %s" % (label, self.host(), self.scrub(str(exc))[:200]),
                hint="check the network connection and proxy settings",
            ) from None
        with contextlib.closing(resp):
            try:
                return resp.status, resp.headers, self._read(resp, resp.headers)
            except (socket.timeout, TimeoutError):
                raise WorkerError(
                    "timeout",
                    "%s's answer stalled (no data within %.0f s)" % (label, timeout),
                    hint="retry, or raise --timeout",
                ) from None
            except (ConnectionError, OSError) as exc:
                raise WorkerError(
                    "network",
                    "the connection to %s broke: %s" % (label, self.scrub(str(exc))[:200]),
                    hint="retry in a moment",
                ) from None

    def _read(self, resp: Any, headers: Headers) -> bytes:
        cap = self.max_body
        raw = resp.read(cap + 1)
        if len(raw) > cap:
            raise WorkerError("provider", "%s's answer exceeded %d bytes" % (self.label, cap))
        if (_get(headers, "Content-Encoding") or "").lower() == "gzip":
            import zlib

            try:
                d = zlib.decompressobj(16 + zlib.MAX_WBITS)
                raw = d.decompress(raw, cap)
                if d.unconsumed_tail:
                    raise WorkerError("provider", "%s's decompressed answer exceeded %d bytes" % (self.label, cap))
            except zlib.error as exc:
                raise WorkerError("provider", "%s sent a corrupt gzip body: %s" % (self.label, exc)) from None
        return raw


def _get(headers: Headers | None, name: str) -> str | None:
    return headers.get(name) if headers is not None else None
