"""A hostile server on 127.0.0.1: one catalogue of misbehaviours for pages, Brave and Exa.

Everything a careless or malicious server can say that the worker must turn
into one honest block: bad numbers in headers, charsets naming codecs that are
not text encodings, broken redirects, bombs, slow drips, lying lengths, bad JSON
for the API fakes (NaN, Infinity, 100,000-deep nesting, keys echoed back).

    server = HostileServer().start()
    server.url("/page/retry-after-huge-429")       a page behaviour (fetch)
    server.brave_base("nan-body")                   a baseUrl for a Brave provider entry
    server.exa_base("infinity")                     a baseUrl for an Exa provider entry
    PAGES, BRAVE, EXA                               the catalogue's names

Raw sockets, not http.server's helpers, so a response can break HTTP itself.
"""

import json
import socket
import threading
import time
import zlib

from fakes.listening import close_listener

KEY = "hostile-key-5f3b9c2a7e1d4086"  # the API key every provider entry uses; it must never come back out

ARTICLE = (
    "<!DOCTYPE html><html><head><title>Hostile page</title></head><body><article><h1>Hostile page</h1>"
    + "<p>This page has ordinary text in several sentences so that an extractor keeps it. " * 8
    + "</p></article></body></html>"
)
CJK = (
    "<!DOCTYPE html><html><head><meta charset='utf-8'><title>\u4e2d\u6587</title></head><body><article>"
    "<h1>\u4e2d\u6587\u9875\u9762</h1>"
    + "<p>\u8fd9\u662f\u4e00\u4e2a\u4e2d\u6587\u7f51\u9875\u3002</p>" * 10
    + "</article></body></html>"
)
DIGITS_400 = "9" * 400


def _head(status, headers, reason="X"):
    lines = ["HTTP/1.1 %s %s" % (status, reason)] + ["%s: %s" % kv for kv in headers] + ["Connection: close", "", ""]
    return "\r\n".join(lines).encode("latin-1")


def page(status=200, body=ARTICLE, ctype="text/html; charset=utf-8", headers=(), length=True):
    data = body.encode("utf-8") if isinstance(body, str) else body
    hs = ([("Content-Type", ctype)] if ctype else []) + list(headers)
    if length:
        hs.append(("Content-Length", str(len(data))))
    return _head(status, hs) + data


def charset_page(where, label):
    body = ARTICLE
    ctype = "text/html"
    if where == "header":
        ctype = "text/html; charset=%s" % label
    elif where == "meta":
        body = ARTICLE.replace("<head>", "<head><meta charset='%s'>" % label)
    else:  # an XML declaration
        body = '<?xml version="1.0" encoding="%s"?>' % label + ARTICLE.replace("<!DOCTYPE html>", "")
        ctype = "application/xhtml+xml" if where == "xml" else "application/xml"
    return page(body=body, ctype=ctype)


def _bomb(mb):
    co = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b"\0" * (1 << 20)
    return b"".join([co.compress(block) for _ in range(mb)] + [co.flush()])


def _nested(depth):
    return "[" * depth + "]" * depth


# -- pages: name -> bytes to send, or a callable(sock) that does the sending ----------------

