"""The pure parts of a map and a crawl: links, sitemaps, scope, plain text, page ranking, passages."""

import gzip

import pytest

from worker.pages.answer import focus
from worker.site import links, passages, plain, rank, scope, sitemaps

PAGE = """<!DOCTYPE html><html><head><title>Installing — Widget 2 docs</title>
<link rel="canonical" href="https://docs.example.org/2/install.html">
<script>var a = '<a href="/in-script.html">no</a>';</script></head>
<body><nav><a href="index.html">Home</a> <a href="config.html#pool-size">Pool <b>size</b></a>
<a href="../elsewhere.html" rel="nofollow">skip</a> <a href="api.html" title="API reference"></a></nav>
<!-- <a href="/in-comment.html">no</a> -->
<h1>Installing<a class="headerlink" href="#installing">¶</a></h1><h2 id="from-pip">From pip</h2>
<dl><dt id="widget.connect">widget.connect(pool_size=4)</dt><dd>Connects.</dd></dl></body></html>"""


def test_links_reads_title_links_headings_and_ids():
    page = links.read(PAGE)
    assert page.title == "Installing — Widget 2 docs"
    assert page.canonical == "https://docs.example.org/2/install.html"
    assert page.links == [
        ("index.html", "Home"),
        ("config.html#pool-size", "Pool size"),
        ("api.html", "API reference"),
        ("#installing", "¶"),  # in-page: the map drops it (scope.absolute)
    ]
    assert scope.absolute("https://d.example/docs/a.html", "#installing") is None
    assert page.headings == ["Installing", "From pip"]
    assert "widget.connect" in page.ids and "from-pip" in page.ids


def test_links_stay_bounded_on_a_page_of_unclosed_links():
    html = "<a href='/x%d'>" * 20000
    page = links.read(html % tuple(range(20000)))
    assert len(page.links) == links.MAX_LINKS


def test_sitemaps_urlset_index_text_and_gzip():
    urlset = (
        b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<url><loc> https://d.example/a?x=1&amp;y=2 </loc></url><url><loc><![CDATA[https://d.example/b]]></loc></url></urlset>"
    )
    assert sitemaps.parse(urlset) == ("urlset", ["https://d.example/a?x=1&y=2", "https://d.example/b"])
    index = b"<sitemapindex><sitemap><loc>https://d.example/s1.xml.gz</loc></sitemap></sitemapindex>"
    assert sitemaps.parse(index) == ("index", ["https://d.example/s1.xml.gz"])
    assert sitemaps.parse(b"https://d.example/a\nhttps://d.example/b\n") == (
        "text",
        ["https://d.example/a", "https://d.example/b"],
    )
    assert sitemaps.parse(sitemaps.inflate(gzip.compress(urlset)))[0] == "urlset"
    with pytest.raises(ValueError):
        sitemaps.parse(b"<html><body>Not a sitemap</body></html>")


def test_a_gzip_bomb_is_refused_with_bounded_memory():
    bomb = gzip.compress(b"\0" * (20 * 1024 * 1024))
    with pytest.raises(sitemaps.Bomb):
        sitemaps.inflate(bomb, limit=1024 * 1024)


def test_robots_sitemap_lines_and_llms_links():
    assert sitemaps.robots_sitemaps(
        "User-agent: *\nDisallow: /x\nSitemap: https://d.example/sm.xml\nsitemap:/rel.xml"
    ) == [
        "https://d.example/sm.xml",
        "/rel.xml",
    ]
    text = "# Widget\n\n- [Install](https://d.example/install.md): how\n- [`API`](api.md)\n"
    assert sitemaps.llms_links(text) == [("https://d.example/install.md", "Install"), ("api.md", "API")]


def test_scope_section_site_and_keys():
    s = scope.Scope("https://docs.example.org/2/guide/install.html")
    assert s.prefix == "/2/guide/"
    assert s.contains("https://docs.example.org/2/guide/config.html")
    assert s.contains("http://www.docs.example.org/2/guide/deep/page")  # www and http are the same site
    assert not s.contains("https://docs.example.org/2/api/x.html")  # another section
    assert not s.contains("https://other.example.org/2/guide/x.html")
    assert not s.contains("https://docs.example.org/2/guide/logo.png")
    assert not s.contains("https://docs.example.org/2/guide/" + "a/b/" * 5)  # a loop of paths
    assert scope.Scope("https://docs.example.org/2/guide/", "site").contains("https://docs.example.org/blog/")
    same = [
        "https://docs.example.org/2/guide/index.html#top",
        "http://www.docs.example.org:80/2/guide/",
        "https://docs.example.org:443/2/guide/?utm_source=x",
    ]
    assert len({scope.key(u) for u in same}) == 1
    assert scope.key("https://d.example/a?b=2&a=1") == scope.key("https://d.example/a?a=1&b=2")


