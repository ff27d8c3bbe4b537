"""What an API sends is checked where it is read (issue 27, item 4): the real CLI against local fakes.

Each case swaps one recorded answer of tests/fakes/sites_server.py,
brave_server.py or exa_server.py for a hostile one: a string where an object is
documented, a list where a string is, base64 that is badly padded or not ASCII,
a score of "12abc", 1e400 or NaN.  The item keeps its answer with the field left
out (and a warning), or the adapter falls back to the page; never ``internal``,
never a traceback.  tests/test_api_fuzz.py throws random shapes at the same
readers in-process.
"""

import copy
import json
import os

import pytest
from conftest import run_worker, worker_env
from fakes import brave_server, exa_server
from fakes.sites_server import README, SE_ANSWERS, SE_QUESTION, SitesServer, issue, readme
from invariants import check


@pytest.fixture(scope="module")
def srv():
    s = SitesServer().start()
    yield s
    s.stop()


@pytest.fixture
def answers(srv):
    srv.answers.clear()
    yield srv.answers
    srv.answers.clear()


def sites_env(tmp_path, srv):
    sites = {
        "github": {"apiBase": srv.base + "/gh-api", "rawBase": srv.base + "/gh-raw"},
        "stackexchange": {"apiBase": srv.base + "/se-api"},
        "npm": {"apiBase": srv.base + "/npm"},
        "pypi": {"apiBase": srv.base, "hosts": ["pypi.test"]},
    }
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"sites": sites}))
    env = worker_env(tmp_path, {"WEBSEARCH_CONFIG": str(cfg)})
    # A fallback to the real page meets a proxy that refuses (port 9), never the internet.
    env.update(HTTPS_PROXY="http://127.0.0.1:9", HTTP_PROXY="http://127.0.0.1:9", NO_PROXY="127.0.0.1")
    for name in ("GITHUB_TOKEN", "GH_TOKEN"):
        env.pop(name, None)
    return env


def fetch(env, url):
    r = run_worker(["fetch", "--no-cache", "--", url], env)
    payload = check(r, env)
    return (payload["results"] if payload["ok"] else payload["error"]["results"])[0]


# ------------------------------------------------------------------ GitHub


def _readme(content):
    doc = readme("README.md", README)
    doc["content"] = content
    return doc


@pytest.mark.parametrize(
    "content, why",
    [
        ("IyBkZW1vCgpBB=", "length no padding can fix"),  # 13 characters before "=": no padding fixes it
        ("IyBkZW1v\u00e9Cg==", "non-ASCII"),
        ("IyBk!!ZW1v", "not valid base64"),
        (["IyBkZW1v"], "not a string"),
    ],
)
def test_github_readme_with_bad_base64_is_left_out_and_the_listing_kept(tmp_path, srv, answers, content, why):
    answers["/gh-api/repos/octo/demo/readme"] = _readme(content)
    it = fetch(sites_env(tmp_path, srv), "https://github.com/octo/demo")
    assert it["ok"] and it["extractor"] == "adapter:github", it
    assert "src/" in it["content"] and it["meta"]["readme"] is False
    [warning] = [w for w in it["warnings"] if "README" in w]
    assert why in warning and "left out" in warning


def test_github_readme_without_its_padding_is_read(tmp_path, srv, answers):
    answers["/gh-api/repos/octo/demo/readme"] = _readme("IyBkZW1vCgpQYWRkaW5nIGdvbmUu")  # "# demo\n\nPadding gone."
    it = fetch(sites_env(tmp_path, srv), "https://github.com/octo/demo")
    assert it["ok"] and it["meta"]["readme"] is True and "Padding gone." in it["content"], it


def test_github_wrong_types_in_an_issue_are_left_out(tmp_path, srv, answers):
    doc = issue(7)
    doc.update(user="reporter", labels=5, number="7abc", title=["a", "list"], state={"open": True})
    answers["/gh-api/repos/octo/demo/issues/7"] = doc
    answers["/gh-api/repos/octo/demo/issues/7/comments"] = [
        "a string where a comment should be",
        {"user": ["x"], "body": 5, "created_at": 1e300},
        {"user": {"login": "real"}, "body": "A real comment.", "created_at": "2025-01-03T10:00:00Z"},
    ]
    it = fetch(sites_env(tmp_path, srv), "https://github.com/octo/demo/issues/7")
    assert it["ok"] and it["extractor"] == "adapter:github", it
    c = it["content"]
    assert c.startswith("# Issue #?: ") and "A real comment." in c and "Labels" not in c
    assert it["meta"]["comments"] == 2