PAGES = {
    "ok": page(),
    "cjk": page(body=CJK),
    "empty-200": page(body=b""),
    "retry-after-huge-404": page(404, "gone", "text/plain", [("Retry-After", DIGITS_400)]),
    "retry-after-huge-429": page(429, "slow", "text/plain", [("Retry-After", DIGITS_400)]),
    "retry-after-huge-503": page(503, "down", "text/plain", [("Retry-After", DIGITS_400)]),
    "retry-after-superscript": page(
        429, "slow", "text/plain", [("Retry-After", "\u00b2".encode("utf-8").decode("latin-1"))]
    ),
    "retry-after-nan": page(503, "down", "text/plain", [("Retry-After", "nan")]),
    "retry-after-inf": page(429, "slow", "text/plain", [("Retry-After", "inf")]),
    "retry-after-1e400": page(429, "slow", "text/plain", [("Retry-After", "1e400")]),
    "retry-after-negative": page(429, "slow", "text/plain", [("Retry-After", "-5")]),
    "retry-after-bad-date": page(503, "down", "text/plain", [("Retry-After", "Mon, 99 Foo 99999 99:99:99 GMT")]),
    "content-length-superscript": _head(
        200, [("Content-Type", "text/html"), ("Content-Length", "\u00b2".encode("utf-8").decode("latin-1"))]
    )
    + ARTICLE.encode(),
    "content-length-huge": _head(200, [("Content-Type", "application/pdf"), ("Content-Length", DIGITS_400)])
    + b"%PDF-1.4",
    "content-length-negative": _head(200, [("Content-Type", "text/html"), ("Content-Length", "-10")])
    + ARTICLE.encode(),
    "content-length-lies": _head(200, [("Content-Type", "text/html"), ("Content-Length", "100000")]) + b"<p>short",
    "charset-header-rot13": charset_page("header", "rot13"),
    "charset-header-base64": charset_page("header", "base64"),
    "charset-header-zlib": charset_page("header", "zlib"),
    "charset-header-idna": charset_page("header", "idna"),
    "charset-header-undefined": charset_page("header", "undefined"),
    "charset-header-long": charset_page("header", "x" * 5000),
    "charset-meta-hex": charset_page("meta", "hex"),
    "charset-meta-uu": charset_page("meta", "uu"),
    "charset-meta-idna": charset_page("meta", "idna"),
    "charset-meta-punycode": charset_page("meta", "punycode"),
    "charset-meta-utf16": charset_page("meta", "utf-16"),
    "charset-xml-base64": charset_page("xml", "base64"),
    "charset-xml-rot13": charset_page("xml-text", "rot13"),
    "charset-xml-unicode-escape": charset_page("xml-text", "unicode_escape"),
    "redirect-bad-ipv6": page(302, "", None, [("Location", "http://[::1:80/x")]),
    "redirect-empty": page(302, "", None, [("Location", "")]),
    "redirect-self": page(302, "", None, [("Location", "/page/redirect-self")]),
    "redirect-file": page(301, "", None, [("Location", "file:///etc/passwd")]),
    "redirect-javascript": page(302, "", None, [("Location", "javascript:alert(1)")]),
    "redirect-credentials": page(302, "", None, [("Location", "http://user:pass@127.0.0.1/")]),
    "redirect-metadata": page(302, "", None, [("Location", "http://169.254.169.254/latest/meta-data/")]),
    "redirect-port-zero": page(302, "", None, [("Location", "http://127.0.0.1:0/")]),
    "redirect-port-huge": page(302, "", None, [("Location", "http://127.0.0.1:99999999/")]),
    "redirect-latin1": page(302, "", None, [("Location", "/caf\u00e9/\u00ff")]),
    "gzip-bomb": page(body=_bomb(40), headers=[("Content-Encoding", "gzip")]),
    "gzip-corrupt": page(body=b"\x1f\x8b\x08\x00garbage-not-gzip" * 10, headers=[("Content-Encoding", "gzip")]),
    "deflate-corrupt": page(body=b"\x78\x9cnot deflate at all", headers=[("Content-Encoding", "deflate")]),
    "encoding-unknown": page(body=b"xx", headers=[("Content-Encoding", "br, zstd, x-evil")]),
    "status-garbage": b"HTTP/1.1 abc NOPE\r\n\r\nhello",
    "status-999": page(999, "odd"),
    "status-204": _head(204, []),
    "not-http": b"SSH-2.0-OpenSSH_9.0\r\n",
    "header-line-too-long": _head(200, [("X-Long", "a" * 70000)]) + b"x",
    "too-many-headers": _head(200, [("X-H%d" % i, "v") for i in range(150)]) + b"x",
    "header-non-latin": _head(200, [("Content-Type", "text/html; charset=\u00ff\u00fe")]) + ARTICLE.encode(),
    "nul-bytes-html": page(body=ARTICLE.encode().replace(b"<p>", b"<p>\x00\x00")),
    "invalid-utf8-html": page(body=ARTICLE.encode() + b"\xff\xfe\xc3\x28\xa0\xa1" * 100),
    "binary-as-html": page(body=bytes(range(256)) * 64),
    "markers-in-body": page(body=ARTICLE.replace("<h1>", '<h1>SEARCH_DONE\nSEARCH_OK\n{"ok":true}\nSEARCH_ERROR ')),
    "deep-nesting": page(body="<html><body>" + "<div>" * 5000 + "deep" + "</div>" * 5000 + "</body></html>"),
    "pdf-garbage": page(body=b"%PDF-1.7\n" + b"\x00garbage" * 500, ctype="application/pdf"),
    "json-nan": page(body='{"a": NaN, "b": Infinity, "c": [-Infinity]}', ctype="application/json"),
    "json-deep": page(body=_nested(100000), ctype="application/json"),
    "surrogate-escapes": page(body="<p>\\ud800 \\udfff &#xd800; &#55296; &#0; &#x110000;</p>" + ARTICLE),
}


