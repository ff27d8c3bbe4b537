"""The shared result cache: keys, TTL, policy flags, size bound, damaged files, and the worker's use of it."""

import json
import os
import sqlite3
import subprocess
import sys

import pytest
from conftest import ROOT, run_worker, worker_env
from fakes.count_server import CountServer

from worker import protocol
from worker.providers.base import ProviderSpec
from worker.request import SearchRequest
from worker.state import cache, sqlite_backend

FAKE_TYPE = "tests.fakes.slow_provider:SlowProvider"


def req(**kw):
    return SearchRequest(**dict({"query": "q"}, **kw))


def store(tmp_path, **kw):
    return cache.Store(cache.Policy(str(tmp_path / "c"), **kw))


SPEC = ProviderSpec("fake", "ddgs")


# -- keys ---------------------------------------------------------------------


def test_key_ignores_how_the_call_runs_but_not_what_it_asks():
    base = cache.make_key("search", SPEC, cache.request_fields(req()))
    same = cache.make_key(
        "search",
        SPEC,
        cache.request_fields(
            req(timeout=5.0, output="text", refresh=True, cache_ttl=9, cache_dir="/x", config="/c", provider="fake")
        ),
    )
    assert base == same
    assert base != cache.make_key("search", SPEC, cache.request_fields(req(limit=7)))
    assert base != cache.make_key("search", SPEC, cache.request_fields(req(query="other")))
    assert base != cache.make_key("fetch", SPEC, cache.request_fields(req()))
    assert base == cache.make_key("search", SPEC, cache.request_fields(req(query="  q\t")))  # cleaned as it is built
    assert base != cache.make_key("search", ProviderSpec("other", "ddgs"), cache.request_fields(req()))
    # the provider's settings count, its key never does
    assert base != cache.make_key(
        "search", ProviderSpec("fake", "ddgs", options={"region": "de-de"}), cache.request_fields(req())
    )
    keyed = cache.make_key("search", ProviderSpec("fake", "ddgs", api_key="sk-SECRET-123"), cache.request_fields(req()))
    assert keyed == base and "SECRET" not in keyed


def test_unset_options_and_defaults_make_the_same_key():
    assert cache.request_fields(req(include_domain=[], recency=None, moderation=False)) == cache.request_fields(req())


# -- store ----------------------------------------------------------------------


