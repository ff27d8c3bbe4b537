"""``map URL`` and ``fetch URL --crawl N`` through the real CLI, against small generated sites on
127.0.0.1 (tests/fakes/site_server.py) and, for the guard, a public-looking host through the TLS proxy."""

import gzip
import time

from conftest import run_worker, worker_env
from fakes.site_server import SiteServer, docs_site, page, para


def run_map(env, *args, timeout=60):
    return run_worker(["map", "--allow-private", *args], env, timeout=timeout + 30)


def urls(r):
    return [p["url"] for p in r.payload["results"]]


def test_map_follows_the_sections_navigation_and_nothing_outside(env):
    site = docs_site()
    try:
        r = run_map(env, site.url("/docs/index.html"))
    finally:
        site.stop()
    assert r.returncode == 0, r
    got = r.payload
    assert got["tool"] == "map" and got["scope"] == {"mode": "section", "host": "127.0.0.1", "prefix": "/docs/"}
    assert urls(r) == [
        site.url("/docs/" + p) for p in ("index.html", "install.html", "config.html", "api/pool.html", "logging.html")
    ]
    first = got["results"][0]
    assert first["title"] == "Contents — Demo docs" and first["found"] == ["start", "nav"]
    assert "Map of 127.0.0.1/docs/: 5 pages" in got["text"]


def test_scope_site_takes_the_whole_host_and_dedupes(env):
    extra = {
        "/docs/install.html": page(
            "Installing",
            "",
            [("./index.html#top", "Top"), ("/docs/", "Docs home"), ("/blog/post.html?utm_source=x", "Blog")],
        )
    }
    site = docs_site(extra)
    try:
        r = run_map(env, site.url("/docs/"), "--scope", "site")
    finally:
        site.stop()
    assert r.returncode == 0, r
    got = urls(r)
    assert site.url("/blog/post.html") in got and len(got) == len(set(got)) == 6
    assert not any(u.endswith("/docs/index.html") for u in got)  # /docs/ and /docs/index.html are one page


def test_map_reads_sitemaps_nested_and_gzipped_and_drops_off_site_entries(env):
    site = SiteServer(pages={"/docs/": page("Home")}).start()
    try:
        deep = site.url("/docs/only-in-sitemap.html")
        child = "<urlset><url><loc>%s</loc></url><url><loc>https://elsewhere.example/docs/x.html</loc></url></urlset>"
        site.pages["/robots.txt"] = (200, "text/plain", "User-agent: *\nSitemap: %s\n" % site.url("/sitemap_index.xml"))
        site.pages["/sitemap_index.xml"] = (
            200,
            "application/xml",
            "<sitemapindex><sitemap><loc>%s</loc></sitemap></sitemapindex>" % site.url("/docs/sitemap-1.xml.gz"),
        )
        site.pages["/docs/sitemap-1.xml.gz"] = (200, "application/gzip", gzip.compress((child % deep).encode()))
        site.pages["/docs/only-in-sitemap.html"] = page("Only in the sitemap")
        r = run_map(env, site.url("/docs/"))
    finally:
        site.stop()
    assert r.returncode == 0, r
    entry = next(p for p in r.payload["results"] if p["url"] == deep)
    assert entry["found"] == ["sitemap"] and entry["title"] == "Only in the sitemap — Demo docs"
    assert not any("elsewhere.example" in u for u in urls(r))
    assert any("1 sitemap entries on other hosts were left out" in w for w in r.payload["warnings"]), r.payload[
        "warnings"
    ]


def test_map_reads_llms_txt_root_and_section(env):
    site = SiteServer(pages={"/docs/": page("Home")}).start()
    try:
        site.pages["/llms.txt"] = (
            200,
            "text/markdown",
            "# Demo\n\n- [Guide](/docs/guide.md): the guide\n- [Blog](/blog/)\n",
        )
        site.pages["/docs/llms-full.txt"] = (200, "text/plain", "# Full\n\n[Reference](reference.html)\n")
        site.pages["/docs/guide.md"] = (200, "text/markdown", "# Guide\n\nSee [the reference](reference.html).\n")
        site.pages["/docs/reference.html"] = page("Reference")
        r = run_map(env, site.url("/docs/"))
    finally:
        site.stop()
    assert r.returncode == 0, r
    found = {p["url"]: p["found"] for p in r.payload["results"]}
    assert found[site.url("/docs/guide.md")][0] == "llms.txt"
    assert "llms-full.txt" in found[site.url("/docs/reference.html")]
    assert site.url("/blog/") not in found


