"""The fetch command end to end: a real worker process against a real HTTP server on 127.0.0.1."""

import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import ROOT, Result, run_worker, worker_env
from fakes.http_server import CP1252_TEXT, GB_TEXT, SJIS_TEXT, FakeWeb

PRIV = "--allow-private"


@pytest.fixture(scope="module")
def web():
    w = FakeWeb().start(hosts=10)  # 127.0.0.1-10: batches spread over hosts, as real ones are
    yield w
    w.stop()


def fetch(env, *args, timeout=60):
    return run_worker(["fetch"] + list(args), env, timeout=timeout)


def items(r):
    assert r.payload is not None, r
    return r.payload["results"] if r.payload["ok"] else r.payload["error"]["results"]


# ------------------------------------------------------------------ pages


def test_article_main_text_metadata_and_outline(web, env):
    r = fetch(env, web.url("/article"), PRIV)
    assert r.returncode == 0, r
    p = r.payload
    assert p["tool"] == "fetch" and p["provider"] == "local"
    [it] = p["results"]
    assert it["ok"] and it["status"] == 200 and it["format"] == "markdown"
    assert it["final_url"] == web.url("/article") and it["bytes"] > 1000
    assert it["content_type"].startswith("text/html")
    c = it["content"]
    assert "Alpine glaciers lost a record share" in c and "What the measurements show" in c
    for junk in ("We use cookies", "ADVERTISEMENT", "All rights reserved", "Ten tricks for a tidy kitchen"):
        assert junk not in c, junk
    assert "Glaciers retreat faster than expected" in (it["title"] or "")
    assert it["author"] == "Maria Lindqvist"
    assert (it["published"] or "").startswith("2024-03-05")
    assert it["canonical_url"] == "https://news.example.org/science/glaciers-retreat"
    assert it["truncated"] is False and it["next_start_index"] is None and it["total_chars"] == len(c)
    titles = [o["title"] for o in it["outline"]]
    assert "What the measurements show" in titles
    for o in it["outline"]:
        assert c[o["offset"] :].lstrip("# ").startswith(o["title"])
    assert it["extractor"]
    assert "Alpine glaciers" in p["text"]
    assert not os.listdir(env["WEBSEARCH_WORKER_TMPDIR"])  # the call's temp dir is gone


def test_docs_page_keeps_code_and_tables(web, env):
    r = fetch(env, web.url("/docs"), PRIV, "--format", "markdown")
    [it] = items(r)
    c = it["content"]
    assert 'config = widgetlib.load_config("widget.toml")' in c
    assert "max_workers = 8" in c
    assert "```" in c or "    import widgetlib" in c
    assert "cache_dir" in c and "parallel build processes" in c and "|" in c
    assert "Built with Sphinx" not in c


@pytest.mark.slow
def test_formats_text_html_raw(web, env):
    url = web.url("/article")
    text = items(fetch(env, url, PRIV, "--format", "text"))[0]
    html = items(fetch(env, url, PRIV, "--format", "html"))[0]
    raw = items(fetch(env, url, PRIV, "--format", "raw"))[0]
    assert text["format"] == "text" and "Alpine glaciers" in text["content"] and "<p>" not in text["content"]
    assert html["format"] == "html" and "<" in html["content"] and "Alpine glaciers" in html["content"]
    assert raw["format"] == "raw" and raw["content"].startswith("<!DOCTYPE html>") and "cookie-banner" in raw["content"]


@pytest.mark.slow
def test_legacy_charsets_have_no_mojibake(web, env):
    paths = [
        "/cp1252",
        "/cp1252-meta",
        "/cp1252-bare",
        "/sjis",
        "/sjis-meta",
        "/sjis-bare",
        "/gb18030",
        "/gb18030-bare",
    ]
    r = fetch(env, *[web.url(p) for p in paths], PRIV, "--format", "text")
    assert r.returncode == 0, r
    expected = [CP1252_TEXT] * 3 + [SJIS_TEXT] * 3 + [GB_TEXT] * 2
    for path, it, want in zip(paths, r.payload["results"], expected):
        assert it["ok"], (path, it)
        got = " ".join(it["content"].split())
        assert " ".join(want.split())[:40] in got, (path, it.get("charset"), got[:120])
        assert "\ufffd" not in got, path


