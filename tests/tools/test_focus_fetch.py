"""--focus, --max-total-chars and --fetch-top's focused excerpts, through the real worker and real servers."""

import pytest
from conftest import run_worker
from fakes.brave_server import FakeBrave
from fakes.corpus_server import CorpusServer

PRIV = "--allow-private"
ANSWER = "The night ferry to the island leaves the north pier at 23:40 on weekdays."


def long_html(title, answer_at=None, answer=ANSWER, paragraphs=120):
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>%s</title></head><body><article>" % title
    ]
    parts.append("<h1>%s</h1>" % title)
    for i in range(paragraphs):
        if i % 20 == 0:
            parts.append("<h2>Part %d</h2>" % (i // 20 + 1))
        if i == answer_at:
            parts.append("<p>%s</p>" % answer)
        parts.append(
            "<p>Paragraph %d of %s describes the harbour town, its market square and the museum, with enough "
            "words to be kept as the main text of the page by any extractor.</p>" % (i, title)
        )
    parts.append("</article></body></html>")
    return "".join(parts).encode()


@pytest.fixture(scope="module")
def site():
    pages = {"guide": long_html("Harbour guide", answer_at=100)}
    pages.update({"page%d" % i: long_html("Town page %d" % i) for i in range(6)})
    server = CorpusServer(pages).start()
    yield server
    server.stop()


def fetch(env, *args):
    return run_worker(["fetch", *args, PRIV, "--no-cache"], env)


def test_focus_finds_the_answer_deep_in_the_page_and_reads_on_from_its_offset(env, site):
    r = fetch(env, site.url("guide"), "--focus", "when does the night ferry leave", "--max-chars", "1000")
    assert r.returncode == 0, r
    item = r.payload["results"][0]
    assert ANSWER in item["content"] and len(item["content"]) <= 1000
    assert item["focused"] is True and item["truncated"] is True
    where = next(p for p in item["passages"] if ANSWER in item["content"])
    plain = fetch(env, site.url("guide"))
    assert plain.payload["results"][0]["content"].index(ANSWER) > 15000  # deep: the first screen never holds it
    on = fetch(env, site.url("guide"), "--start-index", str(where["offset"]), "--max-chars", "2000")
    assert ANSWER in on.payload["results"][0]["content"]
    text = r.payload["text"]
    assert "[passage: characters %d-" % where["offset"] in text
    assert "--start-index %d reads on from here]" % where["offset"] in text
    assert "\n> " + ANSWER in text


def test_the_call_budget_is_shared_and_every_cut_page_says_where_to_continue(env, site):
    urls = [site.url("page%d" % i) for i in range(6)]
    r = fetch(env, *urls, "--max-total-chars", "3000")
    assert r.returncode == 0, r
    items = r.payload["results"]
    assert sum(len(it["content"]) for it in items) <= 3000
    assert all(
        it["truncated"] and len(it["content"]) < it["next_start_index"] <= len(it["content"]) + 3 for it in items
    )
    budget = r.payload["meta"]["budget"]
    assert budget["max_total_chars"] == 3000 and budget["cut_pages"] == 6 and budget["fair_share"] == 500
    assert "budget: %d of 3000 characters used over 6 pages" % budget["used_chars"] in r.payload["text"]


def test_an_empty_focus_is_a_clear_error(env, site):
    r = fetch(env, site.url("guide"), "--focus", " ")
    assert r.returncode == 1 and r.payload["error"]["code"] == "invalid_argument", r
    assert "--focus is empty" in r.payload["error"]["message"]
    assert "Traceback" not in r.stderr


def test_fetch_top_excerpts_hold_the_passage_that_answers_the_query(env, tmp_path, site):
    with FakeBrave() as brave:
        cfg = brave.config_file(tmp_path / "web-search.json", name="b")
        brave.set_urls([site.url("guide"), site.url("page1")])
        r = run_worker(
            ["search", "urls night ferry island leave", "--provider", "b", "--config", cfg, "--no-cache"]
            + ["--fetch-top", "2", PRIV, "--excerpt-chars", "600", "--max-total-chars", "900"],
            env,
        )
    assert r.returncode == 0, r
    guide, other = r.payload["results"]
    assert ANSWER in guide["excerpt"], guide["excerpt"]
    assert len(guide["excerpt"]) + len(other["excerpt"]) <= 900
    assert guide["excerpt_truncated"] is True and guide["next_start_index"] > guide["excerpt_passages"][0]["offset"]
    assert guide["total_chars"] > 15000
    offsets = ", ".join(str(p["offset"]) for p in guide["excerpt_passages"])
    assert (
        "    excerpt at characters %s of %d (fetch with start_index" % (offsets, guide["total_chars"])
        in r.payload["text"]
    )
