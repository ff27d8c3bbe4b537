"""The MCP server's prepared worker (issue 45): one worker process started before its call, its
interpreter up and its imports done (worker/prepared.py), waiting on stdin for the call's argv.

A call takes it if it is there and alive, writes its argv, and from then on it is that call's
worker like any other: the same Handle, the same SEARCH_OK/SEARCH_ERROR block on stdout, the
same process group, temp directory, timeout and SIGTERM (exit 130, a ``cancelled`` block).
Each prepared process serves one call and exits, so no call ever runs in a process another call
ran in; a fresh one is prepared after each call ends (not while it runs: its imports would take
the call's CPU on a small machine).

A prepared worker that is gone when a call comes (killed, its venv broken) is no failure of
the call: the call starts a fresh worker, the server's log says why, and the result carries a
warning naming the stage ("prepared worker"). ``WEBSEARCH_MCP_PREPARED=0`` turns it off: every
call starts a fresh worker, as before.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

from worker import host_client

TYPE_CHECKING = False
if TYPE_CHECKING:
    from worker.host_client import Handle

ENV = "WEBSEARCH_MCP_PREPARED"
ENTRY = ["-I", "-m", "worker.prepared"]


def _log(message: str) -> None:
    try:
        sys.stderr.write("websearch-worker mcp: %s\n" % message)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _how_it_ended(code: int) -> str:
    return "killed by signal %d" % -code if code < 0 else "exit %d" % code


class Prepared:
    """At most one idle prepared worker, and who may take it."""

    def __init__(self) -> None:
        self.enabled = os.environ.get(ENV, "1").strip() != "0"
        self.handle: Handle | None = None
        self.python: str | None = None
        self.lock = threading.Lock()
        self.closed = False

    def prepare(self, python: str | None) -> None:
        """Start a prepared worker with ``python`` unless one waits already (or none may)."""
        if not self.enabled or python is None:
            return
        with self.lock:
            if self.closed or (self.handle is not None and self.handle.proc.poll() is None):
                return
            stale, self.handle = self.handle, None
        if stale is not None:
            self._reap(stale)
        try:
            handle = host_client.Handle([python] + ENTRY, own_group=True, stdin=subprocess.PIPE)
        except OSError as exc:  # the venv's interpreter vanished: the next call says so itself
            _log("prepared worker: could not start one: %s" % (exc.strerror or exc))
            return
        with self.lock:
            if self.closed or self.handle is not None:
                spare: Handle | None = handle
            else:
                self.handle, self.python, spare = handle, python, None
        if spare is not None:
            self._discard(spare)

    def take(self, argv: list[str], python: str | None) -> tuple[Handle | None, str | None]:
        """(the prepared worker, now serving ``argv``, None), or (None, None) when there is none
        to take, or (None, warning) when there was one and it could not serve: the call then
        starts a fresh worker, and the warning goes into its result."""
        with self.lock:
            handle, self.handle = self.handle, None
        if handle is None:
            return None, None
        if python is None or python != self.python:  # the venv is being installed again: not this one
            self._discard(handle)
            return None, None
        code = handle.proc.poll()
        if code is not None:
            warning = self._warn("had ended (%s) before the call came" % _how_it_ended(code), handle)
            self._reap(handle)
            return None, warning
        stdin = handle.proc.stdin
        assert stdin is not None  # started with a pipe (prepare)
        try:
            stdin.write(json.dumps(argv).encode("ascii") + b"\n")
            stdin.close()  # end of file after the one line; Popen.communicate must not touch it again
        except (OSError, ValueError) as exc:
            self._discard(handle)
            return None, self._warn("could not be given the call (%s)" % exc, handle)
        handle.proc.stdin = None
        return handle, None

    def close(self) -> None:
        """No more prepared workers; the idle one is stopped (it holds no call, no temp dir)."""
        with self.lock:
            self.closed = True
            handle, self.handle = self.handle, None
        if handle is not None:
            self._discard(handle)

    def pid(self) -> int | None:
        """The idle prepared worker's pid (tests, benchmarks)."""
        handle = self.handle
        return handle.proc.pid if handle is not None else None

    @staticmethod
    def _warn(what: str, handle: Handle) -> str:
        tail = ""
        if handle.proc.stderr is not None and handle.proc.returncode is not None:
            try:
                tail = " ".join(handle.proc.stderr.read().decode("utf-8", "replace").split())[-300:]
            except (OSError, ValueError):
                tail = ""
        message = "prepared worker: the process prepared for this call %s; the call ran in a fresh worker" % what
        _log(message + (": " + tail if tail else ""))
        return message

    @staticmethod
    def _discard(handle: Handle) -> None:
        """Stop an idle prepared worker: it has no call and no temp dir, so SIGKILL is enough."""
        try:
            os.killpg(handle.proc.pid, 9)
        except OSError:
            pass
        Prepared._reap(handle)

    @staticmethod
    def _reap(handle: Handle) -> None:
        try:
            handle.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for stream in (handle.proc.stdin, handle.proc.stdout, handle.proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