@pytest.mark.slow
def test_content_types(web, env):
    paths = [
        "/plain",
        "/readme.md",
        "/data.json",
        "/feed.xml",
        "/report.pdf",
        "/download",
        "/xhtml",
        "/gzip",
        "/deflate",
        "/image.png",
        "/mystery",
    ]
    r = fetch(env, *[web.url(p) for p in paths], PRIV)
    assert r.returncode == 0, r
    got = dict(zip(paths, r.payload["results"]))
    assert (
        got["/plain"]["content"] == "Plain text file.\nSecond line with caf\u00e9.\n"
        and got["/plain"]["format"] == "text"
    )
    assert got["/readme.md"]["format"] == "markdown" and got["/readme.md"]["title"] == "Widget README"
    assert [o["title"] for o in got["/readme.md"]["outline"]] == ["Widget README", "Usage"]
    assert '"version": "2.4.0"' in got["/data.json"]["content"]
    assert "<title>Widget news</title>" in got["/feed.xml"]["content"]
    for pdf in ("/report.pdf", "/download"):
        it = got[pdf]
        assert it["ok"] and "Revenue grew by 12 percent" in it["content"], it
        assert it["extractor"] == "pypdf" and it["title"] == "Quarterly Widget Report" and it["author"] == "Widget Team"
    assert "Alpine glaciers" in got["/xhtml"]["content"]
    assert "Alpine glaciers" in got["/gzip"]["content"]
    assert "max_workers" in got["/deflate"]["content"]
    for binary in ("/image.png", "/mystery"):
        assert got[binary]["ok"] is False and got[binary]["error"]["code"] == "unsupported_content"


# ------------------------------------------------------------------ long pages


@pytest.mark.slow
def test_long_page_windows_continue_where_the_last_stopped(web, env):
    url = web.url("/long?n=300")
    first = items(fetch(env, url, PRIV, "--max-chars", "3000"))[0]
    assert first["truncated"] is True and len(first["content"]) <= 3000
    assert first["total_chars"] > 20000 and first["next_start_index"] > 1500
    assert first["content"].rstrip()[-1] in ".!?" or first["content"].rstrip().endswith("|")
    chapters = [o for o in first["outline"] if o["title"].startswith("Chapter")]
    assert len(chapters) >= 7  # the outline covers the whole page, not just the window
    second = items(fetch(env, url, PRIV, "--max-chars", "3000", "--start-index", str(first["next_start_index"])))[0]
    assert second["start_index"] == first["next_start_index"]
    assert second["content"][:1].strip()  # starts at text, not whitespace
    # no paragraph lost or repeated at the seam
    import re

    nums = [int(n) for n in re.findall(r"Paragraph (\d+) of the report", first["content"] + "\n" + second["content"])]
    assert nums == list(range(nums[0], nums[0] + len(nums)))
    jump = items(fetch(env, url, PRIV, "--max-chars", "500", "--start-index", str(chapters[3]["offset"])))[0]
    assert "Chapter 4" in jump["content"][:40]


@pytest.mark.slow
def test_default_max_chars_is_20000(web, env):
    it = items(fetch(env, web.url("/long?n=400"), PRIV))[0]
    assert it["truncated"] and 10000 < len(it["content"]) <= 20000


# ------------------------------------------------------------------ safety


