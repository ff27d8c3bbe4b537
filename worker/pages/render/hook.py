"""After the static fetch: render the items that need it and build them again from the DOM.

``complete`` is the local fetch provider's one call into rendering.  It decides
(decide.py), and only when some item needs the browser does it take a browser
slot, start the gate and the browser, render those pages a few at a time, and put
each rendered DOM through worker.pages.pipeline.build_item, the same wall,
hidden-text, extraction and windowing steps as any page.  Items that need nothing
come back as they were, at no cost beyond the check.  The browser and the gate
end before ``complete`` returns, and with the call on every other way out
(Call.track).
"""

from __future__ import annotations

import os
import time

from ...errors import WorkerError
from . import decide

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from ...runtime import Call
    from ..spec import Spec

ENV_SLOTS = "WEBSEARCH_WORKER_BROWSERS"
BROWSER_SLOTS = 2  # browsers at once for one user, across all worker processes
MAX_SLOTS = 16
TABS = 4  # pages rendered at once in one browser
PAGE_S = 20.0  # the longest one page may take
FIRST_START_S = 5.0  # a start takes a quarter second; one that has not answered in 5 s is hung, so start again
# The longest the second start may take (the call's deadline bounds it too). Not 15: a second start
# comes only when the machine is slow, and there a cold start under load took longer (the MCP render
# test failed twice in one day's full suite runs, the browser not answering in 5 + 15 s)
START_S = 30.0
RESERVE_S = 1.0  # kept back from the call's deadline for extraction and the answer
MAX_CONNECTIONS = 400  # connections one browser may open through the gate, all pages together


