"""What the search engines ddgs drives answer, for tests that route them through tests/fakes/tls_proxy.py.

    proxy.route(DDG_HOST, body=ddg_page())
    proxy.route(DDG_NEWS_HOST, body=ddg_news_body(), headers={"Content-Type": "application/json"})

The pages are recorded shapes (tests/fixtures/ddgs/), parsed by ddgs' own engines.
"""

import json
import os

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "ddgs")
DDG_HOST = "html.duckduckgo.com"
DDG_NEWS_HOST = "duckduckgo.com"


def ddg_page(name="duckduckgo"):
    """A recorded result page of one engine (duckduckgo, brave, mojeek, yahoo, duckduckgo-empty)."""
    with open(os.path.join(FIXTURES, name + ".html"), "rb") as f:
        return f.read()


def ddg_news_body(vqd="4-98765"):
    # One body serves both requests the engine makes to duckduckgo.com: the page it reads
    # the vqd token from (``vqd=...&``) and the news.js JSON.
    return json.dumps(
        {
            "ref": "vqd=%s&" % vqd,
            "results": [
                {
                    "date": 1763805600,
                    "title": "Rust 1.91 released",
                    "excerpt": "The Rust team is happy to announce...",
                    "url": "https://blog.rust-lang.example/2026/11/20/Rust-1.91.0/",
                    "image": "https://img.example/r.png",
                    "source": "Rust Blog",
                },
                {
                    "date": 1763719200,
                    "title": "Rust 1.91 released (tracked)",
                    "excerpt": "same story",
                    "url": "https://blog.rust-lang.example/2026/11/20/Rust-1.91.0?utm_campaign=feed",
                    "source": "Aggregator",
                },
            ],
        }
    )