def test_loopback_is_blocked_without_allow_private(web, env):
    before = web.hits("/article")
    urls = [
        web.url("/article"),
        "http://localhost:%d/article" % web.port,
        "http://[::1]:%d/" % web.port,
        "http://169.254.169.254/latest/meta-data/",
        "http://2130706433:%d/article" % web.port,
        "http://0x7f.1:%d/article" % web.port,
        "http://10.0.0.1/",
    ]
    r = fetch(env, *urls)
    assert r.returncode == 1, r
    err = r.payload["error"]
    assert err["code"] == "blocked_address" and "--allow-private" in err["hint"]
    assert [it["error"]["code"] for it in err["results"]] == ["blocked_address"] * len(urls)
    assert "metadata" in err["results"][3]["error"]["message"]
    assert web.hits("/article") == before  # refused before connecting


def test_invalid_urls_are_refused_per_item(web, env):
    bad = [
        "file:///etc/passwd",
        "javascript:alert(1)",
        "data:text/html,hi",
        "ftp://ftp.example.org/f",
        "wikipedia",
        "http://user:secret@127.0.0.1:%d/article" % web.port,
    ]
    r = fetch(env, *bad, PRIV)
    assert r.returncode == 1 and r.payload["error"]["code"] == "invalid_url", r
    assert [it["url"] for it in r.payload["error"]["results"]] == bad
    assert "secret" not in "".join(str(line) for line in web.log if "user" in str(line))


def test_redirects_followed_and_capped(web, env):
    r = fetch(env, web.url("/redirect/3"), web.url("/redirect/7"), PRIV)
    ok, too_many = r.payload["results"]
    assert ok["ok"] and ok["final_url"] == web.url("/article") and len(ok["redirects"]) == 3
    assert "Alpine glaciers" in ok["content"]
    assert too_many["error"]["code"] == "http_error" and "redirects" in too_many["error"]["message"]


def test_redirect_from_public_host_to_private_address_is_blocked(web, tmp_path):
    # The server doubles as an http forward proxy: "public.example" reaches it offline, and its
    # redirect to the metadata address / localhost must be refused at the hop, with allow-private off.
    env = worker_env(tmp_path, {"HTTP_PROXY": "http://127.0.0.1:%d" % web.port, "NO_PROXY": ""})
    r = fetch(
        env,
        "http://public.example/article",
        "http://public.example/redirect-meta",
        "http://public.example/redirect-local",
        "http://public.example/redirect-to?to=http://192.168.0.1/admin",
    )
    assert r.returncode == 0, r
    ok, meta, local, lan = r.payload["results"]
    assert ok["ok"] and "Alpine glaciers" in ok["content"] and ok["final_url"] == "http://public.example/article"
    seen = [entry for entry in web.log if entry[2].startswith("http://public.example/")]
    assert seen and seen[0][1].get("Host") == "public.example"
    assert seen[0][1]["User-Agent"].startswith("websearch-worker/")
    for it, addr in ((meta, "169.254.169.254"), (local, "localhost"), (lan, "192.168.0.1")):
        assert it["ok"] is False and it["error"]["code"] == "blocked_address", it
        assert addr in it["error"]["message"]


@pytest.mark.slow
def test_slow_drip_cannot_hold_the_call_past_timeout(web, env):
    start = time.monotonic()
    r = fetch(
        env,
        web.url("/drip?every=0.2"),
        web.url("/drip-headers?every=0.2", host=1),
        web.url("/plain", host=2),
        PRIV,
        "--timeout",
        "4",
    )
    elapsed = time.monotonic() - start
    assert r.returncode == 0, r
    drip, drip_headers, plain = r.payload["results"]
    assert drip["error"]["code"] == "timeout" and drip_headers["error"]["code"] == "timeout"
    assert plain["ok"]
    assert elapsed < 4 + 3, elapsed  # bounded by --timeout, not by the server


def test_huge_body_is_cut_at_the_cap(web, env):
    r = fetch(env, web.url("/huge?mb=50"), PRIV, "--format", "raw", "--max-chars", "1000")
    [it] = items(r)
    assert it["ok"] and it["body_truncated"] is True and it["bytes"] == 5 * 1024 * 1024
    assert any("cap" in w for w in it["warnings"])


