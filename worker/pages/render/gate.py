"""The browser's only way out: a local proxy that applies the private-address guard.

Chromium is started with ``--proxy-server`` pointing here and ``<-loopback>`` in its
bypass list, so every connection a page makes (documents, scripts, XHR, redirects,
iframes, workers, websockets) arrives as a CONNECT or an absolute-URI request.  Each
is checked like a plain fetch's hop (worker.pages.net.guard): the host is resolved
here, every address must be public unless ``allow_private``, and the connection goes
to the vetted address itself, so the browser never resolves a name and a second
lookup cannot swap in another address.  When the user has an HTTP(S)_PROXY the
connection goes on through it, as the worker's own client does.

A refused request gets a 403 and never leaves the machine; ``refused`` keeps what
was refused.  ``max_bytes`` bounds what all pages of one browser may download.
"""

from __future__ import annotations

import socket
import threading

from ...errors import WorkerError
from ..net import guard, proxy

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

MAX_HEAD = 64 * 1024
CONNECT_TIMEOUT = 10.0


class Gate:
    def __init__(self, allow_private: bool, max_bytes: int, max_connections: int) -> None:
        self.allow_private = allow_private
        self.max_bytes = max_bytes
        self.max_connections = max_connections
        self.bytes = 0
        self.connections = 0
        self.refused: list[str] = []
        self._lock = threading.Lock()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self.port = self._sock.getsockname()[1]
        self._closed = False
        threading.Thread(target=self._accept_loop, name="render-gate", daemon=True).start()

    @property
    def address(self) -> str:
        return "http://127.0.0.1:%d" % self.port

    def close(self) -> None:
        self._closed = True
        try:
            self._sock.close()
        except OSError:
            pass

    def _accept_loop(self) -> None:
        while not self._closed:
            try:
                client, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), name="render-gate-conn", daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        upstream = None
        try:
            client.settimeout(30.0)
            got = _read_head(client)
            if got is None:
                return
            head, body = got
            line, _, header_block = head.partition(b"\r\n")
            method, target, version = (line.decode("latin-1").split(" ") + ["", ""])[:3]
            with self._lock:
                self.connections += 1
                over = self.connections > self.max_connections
            if over:
                self._refuse(client, target, "the page made more than %d connections" % self.max_connections)
                return
            try:
                if method == "CONNECT":
                    host, port = _split_hostport(target, 443)
                    upstream = self._open(host, port, "https", tunnel=True)[0]
                    client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    first = body
                else:
                    scheme, host, port, path = guard.check_url(target)
                    upstream, auth = self._open(host, port, scheme, tunnel=False)
                    # One request per connection: the browser may send the next one for another host.
                    lines = _without(
                        header_block, (b"proxy-connection", b"connection", b"keep-alive", b"proxy-authorization")
                    )
                    if auth:
                        lines += ("Proxy-Authorization: %s\r\n" % auth).encode("latin-1")
                    sent = target if auth is not None else path
                    first = ("%s %s %s\r\n" % (method, sent, version)).encode("latin-1") + lines
                    first += b"Connection: close\r\n\r\n" + body
            except WorkerError as exc:
                self._refuse(client, target, exc.message)
                return
            except OSError as exc:
                _answer(client, 502, "the gate could not reach %s: %s" % (target, exc.strerror or exc))
                return
            if first:
                upstream.sendall(first)
            self._pipe(client, upstream)
        except OSError:
            pass
        finally:
            for s in (client, upstream):
                if s is not None:
                    try:
                        s.close()
                    except OSError:
                        pass

    def _refuse(self, client: socket.socket, target: str, why: str) -> None:
        with self._lock:
            if len(self.refused) < 50:
                self.refused.append("%s (%s)" % (target[:200], why))
        _answer(client, 403, why)

    def _open(self, host: str, port: int, scheme: str, tunnel: bool) -> tuple[socket.socket, str | None]:
        """(connection, None) to the vetted address of host:port, or (connection, the proxy's
        authorization, "" for none) through the user's proxy; WorkerError if refused."""
        host = host.strip("[]").lower().rstrip(".")
        via = proxy.proxy_for(scheme, host, port)
        if via is None:
            addresses = guard.vet_addresses(host, guard.resolve(host, port, CONNECT_TIMEOUT), self.allow_private)
            return socket.create_connection((addresses[0], port), timeout=CONNECT_TIMEOUT), None
        try:  # as worker.pages.net.client: a name only the proxy can resolve is left to it
            addresses = guard.resolve(host, port, 2.0)
        except WorkerError:
            addresses = []
        guard.vet_addresses(host, addresses, self.allow_private)
        phost, pport, auth = via
        sock = socket.create_connection((phost, pport), timeout=CONNECT_TIMEOUT)
        if tunnel:
            shown = "[%s]:%d" % (host, port) if ":" in host else "%s:%d" % (host, port)
            request = "CONNECT %s HTTP/1.1\r\nHost: %s\r\n" % (shown, shown)
            if auth:
                request += "Proxy-Authorization: %s\r\n" % auth
            sock.sendall((request + "\r\n").encode("latin-1"))
            answer = _read_head(sock)
            if answer is None or answer[0].split(b" ", 2)[1:2] != [b"200"]:
                sock.close()
                raise OSError(0, "the proxy refused the tunnel")
        return sock, auth or ""

    def _pipe(self, a: socket.socket, b: socket.socket) -> None:
        """Copy both ways until either side closes or the byte budget is spent."""
        a.settimeout(None)
        b.settimeout(None)

        def copy(src: socket.socket, dst: socket.socket, counted: bool) -> None:
            try:
                while True:
                    data = src.recv(65536)
                    if not data:
                        break
                    if counted:
                        with self._lock:
                            self.bytes += len(data)
                            spent = self.bytes > self.max_bytes
                        if spent:
                            break
                    dst.sendall(data)
            except OSError:
                pass
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

        other = threading.Thread(target=copy, args=(a, b, False), name="render-gate-up", daemon=True)
        other.start()
        copy(b, a, True)
        other.join(5.0)


def _read_head(sock: socket.socket) -> tuple[bytes, bytes] | None:
    """(the request or answer head without its blank line, what came after it), or None."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk or len(data) > MAX_HEAD:
            return None
        data += chunk
    head, _, extra = data.partition(b"\r\n\r\n")
    return head, extra


def _without(block: bytes, names: tuple[bytes, ...]) -> bytes:
    """The header lines of ``block``, each ending in CRLF, without the named headers."""
    kept = [line for line in block.split(b"\r\n") if line and line.split(b":", 1)[0].strip().lower() not in names]
    return b"".join(line + b"\r\n" for line in kept)


def _split_hostport(target: str, default: int) -> tuple[str, int]:
    host, sep, port = target.rpartition(":")
    if not sep or "]" in port:
        return target, default
    try:
        return host, int(port)
    except ValueError:
        raise WorkerError("invalid_url", "bad CONNECT target %r" % target[:200]) from None


def _answer(client: socket.socket, status: int, why: str) -> None:
    reason = {403: "Forbidden", 502: "Bad Gateway"}.get(status, "Error")
    body = (why + "\n").encode("utf-8", "replace")
    try:
        client.sendall(
            b"HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
            % (status, reason.encode(), len(body))
            + body
        )
    except OSError:
        pass


def stats(gate: Gate) -> dict[str, Any]:
    return {"connections": gate.connections, "bytes": gate.bytes, "refused": list(gate.refused)}