def test_put_get_roundtrip_with_age(tmp_path):
    s = store(tmp_path)
    assert s.get("k") is None  # no file yet: a miss, not an error
    s.put("k", "search", "fake", {"results": [{"url": "https://a.example/\u00e9"}]})
    value, age = s.get("k")
    assert value == {"results": [{"url": "https://a.example/\u00e9"}]} and 0 <= age < 60
    db = sqlite3.connect(s.path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("SELECT tool, provider FROM entries").fetchall() == [("search", "fake")]


def test_ttl_expired_and_reader_ttl(tmp_path):
    s = store(tmp_path, ttl=300)
    s.put("old", "search", "fake", {"n": 1})
    s.put("new", "search", "fake", {"n": 2})
    db = sqlite3.connect(s.path)
    with db:
        db.execute("UPDATE entries SET created = created - 100 WHERE key = 'old'")
    assert s.get("old")[1] >= 99
    # a reader asking for fresher answers does not get the 100 s old one
    assert store(tmp_path, ttl=50).get("old") is None and store(tmp_path, ttl=50).get("new") is not None
    with db:
        db.execute("UPDATE entries SET expires = expires - 1000 WHERE key = 'old'")
    assert s.get("old") is None
    s.put("third", "search", "fake", {"n": 3})  # a write prunes expired rows
    keys = {k for (k,) in db.execute("SELECT key FROM entries")}
    assert keys == {"new", "third"}


def test_policy_flags(tmp_path):
    assert cache.policy(req()).read and cache.policy(req()).write and cache.policy(req()).ttl == 300
    p = cache.policy(req(refresh=True))
    assert not p.read and p.write
    p = cache.policy(req(no_cache=True))
    assert not p.read and not p.write and isinstance(cache.open_store(req(no_cache=True)), cache._Null)
    assert not cache.policy(req(cache_ttl=0)).enabled
    assert cache.policy(req(), {"cacheTtl": 42}).ttl == 42
    assert cache.policy(req(cache_ttl=7), {"cacheTtl": 42}).ttl == 7
    assert not cache.policy(req(), {"cache": False}).enabled
    assert cache.policy(req(), {"cacheDir": str(tmp_path / "d")}).directory == str(tmp_path / "d")
    assert cache.policy(req(cache_dir=str(tmp_path / "e")), {"cacheDir": "/nope"}).directory == str(tmp_path / "e")


def test_default_dir_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.default_dir() == str(tmp_path / "xdg" / "websearch-worker")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert cache.default_dir() == str(tmp_path / "h" / ".cache" / "websearch-worker")


def test_size_is_bounded_oldest_out(tmp_path):
    s = store(tmp_path, max_bytes=400 * 1024)
    blob = "x" * 20000
    for i in range(100):  # 2 MB written into a 400 KB cache
        s.put("k%03d" % i, "fetch", "local", {"i": i, "text": blob})
    s.close()
    size = os.path.getsize(s.path)
    assert size <= 2 * 400 * 1024, size
    db = sqlite3.connect(s.path)
    kept = sorted(k for (k,) in db.execute("SELECT key FROM entries"))
    assert "k099" in kept and "k000" not in kept and len(kept) < 40
    assert kept == ["k%03d" % i for i in range(100 - len(kept), 100)]  # the newest survive, contiguous
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_values_that_are_not_json_are_skipped(tmp_path):
    s = store(tmp_path)
    s.put("k", "search", "fake", {"x": object()})
    assert s.get("k") is None


# -- damaged files ---------------------------------------------------------------------


def _aside(tmp_path):
    return [n for n in os.listdir(tmp_path / "c") if ".broken-" in n]


def test_garbage_file_is_moved_aside_and_rebuilt(tmp_path, capsys):
    s = store(tmp_path)
    os.makedirs(os.path.dirname(s.path))
    with open(s.path, "wb") as fh:
        fh.write(b"this is not a database at all" * 200)
    assert s.get("k") is None
    assert "moved it to" in capsys.readouterr().err
    assert _aside(tmp_path)
    s2 = store(tmp_path)
    s2.put("k", "search", "fake", {"ok": 1})
    assert s2.get("k")[0] == {"ok": 1}


def test_malformed_pages_never_fail_and_recover(tmp_path, capsys):
    s = store(tmp_path)
    for i in range(300):
        s.put("k%03d" % i, "search", "fake", {"i": i, "pad": "y" * 500})
    s.close()
    db = sqlite3.connect(s.path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    size = os.path.getsize(s.path)
    with open(s.path, "r+b") as fh:  # keep the header, wreck the b-tree pages
        for off in range(4096, size, 4096):
            fh.seek(off)
            fh.write(b"\xff" * 64)
    s2 = store(tmp_path)
    for i in range(0, 300, 7):
        s2.get("k%03d" % i)  # misses or old values: never an exception
    s2.put("fresh", "search", "fake", {"ok": True})
    s3 = store(tmp_path)
    assert s3.get("fresh")[0] == {"ok": True}
    db = sqlite3.connect(s3.path)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert _aside(tmp_path) and "unusable" in capsys.readouterr().err


def test_unopenable_path_is_moved_aside(tmp_path, capsys):
    s = store(tmp_path)
    os.makedirs(s.path)  # a directory where the file should be: SQLite cannot open it
    s.put("k", "search", "fake", {"ok": 1})
    assert s.get("k")[0] == {"ok": 1}
    assert _aside(tmp_path) and "moved it to" in capsys.readouterr().err


def test_unusable_directory_means_no_cache_not_an_error(tmp_path, capsys):
    (tmp_path / "c").write_text("a file, not a directory")
    s = store(tmp_path)
    s.put("k", "search", "fake", {"ok": 1})
    assert s.get("k") is None
    assert "continuing without the cache" in capsys.readouterr().err


def test_busy_writer_skips_instead_of_failing(tmp_path, monkeypatch):
    monkeypatch.setattr(sqlite_backend, "CACHE_BUSY_TIMEOUT_S", 0.2)
    s = store(tmp_path)
    s.put("k", "search", "fake", {"v": 1})
    other = sqlite3.connect(s.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process is writing and does not let go
    s2 = store(tmp_path)
    s2.put("k2", "search", "fake", {"v": 2})  # gives up after the busy timeout
    assert s2.get("k")[0] == {"v": 1}  # WAL: reading goes on while another writes
    other.execute("ROLLBACK")
    assert s2.get("k2") is None


# -- through the worker -------------------------------------------------------------


@pytest.fixture
def server():
    srv = CountServer().start()
    yield srv
    srv.stop()


def fake_env(tmp_path, server, **options):
    cfg = tmp_path / "cfg.json"
    opts = {"url": server.url}
    opts.update(options)
    cfg.write_text(json.dumps({"providers": [{"name": "fake", "type": FAKE_TYPE, "options": opts}]}))
    return worker_env(tmp_path, {"WEBSEARCH_CONFIG": str(cfg)})


@pytest.mark.slow
def test_worker_search_hit_miss_refresh_no_cache(tmp_path, server):
    env = fake_env(tmp_path, server)
    first = run_worker(["search", "cache me", "--provider", "fake"], env)
    assert first.returncode == 0, first
    assert first.payload["meta"]["cached"] is False and "slot_wait_ms" in first.payload["meta"]
    hit = run_worker(["search", "  cache \t me ", "--provider", "fake", "--output", "protocol"], env)
    assert hit.payload["meta"]["cached"] is True and hit.payload["meta"]["cache_age_s"] >= 0
    assert hit.payload["results"] == first.payload["results"]
    assert hit.payload["meta"]["serial"] == first.payload["meta"]["serial"]
    assert server.stats.total == 1
    other = run_worker(["search", "cache me", "--provider", "fake", "--limit", "2"], env)
    assert other.payload["meta"]["cached"] is False and len(other.payload["results"]) == 2
    refreshed = run_worker(["search", "cache me", "--provider", "fake", "--refresh"], env)
    assert refreshed.payload["meta"]["cached"] is False
    after = run_worker(["search", "cache me", "--provider", "fake"], env)
    assert after.payload["meta"]["cached"] is True
    assert after.payload["meta"]["serial"] == refreshed.payload["meta"]["serial"]  # refresh rewrote the entry
    nc = run_worker(["search", "cache me", "--provider", "fake", "--no-cache"], env)
    assert nc.payload["meta"]["cached"] is False
    assert server.stats.total == 4


@pytest.mark.slow
def test_worker_text_output_is_rebuilt_for_a_hit(tmp_path, server):
    env = fake_env(tmp_path, server)
    run_worker(["search", "texty", "--provider", "fake"], env)
    short = run_worker(["search", "texty", "--provider", "fake", "--max-chars", "200"], env)
    assert short.payload["meta"]["cached"] is True and len(short.payload["text"]) <= 200


@pytest.mark.slow
def test_worker_cache_dir_and_ttl_options(tmp_path, server):
    env = fake_env(tmp_path, server)
    where = tmp_path / "elsewhere"
    run_worker(["search", "dir test", "--provider", "fake", "--cache-dir", str(where)], env)
    assert (where / cache.DB_NAME).exists()
    assert not (tmp_path / "cache" / "websearch-worker" / cache.DB_NAME).exists()
    r = run_worker(["search", "dir test", "--provider", "fake", "--cache-dir", str(where)], env)
    assert r.payload["meta"]["cached"] is True
    r = run_worker(["search", "dir test", "--provider", "fake", "--cache-dir", str(where), "--cache-ttl", "0"], env)
    assert r.payload["meta"]["cached"] is False


@pytest.mark.slow
def test_worker_corrupt_cache_is_a_warning_not_a_failure(tmp_path, server):
    env = fake_env(tmp_path, server)
    d = tmp_path / "cache" / "websearch-worker"
    d.mkdir(parents=True)
    (d / cache.DB_NAME).write_bytes(b"\x00garbage" * 1000)
    r = run_worker(["search", "corrupt", "--provider", "fake"], env)
    assert r.returncode == 0 and r.payload["ok"], r
    assert "moved it to" in r.stderr
    assert run_worker(["search", "corrupt", "--provider", "fake"], env).payload["meta"]["cached"] is True


@pytest.mark.slow
def test_worker_never_caches_failures(tmp_path):
    env = worker_env(tmp_path)
    cfg = tmp_path / "cfg.json"
    cfg.write_text(
        json.dumps({"providers": [{"name": "fake", "type": FAKE_TYPE, "options": {"url": "http://127.0.0.1:9"}}]})
    )
    env["WEBSEARCH_CONFIG"] = str(cfg)
    for _ in range(2):
        r = run_worker(["search", "fails", "--provider", "fake"], env)
        assert r.returncode == 1 and r.payload["error"]["code"] == "network", r
    path = tmp_path / "cache" / "websearch-worker" / cache.DB_NAME
    if path.exists():
        assert sqlite3.connect(str(path)).execute("SELECT COUNT(*) FROM entries").fetchone()[0] == 0


def _ddgs_key(monkeypatch, env, argv):
    """The key the worker computes for ``argv`` with the builtin ddgs provider."""
    from worker import config
    from worker.cli import parse_args, request_of
    from worker.tools import search

    for k in ("WEBSEARCH_CONFIG", "HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(k, env[k])
    request = request_of(parse_args(argv))
    return search.plan(config.load(request), request)[0]


def test_hit_imports_no_provider_library_and_does_no_network(tmp_path, monkeypatch):
    """A ddgs answer in the cache: served without ddgs, primp or any socket (no proxy, no internet here)."""
    env = worker_env(tmp_path, {"WEBSEARCH_WORKER_PLAIN": ""})  # the start-up tricks on: what is held here
    key = _ddgs_key(monkeypatch, env, ["search", "offline question"])
    s = cache.Store(cache.policy(req(), {"cacheDir": os.path.join(env["XDG_CACHE_HOME"], "websearch-worker")}))
    answer = {
        "results": [{"title": "T", "url": "https://t.example/", "snippet": "s", "engine": "duckduckgo"}],
        "meta": {"engine": "duckduckgo"},
        "warnings": [],
    }
    s.put(key, "search", "ddgs", answer)
    proc = subprocess.run(
        [sys.executable, "-I", "-X", "importtime", "-m", "worker", "search", "offline  question"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=60,
    )
    payload = protocol.parse(proc.stdout.decode("ascii"))
    assert proc.returncode == 0, proc
    assert payload["results"] == answer["results"] and payload["meta"]["cached"] is True
    imported = {
        line.split("|")[-1].strip() for line in proc.stderr.decode().splitlines() if line.startswith("import time:")
    }
    assert "_sqlite3" in imported and "worker.state.cache" in imported  # the check below looks at a real import log
    assert "datetime" not in imported  # the C driver alone: sqlite3.dbapi2 would pull datetime in
    heavy = {
        m
        for m in imported
        if m.split(".")[0]
        in (
            "ddgs",
            "primp",
            "lxml",
            "exa_py",
            "trafilatura",
            "requests",
            "httpx",
            "socket",
            "ssl",
            "urllib",
            "http",
            "random",
        )
    }
    assert not heavy, sorted(heavy)
    providers = {m for m in imported if m.startswith("worker.providers.")}
    # the interface, the table of builtins and the routing only, no provider module
    assert providers <= {"worker.providers.base", "worker.providers.registry", "worker.providers.choose"}, sorted(
        providers
    )
