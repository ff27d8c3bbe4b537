"""FakeWeb (tests/fakes/http_server.py) plus what the freshness tests need, on 127.0.0.1.

Pages that answer conditional requests the way real servers do, a robots.txt the
test sets, and a 402.  Every request is counted (``hits``), and what each answer
was (``answers``: [(path, status, body bytes)]), so a test can tell a 304 from a download.

    web = FreshWeb().start()
    web.version["/v/etag"] = 2           the page changes: new ETag, new text
    web.robots = ("text", "User-agent: *\\nDisallow: /private")
    web.robots = ("status", 503) | ("redirect", n) | ("hang", seconds) | ("drop", None) | None (404)

Pages (``/v/...``):
    /v/etag        ETag, Cache-Control: max-age=0 (so --cache-ttl decides)
    /v/lastmod     Last-Modified only, no Cache-Control (our TTL decides)
    /v/nostore     Cache-Control: no-store (and an ETag, which must not matter)
    /v/nocache     Cache-Control: no-cache and an ETag: revalidated on every use
    /v/maxage?s=N  Cache-Control: max-age=N, ETag
    /v/mustreval   must-revalidate, ETag
    /v/big?kb=N    an N KB article (default 1024) with an ETag (the benchmark's page)
    /v/flaky       like /v/etag while ``web.down`` is false; 503 when it is
    /pay           HTTP 402 with crawler-price, WWW-Authenticate and an x402 JSON body
"""

import json
import time

from fakes.http_server import FakeWeb

LAST_MODIFIED = "Tue, 03 Mar 2026 10:00:00 GMT"


def article(title, version, kb=0):
    paras = "".join(
        "<p>Paragraph %d of the %s page, version %d, says enough words to be the main text of it.</p>\n"
        % (i, title, version)
        for i in range(max(3, kb * 1024 // 90))
    )
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>%s v%d</title></head><body><article>"
        "<h1>%s version %d</h1>\n%s</article></body></html>" % (title, version, title, version, paras)
    )


class FreshWeb(FakeWeb):
    def __init__(self):
        super().__init__()
        self.version = {}
        self.robots = None
        self.down = False
        self.answers = []
        self._pages = {}

    def answered(self, path, status=None):
        """How many answers to ``path`` (with ``status``, when given)."""
        with self.lock:
            return sum(1 for p, s, _ in self.answers if p == path and (status is None or s == status))

    def body_bytes(self, path):
        with self.lock:
            return sum(n for p, _, n in self.answers if p == path)

    def _send(self, h, path, status, body=b"", ctype="text/html; charset=utf-8", headers=None):
        with self.lock:
            self.answers.append((path, status, len(body.encode() if isinstance(body, str) else body)))
        if status == 304:  # no body, no Content-Length of one (RFC 9110 15.4.5)
            h.send_response(304)
            for k, v in (headers or {}).items():
                h.send_header(k, v)
            h.send_header("Connection", "close")
            h.end_headers()
            h.close_connection = True
            return
        h.send(status, body, ctype=ctype, headers=headers)

    def _page(self, path, kb=0):
        v = self.version.get(path, 1)
        key = (path, v, kb)
        if key not in self._pages:
            self._pages[key] = article(path.rsplit("/", 1)[-1], v, kb).encode()
        return v, self._pages[key]

    def route(self, h, path, q, count):
        if path == "/robots.txt":
            return self._robots(h)
        if path == "/pay":
            body = json.dumps(
                {"x402Version": 1, "accepts": [{"scheme": "exact", "network": "base", "maxAmountRequired": "10000"}]}
            )
            return self._send(
                h,
                path,
                402,
                body,
                ctype="application/json",
                headers={"crawler-price": "USD 0.01", "WWW-Authenticate": 'L402 macaroon="abc", invoice="lnbc1"'},
            )
        if not path.startswith("/v/"):
            return super().route(h, path, q, count)
        if path == "/v/flaky" and self.down:
            return self._send(h, path, 503, "down for maintenance", ctype="text/plain")
        kb = int(q.get("kb", 1024)) if path == "/v/big" else 0
        v, body = self._page(path, kb)
        etag = '"%s-v%d"' % (path.rsplit("/", 1)[-1], v)
        headers = {}
        if path != "/v/lastmod":
            headers["ETag"] = etag
        cache_control = {
            "/v/nostore": "no-store",
            "/v/nocache": "no-cache",
            "/v/maxage": "max-age=%s" % q.get("s", "3600"),
            "/v/mustreval": "max-age=0, must-revalidate",
        }.get(path, "max-age=0")
        if path != "/v/lastmod":  # no word on freshness: our --cache-ttl decides
            headers["Cache-Control"] = cache_control
        modified = LAST_MODIFIED if v == 1 else "Wed, 04 Mar 2026 10:00:00 GMT"
        if path == "/v/lastmod":
            headers["Last-Modified"] = modified
        match = h.headers.get("If-None-Match")
        since = h.headers.get("If-Modified-Since")
        if (match is not None and match == headers.get("ETag")) or (
            match is None and since is not None and since == headers.get("Last-Modified")
        ):
            return self._send(h, path, 304, headers=headers)
        return self._send(h, path, 200, body, headers=headers)

    def _robots(self, h):
        mode = self.robots
        if mode is None:
            return self._send(h, "/robots.txt", 404, "no robots here", ctype="text/plain")
        kind, arg = mode
        if kind == "text":
            return self._send(h, "/robots.txt", 200, arg, ctype="text/plain")
        if kind == "status":
            return self._send(h, "/robots.txt", arg, "status %d" % arg, ctype="text/plain")
        if kind == "redirect":  # arg hops, then the rules in self.robots_after
            hop = int(h.path.partition("hop=")[2] or 0)
            if hop < arg:
                return self._send(h, "/robots.txt", 301, "", headers={"Location": "/robots.txt?hop=%d" % (hop + 1)})
            return self._send(h, "/robots.txt", 200, self.robots_after, ctype="text/plain")
        if kind == "hang":
            time.sleep(arg)
            return self._send(h, "/robots.txt", 200, "User-agent: *\nAllow: /", ctype="text/plain")
        if kind == "drop":  # the connection closes without an answer
            h.close_connection = True
            return None
        raise ValueError(kind)


def fetch_private(env, *args, timeout=60):
    """``worker fetch --allow-private ARGS`` as a real subprocess (the server is on 127.0.0.1)."""
    from conftest import run_worker  # here: the benchmark imports this module without pytest

    return run_worker(["fetch", "--allow-private"] + list(args), env, timeout=timeout)


def items(r):
    """The items of a fetch answer, whether the call succeeded or every URL failed."""
    assert r.payload is not None, r
    return r.payload["results"] if r.payload["ok"] else r.payload["error"]["results"]
