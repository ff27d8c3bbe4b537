"""The canonicaliser against a table of real-world URL variants, and de-duplication."""

import pytest

from worker.tools.canonical import canonical_key, dedupe

SAME = [
    ("https://example.com/a", "HTTPS://EXAMPLE.COM/a"),
    ("https://example.com/a", "https://example.com:443/a"),
    ("http://example.com/a", "http://example.com:80/a"),
    ("https://example.com/a", "http://example.com/a"),
    ("https://example.com/a/", "https://example.com/a"),
    ("https://example.com", "https://example.com/"),
    ("https://example.com./a", "https://example.com/a"),
    ("https://example.com/a#section-2", "https://example.com/a"),
    ("https://example.com/a?utm_source=twitter&utm_medium=social&utm_campaign=x", "https://example.com/a"),
    ("https://example.com/a?fbclid=IwAR0abc", "https://example.com/a"),
    ("https://example.com/a?gclid=Cj0KCQ&id=7", "https://example.com/a?id=7"),
    ("https://example.com/a?b=2&a=1", "https://example.com/a?a=1&b=2"),
    ("https://example.com/a?mc_cid=1&mc_eid=2&msclkid=3&_ga=4&igshid=5", "https://example.com/a"),
    ("https://www.google.com/amp/s/www.theverge.com/2024/1/1/story/amp", "https://www.theverge.com/2024/1/1/story"),
    ("https://www-bbc-com.cdn.ampproject.org/c/s/www.bbc.com/news/world-123.amp", "https://www.bbc.com/news/world-123"),
    ("https://amp.theguardian.com/world/2024/jan/01/x", "https://www.theguardian.com/world/2024/jan/01/x"),
    ("https://m.facebook.com/groups/1", "https://www.facebook.com/groups/1"),
    (
        "https://en.m.wikipedia.org/wiki/Rust_(programming_language)",
        "https://en.wikipedia.org/wiki/Rust_(programming_language)",
    ),
    ("https://mobile.twitter.com/rustlang/status/1", "https://twitter.com/rustlang/status/1"),
    ("https://example.com/news/story?amp=1", "https://example.com/news/story"),
    ("https://example.com/news/story?outputType=amp", "https://example.com/news/story"),
    ("https://example.com/a%20b", "https://example.com/a b"),
]

DIFFERENT = [
    ("https://example.com/a", "https://example.com/b"),
    ("https://example.com/a?id=1", "https://example.com/a?id=2"),
    ("https://example.com:8443/a", "https://example.com/a"),
    ("https://docs.example.com/a", "https://example.com/a"),
    ("https://example.com/A", "https://example.com/a"),  # paths are case-sensitive
    ("https://example.com/page?ref=main", "https://example.com/page"),  # ref can name a branch or a version
    ("https://example.com/amp-guide", "https://example.com/guide"),
]


@pytest.mark.parametrize("a,b", SAME)
def test_variants_of_one_page_share_a_key(a, b):
    assert canonical_key(a) == canonical_key(b)


@pytest.mark.parametrize("a,b", DIFFERENT)
def test_different_pages_keep_different_keys(a, b):
    assert canonical_key(a) != canonical_key(b)


@pytest.mark.parametrize(
    "junk", [None, 42, "", "not a url", "ftp://example.com/x", "http://[::1:80/x", "javascript:alert(1)"]
)
def test_junk_never_raises(junk):
    assert isinstance(canonical_key(junk), str)


def test_dedupe_keeps_the_best_ranked_copy_and_counts():
    results = [
        {"title": "1", "url": "https://m.example.com/story?utm_source=x"},
        {"title": "2", "url": "https://example.com/other"},
        {"title": "3", "url": "https://www.example.com/story/"},
        {"title": "4", "url": "https://example.com/other#comments"},
        {"title": "5", "url": "https://example.com/third"},
    ]
    out, dropped = dedupe(results)
    assert [r["title"] for r in out] == ["1", "2", "5"] and dropped == 2
    assert out[0]["url"] == "https://m.example.com/story?utm_source=x"  # the URL as the engine gave it


def test_a_page_that_states_its_canonical_merges_with_it():
    results = [
        {
            "title": "AMP",
            "url": "https://news.example/amp/article-123",
            "canonical_url": "https://news.example/2024/article",
        },
        {"title": "Plain", "url": "https://news.example/2024/article"},
        {"title": "Plain again", "url": "https://news.example/amp/article-123?utm_source=rss"},
    ]
    out, dropped = dedupe(results)
    assert [r["title"] for r in out] == ["AMP"] and dropped == 2
