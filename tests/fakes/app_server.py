"""A real HTTP server on 127.0.0.1 whose pages build their text by script, for the rendering tests.

The text of a script-built page comes from the same server's JSON (``/api/article``)
by XHR, so only a browser that ran the script has it.  Every request is counted by
path (``hits``), so a test can tell what a browser asked for, and what never arrived.
Absolute-URI request lines are served too (it is a forward proxy for ``http://``
URLs): with HTTP_PROXY pointing here, ``http://public.example/app/shell`` is a page on a
public-looking host that the worker fetches without ``--allow-private``.

    app = AppServer().start()
    app.url("/app/shell")  -> "http://127.0.0.1:PORT/app/shell"
    app.hits["/api/article"]
"""

import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

ARTICLE = (
    "Glaciers in the Alps lost a record share of their ice last year, a survey by the monitoring network found. "
    "Researchers measured more than two hundred glaciers in four countries and saw the ice thin by three metres "
    "on average. Hydrologists warn that towns downstream will need new reservoirs as the ice disappears."
)
STATIC = (
    "<!DOCTYPE html><html><head><title>Static page %(n)s</title></head><body><main><article>"
    "<h1>Static page %(n)s</h1>" + "<p>Static paragraph %(n)s: the river valley keeps its old stone bridges, "
    "and the market square fills every Saturday with farmers selling cheese, bread and apples.</p>"
    * 6
    + "</article></main></body></html>"
)


def _builder(article_path, then=""):
    """A script that fetches the article JSON, builds the page from it, then runs ``then``
    (after the text is in place: a page that goes on requesting once it has shown its text
    is read as it stood, whatever the machine's load)."""
    return (
        "<script>fetch(%s).then(function(r){return r.json()}).then(function(d){"
        "var a=document.createElement('article');a.innerHTML='<h1>'+d.title+'</h1><p>'+d.text+'</p>';"
        "document.getElementById('root').appendChild(a);%s});</script>" % (json.dumps(article_path), then)
    )


PAGES = {
    # a client-rendered app: a known mount point, no page data (the static read says needs_javascript)
    "/app/shell": '<!DOCTYPE html><html><head><title>Shell</title></head><body><div id="root"></div>%s</body></html>'
    % _builder("/api/article?id=shell"),
    # a near-empty page with a script and no known mount point (the static read marks it script_built)
    "/app/bare": "<html><head><title>Bare</title></head><body><div id=root></div>"
    '<script src="/static/app.js"></script></body></html>',
    # builds its text, then keeps a request open forever and polls: it never settles
    "/app/forever": '<html><head><title>Forever</title></head><body><div id="root"></div>%s</body></html>'
    % _builder(
        "/api/article?id=forever",
        "fetch('/api/hang');setInterval(function(){fetch('/api/tick')},100);",
    ),
    # a script the page waits for that never arrives: the load event never fires
    "/app/never-loads": '<html><head><title>Never</title></head><body><div id="root"></div>%s'
    '<script src="/static/hang.js"></script></body></html>' % _builder("/api/article?id=never"),
    # builds its text, then asks for far more than a page may; a request that never ends
    # keeps it from looking built before its requests go out (a loaded machine can take
    # longer than the renderer's idle wait between the article's answer and the next fetch)
    "/app/greedy": '<html><head><title>Greedy</title></head><body><div id="root"></div>'
    "<script>fetch('/api/hang')</script>%s</body></html>"
    % _builder("/api/article?id=greedy", "for(var i=0;i<1000;i++){fetch('/api/tick?n='+i)}"),
    # dialogs and popups before the text is built
    "/app/dialogs": '<html><head><title>Dialogs</title></head><body><div id="root"></div><script>'
    "alert('hello');confirm('sure?');prompt('name?');window.open('/popup/opened');"
    "window.onbeforeunload=function(){return 'stay'};</script>%s</body></html>" % _builder("/api/article?id=dialogs"),
}

APP_JS = (
    "fetch('/api/article?id=bare').then(function(r){return r.json()}).then(function(d){"
    "var a=document.createElement('article');a.innerHTML='<h1>'+d.title+'</h1><p>'+d.text+'</p>';"
    "document.getElementById('root').appendChild(a);});"
)


def probe_page(target):
    """A page that builds its text and also tries every way a script has to reach ``target``."""
    t = json.dumps(target)
    ws = json.dumps(target.replace("http://", "ws://", 1) + "/ws")
    return (
        '<html><head><title>Probe</title></head><body><div id="root"></div>'
        "<img src=%s><iframe src=%s></iframe>"
        "<script>fetch(%s + '/fetch').catch(function(){});"
        "try{var x=new XMLHttpRequest();x.open('GET',%s + '/xhr');x.send()}catch(e){}"
        "try{new WebSocket(%s)}catch(e){}"
        "try{navigator.sendBeacon(%s + '/beacon','x')}catch(e){}"
        "try{new Worker(URL.createObjectURL(new Blob(['fetch(' + JSON.stringify(%s + '/worker') + ')'])))}catch(e){}"
        "</script>%s</body></html>"
        % (
            json.dumps(target + "/img"),
            json.dumps(target + "/iframe"),
            t,
            t,
            ws,
            t,
            t,
            _builder("/api/article?id=probe"),
        )
    )


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_POST(self):
        self.do_GET()

    def do_GET(self):
        parts = urlsplit(self.path)
        path = parts.path
        self.server.app.hits[path] += 1
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if path == "/api/hang" or path == "/static/hang.js":
            time.sleep(120)
            return
        if path == "/api/article":
            body = json.dumps({"title": "Rendered %s" % query.get("id", "page"), "text": ARTICLE})
            return self._send(200, "application/json", body)
        if path == "/api/tick":
            return self._send(200, "application/json", '{"tick": %d}' % time.time_ns())
        if path == "/static/app.js":
            return self._send(200, "application/javascript", APP_JS)
        if path.startswith("/static/page-"):
            return self._send(200, "text/html; charset=utf-8", STATIC % {"n": path.rsplit("-", 1)[1]})
        if path == "/app/probe":
            return self._send(200, "text/html; charset=utf-8", probe_page(query["target"]))
        if path in PAGES:
            return self._send(200, "text/html; charset=utf-8", PAGES[path])
        self._send(404, "text/plain", "not found")

    def _send(self, status, ctype, body):
        data = body.encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass


class AppServer:
    def __init__(self):
        self.hits = Counter()
        self._server = None

    @property
    def base(self):
        return "http://127.0.0.1:%d" % self._server.server_port

    def url(self, path):
        return self.base + path

    def start(self):
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.app = self
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self):
        self._server.shutdown()
        self._server.server_close()
