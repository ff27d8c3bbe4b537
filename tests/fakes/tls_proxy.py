"""A local HTTPS-intercepting proxy for tests: CONNECT in, TLS with a test CA, canned pages out.

The worker's ddgs engines (and primp under them) take the proxy from
``HTTPS_PROXY`` and trust the CA from ``SSL_CERT_FILE``, so the real engine
code builds the real request, sends it through a real TLS connection and parses
whatever page we answer with.  Nothing in the worker is patched.

    proxy = TlsProxy(ca_dir)                   # trustme CA, leaf certs per host
    proxy.route("html.duckduckgo.com", body=page)
    proxy.route("search.brave.com", status=429)
    proxy.route("www.mojeek.com", hang=True)   # accept, never answer
    env["HTTPS_PROXY"] = proxy.url; env["SSL_CERT_FILE"] = proxy.ca_file
    proxy.requests                             # what each engine asked for

Hosts with no route answer 503.  Leaf certificates are signed by the test CA
(never self-signed): clients with proper chain validation accept them.
"""

import os
import socket
import ssl
import threading
import time
from urllib.parse import parse_qs, urlsplit

from fakes.listening import close_listener


class Route:
    def __init__(self, status=200, body=b"", headers=None, delay=0.0, hang=False, close=False):
        self.status = status
        self.body = body.encode("utf-8") if isinstance(body, str) else body
        self.headers = dict(headers or {})
        self.delay = delay
        self.hang = hang  # keep the connection open and never answer
        self.close = close  # drop the connection without an answer


class Request:
    """One request the proxy saw, decoded for assertions."""

    def __init__(self, host, method, target, headers, body):
        self.host = host
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        parts = urlsplit(target)
        self.path = parts.path
        self.query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        form = {}
        if method == "POST" and body:
            form = {k: v[-1] for k, v in parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).items()}
        self.form = form

    @property
    def params(self):
        """Query string and form fields together (engines use GET or POST)."""
        merged = dict(self.query)
        merged.update(self.form)
        return merged

    def __repr__(self):
        return "Request(%s %s %s %r)" % (self.method, self.host, self.path, self.params)


class TlsProxy:
    def __init__(self, ca_dir):
        import trustme

        self.ca = trustme.CA()
        self.ca_file = os.path.join(str(ca_dir), "test-ca.pem")
        self.ca.cert_pem.write_to_path(self.ca_file)
        self.routes = {}
        self.requests = []
        self.connects = []  # CONNECT targets, in order
        self._contexts = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._conns = set()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.url = "http://127.0.0.1:%d" % self.port
        self._thread = threading.Thread(target=self._serve, name="tls-proxy", daemon=True)
        self._thread.start()

    # -- configuration -------------------------------------------------------
    def route(self, host, **kw):
        with self._lock:
            self.routes[host] = Route(**kw)

    def reset(self):
        """Forget routes and recorded requests (between tests sharing one proxy)."""
        with self._lock:
            self.routes.clear()
            self.requests.clear()
            self.connects.clear()

    def env(self):
        """Environment entries that send a client through this proxy."""
        return {
            "HTTPS_PROXY": self.url,
            "https_proxy": self.url,
            "SSL_CERT_FILE": self.ca_file,
            "NO_PROXY": "",
            "no_proxy": "",
        }

    def requests_for(self, host):
        with self._lock:
            return [r for r in self.requests if r.host == host]

    def close(self):
        self._stop.set()
        close_listener(self.sock, self._thread)  # the serving thread first: see fakes/listening.py
        with self._lock:
            conns = list(self._conns)
        for c in conns:
            try:
                c.close()
            except OSError:
                pass

    # -- serving ---------------------------------------------------------------
    def _context(self, host):
        with self._lock:
            ctx = self._contexts.get(host)
            if ctx is None:
                ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                ctx.set_alpn_protocols(["http/1.1"])  # browsers offer h2 too; keep it HTTP/1.1
                self.ca.issue_cert(host).configure_cert(ctx)
                self._contexts[host] = ctx
            return ctx

    def _serve(self):
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self._lock:
                self._conns.add(conn)
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn):
        try:
            conn.settimeout(30)
            head, rest = _read_head(conn)
            if head is None:
                return
            line = head.split(b"\r\n", 1)[0].decode("latin-1")
            method, target, _ = (line.split(" ") + ["", ""])[:3]
            if method != "CONNECT":
                conn.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return
            host = target.rsplit(":", 1)[0]
            with self._lock:
                self.connects.append(target)
            conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            tls = self._context(host).wrap_socket(conn, server_side=True)
            with self._lock:
                self._conns.add(tls)
            self._serve_tls(tls, host)
        except (OSError, ssl.SSLError, ValueError):
            pass
        finally:
            try:
                conn.close()
            except OSError:
                pass

    def _serve_tls(self, tls, host):
        buf = b""
        while not self._stop.is_set():
            head, buf = _read_head(tls, buf)
            if head is None:
                return
            lines = head.decode("latin-1").split("\r\n")
            method, target = lines[0].split(" ")[:2]
            headers = {}
            for h in lines[1:]:
                if ":" in h:
                    k, v = h.split(":", 1)
                    headers[k.strip().lower()] = v.strip()
            length = int(headers.get("content-length") or 0)
            while len(buf) < length:
                chunk = tls.recv(65536)
                if not chunk:
                    return
                buf += chunk
            body, buf = buf[:length], buf[length:]
            with self._lock:
                self.requests.append(Request(host, method, target, headers, body))
                route = self.routes.get(host) or Route(status=503, body=b"no route")
            if route.hang:
                self._stop.wait(120)
                return
            if route.close:
                return
            if route.delay:
                time.sleep(route.delay)
            out = ["HTTP/1.1 %d X" % route.status, "Content-Length: %d" % len(route.body)]
            hdrs = {"Content-Type": "text/html; charset=utf-8"}
            hdrs.update(route.headers)
            out += ["%s: %s" % kv for kv in hdrs.items()]
            tls.sendall(("\r\n".join(out) + "\r\n\r\n").encode("latin-1") + route.body)


def _read_head(sock, buf=b""):
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            return None, b""
        buf += chunk
        if len(buf) > 1 << 20:
            raise ValueError("request head too large")
    head, rest = buf.split(b"\r\n\r\n", 1)
    return head, rest
