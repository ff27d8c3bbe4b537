"""The map's other readers (worker.site.readers): pages read into records by a real child process
give what the map's own process gives, and a child that dies, or a deadline that passes while it
reads, is what the module says: a warning and the map reading on, or the page's timeout."""

import os
import signal
import time

import pytest
from conftest import run_worker
from fakes.site_server import docs_site

from worker.errors import WorkerError
from worker.pages.net.client import Response
from worker.site.readers import Readers
from worker.site.record import Unread, record_of

CHALLENGE = (
    "<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>"
    "<p>Checking your browser before accessing the site.</p></body></html>"
)


def _resp(body, ctype="text/html; charset=utf-8", status=200, headers=None, url="http://127.0.0.1:9/docs/a.html"):
    headers = dict(headers or {}, **{"content-type": ctype})
    return Response(url, url, status, headers, body, False, len(body), [])


PAGES = [
    _resp(
        b"<html><head><title>Pool \xe2\x80\x94 Docs</title><link rel=canonical href=/docs/pool.html></head><body>"
        b"<h1>Pool</h1><p>The pool holds four connections. Connections are reused.</p>"
        b'<a href="retry.html">Retries</a> <a href="#size" id="x">size</a></body></html>'
    ),
    _resp(b"# Guide\n\n- [Install](install.md)\n- [Use](use.md)\n", ctype="text/markdown"),
    _resp(b"\x89PNG\r\n\x1a\n" + b"\0" * 64, ctype="image/png"),
    _resp(CHALLENGE.encode(), status=403, headers={"cf-mitigated": "challenge", "server": "cloudflare"}),
]


def _here(resp):
    try:
        return {"record": record_of(resp)}
    except Unread as exc:
        return {"problem": exc.problem, "code": exc.error.code, "message": exc.error.message}


def _there(answer):
    if "record" in answer:
        return answer
    return {"problem": answer["problem"], "code": answer["error"]["code"], "message": answer["error"]["message"]}


def _json(value):
    import json

    return json.loads(json.dumps(value))  # tuples as lists, as a record comes out of a frame


def test_a_child_reads_each_page_as_the_maps_own_process_does():
    readers = Readers(None, count=1)
    try:
        assert readers.all, readers.warnings
        for resp in PAGES:
            got = readers.record(resp, time.monotonic() + 30)
            assert got is not None
            assert _there(got) == _json(_here(resp))
    finally:
        readers.close()
    kinds = [_here(r) for r in PAGES]
    assert kinds[0]["record"]["title"] == "Pool — Docs" and kinds[1]["record"]["links"]
    assert kinds[2]["problem"] == "not a page (image/png)" and kinds[3]["problem"].startswith("a bot wall")


def test_a_child_that_dies_is_a_warning_and_its_pages_are_read_here():
    readers = Readers(None, count=1)
    try:
        child = readers.all[0]
        os.kill(child.proc.pid, signal.SIGKILL)
        child.proc.wait()
        assert readers.record(PAGES[0], time.monotonic() + 30) is None  # the map reads it itself
        assert readers.record(PAGES[0], time.monotonic() + 30) is None  # and every page after it
        assert len(readers.warnings) == 1 and "a second reader stopped" in readers.warnings[0]
    finally:
        readers.close()


def test_a_deadline_that_passes_while_a_child_reads_is_the_pages_timeout():
    readers = Readers(None, count=1)
    try:
        with pytest.raises(WorkerError) as err:
            readers.record(PAGES[0], time.monotonic() - 1)
        assert err.value.code == "timeout"
        assert readers.record(PAGES[0], time.monotonic() + 30) is None  # that child was stopped
    finally:
        readers.close()


def test_no_reader_on_one_core_and_none_asked_in_process(monkeypatch):
    monkeypatch.setattr("worker.site.readers.cores", lambda: 1)
    assert Readers(None).all == []
    monkeypatch.setenv("WEBSEARCH_WORKER_READ_INPROCESS", "1")
    assert Readers(None, count=2).all == []


def _map(env, url):
    return run_worker(["map", "--allow-private", url, "--timeout", "60"], env, timeout=90)


def test_a_map_with_readers_lists_what_a_map_read_in_one_process_lists(env, tmp_path):
    wall = (200, "text/html; charset=utf-8", CHALLENGE)
    site = docs_site({"/docs/logo.html": (200, "image/png", b"\x89PNG\r\n\x1a\n" + b"\0" * 64), "/docs/faq.html": wall})
    site.pages["/docs/index.html"] = site.pages["/docs/index.html"].replace(
        "</ul>", '<li><a href="logo.html">Logo</a></li><li><a href="faq.html">FAQ</a></li></ul>'
    )
    try:
        shared = _map(env, site.url("/docs/index.html"))
        alone_env = dict(env, WEBSEARCH_WORKER_READ_INPROCESS="1", XDG_CACHE_HOME=str(tmp_path / "alone"))
        alone = _map(alone_env, site.url("/docs/index.html"))
    finally:
        site.stop()
    assert shared.returncode == 0 and alone.returncode == 0, (shared, alone)
    assert shared.payload["results"] == alone.payload["results"]
    assert sorted(shared.payload["warnings"]) == sorted(alone.payload["warnings"])
    said = " ".join(shared.payload["warnings"])
    assert "not a page (image/png)" in said and "a bot wall" in said, said


def test_readers_start_at_the_first_download_once_and_none_after_the_maps_end():
    readers = Readers(None, count=1, start=False)  # a map read from the cache starts no process
    assert readers.all == [] and readers.record(PAGES[0], None) is None
    readers.start()
    try:
        first = list(readers.all)
        readers.start()
        assert len(first) == 1 and readers.all == first
    finally:
        readers.close()
    late = Readers(None, count=1, start=False)
    late.close()
    late.start()  # a download thread still running past the map's end
    assert late.all == []


def test_sigterm_ends_a_map_and_its_reading_child_with_the_worker(env):
    import subprocess
    import sys

    from conftest import ROOT
    from proctree import gone, reader_of

    site = docs_site()
    site.delay = 0.5  # every answer late, so the map is still running when the signal comes
    argv = [sys.executable, "-I", "-m", "worker", "map", site.url("/docs/index.html"), "--allow-private"]
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        child = reader_of(proc.pid)  # the map's reader: started at its first download
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        site.stop()
    assert proc.returncode == 130 and b'"cancelled"' in out, (proc.returncode, out[:300])
    assert gone(child), "the map's reading child outlived the worker"
