"""A crawl reads the pages its map downloaded without asking the site again (worker.site.mapper
keep_body, worker.pages.fetch.negotiate.reusable): through the real CLI against a generated site
on 127.0.0.1 that counts the requests for each path (tests/fakes/site_server.py)."""

import pytest
from conftest import run_worker
from fakes.site_server import SiteServer, docs_site, page, para

from worker.site import mapper

PAGES = ["/docs/index.html", "/docs/install.html", "/docs/config.html", "/docs/logging.html", "/docs/api/pool.html"]


def crawl(env, start, *args, timeout=60):
    return run_worker(["fetch", "--allow-private", start, *args, "--timeout", str(timeout)], env, timeout=timeout + 30)


def test_a_crawl_asks_the_site_once_for_each_page_it_read(env):
    site = docs_site()
    try:
        r = crawl(env, site.url("/docs/index.html"), "--crawl", "5", "--focus", "What is the default pool size?")
        asked = {path: site.hits(path) for path in PAGES}
    finally:
        site.stop()
    assert r.returncode == 0, r
    assert r.payload["crawl"]["read"] == 5 and r.payload["meta"]["reused"] == 5, r.payload["meta"]
    assert asked == dict.fromkeys(PAGES, 1)  # the map's download, read again as it was
    assert "default size is 4" in r.payload["passages"][0]["text"]


def _negotiating(markdown, html):
    """A page whose answer depends on the request's Accept, as its Vary header says."""

    def answer(handler):
        if handler.headers.get("Accept", "").startswith("text/markdown"):
            return handler.send(200, "text/markdown; charset=utf-8", markdown.encode(), {"Vary": "Accept"})
        return handler.send(200, "text/html; charset=utf-8", html.encode(), {"Vary": "Accept"})

    return answer


def test_a_page_that_varies_with_accept_is_asked_again_and_read_as_its_markdown(env):
    html = page("Tuning", para("Tuning is described in the markdown version of this page."))
    markdown = "# Tuning\n\nThe pool's idle_timeout closes idle connections after 90 seconds.\n"
    site = docs_site({"/docs/tuning.html": _negotiating(markdown, html)})
    site.pages["/docs/index.html"] = site.pages["/docs/index.html"].replace(
        "</ul>", '<li><a href="tuning.html">Tuning</a></li></ul>'
    )
    try:
        r = crawl(env, site.url("/docs/index.html"), "--crawl", "6", "--focus", "When are idle connections closed?")
        asked = site.hits("/docs/tuning.html")
    finally:
        site.stop()
    assert r.returncode == 0, r
    assert asked == 2  # the map's HTML, then the reading's markdown
    assert r.payload["meta"]["reused"] == 5, r.payload["meta"]
    assert any("after 90 seconds" in p["text"] for p in r.payload["passages"]), r.payload["passages"]


def test_a_reused_page_still_gives_way_to_the_markdown_version_it_names(env):
    html = page("Limits", para("The HTML version says little.")).replace(
        "</head>", '<link rel="alternate" type="text/markdown" href="limits.md"></head>'
    )
    markdown = "# Limits\n\nA request body may be at most 8 MiB; larger bodies are refused with 413.\n"
    site = docs_site({"/docs/limits.html": html, "/docs/limits.md": (200, "text/markdown", markdown)})
    site.pages["/docs/index.html"] = site.pages["/docs/index.html"].replace(
        "</ul>", '<li><a href="limits.html">Limits</a></li></ul>'
    )
    try:
        r = crawl(env, site.url("/docs/index.html"), "--crawl", "6", "--focus", "How large may a request body be?")
        asked = (site.hits("/docs/limits.html"), site.hits("/docs/limits.md"))
    finally:
        site.stop()
    assert r.returncode == 0, r
    assert asked == (1, 1)
    assert any("at most 8 MiB" in p["text"] for p in r.payload["passages"]), r.payload["passages"]


@pytest.mark.parametrize("keep", [0, 2])
def test_the_map_keeps_pages_within_its_bound(monkeypatch, keep):
    site = docs_site()
    sizes = [len(body.encode()) for path, body in site.pages.items() if path in PAGES]
    monkeypatch.setattr(mapper, "KEEP_BYTES", sum(sorted(sizes)[:keep]))
    try:
        got = mapper.Mapper(None, site.url("/docs/index.html"), allow_private=True, keep_bodies=True).run()
    finally:
        site.stop()
    kept = {id(resp): len(resp.body) for resp in got.bodies.values()}
    assert len(kept) <= keep and sum(kept.values()) <= mapper.KEEP_BYTES
    if keep:
        assert kept, "nothing kept within a bound that holds two pages"


def test_a_map_alone_keeps_no_page(env):
    site = SiteServer(pages={"/docs/index.html": page("Contents", para("Nothing else."))}).start()
    try:
        got = mapper.Mapper(None, site.url("/docs/index.html"), allow_private=True).run()
    finally:
        site.stop()
    assert got.entries and got.bodies == {}
