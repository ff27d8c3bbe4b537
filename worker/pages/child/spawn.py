"""A page's reading (decode, parse, extract, render) in a child process that can be stopped.

lxml and trafilatura run native code that Python cannot interrupt, and one hostile
page can hold it for minutes or take gigabytes. The child (worker.pages.child.main)
reads the pages of a call one at a time; the parent waits for each answer until the
page's deadline and watches the child's resident memory, and kills it when either is
passed: that page becomes a ``timeout`` or ``too_large`` item, the child is started
again for the next page, and every item already answered is kept.

The child is a fresh interpreter started with exec (never a fork of this threaded
process) as soon as a call knows it will download pages, so its imports overlap the
downloads; it is one of the call's children, killed on a signal or at exit.
"""

from __future__ import annotations

import os
import sys
import time

from ... import regex_cache
from ...errors import WorkerError
from . import frames

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from ...runtime import Call

# Resident memory at which a page's reading is stopped (too_large), and the child's
# hard heap limit a little above it for a spike between two looks. With the parent's
# own ~60 MB (bodies, the answer) a call stays under 400 MB for one page, 500 MB for
# a batch: the child reads one page at a time.
MEMORY_MB = 280
HEAP_LIMIT_MB = 320
POLL_S = 0.02  # how often the child's memory is looked at while it works
# Past this resident size once a page is read, the child is replaced before the next page: the
# heap a heavy page grew stays with the process (freed memory is rarely given back to the
# system), and the next page would find part of its MEMORY_MB spent (a batch's 200,000-attribute
# page, read after a large table, was stopped as too_large).
RECYCLE_MB = MEMORY_MB // 2
# Two children reading a batch at once (pipeline.fetch_all) each get this bound instead, so the call
# stays under the 500 MB of a batch (docs/limits.md); a page stopped at it is read again alone, with
# the whole MEMORY_MB, when time is left.
SHARED_MEMORY_MB = 180
SHARED_HEAP_LIMIT_MB = 210

# What the parent tells the child: its heap limit in bytes, the parent's pid.
MEMORY_ENV = "WEBSEARCH_WORKER_EXTRACT_MEMORY"
PARENT_ENV = "WEBSEARCH_WORKER_EXTRACT_PARENT"
# "map" for a map's reader (worker.site.readers): records of pages, no extraction imported.
ROLE_ENV = "WEBSEARCH_WORKER_CHILD_ROLE"
# Set (to anything) to read pages in the worker's own process, as before this module:
# no deadline or memory bound on a page's reading. For profiling and debugging
# extraction, and the benchmark's baseline.
INPROCESS_ENV = "WEBSEARCH_WORKER_READ_INPROCESS"


def too_large(mb: int = MEMORY_MB) -> WorkerError:
    return WorkerError(
        "too_large",
        "reading this page needed more than %d MB of memory" % mb,
        hint="the page's markup is too large or too deeply built to read; fetch it with --format raw",
    )


def too_slow(seconds: float, shared: bool) -> WorkerError:
    why = "its share of --timeout beside the other URLs" if shared else "the call's --timeout"
    return WorkerError(
        "timeout",
        "reading this page took over %.1f s, %s" % (seconds, why),
        hint="raise --timeout, fetch this URL alone, or fetch it with --format raw",
        retryable=True,
    )


