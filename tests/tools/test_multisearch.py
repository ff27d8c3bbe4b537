"""Several queries and sources in one search call (issue 43), through the real CLI against local fakes:
a fake Brave (tests/fakes/brave_server.py) for the web, GitHub's and Stack Exchange's search APIs
(tests/fakes/sites_server.py) for the developer sources.

What the issue asks to be shown: three queries -> one request each at the API, one merged list, a URL
found by all three listed once with its three queries, fusion order (second in three lists above first
in one), numeric scores; a refused query a warning while the rest answer; ``--sources
github,stackexchange`` asking both APIs, results with source, state, comments, votes and answered; a
GitHub 403 rate limit a warning, not an error; ``--fetch-top`` on the merged list, through the adapters.
"""

import json
import os
import time

import pytest
from conftest import run_worker, worker_env
from fakes import brave_server
from fakes.sites_server import SitesServer

from worker.tools import fusion

pytestmark = pytest.mark.slow  # worker processes against fake APIs


def web(url, title):
    return {"title": title, "url": url, "description": "about %s" % title}


SHARED = "https://docs.example.org/tokio/spawn"
LISTS = {
    "alpha": [
        web("https://a.example.com/1", "A first"),
        web(SHARED, "Shared page"),
        web("https://a.example.com/3", "A3"),
    ],
    "beta": [
        web("https://b.example.com/1", "B first"),
        web(SHARED + "?utm_source=x", "Shared"),
        web("https://b.example.com/3", "B3"),
    ],
    "gamma": [
        web("https://c.example.com/1", "C first"),
        web("http://docs.example.org/tokio/spawn/", "Shared"),
        web("https://c.example.com/3", "C3"),
    ],
}


@pytest.fixture
def brave():
    with brave_server.FakeBrave() as fake:
        for word, results in LISTS.items():
            fake.server.bodies[word] = {"type": "search", "web": {"results": results}}
        yield fake


@pytest.fixture
def sites():
    s = SitesServer().start()
    yield s
    s.stop()


def config(tmp_path, brave=None, sites=None, **top):
    data = dict(top)
    if brave is not None:
        data["providers"] = [brave.provider_entry()]
    if sites is not None:
        data["sites"] = {
            "github": {"apiBase": sites.base + "/gh-api"},
            "stackexchange": {"apiBase": sites.base + "/se-api"},
        }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    os.chmod(path, 0o600)
    return worker_env(tmp_path, {"WEBSEARCH_CONFIG": str(path)})


def queries_at(fake):
    return sorted(params["q"][0] for _path, params, _headers in fake.requests)


def test_three_queries_one_request_each_one_merged_list_in_fusion_order(tmp_path, brave):
    env = config(tmp_path, brave)
    args = [
        "search",
        "--provider",
        "brave",
        "alpha tokio spawn",
        "--query",
        "beta tokio spawn",
        "--query=gamma tokio spawn",
    ]
    r = run_worker(args, env)
    assert r.returncode == 0, r
    p = r.payload
    assert queries_at(brave) == ["alpha tokio spawn", "beta tokio spawn", "gamma tokio spawn"]  # one request each
    assert p["queries"] == ["alpha tokio spawn", "beta tokio spawn", "gamma tokio spawn"] and p["sources"] == ["web"]
    urls = [x["url"] for x in p["results"]]
    # The page second in all three lists (three spellings of its URL) is listed once, first, with its three queries.
    assert sum(1 for u in urls if "docs.example.org" in u) == 1
    top = p["results"][0]
    assert top["url"] == SHARED and top["queries"] == p["queries"] and top["source"] == "web"
    assert top["score"] == round(3 / 62, 6)
    firsts = {x["url"]: x for x in p["results"] if x["url"].endswith("/1")}
    assert set(firsts) == {"https://a.example.com/1", "https://b.example.com/1", "https://c.example.com/1"}
    assert all(x["score"] == round(1 / 61, 6) and len(x["queries"]) == 1 for x in firsts.values())
    assert all(isinstance(x["score"], float) for x in p["results"])
    assert [x["score"] for x in p["results"]] == sorted((x["score"] for x in p["results"]), reverse=True)
    assert len(p["results"]) == 5  # --limit (5) from the one source: the best of the three phrasings
    assert p["meta"]["fusion"]["lists"] == 3 and p["meta"]["fusion"]["candidates"] == 9
    assert [s["outcome"] for s in p["meta"]["searches"]] == ["ok"] * 3 and p["warnings"] == []
    assert "found by: alpha tokio spawn | beta tokio spawn | gamma tokio spawn (score 0.0484)" in p["text"]
    assert "queries: alpha tokio spawn | beta tokio spawn | gamma tokio spawn" in p["text"]

    again = run_worker(args, env)  # each query's answer was cached under its own key
    assert again.payload["meta"]["cached"] is True and len(brave.requests) == 3
    assert [x["url"] for x in again.payload["results"]] == urls
    lone = run_worker(["search", "--provider", "brave", "beta tokio spawn"], env)  # the same key a lone search has
    assert lone.payload["meta"]["cached"] is True and len(brave.requests) == 3


