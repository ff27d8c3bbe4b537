"""Two reading children at once for a batch (worker/pages/pipeline.py fetch_all, issue 42).

A crawl reads 30 pages; one child read them one after another while the machine's second
core stood idle. From TWO_READERS_FROM pages, on two cores or more, two children read at
once, each with the smaller memory bound (spawn.SHARED_MEMORY_MB), and a page stopped at that
bound is read again by a child alone, with the whole bound, when time is left.

Through the real pipeline (pipeline.fetch_many) against a local server on 127.0.0.1, with
real children; each page's reading is recorded (which child, from when to when)."""

import itertools
import threading
import time

import pytest
from fakes.stall_server import StallServer

from worker.errors import WorkerError
from worker.pages import pipeline
from worker.pages.child import small, spawn
from worker.runtime import Call

SOUP = "<html><body><h1>Soup %d</h1>" + "<p>Some words here." * 3000 + "</body></html>"  # slow to read: 3,000 elements


def _route(path):
    if path.startswith("/sized/"):  # /sized/N: N hundred paragraphs
        n = int(path.rsplit("/", 1)[1])
        return "text/html; charset=utf-8", ("<html><body><h1>Sized %d</h1>" % n + "<p>Words." * 100 * n).encode()
    if path.startswith("/soup/"):
        n = int(path.rsplit("/", 1)[1])
        return "text/html; charset=utf-8", (SOUP % n).encode()
    return None


@pytest.fixture(scope="module")
def web():
    server = StallServer(_route)
    yield server
    server.close()


@pytest.fixture
def reads(monkeypatch):
    """Each page read in a child: (extractor's id, whether it had the smaller bound, start, end, url)."""
    seen = []
    lock = threading.Lock()
    real = spawn.Extractor.item

    def item(self, url, resp, spec, deadline, shared=False):
        began = time.monotonic()
        try:
            return real(self, url, resp, spec, deadline, shared)
        finally:
            with lock:
                seen.append((id(self), self.shared, began, time.monotonic(), url))

    monkeypatch.setattr(spawn.Extractor, "item", item)
    monkeypatch.delenv(small.ENV, raising=False)
    return seen


def fetch(web, n, timeout=60.0):
    call = Call(timeout=timeout)
    try:
        return pipeline.fetch_many(["%s/soup/%d" % (web.url, i) for i in range(n)], call, allow_private=True)
    finally:
        call.cleanup()


def test_a_batch_is_read_by_two_children_at_once(web, reads, monkeypatch):
    monkeypatch.setattr(pipeline, "_cores", lambda: 2)
    items = fetch(web, 6)
    assert [it["ok"] for it in items] == [True] * 6
    assert ["Soup %d" % i in it["content"] for i, it in enumerate(items)] == [True] * 6  # each item its own page
    assert len(reads) == 6 and all(shared for _, shared, _, _, _ in reads)
    children = {who for who, _, _, _, _ in reads}
    assert len(children) == 2, reads
    spans = sorted((a, b) for _, _, a, b, _ in reads)
    assert any(spans[k + 1][0] < spans[k][1] for k in range(len(spans) - 1)), "no two pages were read at once"


def test_the_items_are_those_one_child_gives(web, reads, monkeypatch):
    monkeypatch.setattr(pipeline, "_cores", lambda: 2)
    two = fetch(web, 5)
    monkeypatch.setattr(pipeline, "_cores", lambda: 1)
    one = fetch(web, 5)
    assert [it["content"] for it in two] == [it["content"] for it in one]
    assert len({who for who, shared, _, _, _ in reads if not shared}) == 1  # one child, the whole bound


@pytest.mark.parametrize("pages, cores", [(pipeline.TWO_READERS_FROM - 1, 2), (pipeline.TWO_READERS_FROM, 1)])
def test_one_child_for_a_small_batch_or_one_core(web, reads, monkeypatch, pages, cores):
    monkeypatch.setattr(pipeline, "_cores", lambda: cores)
    items = fetch(web, pages)
    assert all(it["ok"] for it in items)
    assert len({who for who, _, _, _, _ in reads}) == 1 and not any(shared for _, shared, _, _, _ in reads)


