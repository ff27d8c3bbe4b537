"""The fetch cache revalidates, says how old each item is, stands in for a failing site; 402 and User-Agent.

A real worker process against a local server that counts requests and answers
conditional requests (tests/fakes/fresh_server.py).
"""

import json
import time

import pytest
from fakes.fresh_server import FreshWeb, items
from fakes.fresh_server import fetch_private as fetch

from worker import __version__


@pytest.fixture(scope="module")
def web():
    w = FreshWeb().start()
    yield w
    w.stop()


def one(r):
    [it] = items(r)
    return it


def requests_to(web, path):
    """The request headers of every request to ``path``, in order."""
    with web.lock:
        return [headers for p, headers, _ in web.log if p == path]


def test_past_the_ttl_a_304_serves_the_same_item_without_a_download(web, env):
    url = web.url("/v/etag")  # max-age=0: stale at once, so the next fetch revalidates
    first = one(fetch(env, url))
    assert first["ok"] and first["cache"] == "miss" and first["cached"] is False
    assert first["fetched_at"].endswith("Z") and "version 1" in first["content"]
    assert "_http" not in first and "_fetched" not in first
    second = one(fetch(env, url))
    assert second["cache"] == "revalidated" and second["cached"] is True
    assert second["content"] == first["content"] and second["title"] == first["title"]
    assert second["fetched_at"] == first["fetched_at"]  # the bytes are still the first download's
    sent = requests_to(web, "/v/etag")
    assert len(sent) == 2 and "If-None-Match" not in sent[0] and sent[1]["If-None-Match"] == '"etag-v1"'
    assert web.answered("/v/etag", 304) == 1 and web.answered("/v/etag", 200) == 1


def test_our_ttl_first_then_if_modified_since(web, env):
    url = web.url("/v/lastmod")  # Last-Modified only, nothing said of freshness: --cache-ttl decides
    # a TTL of 4 s: the second worker run starts well within it on a loaded machine too
    assert one(fetch(env, url, "--cache-ttl", "4"))["cache"] == "miss"
    again = one(fetch(env, url, "--cache-ttl", "4"))
    assert again["cache"] == "fresh" and again["cache_age_s"] < 4
    assert len(requests_to(web, "/v/lastmod")) == 1  # fresh: the site is not asked
    time.sleep(4.1)
    later = one(fetch(env, url, "--cache-ttl", "4"))
    assert later["cache"] == "revalidated" and later["content"] == again["content"]
    sent = requests_to(web, "/v/lastmod")
    assert len(sent) == 2 and sent[1]["If-Modified-Since"] == "Tue, 03 Mar 2026 10:00:00 GMT"


def test_the_site_max_age_and_no_cache(web, env):
    maxage = web.url("/v/maxage?s=3600")
    nocache = web.url("/v/nocache")
    fetch(env, maxage, nocache)
    r = fetch(env, maxage, nocache)
    a, b = r.payload["results"]
    assert a["cache"] == "fresh" and len(requests_to(web, "/v/maxage")) == 1
    assert b["cache"] == "revalidated" and len(requests_to(web, "/v/nocache")) == 2  # no-cache: asked every time
    assert r.payload["meta"]["cache"] == {"fresh": 1, "revalidated": 1, "stale": 0, "miss": 0}


def test_no_store_is_fetched_every_time(web, env):
    url = web.url("/v/nostore")
    states = [one(fetch(env, url))["cache"] for _ in range(3)]
    assert states == ["miss", "miss", "miss"]
    assert web.answered("/v/nostore", 200) == 3
    assert all("If-None-Match" not in h for h in requests_to(web, "/v/nostore"))


def test_a_changed_page_is_fetched_again(web, env):
    url = web.url("/v/changing")
    assert "version 1" in one(fetch(env, url))["content"]
    web.version["/v/changing"] = 2
    changed = one(fetch(env, url))
    assert changed["cache"] == "miss" and "version 2" in changed["content"]
    assert requests_to(web, "/v/changing")[1]["If-None-Match"] == '"changing-v1"'
    after = one(fetch(env, url))  # the new version's validators were stored
    assert after["cache"] == "revalidated" and "version 2" in after["content"]
    assert requests_to(web, "/v/changing")[2]["If-None-Match"] == '"changing-v2"'


