"""A budget for the whole call (worker.tools.fit): fair shares, and every cut page says where to go on."""

from worker.tools import fit


def test_shares_serve_short_pages_whole_and_split_the_rest_evenly():
    assert fit.shares([100, 5000, 5000], 3000) == [100, 1450, 1450]
    assert fit.shares([10, 20], 1000) == [10, 20]
    assert sum(fit.shares([7000] * 7, 1000)) <= 1000
    assert fit.shares([], 100) == []


def item(text, start=0):
    return {"url": "u", "ok": True, "content": text[start:], "total_chars": len(text), "start_index": start}


def test_every_cut_page_keeps_where_to_continue_and_the_total_holds():
    pages = ["word %d " % i * 500 for i in range(5)] + ["tiny page"]
    items = [item(p) for p in pages] + [{"url": "bad", "ok": False, "error": {"code": "timeout"}}]
    out, account = fit.fit_items(items, None, 20000, 4000)
    assert sum(len(it["content"]) for it in out if it.get("ok")) <= 4000
    assert out[5]["content"] == "tiny page" and not out[5]["truncated"]
    for it, text in zip(out[:5], pages):
        assert it["truncated"] and text[: it["next_start_index"]].rstrip() == it["content"]
    assert out[6] == items[6]
    assert account == {
        "max_total_chars": 4000,
        "used_chars": account["used_chars"],
        "pages": 6,
        "fair_share": 666,
        "cut_pages": 5,
    }


def test_continuing_from_an_offset_counts_offsets_in_the_whole_text():
    text = "alpha beta gamma delta " * 100
    out, _ = fit.fit_items([item(text, 1000)], None, 300, None)
    assert out[0]["next_start_index"] > 1000
    assert text[1000 : out[0]["next_start_index"]].rstrip() == out[0]["content"]


def test_focus_without_a_match_shows_the_start_and_says_so():
    text = "nothing relevant here. " * 200
    out, _ = fit.fit_items([item(text)], "zeppelin", 200, None)
    assert out[0]["focused"] is False and out[0]["content"] == text[: len(out[0]["content"])]
    assert fit.NO_MATCH in out[0]["warnings"]


def test_a_cjk_character_counts_four_toward_the_budget():
    english, chinese = "plain words here " * 300, "东京的樱花通常在三月下旬开放。" * 300
    assert fit.weight("ab东京") == 2 + 2 * fit.WIDE_WEIGHT
    out, account = fit.fit_items([item(english), item(chinese)], None, 20000, 2000)
    assert len(out[0]["content"]) > 900 and 200 < len(out[1]["content"]) <= 250
    assert account["used_chars"] == fit.weight(out[0]["content"]) + fit.weight(out[1]["content"]) <= 2000


def test_a_cut_pages_description_and_outline_count_in_its_share():
    page = dict(item("text of the page " * 400), description="a description " * 100)
    page["outline"] = [{"level": 2, "title": "Section title number %d" % i, "offset": i} for i in range(60)]
    out, account = fit.fit_items([page], None, 20000, 1000)
    assert account["used_chars"] <= 1000
    got = out[0]
    assert len(got["description"]) <= 100 and got["description"].endswith("...")
    assert 0 < len(got["outline"]) < 60 and len(got["content"]) >= 700
    assert page["description"] == "a description " * 100  # the caller's item is not changed
