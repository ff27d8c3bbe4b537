"""Proxy variables that do not parse (issue 27, item 7): the real CLI, search and fetch alike.

A value no HTTP stack of ours can use is the call's ``invalid_url`` error naming
the variable as it was set (its password masked), before any provider or
library reads it its own way; NO_PROXY entries that cannot be read are passed
over.  Nothing leaves 127.0.0.1: every call that gets past the check meets a
local server or a proxy that refuses (port 9).
"""

import json
import os

import pytest
from conftest import run_worker, worker_env
from fakes import brave_server, exa_server
from fakes.http_server import FakeWeb
from invariants import check

PASSWORD = "pr0xy-s3cret-NEVER-PRINT"
BAD = [
    ("HTTP_PROXY", "http://[::1:bad", "Invalid IPv6 URL"),
    ("HTTPS_PROXY", "http://[::1:bad", "Invalid IPv6 URL"),
    ("ALL_PROXY", "http://[::1:bad", "Invalid IPv6 URL"),
    ("http_proxy", "http://proxy.example:99999", "out of range"),
    ("https_proxy", "proxy.example:port", "proxy.example:port"),
    ("all_proxy", "gopher://proxy.example", "scheme gopher://"),
    ("HTTPS_PROXY", "http://user:%s@[::1:bad" % PASSWORD, "Invalid IPv6 URL"),
    ("HTTP_PROXY", "http://", "names no host"),
    ("HTTPS_PROXY", "http://proxy example:80", "spaces"),
    ("DDGS_PROXY", "socks5://[fe80::1", "Invalid IPv6 URL"),
]


@pytest.fixture(scope="module")
def web():
    w = FakeWeb().start()
    yield w
    w.stop()


def proxied_env(tmp_path, name, value):
    env = worker_env(tmp_path)
    for other in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "DDGS_PROXY"):
        env.pop(other, None)
        env.pop(other.lower(), None)
    env[name] = value
    return env


def assert_names(payload, name, why):
    err = payload["error"]
    assert err["code"] == "invalid_url" and "results" not in err, err
    assert ("proxy variable %s=" % name) in err["message"] and why in err["message"], err
    assert name in err["hint"]


@pytest.mark.parametrize("name, value, why", BAD)
def test_fetch_with_a_proxy_variable_that_does_not_parse(tmp_path, web, name, value, why):
    env = proxied_env(tmp_path, name, value)
    r = run_worker(["fetch", "--allow-private", web.url("/article"), "https://example.com/"], env)
    assert_names(check(r, env, keys=[PASSWORD]), name, why)


@pytest.mark.parametrize("name, value, why", BAD[:3] + BAD[6:7])
def test_search_with_a_proxy_variable_that_does_not_parse(tmp_path, name, value, why):
    env = proxied_env(tmp_path, name, value)
    r = run_worker(["search", "anything"], env)  # the default chain: ddgs, which reads the variables itself
    assert_names(check(r, env, keys=[PASSWORD]), name, why)
    assert "Traceback" not in r.stderr and PASSWORD not in r.stderr


@pytest.mark.parametrize("provider", ["brave", "exa"])
def test_keyed_search_with_a_proxy_variable_that_does_not_parse(tmp_path, provider):
    fake = brave_server if provider == "brave" else exa_server
    cfg = tmp_path / "providers.json"
    cfg.write_text(json.dumps({"providers": [{"name": provider, "type": provider, "apiKey": fake.KEY}]}))
    os.chmod(cfg, 0o600)
    env = proxied_env(tmp_path, "HTTPS_PROXY", "http://[::1:bad")
    r = run_worker(["search", "anything", "--provider", provider, "--config", str(cfg)], env)
    assert_names(check(r, env, keys=[fake.KEY]), "HTTPS_PROXY", "Invalid IPv6 URL")


@pytest.mark.parametrize(
    "no_proxy",
    [
        "127.0.0.1,x:\u00b2",
        "[::1,127.0.0.1",
        "*.,:,,127.0.0.1:\u00b2\u00b2,127.0.0.1",
        "127.0.0.1:99999999999999999999999,127.0.0.1",
    ],
)
def test_no_proxy_entries_that_cannot_be_read_are_passed_over(tmp_path, web, no_proxy):
    # The proxy refuses (port 9): the page is read only if NO_PROXY's readable entry says "direct".
    env = proxied_env(tmp_path, "HTTP_PROXY", "http://127.0.0.1:9")
    env["NO_PROXY"] = no_proxy
    r = run_worker(["fetch", "--allow-private", web.url("/article")], env)
    payload = check(r, env)
    assert payload["ok"] and payload["results"][0]["ok"], payload


def test_a_no_proxy_entry_whose_port_cannot_be_read_sends_nothing_direct(tmp_path, web):
    env = proxied_env(tmp_path, "HTTP_PROXY", "http://127.0.0.1:9")
    env["NO_PROXY"] = "127.0.0.1:\u00b2\u00b2,127.0.0.1:99999999999999999999999"
    r = run_worker(["fetch", "--allow-private", web.url("/article")], env)
    assert check(r, env)["error"]["code"] == "network", r  # through the refusing proxy, not around it


def test_a_good_proxy_variable_still_carries_the_fetch(tmp_path, web):
    env = proxied_env(tmp_path, "HTTP_PROXY", "http://user:%s@127.0.0.1:9" % PASSWORD)
    r = run_worker(["fetch", "--allow-private", web.url("/article")], env)
    payload = check(r, env, keys=[PASSWORD])
    assert payload["error"]["code"] == "network", payload  # the refusing proxy, so it was used


def test_a_search_served_from_the_cache_still_names_the_variable_when_it_fetches(tmp_path, web):
    # No provider is built for an answer from the cache, so the check before the providers does not
    # run; the pages --fetch-top reads meet the variable where the client reads it.
    with brave_server.FakeBrave() as fake:
        fake.set_urls([web.url("/article")])
        cfg = tmp_path / "brave.json"
        entry = {"name": "brave", "type": "brave", "apiKey": brave_server.KEY, "baseUrl": fake.base_url}
        cfg.write_text(json.dumps({"providers": [dict(entry, options={"minInterval": 0})]}))
        os.chmod(cfg, 0o600)
        args = ["search", "urls please", "--provider", "brave", "--config", str(cfg), "--allow-private"]
        env = proxied_env(tmp_path, "NO_PROXY", "127.0.0.1")
        assert check(run_worker(args, env), env)["ok"]
        env = proxied_env(tmp_path, "HTTP_PROXY", "http://[::1:bad")
        r = run_worker(args + ["--fetch-top", "1"], env)
    payload = check(r, env)
    assert payload["meta"]["cached"] is True, payload["meta"]
    err = payload["results"][0]["fetch_error"]
    assert err["code"] == "invalid_url" and "HTTP_PROXY=http://[::1:bad" in err["message"], err