def _drip(sock):
    sock.sendall(_head(200, [("Content-Type", "text/html")]) + b"<html><body><p>")
    for _ in range(600):
        time.sleep(0.1)
        sock.sendall(b"a")


def _drip_headers(sock):
    sock.sendall(b"HTTP/1.1 200 OK\r\n")
    for _ in range(600):
        time.sleep(0.1)
        sock.sendall(b"X-Drip: a\r\n")


def _silent(sock):
    time.sleep(60)


def _reset(sock):
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")


PAGES.update({"drip-body": _drip, "drip-headers": _drip_headers, "silent": _silent, "reset": _reset})


# -- Brave: name -> bytes answering GET /res/v1/web/search (the request's token is echoed where asked) ----


def _json(status, body, headers=(), raw=None):
    data = raw if raw is not None else json.dumps(body).encode()
    return page(status, data, "application/json", headers)


_RESULT = {"title": "T", "url": "https://example.org/a", "description": "d"}
BRAVE = {
    "ok": lambda key: _json(200, {"web": {"results": [_RESULT]}}),
    "nan-body": lambda key: _json(
        200,
        None,
        raw=b'{"web": {"results": [{"title": NaN, "url": "https://e.org/", '
        b'"description": Infinity, "page_age": -Infinity}]}, "x": NaN}',
    ),
    "deep-body": lambda key: _json(200, None, raw=_nested(100000).encode()),
    "deep-error": lambda key: _json(500, None, raw=('{"error": ' + _nested(100000) + "}").encode()),
    "not-object": lambda key: _json(200, [1, 2, 3]),
    "reset-inf": lambda key: _json(
        429, {"error": {"id": "x"}}, [("X-RateLimit-Reset", "inf, nan"), ("X-RateLimit-Remaining", "0, 0")]
    ),
    "reset-nan": lambda key: _json(
        429, {"error": {}}, [("X-RateLimit-Reset", "nan"), ("X-RateLimit-Remaining", "nan")]
    ),
    "reset-huge": lambda key: _json(429, {}, [("X-RateLimit-Reset", DIGITS_400), ("X-RateLimit-Remaining", "0")]),
    "retry-after-huge": lambda key: _json(429, {}, [("Retry-After", DIGITS_400)]),
    "retry-after-superscript": lambda key: _json(429, {}, [("Retry-After", "\u00b2".encode().decode("latin-1"))]),
    "echo-key-request-id": lambda key: _json(200, {"web": {"results": [_RESULT]}}, [("X-Request-Id", "req-" + key)]),
    "echo-key-error-id": lambda key: _json(401, {"error": {"id": key, "detail": "bad token " + key}}),
    "echo-key-429": lambda key: _json(429, {"error": {"id": "id-" + key}}, [("X-Request-Id", key)]),
    "gzip-lies": lambda key: page(200, b"not gzip at all", "application/json", [("Content-Encoding", "gzip")]),
    "huge-number": lambda key: _json(
        200, None, raw=b'{"web": {"results": [{"title": 1e400, "url": "https://e.org/"}]}}'
    ),
}

# -- Exa: name -> bytes answering POST /search and /contents ------------------------------------

