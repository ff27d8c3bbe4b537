"""Pages in: URLs to items, one per URL in input order, with the fetch tool's rules.

The local fetch provider and search enrichment use it; the fetch command
(worker.tools.fetch) adds the cache and the answer around it. ``fetch_all`` is the
batch, ``fetch_one`` one URL; each URL is a site adapter's answer (sites/) or the
guarded download (fetch/get.py), read into an item (read/item.py) here or in the reading
child (child/spawn.py), with what to do with it in a Spec (spec.py).
"""

from __future__ import annotations

import threading
import time

from ..errors import WorkerError
from .fetch.get import download
from .net import DEFAULT_MAX_BYTES
from .read.document import EXTRACTOR_FORMATS
from .read.item import error_item, item_of
from .spec import Spec

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Callable, Iterable
    from typing import Any

    from ..runtime import Call
    from .child.spawn import Extractor
    from .fetch.robots import RobotsCheck
    from .net.client import Options, Response
    from .sites import Doc

    Head = Callable[[str, float | None], None]

# worker.pages.net.client (http.client, ssl, email), content and window (re) are
# imported where a download is handled, so a call answered wholly from the
# cache never pays for them.

DEFAULT_CONCURRENCY = 8
TWO_READERS_FROM = 4  # pages in a batch from which two children read them (a second child's start is paid back)
JOIN_S = 0.25  # past the cutoff, how long a second reader is waited for (its child sees the deadline in 20 ms)


def get(url: str, call: Call | None, spec: Spec, reserve: float, on_head: Head | None = None) -> Response | Doc:
    """The download step for one URL: a site adapter's Doc when one claims the URL, else the page.
    ``on_head(content_type, length)``: told each response's head before its body is read."""
    if spec.adapters and spec.fmt in ("markdown", "text"):
        from . import sites  # the host table only; an adapter is imported when a URL is its

        name = sites.match(url, spec.sites)
        if name is not None:
            opts = _options(call, spec, reserve)
            if spec.robots is not None:
                spec.robots.check(url, opts)
            return sites.fetch(name, url, call, opts, spec)
    opts = _options(call, spec, reserve, on_head)
    if spec.prefetched and url in spec.prefetched:
        opts.prefetched = spec.prefetched.pop(url)  # a fresh page: no revalidation; held no longer than its reading
    elif spec.revalidate:
        from .net import freshness

        opts.conditional = freshness.conditional(spec.revalidate.get(url))
    return download(url, call, opts)


def _options(call: Call | None, spec: Spec, reserve: float, on_head: Head | None = None) -> Options:
    from .net import client
    from .read import content

    def refuse(ctype: str, length: float | None) -> WorkerError | None:
        if on_head is not None:
            on_head(ctype, length)
        return content.refuse_early(ctype, length, max_bytes)

    now = time.monotonic()
    deadline = None
    if call is not None and call.deadline is not None:
        deadline = call.deadline - reserve
    if spec.per_url_timeout:
        deadline = min(deadline, now + spec.per_url_timeout) if deadline is not None else now + spec.per_url_timeout
    max_bytes = spec.max_bytes
    opts = client.Options(
        allow_private=spec.allow_private,
        max_bytes=max_bytes,
        deadline=deadline,
        refuse=refuse,
        user_agent=getattr(spec, "user_agent", None),
    )
    # Not Options fields: read by the download seam (negotiate.fetch, robots.txt, revalidation)
    opts.llms_txt = getattr(spec, "llms_txt", False)
    opts.robots = getattr(spec, "robots", None)
    opts.conditional = None
    opts.prefetched = None
    return opts


