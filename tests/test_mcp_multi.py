"""Issue 43's parameters through MCP: web_search ``queries`` and ``sources``, web_fetch ``find``, each
sent by the official MCP SDK client to the real server, each call a real worker against local fakes
(a fake Brave, GitHub's and Stack Exchange's search APIs, a long local page)."""

import json
import os

import pytest
from fakes import brave_server
from fakes.corpus_server import CorpusServer
from fakes.sites_server import SitesServer
from test_mcp import run_session

pytestmark = pytest.mark.slow  # an MCP server and its worker processes in each test


def results_of(body):
    return {"type": "search", "web": {"results": body}}


@pytest.fixture
def fakes(tmp_path):
    sites = SitesServer().start()
    with brave_server.FakeBrave() as brave:
        shared = {"title": "Shared", "url": "https://shared.example/page", "description": "found by all"}
        for word in ("alpha", "beta", "gamma"):
            own = {"title": word, "url": "https://%s.example/" % word, "description": word}
            brave.server.bodies[word] = results_of([own, shared])
        config = tmp_path / "config.json"
        config.write_text(
            json.dumps(
                {
                    "providers": [brave.provider_entry()],
                    "sites": {
                        "github": {"apiBase": sites.base + "/gh-api"},
                        "stackexchange": {"apiBase": sites.base + "/se-api"},
                    },
                }
            )
        )
        os.chmod(config, 0o600)
        yield brave, sites, str(config)
    sites.stop()


def test_queries_are_one_request_each_and_one_merged_list(tmp_path, fakes):
    brave, _sites, config = fakes

    brave.server.retry_after = "120"  # the "limited" query's 429: longer than a call waits out

    async def body(session):
        merged = await session.call_tool("web_search", {"query": "alpha q", "queries": ["beta q", "gamma q"]})
        refused = await session.call_tool(
            "web_search", {"query": "alpha r", "queries": ["limited r", "gamma r"], "provider": "brave"}
        )
        return merged, refused

    (result, refused), _ = run_session(tmp_path, body, "--config", config)
    assert not refused.is_error, refused  # one refused query is a warning; the others answered
    [warning] = refused.structured_content["warnings"]
    assert warning.startswith('"limited r" on web: rate limited (retry after 120 s)'), warning
    assert {q for r in refused.structured_content["results"] for q in r["queries"]} == {"alpha r", "gamma r"}
    assert not result.is_error, result
    p = result.structured_content
    asked = sorted(params["q"][0] for _path, params, _h in brave.requests)
    assert [a for a in asked if a.endswith(" q")] == ["alpha q", "beta q", "gamma q"]  # one request each
    assert p["queries"] == ["alpha q", "beta q", "gamma q"]
    top = p["results"][0]
    assert top["url"] == "https://shared.example/page" and top["queries"] == p["queries"]
    assert top["score"] == round(3 / 62, 6) > p["results"][1]["score"]
    assert "found by: alpha q | beta q | gamma q" in result.content[0].text


def test_sources_ask_github_and_stackexchange(tmp_path, fakes):
    _brave, sites, config = fakes

    async def body(session):
        ok = await session.call_tool("web_search", {"query": "flatten a list", "sources": ["github", "stackexchange"]})
        sites.github_limited = True
        limited = await session.call_tool("web_search", {"query": "flatten", "sources": ["github", "stackexchange"]})
        return ok, limited

    (ok, limited), _ = run_session(tmp_path, body, "--config", config)
    assert not ok.is_error, ok
    found = {r["url"]: r for r in ok.structured_content["results"]}
    issue = found["https://github.com/octo/demo/issues/7"]
    assert issue["source"] == "github" and issue["state"] == "open" and issue["comments"] == 205
    question = found["https://stackoverflow.com/questions/123/flatten-a-list"]
    assert question["source"] == "stackexchange" and question["votes"] == 42 and question["answered"] is True
    assert {api for api, _q in sites.searches} == {"github", "stackexchange"}
    # GitHub's 403 rate limit: a warning, Stack Overflow's results stand
    assert not limited.is_error, limited
    assert {r["source"] for r in limited.structured_content["results"]} == {"stackexchange"}
    assert limited.structured_content["warnings"][0].startswith("github: rate limited")


def test_find_gives_every_match_with_its_offset(tmp_path):
    paragraphs = "".join(
        "<p>Paragraph %d about the pool.%s</p>" % (i, " Set POOL_SIZE to 8." if i in (10, 500, 990) else "")
        for i in range(1000)
    )
    page = "<html><head><title>Pool</title></head><body><article>%s</article></body></html>" % paragraphs
    server = CorpusServer({"pool": page.encode()}).start()
    try:

        async def body(session):
            return await session.call_tool(
                "web_fetch", {"urls": [server.url("pool")], "find": ["pool_size to 8"], "max_chars": 500}
            )

        result, _ = run_session(tmp_path, body, "--allow-private")
    finally:
        server.stop()
    assert not result.is_error, result
    item = result.structured_content["results"][0]
    hit = item["find"][0]
    assert hit["count"] == 3 and [m["offset"] for m in hit["matches"]] == sorted(m["offset"] for m in hit["matches"])
    assert all("POOL_SIZE to 8" in m["context"] for m in hit["matches"])
    text = result.content[0].text
    assert 'find "pool_size to 8": 3 matches (an offset is a start_index to read from)' in text, text[:800]
