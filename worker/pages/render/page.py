"""One page in the running browser: open it in a fresh context, let its scripts build it, read the DOM.

A page is done when it has loaded and the network has been quiet for ``IDLE_S``;
one that never goes quiet (polling, a stream) is read when ``SETTLE_S`` have passed
since its load, and one that never loads is read at its deadline.  Dialogs are
dismissed, downloads denied, and a page that makes more than ``MAX_REQUESTS``
requests or receives more than its byte cap is stopped and read as it stands.
"""

from __future__ import annotations

import threading
import time

from ...errors import WorkerError
from .cdp import CdpError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from .cdp import Connection

IDLE_S = 0.5  # no request in flight for this long after the load: the page is built
SETTLE_S = 5.0  # the longest wait for quiet after the load
MAX_REQUESTS = 300  # requests one page may make
COMMAND_S = 10.0  # the longest wait for the browser's answer to one command
DOM_SCRIPT = "document.documentElement ? document.documentElement.outerHTML : ''"


class Rendered:
    """What the browser made of one URL."""

    def __init__(self, url: str, final_url: str, status: int, html: str, ms: int, warnings: list[str]) -> None:
        self.url = url
        self.final_url = final_url
        self.status = status
        self.html = html
        self.ms = ms
        self.warnings = warnings


class _Watch:
    """The page's events, as the reader thread reports them."""

    def __init__(self, conn: Connection, session: str) -> None:
        self.conn = conn
        self.session = session
        self.changed = threading.Condition()
        self.loaded_at: float | None = None
        self.inflight: set[str] = set()
        self.quiet_since = time.monotonic()
        self.requests = 0
        self.bytes = 0
        self.status = 0
        self.main_frame: str | None = None
        self.dialogs = 0

    def __call__(self, method: str, params: dict[str, Any]) -> None:
        with self.changed:
            if method == "Network.requestWillBeSent":
                self.requests += 1
                self.inflight.add(params.get("requestId", ""))
            elif method in ("Network.loadingFinished", "Network.loadingFailed"):
                self.inflight.discard(params.get("requestId", ""))
                self.bytes += int(params.get("encodedDataLength") or 0)
                if not self.inflight:
                    self.quiet_since = time.monotonic()
            elif method == "Network.responseReceived":
                if params.get("type") == "Document" and params.get("frameId") == self.main_frame:
                    self.status = int((params.get("response") or {}).get("status") or 0)
            elif method == "Page.loadEventFired":
                self.loaded_at = time.monotonic()
            elif method == "Page.javascriptDialogOpening":
                # alert/confirm/prompt/beforeunload block the page's scripts until answered
                self.dialogs += 1
                self.conn.post("Page.handleJavaScriptDialog", {"accept": False}, self.session)
            self.changed.notify_all()


def render(conn: Connection, url: str, deadline: float, max_bytes: int) -> Rendered:
    """The rendered DOM of ``url``; WorkerError timeout/network when the browser cannot give one."""
    started = time.monotonic()
    context = conn.send("Target.createBrowserContext", {"disposeOnDetach": True}, timeout=COMMAND_S)
    context_id = context["browserContextId"]
    try:
        conn.send("Browser.setDownloadBehavior", {"behavior": "deny", "browserContextId": context_id})
        target = conn.send("Target.createTarget", {"url": "about:blank", "browserContextId": context_id})
        session = conn.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})["sessionId"]
        watch = _Watch(conn, session)
        conn.on(session, watch)
        try:
            return _load(conn, session, watch, url, started, deadline, max_bytes)
        finally:
            conn.on(session, None)
    finally:
        try:
            conn.send("Target.disposeBrowserContext", {"browserContextId": context_id}, timeout=2.0)
        except CdpError:
            pass


def _load(
    conn: Connection, session: str, watch: _Watch, url: str, started: float, deadline: float, max_bytes: int
) -> Rendered:
    for method in ("Page.enable", "Network.enable"):
        conn.send(method, {}, session, timeout=COMMAND_S)
    nav = conn.send("Page.navigate", {"url": url}, session, timeout=max(0.1, deadline - time.monotonic()))
    if nav.get("errorText"):
        raise WorkerError(
            "network",
            "the browser could not open %s: %s" % (url, nav["errorText"]),
            hint="the page's own download worked; the browser's did not (a refused private address shows as ERR_TUNNEL_CONNECTION_FAILED or 403)",
        )
    with watch.changed:
        watch.main_frame = nav.get("frameId")
    warnings = _settle(conn, session, watch, deadline, max_bytes)
    left = max(0.5, deadline - time.monotonic() + 1.0)
    got = conn.send(
        "Runtime.evaluate",
        {"expression": "[location.href, %s]" % DOM_SCRIPT, "returnByValue": True},
        session,
        timeout=min(COMMAND_S, left),
    )
    value = (got.get("result") or {}).get("value") or [url, ""]
    final_url, html = str(value[0] or url), str(value[1] or "")
    if len(html) > max_bytes:
        html = html[:max_bytes]
        warnings.append("the rendered page was cut at %d characters" % max_bytes)
    if watch.dialogs:
        warnings.append("the page opened %d dialog(s); each was dismissed" % watch.dialogs)
    if watch.status >= 400:
        raise WorkerError(
            "http_error", "%s answered HTTP %d in the browser" % (final_url, watch.status), status=watch.status
        )
    ms = int((time.monotonic() - started) * 1000)
    return Rendered(url, final_url, watch.status or 200, html, ms, warnings)


def _settle(conn: Connection, session: str, watch: _Watch, deadline: float, max_bytes: int) -> list[str]:
    """Wait until the page is built (or has to be read as it is); the warnings that says so."""
    with watch.changed:
        while True:
            now = time.monotonic()
            if watch.requests > MAX_REQUESTS or watch.bytes > max_bytes:
                conn.post("Page.stopLoading", {}, session)
                what = "requests" if watch.requests > MAX_REQUESTS else "bytes"
                return ["the page was stopped after %d %s; it was read as it stood" % (getattr(watch, what), what)]
            if now >= deadline:
                if watch.loaded_at is None:
                    return ["the page had not finished loading at the deadline; it was read as it stood"]
                return ["the page was still loading at the deadline; it was read as it stood"]
            if watch.loaded_at is not None:
                if not watch.inflight and now - watch.quiet_since >= IDLE_S:
                    return []
                if now - watch.loaded_at >= SETTLE_S:
                    return [
                        "the page kept loading (%d requests open); it was read %.0fs after its load"
                        % (len(watch.inflight), SETTLE_S)
                    ]
            if conn.closed.is_set():
                raise WorkerError("network", "the browser closed while rendering the page")
            watch.changed.wait(0.05)