def test_github_pull_request_with_wrong_types_keeps_its_text(tmp_path, srv, answers):
    answers["/gh-api/repos/octo/demo/pulls/9"] = {
        "title": "A pull",
        "head": "not an object",
        "base": 5,
        "merged": "yes",
    }
    answers["/gh-api/repos/octo/demo/pulls/9/files"] = [{"filename": "a.py", "additions": "12abc", "deletions": 1e300}]
    answers["/gh-api/repos/octo/demo/pulls/9/comments"] = [{"line": "x", "start_line": [1], "path": 3, "body": "ok"}]
    it = fetch(sites_env(tmp_path, srv), "https://github.com/octo/demo/pull/9")
    assert it["ok"] and it["meta"]["merged"] is False, it
    assert "a.py (, +? -?)" in it["content"] and "Branches:  -> " in it["content"]


def test_github_listing_entries_of_odd_types_are_sorted_not_crashed_on(tmp_path, srv, answers):
    answers["/gh-api/repos/octo/demo"] = {"full_name": "octo/demo", "stargazers_count": "1e400", "license": "MIT"}
    answers["/gh-api/repos/octo/demo/contents/"] = [{"name": "a", "type": ["dir"]}, {"name": 5, "type": {}}, "x"]
    it = fetch(sites_env(tmp_path, srv), "https://github.com/octo/demo")
    assert it["ok"] and "Stars" not in it["content"] and "License" not in it["content"], it


def test_github_answer_of_the_wrong_shape_falls_back(tmp_path, srv, answers):
    answers["/gh-api/repos/octo/demo/issues/7"] = json.dumps("a string where the issue should be")
    it = fetch(sites_env(tmp_path, srv), "https://github.com/octo/demo/issues/7")
    # The page fallback meets the refusing proxy: the item names both failures.
    assert not it["ok"] and it["error"]["code"] == "network", it
    assert "shape this adapter does not know" in it["error"]["message"]


# ------------------------------------------------------------------ Stack Exchange


def _se(items):
    return {"items": items, "has_more": False, "quota_max": 300, "quota_remaining": 290}


@pytest.mark.parametrize("score", ['"12abc"', "1e400", "NaN", "-Infinity", "1e30", "[5]", '{"n": 5}', "true"])
def test_stackexchange_bad_scores_are_left_out_with_a_warning(tmp_path, srv, answers, score):
    bad = dict(SE_ANSWERS[0], score="SCORE")
    body = json.dumps(_se([bad] + SE_ANSWERS[1:])).replace('"SCORE"', score)
    answers["/se-api/questions/123/answers"] = body
    it = fetch(sites_env(tmp_path, srv), "https://stackoverflow.com/questions/123/x")
    assert it["ok"] and it["extractor"] == "adapter:stackexchange", it
    c = it["content"]
    assert "(score ?) by answerer301" in c and "(score 50) by answerer302" in c
    assert any("the score of answer 301 was left out" in w for w in it["warnings"]), it["warnings"]


def test_stackexchange_question_fields_of_the_wrong_type(tmp_path, srv, answers):
    q = copy.deepcopy(SE_QUESTION)
    q.update(owner="Asker", tags="python", title=5, link=["x"], body={"html": 1}, creation_date="2020")
    body = json.dumps(_se([q])).replace('"2020"', "1e400")
    answers["/se-api/questions/123"] = body.replace('"quota_remaining": 290', '"quota_remaining": NaN')
    it = fetch(sites_env(tmp_path, srv), "https://stackoverflow.com/questions/123/x")
    assert it["ok"] and it["author"] == "(unknown)" and it["meta"]["quota_remaining"] is None, it
    assert "Asked by (unknown) on ?" in it["content"] and "Tags" not in it["content"]
    assert any("the date of the question was left out" in w for w in it["warnings"])


# ------------------------------------------------------------------ npm, PyPI


def test_npm_document_of_wrong_types(tmp_path, srv, answers):
    answers["/npm/demo-js"] = {"name": "demo-js", "dist-tags": {"latest": "1.0.0"}, "versions": "x", "time": [1]}
    it = fetch(sites_env(tmp_path, srv), "https://www.npmjs.com/package/demo-js")
    assert it["ok"] and "Released: ?" in it["content"], it


def test_pypi_document_of_wrong_types(tmp_path, srv, answers):
    answers["/pypi/demo-pkg/json"] = {
        "info": {"name": "demo-pkg", "requires_dist": 5, "project_urls": "x", "summary": 3},
        "urls": 7,
    }
    it = fetch(sites_env(tmp_path, srv), "https://pypi.test/project/demo-pkg/")
    assert it["ok"] and "(none)" in it["content"] and it["meta"]["requirements"] == 0, it


# ------------------------------------------------------------------ search providers


@pytest.fixture(scope="module")
def brave():
    with brave_server.FakeBrave() as fake:
        yield fake


def _brave_config(tmp_path, fake):
    entry = {"name": "brave", "type": "brave", "apiKey": brave_server.KEY, "baseUrl": fake.base_url}
    path = tmp_path / "providers.json"
    path.write_text(json.dumps({"providers": [dict(entry, options={"minInterval": 0})]}))
    os.chmod(path, 0o600)
    return str(path)