def fetch_one(url: str, call: Call | None, spec: Spec, reserve: float = 0.0) -> dict[str, Any]:
    """One item for one URL; never raises for the URL's own failure.

    The reading child is started once the response's head says the page may need it (markup
    or a PDF, larger than a small page or of unknown length): its start overlaps the body's
    download; a small page (small.py) is read here and no child starts."""
    from .child import small
    from .child.spawn import Extractor

    reader = Extractor(call)
    on_head = None
    if spec.fmt in EXTRACTOR_FORMATS:
        if small.enabled():

            def on_head(ctype: str, length: float | None) -> None:
                if small.may_need_child(ctype, length):
                    reader.start()

            small.import_ahead()
        else:
            reader.start()  # its imports overlap the download
    try:
        try:
            resp = get(url, call, spec, reserve, on_head)
        except Exception as exc:  # one URL's failure is its item, not the batch's
            return error_item(url, exc)
        cutoff = _cutoff(call, reserve)
        if _heavy(resp, spec) and small.readable_here(resp, cutoff):
            return small.read(url, resp, spec, cutoff)
        return _read(reader, url, resp, spec, cutoff)
    finally:
        reader.close(within=REAP_S)  # an idle child: gone in milliseconds, its CPU counted


# A text body past this is read in the child too: its cleaning and outline take seconds
# at the 5 MB cap (a markdown file of 300,000 headings: 2.3 s).
HEAVY_TEXT_BYTES = 1 << 20


def _heavy(resp: Response | Doc, spec: Spec) -> bool:
    """Whether reading ``resp`` may take long: a parser that cannot be interrupted (HTML
    extraction, PDF), or a large text to clean and outline."""
    if hasattr(resp, "document"):  # a site adapter's answer: the API's text, already bounded
        return False
    from .read import content

    kind = content.kind_of(resp.content_type) or content.kind_of(content.sniff(resp.body))
    if kind == "pdf" or (kind == "html" and spec.fmt in EXTRACTOR_FORMATS):
        return True
    return spec.fmt != "raw" and len(resp.body) > HEAVY_TEXT_BYTES  # raw: the body as it came


def _read(
    reader: Extractor, url: str, resp: Response | Doc, spec: Spec, deadline: float | None, shared: bool = False
) -> dict[str, Any]:
    """The item for a downloaded page: heavy pages in the extraction child, until ``deadline``."""
    if not _heavy(resp, spec):
        return item_of(url, resp, spec)
    if not reader.start():
        item = item_of(url, resp, spec)
        if reader.broken and item.get("ok"):
            item.setdefault("warnings", []).append(
                "read without a deadline: the page's reading process could not start (%s)" % reader.broken
            )
        return item
    try:
        return reader.item(url, resp, spec, deadline, shared)
    except Exception as exc:  # timeout, too_large; anything else is still this page's alone
        return error_item(url, exc)


REAP_S = 0.2  # how long the end of a fetch waits for its (idle) reading child to be gone


def _cutoff(call: Call | None, reserve: float) -> float | None:
    """When the batch stops waiting: a little before the call's deadline, so the answer still goes out."""
    if call is None or call.deadline is None:
        return None
    return call.deadline - min(reserve, 1.0)


def _reserve(call: Call | None) -> float:
    """Time kept back from the per-URL deadline for extraction and the answer."""
    left = call.remaining() if call is not None else None
    if left is None:
        return 0.0
    return min(1.5, max(0.2, left * 0.1))


def _timeout_item(url: str) -> dict[str, Any]:
    return error_item(
        url,
        WorkerError(
            "timeout",
            "not finished before the call's --timeout",
            hint="raise --timeout, or fetch fewer URLs per call",
            retryable=True,
        ),
    )