def test_a_refused_query_is_a_warning_and_the_others_stand(tmp_path, brave):
    brave.server.retry_after = "120"  # more than a call waits out: the 429 is the query's answer
    env = config(tmp_path, brave)
    r = run_worker(["search", "--provider", "brave", "alpha x", "--query", "limited x", "--query", "gamma x"], env)
    assert r.returncode == 0, r
    p = r.payload
    assert len(brave.requests) == 3
    assert {q for x in p["results"] for q in x["queries"]} == {"alpha x", "gamma x"}
    assert len(p["warnings"]) == 1 and '"limited x" on web' in p["warnings"][0], p["warnings"]
    assert "rate limited (retry after 120 s)" in p["warnings"][0]
    refused = [s for s in p["meta"]["searches"] if s["outcome"] != "ok"]
    assert refused == [dict(refused[0], query="limited x", source="web", outcome="rate_limited", retry_after=120)]
    assert "## Warnings" in p["text"] and "limited x" in p["text"]


def test_a_query_that_outlasts_the_timeout_is_a_warning_and_the_call_ends_in_time(tmp_path, brave):
    env = config(tmp_path, brave)
    started = time.monotonic()
    r = run_worker(["search", "--timeout", "3", "--provider", "brave", "alpha t", "--query", "slow t"], env)
    took = time.monotonic() - started
    assert r.returncode == 0 and took < 3.5, (took, r)
    assert r.payload["warnings"] == [
        '"slow t" on web: timed out; no answer within --timeout 3s; the other lists answered'
    ]
    slow = r.payload["meta"]["searches"][1]
    assert slow["outcome"] == "timeout" and slow["ms"] >= 2000
    assert {q for x in r.payload["results"] for q in x["queries"]} == {"alpha t"}


def test_every_query_refused_is_the_calls_error(tmp_path, brave):
    brave.server.retry_after = "120"
    env = config(tmp_path, brave)
    r = run_worker(["search", "--provider", "brave", "limited one", "--query", "limited two"], env)
    assert r.returncode == 1 and r.payload["error"]["code"] == "rate_limited", r
    assert r.payload["error"]["retry_after"] == 120 and len(r.payload["error"]["searches"]) == 2


def test_github_and_stackexchange_both_asked_with_their_facts(tmp_path, sites):
    env = config(tmp_path, sites=sites)
    r = run_worker(["search", "flatten a list", "--sources", "github,stackexchange"], env)
    assert r.returncode == 0, r
    p = r.payload
    assert sites.searches == [("github", "flatten a list"), ("stackexchange", "flatten a list")] or sorted(
        sites.searches
    ) == [("github", "flatten a list"), ("stackexchange", "flatten a list")]
    assert p["sources"] == ["github", "stackexchange"] and p["provider"] in (
        "github+stackexchange",
        "stackexchange+github",
    )
    by_url = {x["url"]: x for x in p["results"]}
    issue = by_url["https://github.com/octo/demo/issues/7"]
    assert issue["source"] == "github" and issue["state"] == "open" and issue["comments"] == 205
    assert issue["repository"] == "octo/demo" and issue["kind"] == "issue" and issue["updated"]
    pull = by_url["https://github.com/octo/demo/pull/9"]
    assert pull["kind"] == "pull" and pull["state"] == "merged" and pull["comments"] == 2
    question = by_url["https://stackoverflow.com/questions/123/flatten-a-list"]
    assert question["source"] == "stackexchange" and question["votes"] == 42 and question["answered"] is True
    assert question["accepted_answer"] == "https://stackoverflow.com/a/302" and question["tags"] == ["python", "list"]
    assert question["title"] == "How do I flatten a list of lists?" and "[[1, 2], [3]]" in question["snippet"]
    unanswered = by_url["https://stackoverflow.com/questions/456/flatten-in-place"]
    assert unanswered["answered"] is False and unanswered["accepted_answer"] is None
    assert unanswered["title"] == 'Flatten a list "in place"?'
    assert all(isinstance(x["score"], float) and x["queries"] == ["flatten a list"] for x in p["results"])
    # RRF interleaves the lists: each list's first result before either list's second
    assert {p["results"][0]["source"], p["results"][1]["source"]} == {"github", "stackexchange"}
    assert "github: open issue" in p["text"] and "42 votes" in p["text"]


