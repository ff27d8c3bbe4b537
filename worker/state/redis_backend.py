"""The state of a fleet: a Redis or Valkey server (backend.State), chosen by the config's ``state`` URL.

Keys, all under ``websearch-worker:``:

* ``cache:<sha256 of the cache key>``: ``"<created>\\n<answer JSON>"``, expiring by
  the server's TTL (``PX``).  The cache key holds the query, so only its hash
  reaches the server; the answer was scrubbed of secrets before it got here.
  The size bound (``cacheMaxBytes``) is the server's ``maxmemory`` here.
* ``rate:<key>``: the last reserved start (ms, server time) of a rate-limited key.
* ``circuit:<key>``: a hash (failures, first_at, open_until, code) and
  ``probe:<key>``: the half-open circuit's probe lease (``SET NX PX``).

Each operation is one round trip: a read is pipelined with ``TIME``; anything
that reads and writes is one Lua script (EVALSHA, EVAL when the server has not
seen it yet), atomic on the server and timed by the server's clock, so machines
whose clocks disagree still keep one pace.

Every socket operation is bounded by small limits (backend.CONNECT_TIMEOUT_S, IO_TIMEOUT_S)
and by a share of what the call has left (SHARE_OF_LEFT: a Redis that never answers leaves the
provider the rest of a short call); any failure raises
backend.Unavailable, which backend.WithFallback turns into local state.
"""

from __future__ import annotations

import os
import threading

from .backend import (
    CONNECT_TIMEOUT_S,
    IO_TIMEOUT_S,
    MAX_CIRCUIT_WAIT,
    MIN_TIMEOUT_S,
    SHARE_OF_LEFT,
    State,
    Target,
    Unavailable,
)
from .resp import Connection, RespError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from ..runtime import Call
    from .backend import Circuit, Record, Row

PREFIX = "websearch-worker:"
AHEAD_MS = 3600 * 1000  # a reserved start further ahead than this is a key another program wrote: forgotten
CIRCUIT_KEEP_MS = 3600 * 1000  # an open circuit's state outlives its cool-down by this much: time for a probe

_NOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

# KEYS: the rate key.  ARGV: interval ms, longest wait ms (-1: any), ahead ms.  -> {reserved 1|0, wait ms}
RESERVE = (
    _NOW
    + """
local interval, max_wait = tonumber(ARGV[1]), tonumber(ARGV[2])
local last = tonumber(redis.call('GET', KEYS[1]) or '')
if last == nil or last - now > tonumber(ARGV[3]) + 100 * interval then last = now - interval end
local start = math.max(now, last + interval)
local wait = start - now
if max_wait >= 0 and wait > max_wait then return {0, wait} end
redis.call('SET', KEYS[1], string.format('%d', start), 'PX', string.format('%d', wait + interval + 1000))
return {1, wait}
"""
)

# KEYS: the rate key.  ARGV: interval ms, seconds ms, ahead ms.  No start before now + seconds.
DEFER = (
    _NOW
    + """
local interval, seconds = tonumber(ARGV[1]), tonumber(ARGV[2])
local last = tonumber(redis.call('GET', KEYS[1]) or '')
if last == nil or last - now > tonumber(ARGV[3]) + 100 * interval then last = now - interval end
local want = now + seconds - interval
if want > last then
  redis.call('SET', KEYS[1], string.format('%d', want), 'PX', string.format('%d', seconds + 1000))
end
return 1
"""
)

# KEYS: the cache keys.  ARGV: keep ms, then one text per key.  Stored with the server's time.
PUT = """
local t = redis.call('TIME')
local now = t[1] .. '.' .. string.format('%06d', tonumber(t[2]))
for i, key in ipairs(KEYS) do
  redis.call('SET', key, now .. '\\n' .. ARGV[i + 1], 'PX', ARGV[1])
end
return #KEYS
"""

# KEYS: circuit, probe lease.  ARGV: probe ms, lease owner, longest cool-down ms.
# -> {state, until ms, code, failures}
CHECK = (
    _NOW
    + """
local h = redis.call('HMGET', KEYS[1], 'failures', 'open_until', 'code')
local failures, open_until, code = tonumber(h[1]) or 0, tonumber(h[2]) or 0, h[3] or ''
if open_until <= 0 or open_until > now + tonumber(ARGV[3]) + 60000 then return {'go', 0, '', 0} end
if now < open_until then return {'skip', open_until, code, failures} end
if redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[1]) then return {'probe', 0, code, failures} end
local ttl = redis.call('PTTL', KEYS[2])
if ttl < 0 then ttl = 0 end
return {'skip', now + ttl, code, failures}
"""
)

