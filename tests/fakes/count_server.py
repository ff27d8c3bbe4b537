"""A local HTTP server that counts how many requests it serves at the same time.

Used by the cache/rate-limit load tests: ``max_inflight`` is what the
cross-process limits promise to bound.  Endpoints:

    /search?q=...&delay=S    JSON results for q after S seconds; "serial" numbers every answer
    /page/NAME?delay=S       a small HTML article after S seconds

Run standalone (``python tests/fakes/count_server.py``) it prints its port and
serves until killed; the benchmark uses that.
"""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.inflight = 0
        self.max_inflight = 0
        self.total = 0
        self.by_path = {}
        self.arrived = {}  # query or page name -> threading.Event, set when its request comes in

    def event(self, name):
        with self.lock:
            return self.arrived.setdefault(name, threading.Event())

    def enter(self, path):
        with self.lock:
            self.inflight += 1
            self.total += 1
            self.max_inflight = max(self.max_inflight, self.inflight)
            self.by_path[path] = self.by_path.get(path, 0) + 1
            return self.total

    def leave(self):
        with self.lock:
            self.inflight -= 1

    def reset(self):
        with self.lock:
            self.max_inflight = self.inflight
            self.total = 0
            self.by_path = {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_GET(self):
        stats = self.server.stats
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        serial = stats.enter(parts.path)
        left = False
        stats.event(query.get("q", [parts.path])[0]).set()
        try:
            delay = float(query.get("delay", ["0"])[0])
            if delay:
                time.sleep(delay)
            if parts.path == "/search":
                q = query.get("q", [""])[0]
                results = [
                    {
                        "title": "%s result %d" % (q, i),
                        "url": "https://example.org/%d?q=%s" % (i, q),
                        "snippet": "snippet %d for %s" % (i, q),
                    }
                    for i in range(1, 6)
                ]
                body = json.dumps({"results": results, "serial": serial}).encode()
                ctype = "application/json"
            elif parts.path.startswith("/page/"):
                name = parts.path[len("/page/") :]
                body = (
                    "<!doctype html><html><head><title>Page %s</title></head><body><article>"
                    "<h1>Page %s</h1><p>This is the article body of page %s, long enough to be the main text. "
                    "It talks about caches, locks and processes in some detail.</p>"
                    "<p>Serial %d.</p></article></body></html>" % (name, name, name, serial)
                ).encode()
                ctype = "text/html; charset=utf-8"
            else:
                self.send_error(404)
                return
            # Out of flight before the first byte of the answer: a client frees its slot once it
            # has the answer, and the next request may arrive before this thread runs again.
            left = True
            stats.leave()
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        finally:
            if not left:
                stats.leave()


class CountServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # 50 processes connect at once

    def handle_error(self, request, client_address):
        pass  # a killed worker hangs up mid-answer: expected here, not news

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.stats = Stats()
        self.thread = None

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.server_address[1]

    def start(self):
        self.thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        return self

    def stop(self):
        self.shutdown()
        self.server_close()


if __name__ == "__main__":
    import sys

    server = CountServer()
    sys.stdout.write("%s\n" % server.url)
    sys.stdout.flush()
    server.serve_forever()
