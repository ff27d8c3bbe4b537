"""News: Brave's news endpoint and Exa's news category against fake APIs on 127.0.0.1, ddgs'
DuckDuckGo news engine through the TLS proxy, and the worker as a real subprocess."""

import json

import pytest
from conftest import run_worker, worker_env
from fakes import brave_server, exa_server
from fakes.engine_pages import ddg_news_body

pytestmark = pytest.mark.slow  # a worker process in each test

DDG_NEWS_HOST = "duckduckgo.com"


@pytest.fixture
def brave_env(tmp_path):
    with brave_server.FakeBrave() as server:
        path = tmp_path / "brave.json"
        path.write_text(
            json.dumps(
                {
                    "providers": [
                        {
                            "name": "brave",
                            "type": "brave",
                            "apiKey": brave_server.KEY,
                            "baseUrl": server.base_url,
                            "options": {"minInterval": 0},
                        }
                    ]
                }
            )
        )
        yield server, worker_env(tmp_path, {"WEBSEARCH_CONFIG": str(path)})


def test_brave_news_endpoint_fields_and_recency(brave_env):
    server, env = brave_env
    r = run_worker(["search", "--news", "--recency", "week", "--provider", "brave", "rust foundation"], env)
    assert r.returncode == 0, r
    path, params, _ = server.requests[-1]
    assert path == "/res/v1/news/search"
    assert params["freshness"] == ["pw"] and "result_filter" not in params and "text_decorations" not in params
    p = r.payload
    assert p["vertical"] == "news" and p["provider"] == "brave"
    first, second = p["results"]
    assert first["title"] == "Rust Foundation announces new members"
    assert first["published"] == "2026-11-22T10:00:00" and first["source"] == "Example News"
    assert first["breaking"] is True and first["image"] == "https://imgs.example.com/t.jpg"
    assert second["source"] == "blog.example.org" and second["published"] == "2026-11-21T08:00:00"
    assert p["meta"]["skipped"] == 1
    assert "date: 2026-11-22" in p["text"]


def test_vertical_news_is_news_and_contradictions_are_usage(brave_env):
    server, env = brave_env
    r = run_worker(["search", "--vertical", "news", "--provider", "brave", "--limit", "40", "rust"], env)
    assert r.returncode == 0, r
    path, params, _ = server.requests[-1]
    assert path == "/res/v1/news/search" and params["count"] == ["40"]  # the news endpoint serves up to 50
    r = run_worker(["search", "--news", "--vertical", "web", "rust"], env)
    assert r.returncode == 2 and r.payload["error"]["code"] == "usage", r
    assert "contradict" in r.payload["error"]["message"]
    r = run_worker(["search", "--vertical", "sports", "rust"], env)
    assert r.returncode == 2 and r.payload["error"]["code"] == "usage", r


def test_news_results_are_deduplicated(brave_env):
    server, env = brave_env
    r = run_worker(["search", "--news", "--provider", "brave", "dupes"], env)
    assert r.returncode == 0, r
    assert [x["title"] for x in r.payload["results"]] == ["Original", "Another page"]
    assert r.payload["meta"]["duplicates_dropped"] == 3


def test_exa_news_category_source_and_recency(tmp_path):
    server = exa_server.start()
    try:
        env = worker_env(tmp_path, {"EXA_API_KEY": exa_server.KEY})
        path = tmp_path / "exa.json"
        path.write_text(json.dumps({"providers": [{"name": "exa", "type": "exa", "baseUrl": server.url}]}))
        env["WEBSEARCH_CONFIG"] = str(path)
        r = run_worker(
            [
                "search",
                "--news",
                "--recency",
                "day",
                "--provider",
                "exa",
                "--include-domain",
                "www.reuters.example",
                "chip export rules",
            ],
            env,
        )
        assert r.returncode == 0, r
        body = server.requests[-1]["body"]
        assert body["category"] == "news" and body["startPublishedDate"].endswith("Z")
        first = r.payload["results"][0]
        assert first["source"] == "reuters.example" and first["published"].startswith("2025-01-")
        r = run_worker(["search", "--news", "--provider", "exa", "--category", "pdf", "q"], env)
        assert r.returncode == 1 and r.payload["error"]["code"] == "invalid_argument", r
        assert len(server.requests) == 1
    finally:
        server.shutdown()


def test_a_provider_without_news_is_an_error_when_named_and_passed_over_in_auto(tmp_path):
    env = worker_env(tmp_path)
    path = tmp_path / "own.json"
    path.write_text(
        json.dumps({"providers": [{"name": "mine", "type": "tests.fakes.own_provider:Echo"}], "fallback": ["mine"]})
    )
    r = run_worker(["search", "--config", str(path), "--provider", "mine", "--news", "q"], env)
    assert r.returncode == 1 and r.payload["error"]["code"] == "invalid_argument", r
    assert "has no news search" in r.payload["error"]["message"]
    r = run_worker(["search", "--config", str(path), "--provider", "mine", "q"], env)  # web: it answers
    assert r.returncode == 0 and r.payload["provider"] == "mine", r
    # a chain of providers none of which has news: a config error, never a silent web search
    r = run_worker(["search", "--config", str(path), "--news", "q"], env)
    assert r.returncode == 1 and r.payload["error"]["code"] == "config", r
    assert "news" in r.payload["error"]["message"]


@pytest.mark.upstream("ddgs", "primp")
def test_ddgs_news_through_the_real_engine(proxy, tmp_path):
    proxy.reset()
    proxy.route(DDG_NEWS_HOST, body=ddg_news_body(), headers={"Content-Type": "application/json"})
    env = worker_env(tmp_path, proxy.env())
    r = run_worker(["search", "--news", "--recency", "month", "--backend", "duckduckgo", "rust release"], env)
    assert r.returncode == 0, r
    p = r.payload
    assert p["provider"] == "ddgs" and p["vertical"] == "news" and p["meta"]["engine"] == "duckduckgo"
    assert len(p["results"]) == 1  # the tracked copy of the same article is dropped, inside the engine's paging
    first = p["results"][0]
    assert first["published"] == "2025-11-22T10:00:00+00:00" and first["source"] == "Rust Blog"
    assert first["snippet"].startswith("The Rust team")
    news = [q for q in proxy.requests_for(DDG_NEWS_HOST) if q.path == "/news.js"]
    assert news and news[0].params["vqd"] == "4-98765" and news[0].params["df"] == "m"