def test_a_github_rate_limit_is_a_warning_not_an_error(tmp_path, sites):
    sites.github_limited = True
    env = config(tmp_path, sites=sites)
    r = run_worker(["search", "flatten a list", "--sources", "github,stackexchange"], env)
    assert r.returncode == 0, r
    p = r.payload
    assert {x["source"] for x in p["results"]} == {"stackexchange"}
    assert len(p["warnings"]) == 1 and p["warnings"][0].startswith("github: rate limited"), p["warnings"]
    gh = next(s for s in p["meta"]["searches"] if s["source"] == "github")
    assert gh["outcome"] == "rate_limited" and gh["retry_after"] >= 1
    alone = run_worker(["search", "flatten a list", "--sources", "github"], env)  # nothing else answered
    assert alone.returncode == 1 and alone.payload["error"]["code"] == "rate_limited", alone


def test_a_token_goes_to_the_api_and_nowhere_in_the_answer(tmp_path, sites):
    secret = "ghp_test0123456789abcdefSECRET"
    env = config(tmp_path, sites=sites)
    env["GITHUB_TOKEN"] = secret
    r = run_worker(["search", "crash", "--sources", "github"], env)
    assert r.returncode == 0, r
    sent = [h.get("authorization") for path, h in sites.requests if path.startswith("/gh-api/search/")]
    assert sent == ["Bearer " + secret]
    assert secret not in r.stdout and secret not in r.stderr
    assert r.payload["meta"]["searches"][0]["outcome"] == "ok"


def test_a_newer_tokens_kind_qualifier_is_asked_again_for_issues(tmp_path, sites):
    sites.github_needs_kind = True
    env = config(tmp_path, sites=sites)
    r = run_worker(["search", "crash", "--sources", "github"], env)
    assert r.returncode == 0, r
    assert [q for api, q in sites.searches] == ["crash", "crash is:issue"]
    assert "add is:pr for pull requests" in r.payload["warnings"][0]


def test_web_and_developer_sources_merge_and_fetch_top_reads_the_merged_list_through_the_adapters(
    tmp_path, brave, sites
):
    brave.server.bodies["octo"] = {
        "type": "search",
        "web": {
            "results": [
                web("https://github.com/octo/demo/issues/7", "Crash on empty config"),
                web("https://x.example/2", "Other"),
            ]
        },
    }
    env = config(tmp_path, brave, sites)
    r = run_worker(
        [
            "search",
            "--provider",
            "brave",
            "--allow-private",
            "octo crash",
            "--sources",
            "web,github,stackexchange",
            "--fetch-top",
            "1",
        ],
        env,
        timeout=90,
    )
    assert r.returncode == 0, r
    p = r.payload
    top = p["results"][0]
    # first on the web and on GitHub: one result, both sources, GitHub's facts on it
    assert top["url"] == "https://github.com/octo/demo/issues/7" and top["sources"] == ["web", "github"]
    assert top["score"] == round(2 / 61, 6) and top["state"] == "open" and top["comments"] == 205
    assert top["fetched"] is True, top
    # the adapter read the issue through the configured API (its comments), not github.com's HTML
    assert any(path.startswith("/gh-api/repos/octo/demo/issues/7/comments") for path, _h in sites.requests)


def test_bad_sources_and_too_many_queries_are_stable_errors(tmp_path):
    env = worker_env(tmp_path)
    r = run_worker(["search", "q", "--sources", "gitlab"], env)
    assert r.returncode == 2 and r.payload["error"]["code"] == "usage" and "gitlab" in r.payload["error"]["message"]
    r = run_worker(["search", "q1"] + [a for i in range(2, 7) for a in ("--query", "q%d" % i)], env)
    assert r.returncode == 1 and r.payload["error"]["code"] == "invalid_query", r
    assert "6 queries" in r.payload["error"]["message"]
    r = run_worker(["search", "q", "--news", "--sources", "github"], env)
    assert r.returncode == 1 and r.payload["error"]["code"] == "invalid_argument", r
    r = run_worker(["search", "q", "--query", "   "], env)
    assert r.returncode == 1 and r.payload["error"]["code"] == "invalid_query", r
    assert "Traceback" not in r.stderr