def test_a_sitemap_zip_bomb_is_a_warning_and_the_other_pages_stay(env):
    bomb = gzip.compress(b"<urlset>" + b" " * (60 * 1024 * 1024) + b"</urlset>")
    site = docs_site({"/sitemap.xml": (200, "application/gzip", bomb)})
    try:
        started = time.monotonic()
        r = run_map(env, site.url("/docs/index.html"), "--timeout", "20", timeout=20)
        took = time.monotonic() - started
    finally:
        site.stop()
    assert r.returncode == 0, r
    assert len(urls(r)) == 5 and took < 21
    assert any("compression bomb" in w for w in r.payload["warnings"]), r.payload["warnings"]


def test_a_loop_of_links_ends_and_the_map_is_bounded(env):
    def loop(handler):
        # every page links one level deeper to itself: a/a/a/... and to a numbered sibling: endless pages
        n = int(handler.path.split("n=")[1]) if "n=" in handler.path else 0
        body = page("Loop %d" % n, "", [("a/", "deeper"), ("?n=%d" % (n + 1), "next")]).encode()
        handler.send(200, "text/html; charset=utf-8", body)

    site = SiteServer(pages={}).start()
    try:
        for depth in range(30):
            site.pages["/docs/" + "a/" * depth] = loop
        started = time.monotonic()
        r = run_map(env, site.url("/docs/"), "--max-pages", "40", "--timeout", "20", timeout=20)
        took = time.monotonic() - started
    finally:
        site.stop()
    assert r.returncode == 0, r
    assert len(urls(r)) == 40 and took < 21
    assert max(u.count("/a/") for u in urls(r)) <= 3  # a segment four times is a loop: not followed
    assert any("--max-pages 40" in w for w in r.payload["warnings"]), r.payload["warnings"]


def test_a_page_that_never_ends_costs_its_own_time_only(env):
    def drip(handler):
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.end_headers()
        try:
            handler.wfile.write(b"<html><body><a href='/docs/x'>x</a>")
            while True:
                handler.wfile.write(b"<p>more</p>")
                handler.wfile.flush()
                time.sleep(0.2)
        except OSError:
            return

    site = docs_site({"/docs/install.html": drip})
    try:
        started = time.monotonic()
        r = run_map(env, site.url("/docs/index.html"), "--timeout", "8", timeout=8)
        took = time.monotonic() - started
    finally:
        site.stop()
    assert r.returncode == 0, r
    assert took < 9.5, took
    assert site.url("/docs/logging.html") in urls(r)  # the others were read meanwhile
    assert any("install.html" in w and "timeout" in w for w in r.payload["warnings"]), r.payload["warnings"]


def test_a_start_page_that_fails_is_the_maps_error(env):
    site = SiteServer(pages={}).start()
    try:
        r = run_map(env, site.url("/docs/missing.html"))
    finally:
        site.stop()
    assert r.returncode == 1, r
    assert r.payload["error"]["code"] == "http_error" and r.payload["error"].get("status") == 404


def test_map_needs_one_url_and_refuses_a_private_one_without_allow_private(env):
    r = run_worker(["map", "https://a.example/", "https://b.example/"], env)
    assert r.returncode == 1 and r.payload["error"]["code"] == "invalid_argument", r
    site = docs_site()
    try:
        r = run_worker(["map", site.url("/docs/index.html")], env)
    finally:
        site.stop()
    assert r.returncode == 1 and r.payload["error"]["code"] == "blocked_address", r


