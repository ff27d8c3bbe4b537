"""A site's single-page edition (Node's all.html, mdBook's print.html) is found in the map and
not read by a crawl (worker.site.editions): the rule on word counts, then the real CLI against a
generated site on 127.0.0.1 (tests/fakes/site_server.py)."""

from conftest import run_worker
from fakes.site_server import SiteServer, page, para

from worker.site import record
from worker.site.editions import editions, holds

TOPICS = {
    "pool": "The connection pool keeps sockets open between requests; its default size is four per host "
    "and a request waits for a free socket up to the pool timeout. ",
    "retry": "A failed request is retried three times with exponential backoff; idempotent methods only, "
    "unless the retry policy names others. ",
    "proxy": "Proxies are read from the environment: HTTPS_PROXY for secure origins, NO_PROXY for the hosts "
    "reached directly. ",
    "cookies": "Cookies persist in a jar per client; a session cookie lives until the client closes, others "
    "until their expiry date. ",
}


def _record(text):
    bag, words = record.bag(text)
    return {"bag": bag, "words": words}


def test_a_page_that_holds_the_others_is_an_edition():
    texts = [t * 6 for t in TOPICS.values()]
    records = [_record(t) for t in texts] + [_record("".join(texts)), None]
    assert editions(records) == {len(texts)}


def test_a_long_reference_page_that_shares_a_short_pages_words_is_none():
    intro = _record(TOPICS["pool"] * 6)
    glossary = _record(TOPICS["retry"] * 6)
    # the reference names every word of the two short pages, but is mostly its own text
    reference = _record(TOPICS["pool"] * 6 + TOPICS["retry"] * 6 + (TOPICS["proxy"] + TOPICS["cookies"]) * 40)
    assert holds(reference["bag"], intro["bag"]) and holds(reference["bag"], glossary["bag"])
    assert editions([intro, glossary, reference]) == set()


def test_pages_that_share_a_long_pages_text_but_not_side_by_side_are_not_held_by_it():
    # Git's git-log.html, git-rev-list.html and git-show.html include the same options: each holds
    # most of the others' words, yet none of them is an edition of the rest
    shared = TOPICS["pool"] * 6 + TOPICS["retry"] * 6
    log = _record(shared + TOPICS["proxy"] * 2 + TOPICS["cookies"])
    rev_list = _record(shared + TOPICS["proxy"])
    show = _record(shared + TOPICS["cookies"])
    assert holds(log["bag"], rev_list["bag"]) and holds(log["bag"], show["bag"])
    assert editions([log, rev_list, show]) == set()


def test_a_page_holding_a_single_other_page_is_none():
    one = _record(TOPICS["pool"] * 6)
    copy = _record(TOPICS["pool"] * 6 + TOPICS["retry"] * 2)
    other = _record(TOPICS["proxy"] * 6)
    assert editions([one, copy, other]) == set()


def test_short_pages_and_unread_pages_count_for_none():
    stubs = [_record("See the pool page."), _record("See the retry page."), None]
    assert editions(stubs + [_record("See the pool page. See the retry page.")]) == set()


def _site():
    pages = {}
    links = []
    for name, text in TOPICS.items():
        body = para(text * 3) + para(text.replace(";", ".") * 2)
        pages["/guide/%s.html" % name] = page(name.title(), body)
        links.append(("%s.html" % name, name.title()))
    everything = "".join(
        "<section><h2>%s</h2>%s</section>" % (name.title(), para(text * 3) + para(text.replace(";", ".") * 2))
        for name, text in TOPICS.items()
    )
    pages["/guide/all.html"] = page("The whole guide on one page", everything)
    pages["/guide/index.html"] = page(
        "Guide", para("The guide's chapters."), links + [("all.html", "The whole guide on one page")]
    )
    return SiteServer(pages=pages).start()


def test_a_crawl_reads_the_pages_an_edition_holds_not_the_edition(env):
    site = _site()
    try:
        r = run_worker(
            [
                "fetch",
                "--allow-private",
                site.url("/guide/index.html"),
                "--crawl",
                "3",
                "--focus",
                "How many times is a failed request retried?",
                "--timeout",
                "60",
            ],
            env,
            timeout=90,
        )
        read = site.hits("/guide/all.html")
    finally:
        site.stop()
    assert r.returncode == 0, r
    crawl = r.payload["crawl"]
    assert crawl["editions"] == [site.url("/guide/all.html")]
    urls = [it["url"] for it in r.payload["results"]]
    assert site.url("/guide/all.html") not in urls and site.url("/guide/retry.html") in urls
    assert crawl["read"] == 3
    assert read == 1  # the map's download only: the reading never asked for it
    assert "retried three times" in r.payload["passages"][0]["text"]
    assert "single-page edition of pages read or mapped: %s" % site.url("/guide/all.html") in r.payload["text"]
