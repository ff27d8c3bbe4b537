"""The one interface the cache, the rate limiter and the breaker keep their shared state through.

Two backends implement ``State``:

* ``sqlite_backend.SqliteState``: SQLite files and lock files in the cache
  directory, shared by the processes of one user on one machine.  The default,
  and the local state every call falls back to.
* ``redis_backend.RedisState``: a Redis or Valkey server shared by a fleet of
  machines, chosen by the config's ``"state": "redis://host:6379/0"``
  (``rediss://`` for TLS) or ``"stateEnv": "NAME"`` (the URL in that variable).

A Redis that cannot be reached, is slow or refuses raises ``Unavailable``;
``WithFallback`` turns that into one warning and local state for the rest of
the call, so Redis never fails, hangs or loses a call's answer.

Times: the SQLite backend reads this machine's clock (``now`` arguments, so
tests can drive it); the Redis backend reads the server's (``TIME`` in its
scripts), so a fleet agrees whatever its machines' clocks say.

Nothing here imports more than the standard library's small modules: this is on
every call's path, and the Redis backend is imported only when the config names it.
"""

from __future__ import annotations

import os
import sys
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Mapping
    from typing import Any

    from ..runtime import Call

    # (created, expires or None, stored text, now): a cache row and the backend's clock when it was read
    Row = tuple[float, float | None, str, float]
    # (key, tool, provider, text)
    Record = tuple[str, str, str, str]
    # (state: go | skip | probe, until or None, last code, failures)
    Circuit = tuple[str, float | None, str | None, int]

ENV_STATE = "stateEnv"  # the config setting naming the environment variable that holds the URL
MAX_CIRCUIT_WAIT = 24 * 3600.0  # a retry_after beyond a day is not a wait we hold a circuit for
SCHEMES = ("redis", "rediss")
CONNECT_TIMEOUT_S = 0.25  # a Redis on the same network answers a connect in a millisecond
IO_TIMEOUT_S = 0.5  # one round trip: a server slower than this is treated as down for the call
MIN_TIMEOUT_S = 0.01
# A shared state that never answers must leave the provider most of a short call: one wait on it
# takes at most this share of what the call has left (a 1 s call that started in 0.3 s keeps 0.5 s).
SHARE_OF_LEFT = 0.25


class Unavailable(Exception):
    """The shared backend cannot serve this call (unreachable, slow, refusing); the message is one line."""


class State:
    """The interface.  Every method of a backend other than SQLite may raise Unavailable."""

    name = "state"
    directory = ""  # the local state's directory: the cache directory of the call

    def cache_get_many(self, keys: list[str]) -> dict[str, Row]:
        """{key: (created, expires, text, now)} for the stored entries among ``keys``."""
        raise NotImplementedError

    def cache_put(self, records: list[Record], keep: float, max_bytes: int) -> None:
        """Store ``records`` for ``keep`` seconds; ``max_bytes`` bounds a store that bounds itself."""
        raise NotImplementedError

    def reserve(self, key: str, interval: float, max_wait: float | None) -> float | None:
        """Reserve the next start for ``key``, ``interval`` seconds after the one before it.

        Returns the seconds until the reserved start (the caller sleeps that long), or None
        without reserving when the start lies more than ``max_wait`` seconds away.
        """
        raise NotImplementedError

    def defer(self, key: str, interval: float, seconds: float) -> None:
        """No start for ``key`` before ``seconds`` from now (a Retry-After the API sent)."""
        raise NotImplementedError

    def circuit_check(self, key: str, now: float, probe: float) -> Circuit | None:
        """The circuit's decision; a half-open circuit hands out one probe lease of ``probe`` seconds."""
        raise NotImplementedError

    def circuit_trip(self, key: str, code: str, now: float, wait: float, window: float, threshold: int) -> None:
        """One more refusal: count it, and open the circuit for ``wait`` seconds at ``threshold``."""
        raise NotImplementedError

    def circuit_clear(self, key: str) -> None:
        """A success: the circuit closes and forgets its count."""
        raise NotImplementedError

    def circuit_release(self, key: str, now: float) -> None:
        """A probe that proved nothing gives its lease back: the next call probes again."""
        raise NotImplementedError

    def close(self) -> None:
        pass