def test_a_redirect_hop_to_a_private_address_is_refused(tmp_path):
    from fakes.tls_proxy import TlsProxy

    proxy = TlsProxy(tmp_path)
    try:
        proxy.route(
            "docs.example.com",
            body=page("Home", "", [("https://www.docs.example.com/docs/moved.html", "Moved"), ("other.html", "Other")]),
            headers={"Content-Type": "text/html; charset=utf-8"},
        )
        proxy.route("www.docs.example.com", status=302, headers={"Location": "http://127.0.0.1:9/admin"})
        env = worker_env(tmp_path, proxy.env())
        r = run_worker(["map", "https://docs.example.com/docs/index.html", "--timeout", "20"], env, timeout=60)
    finally:
        proxy.close()
    assert r.returncode == 0, r
    got = urls(r)
    assert "https://docs.example.com/docs/other.html" in got
    assert not any("moved" in u for u in got)
    assert any("blocked_address" in w and "moved.html" in w for w in r.payload["warnings"]), r.payload["warnings"]


def test_the_map_is_cached_for_the_next_call(env):
    site = docs_site()
    try:
        first = run_map(env, site.url("/docs/index.html"))
        asked = len(site.requests)
        second = run_map(env, site.url("/docs/index.html"))
    finally:
        site.stop()
    assert first.returncode == 0 and second.returncode == 0
    assert urls(first) == urls(second)
    assert second.payload["meta"]["cached"] >= 5 and len(site.requests) == asked  # no robots.txt, no sitemap: kept too


def crawl(env, start, *args, timeout=60):
    return run_worker(["fetch", "--allow-private", start, *args, "--timeout", str(timeout)], env, timeout=timeout + 30)


def test_crawl_with_focus_ranks_passages_across_pages_within_the_budget(env):
    site = docs_site()
    try:
        r = crawl(
            env,
            site.url("/docs/index.html"),
            "--crawl",
            "5",
            "--focus",
            "What is the default pool size?",
            "--max-total-chars",
            "400",
        )
    finally:
        site.stop()
    assert r.returncode == 0, r
    got = r.payload
    assert (
        got["crawl"]["mapped"] == 5
        and got["crawl"]["read"] == 5
        and got["crawl"]["scope"] == "127.0.0.1:%d/docs/" % site.port
    )
    best = got["passages"][0]
    assert best["url"] == site.url("/docs/api/pool.html") and "default size is 4" in best["text"]
    assert set(best) == {"url", "title", "section", "offset", "length", "text", "score"}
    assert sum(len(p["text"]) for p in got["passages"]) <= 400 == got["meta"]["budget"]["max_total_chars"]
    assert all("content" not in item for item in got["results"])
    assert "default size is 4" in got["text"] and "--start-index %d" % best["offset"] in got["text"]


def test_crawl_without_focus_gives_pages_in_map_order_to_the_budget(env):
    site = docs_site()
    try:
        r = crawl(env, site.url("/docs/index.html"), "--crawl", "3", "--max-total-chars", "300")
    finally:
        site.stop()
    assert r.returncode == 0, r
    items = r.payload["results"]
    assert [it["url"] for it in items] == [
        site.url("/docs/" + p) for p in ("index.html", "install.html", "config.html")
    ]
    assert sum(len(it["content"]) for it in items) <= 300
    assert any(it["truncated"] and it["next_start_index"] for it in items)
    assert "passages" not in r.payload and r.payload["meta"]["budget"]["max_total_chars"] == 300


def test_crawl_refuses_options_it_cannot_honour(env):
    r = run_worker(["fetch", "https://a.example/", "https://b.example/", "--crawl", "3"], env)
    assert r.payload["error"]["code"] == "invalid_argument", r
    r = run_worker(["fetch", "https://a.example/", "--crawl", "3", "--find", "x"], env)
    assert r.payload["error"]["code"] == "invalid_argument", r
    r = run_worker(["fetch", "https://a.example/", "--crawl", "0"], env)
    assert r.returncode == 2 and r.payload["error"]["code"] == "usage", r


