"""The MCP server's first run: answer the client at once while the worker's venv installs, then hand over.

`bootstrap/run.py mcp` with no ready venv cannot start the real server (hosts/mcp/server.py
needs the MCP SDK, which the install brings), and a client waits 30-60 s at most for
``initialize``.  So the bootstrap runs this instead, on the user's own python3 (standard
library only, Python 3.9):

- ``initialize``, ``ping`` and ``tools/list`` are answered at once, ``tools/list`` with the
  list the real server gives (hosts/mcp/tools.py);
- a ``tools/call`` waits for the install, with progress notifications when the client sent a
  progressToken, and within its own ``timeout`` (what it waited is taken from the timeout
  the worker gets); a call whose time runs out first, or whose install fails, gets a tool
  error that says why, and the next call tries the install again;
- once installed, the real server starts as a child, is initialized with the client's own
  ``initialize``, and every line is relayed both ways from then on (its progress values
  continue after the ones sent here).

Nothing but JSON-RPC is written to stdout; the install's log goes to stderr.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

from hosts.mcp import tools
from worker import protocol
from worker.errors import WorkerError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO, Callable

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
INIT_ID = "websearch-worker-first-run-initialize"  # the handover's own request id: no client uses it
PROGRESS_INTERVAL_ENV = "WEBSEARCH_MCP_PROGRESS_INTERVAL"
# A call handed over with less than this left of its timeout could not do its work: it gets the error now.
MIN_WORK_S = 5.0


def _log(message: str) -> None:
    sys.stderr.write("websearch-worker mcp: %s\n" % message)
    sys.stderr.flush()


def _interval() -> float:
    try:
        value = float(os.environ.get(PROGRESS_INTERVAL_ENV) or 2.0)
    except ValueError:
        return 2.0
    return value if 0.05 <= value <= 3600 else 2.0


def initialize_result(params: Any) -> dict[str, Any]:
    from worker import __version__

    asked = params.get("protocolVersion") if isinstance(params, dict) else None
    return {
        "protocolVersion": asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1],
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": "websearch-worker", "title": "websearch-worker", "version": __version__},
        "instructions": tools.INSTRUCTIONS,
    }


def error_result(tool: str, code: str, message: str, hint: str | None = None, detail: str | None = None) -> Any:
    """A tools/call result for an error, shaped as the real server shapes one."""
    error = WorkerError(code, message, hint=hint).to_dict()
    if detail:
        error["detail"] = detail
    payload = {"ok": False, "v": protocol.VERSION, "error": error}
    return {
        "content": [{"type": "text", "text": tools.result_text(tool, payload)}],
        "structuredContent": payload,
        "isError": True,
    }


class Waiting:
    """A tools/call that arrived before the install ended."""

    def __init__(self, message: dict[str, Any]) -> None:
        self.message = message
        self.arrived = time.monotonic()
        raw = message.get("params")
        params: dict[str, Any] = raw if isinstance(raw, dict) else {}
        self.tool = str(params.get("name") or "")
        arguments = params.get("arguments")
        self.timeout = tools.call_timeout(arguments if isinstance(arguments, dict) else {})
        meta = params.get("_meta")
        meta = meta if isinstance(meta, dict) else {}
        self.token = meta.get("progressToken")
        self.progress = 0.0

    def handed_over(self) -> dict[str, Any]:
        """The request as the real server gets it: the timeout less what the call has waited."""
        message = json.loads(json.dumps(self.message))
        arguments = message["params"].get("arguments")
        if isinstance(arguments, dict):
            left = self.timeout - (time.monotonic() - self.arrived)
            arguments["timeout"] = max(1, int(left))
        return message


class FirstRun:
    def __init__(
        self,
        server_argv: list[str],
        install: Callable[[], None],
        config: str | None,
        stdin: BinaryIO | None = None,
        stdout: BinaryIO | None = None,
    ) -> None:
        self.server_argv = server_argv  # the real server's command, run once installed
        self.install = install  # raises with a one-line message (and .output) when the install fails
        self.config = config
        self.stdin = stdin or sys.stdin.buffer
        self.stdout = stdout or sys.stdout.buffer
        self.lock = threading.RLock()  # one writer at a time on stdout, and the state below
        self.installing = False
        self.failure: tuple[str, str] | None = None  # (message, installer's last lines) of the last failed install
        self.init: dict[str, Any] | None = None
        self.waiting: list[Waiting] = []
        self.offsets: dict[Any, float] = {}  # progressToken -> the last value sent here
        self.child: subprocess.Popen[bytes] | None = None
        self.relay: threading.Thread | None = None
        self.reach: tools.Reach | None = None

    # -- output --------------------------------------------------------------
    def write(self, message: dict[str, Any]) -> None:
        line = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8") + b"\n"
        with self.lock:
            self.stdout.write(line)
            self.stdout.flush()

    def respond(self, rid: Any, result: Any) -> None:
        self.write({"jsonrpc": "2.0", "id": rid, "result": result})

    def fail(self, rid: Any, code: int, message: str) -> None:
        self.write({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})

    # -- the install -----------------------------------------------------------
    def start_install(self) -> None:
        with self.lock:
            if self.installing or self.child is not None:
                return
            self.installing = True
            self.failure = None
        threading.Thread(target=self._install, name="install", daemon=True).start()

    def _install(self) -> None:
        try:
            self.install()
        except Exception as exc:
            output = getattr(exc, "output", "") or ""
            tail = "\n".join(output.strip().splitlines()[-15:])
            with self.lock:
                self.installing = False
                self.failure = (str(exc), tail)
                waiting, self.waiting = self.waiting, []
            for call in waiting:
                self.answer_failed(call)
            return
        try:
            self.hand_over()
        except (OSError, ValueError) as exc:
            with self.lock:
                self.installing = False
                self.failure = ("the installed server did not start: %s" % exc, "")
                waiting, self.waiting = self.waiting, []
            for call in waiting:
                self.answer_failed(call)

    def answer_failed(self, call: Waiting) -> None:
        message, tail = self.failure or ("the install failed", "")
        self.respond(
            call.message.get("id"),
            error_result(
                call.tool,
                "bootstrap_failed",
                "%s: could not install the worker's dependencies: %s" % (call.tool, message),
                "check that the venv location is writable and the package index is reachable (pip or uv "
                "configuration); the next call tries the install again, keeping what was downloaded",
                detail=tail[-2000:] or None,
            ),
        )

    # -- the handover ------------------------------------------------------------
    def hand_over(self) -> None:
        """Start the real server, initialize it with the client's own initialize, then relay."""
        env = dict(os.environ, WEBSEARCH_WORKER_PROG="bootstrap/run.py")
        child = subprocess.Popen(self.server_argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        assert child.stdin is not None and child.stdout is not None
        init = dict(self.init or {"params": {"protocolVersion": HANDSHAKE_VERSIONS[-1], "capabilities": {}}})
        init.update({"jsonrpc": "2.0", "id": INIT_ID, "method": "initialize"})
        init.setdefault("params", {}).setdefault("clientInfo", {"name": "first-run", "version": "0"})
        child.stdin.write(json.dumps(init).encode() + b"\n")
        child.stdin.flush()
        while True:  # its initialize answer is ours alone
            line = child.stdout.readline()
            if not line:
                raise OSError("it exited with code %s" % child.wait())
            try:
                if json.loads(line).get("id") == INIT_ID:
                    break
            except ValueError:
                continue
        child.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        child.stdin.flush()
        with self.lock:
            self.child = child
            self.installing = False
            waiting, self.waiting = self.waiting, []
            for call in waiting:
                if call.token is not None:
                    self.offsets[call.token] = call.progress
                self._to_child(json.dumps(call.handed_over()).encode() + b"\n")
        self.relay = threading.Thread(target=self._relay, args=(child,), name="relay", daemon=True)
        self.relay.start()
        _log("the worker is installed; serving from its venv")

    def _to_child(self, line: bytes) -> None:
        child = self.child
        assert child is not None and child.stdin is not None
        try:
            child.stdin.write(line)
            child.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass  # it exited: its exit ends the relay, and with it this process

    def _relay(self, child: subprocess.Popen[bytes]) -> None:
        assert child.stdout is not None
        for line in child.stdout:
            if b"notifications/progress" in line and self.offsets:
                line = self._shift_progress(line)
            with self.lock:
                self.stdout.write(line)
                self.stdout.flush()
        code = child.wait()
        os._exit(code if code >= 0 else 128 - code)

    def _shift_progress(self, line: bytes) -> bytes:
        """Progress for a token first reported here continues past the values sent here (it must increase)."""
        try:
            message = json.loads(line)
            params = message["params"]
            offset = self.offsets.get(params["progressToken"])
            if offset is None:
                return line
            params["progress"] = round(offset + 1 + float(params["progress"]), 2)
        except (ValueError, KeyError, TypeError):
            return line
        return json.dumps(message, separators=(",", ":")).encode() + b"\n"

    # -- requests before the handover ------------------------------------------------
    def handle(self, raw: bytes) -> None:
        with self.lock:
            relaying = self.child is not None
        if relaying:  # written outside the lock: the relay thread needs it to drain the child's stdout
            self._to_child(raw if raw.endswith(b"\n") else raw + b"\n")
            return
        if not raw.strip():
            return
        try:
            message = json.loads(raw)
        except ValueError:
            self.fail(None, -32700, "Parse error: the line is not JSON")
            return
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            self.fail(None, -32600, "Invalid Request: the line is JSON but not a JSON-RPC 2.0 message")
            return
        method, rid = message.get("method"), message.get("id")
        if method == "initialize":
            self.init = message
            self.respond(rid, initialize_result(message.get("params")))
        elif method == "ping":
            self.respond(rid, {})
        elif method == "tools/list":
            if self.reach is None:
                self.reach = tools.reach(self.config)
            self.respond(rid, {"tools": tools.tool_list(self.reach)})
        elif method == "tools/call":
            self.call(message)
        elif method == "notifications/cancelled":
            params = message.get("params") or {}
            with self.lock:
                self.waiting = [w for w in self.waiting if w.message.get("id") != params.get("requestId")]
        elif method is not None and rid is not None:
            self.fail(rid, -32601, "Method not found: %s" % str(method)[:80])

    def call(self, message: dict[str, Any]) -> None:
        call = Waiting(message)
        if call.tool not in tools.TITLES:
            self.fail(
                message.get("id"), -32602, "unknown tool %r: this server has web_search and web_fetch" % call.tool
            )
            return
        with self.lock:
            if self.child is not None:  # the handover happened meanwhile
                self._to_child(json.dumps(message).encode() + b"\n")
                return
            self.waiting.append(call)
        self.start_install()
        self.note(call, "installing the worker's dependencies (first run; a minute or two)")

    def note(self, call: Waiting, text: str) -> None:
        if call.token is None:
            return
        call.progress = max(call.progress + 0.01, round(time.monotonic() - call.arrived, 2))
        self.write(
            {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": call.token, "progress": call.progress, "message": text},
            }
        )

    def tick(self) -> None:
        """Every interval: progress for each waiting call, and an answer for a call out of time."""
        now = time.monotonic()
        with self.lock:
            if self.child is not None:
                return
            late = [w for w in self.waiting if now - w.arrived > w.timeout - MIN_WORK_S]
            self.waiting = [w for w in self.waiting if w not in late]
            waiting = list(self.waiting)
        for call in late:
            self.respond(
                call.message.get("id"),
                error_result(
                    call.tool,
                    "timeout",
                    "%s: the worker's first-run install is still running after %.0f s, past this call's timeout"
                    % (call.tool, now - call.arrived),
                    "call again in a minute: the install goes on meanwhile",
                ),
            )
        for call in waiting:
            self.note(call, "installing the worker's dependencies (%.0f s so far)" % (now - call.arrived))

    def serve(self) -> int:
        """Until stdin closes: then the real server (if started) is closed too, and its exit code is ours."""
        interval = _interval()

        def ticker() -> None:
            while True:
                time.sleep(interval)
                self.tick()

        threading.Thread(target=ticker, name="progress", daemon=True).start()
        self.start_install()  # at once: the install is what takes long
        while True:
            raw = self.stdin.readline()
            if not raw:
                break
            self.handle(raw)
        with self.lock:
            child = self.child
        if child is not None and child.stdin is not None:
            child.stdin.close()
            code = child.wait()
            # The relay writes the server's last lines, then ends this process with its code. Returning
            # first would shut the interpreter down under the relay and the ticker, daemon threads both:
            # the suite saw this process die of SIGSEGV there once.
            if self.relay is not None:
                self.relay.join(10)
            return code
        return 0

    def stop(self) -> None:
        """On a signal: the real server stops its workers first."""
        child = self.child
        if child is not None and child.poll() is None:
            child.terminate()
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()