def test_a_contents_page_widens_its_section_to_the_folder_of_the_pages_it_lists():
    base = "https://cmake.example/help/"
    start = scope.Scope(base + "manual/cmake-commands.7.html")
    commands = [base + "command/%s.html" % n for n in ("add_test", "set", "list", "math", "option", "macro")]
    chrome = [base + "index.html", base + "genindex.html", base + "manual/cmake-modules.7.html"]
    assert start.listed(commands + chrome).prefix == "/help/manual/"  # 6 links: too few to say
    commands += [base + "command/%s/" % n for n in ("foreach", "function", "message", "project")]
    wide = start.listed(commands + chrome)
    assert wide.prefix == "/help/" and wide.contains(base + "command/set.html") and wide.start == start.start
    assert not wide.contains("https://cmake.example/blog/x.html")
    # half of its links stay in its own folder: a chapter's contents page keeps its folder
    own = [base + "manual/page%d.html" % i for i in range(12)]
    assert start.listed(commands + own).prefix == "/help/manual/"
    # links to another host, or that are no page, say nothing of the section
    elsewhere = ["https://other.example/help/command/%d.html" % i for i in range(20)]
    images = [base + "images/%d.png" % i for i in range(20)]
    assert start.listed(elsewhere + images + chrome).prefix == "/help/manual/"
    assert scope.Scope(base + "manual/x.html", "site").listed(commands).prefix == "/"


def test_plain_drops_markup_keeps_words_and_code():
    md = "See [`open()`](https://d.example/f.html#open) and **strict=True**  \n> quoted *text*\n```\nx = a*b*c\n```"
    assert plain.plain(md) == "See open() and strict=True\nquoted text\nx = a*b*c"
    assert plain.in_code_at("a\n```\ncode\n```\nb", 6) and not plain.in_code_at("a\n```\ncode\n```\nb", 15)
    # the renderer's "&lt;" before a tag-like word is a "<"; an escaped "\&lt;" is the text "&lt;"
    assert plain.plain("Returns: &lt;boolean>, Option&lt;T>, \\&lt;b> and \\&amp;") == (
        "Returns: <boolean>, Option<T>, &lt;b> and &amp;"
    )


def test_rank_prefers_the_page_about_the_question():
    pages = [
        {"url": "https://d.example/docs/index.html", "title": "Widget — Docs", "texts": [], "record": None},
        {
            "url": "https://d.example/docs/pool.html",
            "title": "Connection pools — Docs",
            "texts": ["Pool size #pool_size"],
            "record": {
                "ids": ["widget.Pool", "pool_size"],
                "headings": ["Connection pools"],
                "bag": {"pool": 9},
                "words": 100,
            },
        },
        {
            "url": "https://d.example/docs/log.html",
            "title": "Logging — Docs",
            "texts": ["Logging"],
            "record": {"ids": [], "headings": ["Logging"], "bag": {"log": 9}, "words": 100},
        },
    ]
    best = rank.order(pages, "What is the default pool_size of a Pool?", "/docs/")
    assert best[0][0] == 1
    assert rank.site_suffix(p["title"] for p in pages) == " — Docs"


def test_passages_rank_across_pages_within_the_budget():
    texts = [
        "# Logging\n\nLogs go to stderr.\n\n## Rotation\n\nRotate the logs with the rotate option, every day.",
        "# Pools\n\nThe pool size is 4 by default.\n\nA pool keeps connections open.\n\n" + "Filler text here. " * 50,
    ]
    got = passages.rank(texts, "default pool size", 200, [1.0, 5.0])
    assert got and got[0]["page"] == 1 and "4 by default" in got[0]["text"]
    assert sum(len(p["text"]) for p in got) <= 200
    assert texts[1][got[0]["offset"] : got[0]["offset"] + got[0]["length"]].startswith("The pool size")
    assert got[0]["section"] == "Pools"


