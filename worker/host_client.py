"""Run the worker from a Python host: spawn, time out, cancel, parse.

Standard library only, so a host imports it without the worker's venv::

    from worker.host_client import run

    result = run(["search", "rust async runtime", "--limit", "3"], timeout=30)
    payload = result.raise_for_error()          # the SEARCH_OK payload, or ClientError
    print(payload["text"])

Cancel from another thread with ``cancel=threading.Event()`` (set it), or keep
the handle from ``spawn()`` and call ``handle.cancel()``.  Cancelling sends
SIGTERM; the worker answers with a ``cancelled`` block and exit code 130.  A
call that ignores SIGTERM for ``grace`` seconds is killed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

from . import protocol
from .procgroup import group_alive

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any, Iterable, Mapping

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOOTSTRAP = os.path.join(ROOT, "bootstrap", "run.py")
POLL = 0.05


class ClientError(Exception):
    """A call that produced no SEARCH_OK payload.

    ``code`` is the worker's error code, or ``cancelled`` / ``timeout`` when the
    host stopped the call, or ``protocol`` when no block came back.
    """

    def __init__(self, code: str, message: str, hint: str | None = None, result: Result | None = None):
        super().__init__("%s: %s%s" % (code, message, "\nhint: %s" % hint if hint else ""))
        self.code = code
        self.message = message
        self.hint = hint
        self.result = result


class Result:
    """What one call produced.  ``payload`` is None when there was no valid block."""

    def __init__(self, returncode: int, stdout: str, stderr: str, cancelled: bool = False, timed_out: bool = False):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.cancelled = cancelled  # the host cancelled it (cancel() or the cancel event)
        self.timed_out = timed_out  # the host's timeout stopped it
        self.payload: dict[str, Any] | None = None
        self.protocol_error: str | None = None
        try:
            self.payload = protocol.parse(stdout)
        except protocol.ProtocolError as exc:
            self.protocol_error = str(exc)

    @property
    def ok(self) -> bool:
        return bool(self.payload and self.payload.get("ok"))

    @property
    def error(self) -> dict[str, Any] | None:
        return (self.payload or {}).get("error") if not self.ok else None

    def raise_for_error(self) -> dict[str, Any]:
        """The OK payload, else ClientError.  The host's own stop wins over the exit code."""
        if self.timed_out:
            raise ClientError("timeout", "the call did not finish within the host's timeout", result=self)
        if self.cancelled:
            raise ClientError("cancelled", "the call was cancelled (exit code %s)" % self.returncode, result=self)
        if self.payload is not None and self.ok:  # ok implies a payload; the first test says so to the checker
            return self.payload
        if self.payload is not None:
            err = self.payload.get("error") or {}
            raise ClientError(err.get("code", "internal"), err.get("message", ""), err.get("hint"), result=self)
        tail = " ".join(self.stderr.strip().splitlines()[-3:])
        raise ClientError(
            "protocol",
            "exit code %s and %s%s" % (self.returncode, self.protocol_error, ": " + tail if tail else ""),
            result=self,
        )

    def __repr__(self):
        return "Result(returncode=%r, ok=%r, cancelled=%r, timed_out=%r)" % (
            self.returncode,
            self.ok,
            self.cancelled,
            self.timed_out,
        )


def command(args: Iterable[str], python: str | None = None, venv: str | None = None) -> list[str]:
    """argv for one call: the venv's interpreter directly when ``python`` is given,
    else bootstrap/run.py (installs on first use) with the running interpreter."""
    if python:
        return [python, "-I", "-m", "worker"] + list(args)
    flags = ["--venv", venv] if venv else []
    return [sys.executable, BOOTSTRAP] + flags + list(args)


def options(**opts: Any) -> list[str]:
    """Keyword options -> worker flags: limit=3 -> --limit 3, highlights=True ->
    --highlights, include_domain=[a, b] -> repeated; None and False are left out."""
    out: list[str] = []
    for key, value in opts.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            out.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                out += [flag, str(v)]
        else:
            out += [flag, str(value)]
    return out


