"""Pure parts of fetch: the address guard, URL rules, windowing, outline, charsets, proxies, batch errors."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worker import numbers
from worker.errors import WorkerError
from worker.pages.answer import window
from worker.pages.net import guard, proxy
from worker.pages.read import content
from worker.tools.fetch import batch_error

BLOCKED = [
    "127.0.0.1",
    "127.255.0.1",
    "10.0.0.1",
    "172.16.5.4",
    "192.168.1.1",
    "169.254.169.254",
    "169.254.1.1",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.251",
    "255.255.255.255",
    "192.0.2.10",
    "198.18.0.1",
    "240.0.0.1",
    "::1",
    "::",
    "fe80::1",
    "fe80::1%eth0",
    "fc00::1",
    "fd00:ec2::254",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:169.254.169.254",
    "::ffff:10.0.0.1",
    "2002:7f00:1::1",
    "64:ff9b::a9fe:a9fe",
    "::127.0.0.1",
    "2001:db8::1",
]
PUBLIC = ["8.8.8.8", "93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "2a00:1450:4001::200e"]


@pytest.mark.parametrize("addr", BLOCKED)
def test_guard_blocks_private_and_special_addresses(addr):
    assert guard.blocked_reason(addr), addr
    with pytest.raises(WorkerError) as e:
        guard.vet_addresses("h.example", [addr], allow_private=False)
    assert e.value.code == "blocked_address"


@pytest.mark.parametrize("addr", PUBLIC)
def test_guard_allows_public_addresses(addr):
    assert guard.blocked_reason(addr) is None


def test_guard_names_metadata_and_refuses_mixed_answers():
    assert "metadata" in guard.blocked_reason("169.254.169.254")
    assert "metadata" in guard.blocked_reason("fd00:ec2::254")
    # One private address among public ones refuses the host: DNS answers are attacker-controlled.
    with pytest.raises(WorkerError) as e:
        guard.vet_addresses("evil.example", ["8.8.8.8", "10.0.0.5"], allow_private=False)
    assert "10.0.0.5" in e.value.message
    assert guard.vet_addresses("intranet", ["10.0.0.5"], allow_private=True) == ["10.0.0.5"]


def test_resolve_returns_literals_without_lookup_and_localhost_is_loopback():
    assert guard.resolve("10.1.2.3", 80, 1) == ["10.1.2.3"]
    addrs = guard.resolve("localhost", 80, 5)
    assert addrs and all(guard.blocked_reason(a) for a in addrs)


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "javascript:alert(1)",
        "data:text/html,<p>x</p>",
        "ftp://ftp.example.org/x",
        "gopher://example.org/",
        "example",
        "just some words",
        "example.org/page",
        "",
        "   ",
        "http://user:pass@example.org/",
        "https://token@example.org/",
        "http:///nohost",
        "http://example.org:99999/",
        "http://exa mple.org/",
        "http://example.org/\x00",
        "mailto:a@example.org",
        "http://a..b/",
    ],
)
def test_invalid_urls(url):
    with pytest.raises(WorkerError) as e:
        guard.check_url(url)
    assert e.value.code == "invalid_url"
    assert e.value.message


def test_valid_urls_parse_to_request_parts():
    assert guard.check_url("https://Example.org") == ("https", "example.org", 443, "/")
    assert guard.check_url("http://example.org:8080/a b?q=x y#frag") == ("http", "example.org", 8080, "/a%20b?q=x%20y")
    scheme, host, port, target = guard.check_url("https://b\u00fccher.example/caf\u00e9")
    assert host == "xn--bcher-kva.example" and target == "/caf%C3%A9"
    assert guard.check_url("http://[::1]:8000/")[1:3] == ("::1", 8000)


# ------------------------------------------------------------------ windowing


def test_window_cuts_on_paragraph_and_reports_next_index():
    text = "# Title\n\n" + "\n\n".join("Paragraph %d has several words in it." % i for i in range(200))
    piece, truncated, nxt = window.window(text, 0, 1000)
    assert truncated and 500 <= len(piece) <= 1000
    assert text[nxt - 2 : nxt] == "\n\n" and text.startswith(piece)
    rest, _, _ = window.window(text, nxt, 1000)
    assert rest.startswith("Paragraph ")


def test_window_past_the_end_and_short_text():
    assert window.window("short text", 0, 100) == ("short text", False, None)
    assert window.window("short text", 50, 100) == ("", False, None)


def _latin_word_char(ch):
    return ch.isalnum() and not "\u3000" <= ch <= "\u9fff"


words = st.lists(st.text(alphabet="abcdefghij\u00e9\u4e2d", min_size=1, max_size=12), min_size=1, max_size=300)
seps = st.sampled_from([" ", " ", " ", "\n", "\n\n", ". "])


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(words=words, data=st.data(), max_chars=st.integers(20, 400))
def test_window_never_cuts_mid_word_and_paging_loses_nothing(words, data, max_chars):
    text = "".join(w + data.draw(seps) for w in words).strip()
    start, seen = 0, []
    for _ in range(10000):
        piece, truncated, nxt = window.window(text, start, max_chars)
        assert len(piece) <= max_chars
        if truncated:
            assert nxt > start
            # CJK characters are words of their own: a cut next to one is a word boundary.
            cut_inside_word = _latin_word_char(text[nxt - 1]) and _latin_word_char(text[nxt])
            if cut_inside_word:  # only allowed when a single word is longer than the window
                assert not any(ch.isspace() for ch in text[start : start + max_chars])
        seen.append(piece)
        if not truncated:
            break
        start = nxt
    assert "".join(seen).split() == text.split() or "".join("".join(seen).split()) == "".join(text.split())


def test_outline_offsets_point_at_headings_and_skip_code():
    text = "# Top\n\nintro\n\n```\n# not a heading\n```\n\n## Second\n\nbody\n\n### Third ###\n"
    out = window.outline(text, "markdown")
    assert [(o["level"], o["title"]) for o in out] == [(1, "Top"), (2, "Second"), (3, "Third")]
    for o in out:
        assert text[o["offset"] :].lstrip("#").strip().startswith(o["title"])
    html = "<h1>One</h1><p>x</p><h2 class='a'>Two <em>parts</em></h2>"
    assert [(o["level"], o["title"]) for o in window.outline(html, "html")] == [(1, "One"), (2, "Two parts")]


# ------------------------------------------------------------------ content

FRENCH = "Le caf\u00e9 na\u00eff co\u00fbte 5\u20ac \u2014 \u201cune cr\u00e8me br\u00fbl\u00e9e\u201d, l\u2019\u00e9t\u00e9 \u00e0 c\u00f4t\u00e9. "
JAPANESE = "\u6771\u4eac\u306e\u65e5\u672c\u8a9e\u30da\u30fc\u30b8\u3067\u3059\u3002\u685c\u306e\u82b1\u304c\u54b2\u3044\u3066\u3044\u307e\u3059\u3002"
CHINESE = "\u8fd9\u662f\u4e00\u4e2a\u4e2d\u6587\u7f51\u9875\u3002\u6211\u4eec\u6b63\u5728\u6d4b\u8bd5\u5b57\u7b26\u7f16\u7801\u3002\u9f98\u9f8d\u9f96\u3002"


@pytest.mark.parametrize("text,codec", [(FRENCH, "cp1252"), (JAPANESE, "shift_jis"), (CHINESE, "gb18030")])
def test_decode_detects_legacy_charsets_without_declaration(text, codec):
    body = ("<html><body><p>%s</p></body></html>" % (text * 4)).encode(codec)
    decoded, used, source = content.decode(body, "text/html", "html")
    assert text in decoded, (used, source)
    assert source == "detected"


def test_decode_prefers_bom_then_header_then_meta():
    assert content.decode("\ufeffcaf\u00e9".encode("utf-8"), "text/html; charset=cp1252", "html")[0] == "caf\u00e9"
    body = '<meta charset="shift_jis"><p>%s</p>' % JAPANESE
    assert JAPANESE in content.decode(body.encode("shift_jis"), "text/html", "html")[0]
    # latin-1 labels mean windows-1252 on the web: curly quotes survive
    assert "\u201c" in content.decode("\u201cq\u201d".encode("cp1252"), "text/html; charset=ISO-8859-1", "html")[0]
    assert content.decode("\u9f98".encode("gb18030"), "text/plain; charset=gb2312", "text")[0] == "\u9f98"


def test_kinds_and_sniffing():
    assert content.kind_of("text/html; charset=utf-8") == "html"
    assert content.kind_of("application/xhtml+xml") == "html"
    assert content.kind_of("application/json") == content.kind_of("application/vnd.api+json") == "text"
    assert content.kind_of("image/png") == content.kind_of("application/zip") == "binary"
    assert content.kind_of("application/octet-stream") is None
    assert content.sniff(b"%PDF-1.7\n") == "application/pdf"
    assert content.kind_of(content.sniff(b"\x89PNG\r\n")) == "binary"
    assert content.sniff(b"  <!DOCTYPE html><html>") == "text/html"


# ------------------------------------------------------------------ proxies, retry-after, batch errors


def test_proxy_env_and_no_proxy(monkeypatch):
    for k in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(k, raising=False)
    assert proxy.proxy_for("https", "example.org", 443) is None
    monkeypatch.setenv("HTTPS_PROXY", "http://u:p%40ss@proxy.local:3128")
    monkeypatch.setenv("NO_PROXY", "internal.example, .corp.example,localhost:8080")
    host, port, auth = proxy.proxy_for("https", "example.org", 443)
    assert (host, port) == ("proxy.local", 3128) and auth.startswith("Basic ")
    import base64

    assert base64.b64decode(auth[6:]) == b"u:p@ss"
    assert proxy.proxy_for("http", "example.org", 80) is None  # only HTTPS_PROXY set
    assert proxy.proxy_for("https", "a.internal.example", 443) is None
    assert proxy.proxy_for("https", "x.corp.example", 443) is None
    assert proxy.proxy_for("https", "localhost", 8080) is None
    assert proxy.proxy_for("https", "localhost", 9090) is not None
    monkeypatch.setenv("https_proxy", "socks5://127.0.0.1:1080")
    with pytest.raises(WorkerError):
        proxy.proxy_for("https", "example.org", 443)


def test_retry_after_forms():
    # the client reads Retry-After through the one shared parser (tests/providers/test_keyed.py has the rest)
    assert numbers.retry_after("3") == 3.0
    assert numbers.retry_after("") is None and numbers.retry_after("soon") is None
    assert numbers.retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0


def _err(code, status=None):
    e = {"code": code, "message": code + " happened", "retryable": code in ("timeout", "network")}
    if status:
        e["status"] = status
    return {"url": "u", "ok": False, "error": e}


def test_batch_error_code_rules():
    exc = batch_error([_err("http_error", 404), _err("http_error", 404)])
    assert exc.code == "http_error" and exc.extra["status"] == 404 and len(exc.extra["results"]) == 2
    assert batch_error([_err("timeout"), _err("timeout"), _err("invalid_url")]).code == "timeout"
    assert batch_error([_err("timeout"), _err("invalid_url")]).code == "network"
    assert batch_error([_err("blocked_address")]).message == "blocked_address happened"
