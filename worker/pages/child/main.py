"""The extraction child: downloaded pages in on stdin, items out on stdout, one at a time.

Started by worker.pages.child.spawn as ``python [-I] -m worker.pages.child.main``,
a fresh interpreter (never a fork of the threaded parent). Parsing and extraction
run in native code (libxml2) that Python cannot interrupt, so a page that takes too
long or too much memory is stopped by killing this process; the parent keeps every
item already answered. Frames both ways: 8 bytes of big-endian length, then a
pickle (both ends are this code; nothing from the page is ever unpickled).
"""

from __future__ import annotations

import os
import sys

from . import frames
from .spawn import MEMORY_ENV, PARENT_ENV, ROLE_ENV


def _die_with_parent() -> None:
    """Linux: SIGKILL this process when the parent goes (a SIGKILLed worker leaves no child behind).

    The kernel sends it when the parent's thread that started us ends: the parent
    starts and closes its child on one thread, that of the fetch it serves.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except Exception:
        return
    if str(os.getppid()) != os.environ.get(PARENT_ENV, str(os.getppid())):
        os._exit(0)  # the parent left before the prctl took hold


def _limit_memory() -> None:
    """A hard heap limit: an allocation past it fails (MemoryError) instead of the machine swapping.

    RLIMIT_DATA counts the heap and private anonymous mappings, what malloc and
    Python's allocator use, not the shared libraries; the parent's watch of the
    resident size stops the page sooner, this catches a spike between two looks.
    """
    try:
        import resource

        limit = int(os.environ.get(MEMORY_ENV) or 0)
        if limit > 0:
            resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass


def _read_exact(stream, n: int) -> bytes | None:
    data = stream.read(n)
    return data if data is not None and len(data) == n else None


def _record(resp) -> dict:
    """A map's page (frames.record_job): its record, or why the map cannot read it."""
    from ...site.record import Unread, record_of

    try:
        return {"record": record_of(resp)}
    except Unread as exc:
        e = exc.error
        error = {"code": e.code, "message": e.message, "hint": e.hint, "retryable": e.retryable, "extra": e.extra}
        return {"problem": exc.problem, "error": error}


def serve() -> None:
    out = os.dup(1)
    os.dup2(2, 1)  # whatever a library prints goes to stderr, never into the frames
    sys.stdout = sys.stderr
    _die_with_parent()
    _limit_memory()
    from ... import regex_cache
    from ...startup import tune_gc

    tune_gc()
    regex_cache.install_from_env()
    if os.environ.get(ROLE_ENV) == "map":  # a map's reader reads no page's content: no extractor
        from ...site import record

        record.prepare()
    else:
        from ..extract.core import prepare
        from ..read.item import item_of  # noqa: F401  (imported now, while the page downloads)

        prepare()
    regex_cache.save()
    stdin = sys.stdin.buffer
    while True:
        head = _read_exact(stdin, frames.HEADER.size)
        if head is None:
            return  # the parent closed the pipe: the call is over
        payload = _read_exact(stdin, frames.HEADER.unpack(head)[0])
        if payload is None:
            return
        url, resp, spec = frames.read_job(payload)
        del payload
        try:
            if spec is None:
                item = _record(resp)
            else:
                from ..read.item import item_of

                item = item_of(url, resp, spec)
        except MemoryError:
            item = {"url": url, "ok": False, "memory": True}
        del resp
        regex_cache.save()  # what the reading imported (nothing, once the file holds it)
        data = frames.item(item)
        while data:
            n = os.write(out, data)
            data = data[n:]


if __name__ == "__main__":
    try:
        serve()
    except KeyboardInterrupt:
        pass
    os._exit(0)