def test_a_thin_map_is_filled_from_the_links_of_the_pages_read():
    from worker.tools.crawl import _follow

    s = scope.Scope("https://d.example/docs/index.html")
    items = [
        {
            "url": "https://d.example/docs/index.html",
            "ok": True,
            "content": "See [Pool size](pool.html#size), [Logging](logging.html), [the blog](/blog/x.html) "
            "and [Home](index.html).",
        },
        {"url": "https://d.example/docs/other.html", "ok": False, "error": {"code": "timeout"}},
    ]
    known = {scope.key("https://d.example/docs/index.html")}
    got = _follow(items, s, known, "what is the pool size", 5, "/docs/")
    assert [u for u, _ in got] == ["https://d.example/docs/pool.html", "https://d.example/docs/logging.html"]
    assert got[0][1] > got[1][1]  # the link whose words match the question first
    assert _follow(items, s, known, "what is the pool size", 5, "/docs/") == []  # followed once


def test_a_crawls_passage_comes_under_its_api_signature():
    signature = "pumps.Pool(*size=4*)"
    texts = [
        "# Pools\n\n" + signature + "\n\nKeeps connections open and hands them out.\n\n" + "Filler text here. " * 50,
        "# Logging\n\nPools log to stderr.\n\n" + "Other filler here. " * 50,
    ]
    got = passages.rank(texts, "how many connections does a pool keep open", 400, [5.0, 1.0])
    first = next(p for p in got if p["page"] == 0)
    assert first["text"].startswith("pumps.Pool(size=4)\n\nKeeps connections open")
    assert texts[0][first["offset"] :].startswith(signature)
    assert sum(1 for p in got if "pumps.Pool" in p["text"]) == 1  # the signature is shown once


def test_a_sites_single_page_edition_does_not_lift_its_passages_over_the_pages_it_holds():
    answer = "The pool keeps at most four idle connections open between two requests and closes the rest."
    pools = [answer] + [
        "Pools paragraph %d says something else about workers, queues and their own timers." % i for i in range(4)
    ]
    logs = ["Logging paragraph %d writes its lines to standard error with the time of day first." % i for i in range(4)]
    texts = [
        "# Pools\n\n" + "\n\n".join(pools),
        "# Logging\n\n" + "\n\n".join(logs),
        # every page in one, flat (its links' addresses gone), with a line that says the question's words
        "\n\n".join(pools + logs + ["Open idle pool connections: keep the pool open, see pools and connections."]),
        "# Logging\n\n" + "\n\n".join(logs) + "\n\nSee [the pools](pools.html) too.",  # the same page again
    ]
    assert passages.compilations(texts) == {2}
    assert passages.compilations(texts[:2] + texts[3:]) == set()  # two copies of a page are no edition
    got = passages.rank(texts, "how many idle connections does the pool keep open", 110, [2.0, 1.0, 5.0, 1.0])
    assert [p["text"] for p in got] == [answer]
    assert got[0]["page"] == 0  # the page it stands on, not the edition that says it again


def test_a_term_on_every_page_read_weighs_less_across_pages():
    texts = ["Pumps are blue. The valve is red.", "Pumps are green.", "Pumps are amber."]
    weights = passages.term_weights(texts, "pump valve")
    assert weights["valve"] == 1.0 and passages.SITE_FLOOR <= weights["pump"] < 0.6
    assert passages.term_weights(texts[:1], "pump valve") == {}


def test_a_term_weighs_by_its_rarity_among_all_the_blocks_read_not_within_one_page():
    # The manual talks of errors and reports in every paragraph; the changelog says "errors" and
    # "reports" once among its many lines. Within its own page that line's words are rare and weigh
    # most; over the blocks of both pages they weigh the same in each, and the answer wins.
    answer = "Reporting stops after 1000 different errors: the tool then reports no more errors."
    manual = ["Errors paragraph %d: the tool reports errors of kind %d with their stack." % (i, i) for i in range(12)]
    changelog = ["Release 1.%d: faster start-up and a new option for the log file." % i for i in range(40)]
    changelog[20] = "Release 1.20: the tool reports errors once only, and stops the run when asked."
    texts = ["# Errors\n\n" + "\n\n".join(manual[:6] + [answer] + manual[6:]), "# News\n\n" + "\n\n".join(changelog)]
    question = "why does the tool stop reporting errors"
    got = passages.rank(texts, question, 90, [1.0, 1.0])
    assert [p["text"] for p in got] == [answer]
    # each page's own idf (as before) puts the changelog's line far above the answer
    weights = passages.term_weights(texts, question)
    alone = [max(focus.score(t, question, weights)[0].values()) for t in texts]
    assert alone[1] > 2 * alone[0]
