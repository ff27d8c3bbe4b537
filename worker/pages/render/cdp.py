"""The DevTools protocol over the browser's pipe (``--remote-debugging-pipe``).

Chromium reads commands on its fd 3 and writes answers and events on fd 4, one
JSON message per NUL-terminated record.  A pipe instead of a websocket: no
port for another local process to reach, no websocket library, and the browser
sees end-of-file the moment this process dies however it dies, and exits.

One reader thread parses messages: an answer wakes the ``send`` waiting for it,
an event goes to the handler registered for its session (``""``: the browser's).
Handlers run on the reader thread and must only hand work on.
"""

from __future__ import annotations

import json
import os
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any, Callable

    Handler = Callable[[str, dict[str, Any]], None]

MAX_MESSAGE = 64 * 1024 * 1024  # a page's DOM comes back in one message


class CdpError(Exception):
    """The browser answered a command with an error, or the pipe closed before it answered."""


class Connection:
    def __init__(self, read_fd: int, write_fd: int) -> None:
        self._read_fd = read_fd
        self._write_fd = write_fd
        self._write_lock = threading.Lock()
        self._lock = threading.Lock()
        self._next_id = 0
        self._waiting: dict[int, list[Any]] = {}  # id -> [Event, answer]
        self._handlers: dict[str, Handler] = {}
        self.closed = threading.Event()
        threading.Thread(target=self._read_loop, name="cdp-reader", daemon=True).start()

    def on(self, session: str, handler: Handler | None) -> None:
        """Events of ``session`` ("" for the browser's own) go to ``handler(method, params)``."""
        with self._lock:
            if handler is None:
                self._handlers.pop(session, None)
            else:
                self._handlers[session] = handler

    def post(self, method: str, params: dict[str, Any] | None = None, session: str = "") -> int:
        """Send a command without waiting for its answer; its id."""
        with self._lock:
            self._next_id += 1
            ident = self._next_id
        self._write(ident, method, params, session)
        return ident

    def send(
        self, method: str, params: dict[str, Any] | None = None, session: str = "", timeout: float = 10.0
    ) -> dict[str, Any]:
        """The command's result; CdpError on an error answer, a closed pipe or no answer within ``timeout``."""
        box: list[Any] = [threading.Event(), None]
        with self._lock:
            self._next_id += 1
            ident = self._next_id
            self._waiting[ident] = box
        try:
            self._write(ident, method, params, session)
            if not box[0].wait(max(0.0, timeout)):
                raise CdpError("%s: no answer within %.1fs" % (method, timeout))
        finally:
            with self._lock:
                self._waiting.pop(ident, None)
        answer = box[1]
        if answer is None:
            raise CdpError("%s: the browser closed the connection" % method)
        if "error" in answer:
            raise CdpError("%s: %s" % (method, (answer["error"] or {}).get("message", "error")))
        result: dict[str, Any] = answer.get("result") or {}
        return result

    def _write(self, ident: int, method: str, params: dict[str, Any] | None, session: str) -> None:
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message, separators=(",", ":")).encode("utf-8") + b"\0"
        with self._write_lock:
            if self.closed.is_set():
                raise CdpError("%s: the browser closed the connection" % method)
            try:
                while data:
                    data = data[os.write(self._write_fd, data) :]
            except OSError as exc:
                self._shut()
                raise CdpError("%s: the browser closed the connection (%s)" % (method, exc.strerror)) from None

    def _read_loop(self) -> None:
        buf = bytearray()
        try:
            while True:
                chunk = os.read(self._read_fd, 1 << 20)
                if not chunk:
                    return
                buf += chunk
                if len(buf) > MAX_MESSAGE:
                    return
                while True:
                    end = buf.find(b"\0")
                    if end < 0:
                        break
                    raw = bytes(buf[:end])
                    del buf[: end + 1]
                    self._dispatch(raw)
        except OSError:
            return
        finally:
            self._shut()

    def _dispatch(self, raw: bytes) -> None:
        try:
            message = json.loads(raw)
        except ValueError:
            return
        ident = message.get("id")
        if ident is not None:
            with self._lock:
                box = self._waiting.get(ident)
            if box is not None:
                box[1] = message
                box[0].set()
            return
        with self._lock:
            handler = self._handlers.get(message.get("sessionId") or "")
        if handler is not None:
            try:
                handler(message.get("method") or "", message.get("params") or {})
            except Exception:  # a handler's bug must not stop the reader: every later answer would hang
                pass

    def _shut(self) -> None:
        self.closed.set()
        with self._lock:
            boxes = list(self._waiting.values())
        for box in boxes:
            box[0].set()  # answer None: "the browser closed the connection"

    def close(self) -> None:
        self._shut()
        for fd in (self._write_fd, self._read_fd):
            try:
                os.close(fd)
            except OSError:
                pass
