"""Shared on-disk result cache: one SQLite file for every worker process of the user.

Every call is a fresh process, so the cache is a file: ``cache.sqlite3`` in the
cache directory (``--cache-dir``, the ``cacheDir`` setting, else
``$XDG_CACHE_HOME/websearch-worker`` or ``~/.cache/websearch-worker``).

Correctness under many processes and faults rests on SQLite itself: WAL mode
(readers never wait for the writer), every write one short transaction (a
process killed in the middle -- SIGTERM's ``os._exit`` or SIGKILL -- leaves the
previous state; the torn tail of the WAL is ignored on the next open), and short
busy timeouts (a busy cache costs a miss or a skipped write, never the call).
A file SQLite calls corrupt or cannot open is moved aside and rebuilt, with a
warning on stderr.

The hit path is on every cached call, so it imports nothing but the SQLite driver and
does not touch the network or any provider.  Keys are the normalised request as
JSON text (no hashing module to import); they never contain an API key.
"""

from __future__ import annotations

import os
import sys
import time

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

DB_NAME = "cache.sqlite3"
SCHEMA_VERSION = 1
DEFAULT_TTL = 300
DEFAULT_MAX_BYTES = 100 * 1024 * 1024
BUSY_TIMEOUT_S = 1.0  # short: a cache that is busy this long is skipped, not waited for
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
    }
)

# SQLite primary result codes (sqlite3.Error.sqlite_errorcode & 0xff).
_BUSY = {5, 6}  # SQLITE_BUSY, SQLITE_LOCKED
_BROKEN = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB
_UNREADABLE = {3, 8, 10, 14, 23}  # PERM, READONLY, IOERR, CANTOPEN, AUTH


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


def _sqlite():
    """The SQLite driver: the C module itself when it is there.

    ``sqlite3`` adds datetime adapters we never use, and importing ``datetime``
    for them is a measurable share of a cache hit; ``sqlite3.Error`` and friends
    are the C module's own classes, so nothing else differs.
    """
    try:
        import _sqlite3 as driver

        driver.connect, driver.Error  # noqa: B018 -- present in every CPython we run on; else the public module
    except (ImportError, AttributeError):
        import sqlite3 as driver  # type: ignore[no-redef]  # the public name of the same classes
    return driver


def _code(exc):
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


