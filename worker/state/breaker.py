"""A circuit breaker shared by every worker process of the user.

Every call is a fresh process, so what one call learns about a blocked engine
is kept in the call's state (worker/state/backend.py) for the next: by default
``breaker.sqlite3`` beside the cache file (sqlite_backend.py), or a
Redis/Valkey server shared by a fleet of machines (redis_backend.py: what one
machine learns, every machine skips).  One circuit per provider name
(``provider:exa-main``) or ddgs engine (``ddgs:duckduckgo``).

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

This module holds the rules; the backend applies them atomically (SQLite
transactions, Redis scripts), so a process killed at any point leaves the
previous or the next state.  Wall-clock time, because processes share it (the
server's, on Redis); a time far in the future (the clock stepped back) is
treated as closed.  Breaker trouble (a busy, broken or unwritable file, an
unreachable Redis) never fails a call: the breaker steps aside for that call
with one line on stderr, or Redis gives way to the local file.

A call that names its provider (``--provider X``) is never skipped; its
outcome is still recorded.
"""

from __future__ import annotations

import os
import time

from .backend import MAX_CIRCUIT_WAIT
from .sqlite_backend import BREAKER_DB

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any, Callable, Mapping

    from ..runtime import Call

DB_NAME = BREAKER_DB
TRIP_CODES = frozenset({"blocked", "rate_limited"})
DEFAULTS = {"threshold": 3, "window": 60.0, "cooldown": 120.0, "probe": 30.0}
MAX_WAIT = MAX_CIRCUIT_WAIT  # a retry_after beyond a day is not a wait we hold a circuit for


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
    """The rules over the call's state: threshold, window, cool-down, one probe at a time."""

    def __init__(
        self,
        directory: str,
        conf: dict[str, Any],
        clock: Callable[[], float] = time.time,
        call: Call | None = None,
    ):
        from . import backend

        self.path = os.path.join(directory, DB_NAME)
        self.directory = directory
        self.conf = conf
        self.clock = clock
        self.call = call
        self.state, self._owned = backend.for_call(call, directory)
        self.probing: set[str] = set()  # keys this process holds a probe lease on

    def close(self) -> None:
        if self._owned:
            self.state.close()

    def check(self, key: str) -> Decision:
        """GO, a probe lease (``probe``), or ``skip`` with the time the circuit may close."""
        found = self.state.circuit_check(key, self.clock(), float(self.conf["probe"]))
        if found is None or found[0] == "go":
            return GO
        state, until, code, failures = found
        if state == "probe":
            self.probing.add(key)
        return Decision(state, until, code, failures)

    def record(self, key: str, code: str | None = None, retry_after: float | None = None) -> None:
        """An outcome for ``key``: None for a success, else the error code."""
        now = self.clock()
        probing = key in self.probing
        self.probing.discard(key)
        if code is None:
            self.state.circuit_clear(key)
            return
        if code not in TRIP_CODES:
            if probing:  # the probe proved nothing: the next call probes again
                self.state.circuit_release(key, now)
            return
        wait = float(self.conf["cooldown"])
        if isinstance(retry_after, (int, float)) and not isinstance(retry_after, bool) and retry_after > 0:
            wait = min(float(retry_after), MAX_WAIT)
        self.state.circuit_trip(key, code, now, wait, float(self.conf["window"]), int(self.conf["threshold"]))


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
