"""A fake Brave Search web API on 127.0.0.1, shaped like Brave's documented answers.

It checks what the real API checks (the X-Subscription-Token, count 1-20, offset
0-9, freshness, safesearch, two-letter country) and answers the first word of
the query as a fixture name:

    full      three results with every field, X-Request-Id and X-RateLimit-* headers
    missing   items with missing/mistyped fields and two without a usable url
    empty     no web section at all
    limited   HTTP 429 with Retry-After: 7 (``server.retry_after``; and Brave's X-RateLimit-* headers)
    boom      HTTP 503
    notjson   HTTP 200 with an HTML body
    slow      sleeps 5 s before answering (timeouts)
    gzip      the full fixture, gzip-encoded
    echo      one result per received parameter (so tests can see the request)
    urls      results whose urls are taken from the server's ``urls`` list (enrichment tests)

The news endpoint (/res/v1/news/search) answers NEWS (the first word "dupes"
answers the same article under tracking, AMP and mobile variants of its URL;
"full"/"dupes" do the same on the web endpoint).

``server.delays[word]`` (seconds) holds the answer to a query starting with ``word`` that long
(latency for benchmarks: bench/search/multi.py).

``server.bodies[word]`` answers a query starting with ``word`` with that 200 body
instead (a str is sent as it is: JSON text a real encoder would not write).

``server.script`` is a list of outcomes consumed one per request before the
fixtures above are looked at: "429" (with ``server.retry_after``, default "7";
None sends no Retry-After), "503" (the same, as Brave's overload answer), "402",
"500", "hang" (sleeps 5 s) or "ok" (the fixtures decide).  Fallback and breaker
tests drive sequences with it.

``server.rate`` (seconds, default None) makes it a plan's rate limiter: a request
less than ``rate`` seconds after the last one it let through (by arrival, less
``server.rate_slack``, 0.2 s: the jitter of processes woken on a loaded machine) is
answered 429 with Retry-After: 1 (``server.rate_retry_after``), as Brave's free plan does; ``server.answered``
lists the monotonic times of the requests it let through and ``server.refused``
counts the 429s.

Every request is recorded in ``server.requests`` as (path, params, headers).
"""

import gzip
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from fakes import answers

KEY = "test-brave-key-0123456789"

FULL = {
    "type": "search",
    "query": {"original": "full query", "more_results_available": True},
    "web": {
        "type": "search",
        "family_friendly": True,
        "results": [
            {
                "type": "search_result",
                "title": "TypeScript 5.7 &amp; <strong>release</strong> notes",
                "url": "https://devblogs.example.com/typescript/announcing-typescript-5-7/",
                "description": "Today we are excited to announce the availability of TypeScript 5.7.",
                "age": "November 22, 2024",
                "page_age": "2024-11-22T18:00:00",
                "language": "en",
                "profile": {"name": "Example Dev Blogs"},
                "extra_snippets": ["Checks for never-initialized variables.", "Path rewriting for relative paths."],
            },
            {
                "type": "search_result",
                "title": "TypeScript 5.7 iteration plan",
                "url": "https://github.example.com/microsoft/TypeScript/issues/59000",
                "description": "This document outlines our focused tasks for TypeScript 5.7.",
                "age": "3 days ago",
            },
            {
                "type": "search_result",
                "title": "What's new in TS 5.7",
                "url": "https://blog.example.org/ts-5-7",
                "description": "A tour of the release.",
            },
        ],
    },
}

MISSING = {
    "type": "search",
    "query": {"original": "missing"},
    "web": {
        "type": "search",
        "results": [
            {"url": "https://a.example.com/no-title"},
            {"title": "no url at all", "description": "dropped"},
            {
                "title": 42,
                "url": "https://b.example.com/typed",
                "description": None,
                "page_age": 17,
                "extra_snippets": "not a list",
                "profile": "nope",
            },
            "not an object",
            {"title": "bad scheme", "url": "javascript:alert(1)"},
        ],
    },
}

NEWS = {
    "type": "news",
    "query": {"original": "rust foundation"},
    "results": [
        {
            "type": "news_result",
            "title": "Rust Foundation announces <strong>new</strong> members",
            "url": "https://news.example.com/2026/11/rust-foundation?utm_source=brave",
            "description": "The foundation grew again.",
            "age": "2 hours ago",
            "page_age": "2026-11-22T10:00:00",
            "breaking": True,
            "meta_url": {"scheme": "https", "netloc": "news.example.com", "hostname": "news.example.com"},
            "thumbnail": {"src": "https://imgs.example.com/t.jpg"},
            "profile": {"name": "Example News"},
        },
        {
            "type": "news_result",
            "title": "Rust 2026 survey",
            "url": "https://blog.example.org/rust-survey",
            "description": "Results are in.",
            "age": "1 day ago",
            "page_age": "2026-11-21T08:00:00",
            "meta_url": {"hostname": "blog.example.org"},
        },
        {"type": "news_result", "title": "no url", "description": "dropped"},
    ],
}