# -- choosing a backend ---------------------------------------------------------------


class Target:
    """A parsed state URL.  ``str()`` and ``repr()`` never show the password."""

    def __init__(self, tls: bool, host: str, port: int, db: int, username: str | None, password: str | None,
                 verify: bool = True, ca_file: str | None = None) -> None:  # fmt: skip
        self.tls = tls
        self.host = host
        self.port = port
        self.db = db
        self.username = username
        self.password = password
        self.verify = verify
        self.ca_file = ca_file  # certificates to trust beside the system's (a private CA)

    def __str__(self) -> str:
        host = "[%s]" % self.host if ":" in self.host else self.host
        auth = "%s:***@" % (self.username or "") if self.password else ""
        return "%s://%s%s:%d/%d" % ("rediss" if self.tls else "redis", auth, host, self.port, self.db)

    __repr__ = __str__


def parse_url(text: str) -> Target:
    """A Target from ``redis://[[user]:password@]host[:port][/db]`` (``rediss://`` with TLS);
    ValueError with a one-line problem (never the password) for anything else."""
    from urllib.parse import unquote, urlsplit

    from .. import redact

    if not isinstance(text, str) or not text.strip():
        raise ValueError("must be a redis:// or rediss:// URL")
    text = text.strip()
    try:
        parts = urlsplit(text)
        port = parts.port or 6379
        host = parts.hostname
    except ValueError:  # a port that is not a number, a broken [IPv6] host; its text may quote a password
        raise ValueError("is not a URL whose host and port can be read") from None
    if parts.password:
        redact.register(unquote(parts.password))  # from here on every message the worker writes masks it
    if parts.scheme not in SCHEMES:
        raise ValueError("must start with redis:// or rediss:// (TLS), got %s://" % (parts.scheme or "?"))
    if not host:
        raise ValueError("names no host")
    path = parts.path.strip("/")
    if path and not (path.isdigit() and int(path) < 1 << 16):
        raise ValueError("has %r where a database number belongs (redis://host:6379/0)" % path[:20])
    verify, ca_file = True, None
    for item in filter(None, parts.query.split("&")):
        name, _, value = item.partition("=")
        if name == "ssl_cert_reqs" and value.lower() in ("none", "required"):
            verify = value.lower() == "required"
        elif name == "ssl_ca_certs" and value:
            ca_file = os.path.expanduser(unquote(value))
        else:
            raise ValueError(
                "has an unknown option %r (accepted: ssl_cert_reqs=none|required, ssl_ca_certs=FILE)" % name[:40]
            )
    if parts.fragment:
        raise ValueError("has a #fragment")
    username = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password else None
    return Target(parts.scheme == "rediss", host, port, int(path or 0), username, password, verify, ca_file)


def state_url(settings: Mapping[str, Any] | None, environ: Mapping[str, str] | None = None) -> tuple[str | None, str]:
    """(URL or None for SQLite, where it came from): ``state`` wins over ``stateEnv``; an unset variable is SQLite."""
    settings = settings or {}
    value = settings.get("state")
    if isinstance(value, str) and value.strip() and value.strip() != "sqlite":
        return value.strip(), '"state"'
    if value is None and settings.get(ENV_STATE):
        name = settings[ENV_STATE]
        env = os.environ if environ is None else environ
        url = (env.get(name) or "").strip()
        if url and url != "sqlite":
            return url, "$%s" % name
    return None, ""


