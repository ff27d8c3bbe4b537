"""One URL in, one bounded Response out: the guarded download.

Every hop (the first request and each redirect) goes through ``_open``, which
validates the URL, resolves the host, refuses private addresses and connects to
the vetted address itself.  A watchdog shuts the socket at the per-URL
deadline, so a server that drips a byte a second cannot hold the call.
"""

from __future__ import annotations

import http.client
import socket
import threading
import time
import zlib

from ... import __version__, numbers
from ...errors import WorkerError
from . import guard, proxy

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    import ssl
    from typing import Any, Callable, Literal

PROJECT_URL = "https://github.com/websearch-worker/websearch-worker"
# The default names us, our version and where to read about us, so a site can tell what reads it
# (config "userAgent" replaces it).
USER_AGENT = "websearch-worker/%s (+%s; web fetch tool for AI coding agents; one request per page asked for)" % (
    __version__,
    PROJECT_URL,
)
# Markdown first: a site that serves its pages as markdown saves the extraction and
# its mistakes (worker.pages.fetch.negotiate falls back to the HTML when the markdown is no good).
ACCEPT = "text/markdown, text/html;q=0.9, */*;q=0.8"
HTML_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,application/pdf;q=0.8,*/*;q=0.5"
from . import DEFAULT_MAX_BYTES  # noqa: E402,F401  (re-exported)

REDIRECTS = (301, 302, 303, 307, 308)
MAX_RETRY_AFTER = 30.0  # longest Retry-After we wait out within one call
BOMB_RATIO = 200  # decoded/wire beyond this when over the cap: a compression bomb, not a page
CHUNK = 64 * 1024


class Options:
    # set by worker.pages.pipeline for its own reading; the client ignores them
    llms_txt: bool
    robots: Any  # worker.pages.fetch.robots.RobotsCheck | None
    conditional: dict[str, str] | None  # a revalidation's If-None-Match / If-Modified-Since
    prefetched: Response | None  # the page as another request of the call downloaded it (a crawl's map)

    def __init__(
        self,
        allow_private: bool = False,
        max_bytes: int = DEFAULT_MAX_BYTES,
        connect_timeout: float = 10.0,
        read_timeout: float = 20.0,
        deadline: float | None = None,
        max_redirects: int = 5,
        refuse: Callable[[str, float | None], WorkerError | None] | None = None,
        headers: Callable[[str], dict[str, str] | None] | None = None,
        trusted: Callable[[str], bool] | None = None,
        keep_errors: bool = False,
        accept: str = ACCEPT,
        user_agent: str | None = None,
        redirect_check: Callable[[str], None] | None = None,
    ):
        self.allow_private = allow_private
        self.max_bytes = max_bytes
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.deadline = deadline  # time.monotonic() value, or None
        self.max_redirects = max_redirects
        # refuse(content_type, content_length) -> WorkerError | None, asked before the body is read
        self.refuse = refuse
        # headers(url) -> dict of extra request headers for that hop (site adapters: API Accept,
        # Authorization); asked per hop so a token never follows a redirect to another origin.
        self.headers = headers
        # trusted(url) -> bool: a hop the config named (a site adapter's API base) may be private,
        # as a provider's baseUrl may.
        self.trusted = trusted
        # Return 4xx/5xx responses (body read) instead of raising: an API's error body and
        # rate-limit headers say what went wrong.
        self.keep_errors = keep_errors
        self.accept = accept
        self.user_agent = user_agent  # None: USER_AGENT
        # redirect_check(url) is asked before a redirect is followed to url; it raises to refuse (robots.txt)
        self.redirect_check = redirect_check


class Response:
    # set by worker.pages.fetch.negotiate on the response it picks, and only there
    source_markdown: bool
    page_url: str
    # set by worker.pages.sites.fetch on the page it read when its adapter could not answer
    adapter_warnings: list[str]

    def __init__(
        self,
        url: str,
        final_url: str,
        status: int,
        headers: dict[str, str],
        body: bytes,
        truncated: bool,
        wire_bytes: int,
        redirects: list[str],
    ):
        self.url = url
        self.final_url = final_url
        self.status = status
        self.headers = headers  # {lower-case name: value}
        self.body = body
        self.truncated = truncated
        self.wire_bytes = wire_bytes
        self.redirects = redirects

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")


_tls: dict[str, ssl.SSLContext] = {}
_tls_lock = threading.Lock()


def tls_context() -> ssl.SSLContext:
    """One default context per process (loading CA certs costs ~10 ms; ssl is imported only for https)."""
    with _tls_lock:
        ctx = _tls.get("ctx")
        if ctx is None:
            import ssl

            ctx = _tls["ctx"] = ssl.create_default_context()
        return ctx


def _left(deadline: float | None) -> float | None:
    return None if deadline is None else deadline - time.monotonic()


def _bound(seconds: float, deadline: float | None, what: str = "the request") -> float:
    left = _left(deadline)
    if left is None:
        return seconds
    if left <= 0:
        raise WorkerError("timeout", "%s ran out of time" % what)
    return min(seconds, left)


def _connect_any(addresses: list[str], port: int, timeout: float, deadline: float | None) -> socket.socket:
    last: OSError | None = None
    for addr in addresses:
        try:
            return socket.create_connection((addr, port), timeout=_bound(timeout, deadline, "connecting"))
        except OSError as exc:
            last = exc
    raise last or OSError("no address to connect to")


class _Direct(http.client.HTTPConnection):
    """HTTP to an already vetted address; Host stays the name."""

    timeout: float  # http.client allows None; _open always passes a bound

    def __init__(self, host: str, port: int, addresses: list[str], timeout: float, deadline: float | None):
        super().__init__(host, port, timeout=timeout)
        self._addresses = addresses
        self._deadline = deadline

    def connect(self) -> None:
        self.sock = _connect_any(self._addresses, self.port, self.timeout, self._deadline)


class _DirectTLS(http.client.HTTPSConnection):
    """HTTPS to an already vetted address; SNI and certificate check use the name."""

    timeout: float  # http.client allows None; _open always passes a bound

    def __init__(self, host: str, port: int, addresses: list[str], timeout: float, deadline: float | None):
        context = tls_context()
        super().__init__(host, port, timeout=timeout, context=context)
        # our own reference: HTTPSConnection's _context is private to http.client
        self._tls = context
        self._addresses = addresses
        self._deadline = deadline

    def connect(self) -> None:
        sock = _connect_any(self._addresses, self.port, self.timeout, self._deadline)
        try:
            self.sock = self._tls.wrap_socket(sock, server_hostname=self.host)
        except BaseException:
            sock.close()
            raise


class _Watchdog:
    """Shut the connection's socket at the deadline so no blocking read outlives it."""

    def __init__(self, conn: http.client.HTTPConnection, deadline: float | None):
        self.fired = False
        self._conn = conn
        self._timer: threading.Timer | None = None
        left = _left(deadline)
        if left is not None:
            self._timer = threading.Timer(max(0.0, left), self._fire)
            self._timer.daemon = True
            self._timer.start()

    def _fire(self) -> None:
        self.fired = True
        sock = getattr(self._conn, "sock", None)
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()


def _open(url: str, opts: Options) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse, _Watchdog]:
    """Validate, resolve, vet, connect and send the request; return (conn, response, watchdog)."""
    scheme, host, port, target = guard.check_url(url)
    via = proxy.proxy_for(scheme, host, port)
    headers = {
        "User-Agent": getattr(opts, "user_agent", None) or USER_AGENT,
        "Accept": getattr(opts, "accept", None) or ACCEPT,
        "Accept-Encoding": "gzip, deflate",
        "Accept-Language": "en-US,en;q=0.9,*;q=0.5",
        "Connection": "close",
    }
    if opts.headers is not None:
        headers.update(opts.headers(url) or {})
    allow_private = opts.allow_private or bool(opts.trusted is not None and opts.trusted(url))
    timeout = _bound(opts.read_timeout, opts.deadline)
    conn: http.client.HTTPConnection
    if via is None:
        addresses = guard.resolve(host, port, _bound(opts.connect_timeout, opts.deadline, "DNS lookup"))
        guard.vet_addresses(host, addresses, allow_private)
        cls = _DirectTLS if scheme == "https" else _Direct
        conn = cls(host, port, addresses, timeout, opts.deadline)
    else:
        # The proxy resolves the name.  We still refuse literal private
        # addresses and names that resolve to one here; a name we cannot
        # resolve locally (common behind proxies) is left to the proxy.
        try:
            addresses = guard.resolve(host, port, _bound(2.0, opts.deadline, "DNS lookup"))
        except WorkerError as exc:
            if exc.code == "timeout" and (_left(opts.deadline) or 1) <= 0:
                raise
            addresses = []
        guard.vet_addresses(host, addresses, allow_private)
        phost, pport, auth = via
        if scheme == "https":
            conn = http.client.HTTPSConnection(phost, pport, timeout=timeout, context=tls_context())
            conn.set_tunnel(host, port, headers={"Proxy-Authorization": auth} if auth else None)
        else:
            conn = http.client.HTTPConnection(phost, pport, timeout=timeout)
            default = ":%d" % port if port != 80 else ""
            target = "http://%s%s%s" % (("[%s]" % host) if ":" in host else host, default, target)
            if auth:
                headers["Proxy-Authorization"] = auth
    dog = _Watchdog(conn, opts.deadline)
    try:
        conn.request("GET", target, headers=headers)
        response = conn.getresponse()
    except BaseException as exc:
        dog.cancel()
        conn.close()
        raise _map_error(exc, url, dog) from None
    return conn, response, dog


def _map_error(exc: BaseException, url: str, dog: _Watchdog | None = None) -> BaseException:
    if isinstance(exc, WorkerError):
        return exc
    if dog is not None and dog.fired:
        return WorkerError(
            "timeout", "%s: no complete answer before the deadline" % url, hint="the server is slow; raise --timeout"
        )
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return WorkerError(
            "timeout", "%s: the server did not answer in time" % url, hint="the server is slow; raise --timeout"
        )
    name = type(exc).__name__
    text = " ".join(str(exc).split())[:200]
    if "SSL" in name or "Certificate" in name:
        return WorkerError(
            "network", "%s: TLS failure: %s" % (url, text), hint="the site's certificate could not be verified"
        )
    if isinstance(exc, socket.gaierror):
        return WorkerError("network", "%s: DNS lookup failed: %s" % (url, text))
    if isinstance(exc, (OSError, http.client.HTTPException)):
        return WorkerError("network", "%s: connection failed: %s%s" % (url, name, (": " + text) if text else ""))
    return exc


def _decoder(encoding: str | None) -> zlib._Decompress | Literal["deflate"] | None:
    encoding = (encoding or "").strip().lower()
    if encoding in ("", "identity", "none"):
        return None
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return "deflate"  # zlib-wrapped or raw: decided on the first bytes
    raise WorkerError(
        "unsupported_content", "the server used content-encoding %r, which this client does not decode" % encoding
    )


def _read_body(
    response: http.client.HTTPResponse, opts: Options, url: str, dog: _Watchdog | None
) -> tuple[bytes, bool, int]:
    """Stream the body, decoding gzip/deflate incrementally; stop at the cap."""
    cap = opts.max_bytes
    decoder = _decoder(response.getheader("content-encoding"))
    out = []
    size = 0
    wire = 0
    truncated = False
    while True:
        left = _left(opts.deadline)
        if left is not None and left <= 0:
            raise WorkerError(
                "timeout",
                "%s: the body did not arrive before the deadline" % url,
                hint="the server is slow; raise --timeout",
            )
        data = response.read1(CHUNK)  # at most one recv: the deadline is checked between reads
        if not data:
            break
        wire += len(data)
        if decoder == "deflate":
            decoder = zlib.decompressobj(
                zlib.MAX_WBITS
                if (data[0] & 0x0F) == 8 and len(data) > 1 and ((data[0] << 8) | data[1]) % 31 == 0
                else -zlib.MAX_WBITS
            )
        pending = b""
        if decoder is None:
            pieces = [data]
        else:
            pieces = []
            pending = data
            while pending and size + sum(map(len, pieces)) <= cap:
                try:
                    piece = decoder.decompress(pending, cap + 1 - size - sum(map(len, pieces)))
                except zlib.error as exc:
                    raise WorkerError("network", "%s: corrupt compressed body: %s" % (url, exc)) from None
                pieces.append(piece)
                pending = decoder.unconsumed_tail
                if not piece:
                    break
        for piece in pieces:
            size += len(piece)
            out.append(piece)
        if size > cap or (decoder is None and wire > cap):
            truncated = True
            wire -= len(pending)  # compressed bytes not yet inflated do not count toward the ratio
            break
    body = b"".join(out)
    if truncated:
        if decoder is not None and size > max(1, wire) * BOMB_RATIO:
            raise WorkerError(
                "too_large",
                "%s: the compressed body expands past the %d-byte cap (%d bytes on the wire): "
                "refused as a compression bomb" % (url, cap, wire),
            )
        body = body[:cap]
    return body, truncated, wire


PEEK_BYTES = 256 * 1024  # an error page worth reading (challenge pages are a few KB)
PEEK_SECONDS = 2.0


def _peek(
    url: str,
    current: str,
    status: int,
    headers: dict[str, str],
    response: http.client.HTTPResponse,
    opts: Options,
    conn: http.client.HTTPConnection,
    redirects: list[str],
) -> Response | None:
    """The start of an error response's body as a Response, or None when it does not come quickly."""
    import copy

    peek = copy.copy(opts)
    peek.max_bytes = PEEK_BYTES
    soon = time.monotonic() + PEEK_SECONDS
    peek.deadline = soon if opts.deadline is None else min(opts.deadline, soon)
    try:
        if conn.sock is not None:
            conn.sock.settimeout(PEEK_SECONDS)
        body, truncated, wire = _read_body(response, peek, current, None)
    except Exception:  # the error stands without its page
        return None
    return Response(url, current, status, headers, body, truncated, wire, redirects)


def download(url: str, opts: Options) -> Response:
    """GET ``url`` following up to ``opts.max_redirects`` redirects, each hop guarded.

    Returns a Response; raises WorkerError (invalid_url, blocked_address,
    timeout, network, http_error, too_large, unsupported_content).
    """
    current = url
    redirects: list[str] = []
    retried = False
    while True:
        conn, response, dog = _open(current, opts)
        try:
            status = response.status
            headers = {k.lower(): v for k, v in response.getheaders()}
            if status in REDIRECTS and headers.get("location"):
                from urllib.parse import urljoin

                if len(redirects) >= opts.max_redirects:
                    raise WorkerError(
                        "http_error",
                        "%s: more than %d redirects" % (url, opts.max_redirects),
                        status=status,
                        hint="open the last URL directly if it is right",
                    )
                try:
                    current = urljoin(current, headers["location"].strip())
                except ValueError:  # e.g. Location: http://[::1:80/x
                    raise WorkerError(
                        "http_error",
                        "%s redirected (HTTP %d) to an invalid URL: %r" % (current, status, headers["location"][:200]),
                        status=status,
                        hint="the server sent a broken Location header",
                    ) from None
                check = getattr(opts, "redirect_check", None)
                if check is not None:
                    check(current)
                redirects.append(current)
                continue
            if status in (429, 503) and not retried:
                wait = numbers.retry_after(headers.get("retry-after"))
                left = _left(opts.deadline)
                if wait is not None and wait <= MAX_RETRY_AFTER and (left is None or wait + 1.0 < left):
                    retried = True
                    time.sleep(wait)
                    continue
            if status == 402 and not opts.keep_errors:
                from .payment import payment_error

                page = _peek(url, current, status, headers, response, opts, conn, redirects)
                raise payment_error(current, headers, page.body if page is not None else None)
            if status >= 400 and not opts.keep_errors:
                reason = (response.reason or "").strip()
                extra: dict[str, Any] = {"status": status}
                wait = numbers.retry_after(headers.get("retry-after"))
                if wait is not None:
                    extra["retry_after"] = round(wait, 1)
                err = WorkerError(
                    "http_error",
                    "%s answered HTTP %d%s" % (current, status, (" " + reason) if reason else ""),
                    retryable=status in (408, 425, 429, 500, 502, 503, 504),
                    **extra,
                )
                # the error page rides along (not in the error's fields): a bot challenge or a
                # login wall says so in its body, whatever the status
                # WorkerError (worker/errors.py) knows nothing of pages: worker.pages.pipeline reads this with getattr
                err.response = _peek(url, current, status, headers, response, opts, conn, redirects)  # type: ignore[attr-defined]
                raise err
            if opts.refuse is not None:
                length = numbers.or_none(headers.get("content-length", ""), lo=0, hi=1 << 62, integer=True)
                problem = opts.refuse(headers.get("content-type", ""), length)
                if problem is not None:
                    raise problem
            try:
                body, truncated, wire = _read_body(response, opts, current, dog)
            except BaseException as exc:
                raise _map_error(exc, current, dog) from None
            return Response(url, current, status, headers, body, truncated, wire, redirects)
        finally:
            dog.cancel()
            conn.close()
