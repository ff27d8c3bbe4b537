"""A circuit breaker shared by every worker process of the user.

Every call is a fresh process, so what one call learns about a blocked engine
must be on disk for the next: ``breaker.sqlite3`` beside the cache file (the
same directory, its own file so ``--no-cache`` and a cache rebuild leave it
alone).  One row per circuit: a provider name (``provider:exa-main``) or a
ddgs engine (``ddgs:duckduckgo``).

* Closed: calls go through.  ``threshold`` consecutive ``blocked`` or
  ``rate_limited`` answers within ``window`` seconds open it (a success resets
  the count; other failures neither count nor reset: a timeout says nothing
  about being blocked).
* Open: calls skip it until ``cooldown`` seconds have passed, or the
  provider's own ``retry_after`` when it gave one.
* Half-open: the first call after that takes a probe lease (``probe`` seconds)
  in one transaction, so exactly one process probes; the others keep skipping
  until the lease ends.  A probe that succeeds closes the circuit; one that is
  blocked again re-opens it; any other outcome gives the lease back.  A
  process killed mid-probe leaves a lease that simply runs out.

State is written in short SQLite transactions (WAL), so a process killed at
any point leaves the previous or the next state.  Wall-clock time, because
processes share it; a time far in the future (the clock stepped back) is
treated as closed.  Breaker trouble (a busy, broken or unwritable file) never
fails a call: the breaker steps aside for that call with one line on stderr.

A call that names its provider (``--provider X``) is never skipped; its
outcome is still recorded.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from sqlite3 import Connection
    from typing import Any, Callable, Mapping, TypeVar

    from ..runtime import Call

    T = TypeVar("T")

DB_NAME = "breaker.sqlite3"
TRIP_CODES = frozenset({"blocked", "rate_limited"})
DEFAULTS = {"threshold": 3, "window": 60.0, "cooldown": 120.0, "probe": 30.0}
MAX_WAIT = 24 * 3600.0  # a retry_after beyond a day is not a wait we hold a circuit for
BUSY_TIMEOUT_S = 0.5

_SCHEMA = """
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

_warned = False


def _stderr(message: str) -> None:
    global _warned
    if _warned:
        return
    _warned = True
    try:
        sys.stderr.write("websearch-worker: breaker: %s\n" % message)
        sys.stderr.flush()
    except Exception:
        pass


