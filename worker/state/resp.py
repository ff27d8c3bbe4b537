"""A minimal Redis client: one blocking connection speaking RESP2, pipelined.

Why not redis-py: importing it costs 100-450 ms on the 2-core machine (it loads
asyncio, concurrent.futures and importlib.metadata at import), more than a whole
SQLite cache hit; a hit through Redis must cost about one network round trip
more than that (issue 32, docs/PERFORMANCE.md).  The shared state needs a handful
of commands (GET/MGET, TIME, EVALSHA/EVAL, AUTH, SELECT), so this is the socket
module, ssl for ``rediss://``, and the protocol's five reply types.  Works the
same against Redis and Valkey.  (The C ``_socket`` alone saved ~3 ms a Redis hit,
under the ~5 ms a start-up trick must save: docs/PERFORMANCE.md#start-up-tricks-one-switch-issue-46.)

Every socket operation has a timeout the caller sets from the call's deadline;
any failure raises ``RespError`` (a server error reply) or ``OSError`` (the
connection: refused, reset, timed out).
"""

from __future__ import annotations

import socket

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any


class RespError(Exception):
    """An error reply from the server (``-ERR ...``, ``-NOSCRIPT ...``, ``-NOAUTH ...``)."""

    @property
    def kind(self) -> str:
        return str(self).split(" ", 1)[0]


def encode(args: tuple[Any, ...]) -> bytes:
    """One command as a RESP array of bulk strings."""
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        if isinstance(arg, bytes):
            data = arg
        elif isinstance(arg, str):
            data = arg.encode("utf-8", "surrogatepass")
        elif isinstance(arg, (int, float)) and not isinstance(arg, bool):
            data = repr(arg).encode("ascii")
        else:
            raise TypeError("a Redis argument must be bytes, str or a number, not %s" % type(arg).__name__)
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


class Connection:
    """One connection; ``pipeline`` sends commands in one write and reads their replies in order."""

    def __init__(self, sock: Any) -> None:
        self.sock = sock
        self.buf = bytearray()

    @classmethod
    def open(
        cls,
        host: str,
        port: int,
        connect_timeout: float,
        tls: bool = False,
        verify: bool = True,
        ca_file: str | None = None,
    ) -> Connection:
        if tls:
            import ssl

            raw = socket.create_connection((host, port), timeout=connect_timeout)
            try:
                ctx = ssl.create_default_context()
                if ca_file:
                    ctx.load_verify_locations(ca_file)
                if not verify:
                    ctx.check_hostname = False
                    ctx.verify_mode = ssl.CERT_NONE
                return cls(ctx.wrap_socket(raw, server_hostname=host))
            except BaseException:
                raw.close()
                raise
        # bytes: getaddrinfo would encode a str host with the idna codec (and import it) first
        name = host.encode("ascii") if host.isascii() else host
        last: OSError = OSError("no address for %s" % host)
        for family, kind, proto, _canon, address in socket.getaddrinfo(name, port, 0, socket.SOCK_STREAM):
            sock = socket.socket(family, kind, proto)
            try:
                sock.settimeout(connect_timeout)
                sock.connect(address)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                return cls(sock)
            except OSError as exc:
                sock.close()
                last = exc
        raise last

    def settimeout(self, seconds: float) -> None:
        self.sock.settimeout(seconds)

    def pipeline(self, *commands: tuple[Any, ...]) -> list[Any]:
        """The replies to ``commands``, in order; an error reply is returned as a RespError, not raised."""
        self.sock.sendall(b"".join(encode(c) for c in commands))
        return [self._read() for _ in commands]

    def call(self, *args: Any) -> Any:
        reply = self.pipeline(args)[0]
        if isinstance(reply, RespError):
            raise reply
        return reply

    def _fill(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("the Redis server closed the connection")
        self.buf += chunk

    def _line(self) -> bytes:
        while True:
            end = self.buf.find(b"\r\n")
            if end >= 0:
                line = bytes(self.buf[:end])
                del self.buf[: end + 2]
                return line
            if len(self.buf) > 1 << 16:
                raise ConnectionError("the Redis server sent a line longer than 64 KB")
            self._fill()

    def _exactly(self, n: int) -> bytes:
        while len(self.buf) < n:
            self._fill()
        data = bytes(self.buf[:n])
        del self.buf[:n]
        return data

    def _read(self) -> Any:
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode("utf-8", "replace")
        if kind == b"-":
            return RespError(rest.decode("utf-8", "replace"))
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            return self._exactly(n + 2)[:-2]
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._read() for _ in range(n)]
        raise ConnectionError("the Redis server sent a reply this client does not read (%r)" % line[:20])

    def close(self) -> None:
        try:
            self.sock.close()
        except Exception:
            pass
