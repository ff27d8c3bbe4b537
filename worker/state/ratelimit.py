"""Rate limits across processes: concurrency on file locks, spacing through the call's state.

A limit of N concurrent requests for a key is N lock files
(``<state dir>/locks/<key>.<i>.lock``, the state dir being the call's cache
directory); a request holds an exclusive ``flock`` on one of them.  The kernel
drops a flock when its process ends however it ends (SIGTERM's ``os._exit``,
SIGKILL, a crash), so a dead call never keeps a slot.  Concurrency is counted
per machine.

A minimum interval between request starts is a reservation in the call's state
(worker/state/backend.py): the next start is reserved atomically, ``interval``
after the one before, and the caller sleeps until it.  On SQLite state that is
a locked ``<key>.last`` file (this machine's processes); on Redis a script on
the server's clock, so the whole fleet keeps one pace (Brave's free plan: one
request a second for the key, whatever the number of machines).  A Retry-After
moves the key's next start for everyone (``slot(..., after=seconds)``).

Waiting sleeps on the work thread: the main thread owns signals and the
deadline, and a wait re-checks both between sleeps.

    from worker.state import ratelimit
    with ratelimit.slot(call, "brave", limit=1, min_interval=1.0) as waited:
        ...  # waited: seconds spent waiting for the slot

Slots are reentrant per thread: a provider that takes its own slot for the key
the tool already holds does not wait for itself.
"""

from __future__ import annotations

import os
import random
import sys
import threading
import time

from ..errors import WorkerError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Literal

    from ..runtime import Call
    from .backend import State

POLL_MIN_S = 0.005
POLL_MAX_S = 0.05
MAX_SLOTS = 64  # lock files per key: every acquisition opens all of them
DEFAULT_LIMIT = 5

HOST_CONCURRENCY = 2  # fetch politeness: requests to one host across all processes
MAX_HOST_CONCURRENCY = 64  # the cap on $WEBSEARCH_WORKER_HOST_CONCURRENCY (= the most --concurrency allows)

_dir: str | None = None
_local = threading.local()
_stats_lock = threading.Lock()
_waited = 0.0
_warned = False


def configure(directory: str | None) -> None:
    """Put every lock file of this process under ``directory``/locks, whatever the call says (tests)."""
    global _dir
    _dir = directory


def lock_dir(call: Call | None = None) -> str:
    """``locks`` in the configured directory, else in the call's ``state_dir``, else in the default cache directory."""
    base = _dir or getattr(call, "state_dir", None)
    if base is None:
        from .cache import default_dir

        base = default_dir()
    return os.path.join(base, "locks")


def waited_ms() -> int:
    """Milliseconds this process (= this call) spent waiting for slots so far."""
    with _stats_lock:
        return int(round(_waited * 1000))


def _add_wait(seconds: float) -> None:
    global _waited
    with _stats_lock:
        _waited += seconds


def safe_name(key: object) -> str:
    """A lock file name for any key (a host name, an IPv6 address, a provider type)."""
    out = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in str(key).lower())
    return out.strip(".")[:120] or "_"


def _warn_once(message: str) -> None:
    global _warned
    if not _warned:
        _warned = True
        try:
            sys.stderr.write("websearch-worker: rate limit: %s\n" % message)
        except Exception:
            pass


def _left(call: Call | None, deadline: float | None) -> float | None:
    """Seconds until the nearer of the call's deadline and ``deadline`` (monotonic); None if unbounded."""
    left = call.remaining() if call is not None else None
    if deadline is not None:
        mine = deadline - time.monotonic()
        left = mine if left is None else min(left, mine)
    return left


def _check(call: Call | None, key: str, started: float, deadline: float | None = None) -> None:
    """Raise if the wait is over: the call cancelled (SIGTERM) or out of time."""
    if call is not None and call.cancelled.is_set():
        raise WorkerError("cancelled", "cancelled while waiting for a %s slot" % key)
    left = _left(call, deadline)
    if left is not None and left <= 0:
        raise WorkerError(
            "timeout",
            "waited %.1fs for a free %s slot before the deadline" % (time.monotonic() - started, key),
            hint="other worker processes are using every slot; raise --timeout or retry later",
        )


def _sleep(call: Call | None, seconds: float, deadline: float | None = None) -> None:
    left = _left(call, deadline)
    if left is not None:
        seconds = min(seconds, max(left, 0.001))
    if call is not None:
        call.cancelled.wait(seconds)
    else:
        time.sleep(seconds)


