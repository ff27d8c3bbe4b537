"""Per-call runtime: private stdout, temp directory, signals, deadline, exit.

Every call is a fresh process, so this module is on every call's path and
imports nothing heavy.  The work runs on a daemon thread while the main thread
waits on it; signals are handled by the main thread, so SIGTERM is answered
within milliseconds even when the work is stuck in a network call, and
``os._exit`` means no busy worker thread can delay the exit.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

from . import protocol

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from types import FrameType
    from typing import Any, Callable, NoReturn, Sequence, TypeVar

    from .state.backend import State
    from .state.breaker import Guard

    T = TypeVar("T")

TEMP_PREFIX = "call-"
# Signals that cancel a call (SIGHUP: the host's terminal or session went away).
HANDLED_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
SIGNAL_NAMES: dict[int, str] = {signal.SIGTERM: "SIGTERM", signal.SIGINT: "SIGINT", signal.SIGHUP: "SIGHUP"}


def temp_base() -> str:
    """Where per-call temp dirs live: $WEBSEARCH_WORKER_TMPDIR, else $TMPDIR/websearch-worker-<uid>."""
    explicit = os.environ.get("WEBSEARCH_WORKER_TMPDIR")
    if explicit:
        return explicit
    return os.path.join(os.environ.get("TMPDIR") or "/tmp", "websearch-worker-%d" % os.getuid())


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def sweep_stale(base: str, own: str | None = None) -> None:
    """Remove temp dirs whose owning process is gone (e.g. a SIGKILLed call)."""
    try:
        names = os.listdir(base)
    except OSError:
        return
    for name in names:
        if not name.startswith(TEMP_PREFIX):
            continue
        path = os.path.join(base, name)
        if path == own:
            continue
        try:
            pid = int(name[len(TEMP_PREFIX) :].split("-", 1)[0])
        except ValueError:
            continue
        if not _pid_alive(pid):
            remove_tree(path)


def remove_tree(path: str) -> None:
    try:
        os.rmdir(path)  # the common case: the call left nothing behind
    except FileNotFoundError:
        return
    except OSError:
        import shutil

        shutil.rmtree(path, ignore_errors=True)


# At most this much of the process's age counts against --timeout: the interpreter's start,
# not a first-run install before an execv into the venv (same process, minutes old).
MAX_START_S = 1.0


def process_age() -> float:
    """Seconds since this process started (Linux /proc), at most MAX_START_S; 0.0 where unknown."""
    try:
        with open("/proc/self/stat", "rb") as f:
            stat = f.read()
        ticks = int(stat[stat.rindex(b")") + 2 :].split()[19])  # field 22, starttime
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0
    return min(max(age, 0.0), MAX_START_S)


class Call:
    """The state of one worker invocation; ``ctx`` for tools and providers."""

    def __init__(self, timeout: float | None = None, keep_temp: bool = False):
        self.started = time.monotonic()
        self.deadline = self.started + timeout if timeout else None
        self.keep_temp = keep_temp
        self.warnings: list[Any] = []
        self.children: set[Any] = set()
        self._spawn_lock = threading.RLock()  # re-entered by a signal that comes during finish()
        self.tempdir: str | None = None
        self._out_fd: int | None = None
        self._emit_lock = threading.Lock()
        self._emitted = False
        self._exiting = False
        self.cancelled = threading.Event()
        # Per thread (attempt_deadline and breaker below): the queries of one search run at once.
        self._attempt = threading.local()
        # The directory of the state this call shares with other worker processes (cache,
        # breaker, rate-limit locks), set by the tool once it has read the config.
        self.state_dir: str | None = None
        # That state itself (worker/state/backend.py: SQLite files, or Redis), set with state_dir.
        self.state: State | None = None

    # A provider attempt's own, earlier deadline (search fallback): a provider that hangs
    # gives the next one the rest of --timeout.  Seen by remaining() on the thread that set it.
    @property
    def attempt_deadline(self) -> float | None:
        return getattr(self._attempt, "deadline", None)

    @attempt_deadline.setter
    def attempt_deadline(self, value: float | None) -> None:
        self._attempt.deadline = value

    # Set while a search provider runs, on its thread (ddgs skips engines by it).
    @property
    def breaker(self) -> Guard | None:
        return getattr(self._attempt, "breaker", None)

    @breaker.setter
    def breaker(self, value: Guard | None) -> None:
        self._attempt.breaker = value

    # -- stdout -----------------------------------------------------------
    def claim_stdout(self) -> None:
        """Keep fd 1 for the protocol; route everything else printed to stderr.

        Libraries that print (Python or C level) land on stderr, so stdout
        carries nothing but our block.
        """
        try:
            sys.stdout.flush()
        except Exception:
            pass
        self._out_fd = os.dup(1)
        os.dup2(2, 1)
        sys.stdout = sys.stderr

    def emit(self, text: str, human: bool = False) -> bool:
        """Write the call's one block; later attempts are dropped.

        Never waits: the lock is only tried.  A signal handler runs on the main
        thread, possibly while the main thread is inside this very write (a big
        block stuck in a full pipe); waiting there for a lock the interrupted
        frame holds would hang the process for good.  Whoever holds the lock is
        already writing the one block, so a caller that cannot take it has
        nothing to add.  ``human``: --output text, written as UTF-8 for people.
        """
        if not self._emit_lock.acquire(blocking=False):
            return False
        if self._emitted:
            self._emit_lock.release()
            return False
        self._emitted = True
        try:
            from . import redact

            text = redact.scrub(text)
        except Exception:
            pass  # never let scrubbing cost the block; the providers scrubbed what they built
        data = text.encode("utf-8", errors="replace") if human else text.encode("ascii", errors="backslashreplace")
        fd = self._out_fd if self._out_fd is not None else 1
        while data:
            try:
                n = os.write(fd, data)
            except InterruptedError:
                continue
            except OSError:
                break  # the host closed its end; nothing more to say
            data = data[n:]
        return True  # the lock stays taken: there is only ever one block

    # -- temp dir ---------------------------------------------------------
    def make_tempdir(self) -> str:
        base = temp_base()
        try:
            os.makedirs(base, mode=0o700, exist_ok=True)
        except OSError:
            pass
        path = os.path.join(base, "%s%d-%d" % (TEMP_PREFIX, os.getpid(), time.time_ns()))
        try:
            os.mkdir(path, 0o700)
        except (OSError, ValueError) as exc:
            from .errors import WorkerError

            raise WorkerError(
                "config",
                "cannot create the call's temp directory under %s (%s)" % (base, getattr(exc, "strerror", None) or exc),
                hint="point TMPDIR (or WEBSEARCH_WORKER_TMPDIR) at a writable directory",
            ) from None
        self.tempdir = path
        sweep_stale(base, own=path)
        return path

    # -- time ---------------------------------------------------------------
    def count_from_process_start(self) -> None:
        """Let --timeout run from the process's start, as the host that spawned it counts, not
        from this object: interpreter start-up takes a second and more on a loaded machine."""
        self.started = time.monotonic() - process_age()

    def remaining(self, default: float | None = None) -> float | None:
        """Seconds left before the call's deadline (None when unbounded)."""
        deadline = self.deadline
        if self.attempt_deadline is not None:
            deadline = self.attempt_deadline if deadline is None else min(deadline, self.attempt_deadline)
        if deadline is None:
            return default
        return max(0.0, deadline - time.monotonic())

    def bounded(self, seconds: float) -> float:
        """``seconds`` cut to what is left of the call's deadline."""
        left = self.remaining()
        if left is None:
            return seconds
        return max(0.01, min(seconds, left)) if seconds else max(0.01, left)

    def warn(self, message: Any) -> None:
        self.warnings.append(message)

    # -- children -----------------------------------------------------------
    def track(self, proc: T) -> T:
        self.children.add(proc)
        return proc

    def spawning(self) -> threading.RLock:
        """Hold it from a child's spawn to its ``track``: a signal's cleanup runs on the main
        thread while the work thread spawns, and a child it cannot see would outlive the
        call (a browser recreates its profile in the removed temp directory)."""
        return self._spawn_lock

    def _kill_children(self) -> None:
        for proc in list(self.children):
            try:
                proc.kill()
            except Exception:
                pass

    # -- exit ---------------------------------------------------------------
    def cleanup(self) -> None:
        # kept to the exit: no child can start after the kill, nor between its spawn and track
        self._spawn_lock.acquire(timeout=2.0)
        self._kill_children()
        regex_cache = sys.modules.get("worker.regex_cache")
        if regex_cache is not None:
            regex_cache.abandon()  # a signal that came while it wrote its file
        if self.tempdir and not self.keep_temp:
            remove_tree(self.tempdir)
        elif self.tempdir:
            sys.stderr.write("websearch-worker: kept temp dir %s\n" % self.tempdir)

    def finish(self, code: int) -> NoReturn:
        """Clean up and leave now, whatever other threads are doing."""
        self._exiting = True
        self.cleanup()
        try:
            sys.stderr.flush()
        except Exception:
            pass
        os._exit(code)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        for sig in HANDLED_SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
        self.cancelled.set()
        name = SIGNAL_NAMES.get(signum, "signal %d" % signum)
        # emit() never waits: if the main thread was interrupted inside its own
        # emit (a large block in a full pipe), this one is dropped and we exit.
        self.emit(protocol.render_cancelled(name))
        self.finish(protocol.EXIT_CANCELLED)

    def install_signal_handlers(self, early: Sequence[int] = ()) -> None:
        """SIGTERM, SIGINT and SIGHUP cancel the call; ``early`` are signals that came before this."""
        for sig in HANDLED_SIGNALS:
            signal.signal(sig, self._on_signal)
        # bootstrap/run.py execs us with these blocked, so one sent while the
        # interpreter started is held, not fatal: now it can be delivered.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, HANDLED_SIGNALS)
        if early:
            self._on_signal(early[0], None)

    def run(self, work: Callable[[], Any]) -> tuple[str, Any]:
        """Run ``work()`` on a daemon thread; return ("ok", value) or ("error", exc) or ("timeout", None)."""
        box: dict[str, Any] = {}
        done = threading.Event()

        def target() -> None:
            try:
                box["value"] = work()
            except BaseException as exc:  # handed to the main thread, which owns error mapping
                box["error"] = exc
            finally:
                done.set()

        thread = threading.Thread(target=target, name="websearch-work", daemon=True)
        thread.start()
        # Short waits keep the main thread responsive to signals.
        while not done.wait(0.05):
            if self.deadline is not None and time.monotonic() >= self.deadline:
                return "timeout", None
        if "error" in box:
            return "error", box["error"]
        return "ok", box.get("value")
