"""Which pages a one-URL fetch reads in the worker's own process, and which still go to the
reading child (worker/pages/child/small.py, issue 45; docs/limits.md).

Through the real pipeline (pipeline.fetch_one) against a local server on 127.0.0.1, with the
reading child's start recorded: a small page starts no child and reads as the child reads it;
a page over either bound (bytes, or ``<`` in its markup: 2,000 ``<p>`` in 8 KB take the
extractor far longer than an article), a PDF, a page with little time left, and every page
under WEBSEARCH_WORKER_READ_CHILD=always go to the child as before."""

import pytest
from fakes.http_server import ARTICLE
from fakes.stall_server import StallServer

from worker.pages import pipeline
from worker.pages.child import small, spawn
from worker.pages.spec import Spec
from worker.runtime import Call

SOUP = "<html><body>" + "<p>x" * 2000 + "</body></html>"  # 8 KB, 2,000 elements
LARGE = ARTICLE.replace("</article>", "<p>%s</p></article>" % ("More words of the article. " * 2600))  # ~70 KB


def _route(path):
    path = path.split("?", 1)[0]
    pages = {
        "/article": ARTICLE,
        "/soup": SOUP,
        "/large": LARGE,
    }
    if path in pages:
        return "text/html; charset=utf-8", pages[path].encode()
    if path == "/doc.pdf":
        return "application/pdf", b"%PDF-1.4\n%%EOF\n"
    return None


@pytest.fixture(scope="module")
def web():
    server = StallServer(_route)
    yield server
    server.close()


@pytest.fixture
def starts(monkeypatch):
    """The reading child's starts during the test (True: a start; False: found it running)."""
    seen = []
    real = spawn.Extractor.start

    def start(self):
        seen.append(self.proc is None)
        return real(self)

    monkeypatch.setattr(spawn.Extractor, "start", start)
    monkeypatch.delenv(small.ENV, raising=False)
    return seen


@pytest.fixture
def child_reads(monkeypatch):
    """The URLs the reading child read during the test."""
    seen = []
    real = spawn.Extractor.item

    def item(self, url, *args, **kwargs):
        seen.append(url)
        return real(self, url, *args, **kwargs)

    monkeypatch.setattr(spawn.Extractor, "item", item)
    return seen


def fetch(url, timeout=30.0, fmt="markdown"):
    call = Call(timeout=timeout)
    try:
        return pipeline.fetch_one(url, call, Spec(fmt=fmt, allow_private=True), reserve=0.2)
    finally:
        call.cleanup()


def test_a_small_page_is_read_here_with_no_child(web, starts, child_reads):
    item = fetch(web.url + "/article")
    assert item["ok"] and "Alpine glaciers lost a record share" in item["content"]
    assert starts == [] and child_reads == []


def test_a_small_page_reads_the_same_here_and_in_the_child(web, starts, child_reads, monkeypatch):
    for fmt in ("markdown", "text", "html"):
        here = fetch(web.url + "/article?" + fmt, fmt=fmt)
        monkeypatch.setenv(small.ENV, "always")
        there = fetch(web.url + "/article?" + fmt, fmt=fmt)
        monkeypatch.delenv(small.ENV)
        here.pop("fetched_at", None)
        there.pop("fetched_at", None)
        assert here["ok"] and here == there, fmt
    assert child_reads == [web.url + "/article?" + fmt for fmt in ("markdown", "text", "html")]


@pytest.mark.parametrize("path", ["/soup", "/large", "/doc.pdf"])
def test_pages_over_the_bounds_go_to_the_child(web, starts, child_reads, path):
    fetch(web.url + path)
    assert starts and starts[0] and child_reads == [web.url + path], "the reading child must read %s" % path


def test_the_large_page_starts_its_child_from_the_response_head(web, starts, monkeypatch):
    """Its Content-Length is over the bound: the child starts before the body is read."""
    order = []
    real_head = small.may_need_child

    def head(ctype, length):
        need = real_head(ctype, length)
        order.append(("head", length, need))
        return need

    monkeypatch.setattr(small, "may_need_child", head)
    item = fetch(web.url + "/large")
    assert item["ok"] and order and order[0][1] == len(LARGE.encode()) and order[0][2]
    assert starts[0] and starts.count(True) == 1  # started once, from the head; reading found it up


def test_a_small_page_with_little_time_left_goes_to_the_child(web, child_reads):
    fetch(web.url + "/article", timeout=small.MIN_LEFT_S)  # less than MIN_LEFT_S once the reserve is kept
    assert child_reads == [web.url + "/article"]


def test_the_switch_sends_every_page_to_the_child(web, child_reads, monkeypatch):
    monkeypatch.setenv(small.ENV, "always")
    assert fetch(web.url + "/article")["ok"]
    assert child_reads == [web.url + "/article"]


@pytest.mark.parametrize("recycle_mb, children", [(0, 2), (10_000, 1)], ids=["heavy", "light"])
def test_a_child_left_holding_a_heavy_pages_memory_is_replaced_before_the_next_page(
    web, starts, child_reads, monkeypatch, recycle_mb, children
):
    # the memory a page grew stays with the child: over RECYCLE_MB once a page is read, the next
    # page gets a fresh child (its whole MEMORY_MB), else the child runs on
    monkeypatch.setattr(spawn, "RECYCLE_MB", recycle_mb)
    call = Call(timeout=30.0)
    try:
        items = pipeline.fetch_many([web.url + "/soup?1", web.url + "/soup?2"], call, concurrency=1, allow_private=True)
    finally:
        call.cleanup()
    assert all(it["ok"] for it in items) and len(child_reads) == 2
    assert starts.count(True) == children, starts  # True: a child was spawned for the page


def test_the_bounds():
    from worker.pages.net.client import Response

    def page(body, ctype="text/html"):
        return Response("http://x/", "http://x/", 200, {"content-type": ctype}, body, False, len(body), [])

    far = None
    assert small.readable_here(page(ARTICLE.encode()), far)
    assert small.readable_here(page(b"<p>" + b"x" * (small.MAX_BYTES - 3)), far)
    assert not small.readable_here(page(b"<p>" + b"x" * (small.MAX_BYTES - 2)), far)
    assert small.readable_here(page(b"<" * small.MAX_MARKUP), far)
    assert not small.readable_here(page(b"<" * (small.MAX_MARKUP + 1)), far)
    assert not small.readable_here(page(b"%PDF-1.4\n", "application/pdf"), far)
    assert small.readable_here(page(b"<!doctype html><p>sniffed", ""), far)
    assert small.may_need_child("text/html", None) and small.may_need_child("application/pdf", 10)
    assert small.may_need_child("", small.MAX_BYTES + 1) and not small.may_need_child("text/html", small.MAX_BYTES)
    assert not small.may_need_child("text/plain", None)