class slot:
    """Hold one of ``limit`` slots for ``key`` across all processes of the user.

    ``with slot(call, key, limit, min_interval) as waited:`` -- ``waited`` is the
    seconds spent waiting.  Raises WorkerError timeout/cancelled when the call's
    deadline (or ``deadline``, a time.monotonic() value) passes or it is
    cancelled while waiting.  When the lock directory
    cannot be used the limit is skipped with one warning on stderr: rate
    limiting is politeness, never a reason to fail the call.
    """

    def __init__(
        self,
        call: Call | None,
        key: object,
        limit: float | None = DEFAULT_LIMIT,
        min_interval: float | None = 0.0,
        deadline: float | None = None,
        after: float | None = None,
    ):
        self.call = call
        self.after = float(after or 0.0)  # a Retry-After: no start for the key before this many seconds
        self.deadline = deadline
        self.key = safe_name(key)
        self.limit = max(1, min(MAX_SLOTS, int(limit or 1)))
        self.min_interval = float(min_interval or 0.0)
        self.waited = 0.0
        self._dir = lock_dir(call)
        self._fd: int | None = None
        self._reentered = False

    # -- entering --------------------------------------------------------------
    def __enter__(self) -> float:
        held = getattr(_local, "held", None)
        if held is None:
            held = _local.held = set()
        if self.key in held:
            self._reentered = True
            return 0.0
        started = time.monotonic()
        try:
            self._fd = self._acquire(started)
            if self.min_interval > 0 or self.after > 0:
                self._space(started)
        except BaseException:
            self._release()
            raise
        finally:
            self.waited = time.monotonic() - started
            _add_wait(self.waited)
        held.add(self.key)
        return self.waited

    def _open(self, name: str) -> int:
        return os.open(os.path.join(self._dir, name), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)

    def _open_all(self, names: list[str]) -> list[int] | None:
        fds: list[int] = []
        try:
            os.makedirs(self._dir, mode=0o700, exist_ok=True)
            for name in names:
                fds.append(self._open(name))
            return fds
        except OSError as exc:
            for fd in fds:
                os.close(fd)
            _warn_once("cannot use %s (%s); not limiting" % (self._dir, exc))
            return None

    def _acquire(self, started: float) -> int | None:
        import fcntl

        fds = self._open_all(["%s.%d.lock" % (self.key, i) for i in range(self.limit)])
        if fds is None:
            return None
        # Start at a random slot so waiters spread over the files.
        first = random.randrange(self.limit)
        order = fds[first:] + fds[:first]
        delay = POLL_MIN_S
        try:
            while True:
                for fd in order:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:
                        continue
                    got = fd
                    for other in fds:
                        if other != got:
                            os.close(other)
                    fds = []
                    return got
                _check(self.call, self.key, started, self.deadline)
                _sleep(self.call, delay * (0.5 + random.random()), self.deadline)
                delay = min(POLL_MAX_S, delay * 1.5)
        finally:
            for fd in fds:
                os.close(fd)

    def _space(self, started: float) -> None:
        """Keep ``min_interval`` seconds between request starts for the key: reserve the next start, sleep until it."""
        state = _state(self.call)
        try:
            if self.after:
                state.defer(self.key, self.min_interval, self.after)
            wait = state.reserve(self.key, self.min_interval, _left(self.call, self.deadline))
        except OSError as exc:
            _warn_once("cannot use %s (%s); not limiting" % (lock_dir(self.call), exc))
            return
        if wait is None:  # nothing reserved: the slot would start after the deadline
            raise WorkerError(
                "timeout",
                "the next free %s slot starts after the deadline" % self.key,
                hint="other worker processes have taken the slots before it; raise --timeout or retry later",
            )
        end = time.monotonic() + wait
        while True:
            _check(self.call, self.key, started, self.deadline)
            rest = end - time.monotonic()
            if rest <= 0:
                return
            _sleep(self.call, rest, self.deadline)

    # -- leaving -----------------------------------------------------------------
    def _release(self) -> None:
        if self._fd is not None:
            try:
                os.close(self._fd)  # closing the only descriptor drops the flock
            except OSError:
                pass
            self._fd = None

    def __exit__(self, *exc: object) -> Literal[False]:
        if self._reentered:
            return False
        self._release()
        held = getattr(_local, "held", None)
        if held is not None:
            held.discard(self.key)
        return False


def defer(call: Call | None, key: object, seconds: float, min_interval: float = 0.0) -> None:
    """No start for ``key`` before ``seconds`` from now, for every process sharing the state (an API's
    own "back off" answer); a slot with ``min_interval`` for the key honours it.  Never raises."""
    try:
        _state(call).defer(safe_name(key), min_interval, seconds)
    except (OSError, WorkerError) as exc:
        _warn_once("cannot hold %s back (%s)" % (safe_name(key), exc))


def _state(call: Call | None) -> State:
    """Where the spacing is kept: the configured directory (tests), else the call's state, else the default dir's."""
    from . import backend

    if _dir is not None:
        from .sqlite_backend import SqliteState

        return SqliteState(_dir, call)
    base = getattr(call, "state_dir", None)
    if base is None:
        from .cache import default_dir

        base = default_dir()
    return backend.for_call(call, base)[0]


def host_slot(call: Call | None, host: str | None, limit: float | None = None, deadline: float | None = None) -> slot:
    """Fetch politeness: at most ``limit`` requests to ``host`` at once across processes.

    Default HOST_CONCURRENCY, or $WEBSEARCH_WORKER_HOST_CONCURRENCY (tests, local mirrors).
    """
    if limit is None:
        from .. import numbers

        try:
            limit = numbers.env("WEBSEARCH_WORKER_HOST_CONCURRENCY", HOST_CONCURRENCY, integer=True)
        except ValueError as exc:
            _warn_once("ignoring %s; using %d" % (exc, HOST_CONCURRENCY))
            limit = HOST_CONCURRENCY
        # Each slot is a lock file opened per request: a huge value would mean thousands of files.
        limit = max(1, min(MAX_HOST_CONCURRENCY, limit))
    return slot(call, "host-" + (host or "unknown"), limit=limit, deadline=deadline)