@pytest.mark.parametrize(
    "body",
    [
        '{"web": {"results": [{"url": "https://a.example/", "title": ["x"], "description": 5, "age": 1e400,'
        ' "extra_snippets": "s", "profile": "p", "page_age": NaN}]}}',
        '{"web": {"results": "a string"}, "query": {"altered": 5, "more_results_available": "yes"}}',
        '{"web": [1, 2], "query": "q"}',
        '"just a string"',
    ],
)
def test_brave_answers_of_wrong_types(tmp_path, brave, env, body):
    brave.server.bodies["hostile"] = body
    r = run_worker(["search", "hostile query", "--provider", "brave", "--config", _brave_config(tmp_path, brave)], env)
    payload = check(r, env, keys=[brave_server.KEY])
    if payload["ok"]:
        for res in payload["results"]:
            assert all(isinstance(res[k], str) for k in ("title", "url", "snippet")), res
    else:
        assert payload["error"]["code"] == "provider", payload


@pytest.fixture(scope="module")
def exa():
    s = exa_server.start()
    yield s
    s.shutdown()


def _exa_env(env, tmp_path, server):
    path = tmp_path / "exa.json"
    path.write_text(json.dumps({"apiKey": exa_server.KEY, "baseUrl": server.url}))
    os.chmod(path, 0o600)
    env["WEBSEARCH_CONFIG"] = str(path)
    return env


EXA_RESULT = '{"url": "https://a.example/x", "id": "https://a.example/x", "title": "T", "text": "body"}'


@pytest.mark.parametrize(
    "body",
    [
        '{"requestId": ["r"], "results": [{"url": ["https://a.example/"], "title": "x"}, %s,'
        ' {"url": "https://b.example/", "title": {"t": 1}, "score": NaN, "highlights": 5, "publishedDate": 7,'
        ' "author": [1], "summary": 3, "text": 1e400}], "costDollars": {"total": "12abc"}, "searchTime": "fast"}'
        % EXA_RESULT,
        '{"results": "none", "costDollars": "free", "resolvedSearchType": 5}',
    ],
)
def test_exa_search_answers_of_wrong_types(tmp_path, exa, env, body):
    exa.bodies["hostile"] = body
    env = _exa_env(env, tmp_path, exa)
    r = run_worker(["search", "hostile query", "--provider", "exa", "--type", "fast"], env)
    payload = check(r, env, keys=[exa_server.KEY])
    if payload["ok"]:
        for res in payload["results"]:
            assert all(isinstance(res[k], str) for k in ("title", "url", "snippet")), res
            assert res["score"] is None or isinstance(res["score"], (int, float))
        assert "cost_dollars" not in payload["meta"]
    else:
        assert payload["error"]["code"] == "provider", payload


def test_exa_contents_answer_of_wrong_types(tmp_path, exa, env):
    exa.bodies["contents"] = (
        '{"results": [%s, {"id": 5, "url": ["x"]}], "statuses": [{"id": ["x"]}, {"id": "https://c.example/",'
        ' "status": "error", "error": {"tag": ["T"], "httpStatusCode": "404x"}}], "costDollars": [1]}' % EXA_RESULT
    )
    try:
        env = _exa_env(env, tmp_path, exa)
        r = run_worker(["fetch", "--provider", "exa", "https://a.example/x", "https://c.example/"], env)
    finally:
        exa.bodies.clear()
    payload = check(r, env, keys=[exa_server.KEY])
    if payload["ok"]:
        first, second = payload["results"]
        assert first["ok"] and first["content"] == "body", first
        assert not second["ok"] and second["error"]["code"] == "provider", second
    else:
        assert payload["error"]["code"] == "provider", payload


# ------------------------------------------------------------------ a page's own data


@pytest.mark.parametrize("price", ['"NaN"', "1e400", '"1e400"', '"-Infinity"'])
def test_a_product_price_no_number_can_hold_loses_no_extraction_stage(tmp_path, srv, answers, price):
    with open(os.path.join(os.path.dirname(__file__), "fixtures", "pages", "product_page.html")) as f:
        html = f.read()
    assert '"price":"89.95"' in html
    answers["/shop/trailhead"] = ("text/html; charset=utf-8", html.replace('"price":"89.95"', '"price":%s' % price))
    env = sites_env(tmp_path, srv)
    r = run_worker(["fetch", "--no-cache", "--allow-private", "--format", "text", srv.base + "/shop/trailhead"], env)
    [it] = check(r, env)["results"]
    assert it["ok"] and "Wanderrucksack" in it["content"], it
    assert not [w for w in it.get("warnings", []) if "extraction stage" in w], it["warnings"]
