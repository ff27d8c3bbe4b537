"""The result cache: what may be cached, under which key, for how long, and what a stored entry must look like.

Every call is a fresh process, so the cache lives in the call's state
(worker/state/backend.py): by default ``cache.sqlite3`` in the cache directory
(``--cache-dir``, the ``cacheDir`` setting, else ``$XDG_CACHE_HOME/websearch-worker``
or ``~/.cache/websearch-worker``; sqlite_backend.py keeps it sound under many
processes and faults), or a Redis/Valkey server shared by a fleet (the
``state`` setting; redis_backend.py, where entries expire by the server's TTL
and keys are stored hashed).  Cache trouble of either kind is a miss or a
skipped write, never a failed call.

The hit path is on every cached call, so it imports nothing but the SQLite driver and
does not touch the network or any provider.  Keys are the normalised request as
JSON text (no hashing module to import on SQLite); they never contain an API key.
"""

from __future__ import annotations

import os
import sys

from .. import jsonio, redact

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Container, Iterable, Mapping, Sequence
    from typing import Any

    from ..providers.base import ProviderSpec
    from ..request import Request
    from ..runtime import Call

    # (value, age in seconds) of a fresh entry
    Hit = tuple[dict[str, Any], float]
    # (key, tool, provider name, value) to store
    Row = tuple[str, str, str, dict[str, Any]]

DB_NAME = "cache.sqlite3"  # the local file (sqlite_backend.CACHE_DB), for messages and tests
DEFAULT_TTL = 300
DEFAULT_MAX_BYTES = 100 * 1024 * 1024
KEY_VERSION = 1

# Request fields that never change the answer: how the call runs or is shown.
NOT_IN_KEY = frozenset(
    {
        "config",
        "provider",
        "timeout",
        "output",
        "keep_temp",
        "no_cache",
        "refresh",
        "cache_ttl",
        "cache_dir",
        "concurrency",
        "source_timeout",
        "revalidate",  # the fetch cache's own hand-over to the provider
        "prefetched",  # a crawl's map's pages, handed to the provider
    }
)


def default_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME")
    if not base or not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "websearch-worker")


def resolve_dir(request: Request | None = None, settings: Mapping[str, Any] | None = None) -> str:
    """The cache directory: --cache-dir, the cacheDir setting, else the user cache dir."""
    explicit = (request.cache_dir if request is not None else None) or (settings or {}).get("cacheDir")
    if explicit and isinstance(explicit, str):
        return os.path.abspath(os.path.expanduser(explicit))
    return default_dir()


def _number(value: Any, default: float, name: str) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        _stderr("ignoring setting %s=%r: expected a number >= 0" % (name, value))
        return default
    return value