def fetch_all(
    urls: Iterable[str], call: Call | None, spec: Spec, concurrency: int = DEFAULT_CONCURRENCY
) -> list[dict[str, Any]]:
    """Items for ``urls`` in input order, at most ``concurrency`` downloads at a time.

    Pages are read as their downloads finish: HTML, PDF and large text in the call's
    reading child (worker.pages.child.spawn), which is stopped at the page's deadline; the
    rest here. A batch of TWO_READERS_FROM pages or more, on a machine with two cores or
    more, has two children reading at once (each on a thread of its own, with the smaller
    memory bound); otherwise one child reads the pages one after another. lxml and
    trafilatura keep module-level parsers that are not safe to use from several threads at
    once, so when this process extracts (a site adapter's HTML, or no child) the libraries
    are imported before any pool thread exists and their import-time stand-ins
    (extract/imports.py) are never visible to another thread, and what is read here is
    read by one thread at a time. A batch therefore returns, item for item, what
    one-at-a-time calls return.

    A page read while others wait gets its share of the time left (_page_deadline).
    When the call's deadline comes first, finished items are kept and the rest are
    ``timeout`` items.
    """
    import heapq

    from .child.spawn import Extractor

    urls = list(urls)
    items: list[dict[str, Any] | None] = [None] * len(urls)
    reserve = _reserve(call)
    if len(urls) == 1:  # no pool: everything runs on this thread
        return [fetch_one(urls[0], call, spec, reserve)]
    # Two children read at once where the machine has the cores and the batch the pages: a crawl's
    # 30 pages were read one after another while a core stood idle. Each then has the smaller bound.
    shared = spec.fmt in EXTRACTOR_FORMATS and len(urls) >= TWO_READERS_FROM and _cores() >= 2
    readers = [Extractor(call, shared)]
    isolated = spec.fmt in EXTRACTOR_FORMATS and readers[0].start()  # its imports overlap the downloads
    if isolated and shared:
        readers.append(Extractor(call, shared))
        readers[1].start()
    if _adapter_may_render(urls, spec) or (spec.fmt in EXTRACTOR_FORMATS and not isolated):
        from .extract.core import prepare

        prepare()  # extraction in this process: its imports before any pool thread exists
    lock = threading.Lock()
    cursor = iter(range(len(urls)))
    # Downloads ready to read. With two readers, the largest first: the longest readings start
    # first and the two end together (a crawl's site-wide page, read last, kept one child busy
    # alone for 2 s while the other stood idle); with one, in the order they came.
    ready: list[tuple[int, int, Response | Doc | None, BaseException | None, int]] = []  # (-bytes, arrival, ..., index)
    arrived = threading.Condition()
    serial = iter(range(len(urls)))

    def put(i: int, resp: Response | Doc | None, exc: BaseException | None) -> None:
        size = len(getattr(resp, "body", b"") or b"") if shared else 0
        with arrived:
            heapq.heappush(ready, (-size, next(serial), resp, exc, i))
            arrived.notify()

    def downloader():
        while True:
            with lock:
                i = next(cursor, None)
            if i is None:
                return
            try:
                put(i, get(urls[i], call, spec, reserve), None)
            except BaseException as exc:  # the URL's own failure: its item
                put(i, None, exc)

    threads = [
        threading.Thread(target=downloader, name="fetch-%d" % n, daemon=True)
        for n in range(max(1, min(concurrency, len(urls))))
    ]
    for t in threads:
        t.start()
    cutoff = _cutoff(call, reserve)
    put_off: list[tuple[int, Response | Doc, float | None]] = []  # pages stopped at their share: (index, page, share)
    taken = [0]  # downloads taken from ``ready`` by the readers
    here = threading.Lock()

    def reading(reader: Extractor) -> None:
        while True:
            wait = None if cutoff is None else cutoff - time.monotonic()
            if wait is not None and wait <= 0:
                return
            with lock:
                if taken[0] >= len(urls):
                    return
                taken[0] += 1
            with arrived:
                if not arrived.wait_for(lambda: ready, timeout=wait):
                    return
                _, _, resp, exc, i = heapq.heappop(ready)
            if exc is not None or resp is None:
                items[i] = error_item(urls[i], exc or WorkerError("network", "no response"))
                continue
            with lock:
                pending = sum(1 for it in items if it is None) - len(put_off)
            begun = time.monotonic()
            deadline, share = _page_deadline(cutoff, pending)
            if _heavy(resp, spec) and reader.start():
                item = _read(reader, urls[i], resp, spec, deadline, share)
            else:
                with here:  # read in this process: one thread at a time (see above)
                    item = _read(reader, urls[i], resp, spec, deadline, share)
            code = None if item["ok"] else item["error"]["code"]
            with lock:
                items[i] = item
                if share and deadline is not None and code == "timeout":
                    put_off.append((i, resp, deadline - begun))
                elif reader.shared and code == "too_large":
                    put_off.append((i, resp, None))  # stopped at the smaller bound: alone, it has the whole

    def helping(reader: Extractor) -> None:
        try:
            reading(reader)
        except Exception:  # its page's item stays a timeout: never a traceback from a thread
            pass

    try:
        helpers = [
            threading.Thread(target=helping, args=(r,), name="read-%d" % n, daemon=True)
            for n, r in enumerate(readers[1:])
        ]
        for t in helpers:
            t.start()
        reading(readers[0])
        for t in helpers:
            t.join(None if cutoff is None else max(0.0, cutoff - time.monotonic()) + JOIN_S)
        # Pages stopped at their share get what the others left, when that is more; one stopped at
        # the smaller bound of two children gets a child alone when time is left.
        if put_off and shared:
            for r in readers:
                r.close(within=REAP_S)
            readers = [Extractor(call)]
        # those stopped at the smaller bound first: a page stopped at its share, read again with all
        # that is left, would leave them nothing (CI: a page of 200,000 attributes kept too_large)
        for i, resp, had in sorted(put_off, key=lambda p: p[2] is not None):
            left = None if cutoff is None else cutoff - time.monotonic()
            if left is None or left > (MIN_SHARE_S if had is None else SHARE_RETRY * had):
                items[i] = _read(readers[0], urls[i], resp, spec, cutoff)
    finally:
        for r in readers:
            r.close(within=REAP_S)  # an idle child: gone in milliseconds, its CPU counted
    return [it if it is not None else _timeout_item(url) for url, it in zip(urls, items)]