DUPES = [
    {"title": "Original", "url": "https://Example.com/story/", "description": "first copy"},
    {"title": "Tracked copy", "url": "https://example.com/story?utm_source=x&fbclid=abc", "description": "second"},
    {"title": "AMP copy", "url": "https://www.google.com/amp/s/example.com/story/amp", "description": "third"},
    {"title": "Mobile copy", "url": "https://m.example.com:443/story#top", "description": "fourth"},
    {"title": "Another page", "url": "https://example.com/other", "description": "kept"},
]

ERROR_401 = {
    "type": "ErrorResponse",
    "error": {
        "id": "3b6c5b1e-0b7f-4e7d-9a0e-401401401401",
        "status": 401,
        "code": "SUBSCRIPTION_TOKEN_INVALID",
        "detail": "The provided subscription token is invalid.",
        "meta": {"component": "authentication"},
    },
    "time": 1732300000,
}

ERROR_429 = {
    "type": "ErrorResponse",
    "error": {
        "id": "9f1d2c3b-429a-4b7e-8c6d-429429429429",
        "status": 429,
        "code": "RATE_LIMITED",
        "detail": "Request rate limit exceeded for plan.",
        "meta": {
            "plan": "Free",
            "rate_limit": 1,
            "rate_current": 2,
            "quota_limit": 2000,
            "quota_current": 12,
            "component": "rate_limiter",
        },
    },
    "time": 1732300000,
}


def error_422(field, msg, value):
    return {
        "type": "ErrorResponse",
        "error": {
            "id": "c0ffee00-4220-4220-4220-422422422422",
            "status": 422,
            "code": "VALIDATION",
            "detail": "Unable to validate request parameter(s)",
            "meta": {"errors": [{"type": "value_error", "loc": ["query", field], "msg": msg, "input": value}]},
        },
        "time": 1732300000,
    }


