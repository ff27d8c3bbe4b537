"""One SQLite file of the local state, opened on first use; its trouble never a failed call.

The plumbing the cache file and the breaker file share (worker/state/sqlite_backend.py): WAL mode
(readers never wait for the writer), every write one short transaction (a process killed in the
middle leaves the previous state; the torn tail of the WAL is ignored on the next open), short busy
timeouts bounded by the call's deadline (a busy file costs a skipped read or write, never the
call).  A file SQLite calls corrupt or unopenable is moved aside (the cache: kept for a look) or
removed (the breaker: it holds nothing but cool-down times) and rebuilt, with one line on stderr;
any other trouble turns the file off for the call.

The cache hit path runs through here: it imports nothing but the SQLite driver.
"""

from __future__ import annotations

import os
import threading
import time

from ..startup import on

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from sqlite3 import Connection
    from typing import Any, Callable, TypeVar

    from ..runtime import Call

    T = TypeVar("T")

# SQLite primary result codes (sqlite3.Error.sqlite_errorcode & 0xff).
BUSY = {5, 6}  # SQLITE_BUSY, SQLITE_LOCKED
BROKEN = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB
UNREADABLE = {3, 8, 10, 14, 23}  # PERM, READONLY, IOERR, CANTOPEN, AUTH


def driver() -> Any:
    """The SQLite driver: the C module itself when it is there.

    ``sqlite3`` adds datetime adapters we never use, and importing ``datetime``
    for them is a measurable share of a cache hit; ``sqlite3.Error`` and friends
    are the C module's own classes, so nothing else differs.
    """
    try:
        if not on("sqlite"):  # WEBSEARCH_WORKER_PLAIN: the public module
            raise ImportError("the sqlite trick is off")
        import _sqlite3 as found

        found.connect, found.Error  # noqa: B018 -- present in every CPython we run on; else the public module
    except (ImportError, AttributeError):
        import sqlite3 as found  # type: ignore[no-redef]  # the public name of the same classes
    return found


def error_code(exc: BaseException) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return 5
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return 11
    if "unable to open" in text or "readonly" in text or "disk i/o" in text:
        return 14
    return None


def one_line(exc: BaseException, limit: int = 200) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def transaction(db: Connection, fn: Callable[[], T]) -> T:
    """``fn()`` inside BEGIN IMMEDIATE ... COMMIT, rolled back on any exception."""
    db.execute("BEGIN IMMEDIATE")
    try:
        out = fn()
        db.execute("COMMIT")
        return out
    except BaseException:
        try:
            db.execute("ROLLBACK")
        except Exception:
            pass
        raise


class SqliteFile:
    """One SQLite file of the state: opened on first use, its trouble never a failed call.

    ``init(db)`` sets a new connection up (schema, pragmas); ``broken`` is "move"
    (rename a damaged file aside) or "replace" (remove it); ``say`` writes a line on stderr.
    """

    def __init__(
        self,
        path: str,
        init: Callable[[Connection], None],
        busy_timeout: Callable[[], float],
        call: Call | None,
        say: Callable[[str], None],
        broken: str = "move",
        busy_is_trouble: bool = False,
    ) -> None:
        self.path = path
        self.directory = os.path.dirname(path)
        self.init = init
        self.busy_timeout = busy_timeout
        self.call = call
        self.say = say
        self.broken = broken
        self.busy_is_trouble = busy_is_trouble  # the breaker steps aside for the call rather than retry
        self._db: Connection | None = None
        self.off = False  # gave up on the file for this call
        # One connection per file and call, used from the fetch's threads too: one transaction at a time.
        self._lock = threading.RLock()

    def connect(self) -> Connection:
        sqlite3 = driver()
        os.makedirs(self.directory, mode=0o700, exist_ok=True)
        limit = self.busy_timeout()
        left = self.call.remaining() if self.call is not None else None
        timeout = limit if left is None else max(0.05, min(limit, left))
        db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None, check_same_thread=False)
        try:
            self.init(db)
        except BaseException:
            db.close()
            raise
        return db

    def close(self) -> None:
        if self._db is not None:
            try:
                self._db.close()
            except Exception:
                pass
            self._db = None

    def run(self, what: str, fn: Callable[[Connection], T], retry: bool = True) -> T | None:
        """``fn(db)``; SQLite or file-system trouble becomes None (and a line on stderr when it matters)."""
        with self._lock:
            return self._run(what, fn, retry)

    def _run(self, what: str, fn: Callable[[Connection], T], retry: bool) -> T | None:
        if self.off:
            return None
        sqlite3 = driver()
        try:
            if self._db is None:
                self._db = self.connect()
            return fn(self._db)
        except (sqlite3.Error, OSError) as exc:
            code = error_code(exc) if isinstance(exc, sqlite3.Error) else None
            if code in BUSY and not self.busy_is_trouble:
                return None  # another process holds the file for longer than we wait: skip
            self.close()
            if code in BROKEN or (self.broken == "move" and code in UNREADABLE):
                if retry and self._set_aside(exc):
                    return self._run(what, fn, retry=False)
            else:
                self.say("%s failed (%s); %s" % (what, one_line(exc), self.giving_up))
            self.off = True
            return None

    @property
    def giving_up(self) -> str:
        return "continuing without the cache" if self.broken == "move" else "not skipping providers in this call"

    def _set_aside(self, exc: BaseException) -> bool:
        if self.broken == "replace":
            for suffix in ("", "-wal", "-shm"):
                try:
                    os.unlink(self.path + suffix)
                except OSError:
                    pass
            self.say("%s was unusable (%s); started a new one" % (self.path, one_line(exc)))
            return True
        return self._move_aside(exc)

    def _move_aside(self, exc: BaseException) -> bool:
        """Rename a corrupt or unreadable file so the next open rebuilds it."""
        import fcntl

        stamp = time.strftime("%Y%m%d-%H%M%S")
        lock_path = os.path.join(self.directory, "cache.lock")
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as err:
            self.say(
                "cache file %s is unusable (%s) and cannot be replaced (%s); continuing without the cache"
                % (self.path, one_line(exc), one_line(err))
            )
            return False
        try:
            # Serialised: a second process that saw the same damage must not move the fresh file aside.
            fcntl.flock(fd, fcntl.LOCK_EX)
            if self._usable():
                return True
            aside = "%s.broken-%s-%d" % (self.path, stamp, os.getpid())
            for suffix in ("", "-wal", "-shm"):
                try:
                    os.rename(self.path + suffix, aside + suffix)
                except FileNotFoundError:
                    pass
            self.say(
                "cache file %s was unusable (%s); moved it to %s and started a new one"
                % (self.path, one_line(exc), aside)
            )
            return True
        except OSError as err:
            self.say(
                "cache file %s is unusable (%s) and cannot be moved aside (%s); continuing without the cache"
                % (self.path, one_line(exc), one_line(err))
            )
            return False
        finally:
            os.close(fd)

    def _usable(self) -> bool:
        """Does the file open and pass a quick check now?"""
        sqlite3 = driver()
        if not os.path.exists(self.path):
            return True
        try:
            db = self.connect()
        except (sqlite3.Error, OSError):
            return False
        try:
            ok = db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        except sqlite3.Error:
            ok = False
        db.close()
        return ok
