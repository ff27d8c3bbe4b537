"""The map and the crawl on a real documentation site: the Python 3.11 docs of Debian's python3-doc,
served from 127.0.0.1 under /3.11/ as the real site lives (bench/crawl/run.py measures all 60 questions
of ../shared/data/docs-qa-dev; these are two of its checks, kept fast)."""

import os
import time
from html.parser import HTMLParser
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest
from conftest import run_worker
from fakes.site_server import SiteServer

PYDOCS = "/usr/share/doc/python3.11/html"

pytestmark = pytest.mark.slow  # a real site of 500 pages, mapped and read


@pytest.fixture(scope="module")
def pydocs():
    if not os.path.isdir(PYDOCS):
        why = "%s is missing: apt-get install python3-doc (.ci/run does)" % PYDOCS
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("%s (CI=true: the site tests must run)" % why, pytrace=False)
        pytest.skip(why)
    site = SiteServer(root=PYDOCS, prefix="/3.11/").start()
    yield site
    site.stop()


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href") and "nofollow" not in (a.get("rel") or ""):
            self.hrefs.append(a["href"])


def reachable(start, folder):
    """The HTML pages of ``folder`` reachable from ``start`` by links, read from the files by html.parser."""
    seen, queue = {start}, [start]
    while queue:
        rel = queue.pop()
        parser = _Links()
        with open(os.path.join(PYDOCS, rel), encoding="utf-8", errors="replace") as f:
            parser.feed(f.read())
        for href in parser.hrefs:
            parts = urlsplit(urldefrag(urljoin("http://x/" + rel, href))[0])
            target = parts.path.lstrip("/")
            if parts.netloc == "x" and target.startswith(folder) and target.endswith(".html") and target not in seen:
                if os.path.isfile(os.path.join(PYDOCS, target)):
                    seen.add(target)
                    queue.append(target)
    return seen


def test_the_map_of_a_section_lists_what_its_links_reach_and_nothing_outside(pydocs, env):
    r = run_worker(
        ["map", pydocs.url("library/index.html"), "--allow-private", "--max-pages", "2000"], env, timeout=120
    )
    assert r.returncode == 0, r
    listed = {u[len(pydocs.url("")) :] for u in (p["url"] for p in r.payload["results"])}
    assert all(u.startswith("library/") for u in listed), sorted(u for u in listed if not u.startswith("library/"))
    want = reachable("library/index.html", "library/")
    assert len(want & listed) >= 0.95 * len(want), (len(want), len(want & listed), sorted(want - listed)[:10])


def test_a_crawl_from_a_contents_page_finds_an_answer_deep_in_the_section(pydocs, env):
    started = time.monotonic()
    r = run_worker(
        ["fetch", pydocs.url("library/index.html"), "--allow-private", "--crawl", "30", "--timeout", "60"]
        + ["--focus", "Why does round(2.5) give 2 instead of 3 in Python 3?", "--max-total-chars", "4000"],
        env,
        timeout=120,
    )
    assert r.returncode == 0, r
    assert time.monotonic() - started < 61
    text = " ".join(" ".join(p["text"].split()) for p in r.payload["passages"])
    assert "if two multiples are equally close, rounding is done toward the even choice" in text
    assert sum(len(p["text"]) for p in r.payload["passages"]) <= 4000
    assert r.payload["crawl"]["read"] == 30
