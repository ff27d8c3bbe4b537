"""A real threaded HTTP server on 127.0.0.1 serving realistic pages and misbehaviours.

Used by tests/test_fetch*.py and bench/fetch.  Nothing in the worker is patched:
the worker connects to this server over real sockets.

    web = FakeWeb().start()
    web.url("/article")            -> "http://127.0.0.1:PORT/article"
    web.max_active                 -> most simultaneous requests seen
    web.hits("/429/once")          -> how many times a path was requested
    web.stop()

It also acts as a plain forward proxy for http:// URLs (absolute-URI request
lines): with HTTP_PROXY pointing here, ``http://public.example/redirect-meta``
reaches this server, which lets tests follow a redirect from a public-looking
host to a private address without the internet.
"""

import gzip
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from . import pathological

BOILER_NAV = """
<header class="site-header"><nav><ul>
<li><a href="/">Home</a></li><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li>
<li><a href="/weather">Weather</a></li><li><a href="/subscribe">Subscribe now</a></li></ul></nav></header>
<div id="cookie-banner" class="cookie-consent">We use cookies to improve your experience. Accept all cookies?
<button>Accept</button><button>Manage preferences</button></div>
"""
BOILER_FOOT = """
<aside class="sidebar"><h3>Most read</h3><ul><li><a href="/a">Celebrity spotted at airport</a></li>
<li><a href="/b">Ten tricks for a tidy kitchen</a></li></ul></aside>
<div class="ad advert">ADVERTISEMENT: Buy the SuperWidget 3000 today, 50% off</div>
<footer><p>Copyright 2025 Daily Example Ltd. All rights reserved.</p>
<p><a href="/privacy">Privacy policy</a> | <a href="/terms">Terms of use</a></p></footer>
"""

ARTICLE = (
    """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Glaciers retreat faster than expected | Daily Example</title>
<meta name="author" content="Maria Lindqvist">
<meta property="og:site_name" content="Daily Example">
<meta property="article:published_time" content="2024-03-05T09:30:00Z">
<link rel="canonical" href="https://news.example.org/science/glaciers-retreat">
</head><body>
"""
    + BOILER_NAV
    + """
<main><article>
<h1>Glaciers retreat faster than expected</h1>
<p class="byline">By Maria Lindqvist, 5 March 2024</p>
<p>Alpine glaciers lost a record share of their volume last year, according to a survey published on Tuesday
by the Glacier Monitoring Network. Researchers measured the thickness of more than two hundred glaciers
across four countries and found that the ice shrank by an average of three metres.</p>
<p>The scientists say the losses were driven by a winter with little snow followed by two summer heatwaves.
"We have never seen melting on this scale so early in the season," said the survey's lead author.</p>
<h2>What the measurements show</h2>
<p>The thinning was strongest below 3,000 metres, where several small glaciers have broken into separate
pieces. In some valleys the ice front moved back by more than a hundred metres in a single summer.</p>
<ul><li>Average thickness loss: 3.1 metres</li><li>Glaciers surveyed: 214</li><li>Countries: four</li></ul>
<h2>Why it matters</h2>
<p>Glaciers store water that feeds rivers during dry summers. Hydrologists warn that towns downstream will
need new reservoirs as the ice disappears, and that hydropower output will become less predictable.</p>
<p>The network plans to repeat the survey every autumn and to publish its data openly for other researchers.</p>
</article></main>
"""
    + BOILER_FOOT
    + "</body></html>"
)

DOCS = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Configuration reference - widgetlib 2.4 documentation</title></head>
<body>
<nav class="sidebar"><ul><li><a href="/docs/install">Installation</a></li><li><a href="/docs/config">Configuration</a></li>
<li><a href="/docs/api">API reference</a></li><li><a href="/docs/changelog">Changelog</a></li></ul></nav>
<div class="document"><div role="main" class="body">
<h1>Configuration reference</h1>
<p>widgetlib reads its settings from <code>widget.toml</code> in the project root. Every key is optional;
the defaults suit most projects. This page lists every setting with its type and default value.</p>
<h2>Quick start</h2>
<p>Create the file and set the cache directory:</p>
<pre><code class="language-toml">[widget]
cache_dir = "~/.cache/widget"
max_workers = 8
</code></pre>
<p>Then load it from Python:</p>
<pre><code class="language-python">import widgetlib