# KEYS: circuit, probe lease.  ARGV: code, wait ms, window ms, threshold, keep ms.  -> failures
TRIP = (
    _NOW
    + """
local h = redis.call('HMGET', KEYS[1], 'failures', 'first_at', 'open_until')
local failures, first_at, open_until = tonumber(h[1]), tonumber(h[2]), tonumber(h[3]) or 0
local wait, window = tonumber(ARGV[2]), tonumber(ARGV[3])
if failures ~= nil and open_until > 0 then
  failures, open_until = failures + 1, now + wait
elseif failures == nil or first_at == nil or now - first_at > window or now < first_at then
  failures, first_at, open_until = 1, now, 0
else
  failures, open_until = failures + 1, 0
end
if open_until == 0 and failures >= tonumber(ARGV[4]) then open_until = now + wait end
redis.call('HSET', KEYS[1], 'failures', failures, 'first_at', string.format('%d', first_at),
  'open_until', string.format('%d', open_until), 'code', ARGV[1])
redis.call('DEL', KEYS[2])
local life = window
if open_until > 0 then life = math.max(window, open_until - now) + tonumber(ARGV[5]) end
redis.call('PEXPIRE', KEYS[1], string.format('%d', life))
return failures
"""
)

_SHA: dict[str, str] = {}


def _digest(name: str, data: bytes) -> str:
    """sha1/sha256 hex digest (hashlib: its OpenSSL load, ~2-3 ms a Redis call, is under the ~5 ms
    a start-up trick must save; docs/PERFORMANCE.md#start-up-tricks-one-switch-issue-46)."""
    import hashlib

    return hashlib.new(name, data).hexdigest()


def _sha(script: str) -> str:
    sha = _SHA.get(script)
    if sha is None:
        sha = _SHA[script] = _digest("sha1", script.encode("ascii"))
    return sha


def cache_key(key: str) -> str:
    """The key's sha256: the query never reaches the server in clear."""
    return PREFIX + "cache:" + _digest("sha256", key.encode("utf-8", "surrogatepass"))


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