def complete(
    items: list[dict[str, Any]], urls: list[str], call: Call | None, spec: Spec, mode: str, browser: str | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(items with the ones that need a browser rendered, what rendering did for the answer's meta)."""
    todo = [i for i, item in enumerate(items) if decide.wants_render(item, mode)]
    if not todo:
        return items, {}
    from . import browser as browser_mod

    try:
        executable = browser_mod.find(browser)
    except WorkerError as exc:
        return _unrendered(items, todo, exc.message, exc.hint), {"render": "failed"}
    if executable is None:
        return _unrendered(items, todo, None, decide.unrendered_hint(mode, False)), {"render": "no browser"}
    items = list(items)
    info: dict[str, Any] = {"rendered": 0}
    try:
        _render_all(items, urls, todo, call, spec, executable, info)
    except WorkerError as exc:  # no slot, the browser would not start: the static items stand
        return _unrendered(items, todo, exc.message, exc.hint), dict(info, render="failed")
    except Exception as exc:  # no port for the gate, a broken pipe: rendering never fails the batch
        why = "the browser failed: %s: %s" % (type(exc).__name__, " ".join(str(exc).split())[:200])
        return _unrendered(items, todo, why, None), dict(info, render="failed")
    return items, info


def _unrendered(
    items: list[dict[str, Any]], todo: list[int], why: str | None, hint: str | None
) -> list[dict[str, Any]]:
    out = list(items)
    for i in todo:
        item = dict(out[i])
        if not item.get("ok") and hint:
            item["error"] = dict(item["error"], hint=hint)
        if why:
            item["warnings"] = list(item.get("warnings") or []) + ["not rendered: %s" % why]
        out[i] = item
    return out


def _slots() -> int:
    from ... import numbers

    try:
        value = numbers.env(ENV_SLOTS, BROWSER_SLOTS, integer=True)
    except ValueError:
        value = BROWSER_SLOTS
    return max(1, min(MAX_SLOTS, int(value)))


def _render_all(
    items: list[dict[str, Any]],
    urls: list[str],
    todo: list[int],
    call: Call | None,
    spec: Spec,
    executable: str,
    info: dict[str, Any],
) -> None:
    from ...state import ratelimit

    end = _deadline(call)
    if end - time.monotonic() < 1.0:
        raise WorkerError("timeout", "too little of --timeout was left to start a browser")
    with ratelimit.slot(call, "browser", limit=_slots(), deadline=end):
        from .gate import Gate

        gate = Gate(spec.allow_private, spec.max_bytes * len(todo), MAX_CONNECTIONS * len(todo))
        try:
            browser = _start(executable, _tempdir(call), gate.address, call, end, info)
        except BaseException:
            gate.close()
            raise
        try:
            _pages(items, urls, todo, call, spec, browser, end, info)
        finally:
            browser.close()
            gate.close()
            if call is not None:
                call.children.discard(browser)


def _start(executable: str, tempdir: str, gate: str, call: Call | None, end: float, info: dict[str, Any]) -> Any:
    """A browser that answers, in a fresh profile: one that does not answer in FIRST_START_S is
    killed and started once more (a hung start is rare and does not end by itself), and one that
    says it has no usable sandbox here is started once more without it.  ``info`` gets the
    browser's product and version (``browser``) and whether its sandbox is on (``browser_sandbox``)."""
    from .browser import Browser

    started = time.monotonic()
    sandbox = None  # Chromium's sandbox wherever it can run (browser.sandbox_possible)
    for attempt in (1, 2):
        profile = os.path.join(tempdir, "browser-%d" % time.time_ns())
        if call is None:
            browser = Browser(executable, profile, gate, sandbox=sandbox)
        else:
            with call.spawning():
                browser = Browser(executable, profile, gate, on_spawn=call.track, sandbox=sandbox)
        wait = end - time.monotonic()
        wait = min(FIRST_START_S, wait / 2) if attempt == 1 else min(START_S, wait)
        try:
            version = browser.conn.send("Browser.getVersion", timeout=max(0.1, wait))
        except Exception as exc:
            said = browser.last_words()
            refused = browser.sandbox_refused()
            browser.close()
            if call is not None:
                call.children.discard(browser)
            if attempt == 1 and end - time.monotonic() >= 1.0:
                info["browser_restarts"] = 1
                if refused:
                    sandbox = False  # no usable sandbox here (no user namespaces...): the second goes without
                continue
            raise WorkerError(
                "network",
                "the browser %s did not start: %s%s" % (executable, exc, " (it said: %s)" % said if said else ""),
                hint=decide.unrendered_hint("auto", False),
            ) from None
        info["browser_start_ms"] = int((time.monotonic() - started) * 1000)
        info["browser"] = str(version.get("product") or "unknown")[:80]  # e.g. "HeadlessChrome/131.0.6778.85"
        info["browser_sandbox"] = browser.sandbox
        return browser
    raise AssertionError("unreachable")


def _deadline(call: Call | None) -> float:
    left = call.remaining() if call is not None else None
    now = time.monotonic()
    return now + PAGE_S * 3 if left is None else now + max(0.0, left - RESERVE_S)


def _tempdir(call: Call | None) -> str:
    if call is not None and call.tempdir:
        return call.tempdir
    from ...runtime import temp_base

    return temp_base()


def _pages(
    items: list[dict[str, Any]],
    urls: list[str],
    todo: list[int],
    call: Call | None,
    spec: Spec,
    browser: Any,
    end: float,
    info: dict[str, Any],
) -> None:
    """Render ``todo`` TABS at a time; build each item here, on the calling thread (extraction is not thread-safe)."""
    import queue
    import threading

    from . import page

    done: queue.SimpleQueue[tuple[int, Any, BaseException | None]] = queue.SimpleQueue()
    pending = list(todo)
    lock = threading.Lock()

    def tab() -> None:
        while True:
            with lock:
                if not pending:
                    return
                i = pending.pop(0)
            try:
                done.put(
                    (
                        i,
                        page.render(
                            browser.conn,
                            _page_url(items[i], urls[i]),
                            min(end, time.monotonic() + PAGE_S),
                            spec.max_bytes,
                        ),
                        None,
                    )
                )
            except BaseException as exc:  # the page's own failure: its item
                done.put((i, None, exc))

    for n in range(min(TABS, len(todo))):
        threading.Thread(target=tab, name="render-%d" % n, daemon=True).start()
    left = set(todo)
    while left:
        try:
            i, rendered, exc = done.get(timeout=max(0.01, end - time.monotonic() + 0.5))
        except queue.Empty:
            break
        left.discard(i)
        items[i] = _item(urls[i], rendered, exc, spec, info.get("browser"))
        if rendered is not None:
            info["rendered"] += 1
    for i in left:
        late = WorkerError(
            "timeout", "rendering did not finish before the call's --timeout", hint="raise --timeout", retryable=True
        )
        items[i] = _item(urls[i], None, late, spec)


def _page_url(item: dict[str, Any], url: str) -> str:
    return item.get("final_url") or url


def _item(url: str, rendered: Any, exc: BaseException | None, spec: Spec, browser: str | None = None) -> dict[str, Any]:
    from ..read.item import build_item, error_item

    if exc is not None:
        if not isinstance(exc, WorkerError):
            exc = WorkerError("network", "rendering failed: %s" % " ".join(str(exc).split())[:200])
        item = error_item(url, exc)
        item["rendered"] = False
        return item
    from ..net.client import Response

    body = rendered.html.encode("utf-8", "replace")
    resp = Response(
        url,
        rendered.final_url,
        rendered.status,
        {"content-type": "text/html; charset=utf-8"},
        body,
        False,
        len(body),
        [rendered.final_url] if rendered.final_url != url else [],
    )
    try:
        item = build_item(url, resp, spec)
    except Exception as bad:  # build_item maps a page's own failures; anything else is this item's, not the batch's
        item = error_item(url, bad)
    if not item.get("ok") and item["error"]["code"] == "needs_javascript":
        item["error"] = dict(
            item["error"],
            message=item["error"]["message"] + ", even once rendered in a browser",
            hint="in a browser too the page built no text: it may need a login or user input; "
            "try the site's API, feed or a markdown/plain version",
        )
    item["rendered"] = True
    item["render_ms"] = rendered.ms
    if browser:
        item["browser"] = browser  # the product and version that rendered it (Browser.getVersion)
    if rendered.warnings:
        item["warnings"] = list(item.get("warnings") or []) + rendered.warnings
    item.pop("script_built", None)
    return item