@pytest.mark.slow
def test_gzip_bomb_is_refused(web, env):
    r = fetch(env, web.url("/bomb?mb=50"), PRIV)
    assert r.returncode == 1 and r.payload["error"]["code"] == "too_large", r


def test_http_errors_carry_status(web, env):
    r = fetch(env, web.url("/404"), web.url("/500"), PRIV)
    assert r.returncode == 1 and r.payload["error"]["code"] == "http_error"
    assert [it["error"]["status"] for it in r.payload["error"]["results"]] == [404, 500]
    assert r.payload["error"]["results"][1]["error"]["retryable"] is True


@pytest.mark.slow
def test_429_and_503_honour_retry_after_once(web, env):
    web.counts.pop("/429/once", None)
    web.counts.pop("/503/once", None)
    web.counts.pop("/429/always", None)
    start = time.monotonic()
    r = fetch(env, web.url("/429/once"), web.url("/503/once"), web.url("/429/always"), PRIV)
    assert r.returncode == 0, r
    once, once503, always = r.payload["results"]
    assert once["ok"] and once503["ok"]
    assert always["error"]["code"] == "http_error" and always["error"]["status"] == 429
    assert web.hits("/429/once") == 2 and web.hits("/503/once") == 2 and web.hits("/429/always") == 2
    assert time.monotonic() - start >= 1.0


def test_retry_after_beyond_the_deadline_is_not_waited_for(web, env):
    web.counts.pop("/429/always", None)
    start = time.monotonic()
    r = fetch(env, web.url("/429/always?after=3600"), PRIV, "--timeout", "20")
    assert r.payload["error"]["code"] == "http_error" and r.payload["error"]["status"] == 429
    assert r.payload["error"]["results"][0]["error"]["retry_after"] == 3600
    assert web.hits("/429/always") == 1 and time.monotonic() - start < 10


# ------------------------------------------------------------------ batches


def test_batch_mixed_success_keeps_input_order(web, env):
    urls = [web.url("/404"), web.url("/plain"), "notaurl", web.url("/article"), web.url("/image.png")]
    r = fetch(env, *urls, PRIV)
    assert r.returncode == 0, r
    res = r.payload["results"]
    assert [it["url"] for it in res] == urls
    assert [it["ok"] for it in res] == [False, True, False, True, False]
    assert [it.get("error", {}).get("code") for it in res] == [
        "http_error",
        None,
        "invalid_url",
        None,
        "unsupported_content",
    ]
    assert r.payload["meta"]["ok"] == 2 and r.payload["meta"]["failed"] == 3


@pytest.mark.slow
def test_concurrency_is_bounded_and_parallel(web, env):
    # URLs spread over ten loopback hosts: per-host politeness (a couple of requests per host)
    # is a separate limit; this measures the batch's own --concurrency.
    web.reset_stats()
    urls = [web.url("/slow?ms=700&id=%d" % i, host=i) for i in range(12)]
    start = time.monotonic()
    r = fetch(env, *urls, PRIV, "--concurrency", "3", "--format", "text")
    elapsed = time.monotonic() - start
    assert r.returncode == 0 and all(it["ok"] for it in r.payload["results"]), r
    assert 2 <= web.max_active <= 3
    assert elapsed >= 12 / 3 * 0.7 * 0.9  # four rounds of 0.7 s at most three at a time
    assert [
        "(%d)" % i in it["content"] or "(%d)" % i in (it["title"] or "") for i, it in enumerate(r.payload["results"])
    ] == [True] * 12

    web.reset_stats()
    urls = [web.url("/slow?ms=1000&id=%d" % i, host=i) for i in range(20)]
    start = time.monotonic()
    r = fetch(env, *urls, PRIV, "--concurrency", "20", "--format", "text")
    elapsed = time.monotonic() - start
    assert all(it["ok"] for it in r.payload["results"]), r
    assert web.max_active >= 10
    assert elapsed < 20 * 1.0 / 2, elapsed  # about the slowest, far from the sum (20 s)