class RedisState(State):
    """backend.State on a Redis or Valkey server; every method raises Unavailable when it cannot answer in time."""

    name = "redis"

    def __init__(self, target: Target, call: Call | None = None) -> None:
        self.target = target
        self.call = call
        self._conn: Connection | None = None
        self._setup: list[tuple[Any, ...]] = []  # AUTH / SELECT, sent with the first command
        self._lock = threading.Lock()  # one connection, used from the fetch's threads too
        self.owner = "%d" % os.getpid()

    # -- the connection ------------------------------------------------------------------
    def _timeout(self, limit: float) -> float:
        left = self.call.remaining() if self.call is not None else None
        if left is None:
            return limit
        if left <= MIN_TIMEOUT_S:
            raise Unavailable("%s was not asked: the call's deadline has come" % self.target)
        return max(MIN_TIMEOUT_S, min(limit, left * SHARE_OF_LEFT))

    def _connect(self) -> Connection:
        if self._conn is None:
            t = self.target
            self._conn = Connection.open(t.host, t.port, self._timeout(CONNECT_TIMEOUT_S), t.tls, t.verify, t.ca_file)
            self._setup = []
            if t.password is not None:
                self._setup.append(("AUTH", t.username, t.password) if t.username else ("AUTH", t.password))
            if t.db:
                self._setup.append(("SELECT", t.db))
        return self._conn

    def _pipeline(self, *commands: tuple[Any, ...]) -> list[Any]:
        """The replies to ``commands`` in one round trip (a first call's AUTH/SELECT ride along)."""
        with self._lock:
            try:
                conn = self._connect()
                conn.settimeout(self._timeout(IO_TIMEOUT_S))
                setup, self._setup = self._setup, []
                replies = conn.pipeline(*(setup + list(commands)))
            except (OSError, ValueError) as exc:  # refused, reset, timed out; ValueError: a reply that is no number
                self.close()
                raise Unavailable("%s is unreachable (%s)" % (self.target, _why(exc))) from None
            for reply in replies[: len(setup)]:
                if isinstance(reply, RespError):
                    self.close()
                    raise Unavailable("%s refused the connection's setup (%s)" % (self.target, reply.kind))
            return replies[len(setup) :]

    def _script(self, script: str, keys: list[str], args: list[Any]) -> Any:
        command = (len(keys),) + tuple(keys) + tuple(args)
        reply = self._pipeline(("EVALSHA", _sha(script)) + command)[0]
        if isinstance(reply, RespError) and reply.kind == "NOSCRIPT":  # the server's first time (or a restart)
            reply = self._pipeline(("EVAL", script) + command)[0]
        if isinstance(reply, RespError):
            raise Unavailable(_answered(self.target, reply))
        return reply

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # -- the cache -------------------------------------------------------------------------
    def cache_get_many(self, keys: list[str]) -> dict[str, Row]:
        if not keys:
            return {}
        values, now = self._pipeline(("MGET",) + tuple(cache_key(k) for k in keys), ("TIME",))
        if isinstance(values, RespError) or isinstance(now, RespError) or not isinstance(values, list):
            raise Unavailable(_answered(self.target, values if isinstance(values, RespError) else now))
        try:
            clock = int(now[0]) + int(now[1]) / 1e6
        except (TypeError, ValueError, IndexError):
            raise Unavailable("%s answered TIME with something that is not a time" % self.target) from None
        out: dict[str, Row] = {}
        for key, raw in zip(keys, values):
            if not isinstance(raw, bytes):
                continue
            head, sep, body = raw.partition(b"\n")
            try:
                created = float(head)
            except ValueError:
                created = None
            # A value of the wrong shape is passed on as one: the cache says so and reads a miss.
            out[key] = (created if sep else None, None, body.decode("utf-8", "replace"), clock)  # type: ignore[assignment]
        return out

    def cache_put(self, records: list[Record], keep: float, max_bytes: int) -> None:
        keys = [cache_key(key) for key, _tool, _provider, _text in records]
        texts = [text for _key, _tool, _provider, text in records]
        self._script(PUT, keys, ["%d" % max(1, int(keep * 1000))] + texts)

    # -- rate limits -------------------------------------------------------------------------
    def reserve(self, key: str, interval: float, max_wait: float | None) -> float | None:
        limit = -1 if max_wait is None else max(0, int(max_wait * 1000))
        reply = self._script(RESERVE, [PREFIX + "rate:" + key], [_ms(interval), "%d" % limit, "%d" % AHEAD_MS])
        try:
            reserved, wait = int(reply[0]), int(reply[1])
        except (TypeError, ValueError, IndexError):
            raise Unavailable("%s answered the slot script with %r" % (self.target, reply)) from None
        return wait / 1000.0 if reserved else None

    def defer(self, key: str, interval: float, seconds: float) -> None:
        self._script(DEFER, [PREFIX + "rate:" + key], [_ms(interval), _ms(seconds), "%d" % AHEAD_MS])

    # -- the breaker -------------------------------------------------------------------------
    def _circuit_keys(self, key: str) -> list[str]:
        return [PREFIX + "circuit:" + key, PREFIX + "probe:" + key]

    def circuit_check(self, key: str, now: float, probe: float) -> Circuit | None:
        reply = self._script(
            CHECK, self._circuit_keys(key), [_ms(probe), self.owner, "%d" % int(MAX_CIRCUIT_WAIT * 1000)]
        )
        try:
            state, until, code, failures = _text(reply[0]), int(reply[1]), _text(reply[2]), int(reply[3])
        except (TypeError, ValueError, IndexError):
            raise Unavailable("%s answered the breaker script with %r" % (self.target, reply)) from None
        if state == "go":
            return None
        return (state, until / 1000.0 if until else None, code or None, failures)

    def circuit_trip(self, key: str, code: str, now: float, wait: float, window: float, threshold: int) -> None:
        self._script(
            TRIP,
            self._circuit_keys(key),
            [code, _ms(wait), _ms(window), "%d" % threshold, "%d" % CIRCUIT_KEEP_MS],
        )

    def circuit_clear(self, key: str) -> None:
        self._pipeline(("DEL",) + tuple(self._circuit_keys(key)))

    def circuit_release(self, key: str, now: float) -> None:
        self._pipeline(("DEL", PREFIX + "probe:" + key))


def _ms(seconds: float) -> str:
    return "%d" % max(0, int(round(seconds * 1000)))


def _why(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):  # socket.timeout is TimeoutError since Python 3.10
        return "no answer within the time allowed"
    text = getattr(exc, "strerror", None) or " ".join(str(exc).split()) or type(exc).__name__
    return text[:160]


# A Cluster node answers a script's or MGET's keys of several slots so; a replica refuses writes.
_CLUSTER = frozenset(("MOVED", "ASK", "CROSSSLOT", "CLUSTERDOWN", "TRYAGAIN"))


def _answered(target: Target, reply: object) -> str:
    """What a server's error reply means for the shared state, in one line."""
    said = str(reply)[:120]
    kind = reply.kind if isinstance(reply, RespError) else ""
    if kind in _CLUSTER:
        return "%s is a Redis Cluster node (%s): the shared state needs a standalone Redis or Valkey" % (target, said)
    if kind == "READONLY":
        return "%s is a read-only replica (%s): the shared state needs the primary" % (target, said)
    if kind == "NOPERM":
        return "%s refused the worker's commands (%s): its user needs EVAL, EVALSHA, MGET, TIME and DEL" % (
            target,
            said,
        )
    return "%s answered an error (%s)" % (target, said)