_EXA_RESULT = {
    "id": "https://example.org/x",
    "url": "https://example.org/x",
    "title": "X",
    "score": 0.5,
    "text": "Exa text for the page.",
    "publishedDate": "2025-01-01",
}
EXA = {
    "ok": lambda key: _json(
        200,
        {
            "requestId": "r1",
            "results": [_EXA_RESULT],
            "statuses": [{"id": "https://example.org/x", "status": "success"}],
        },
    ),
    "nan": lambda key: _json(
        200,
        None,
        raw=(
            '{"requestId": "r", "results": [{"id": "https://example.org/x", "url": '
            '"https://example.org/x", "title": "t", "score": NaN, "text": "x"}], '
            '"statuses": [{"id": "https://example.org/x", "status": "success"}], '
            '"costDollars": {"total": NaN}, "searchTime": Infinity}'
        ).encode(),
    ),
    "infinity": lambda key: _json(200, None, raw=b'{"requestId": Infinity, "results": [], "searchTime": -Infinity}'),
    "deep": lambda key: _json(200, None, raw=('{"results": [], "x": ' + _nested(100000) + "}").encode()),
    "deep-960": lambda key: _json(200, None, raw=('{"results": [], "x": ' + _nested(960) + "}").encode()),
    "not-object": lambda key: _json(200, "a string"),
    "retry-after-huge": lambda key: _json(429, {"error": "slow"}, [("Retry-After", DIGITS_400)]),
    "retry-after-nan": lambda key: _json(429, {"error": "slow"}, [("Retry-After", "nan")]),
    "echo-key-request-id": lambda key: _json(
        200,
        {
            "requestId": "req-" + key,
            "results": [_EXA_RESULT],
            "statuses": [{"id": "https://example.org/x", "status": "success"}],
        },
    ),
    "echo-key-error": lambda key: _json(401, {"error": "Invalid API key %s" % key, "requestId": key}),
    "results-not-list": lambda key: _json(200, {"requestId": "r", "results": {"a": 1}, "statuses": "x"}),
    "html": lambda key: page(200, "<html>maintenance</html>"),
}


class HostileServer:
    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        self.requests = []
        self._stop = False

    def start(self):
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stop = True
        close_listener(self.sock, self._thread)  # the serving thread first: see fakes/listening.py

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.port, path)

    def brave_base(self, name):
        return self.url("/brave/" + name)

    def exa_base(self, name):
        return self.url("/exa/" + name)

    def _serve(self):
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn):
        try:
            conn.settimeout(10)
            head = b""
            while b"\r\n\r\n" not in head and len(head) < 65536:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                head += chunk
            request, _, rest = head.partition(b"\r\n\r\n")
            lines = request.decode("latin-1").split("\r\n")
            method, target = lines[0].split(" ")[:2]
            headers = {}
            for line in lines[1:]:
                k, _, v = line.partition(":")
                headers[k.strip().lower()] = v.strip()
            length = int(headers.get("content-length") or 0)
            while len(rest) < length:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                rest += chunk
            self.requests.append((method, target, headers))
            self._respond(conn, target, headers)
        except OSError:
            pass
        finally:
            try:
                conn.close()
            except OSError:
                pass

    def _respond(self, conn, target, headers):
        path = target.split("?", 1)[0]
        parts = path.strip("/").split("/")
        key = headers.get("x-subscription-token") or headers.get("x-api-key") or ""
        if parts[0] == "page" and len(parts) >= 2 and parts[1] in PAGES:
            behaviour = PAGES[parts[1]]
        elif parts[0] == "brave" and len(parts) >= 2 and parts[1] in BRAVE:
            behaviour = BRAVE[parts[1]](key)
        elif parts[0] == "exa" and len(parts) >= 2 and parts[1] in EXA:
            behaviour = EXA[parts[1]](key)
        else:
            behaviour = page(404, "no such behaviour: %s" % path, "text/plain")
        if callable(behaviour):
            behaviour(conn)
        else:
            conn.sendall(behaviour)


if __name__ == "__main__":
    s = HostileServer().start()
    print(s.url("/page/ok"), flush=True)
    threading.Event().wait()
