"""A documentation site on 127.0.0.1: a folder served under a prefix (as /3.11/ serves the Python
docs), and/or pages given in memory, with the misbehaviours a site map meets.

    site = SiteServer(root="/usr/share/doc/python3.11/html", prefix="/3.11/").start()
    site.url("library/index.html")        -> "http://127.0.0.1:PORT/3.11/library/index.html"
    site = SiteServer(pages={"/docs/": "<html>...", "/sitemap.xml": (200, "application/xml", b"...")}).start()
    site.hits("/docs/a.html")              -> how many times it was asked for
    SiteServer(..., delay=0.1)             -> every answer 100 ms late, as across a network
    site.stop()

A page given in memory is ``body`` (str: text/html), ``(status, content type, body)``, or
``(status, content type, body, {header: value})``; a callable ``handler(send)`` writes its
own answer (a page that never ends, a redirect to a private address).  Nothing is patched:
the worker connects to it over real sockets.
"""

import mimetypes
import os
import posixpath
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        site = self.server.site
        path = urlsplit(self.path).path
        with site.lock:
            site.requests.append(path)
        if site.delay:
            time.sleep(site.delay)  # a site across a network: every answer starts this much later
        page = site.pages.get(path)
        if page is None and path.endswith("/"):
            page = site.pages.get(path + "index.html")
        if page is None and site.root is not None and path.startswith(site.prefix):
            page = site.from_disk(path[len(site.prefix) :])
        if page is None:
            return self.send(404, "text/html; charset=utf-8", b"<html><body><h1>Not found</h1></body></html>")
        if callable(page):
            return page(self)
        if isinstance(page, str):
            return self.send(200, "text/html; charset=utf-8", page.encode("utf-8"))
        status, ctype, body, *extra = page
        if isinstance(body, str):
            body = body.encode("utf-8")
        return self.send(status, ctype, body, extra[0] if extra else None)

    def send(self, status, ctype, body, headers=None):
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class SiteServer:
    def __init__(self, root=None, prefix="/", pages=None, host="127.0.0.1", delay=0.0):
        self.root = os.path.realpath(root) if root else None
        self.prefix = prefix if prefix.endswith("/") else prefix + "/"
        self.pages = dict(pages or {})
        self.host = host
        self.requests = []
        self.delay = delay
        self.lock = threading.Lock()
        self.httpd = None

    def from_disk(self, rel):
        original = rel
        rel = posixpath.normpath(unquote(rel)) if rel else "index.html"
        if rel.startswith(("..", "/")):
            return None
        path = os.path.join(self.root, rel)
        if os.path.isdir(path):
            if original and not original.endswith("/"):
                # a folder asked for without its slash: moved there, as nginx, Apache and
                # http.server answer, so the page's relative links resolve from the folder
                return (301, "text/html; charset=utf-8", b"", {"Location": self.prefix + original + "/"})
            path = os.path.join(path, "index.html")
        if not os.path.realpath(path).startswith(self.root) or not os.path.isfile(path):
            return None
        ctype = mimetypes.guess_type(path)[0] or "application/octet-stream"
        if ctype.startswith("text/"):
            ctype += "; charset=utf-8"
        with open(path, "rb") as f:
            return (200, ctype, f.read())

    def start(self):
        self.httpd = _Server((self.host, 0), _Handler)
        self.httpd.site = self
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def stop(self):
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()

    @property
    def port(self):
        return self.httpd.server_address[1]

    @property
    def base(self):
        return "http://%s:%d" % (self.host, self.port)

    def url(self, rel=""):
        """A page under the prefix (``rel`` without a leading slash), or an absolute path."""
        if rel.startswith("/"):
            return self.base + rel
        return self.base + self.prefix + rel

    def hits(self, path):
        with self.lock:
            return self.requests.count(path)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


# -- a small documentation site, for the map and crawl tests ---------------------------------


def page(title, body="", links=()):
    anchors = "".join('<li><a href="%s">%s</a></li>' % (href, text) for href, text in links)
    return (
        "<!DOCTYPE html><html><head><title>%s — Demo docs</title></head><body><nav><ul>%s</ul></nav>"
        "<main><h1>%s</h1>%s</main></body></html>" % (title, anchors, title, body)
    )


def para(text):
    return "<p>%s</p>" % text


def docs_site(extra=None):
    """A section /docs/ whose contents page links to three pages, one of which links further."""
    pages = {
        "/docs/index.html": page(
            "Contents",
            para("The documentation of the demo project."),
            [("install.html", "Installing"), ("config.html", "Configuration"), ("api/pool.html#size", "Pool size")],
        ),
        "/docs/install.html": page(
            "Installing", para("Install the demo with pip install demo. " * 5), [("index.html", "Contents")]
        ),
        "/docs/config.html": page(
            "Configuration",
            para("Settings are read from demo.toml in the working directory. " * 3)
            + para("The log level defaults to warning; set log_level to debug for more."),
            [("logging.html", "Logging"), ("/blog/post.html", "Our blog"), ("https://other.example/x", "Elsewhere")],
        ),
        "/docs/logging.html": page("Logging", para("Logs rotate every day at midnight; keep_days says how many stay.")),
        "/docs/api/pool.html": page(
            "Connection pool",
            para("A pool keeps connections open for reuse by later requests. " * 4)
            + '<dl><dt id="demo.Pool">demo.Pool(size=4)</dt><dd>'
            + para("The pool holds at most size connections; the default size is 4 connections per host.")
            + "</dd></dl>",
        ),
        "/blog/post.html": page("A blog post", para("Not documentation.")),
    }
    pages.update(extra or {})
    return SiteServer(pages=pages).start()