def open_state(directory: str, settings: Mapping[str, Any] | None = None, call: Call | None = None) -> State:
    """The state this call shares: SQLite in ``directory``, or Redis with SQLite in ``directory`` to fall back on.

    A URL that does not parse (from a variable: the config check saw only its name) is a config error.
    """
    from .sqlite_backend import SqliteState

    local = SqliteState(directory, call)
    url, source = state_url(settings)
    if url is None:
        return local
    try:
        target = parse_url(url)
    except ValueError as exc:
        from ..errors import WorkerError

        raise WorkerError(
            "config",
            "the state URL in %s %s" % (source, exc),
            hint='use "redis://host:6379/0" (rediss:// for TLS; redis://:PASSWORD@host/0 with a password)',
        ) from None
    from .redis_backend import RedisState

    return WithFallback(RedisState(target, call), local, call)


def attach(call: Call, directory: str, settings: Mapping[str, Any] | None) -> State:
    """Give ``call`` its state (once): the tools call this as soon as they have read the config."""
    call.state_dir = directory
    state = getattr(call, "state", None)
    if state is None or state.directory != directory:
        state = call.state = open_state(directory, settings, call)
    return state


def for_call(call: Call | None, directory: str) -> tuple[State, bool]:
    """(state, owned) for a user of ``directory``: the call's own when it has one there, else a
    fresh local one that the caller owns (and closes)."""
    state = getattr(call, "state", None) if call is not None else None
    if state is not None and state.directory == directory:
        return state, False
    from .sqlite_backend import SqliteState

    return SqliteState(directory, call), True


# -- falling back ---------------------------------------------------------------------


def warn(call: Call | None, message: str) -> None:
    """A warning in the answer (when there is a call) and on stderr."""
    from .. import redact

    message = redact.scrub(message)
    if call is not None:
        call.warn(message)
    try:
        sys.stderr.write("websearch-worker: warning: %s\n" % message)
        sys.stderr.flush()
    except Exception:
        pass


class WithFallback(State):
    """The shared backend while it answers; once it raises Unavailable, local state for the rest of the call."""

    name = "redis"

    def __init__(self, primary: State, local: State, call: Call | None) -> None:
        self.primary = primary
        self.local = local
        self.call = call
        self.directory = local.directory
        self.down: str | None = None  # why the shared backend was given up, once it was
        self._lock = threading.Lock()  # the fetch's threads may find it down together: one warning

    def _use(self, op: str, *args: Any) -> Any:
        if self.down is None:
            try:
                return getattr(self.primary, op)(*args)
            except Unavailable as exc:
                with self._lock:
                    first = self.down is None
                    self.down = self.down or str(exc)
                self.primary.close()
                if first:
                    warn(
                        self.call,
                        "shared state %s; this call used this machine's state instead "
                        "(cache, rate limits and breaker not shared with the fleet)" % exc,
                    )
        return getattr(self.local, op)(*args)

    def cache_get_many(self, keys: list[str]) -> dict[str, Row]:
        return self._use("cache_get_many", keys)

    def cache_put(self, records: list[Record], keep: float, max_bytes: int) -> None:
        return self._use("cache_put", records, keep, max_bytes)

    def reserve(self, key: str, interval: float, max_wait: float | None) -> float | None:
        return self._use("reserve", key, interval, max_wait)

    def defer(self, key: str, interval: float, seconds: float) -> None:
        return self._use("defer", key, interval, seconds)

    def circuit_check(self, key: str, now: float, probe: float) -> Circuit | None:
        return self._use("circuit_check", key, now, probe)

    def circuit_trip(self, key: str, code: str, now: float, wait: float, window: float, threshold: int) -> None:
        return self._use("circuit_trip", key, code, now, wait, window, threshold)

    def circuit_clear(self, key: str) -> None:
        return self._use("circuit_clear", key)

    def circuit_release(self, key: str, now: float) -> None:
        return self._use("circuit_release", key, now)

    def close(self) -> None:
        self.primary.close()
        self.local.close()