def test_refresh_downloads_without_asking_conditionally(web, env):
    url = web.url("/v/refresh")
    fetch(env, url)
    assert one(fetch(env, url, "--refresh"))["cache"] == "miss"
    assert "If-None-Match" not in requests_to(web, "/v/refresh")[1]


def test_stale_if_error_within_the_bound_then_the_error(tmp_path, env):
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({"staleIfError": 6}))  # wide enough for two worker runs on a loaded machine
    w = FreshWeb().start()
    urls = [w.url("/v/etag"), w.url("/v/mustreval")]
    try:
        r = fetch(env, "--config", str(cfg), *urls)
        assert [it["cache"] for it in r.payload["results"]] == ["miss", "miss"]
    finally:
        w.stop()  # the site is gone: connections are refused
    r = fetch(env, "--config", str(cfg), *urls)
    assert r.returncode == 0, r
    stale, must = r.payload["results"]
    assert stale["ok"] and stale["cache"] == "stale" and "version 1" in stale["content"]
    assert 0 <= stale["cache_age_s"] < 6
    [warning] = [w for w in stale["warnings"] if "the site failed" in w]
    assert "network" in warning and "confirmed" in warning and " s ago" in warning
    assert warning in r.payload["warnings"]
    assert "stale copy: the site failed" in r.payload["text"]  # what a model reads says so too
    assert must["ok"] is False and must["error"]["code"] == "network"  # must-revalidate: never served stale
    assert one(fetch(env, "--config", str(cfg), "--no-cache", urls[0]))["error"]["code"] == "network"
    time.sleep(max(0.0, 6.1 - stale["cache_age_s"]))  # past staleIfError: the error itself
    r = fetch(env, "--config", str(cfg), urls[0])
    assert one(r)["ok"] is False and one(r)["error"]["code"] == "network"


def test_stale_if_error_on_a_5xx(web, env):
    url = web.url("/v/flaky")
    fetch(env, url)
    web.down = True
    try:
        it = one(fetch(env, url))
    finally:
        web.down = False
    assert it["cache"] == "stale" and "HTTP 503" in it["warnings"][-1]
    off = tmp_config(env, {"staleIfError": 0})
    web.down = True
    try:
        assert one(fetch(env, "--config", off, url))["error"]["status"] == 503
    finally:
        web.down = False


def tmp_config(env, data):
    path = env["HOME"] + "-cfg.json"
    with open(path, "w") as fh:
        json.dump(data, fh)
    return path


def test_402_is_payment_required_with_what_the_site_asked(web, env):
    it = one(fetch(env, web.url("/pay")))
    err = it["error"]
    assert err["code"] == "payment_required" and err["status"] == 402 and err["retryable"] is False
    assert err["payment_headers"]["crawler-price"] == "USD 0.01"
    assert err["payment_headers"]["www-authenticate"].startswith("L402 ")
    assert err["payment_details"]["accepts"][0]["scheme"] == "exact"
    assert "402" in err["message"]


def test_user_agent_default_names_us_and_config_replaces_it(web, env):
    web.reset_stats()
    fetch(env, "--no-cache", web.url("/article"))
    ua = requests_to(web, "/article")[-1]["User-Agent"]
    assert ua.startswith("websearch-worker/%s (+https://" % __version__), ua
    mine = tmp_config(env, {"userAgent": "acme-research-bot/2.0 (+https://acme.example/bot)"})
    fetch(env, "--config", mine, "--no-cache", web.url("/article"))
    assert requests_to(web, "/article")[-1]["User-Agent"] == "acme-research-bot/2.0 (+https://acme.example/bot)"
    bad = tmp_config(env, {"userAgent": "evil\r\nX-Injected: 1"})
    r = fetch(env, "--config", bad, web.url("/article"))
    assert r.returncode == 1 and r.payload["error"]["code"] == "config" and "userAgent" in r.payload["error"]["message"]
