"""fetch --find (issue 43): every occurrence of a text in the whole page, case and spacing ignored,
each with its offset (usable as --start-index) and context, counted; through the real worker."""

import pytest
from conftest import run_worker
from fakes.corpus_server import CorpusServer

from worker.pages.answer import find

PRIV = "--allow-private"
NEEDLE = "max_connections = 64"
# Three occurrences spread over the page, spelt three ways: the case and spacing differ.
SPELLINGS = {150: "MAX_CONNECTIONS = 64", 900: "max_connections   =\n64", 1700: "Max_Connections = 64"}


def long_page(paragraphs=1800):
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>Pool guide</title></head><body><article>"
    ]
    parts.append("<h1>Pool guide</h1>")
    for i in range(paragraphs):
        if i % 100 == 0:
            parts.append("<h2>Chapter %d</h2>" % (i // 100 + 1))
        extra = " The pool is sized by %s in the server section." % SPELLINGS[i] if i in SPELLINGS else ""
        parts.append(
            "<p>Paragraph %d explains how the connection pool behaves under load, with enough words to be kept "
            "as the main text of the page.%s</p>" % (i, extra)
        )
    parts.append("</article></body></html>")
    return "".join(parts).encode()


@pytest.fixture(scope="module")
def site():
    server = CorpusServer({"guide": long_page(), "short": long_page(5)}).start()
    yield server
    server.stop()


@pytest.mark.slow  # a worker process each
def test_three_occurrences_over_1800_paragraphs_are_three_matches_with_offsets(site, env):
    url = site.url("guide")
    r = run_worker(["fetch", url, PRIV, "--find", NEEDLE, "--find", "no such words here", "--max-chars", "2000"], env)
    assert r.returncode == 0, r
    item = r.payload["results"][0]
    hit, miss = item["find"]
    assert hit["text"] == NEEDLE and hit["count"] == 3 and len(hit["matches"]) == 3
    assert miss == {"text": "no such words here", "count": 0, "matches": []}
    offsets = [m["offset"] for m in hit["matches"]]
    assert offsets == sorted(offsets) and offsets[-1] > item["total_chars"] * 0.9  # the whole page, not the window
    assert len(item["content"]) <= 2000 and item["start_index"] == 0 and item["truncated"] is True
    for m, para in zip(hit["matches"], sorted(SPELLINGS)):
        assert "%d explains" % para in m["context"] and 200 <= len(m["context"]) <= 400, m
        assert m["section"] == "Chapter %d" % (para // 100 + 1)
    assert 'find "max_connections = 64": 3 matches (an offset is a --start-index' in r.payload["text"]
    # An offset is a --start-index: the page read from there starts with the match.
    at = hit["matches"][1]
    r2 = run_worker(["fetch", url, PRIV, "--start-index", str(at["offset"]), "--max-chars", "300"], env)
    page = r2.payload["results"][0]
    assert page["start_index"] == at["offset"] and " ".join(page["content"].split()).lower().startswith(NEEDLE)
    # --find with --start-index: still the whole page's matches, the window from the index on
    r3 = run_worker(
        ["fetch", url, PRIV, "--find", NEEDLE, "--start-index", str(at["offset"]), "--max-chars", "300"], env
    )
    page = r3.payload["results"][0]
    assert page["find"][0]["count"] == 3 and page["start_index"] == at["offset"]
    assert " ".join(page["content"].split()).lower().startswith(NEEDLE)


@pytest.mark.slow
def test_bad_find_values_are_stable_errors(site, env):
    url = site.url("short")
    r = run_worker(["fetch", url, PRIV, "--find", "  "], env)
    assert r.returncode == 1 and r.payload["error"]["code"] == "invalid_argument", r
    r = run_worker(["fetch", url, PRIV] + [a for i in range(11) for a in ("--find", "w%d" % i)], env)
    assert (
        r.returncode == 1 and r.payload["error"]["code"] == "invalid_argument" and "11" in r.payload["error"]["message"]
    )
    r = run_worker(["fetch", url, PRIV, "--find", "x" * 501], env)
    assert r.returncode == 1 and r.payload["error"]["code"] == "invalid_argument"
    assert "Traceback" not in r.stderr


def test_matching_ignores_case_and_spacing_and_counts_past_the_listed():
    text = "Alpha beta.\nALPHA\n\tBETA and alphabeta " + "alpha beta " * 60
    got = find.find(text, "alpha   beta")
    assert got["count"] == 62 and len(got["matches"]) == find.MAX_MATCHES
    assert [m["offset"] for m in got["matches"][:2]] == [0, 12] and got["matches"][1]["length"] == len("ALPHA\n\tBETA")
    assert find.find("a.b*c", "a.b*c")["count"] == 1 and find.find("axb", "a.b")["count"] == 0  # literal text
    ctx = find.context("word " * 100, 250, 254)
    assert ctx.startswith("...") and ctx.endswith("...") and "  " not in ctx
    assert find.section([{"offset": 0, "title": "A"}, {"offset": 10, "title": "B"}], 9) == "A"