def test_a_page_stopped_at_the_smaller_bound_is_read_again_alone(web, reads, monkeypatch):
    # every child holds more than 1 MB: at this bound each page is stopped as too_large while two
    # children read, then read again by one child with the whole bound
    monkeypatch.setattr(pipeline, "_cores", lambda: 2)
    monkeypatch.setattr(spawn, "SHARED_MEMORY_MB", 1)
    items = fetch(web, 4)
    assert [it["ok"] for it in items] == [True] * 4, [it.get("error") for it in items]
    again = [url for _, shared, _, _, url in reads if not shared]
    assert sorted(again) == sorted(it["url"] for it in items)


def test_with_no_time_left_the_page_stays_too_large_with_the_bound_it_had(web, reads, monkeypatch):
    monkeypatch.setattr(pipeline, "_cores", lambda: 2)
    monkeypatch.setattr(spawn, "SHARED_MEMORY_MB", 1)
    monkeypatch.setattr(pipeline, "MIN_SHARE_S", 10_000.0)  # never enough time left to read again
    items = fetch(web, 4)
    assert {it["error"]["code"] for it in items} == {"too_large"}
    assert all("more than 1 MB" in it["error"]["message"] for it in items)
    assert all(shared for _, shared, _, _, _ in reads)


def test_pages_stopped_at_the_smaller_bound_are_read_again_before_a_slow_one(web, reads, monkeypatch):
    # CI: a slow page stopped at its share was read again first, with all the time left, and a
    # page stopped at the smaller bound behind it stayed too_large; page 0 here is one that never
    # finishes, stopped first
    monkeypatch.setattr(pipeline, "_cores", lambda: 2)
    monkeypatch.setattr(spawn, "SHARED_MEMORY_MB", 1)
    real = spawn.Extractor.item

    def item(self, url, resp, spec, deadline, shared=False):
        if not url.endswith("/soup/0"):
            return real(self, url, resp, spec, deadline, shared)
        if not self.shared:
            time.sleep(max(0.0, deadline - time.monotonic()))
        raise WorkerError("timeout", "reading this page took over its share")

    download = pipeline.get

    def get(url, *args, **kwargs):
        time.sleep(0 if url.endswith("/soup/0") else 0.5)  # page 0 is read, and stopped, first
        return download(url, *args, **kwargs)

    monkeypatch.setattr(spawn.Extractor, "item", item)
    monkeypatch.setattr(pipeline, "get", get)
    items = fetch(web, 4, timeout=15.0)  # room, under load, for three readings alone after page 0
    assert items[0]["error"]["code"] == "timeout"
    assert [it["ok"] for it in items[1:]] == [True] * 3, [it.get("error") for it in items[1:]]


def test_with_two_readers_the_largest_page_ready_is_read_first(web, reads, monkeypatch):
    # the first reading is held for a second, so every download is ready after it; the second for
    # five, so one reader takes the six others one after another (two popping at once could call
    # item() in either order)
    monkeypatch.setattr(pipeline, "_cores", lambda: 2)
    real = spawn.Extractor.item
    first = []
    calls = itertools.count()

    def item(self, url, resp, spec, deadline, shared=False):
        k = next(calls)  # atomic: the two reading threads share it
        first.append(url)
        if k < 2:
            time.sleep(1.0 if k == 0 else 5.0)
        return real(self, url, resp, spec, deadline, shared)

    monkeypatch.setattr(spawn.Extractor, "item", item)
    sizes = [1, 5, 2, 8, 3, 7, 4, 6]
    call = Call(timeout=60.0)
    try:
        items = pipeline.fetch_many(["%s/sized/%d" % (web.url, n) for n in sizes], call, allow_private=True)
    finally:
        call.cleanup()
    assert all(it["ok"] for it in items), [it.get("error") for it in items]
    later = [int(url.rsplit("/", 1)[1]) for url in first[2:]]
    assert len(later) == 6 and later == sorted(later, reverse=True), first