def _resident_mb(pid: int) -> float | None:
    """The process's resident size in MB (Linux /proc), None where it cannot be read."""
    try:
        with open("/proc/%d/statm" % pid, "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1048576.0
    except (OSError, ValueError, IndexError):
        return None


def cores() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class _Child:
    """A spawned process and our ends of its pipes; ``kill`` for Call.cleanup."""

    def __init__(self, pid: int, stdin: int, stdout: int):
        self.pid, self.stdin, self.stdout = pid, stdin, stdout
        self.returncode: int | None = None

    def kill(self) -> None:
        if self.returncode is None:
            try:
                os.kill(self.pid, 9)
            except OSError:
                pass

    def reap(self, within: float = 0.0) -> None:
        """Collect the exit status once the process has ended, waiting at most ``within`` seconds."""
        end = time.monotonic() + within
        while self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                return
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
            elif time.monotonic() >= end:
                return
            else:
                time.sleep(0.005)

    def wait(self) -> int:
        if self.returncode is None:
            try:
                _, status = os.waitpid(self.pid, 0)
                self.returncode = os.waitstatus_to_exitcode(status)
            except ChildProcessError:
                self.returncode = -9
        return self.returncode

    def close(self) -> None:
        for fd in (self.stdin, self.stdout):
            try:
                os.close(fd)
            except OSError:
                pass


def _spawn(argv: list[str], env: dict[str, str]) -> _Child:
    """``argv`` with pipes on its stdin and stdout, stderr shared: posix_spawn, safe in a threaded
    process (no Python runs between fork and exec) and cheaper to import than subprocess."""
    to_child, from_parent = os.pipe()[::-1]
    from_child, to_parent = os.pipe()
    try:
        pid = os.posix_spawn(
            argv[0],
            argv,
            env,
            file_actions=[(os.POSIX_SPAWN_DUP2, from_parent, 0), (os.POSIX_SPAWN_DUP2, to_parent, 1)],
        )
    except BaseException:
        for fd in (to_child, from_parent, from_child, to_parent):
            os.close(fd)
        raise
    os.close(from_parent)
    os.close(to_parent)
    return _Child(pid, to_child, from_child)


class Extractor:
    """The call's extraction child: ``item(url, resp, spec, deadline)`` -> the item dict."""

    def __init__(self, call: Call | None, shared: bool = False, role: str = "page"):
        self.call = call
        self.shared = shared  # one of two children reading at once: the smaller memory bound
        self.role = role  # "map": a map's reader (``record``), which imports no extractor
        self.proc: _Child | None = None
        self.inprocess = bool(os.environ.get(INPROCESS_ENV))
        self.broken: str | None = None  # why the child cannot be started, once it could not

    def start(self) -> bool:
        """Start the child unless it runs; False when pages must be read in this process."""
        if self.proc is not None:
            return True
        if self.inprocess or self.broken:
            return False
        env = dict(os.environ)
        env[MEMORY_ENV] = str((SHARED_HEAP_LIMIT_MB if self.shared else HEAP_LIMIT_MB) << 20)
        env[PARENT_ENV] = str(os.getpid())
        env[ROLE_ENV] = self.role
        regex_cache.child_env(env)
        # the worker's own isolation: without -I, its PYTHONPATH and site hooks apply to the child too
        argv = [sys.executable] + (["-I"] if sys.flags.isolated else []) + ["-m", "worker.pages.child.main"]
        if self.call is None:
            return self._spawned(argv, env)
        with self.call.spawning():
            return self._spawned(argv, env)

    def _spawned(self, argv: list[str], env: dict[str, str]) -> bool:
        try:
            self.proc = _spawn(argv, env)
        except (OSError, ValueError) as exc:  # no interpreter to run, no processes left
            self.broken = "%s: %s" % (type(exc).__name__, " ".join(str(exc).split())[:200])
            return False
        if self.call is not None:
            self.call.track(self.proc)
        return True

    def close(self, within: float = 0.0) -> None:
        """Stop the child (idle or not); reaped if it is gone within ``within`` seconds, else when
        this process ends.

        A child stopped at a deadline is not waited for: one with a few hundred MB takes
        time to be torn down on a busy machine, and the call's answer must not wait for
        that (a 50-page batch at load 34 lost its items waiting here past --timeout)."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        proc.kill()
        proc.reap(within)
        proc.close()
        if self.call is not None:
            self.call.children.discard(proc)

    def item(self, url: str, resp: Any, spec: Any, deadline: float | None, shared: bool = False) -> dict[str, Any]:
        """The item for a downloaded page, read in the child; raises WorkerError(timeout/too_large)."""
        if not self.start():
            raise RuntimeError("no extraction child")  # callers ask start() first
        started = time.monotonic()
        try:
            answer = self._exchange(frames.job(url, resp, spec), deadline)
        except WorkerError as exc:
            self.close()
            if exc.code == "timeout":
                raise too_slow(time.monotonic() - started, shared) from None
            raise
        item = frames.read_item(answer)
        if item.get("memory"):  # the child's heap limit was hit: a fresh child for the next page
            self.close()
            raise too_large(SHARED_HEAP_LIMIT_MB if self.shared else HEAP_LIMIT_MB)
        resident = _resident_mb(self.proc.pid) if self.proc is not None else None
        if resident is not None and resident > (SHARED_MEMORY_MB // 2 if self.shared else RECYCLE_MB):
            self.close()  # the next page gets a fresh child, and its whole MEMORY_MB
        return item

    def record(self, resp: Any, deadline: float | None) -> dict[str, Any]:
        """A map's page read in the child (worker.site.record): ``{"record": ...}`` or ``{"problem",
        "error"}``; raises WorkerError (timeout, too_large, the child's death), the child closed."""
        if not self.start():
            raise RuntimeError("no reading child")  # callers ask start() first
        try:
            answer = frames.read_item(self._exchange(frames.record_job(resp), deadline))
        except WorkerError:
            self.close()
            raise
        if answer.get("memory"):
            self.close()
            raise too_large(SHARED_HEAP_LIMIT_MB if self.shared else HEAP_LIMIT_MB)
        return answer

    def _exchange(self, request: bytes, deadline: float | None) -> bytes:
        """Write one frame, read one back: until ``deadline``, while the child stays under its bound."""
        import select

        proc = self.proc
        assert proc is not None
        bound = SHARED_MEMORY_MB if self.shared else MEMORY_MB
        wfd, rfd = proc.stdin, proc.stdout
        os.set_blocking(wfd, False)
        view, got, need = memoryview(request), bytearray(), None
        while True:
            wait = POLL_S if deadline is None else min(POLL_S, deadline - time.monotonic())
            if wait <= 0:
                raise WorkerError("timeout", "over the page's deadline")
            readable, writable, _ = select.select([rfd], [wfd] if view else [], [], wait)
            if writable:
                try:
                    view = view[os.write(wfd, view) :]
                except BlockingIOError:
                    pass
                except OSError:
                    view = view[:0]  # the child is gone: its end of file says so below
            if readable:
                chunk = os.read(rfd, 1 << 20)
                if not chunk:
                    raise self._died()
                got += chunk
                if need is None and len(got) >= frames.HEADER.size:
                    need = frames.HEADER.size + frames.HEADER.unpack(bytes(got[: frames.HEADER.size]))[0]
                if need is not None and len(got) >= need:
                    return bytes(got[frames.HEADER.size : need])
            resident = _resident_mb(proc.pid)
            if resident is not None and resident > bound:
                raise too_large(bound)

    def _died(self) -> WorkerError:
        proc = self.proc
        code = proc.wait() if proc is not None else None
        if code is not None and code < 0:
            why = "the page's reader was stopped by signal %d" % -code
        else:
            why = "the page's reader stopped (exit %s)" % code
        return WorkerError(
            "unsupported_content",
            "%s; the page could not be read" % why,
            hint="fetch it with --format raw",
        )
