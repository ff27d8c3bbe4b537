"""Issue 42's parameters through MCP: web_fetch ``crawl`` and ``map``, sent by the official MCP SDK
client to the real server, each call a real worker against a small site on 127.0.0.1."""

import pytest
from fakes.site_server import docs_site  # the small site the CLI's map and crawl tests read
from test_mcp import run_session

pytestmark = pytest.mark.slow  # an MCP server and its worker processes in each test


def test_crawl_and_map_through_mcp_with_progress(tmp_path):
    site = docs_site()
    updates = []

    async def progress(value, total, message):
        updates.append((value, message))

    async def body(session):
        crawled = await session.call_tool(
            "web_fetch",
            {"urls": [site.url("/docs/index.html")], "crawl": 5, "focus": "What is the default pool size?"},
            progress_callback=progress,
        )
        mapped = await session.call_tool("web_fetch", {"urls": [site.url("/docs/index.html")], "map": True, "crawl": 3})
        two = await session.call_tool("web_fetch", {"urls": [site.url("/docs/"), site.url("/blog/")], "map": True})
        return crawled, mapped, two

    try:
        (crawled, mapped, two), _ = run_session(
            tmp_path, body, "--allow-private", extra={"WEBSEARCH_MCP_PROGRESS_INTERVAL": "0.2"}
        )
    finally:
        site.stop()
    assert not crawled.is_error, crawled
    payload = crawled.structured_content
    assert payload["crawl"]["read"] == 5 and payload["crawl"]["mapped"] == 5
    assert "default size is 4" in payload["passages"][0]["text"]
    text = crawled.content[0].text
    assert "default size is 4" in text and "start_index %d" % payload["passages"][0]["offset"] in text
    assert updates and all(m.startswith("web_fetch: mapping the section, then reading up to 5") for _v, m in updates)
    assert not mapped.is_error, mapped
    listed = [p["url"] for p in mapped.structured_content["results"]]
    assert mapped.structured_content["tool"] == "map" and len(listed) == 3
    assert listed[0] == site.url("/docs/index.html")
    assert any(
        "crawl 3" in w for w in mapped.structured_content["warnings"]
    )  # the worker's --max-pages, in MCP's words
    assert two.is_error and two.structured_content["error"]["code"] == "usage"