def test_sigterm_mid_batch_exits_130_and_removes_temp_dir(web, env):
    urls = [web.url("/hang?s=30&id=%d" % i, host=i) for i in range(4)]
    before = web.hits("/hang")
    proc = subprocess.Popen(
        [sys.executable, "-I", "-m", "worker", "fetch"] + urls + [PRIV],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while web.hits("/hang") < before + 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert web.hits("/hang") >= before + 4
    assert [n for n in os.listdir(env["WEBSEARCH_WORKER_TMPDIR"]) if n.startswith("call-")]
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=10)
    r = Result(proc, out.decode("ascii"), err.decode("utf-8", "replace"))
    assert r.returncode == 130 and r.payload["error"]["code"] == "cancelled", r
    assert not os.listdir(env["WEBSEARCH_WORKER_TMPDIR"])


# ------------------------------------------------------------------ TLS


@pytest.fixture(scope="module")
def tls_web(tmp_path_factory):
    import ssl

    import trustme

    ca = trustme.CA()
    ca_file = str(tmp_path_factory.mktemp("ca") / "ca.pem")
    ca.cert_pem.write_to_path(ca_file)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("localhost", "127.0.0.1").configure_cert(ctx)
    w = FakeWeb().start(tls=ctx)
    w.ca_file = ca_file
    yield w
    w.stop()


@pytest.mark.slow
def test_https_connects_to_the_vetted_address_with_the_name_for_sni(tls_web, tmp_path):
    env = worker_env(tmp_path, {"SSL_CERT_FILE": tls_web.ca_file})
    url = "https://localhost:%d/docs" % tls_web.port
    r = fetch(env, url, PRIV)
    assert r.returncode == 0, r
    assert "max_workers" in r.payload["results"][0]["content"]
    assert tls_web.log[-1][1]["Host"] == "localhost:%d" % tls_web.port
    # Without the test CA the certificate cannot be verified: a network error, never plaintext fallback.
    r = fetch(worker_env(tmp_path / "noca"), url, PRIV)
    assert r.payload["error"]["code"] == "network" and "TLS" in r.payload["error"]["message"], r


@pytest.mark.slow
def test_https_through_a_connect_proxy(tmp_path):
    from fakes.http_server import DOCS
    from fakes.tls_proxy import TlsProxy

    proxy = TlsProxy(tmp_path)
    try:
        proxy.route("docs.example.com", body=DOCS)
        proxy.route("go.example.com", status=302, headers={"Location": "https://169.254.169.254/latest/"})
        env = worker_env(tmp_path, proxy.env())
        r = fetch(env, "https://docs.example.com/config", "https://go.example.com/x")
        assert r.returncode == 0, r
        docs, meta = r.payload["results"]
        assert (
            docs["ok"]
            and "parallel build processes" in docs["content"]
            and docs["final_url"] == "https://docs.example.com/config"
        )
        assert meta["error"]["code"] == "blocked_address"
        assert "docs.example.com:443" in proxy.connects and not any("169.254" in c for c in proxy.connects)
        [req] = proxy.requests_for("docs.example.com")
        assert req.path == "/config" and req.headers["user-agent"].startswith("websearch-worker/")
    finally:
        proxy.close()


@pytest.mark.slow
def test_allow_private_config_setting(web, tmp_path):
    env = worker_env(tmp_path)
    cfg = tmp_path / "web-search.json"
    cfg.write_text('{"allowPrivate": true}')
    r = fetch(env, web.url("/plain"), "--config", str(cfg))
    assert r.returncode == 0 and r.payload["results"][0]["ok"], r
    cfg.write_text('{"allowPrivate": false}')
    r = fetch(env, web.url("/plain"), "--config", str(cfg))
    assert r.payload["error"]["code"] == "blocked_address", r