def settings(config_settings: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The breaker's settings from the config file's ``breaker`` value; None when it is off."""
    value = (config_settings or {}).get("breaker", True)
    if value is False:
        return None
    out = dict(DEFAULTS)
    if isinstance(value, dict):
        out.update({k: v for k, v in value.items() if k in DEFAULTS})
    return out


def iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


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


class Decision:
    """What the breaker says about one circuit: ``go`` (closed), ``probe`` or ``skip`` (open)."""

    def __init__(self, state: str, until: float | None = None, code: str | None = None, failures: int = 0):
        self.state = state
        self.until = until
        self.code = code
        self.failures = failures

    def skipped(self, now: float, **where: Any) -> dict[str, Any]:
        until = self.until
        assert until is not None  # only a skip is shown, and a skip always says until when
        out = dict(where)
        out.update(
            {
                "until": iso(until),
                "retry_in_s": round(max(0.0, until - now), 1),
                "reason": self.code or "blocked",
                "failures": self.failures,
            }
        )
        return out


GO = Decision("go")


class Breaker:
    def __init__(
        self,
        directory: str,
        conf: dict[str, Any],
        clock: Callable[[], float] = time.time,
        call: Call | None = None,
    ):
        self.path = os.path.join(directory, DB_NAME)
        self.directory = directory
        self.conf = conf
        self.clock = clock
        self.call = call
        self._db: Connection | None = None
        self._off = False
        self.probing: set[str] = set()  # keys this process holds a probe lease on

    # -- storage -------------------------------------------------------------
    def _connect(self) -> Connection:
        from .cache import _sqlite

        sqlite3 = _sqlite()
        os.makedirs(self.directory, mode=0o700, exist_ok=True)
        left = self.call.remaining() if self.call is not None else None
        timeout = BUSY_TIMEOUT_S if left is None else max(0.05, min(BUSY_TIMEOUT_S, left))
        db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None, check_same_thread=False)
        try:
            if db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(_SCHEMA)
        except BaseException:
            db.close()
            raise
        return db

    def _run(self, what: str, fn: Callable[[Connection], T], retry: bool = True) -> T | None:
        if self._off:
            return None
        from .cache import _BROKEN, _code, _sqlite

        sqlite3 = _sqlite()
        try:
            if self._db is None:
                self._db = self._connect()
            return fn(self._db)
        except (sqlite3.Error, OSError) as exc:
            self.close()
            code = _code(exc) if isinstance(exc, sqlite3.Error) else None
            if retry and code in _BROKEN:
                # The file holds nothing but cool-down times: start afresh rather than keep a broken one.
                for suffix in ("", "-wal", "-shm"):
                    try:
                        os.unlink(self.path + suffix)
                    except OSError:
                        pass
                _stderr("%s was unusable (%s); started a new one" % (self.path, " ".join(str(exc).split())[:200]))
                return self._run(what, fn, retry=False)
            _stderr("%s failed (%s); not skipping providers in this call" % (what, " ".join(str(exc).split())[:200]))
            self._off = True
            return None

    def close(self) -> None:
        if self._db is not None:
            try:
                self._db.close()
            except Exception:
                pass
            self._db = None

    @staticmethod
    def _transaction(db: Connection, fn: Callable[[], T]) -> T:
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

    def _row(self, db: Connection, key: str) -> tuple[int, float, float, float, str | None] | None:
        row = db.execute(
            "SELECT failures, first_at, open_until, probe_until, last_code FROM circuits WHERE key = ?", (key,)
        ).fetchone()
        if row is None:
            return None
        checked_row = read_row(row)
        if checked_row is None:
            _stderr("a row of %s holds values that are not the breaker's; it is read as absent" % self.path)
        return checked_row

    # -- the state machine ---------------------------------------------------------
    def check(self, key: str) -> Decision:
        """GO, a probe lease (``probe``), or ``skip`` with the time the circuit may close."""
        now = self.clock()

        def decide(db: Connection) -> Decision:
            row = self._row(db, key)
            if row is None:
                return GO
            failures, _first, open_until, probe_until, code = row
            if not open_until or open_until > now + MAX_WAIT + 60:  # closed, or a clock that stepped back
                return GO
            if now < open_until:
                return Decision("skip", open_until, code, failures)
            if probe_until > now:
                return Decision("skip", probe_until, code, failures)

            def take() -> Decision:
                again = self._row(db, key)
                if again is None or not again[2]:
                    return GO
                if again[3] > now:  # another process took the lease first
                    return Decision("skip", again[3], again[4], again[0])
                db.execute(
                    "UPDATE circuits SET probe_until = ?, updated = ? WHERE key = ?",
                    (now + float(self.conf["probe"]), now, key),
                )
                return Decision("probe", None, again[4], again[0])

            return self._transaction(db, take)

        decision = self._run("reading the breaker", decide) or GO
        if decision.state == "probe":
            self.probing.add(key)
        return decision

    def record(self, key: str, code: str | None = None, retry_after: float | None = None) -> None:
        """An outcome for ``key``: None for a success, else the error code."""
        now = self.clock()
        probing = key in self.probing
        self.probing.discard(key)
        if code is None:
            self._run("writing the breaker", lambda db: db.execute("DELETE FROM circuits WHERE key = ?", (key,)))
            return
        if code not in TRIP_CODES:
            if probing:  # the probe proved nothing: the next call probes again
                self._run(
                    "writing the breaker",
                    lambda db: db.execute("UPDATE circuits SET probe_until = 0, updated = ? WHERE key = ?", (now, key)),
                )
            return
        wait = float(self.conf["cooldown"])
        if isinstance(retry_after, (int, float)) and not isinstance(retry_after, bool) and retry_after > 0:
            wait = min(float(retry_after), MAX_WAIT)

        def trip(db: Connection) -> None:
            def update() -> None:
                row = self._row(db, key)
                if row is not None and row[2]:
                    # It was open (a probe, or an explicit call during the cool-down): open again.
                    failures, first_at, open_until = row[0] + 1, row[1], now + wait
                elif row is None or now - row[1] > float(self.conf["window"]) or now < row[1]:
                    failures, first_at, open_until = 1, now, 0.0
                else:
                    failures, first_at, open_until = row[0] + 1, row[1], 0.0
                if not open_until and failures >= int(self.conf["threshold"]):
                    open_until = now + wait
                db.execute(
                    "INSERT OR REPLACE INTO circuits (key, failures, first_at, open_until, probe_until,"
                    " last_code, updated) VALUES (?, ?, ?, ?, 0, ?, ?)",
                    (key, failures, first_at, open_until, code, now),
                )

            self._transaction(db, update)

        self._run("writing the breaker", trip)


class _Off:
    """The breaker turned off (config ``"breaker": false``): every circuit closed, nothing written."""

    probing: frozenset[str] = frozenset()

    def check(self, key: str) -> Decision:
        return GO

    def record(self, key: str, code: str | None = None, retry_after: float | None = None) -> None:
        pass

    def close(self) -> None:
        pass


def open_breaker(
    directory: str,
    config_settings: Mapping[str, Any] | None,
    call: Call | None = None,
    clock: Callable[[], float] = time.time,
) -> Breaker | _Off:
    conf = settings(config_settings)
    if conf is None:
        return _Off()
    return Breaker(directory, conf, clock=clock, call=call)


class Guard:
    """What one provider attempt sees of the breaker: the breaker, and whether it may skip.

    ``enforce`` is False when the user named the provider (or the ddgs engines):
    then nothing is skipped, and outcomes are still recorded.
    """

    def __init__(self, breaker: Breaker | _Off, enforce: bool):
        self.breaker = breaker
        self.enforce = enforce
        self.skipped: list[dict[str, Any]] = []

    def check(self, key: str) -> Decision:
        if not self.enforce:
            return GO
        return self.breaker.check(key)

    def record(self, key: str, code: str | None = None, retry_after: float | None = None) -> None:
        self.breaker.record(key, code, retry_after)

    def now(self) -> float:
        return getattr(self.breaker, "clock", time.time)()