# A page read while others wait gets at most its share of the time left: the time over
# the number of pages not yet read, counting at most SHARE_PAGES of them, and never less
# than MIN_SHARE_S. One slow page cannot take the whole --timeout from the pages behind
# it, whatever their order, and an ordinary page slowed by a busy machine is not stopped
# while there is time: with a share of left/pending, a 50-page batch at load 25 lost
# pages that took over 3 s (tests/tools/test_batch.py).
MIN_SHARE_S = 3.0
SHARE_PAGES = 4
SHARE_RETRY = 1.2  # a page stopped at its share is read again when this many times more time is left


def _page_deadline(cutoff: float | None, pending: int) -> tuple[float | None, bool]:
    """(deadline, shared) for the next page's reading; shared: cut to its share of the time left."""
    if cutoff is None or pending <= 1:
        return cutoff, False
    now = time.monotonic()
    share = max(MIN_SHARE_S, (cutoff - now) / min(pending, SHARE_PAGES))
    if now + share >= cutoff:
        return cutoff, False
    return now + share, True


def _cores() -> int:
    """The CPUs this process may run on (a name of this module's, for tests to set)."""
    from .child.spawn import cores

    return cores()


def _adapter_may_render(urls: list[str], spec: Spec) -> bool:
    """Whether a site adapter may extract HTML in this process (its imports must precede the threads)."""
    if not (spec.adapters and spec.fmt in ("markdown", "text")):
        return False
    from . import sites

    return any(sites.match(url, spec.sites) is not None for url in urls)


def fetch_many(
    urls: Iterable[str],
    call: Call | None,
    *,
    fmt: str = "text",
    max_chars: int = 600,
    start_index: int = 0,
    per_url_timeout: float | None = None,
    allow_private: bool = False,
    concurrency: int = DEFAULT_CONCURRENCY,
    max_bytes: int = DEFAULT_MAX_BYTES,
    robots: RobotsCheck | None = None,
    user_agent: str | None = None,
    adapters: bool = False,
    sites: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Fetch several URLs with the fetch tool's rules; a list of items, never an exception per URL.

    ``adapters``: GitHub, Stack Exchange... read through their APIs (``sites``: the config's settings)."""
    spec = Spec(
        fmt=fmt,
        max_chars=max_chars,
        start_index=start_index,
        per_url_timeout=per_url_timeout,
        allow_private=allow_private,
        max_bytes=max_bytes,
        robots=robots,
        user_agent=user_agent,
        adapters=adapters,
        sites=sites,
    )
    return fetch_all(urls, call, spec, concurrency)