def test_a_crawl_keeps_its_timeout_and_the_pages_it_read_when_one_never_ends(env):
    def drip(handler):
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.end_headers()
        try:
            handler.wfile.write(b"<html><body><p>pool size")
            while True:
                handler.wfile.write(b" pool size")
                handler.wfile.flush()
                time.sleep(0.1)
        except OSError:
            return

    site = docs_site({"/docs/install.html": drip})
    try:
        started = time.monotonic()
        r = crawl(env, site.url("/docs/index.html"), "--crawl", "5", "--focus", "default pool size", timeout=6)
        took = time.monotonic() - started
    finally:
        site.stop()
    assert r.returncode == 0, r
    assert took < 7.0, took
    assert "default size is 4" in r.payload["passages"][0]["text"]
    assert r.payload["crawl"]["read"] >= 3


def test_respect_robots_leaves_disallowed_pages_out(env):
    site = docs_site({"/robots.txt": (200, "text/plain", "User-agent: *\nDisallow: /docs/config.html\n")})
    try:
        polite = run_map(env, site.url("/docs/index.html"), "--respect-robots")
        plain = run_map(env, site.url("/docs/index.html"), "--no-cache")
    finally:
        site.stop()
    assert polite.returncode == 0 and plain.returncode == 0, (polite, plain)
    assert site.url("/docs/config.html") not in urls(polite) and site.url("/docs/config.html") in urls(plain)
    assert site.url("/docs/logging.html") not in urls(polite)  # only config.html links to it
    assert any("robots" in w and "config.html" in w for w in polite.payload["warnings"]), polite.payload["warnings"]


def test_pages_that_name_one_canonical_url_are_one_entry(env):
    canonical = '<link rel="canonical" href="/docs/install.html">'
    printable = page("Installing", "", []).replace("<head>", "<head>" + canonical)
    site = docs_site(
        {
            "/docs/index.html": page(
                "Contents", "", [("install.html", "Installing"), ("install.html?print=1", "Print")]
            ),
            "/docs/install.html": printable,
        }
    )
    try:
        r = run_map(env, site.url("/docs/index.html"))
    finally:
        site.stop()
    assert r.returncode == 0, r
    assert urls(r) == [site.url("/docs/index.html"), site.url("/docs/install.html")]


def test_folder_pages_linked_with_and_without_their_slash_are_one_entry_each(env, tmp_path):
    # An MkDocs site: each page is a folder's index.html, and its authors link a folder both as
    # "../fields/" and as "../fields"; the server moves the second to the first (301), as static
    # servers do. Each page is listed once, at its folder's URL, and no link resolves off the page.
    root = tmp_path / "site"
    nav = [("../serializers/", "Serializers"), ("../fields", "Fields"), ("../views/", "Views")]
    for name in ("serializers", "fields", "views"):
        (root / "api" / name).mkdir(parents=True)
        (root / "api" / name / "index.html").write_text(page(name.title(), para("About %s." % name), nav))
    (root / "index.html").write_text(page("Home", "", [("api/serializers/", "Serializers"), ("api/fields", "Fields")]))
    site = SiteServer(root=str(root), prefix="/drf/").start()
    try:
        r = run_map(env, site.url("index.html"))
    finally:
        site.stop()
    assert r.returncode == 0, r
    assert sorted(urls(r)) == sorted(
        site.url(p) for p in ("index.html", "api/serializers/", "api/fields/", "api/views/")
    )
    assert "warnings" not in r.payload or not any("404" in w for w in r.payload["warnings"])