config = widgetlib.load_config("widget.toml")
print(config.max_workers)
</code></pre>
<h2>Settings</h2>
<table><thead><tr><th>Key</th><th>Type</th><th>Default</th><th>Meaning</th></tr></thead>
<tbody>
<tr><td>cache_dir</td><td>path</td><td>~/.cache/widget</td><td>where compiled widgets are stored</td></tr>
<tr><td>max_workers</td><td>int</td><td>4</td><td>parallel build processes</td></tr>
<tr><td>strict</td><td>bool</td><td>false</td><td>treat warnings as errors</td></tr>
</tbody></table>
<h2>Environment variables</h2>
<p>Each setting can also be given as an environment variable named <code>WIDGET_</code> followed by the key in
upper case, for example <code>WIDGET_MAX_WORKERS=16</code>. Environment variables win over the file.</p>
</div></div>
<footer>&copy; 2025 widgetlib contributors. Built with Sphinx.</footer>
</body></html>"""

CP1252_TEXT = (
    "Le caf\u00e9 na\u00eff de Zo\u00eb: \u201cune cr\u00e8me br\u00fbl\u00e9e\u201d co\u00fbte 5\u20ac \u2014 "
    "la fa\u00e7ade r\u00e9nov\u00e9e, l\u2019\u00e9t\u00e9 dernier, \u00e0 c\u00f4t\u00e9 du ch\u00e2teau."
)
SJIS_TEXT = (
    "\u6771\u4eac\u306e\u65e5\u672c\u8a9e\u30da\u30fc\u30b8\u3067\u3059\u3002\u4eca\u65e5\u306f\u5929\u6c17\u304c"
    "\u826f\u304f\u3001\u685c\u306e\u82b1\u304c\u54b2\u3044\u3066\u3044\u307e\u3059\u3002\u6587\u5b57\u5316\u3051"
    "\u3057\u306a\u3044\u3067\u304f\u3060\u3055\u3044\u3002"
)
GB_TEXT = (
    "\u8fd9\u662f\u4e00\u4e2a\u4e2d\u6587\u7f51\u9875\u3002\u6211\u4eec\u6b63\u5728\u6d4b\u8bd5\u5b57\u7b26"
    "\u7f16\u7801\u7684\u8bc6\u522b\uff0c\u5e0c\u671b\u4e0d\u4f1a\u51fa\u73b0\u4e71\u7801\u3002\u9f98\u9f8d\u9f96\u3002"
)


def legacy_page(text, title, meta_charset=None):
    head = '<meta charset="%s">' % meta_charset if meta_charset else ""
    paras = "".join("<p>%s</p>\n" % text for _ in range(4))
    return (
        "<!DOCTYPE html><html><head>%s<title>%s</title></head><body><article><h1>%s</h1>\n%s</article></body></html>"
        % (head, title, title, paras)
    )


def long_article(paragraphs=400):
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>A very long report</title></head><body><article>",
        "<h1>A very long report</h1>",
    ]
    for i in range(paragraphs):
        if i % 40 == 0:
            parts.append("<h2>Chapter %d</h2>" % (i // 40 + 1))
        parts.append(
            "<p>Paragraph %d of the report discusses findings in measured detail, with enough words to "
            "form a realistic paragraph that an extractor keeps as main content of the page.</p>" % i
        )
    parts.append("</article></body></html>")
    return "".join(parts)


def minimal_pdf(lines):
    """A small valid PDF with a text layer, written by hand (offsets computed, so readers accept it)."""
    stream = (
        "BT /F1 14 Tf 72 720 Td 18 TL\n"
        + "".join("(%s) Tj T*\n" % line.replace("(", r"\(").replace(")", r"\)") for line in lines)
        + "ET"
    )
    objs = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        "<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        "<< /Title (Quarterly Widget Report) /Author (Widget Team) >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += ("%d 0 obj\n%s\nendobj\n" % (i, body)).encode("latin-1")
    xref = len(out)
    out += ("xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)).encode()
    out += "".join("%010d 00000 n \n" % o for o in offsets).encode()
    out += (
        "trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    ).encode()
    return out


PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
    b"\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7V\xbd\xfa\x00\x00\x00\x00IEND\xaeB`\x82"
)

_bomb = {}


def gzip_bomb(decoded_mb=200):
    """``decoded_mb`` MB of zeros, gzip-compressed (about 1000:1)."""
    if decoded_mb not in _bomb:
        co = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        block = b"\0" * (1 << 20)
        parts = [co.compress(block) for _ in range(decoded_mb)]
        parts.append(co.flush())
        _bomb[decoded_mb] = b"".join(parts)
    return _bomb[decoded_mb]


def heavy_page(kind, mb=5.0):
    """HTML that costs an extractor dearly: ``links`` (mb MB of link-list entries),
    ``headings`` (100,000 headings), ``attrs`` (one tag with 200,000 attributes),
    ``paras`` (mb MB of paragraphs), ``docs`` (mb MB of documentation sections)."""
    n = int(mb * (1 << 20))
    if kind == "headings":
        return "<html><body>" + "".join("<h2>Heading %d</h2>" % i for i in range(100000)) + "</body></html>"
    if kind == "attrs":
        return (
            "<html><body><div "
            + " ".join('a%d="x"' % i for i in range(200000))
            + ">text in the div</div><p>"
            + "Some words of the page. " * 50
            + "</p></body></html>"
        )
    unit = {
        "links": '<li><a href="/p/%d">A link to page number %d here</a> with a little text</li>\n',
        "paras": "<p>All work and no play makes a long page, number %d of %d. " + "More words. " * 30 + "</p>\n",
        "docs": (
            "<h2>Section %d</h2><p>Documentation words explain call %d of the API.</p>"
            "<pre><code>def f(x):\n    return x\n\nprint(f(1))</code></pre>"
            "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>\n"
        ),
    }[kind]
    parts, size, i = ["<html><body><main><ul>" if kind == "links" else "<html><body><main>"], 0, 0
    while size < n:
        piece = unit % (i, i)
        parts.append(piece)
        size += len(piece)
        i += 1
    return "".join(parts) + "</main></body></html>"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeWeb/1.0"

    def log_message(self, *args):
        pass

    def do_GET(self):
        web = self.server.web
        parts = urlsplit(self.path)
        path = parts.path
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        with web.lock:
            web.active += 1
            self._active = True
            web.max_active = max(web.max_active, web.active)
            web.log.append((path, dict(self.headers), self.path))
            web.counts[path] = web.counts.get(path, 0) + 1
            count = web.counts[path]
        try:
            web.route(self, path, query, count)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, OSError):
            pass
        finally:
            self._inactive()

    def _inactive(self):
        # A request stops counting as active when its answer starts: the client cannot ask again
        # before it has the answer, and this thread may run its finally only after the client's
        # next request has come in (a busy machine counted four at --concurrency 3).
        web = self.server.web
        with web.lock:
            if getattr(self, "_active", False):
                self._active = False
                web.active -= 1

    # helpers used by routes
    def send(self, status=200, body=b"", ctype="text/html; charset=utf-8", headers=None):
        self._inactive()
        if isinstance(body, str):
            body = body.encode("utf-8")
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # listen() backlog: the default 5 drops SYNs from a 20-URL batch (1 s retransmits)


class FakeWeb:
    def __init__(self):
        self.lock = threading.Lock()
        self.active = 0
        self.max_active = 0
        self.log = []
        self.counts = {}
        self.server = None
        self.pdf = minimal_pdf(
            [
                "Quarterly Widget Report",
                "Revenue grew by 12 percent in the third quarter.",
                "Widget shipments reached 4,200 units.",
            ]
        )

    def start(self, hosts=1, tls=None):
        """Listen on 127.0.0.1 and, with ``hosts`` > 1, on 127.0.0.2... too (distinct hosts, shared stats).

        ``tls``: a server-side ssl.SSLContext to serve https instead of http.
        """
        self.scheme = "https" if tls else "http"
        self.servers = []
        for i in range(hosts):
            server = _Server(("127.0.0.%d" % (i + 1), 0), _Handler)
            if tls is not None:
                server.socket = tls.wrap_socket(server.socket, server_side=True)
            server.web = self
            threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
            self.servers.append(server)
        self.server = self.servers[0]
        self.port = self.server.server_address[1]
        return self

    def stop(self):
        for server in getattr(self, "servers", []):
            server.shutdown()
            server.server_close()

    def url(self, path, host=0):
        """The URL of ``path`` on host number ``host`` (0 = 127.0.0.1)."""
        addr, port = self.servers[host % len(self.servers)].server_address[:2]
        return "%s://%s:%d%s" % (self.scheme, addr, port, path)

    def hits(self, path):
        with self.lock:
            return self.counts.get(path, 0)

    def reset_stats(self):
        with self.lock:
            self.max_active = 0
            self.log = []
            self.counts = {}

    # ------------------------------------------------------------------ routes
    def route(self, h, path, q, count):
        if path == "/article":
            return h.send(body=ARTICLE)
        if path == "/docs":
            return h.send(body=DOCS)
        if path == "/long":
            return h.send(body=long_article(int(q.get("n", 400))))
        if path == "/xhtml":
            return h.send(
                body=ARTICLE.replace("<!DOCTYPE html>", '<?xml version="1.0" encoding="utf-8"?>'),
                ctype="application/xhtml+xml",
            )
        if path == "/cp1252":  # charset only in the header
            return h.send(
                body=legacy_page(CP1252_TEXT, "Caf\u00e9").encode("cp1252"), ctype="text/html; charset=windows-1252"
            )
        if path == "/cp1252-meta":  # header says nothing; <meta> says ISO-8859-1 (browsers read windows-1252)
            return h.send(body=legacy_page(CP1252_TEXT, "Caf\u00e9", "iso-8859-1").encode("cp1252"), ctype="text/html")
        if path == "/cp1252-bare":  # no declaration anywhere: detection
            return h.send(body=legacy_page(CP1252_TEXT, "Caf\u00e9").encode("cp1252"), ctype="text/html")
        if path == "/sjis":
            return h.send(
                body=legacy_page(SJIS_TEXT, "\u6771\u4eac").encode("shift_jis"), ctype="text/html; charset=Shift_JIS"
            )
        if path == "/sjis-meta":
            return h.send(
                body=legacy_page(SJIS_TEXT, "\u6771\u4eac", "shift_jis").encode("shift_jis"), ctype="text/html"
            )
        if path == "/sjis-bare":
            return h.send(body=legacy_page(SJIS_TEXT, "\u6771\u4eac").encode("shift_jis"), ctype="text/html")
        if path == "/gb18030":  # declared as gb2312, as many Chinese pages do; contains characters beyond GB2312
            return h.send(body=legacy_page(GB_TEXT, "\u4e2d\u6587", "gb2312").encode("gb18030"), ctype="text/html")
        if path == "/gb18030-bare":
            return h.send(body=legacy_page(GB_TEXT, "\u4e2d\u6587").encode("gb18030"), ctype="text/html")
        if path == "/plain":
            return h.send(body="Plain text file.\nSecond line with caf\u00e9.\n", ctype="text/plain; charset=utf-8")
        if path == "/readme.md":
            return h.send(
                body="# Widget README\n\nInstall with pip.\n\n## Usage\n\nRun `widget build`.\n", ctype="text/markdown"
            )
        if path == "/data.json":
            return h.send(
                body='{"name": "widget", "version": "2.4.0", "tags": ["fast", "small"]}', ctype="application/json"
            )
        if path == "/feed.xml":
            return h.send(
                body='<?xml version="1.0"?><rss><channel><title>Widget news</title></channel></rss>',
                ctype="application/rss+xml",
            )
        if path == "/report.pdf":
            return h.send(body=self.pdf, ctype="application/pdf")
        if path == "/download":  # a PDF served with a generic type: sniffed
            return h.send(body=self.pdf, ctype="application/octet-stream")
        if path == "/image.png":
            return h.send(body=PNG, ctype="image/png")
        if path == "/mystery":  # binary with a generic type
            return h.send(body=PNG, ctype="application/octet-stream")
        if path == "/gzip":
            return h.send(body=gzip.compress(ARTICLE.encode()), headers={"Content-Encoding": "gzip"})
        if path == "/deflate":
            return h.send(body=zlib.compress(DOCS.encode()), headers={"Content-Encoding": "deflate"})
        if path == "/bomb":
            return h.send(body=gzip_bomb(int(q.get("mb", 200))), headers={"Content-Encoding": "gzip"})
        if path == "/huge":
            return self._huge(h, int(q.get("mb", 50)))
        if path == "/pathological":  # tests/fakes/pathological.py's catalogue
            kind = q.get("kind", "")
            ctype = "text/markdown" if kind in pathological.TEXT_KINDS else "text/html; charset=utf-8"
            return h.send(body=pathological.page(kind), ctype=ctype)
        if path == "/heavy":  # markup that is expensive to analyse (see heavy_page)
            return h.send(body=heavy_page(q.get("kind", "links"), float(q.get("mb", 5))))
        if path == "/drip":
            return self._drip(h, float(q.get("every", 0.2)))
        if path == "/drip-headers":
            return self._drip_headers(h, float(q.get("every", 0.2)))
        if path == "/hang":
            time.sleep(float(q.get("s", 30)))
            return h.send(body=ARTICLE)
        if path == "/slow":  # latency then a page (concurrency tests, bench)
            time.sleep(float(q.get("ms", 300)) / 1000.0)
            return h.send(body=ARTICLE.replace("Glaciers retreat", "Glaciers retreat (%s)" % q.get("id", "")))
        if path == "/404":
            return h.send(404, "<html><body><h1>Not Found</h1></body></html>")
        if path == "/500":
            return h.send(500, "<html><body><h1>Internal error</h1></body></html>")
        if path == "/429/once":  # rate limited once, then fine
            if count == 1:
                return h.send(429, "slow down", ctype="text/plain", headers={"Retry-After": q.get("after", "1")})
            return h.send(body=ARTICLE)
        if path == "/503/once":
            if count == 1:
                return h.send(503, "maintenance", ctype="text/plain", headers={"Retry-After": "1"})
            return h.send(body=DOCS)
        if path == "/429/always":
            return h.send(429, "slow down", ctype="text/plain", headers={"Retry-After": q.get("after", "1")})
        if path.startswith("/redirect/"):  # /redirect/N -> ... -> /article
            n = int(path.rsplit("/", 1)[1])
            target = "/article" if n <= 1 else "/redirect/%d" % (n - 1)
            return h.send(302, "", headers={"Location": target})
        if path == "/redirect-to":
            return h.send(int(q.get("status", 302)), "", headers={"Location": q["to"]})
        if path == "/redirect-meta":  # the classic SSRF: a redirect to the cloud metadata address
            return h.send(302, "", headers={"Location": "http://169.254.169.254/latest/meta-data/"})
        if path == "/redirect-local":
            return h.send(301, "", headers={"Location": "http://localhost:%d/article" % self.port})
        return h.send(404, "no such page: %s" % path, ctype="text/plain")

    def _huge(self, h, mb):
        h.send_response(200)
        h.send_header("Content-Type", "text/html; charset=utf-8")
        h.send_header("Content-Length", str(mb << 20))
        h.send_header("Connection", "close")
        h.end_headers()
        para = b"<p>" + b"All work and no play makes a long page. " * 24 + b"</p>\n"
        block = (para * ((1 << 16) // len(para) + 1))[: 1 << 16]
        for _ in range((mb << 20) // len(block)):
            h.wfile.write(block)
        h.close_connection = True

    def _drip(self, h, every):
        h.send_response(200)
        h.send_header("Content-Type", "text/html; charset=utf-8")
        h.send_header("Connection", "close")
        h.end_headers()
        self._trickle(h, b"<html><body><p>", b"a", every)

    def _drip_headers(self, h, every):
        self._trickle(h, b"HTTP/1.1 200 OK\r\n", b"X-Drip: a\r\n", every)

    @staticmethod
    def _trickle(h, head, piece, every):
        """Send ``head``, then one ``piece`` every ``every`` seconds for up to two minutes."""
        h.wfile.write(head)
        h.wfile.flush()
        for _ in range(int(120 / every)):
            time.sleep(every)
            h.wfile.write(piece)
            h.wfile.flush()
        h.close_connection = True
