"""The state on this machine: SQLite files and lock files in the cache directory (backend.State).

* ``cache.sqlite3``: the result cache (worker/state/cache.py has the policy);
* ``breaker.sqlite3``: one row per circuit (worker/state/breaker.py has the rules),
  its own file so ``--no-cache`` and a cache rebuild leave it alone;
* ``locks/<key>.last``: the start reserved last for a rate-limited key.

Both files are ``sqlite_file.SqliteFile``s: WAL, short transactions, short busy
timeouts, a damaged file set aside and rebuilt.  The cache hit path runs through
here: it imports nothing but the SQLite driver.
"""

from __future__ import annotations

import os
import sys
import time

from .backend import MAX_CIRCUIT_WAIT, State
from .sqlite_file import SqliteFile, transaction

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from sqlite3 import Connection
    from typing import Any

    from ..runtime import Call
    from .backend import Circuit, Record, Row

CACHE_DB = "cache.sqlite3"
BREAKER_DB = "breaker.sqlite3"
CACHE_SCHEMA_VERSION = 1
CACHE_BUSY_TIMEOUT_S = 1.0  # short: a cache that is busy this long is skipped, not waited for
BREAKER_BUSY_TIMEOUT_S = 0.5
LOCK_WAIT_S = 1.0  # a .last file locked longer than this belongs to a stopped process: not limiting
MAX_AHEAD_S = 3600.0  # a reserved start further ahead than this (and 100 intervals) is a clock that stepped back

# -- the cache file ----------------------------------------------------------------------

_CACHE_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    key      TEXT PRIMARY KEY,
    tool     TEXT NOT NULL,
    provider TEXT NOT NULL,
    created  REAL NOT NULL,
    expires  REAL NOT NULL,
    size     INTEGER NOT NULL,
    value    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_expires ON entries(expires);
