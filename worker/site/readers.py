"""The map's other readers: child processes that read downloaded pages into records
(worker.site.record) while the map's own process reads others.

A page's record is regular expressions over its text, in Python: the map's threads share one
interpreter lock, so on their own they read one page at a time, on one core, while the
others wait (Python's documentation: 12 s of one core for its 528 pages). With one child for
each further core (worker.pages.child, the reading's children, started at the map's first
download so their imports overlap it; a map read from the cache starts none), a thread that has downloaded a page hands it to a
free child and waits on a pipe, the lock free; when no child is free it reads the page itself.

A child that dies, runs out of memory or cannot be started is a warning naming the stage, and
the map reads its pages itself from then on, as before this module. A child still reading at
the map's deadline is stopped; that page is one the map could not read in time.
"""

from __future__ import annotations

import threading

from ..errors import WorkerError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from ..pages.child.spawn import Extractor
    from ..pages.net.client import Response
    from ..runtime import Call

MAX_READERS = 2  # each stopped at 180 MB: two and the worker stay under a batch's 500 MB (docs/limits.md)


def cores() -> int:
    """The CPUs this process may run on (a name of this module's, for tests to set)."""
    from ..pages.child.spawn import cores

    return cores()


class Readers:
    """``record(resp, deadline)``: the page's record from a free child, or None when none is free
    (the caller reads it itself). ``close()`` stops them all."""

    def __init__(self, call: Call | None, count: int | None = None, start: bool = True) -> None:
        self.call = call
        self.count = min(MAX_READERS, cores() - 1) if count is None else count
        self.lock = threading.Lock()
        self.free: list[Extractor] = []
        self.all: list[Extractor] = []
        self.warnings: list[str] = []
        self.started = self.closed = False
        if start:
            self.start()

    def start(self) -> None:
        """Start the children, once (a map whose pages all come from the cache starts none)."""
        from ..pages.child.spawn import Extractor

        with self.lock:
            if self.started:
                return
            self.started = True
        call = self.call
        for _ in range(max(0, self.count)):
            child = Extractor(call, shared=True, role="map")
            if not child.start():
                if child.broken:
                    self.warnings.append(
                        "map: its second reader could not be started (%s); pages are read in one process" % child.broken
                    )
                break
            with self.lock:
                if not self.closed:  # a thread past the map's end (its join timed out) starts none
                    self.free.append(child)
                    self.all.append(child)
                    continue
            child.close()
            return

    def record(self, resp: Response, deadline: float | None) -> dict[str, Any] | None:
        """The child's answer for ``resp``: ``{"record": ...}`` or ``{"problem", "error"}``; None when
        no child is free. WorkerError("timeout") when the deadline passed while it read."""
        with self.lock:
            child = self.free.pop() if self.free else None
        if child is None:
            return None
        try:
            answer = child.record(resp, deadline)
        except WorkerError as exc:
            child.close()
            if exc.code == "timeout":
                raise
            with self.lock:
                self.warnings.append(
                    "map: a second reader stopped (%s); its pages are read in the map's own process" % exc.message
                )
            return None
        with self.lock:
            self.free.append(child)
        return answer

    def close(self) -> None:
        with self.lock:
            self.closed = True
            children, self.free, self.all = self.all, [], []
        for child in children:
            child.close()
