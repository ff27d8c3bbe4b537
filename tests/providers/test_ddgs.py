"""The ddgs provider through ddgs' real engines, primp's real TLS client and real parsing.

A local CONNECT proxy (tests/fakes/tls_proxy.py) terminates TLS with a test CA
and answers each engine's host with a recorded-shape result page.  The worker
runs as a real subprocess and finds the proxy through HTTPS_PROXY and the CA
through SSL_CERT_FILE, exactly as it would find a corporate proxy.
"""

import socket

import pytest
from conftest import run_worker, worker_env
from fakes.engine_pages import DDG_HOST, ddg_page

# Worker processes through a TLS proxy (slow); recorded engine pages parsed by ddgs' own engines, which
# hold for the locked ddgs only.
pytestmark = [pytest.mark.slow, pytest.mark.upstream("ddgs", "primp")]

DDG = DDG_HOST
BRAVE = "search.brave.com"
MOJEEK = "www.mojeek.com"
YAHOO = "search.yahoo.com"


page = ddg_page


@pytest.fixture
def px(proxy):
    proxy.reset()
    return proxy


@pytest.fixture
def penv(tmp_path, px):
    return worker_env(tmp_path, px.env())


def search(args, env, **kw):
    return run_worker(["search"] + list(args), env, **kw)


def test_results_through_real_engine(px, penv):
    px.route(DDG, body=page("duckduckgo"))
    r = search(["rust async runtime"], penv)
    assert r.returncode == 0, r
    p = r.payload
    assert p["ok"] is True and p["provider"] == "ddgs" and p["query"] == "rust async runtime"
    assert p["meta"]["engine"] == "duckduckgo"
    # The ad (a duckduckgo.com/y.js link) is dropped by ddgs' own post-processing.
    assert [x["url"] for x in p["results"]] == [
        "https://tokio.rs/",
        "https://async.rs/",
        "https://github.com/smol-rs/smol",
        "https://docs.rs/tokio/latest/tokio/runtime/",
    ]
    first = p["results"][0]
    assert first == {
        "title": "Tokio - An asynchronous Rust runtime",
        "url": "https://tokio.rs/",
        "snippet": "Tokio is an event-driven, non-blocking I/O platform for writing asynchronous applications.",
        "engine": "duckduckgo",
    }
    assert p["warnings"] == []
    assert "Tokio - An asynchronous Rust runtime" in p["text"]
    # The request ddgs built reached the right host over TLS through the proxy.
    # 4 results < the default limit of 5: the second page was asked for (s=10) and
    # paging stopped because it brought nothing new.
    reqs = px.requests_for(DDG)
    assert [(q.method, q.path, q.params["q"], q.params.get("s")) for q in reqs] == [
        ("POST", "/html/", "rust async runtime", None),
        ("POST", "/html/", "rust async runtime", "10"),
    ]
    assert set(px.connects) == {"%s:443" % DDG}


@pytest.mark.parametrize("limit,expect_n,expect_meta", [("2", 2, 2), ("0", 1, 1), ("500", 4, 50), (None, 4, 5)])
def test_limit_is_clamped(px, penv, limit, expect_n, expect_meta):
    px.route(DDG, body=page("duckduckgo"))
    args = ["rust async runtime"] + (["--limit", limit] if limit else [])
    r = search(args, penv)
    assert r.returncode == 0, r
    assert len(r.payload["results"]) == expect_n
    assert r.payload["meta"]["limit"] == expect_meta
    if limit == "500":
        # More wanted than a page holds: the next page was asked for, and paging
        # stopped when it brought nothing new.
        assert [q.params.get("s") for q in px.requests_for(DDG)] == [None, "10"]


def test_options_reach_duckduckgo_payload(px, penv):
    px.route(DDG, body=page("duckduckgo"))
    r = search(["rust", "async", "--recency", "week", "--region", "de-de", "--page", "3", "--limit", "3"], penv)
    assert r.returncode == 0, r
    req = px.requests_for(DDG)[0]
    assert req.params["q"] == "rust async"
    assert req.params["df"] == "w"
    assert req.params["l"] == "de-de"
    assert req.params["s"] == "25"  # ddgs: 10 + (page - 2) * 15
    assert r.payload["meta"]["page"] == 3


def test_options_reach_brave_request(px, penv):
    px.route(BRAVE, body=page("brave"))
    r = search(
        [
            "tokio",
            "--backend",
            "brave",
            "--recency",
            "month",
            "--region",
            "fr-fr",
            "--page",
            "2",
            "--safesearch",
            "off",
        ],
        penv,
    )
    assert r.returncode == 0, r
    assert r.payload["meta"]["engine"] == "brave"
    assert [x["title"] for x in r.payload["results"]] == ["Tutorial | Tokio", "Asynchronous Programming in Rust"]
    assert all(x["engine"] == "brave" for x in r.payload["results"])
    req = px.requests_for(BRAVE)[0]
    assert req.method == "GET" and req.path == "/search"
    assert req.params == {"q": "tokio", "source": "web", "tf": "pm", "offset": "1"}
    cookie = req.headers.get("cookie", "")
    assert "fr=fr" in cookie and "safesearch=off" in cookie


