"""Real pages from the team's shared data sets, served on 127.0.0.1 as captured.

The data is not in this repository: it is read from ../shared/data beside the
project's root (on every developer's machine and in CI), never copied here.

    corpus = Corpus.load()            # the shared sets' pages, {name: (bytes, meta)}
    server = CorpusServer(corpus).start(hosts=8)
    server.url("wcxb/0901", host=3)   -> "http://127.0.0.4:PORT/wcxb/0901"
"""

import gzip
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "data")
WCXB = os.path.join(SHARED, "wcxb-dev")
ZYTE = os.path.join(SHARED, "article-extraction-benchmark")
CLASSIC = os.path.join(SHARED, "classic-web-dev")


def missing():
    """Why the shared data cannot be read, or None."""
    for path in (os.path.join(WCXB, "ground-truth.jsonl"), os.path.join(ZYTE, "ground-truth.json")):
        if not os.path.exists(path):
            return "the shared data sets are missing (%s); they live in ../shared beside the repo" % path
    return None


def _rows(folder):
    with open(os.path.join(folder, "ground-truth.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _page(folder, page_id):
    with gzip.open(os.path.join(folder, "html", page_id + ".html.gz"), "rb") as f:
        return f.read()


def wcxb_rows():
    return _rows(WCXB)


def wcxb_page(page_id):
    return _page(WCXB, page_id)


def classic_missing():
    """Why the classic-web set cannot be read, or None (it came later than the other two)."""
    path = os.path.join(CLASSIC, "ground-truth.jsonl")
    return None if os.path.exists(path) else "the classic-web-dev set is missing (%s)" % path


def classic_rows():
    return _rows(CLASSIC)


def classic_page(page_id):
    """The page's bytes as captured: served as bare text/html (its charset is the page's to declare)."""
    return _page(CLASSIC, page_id)


def zyte_ids():
    with open(os.path.join(ZYTE, "ground-truth.json"), encoding="utf-8") as f:
        return sorted(json.load(f))


def zyte_page(page_id):
    with gzip.open(os.path.join(ZYTE, "html", page_id + ".html.gz"), "rb") as f:
        return f.read()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        body = self.server.pages.get(self.path.lstrip("/").split("?", 1)[0])
        content_type = "text/html; charset=utf-8"
        if isinstance(body, tuple):  # (bytes, content type): a page whose charset the header must not state
            body, content_type = body
        if body is None:
            body, status, content_type = b"not found", 404, "text/plain"
        else:
            status = 200
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True


class CorpusServer:
    def __init__(self, pages):
        self.pages = dict(pages)  # {"wcxb/0901": bytes or (bytes, content type)}
        self.servers = []

    def start(self, hosts=1):
        for i in range(hosts):
            server = _Server(("127.0.0.%d" % (i + 1), 0), _Handler)
            server.pages = self.pages
            threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
            self.servers.append(server)
        return self

    def stop(self):
        for server in self.servers:
            server.shutdown()
            server.server_close()

    def url(self, name, host=0):
        addr, port = self.servers[host % len(self.servers)].server_address[:2]
        return "http://%s:%d/%s" % (addr, port, name)