CREATE INDEX IF NOT EXISTS entries_created ON entries(created);
"""


def _init_cache(db: Connection) -> None:
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version != CACHE_SCHEMA_VERSION:
        # auto_vacuum must be chosen before the first table exists; WAL persists in the file.
        db.execute("PRAGMA auto_vacuum=INCREMENTAL")
        db.execute("PRAGMA journal_mode=WAL")

        def create() -> None:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version != CACHE_SCHEMA_VERSION:  # another process may have won the race
                if version:
                    db.execute("DROP TABLE IF EXISTS entries")
                for stmt in _CACHE_SCHEMA.split(";"):
                    if stmt.strip():
                        db.execute(stmt)
                db.execute("PRAGMA user_version=%d" % CACHE_SCHEMA_VERSION)

        transaction(db, create)
    # Per-connection settings; the file's own (WAL, auto_vacuum) persist in it.
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA journal_size_limit=%d" % (8 * 1024 * 1024))


def _bound_size(db: Connection, limit: int) -> None:
    """Oldest entries out until the live data fits in 90% of the bound."""
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    pages = db.execute("PRAGMA page_count").fetchone()[0] - db.execute("PRAGMA freelist_count").fetchone()[0]
    if pages * page_size <= limit:
        return
    total = db.execute("SELECT COALESCE(SUM(size), 0) FROM entries").fetchone()[0]
    # Row sizes undercount pages (keys, indexes, slack); scale the target accordingly.
    overhead = (pages * page_size) / max(1, total)
    target = int(limit * 0.9 / overhead)
    excess = total - target
    victims = []
    for key, size in db.execute("SELECT key, size FROM entries ORDER BY created"):
        if excess <= 0:
            break
        victims.append((key,))
        excess -= size
    db.executemany("DELETE FROM entries WHERE key = ?", victims)


def _release_free_pages(db: Connection) -> None:
    # Deleted rows leave free pages inside the file; give them back to the
    # file system once there are enough to matter (each step frees a page).
    if db.execute("PRAGMA freelist_count").fetchone()[0] >= 256:
        db.execute("PRAGMA incremental_vacuum").fetchall()


def _test_pause(point: str) -> None:
    """Fault injection for tests/state/test_load.py: stop inside the write transaction so a test can kill us there."""
    if os.environ.get("WEBSEARCH_WORKER_TEST_PAUSE") == point:
        _say_cache("test pause: %s" % point)
        time.sleep(float(os.environ.get("WEBSEARCH_WORKER_TEST_PAUSE_S") or 30))


def _say_cache(message: str) -> None:
    try:
        sys.stderr.write("websearch-worker: cache: %s\n" % message)
        sys.stderr.flush()
    except Exception:
        pass


_breaker_said = False


def _say_breaker(message: str) -> None:
    global _breaker_said
    if _breaker_said:
        return
    _breaker_said = True
    try:
        sys.stderr.write("websearch-worker: breaker: %s\n" % message)
        sys.stderr.flush()
    except Exception:
        pass


# -- the breaker file ----------------------------------------------------------------------

_BREAKER_SCHEMA = """
CREATE TABLE IF NOT EXISTS circuits (
    key         TEXT PRIMARY KEY,
    failures    INTEGER NOT NULL,
    first_at    REAL NOT NULL,
    open_until  REAL NOT NULL,
    probe_until REAL NOT NULL,
    last_code   TEXT,
    updated     REAL NOT NULL
)
"""


def _init_breaker(db: Connection) -> None:
    if db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute(_BREAKER_SCHEMA)


def read_row(row: Any) -> tuple[int, float, float, float, str | None] | None:
    """(failures, first_at, open_until, probe_until, last_code) of a stored row, or None when a value is not
    one the breaker writes (text, a blob, NULL, a number out of range: another program, or a damaged page).
    """
    from .. import checked
    from ..errors import CODES

    try:
        failures, first_at, open_until, probe_until, code = row
    except (TypeError, ValueError):
        return None
    # SQLite hands back int, float, str, bytes or None; the number reader takes only the first two here.
    times = [checked.number(v, 0, checked.MAX_EPOCH) if isinstance(v, (int, float)) else None for v in row[1:4]]
    count = checked.whole(failures, 0, 10**6) if isinstance(failures, int) else None
    if count is None or None in times or not (code is None or isinstance(code, str) and code in CODES):
        return None
    return count, float(times[0] or 0), float(times[1] or 0), float(times[2] or 0), code


# -- the state -------------------------------------------------------------------------------


class SqliteState(State):
    """backend.State on this machine's files; never raises Unavailable."""

    name = "sqlite"

    def __init__(self, directory: str, call: Call | None = None) -> None:
        from . import sqlite_backend as me  # read the busy timeouts when a file opens: tests lower them

        self.directory = directory
        self.call = call
        self.cache = SqliteFile(
            os.path.join(directory, CACHE_DB), _init_cache, lambda: me.CACHE_BUSY_TIMEOUT_S, call, _say_cache
        )
        self.breaker = SqliteFile(
            os.path.join(directory, BREAKER_DB),
            _init_breaker,
            lambda: me.BREAKER_BUSY_TIMEOUT_S,
            call,
            _say_breaker,
            broken="replace",
            busy_is_trouble=True,
        )

    def close(self) -> None:
        self.cache.close()
        self.breaker.close()

    # -- the cache -----------------------------------------------------------------------
    def cache_get_many(self, keys: list[str]) -> dict[str, Row]:
        if not keys or not os.path.exists(self.cache.path):
            return {}  # a missing file is a miss without importing sqlite3
        out: dict[str, Row] = {}
        for key in keys:

            def read(db: Connection, key: str = key) -> Any:
                return db.execute("SELECT created, expires, value FROM entries WHERE key = ?", (key,)).fetchone()

            row = self.cache.run("reading the cache", read)
            if row is not None:
                out[key] = (row[0], row[1], row[2], time.time())
        return out

    def cache_put(self, records: list[Record], keep: float, max_bytes: int) -> None:
        now = time.time()
        rows = [(key, tool, provider, now, now + keep, len(text), text) for key, tool, provider, text in records]

        def write(db: Connection) -> bool:
            def insert() -> None:
                db.executemany(
                    "INSERT OR REPLACE INTO entries (key, tool, provider, created, expires, size, value)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    rows,
                )
                _test_pause("cache-write")
                db.execute("DELETE FROM entries WHERE expires <= ?", (now,))
                _bound_size(db, max_bytes)

            transaction(db, insert)
            _release_free_pages(db)
            return True

        if rows:
            self.cache.run("writing the cache", write)

    # -- rate limits -----------------------------------------------------------------------
    def _last_file(self, key: str) -> int:
        """The locked ``.last`` file of ``key``, or -1 when another process holds it too long."""
        import fcntl

        locks = os.path.join(self.directory, "locks")
        os.makedirs(locks, mode=0o700, exist_ok=True)
        fd = os.open(os.path.join(locks, "%s.last" % key), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        give_up = time.monotonic() + LOCK_WAIT_S
        while True:  # held for a read and a write only; polled so a stopped holder cannot hold us
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                if time.monotonic() > give_up:
                    os.close(fd)
                    return -1
                time.sleep(0.002)

    def reserve(self, key: str, interval: float, max_wait: float | None) -> float | None:
        fd = self._last_file(key)
        if fd < 0:
            return 0.0
        try:
            now = time.time()
            last = _read_time(fd)
            if last - now > max(MAX_AHEAD_S, 100 * interval):  # the clock stepped back: forget it
                last = 0.0
            start = max(now, last + interval)
            wait = start - now
            if max_wait is not None and wait > max_wait:
                return None
            _write_time(fd, start)
            return wait
        finally:
            os.close(fd)  # drops the flock

    def defer(self, key: str, interval: float, seconds: float) -> None:
        fd = self._last_file(key)
        if fd < 0:
            return
        try:
            now = time.time()
            last = _read_time(fd)
            if last - now > max(MAX_AHEAD_S, 100 * interval):
                last = 0.0
            # stored: the last start; the next one is ``interval`` after it
            _write_time(fd, max(last, now + seconds - interval))
        finally:
            os.close(fd)

    # -- the breaker -----------------------------------------------------------------------
    def _row(self, db: Connection, key: str) -> tuple[int, float, float, float, str | None] | None:
        row = db.execute(
            "SELECT failures, first_at, open_until, probe_until, last_code FROM circuits WHERE key = ?", (key,)
        ).fetchone()
        if row is None:
            return None
        checked_row = read_row(row)
        if checked_row is None:
            _say_breaker(
                "a row of %s holds values that are not the breaker's; it is read as absent" % self.breaker.path
            )
        return checked_row

    def circuit_check(self, key: str, now: float, probe: float) -> Circuit | None:
        def decide(db: Connection) -> Circuit:
            row = self._row(db, key)
            if row is None:
                return ("go", None, None, 0)
            failures, _first, open_until, probe_until, code = row
            if not open_until or open_until > now + MAX_CIRCUIT_WAIT + 60:  # closed, or a clock that stepped back
                return ("go", None, None, 0)
            if now < open_until:
                return ("skip", open_until, code, failures)
            if probe_until > now:
                return ("skip", probe_until, code, failures)

            def take() -> Circuit:
                again = self._row(db, key)
                if again is None or not again[2]:
                    return ("go", None, None, 0)
                if again[3] > now:  # another process took the lease first
                    return ("skip", again[3], again[4], again[0])
                db.execute("UPDATE circuits SET probe_until = ?, updated = ? WHERE key = ?", (now + probe, now, key))
                return ("probe", None, again[4], again[0])

            return transaction(db, take)

        return self.breaker.run("reading the breaker", decide)

    def circuit_trip(self, key: str, code: str, now: float, wait: float, window: float, threshold: int) -> None:
        def trip(db: Connection) -> None:
            def update() -> None:
                row = self._row(db, key)
                if row is not None and row[2]:
                    # It was open (a probe, or an explicit call during the cool-down): open again.
                    failures, first_at, open_until = row[0] + 1, row[1], now + wait
                elif row is None or now - row[1] > window or now < row[1]:
                    failures, first_at, open_until = 1, now, 0.0
                else:
                    failures, first_at, open_until = row[0] + 1, row[1], 0.0
                if not open_until and failures >= threshold:
                    open_until = now + wait
                db.execute(
                    "INSERT OR REPLACE INTO circuits (key, failures, first_at, open_until, probe_until,"
                    " last_code, updated) VALUES (?, ?, ?, ?, 0, ?, ?)",
                    (key, failures, first_at, open_until, code, now),
                )

            transaction(db, update)

        self.breaker.run("writing the breaker", trip)

    def circuit_clear(self, key: str) -> None:
        self.breaker.run("writing the breaker", lambda db: db.execute("DELETE FROM circuits WHERE key = ?", (key,)))

    def circuit_release(self, key: str, now: float) -> None:
        self.breaker.run(
            "writing the breaker",
            lambda db: db.execute("UPDATE circuits SET probe_until = 0, updated = ? WHERE key = ?", (now, key)),
        )


def _read_time(fd: int) -> float:
    """The last start in a ``.last`` file; 0 (no wait) for anything that is not one (NaN held
    every call of the key until its deadline: no comparison with NaN ends the wait)."""
    from .. import checked

    try:
        text = os.pread(fd, 32, 0).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return 0.0
    return float(checked.number(text, 0, checked.MAX_EPOCH) or 0.0)


def _write_time(fd: int, value: float) -> None:
    # Fixed width: one small pwrite, so a killed process leaves an old or a new time.
    os.pwrite(fd, ("%-31.6f\n" % value).encode("ascii"), 0)