def test_include_and_exclude_domain(px, penv):
    px.route(DDG, body=page("duckduckgo"))
    r = search(["runtime", "--include-domain", "tokio.rs", "--include-domain", "docs.rs"], penv)
    assert r.returncode == 0, r
    assert [x["url"] for x in r.payload["results"]] == [
        "https://tokio.rs/",
        "https://docs.rs/tokio/latest/tokio/runtime/",
    ]
    assert px.requests_for(DDG)[0].params["q"] == "runtime (site:tokio.rs OR site:docs.rs)"

    px.reset()
    px.route(DDG, body=page("duckduckgo"))
    r = search(["runtime", "--exclude-domain", "github.com", "--exclude-domain", "async.rs"], penv)
    assert r.returncode == 0, r
    assert [x["url"] for x in r.payload["results"]] == [
        "https://tokio.rs/",
        "https://docs.rs/tokio/latest/tokio/runtime/",
    ]
    assert px.requests_for(DDG)[0].params["q"] == "runtime -site:github.com -site:async.rs"


def test_non_200_engine_falls_back_with_warning(px, penv):
    px.route(DDG, status=202, body="<html>anomaly</html>")  # DuckDuckGo's rate-limit answer
    px.route(BRAVE, status=429, body="Too Many Requests")
    px.route(MOJEEK, body=page("mojeek"))
    r = search(["rust async runtime"], penv)
    assert r.returncode == 0, r
    p = r.payload
    assert p["meta"]["engine"] == "mojeek"
    assert [x["engine"] for x in p["results"]] == ["mojeek", "mojeek"]
    assert [f["engine"] for f in p["meta"]["fallbacks"]] == ["duckduckgo", "brave"]
    assert {f["error"] for f in p["meta"]["fallbacks"]} == {"blocked"}
    assert len(p["warnings"]) == 2 and "duckduckgo" in p["warnings"][0] and "mojeek" in p["warnings"][0]
    assert [h.split(":")[0] for h in px.connects] == [DDG, BRAVE, MOJEEK]


def test_yahoo_redirect_urls_are_unwrapped(px, penv):
    px.route(YAHOO, body=page("yahoo"))
    r = search(["async executor", "--backend", "yahoo"], penv)
    assert r.returncode == 0, r
    assert r.payload["results"] == [
        {
            "title": "async-executor - docs.rs",
            "url": "https://docs.rs/async-executor/",
            "snippet": "Async executors for Rust.",
            "engine": "yahoo",
        }
    ]


def test_every_engine_blocked_is_blocked_not_empty(px, penv):
    for host in (DDG, BRAVE, MOJEEK, YAHOO):
        px.route(host, status=403, body="Forbidden")
    r = search(["rust async runtime"], penv)
    assert r.returncode == 1, r
    err = r.payload["error"]
    assert err["code"] == "blocked" and err["retryable"] is True
    assert err["hint"] and "--backend" in err["hint"]
    for name in ("duckduckgo", "brave", "mojeek", "yahoo"):
        assert name in err["message"]


def test_empty_result_page_is_ok_and_empty(px, penv):
    px.route(DDG, body=page("duckduckgo-empty"))
    r = search(["zzqxv"], penv)
    assert r.returncode == 0, r
    assert r.payload["results"] == [] and r.payload["meta"]["engine"] == "duckduckgo"
    assert r.payload["warnings"] == []
    assert px.requests_for(BRAVE) == []  # an answer, so no fallback


def test_connection_refused_is_network(tmp_path):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens here now
    env = worker_env(
        tmp_path, {"HTTPS_PROXY": "http://127.0.0.1:%d" % port, "https_proxy": "http://127.0.0.1:%d" % port}
    )
    r = search(["rust async runtime", "--backend", "duckduckgo,brave"], env)
    assert r.returncode == 1, r
    err = r.payload["error"]
    assert err["code"] == "network" and err["retryable"] is True
    assert "duckduckgo" in err["message"] and "brave" in err["message"]
    assert err["hint"]


def test_slow_engine_is_timeout(px, penv):
    px.route(DDG, hang=True)
    r = search(["rust async runtime", "--backend", "duckduckgo", "--timeout", "2"], penv, timeout=30)
    assert r.returncode == 1, r
    assert r.payload["error"]["code"] == "timeout"
    assert r.payload["error"]["retryable"] is True
    assert len(px.requests_for(DDG)) == 1  # it did reach the engine, which never answered


def test_ddgs_proxy_variable_is_honoured(px, tmp_path):
    """DDGS_PROXY (ddgs' own setting) works without HTTPS_PROXY."""
    px.route(DDG, body=page("duckduckgo"))
    env = worker_env(tmp_path, {"DDGS_PROXY": px.url, "SSL_CERT_FILE": px.ca_file})
    r = search(["rust async runtime", "--limit", "1"], env)
    assert r.returncode == 0, r
    assert r.payload["results"][0]["url"] == "https://tokio.rs/"
    assert len(px.requests_for(DDG)) == 1


def test_untrusted_certificate_is_network_not_results(px, penv, tmp_path):
    """TLS is really verified: without the test CA the same proxy is refused."""
    px.route(DDG, body=page("duckduckgo"))
    env = dict(penv)
    env["SSL_CERT_FILE"] = str(tmp_path / "other-ca.pem")  # a real CA, just not the proxy's
    import trustme

    trustme.CA().cert_pem.write_to_path(env["SSL_CERT_FILE"])
    env["SSL_CERT_DIR"] = str(tmp_path)
    r = search(["rust async runtime", "--backend", "duckduckgo"], env)
    assert r.returncode == 1, r
    assert r.payload["error"]["code"] == "network"
    assert px.requests_for(DDG) == []


def test_unknown_backend_is_invalid_argument(penv):
    r = search(["x", "--backend", "duckduckgo,altavista"], penv)
    assert r.returncode == 1, r
    assert r.payload["error"]["code"] == "invalid_argument"
    assert "altavista" in r.payload["error"]["message"]