def test_a_crawl_from_a_chapters_contents_reads_the_chapters_pages_first(env):
    # Every page shares one folder (PostgreSQL's manual, Valgrind's): the section is the whole site,
    # and the page about background workers says more of the question's words. The user started
    # from the maintenance chapter's contents page; its page on automatic cleaning answers.
    nav = [("index.html", "Contents")]
    answer = "The cleaner refreshes the statistics of a table after a tenth of its rows have changed."
    pages = {
        "/docs/index.html": page(
            "Contents", "", [("maint.html", "Maintenance"), ("workers.html", "Background workers")]
        ),
        "/docs/maint.html": page(
            "Maintenance", para("Keeping a database in shape."), nav + [("autovac.html", "Automatic cleaning")]
        ),
        "/docs/autovac.html": page(
            "Automatic cleaning", para("The background cleaner keeps tables in shape.") + para(answer), nav
        ),
        "/docs/workers.html": page(
            "Background workers",
            para("It runs the code of an extension, started with the server."),
            nav,
        ),
    }

    site = SiteServer(pages=pages).start()
    try:
        asked = "how often does the background worker refresh a table's statistics"
        r = crawl(env, site.url("/docs/maint.html"), "--crawl", "1", "--focus", asked)
    finally:
        site.stop()
    assert r.returncode == 0, r
    assert r.payload["crawl"]["mapped"] == 4 and r.payload["crawl"]["read"] == 1
    got = r.payload["passages"][0]
    assert got["url"] == site.url("/docs/autovac.html") and answer in got["text"]


def test_a_contents_page_in_one_folder_for_the_pages_of_another_crawls_them(env):
    # CMake's shape: manual/cmake-commands.7.html lists command/*.html. Its own folder holds no
    # command, so the section is the folder above both.
    names = ["add_test", "set", "list", "math", "option", "macro", "foreach", "message", "project", "include"]
    answer = "A test that runs longer than the TIMEOUT property is killed and reported as failed."
    pages = {"/help/manual/commands.html": page("Commands", "", [("../command/%s.html" % n, n) for n in names])}
    for n in names:
        body = para("The %s command of the build language." % n) + (para(answer) if n == "add_test" else "")
        pages["/help/command/%s.html" % n] = page(n, body, [("../manual/commands.html", "Commands")])
    pages["/blog/post.html"] = page("A post about tests that time out", para(answer))
    site = SiteServer(pages=pages).start()
    try:
        start = site.url("/help/manual/commands.html")
        r = crawl(env, start, "--crawl", "5", "--focus", "what happens to a test that runs too long")
        m = run_map(env, start)
    finally:
        site.stop()
    assert r.returncode == 0, r
    assert r.payload["crawl"]["scope"].endswith("/help/") and r.payload["crawl"]["read"] == 5
    assert answer in r.payload["passages"][0]["text"]
    assert r.payload["passages"][0]["url"] == site.url("/help/command/add_test.html")
    assert m.payload["scope"]["prefix"] == "/help/"
    assert sorted(urls(m)) == sorted([start] + [site.url("/help/command/%s.html" % n) for n in names])


def test_a_crawl_from_a_folders_index_does_not_favour_the_pages_it_links_to(env):
    # A site's home links to its top pages (the news, the manual's contents): a crawl from it is
    # asked about the whole site, and the page that answers is one the home does not link to.
    answer = "The cleaner refreshes the statistics of a table after a tenth of its rows have changed."
    nav = [("index.html", "Home")]
    pages = {
        "/docs/index.html": page("Home", "", [("news.html", "News"), ("maint.html", "Maintenance")]),
        "/docs/news.html": page(
            "News",
            para("This release makes the background cleaner faster on big tables.")
            + para("The statistics views gained two columns."),
            nav,
        ),
        "/docs/maint.html": page(
            "Maintenance", para("Keeping a database in shape."), nav + [("autovac.html", "Automatic cleaning")]
        ),
        "/docs/autovac.html": page(
            "Automatic cleaning", para("The background cleaner keeps tables in shape.") + para(answer), nav
        ),
    }
    site = SiteServer(pages=pages).start()
    try:
        asked = "how often does the background cleaner refresh a table's statistics"
        got = {}
        for start in ("/docs/index.html", "/docs/"):
            r = crawl(env, site.url(start), "--crawl", "1", "--focus", asked)
            assert r.returncode == 0, r
            got[start] = r.payload["passages"][0]
    finally:
        site.stop()
    for p in got.values():
        assert p["url"] == site.url("/docs/autovac.html") and answer in p["text"]