class Policy:
    """What this call may do with the cache."""

    def __init__(
        self,
        directory: str,
        ttl: float = DEFAULT_TTL,
        read: bool = True,
        write: bool = True,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        self.directory = directory
        self.ttl = ttl
        self.read = read and ttl > 0
        self.write = write and ttl > 0
        self.max_bytes = max_bytes

    @property
    def enabled(self) -> bool:
        return self.read or self.write


def policy(request: Request, settings: Mapping[str, Any] | None = None) -> Policy:
    """The cache policy from the request (its cache options) and the config file's settings."""
    settings = settings or {}
    ttl: float | None = request.cache_ttl
    if ttl is None:
        ttl = _number(settings.get("cacheTtl"), DEFAULT_TTL, "cacheTtl")
    max_bytes = _number(settings.get("cacheMaxBytes"), DEFAULT_MAX_BYTES, "cacheMaxBytes")
    no_cache = bool(request.no_cache) or settings.get("cache") is False
    return Policy(
        resolve_dir(request, settings),
        ttl=ttl,
        read=not no_cache and not request.refresh,
        write=not no_cache,
        max_bytes=int(max_bytes),
    )


# -- keys -------------------------------------------------------------------


def _secretish(name: str) -> bool:
    name = name.lower()
    return "key" in name or "token" in name or "secret" in name or "password" in name


def request_fields(request: Request, exclude: Container[str] = ()) -> dict[str, Any]:
    """The fields of the request (worker.request) that can change the answer."""
    out = {}
    for name, value in sorted(request.fields().items()):
        if name in NOT_IN_KEY or name in exclude or name.startswith("_") or _secretish(name):
            continue
        if value is None or value is False or (isinstance(value, (list, tuple)) and not value):
            continue  # an unset option and its default mean the same request
        out[name] = value
    return out


def spec_fingerprint(spec: ProviderSpec) -> str:
    """A short fingerprint of the provider's settings (never its key), so editing them misses."""
    import zlib

    material = jsonio.dumps([spec.type, spec.base_url, spec.options], sort_keys=True, default=str)
    return "%08x" % zlib.crc32(material.encode("utf-8", "surrogatepass"))


def make_key(tool: str, spec: ProviderSpec, request: dict[str, Any]) -> str:
    """The cache key: tool, provider name and the normalised request, as canonical JSON."""
    return jsonio.dumps(
        [KEY_VERSION, tool, spec.name, spec_fingerprint(spec), request],
        sort_keys=True,
        separators=(",", ":"),
        default=str,
    )


# -- the store ----------------------------------------------------------------


def _stderr(message: str) -> None:
    try:
        sys.stderr.write("websearch-worker: cache: %s\n" % message)
        sys.stderr.flush()
    except Exception:
        pass


class Store:
    """The cache for one call, over the call's state (backend.State: SQLite files, or Redis).

    Every method swallows cache trouble: never a failed call.
    """

    def __init__(self, pol: Policy, call: Call | None = None) -> None:
        from . import backend

        self.policy = pol
        self.call = call
        self.path = os.path.join(pol.directory, DB_NAME)
        self.state, self._owned = backend.for_call(call, pol.directory)

    def close(self) -> None:
        if self._owned:
            self.state.close()

    # -- reading -------------------------------------------------------------
    def get(self, key: str, max_age: float | None = None) -> Hit | None:
        """(value, age_seconds) for an entry younger than ``max_age`` (default: the TTL), else None.

        Rows kept past the TTL (``put_many(keep=...)``: the fetch cache's, for
        revalidation and stale-if-error) are read with a larger ``max_age``.
        """
        return self.get_many([key], max_age).get(key)

    def get_many(self, keys: Iterable[str], max_age: float | None = None) -> dict[str, Hit]:
        """{key: (value, age)} for the entries among ``keys`` younger than ``max_age`` (default: the TTL)."""
        if not self.policy.read:
            return {}
        rows = self.state.cache_get_many(list(keys))
        out = {}
        for key, (created, expires, value, now) in rows.items():
            hit = self._hit(created, expires, value, now, self.policy.ttl if max_age is None else max_age)
            if hit is not None:
                out[key] = hit
        return out

    def _hit(self, created: Any, expires: Any, value: Any, now: float, max_age: float) -> Hit | None:
        if not (_is_time(created) and (expires is None or _is_time(expires)) and isinstance(value, str)):
            # Valid SQLite, but not a row this code wrote (another tool, a damaged write): a miss.
            _stderr("ignoring a cache entry of the wrong shape in %s" % self.where)
            return None
        age = now - created
        if (expires is not None and now >= expires) or age >= max_age or age < -5:  # -5: clock stepped back
            return None
        try:
            answer = jsonio.loads(value, allow_nan=False)
        except (ValueError, RecursionError):
            answer = None
        if not _plausible(answer):
            _stderr("ignoring a cache entry of the wrong shape in %s" % self.where)
            return None
        return answer, max(0.0, age)

    @property
    def where(self) -> str:
        return self.path if self.state.name == "sqlite" else "the shared state"

    # -- writing -------------------------------------------------------------
    def put(self, key: str, tool: str, provider: str, value: dict[str, Any]) -> None:
        self.put_many([(key, tool, provider, value)])

    def put_many(self, rows: Sequence[Row], keep: float | None = None) -> None:
        """Store successes for ``keep`` seconds (default: the TTL); one transaction, then prune.  Never raises."""
        if not self.policy.write or not rows:
            return
        keep = self.policy.ttl if keep is None else max(keep, self.policy.ttl)
        records = []
        for key, tool, provider, value in rows:
            try:
                # allow_nan=False: an answer the protocol could not encode is never stored to fail again.
                text = jsonio.dumps(value, separators=(",", ":"), allow_nan=False)
                text = redact.scrub(text)  # a key a server echoed (a request id...) never reaches the disk
            except (TypeError, ValueError, RecursionError):
                continue  # not plain JSON data: not cacheable, not an error
            records.append((key, tool, provider, text))
        if records:
            self.state.cache_put(records, keep, self.policy.max_bytes)


def _is_time(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value - value == 0


def _plausible(answer):
    """Is a decoded entry shaped like what put() stores (an object; lists and meta of the right types)?"""
    if not isinstance(answer, dict):
        return False
    if not isinstance(answer.get("meta", {}), dict) or not isinstance(answer.get("warnings", []), list):
        return False
    results = answer.get("results", [])
    return isinstance(results, list) and all(isinstance(r, dict) for r in results)


class _Null:
    """No cache (--no-cache, ttl 0): same interface, does nothing."""

    policy = None

    def get(self, key: str, max_age: float | None = None) -> Hit | None:
        return None

    def get_many(self, keys: Iterable[str], max_age: float | None = None) -> dict[str, Hit]:
        return {}

    def put(self, *a: Any) -> None:
        pass

    def put_many(self, rows: Sequence[Row], keep: float | None = None) -> None:
        pass

    def close(self) -> None:
        pass


def open_store(request: Request, settings: Mapping[str, Any] | None = None, call: Call | None = None) -> Store | _Null:
    pol = policy(request, settings)
    if not pol.enabled:
        return _Null()
    return Store(pol, call)


def annotate(meta: dict[str, Any], age: float) -> dict[str, Any]:
    """Mark an answer as served from the cache (it waited for no slot)."""
    meta["cached"] = True
    meta["cache_age_s"] = round(age, 1)
    meta["slot_wait_ms"] = 0
    return meta