# -- the fusion itself -------------------------------------------------------------------------


def test_fusion_second_in_three_lists_outranks_first_in_one():
    lists = [
        ("web", "q1", [{"url": "https://a/1"}, {"url": "https://s/"}]),
        ("web", "q2", [{"url": "https://b/1"}, {"url": "https://s"}]),
        ("web", "q3", [{"url": "https://c/1"}, {"url": "http://s/#x"}]),
    ]
    merged, facts = fusion.fuse(lists)
    assert merged[0]["url"] == "https://s/" and merged[0]["queries"] == ["q1", "q2", "q3"]
    assert merged[0]["score"] == round(3 / 62, 6) > merged[1]["score"] == round(1 / 61, 6)
    assert [m["url"] for m in merged[1:]] == ["https://a/1", "https://b/1", "https://c/1"]  # ties: first seen first
    assert facts == {"method": "rrf", "k": 60, "lists": 3, "candidates": 6, "distinct": 4, "found_by_several": 1}


def test_fusion_keeps_the_best_copys_fields_and_adds_the_others():
    lists = [
        ("web", "q", [{"url": "https://github.com/o/r/issues/1", "title": "web title", "snippet": "w"}]),
        ("github", "q", [{"x": 0}, {"url": "https://github.com/o/r/issues/1", "title": "gh", "state": "open"}]),
    ]
    merged, _ = fusion.fuse(lists, cap=1)
    assert merged == [
        {
            "url": "https://github.com/o/r/issues/1",
            "title": "web title",
            "snippet": "w",
            "state": "open",
            "source": "web",
            "sources": ["web", "github"],
            "queries": ["q"],
            "score": round(1 / 61 + 1 / 61, 6),
        }
    ]
    news, _ = fusion.fuse([("web", "q", [{"url": "https://n/1", "source": "Example News"}])], mark_source=False)
    assert news[0]["source"] == "Example News"  # --news: source stays the publisher


def test_a_hostile_api_answer_is_a_stable_code_and_its_key_is_nowhere(tmp_path, sites):
    key = "se-key-DO-NOT-PRINT-0123"
    env = config(tmp_path, sites=sites)
    env["STACKEXCHANGE_KEY"] = key
    sites.answers["/gh-api/search/issues"] = [1, "two", None]  # JSON, but not the API's object
    r = run_worker(["search", "flatten a list", "--sources", "github,stackexchange"], env)
    assert r.returncode == 0, r
    assert r.payload["warnings"][0].startswith("github: failed"), r.payload["warnings"]
    assert {x["source"] for x in r.payload["results"]} == {"stackexchange"}
    assert any("key=" + key in path for path, _h in sites.seen("/se-api/search/advanced"))
    alone = run_worker(["search", "flatten a list", "--sources", "github"], env)
    assert alone.returncode == 1 and alone.payload["error"]["code"] == "provider", alone
    for out in (r, alone):
        assert "Traceback" not in out.stderr and key not in out.stdout and key not in out.stderr
    stored = [os.path.join(root, name) for root, _dirs, files in os.walk(tmp_path / "cache") for name in files]
    assert any(p.endswith("cache.sqlite3") for p in stored), stored  # the answer was cached...
    for path in stored:
        with open(path, "rb") as f:
            assert key.encode() not in f.read(), path  # ...without the key


def test_three_queries_through_exa_each_import_sees_a_whole_exa_py(tmp_path):
    from fakes import exa_server

    exa = exa_server.start()
    try:
        path = tmp_path / "exa.json"
        path.write_text(json.dumps({"providers": [exa.provider_entry()]}))
        os.chmod(path, 0o600)
        env = worker_env(tmp_path, {"WEBSEARCH_CONFIG": str(path)})
        r = run_worker(["search", "--provider", "exa", "rust one", "--query", "rust two", "--query", "rust three"], env)
    finally:
        exa.shutdown()
        exa.server_close()
    assert r.returncode == 0, r
    assert [s["outcome"] for s in r.payload["meta"]["searches"]] == ["ok"] * 3, r.payload["meta"]["searches"]
    assert len(exa.requests) == 3 and r.payload["provider"] == "exa"