def _validate(params):
    one = {k: v[0] for k, v in params.items()}
    if not one.get("q"):
        return error_422("q", "Field required", None)
    if "count" in one and not (one["count"].isdigit() and 1 <= int(one["count"]) <= 20):
        return error_422("count", "Input should be less than or equal to 20", one["count"])
    if "offset" in one and not (one["offset"].isdigit() and int(one["offset"]) <= 9):
        return error_422("offset", "Input should be less than or equal to 9", one["offset"])
    if "freshness" in one and one["freshness"] not in ("pd", "pw", "pm", "py") and ".." not in one["freshness"]:
        return error_422("freshness", "Input should be 'pd', 'pw', 'pm' or 'py'", one["freshness"])
    if "safesearch" in one and one["safesearch"] not in ("off", "moderate", "strict"):
        return error_422("safesearch", "Input should be 'off', 'moderate' or 'strict'", one["safesearch"])
    if "country" in one and (len(one["country"]) != 2 or one["country"].upper() == "ZZ"):
        return error_422("country", "Input should be a valid country code", one["country"])
    return None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def _send(self, status, body, headers=None, raw=None):
        data = raw if raw is not None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json" if raw is None else "text/html")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        parts = urlsplit(self.path)
        params = parse_qs(parts.query)
        self.server.requests.append((parts.path, params, dict(self.headers)))
        self.server.times.append(time.monotonic())
        if parts.path not in ("/res/v1/web/search", "/res/v1/news/search"):
            return self._send(404, {"type": "ErrorResponse", "error": {"status": 404, "detail": "Not found"}})
        if self.headers.get("X-Subscription-Token") != self.server.key:
            return self._send(401, ERROR_401)
        with self.server.lock:
            step = self.server.script.pop(0) if self.server.script else "ok"
            if self.server.rate is not None and step == "ok":
                now = time.monotonic()
                if self.server.answered and now - self.server.answered[-1] < self.server.rate - self.server.rate_slack:
                    self.server.refused += 1
                    after = self.server.rate_retry_after
                    return self._send(429, ERROR_429, {"Retry-After": after} if after is not None else {})
                self.server.answered.append(now)
        if step in ("429", "503"):
            after = self.server.retry_after
            return self._send(int(step), ERROR_429, {"Retry-After": after} if after is not None else {})
        if step == "402":
            return self._send(402, {"type": "ErrorResponse", "error": {"status": 402, "detail": "Out of credit"}})
        if step == "500":
            return self._send(500, {"type": "ErrorResponse", "error": {"status": 500, "detail": "Internal"}})
        if step == "hang":
            time.sleep(5)
            return self._send(503, {"type": "ErrorResponse", "error": {"status": 503, "detail": "late"}})
        if parts.path == "/res/v1/news/search":
            if "result_filter" in params or "text_decorations" in params:  # web-only parameters
                return self._send(422, error_422("result_filter", "not a news parameter", None))
            if params.get("q", [""])[0].split()[:1] == ["dupes"]:
                return self._send(200, {"type": "news", "results": DUPES})
            return self._send(200, NEWS, {"X-Request-Id": "req-news"})
        invalid = _validate(params)
        if invalid:
            return self._send(422, invalid)
        q = params["q"][0]
        fixture = q.split()[0]
        if fixture in self.server.delays:
            time.sleep(self.server.delays[fixture])
        if fixture in self.server.bodies:  # a hostile answer: JSON text as given, else the value encoded
            return answers.send(self, self.server.bodies[fixture])
        rl = {
            "X-RateLimit-Limit": "1, 2000",
            "X-RateLimit-Policy": "1;w=1, 2000;w=2592000",
            "X-RateLimit-Remaining": "0, 1988",
            "X-RateLimit-Reset": "1, 1419704",
        }
        if fixture == "limited":
            return self._send(429, ERROR_429, dict(rl, **{"Retry-After": self.server.retry_after or "7"}))
        if fixture == "boom":
            return self._send(503, {"type": "ErrorResponse", "error": {"status": 503, "detail": "Service Unavailable"}})
        if fixture == "notjson":
            return self._send(200, None, raw=b"<html>maintenance</html>")
        if fixture == "slow":
            time.sleep(5)
            return self._send(200, FULL)
        if fixture == "missing":
            return self._send(200, MISSING)
        if fixture == "dupes":
            return self._send(200, {"type": "search", "query": {"original": q}, "web": {"results": DUPES}})
        if fixture == "empty":
            return self._send(200, {"type": "search", "query": {"original": q}})
        if fixture == "echo":
            results = [
                {"title": k, "url": "https://echo.example.com/%s" % k, "description": v[0]}
                for k, v in sorted(params.items())
            ]
            return self._send(200, {"type": "search", "query": {"original": q}, "web": {"results": results}})
        if fixture == "urls":
            results = [
                {"title": "Page %d" % i, "url": u, "description": "snippet %d from the index" % i}
                for i, u in enumerate(self.server.urls, 1)
            ]
            return self._send(200, {"type": "search", "query": {"original": q}, "web": {"results": results}})
        headers = dict(rl, **{"X-Request-Id": "req-7f3a9c1e-full"})
        if fixture == "gzip":
            data = gzip.compress(json.dumps(FULL).encode())
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Encoding", "gzip")
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        return self._send(200, FULL, headers)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client that gave up (timeout tests) is expected, not news


class FakeBrave:
    def __init__(self, key=KEY):
        self.server = _Server(("127.0.0.1", 0), _Handler)
        self.server.daemon_threads = True
        self.server.requests = []
        self.server.times = []  # monotonic arrival time of each request
        self.server.key = key
        self.server.urls = []
        self.server.bodies = {}  # query's first word -> the 200 answer given instead (str: raw JSON text)
        self.server.delays = {}  # query's first word -> seconds before it is answered
        self.server.script = []
        self.server.retry_after = "7"
        self.server.rate = None
        self.server.rate_retry_after = "1"  # the Retry-After of the rate limiter's 429s (None: none)
        self.server.rate_slack = 0.2  # arrivals this much early still pass: a sender's late wake-up, not its pace
        self.server.answered = []
        self.server.refused = 0
        self.server.lock = threading.Lock()
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self):
        return "http://127.0.0.1:%d" % self.server.server_address[1]

    @property
    def requests(self):
        return self.server.requests

    @property
    def times(self):
        return self.server.times

    @property
    def script(self):
        return self.server.script

    @property
    def retry_after(self):
        return self.server.retry_after

    @retry_after.setter
    def retry_after(self, value):
        self.server.retry_after = value

    def provider_entry(self, name="brave"):
        """A config file's entry for this server: its key and address, no pause between requests."""
        return {
            "name": name,
            "type": "brave",
            "apiKey": self.server.key,
            "baseUrl": self.base_url,
            "options": {"minInterval": 0},
        }

    def config_file(self, path, name="brave", **top):
        """A worker config naming this server as provider ``name`` (mode 0600, as the worker asks)."""
        import os

        path.write_text(json.dumps(dict(top, providers=[self.provider_entry(name)])))
        os.chmod(path, 0o600)
        return str(path)

    def set_urls(self, urls):
        self.server.urls = list(urls)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