class Handle:
    """A running call.  ``own_group``: the worker leads a process group of its own (a new
    session), so ``end_group`` can wait for the processes it started (its reading child) too."""

    def __init__(
        self,
        argv: list[str],
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        own_group: bool = False,
        stdin: int = subprocess.DEVNULL,
    ):
        self.argv = argv
        self.own_group = own_group
        self.proc = subprocess.Popen(
            argv,
            stdin=stdin,  # a pipe for a prepared worker (hosts/mcp/prepared.py), which reads its argv there
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            start_new_session=own_group,
        )
        self._lock = threading.Lock()
        self._signalled: str | None = None  # None, "cancelled" or "timeout"
        self._signal_time: float | None = None

    def cancel(self, reason: str = "cancelled") -> None:
        """Ask the worker to stop (SIGTERM, once).  Safe from any thread."""
        with self._lock:
            if self._signalled or self.proc.poll() is not None:
                return
            self._signalled = reason
            self._signal_time = time.monotonic()
            try:
                self.proc.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass

    def wait(self, timeout: float | None = None, cancel: threading.Event | None = None, grace: float = 5.0) -> Result:
        """Collect the call.  ``timeout`` seconds from now, or ``cancel`` (an Event)
        being set, sends SIGTERM; after ``grace`` more seconds the process is killed."""
        deadline = time.monotonic() + timeout if timeout else None
        while True:
            try:
                out, err = self.proc.communicate(timeout=POLL)
                break
            except subprocess.TimeoutExpired:
                pass
            now = time.monotonic()
            if cancel is not None and cancel.is_set():
                self.cancel("cancelled")
            if deadline is not None and now >= deadline:
                self.cancel("timeout")
            if self._signal_time is not None and now - self._signal_time > grace:
                self.proc.kill()  # it ignored SIGTERM; nothing else will stop it
        return Result(
            self.proc.returncode,
            out.decode("ascii", errors="replace"),
            err.decode("utf-8", errors="replace"),
            cancelled=self._signalled == "cancelled",
            timed_out=self._signalled == "timeout",
        )

    def end_group(self, within: float = 5.0) -> bool:
        """Once the worker has ended: wait until no process of its group is left (the worker
        kills its reading child as it ends, but a child being torn down can outlive it by a
        moment), at most ``within`` seconds, then SIGKILL what is left and wait one second more.
        Whether the group is gone.  Without ``own_group`` there is no group of its own: True."""
        if not self.own_group:
            return True
        deadline = time.monotonic() + within
        killed = False
        while group_alive(self.proc.pid):
            now = time.monotonic()
            if now >= deadline:
                if killed:
                    return False
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except OSError:
                    pass
                killed, deadline = True, now + 1.0
            time.sleep(0.005)
        return True


def spawn(
    args: Iterable[str],
    python: str | None = None,
    venv: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    own_group: bool = False,
) -> Handle:
    """Start a call and return its Handle (call ``wait()`` to collect it; with ``own_group``,
    ``end_group()`` after it to wait for the processes the worker started)."""
    return Handle(command(args, python=python, venv=venv), env=env, cwd=cwd, own_group=own_group)


def run(
    args: Iterable[str],
    timeout: float | None = None,
    cancel: threading.Event | None = None,
    python: str | None = None,
    venv: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    grace: float = 5.0,
) -> Result:
    """Run one call to completion and return its Result."""
    return spawn(args, python=python, venv=venv, env=env, cwd=cwd).wait(timeout=timeout, cancel=cancel, grace=grace)


def search(
    query: str,
    timeout: float | None = None,
    cancel: threading.Event | None = None,
    python: str | None = None,
    venv: str | None = None,
    env: Mapping[str, str] | None = None,
    **opts: Any,
) -> dict[str, Any]:
    """Search and return the OK payload (raises ClientError)."""
    return run(
        ["search"] + options(**opts) + ["--", query], timeout=timeout, cancel=cancel, python=python, venv=venv, env=env
    ).raise_for_error()


def fetch(
    urls: str | Iterable[str],
    timeout: float | None = None,
    cancel: threading.Event | None = None,
    python: str | None = None,
    venv: str | None = None,
    env: Mapping[str, str] | None = None,
    **opts: Any,
) -> dict[str, Any]:
    """Fetch pages and return the OK payload (raises ClientError)."""
    if isinstance(urls, str):
        urls = [urls]
    return run(
        ["fetch"] + options(**opts) + ["--"] + list(urls),
        timeout=timeout,
        cancel=cancel,
        python=python,
        venv=venv,
        env=env,
    ).raise_for_error()