_SCHEMA = """
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


class Store:
    """The cache file for one call.  Every method swallows cache trouble: never a failed call."""

    def __init__(self, pol: Policy, call: Call | None = None) -> None:
        self.policy = pol
        self.call = call
        self.path = os.path.join(pol.directory, DB_NAME)
        self._db = None
        self._broken = False  # gave up on the cache for this call

    # -- connection ----------------------------------------------------------
    def _busy_timeout(self):
        left = self.call.remaining() if self.call is not None else None
        return BUSY_TIMEOUT_S if left is None else max(0.05, min(BUSY_TIMEOUT_S, left))

    def _connect(self):
        sqlite3 = _sqlite()

        os.makedirs(self.policy.directory, mode=0o700, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=self._busy_timeout(), isolation_level=None, check_same_thread=False)
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                self._init_schema(db)
            # Per-connection settings; the file's own (WAL, auto_vacuum) persist in it.
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA journal_size_limit=%d" % (8 * 1024 * 1024))
        except BaseException:
            db.close()
            raise
        return db

    @staticmethod
    def _init_schema(db):
        # auto_vacuum must be chosen before the first table exists; WAL persists in the file.
        db.execute("PRAGMA auto_vacuum=INCREMENTAL")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("BEGIN IMMEDIATE")
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:  # another process may have won the race
                if version:
                    db.execute("DROP TABLE IF EXISTS entries")
                for stmt in _SCHEMA.split(";"):
                    if stmt.strip():
                        db.execute(stmt)
                db.execute("PRAGMA user_version=%d" % SCHEMA_VERSION)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _open(self):
        if self._db is None and not self._broken:
            self._db = self._connect()
        return self._db

    def close(self) -> None:
        if self._db is not None:
            try:
                self._db.close()
            except Exception:
                pass
            self._db = None

    def _guard(self, what, fn, retry=True):
        """Run ``fn(db)``; turn cache trouble into None, moving a broken file aside."""
        if self._broken:
            return None
        try:
            return fn(self._open())
        except Exception as exc:
            sqlite3 = _sqlite()

            if not isinstance(exc, (sqlite3.Error, OSError)):
                raise
            code = _code(exc) if isinstance(exc, sqlite3.Error) else None
            if code in _BUSY:
                return None  # another process holds the file for longer than we wait: skip
            self.close()
            if isinstance(exc, OSError) or not (code in _BROKEN or code in _UNREADABLE):
                _stderr("%s failed (%s); continuing without the cache" % (what, _one_line(exc)))
                self._broken = True
                return None
            if retry and self._move_aside(exc):
                return self._guard(what, fn, retry=False)
            self._broken = True
            return None

    def _move_aside(self, exc):
        """Rename a corrupt or unreadable cache file so the next open rebuilds it."""
        import fcntl

        stamp = time.strftime("%Y%m%d-%H%M%S")
        lock_path = os.path.join(self.policy.directory, "cache.lock")
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as err:
            _stderr(
                "cache file %s is unusable (%s) and cannot be replaced (%s); continuing without the cache"
                % (self.path, _one_line(exc), _one_line(err))
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
            _stderr(
                "cache file %s was unusable (%s); moved it to %s and started a new one"
                % (self.path, _one_line(exc), aside)
            )
            return True
        except OSError as err:
            _stderr(
                "cache file %s is unusable (%s) and cannot be moved aside (%s); continuing without the cache"
                % (self.path, _one_line(exc), _one_line(err))
            )
            return False
        finally:
            os.close(fd)

    def _usable(self):
        """Does the file at ``self.path`` open and pass a quick check now?"""
        sqlite3 = _sqlite()

        if not os.path.exists(self.path):
            return True
        try:
            db = self._connect()
        except (sqlite3.Error, OSError):
            return False
        try:
            ok = db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        except sqlite3.Error:
            ok = False
        db.close()
        return ok

    # -- reading -------------------------------------------------------------
    def get(self, key: str, max_age: float | None = None) -> Hit | None:
        """(value, age_seconds) for an entry younger than ``max_age`` (default: the TTL), else None.

        Rows kept past the TTL (``put_many(keep=...)``: the fetch cache's, for
        revalidation and stale-if-error) are read with a larger ``max_age``.
        """
        if not self.policy.read or not os.path.exists(self.path):
            return None  # a missing file is a miss without importing sqlite3

        def read(db):
            return db.execute("SELECT created, expires, value FROM entries WHERE key = ?", (key,)).fetchone()

        row = self._guard("reading the cache", read)
        if row is None:
            return None
        created, expires, value = row
        if not (_is_time(created) and _is_time(expires) and isinstance(value, str)):
            # Valid SQLite, but not a row this code wrote (another tool, a damaged write): a miss.
            _stderr("ignoring a cache entry of the wrong shape in %s" % self.path)
            return None
        now = time.time()
        age = now - created
        if (
            now >= expires or age >= (self.policy.ttl if max_age is None else max_age) or age < -5
        ):  # -5: clock stepped back
            return None
        try:
            answer = jsonio.loads(value, allow_nan=False)
        except (ValueError, RecursionError):
            answer = None
        if not _plausible(answer):
            _stderr("ignoring a cache entry of the wrong shape in %s" % self.path)
            return None
        return answer, max(0.0, age)

    def get_many(self, keys: Iterable[str], max_age: float | None = None) -> dict[str, Hit]:
        """{key: (value, age)} for the entries among ``keys`` younger than ``max_age`` (default: the TTL)."""
        out = {}
        for key in keys:
            hit = self.get(key, max_age)
            if hit is not None:
                out[key] = hit
        return out

    # -- writing -------------------------------------------------------------
    def put(self, key: str, tool: str, provider: str, value: dict[str, Any]) -> None:
        self.put_many([(key, tool, provider, value)])

    def put_many(self, rows: Sequence[Row], keep: float | None = None) -> None:
        """Store successes for ``keep`` seconds (default: the TTL); one transaction, then prune.  Never raises."""
        if not self.policy.write or not rows:
            return
        now = time.time()
        keep = self.policy.ttl if keep is None else max(keep, self.policy.ttl)
        records = []
        for key, tool, provider, value in rows:
            try:
                # allow_nan=False: an answer the protocol could not encode is never stored to fail again.
                text = jsonio.dumps(value, separators=(",", ":"), allow_nan=False)
                text = redact.scrub(text)  # a key a server echoed (a request id...) never reaches the disk
            except (TypeError, ValueError, RecursionError):
                continue  # not plain JSON data: not cacheable, not an error
            records.append((key, tool, provider, now, now + keep, len(text), text))

        def write(db):
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany(
                    "INSERT OR REPLACE INTO entries (key, tool, provider, created, expires, size, value)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    records,
                )
                _test_pause("cache-write")
                db.execute("DELETE FROM entries WHERE expires <= ?", (now,))
                self._bound_size(db)
                db.execute("COMMIT")
            except BaseException:
                try:
                    db.execute("ROLLBACK")
                except Exception:
                    pass
                raise
            self._release_free_pages(db)
            return True

        if records:
            self._guard("writing the cache", write)

    @staticmethod
    def _release_free_pages(db):
        # Deleted rows leave free pages inside the file; give them back to the
        # file system once there are enough to matter (each step frees a page).
        if db.execute("PRAGMA freelist_count").fetchone()[0] >= 256:
            db.execute("PRAGMA incremental_vacuum").fetchall()

    def _bound_size(self, db):
        """Oldest entries out until the live data fits in 90% of the bound."""
        limit = self.policy.max_bytes
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


def _test_pause(point):
    """Fault injection for tests/state/test_load.py: stop inside the write transaction so a test can kill us there."""
    if os.environ.get("WEBSEARCH_WORKER_TEST_PAUSE") == point:
        _stderr("test pause: %s" % point)
        time.sleep(float(os.environ.get("WEBSEARCH_WORKER_TEST_PAUSE_S") or 30))


def _one_line(exc: BaseException, limit: int = 200) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
