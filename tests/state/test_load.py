"""The cache and the rate limits under load and faults, with real worker processes and real signals.

- 50 concurrent worker processes (search through a provider of our own, and
  fetch) against local servers that count simultaneous requests.
- 200 runs killed with SIGTERM at random moments in three phases: waiting for a
  slot, inside the request, inside the cache write transaction.
- SIGKILL inside a cache write and while holding a slot.

Fault injection: WEBSEARCH_WORKER_TEST_PAUSE=cache-write makes the worker stop
inside its write transaction (after the INSERT, before COMMIT) and say so on
stderr, so a kill lands exactly there.
"""

import fcntl
import json
import os
import random
import signal
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from conftest import spawn_worker as spawn
from conftest import worker_env
from fakes.count_server import CountServer

from worker import protocol
from worker.state import cache

pytestmark = pytest.mark.slow  # hundreds of worker processes and signals

FAKE_TYPE = "tests.fakes.slow_provider:SlowProvider"
OTHER_TYPE = "tests.fakes.slow_provider:OtherSlowProvider"


@pytest.fixture
def server():
    srv = CountServer().start()
    yield srv
    srv.stop()


def setup(tmp_path, server, **options):
    opts = {"url": server.url}
    opts.update(options)
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({"providers": [{"name": "fake", "type": FAKE_TYPE, "options": opts}]}))
    env = worker_env(tmp_path, {"WEBSEARCH_CONFIG": str(cfg)})
    os.makedirs(env["WEBSEARCH_WORKER_TMPDIR"], exist_ok=True)
    return env


def finish(proc, timeout=120):
    out, err = proc.communicate(timeout=timeout)
    payload = None
    try:
        payload = protocol.parse(out.decode("ascii"))
    except protocol.ProtocolError:
        pass
    return proc.returncode, payload, err.decode("utf-8", "replace")


def db_path(env):
    return os.path.join(env["XDG_CACHE_HOME"], "websearch-worker", cache.DB_NAME)


def check_db(env):
    """integrity_check ok; every row a complete JSON answer.  Returns {key: value}."""
    db = sqlite3.connect(db_path(env))
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = {k: json.loads(v) for k, v in db.execute("SELECT key, value FROM entries")}
        for _k, size, v in db.execute("SELECT key, size, value FROM entries"):
            assert size == len(v)
        return rows
    finally:
        db.close()


def held_locks(env):
    """Lock files some process still holds (tries a non-blocking flock on each)."""
    d = os.path.join(env["XDG_CACHE_HOME"], "websearch-worker", "locks")
    held = []
    for name in os.listdir(d) if os.path.isdir(d) else []:
        fd = os.open(os.path.join(d, name), os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            held.append(name)
        finally:
            os.close(fd)
    return held


def leftover_tempdirs(env):
    return os.listdir(env["WEBSEARCH_WORKER_TMPDIR"])


def rows_for(rows, query):
    return [v for k, v in rows.items() if json.loads(k)[-1].get("query") == query]


# -- 50 concurrent processes ------------------------------------------------------------


def test_50_concurrent_searches(tmp_path, server):
    env = setup(tmp_path, server, delay=0.2)  # default limit: 5 concurrent searches per provider
    queries = ["query %d" % (i % 10) for i in range(50)]  # each one asked by five processes at once
    procs = [(q, spawn(["search", q, "--provider", "fake"], env)) for q in queries]
    results = [(q,) + finish(p) for q, p in procs]
    for q, rc, payload, err in results:
        assert rc == 0 and payload and payload["ok"], (q, rc, payload, err)
        assert payload["query"] == q and len(payload["results"]) == 5
        assert "slot_wait_ms" in payload["meta"]
    assert server.stats.max_inflight <= 5, server.stats.max_inflight
    assert server.stats.max_inflight >= 2  # the limit is used, not serialised to one
    assert server.stats.total == sum(1 for r in results if not r[2]["meta"]["cached"])
    assert max(r[2]["meta"]["slot_wait_ms"] for r in results) > 0  # some had to wait
    rows = check_db(env)
    assert len(rows) == 10
    for q in set(queries):
        (row,) = rows_for(rows, q)  # one row per request, however many wrote it
        answers = [r[2] for r in results if r[0] == q]
        # the row is exactly one of the answers a process got from the server, and every hit saw a stored answer
        fresh_serials = {a["meta"]["serial"] for a in answers if not a["meta"]["cached"]}
        assert row["meta"]["serial"] in fresh_serials
        assert row["results"] == answers[0]["results"]
        assert {a["meta"]["serial"] for a in answers if a["meta"]["cached"]} <= fresh_serials
    assert not leftover_tempdirs(env) and not held_locks(env)


def test_50_concurrent_fetches_respect_the_per_host_limit(tmp_path, server):
    env = setup(tmp_path, server)
    urls = [server.url + "/page/%d?delay=0.1" % (i % 10) for i in range(50)]
    procs = [(u, spawn(["fetch", u, "--allow-private", "--format", "raw"], env)) for u in urls]
    results = [(u,) + finish(p) for u, p in procs]
    for u, rc, payload, err in results:
        assert rc == 0 and payload["ok"], (u, rc, payload, err)
        (item,) = payload["results"]
        assert item["ok"] and "article body of page" in item["content"]
    assert server.stats.max_inflight <= 2, server.stats.max_inflight  # politeness: 2 per host, all processes
    misses = [r for r in results if not r[2]["results"][0]["cached"]]
    assert server.stats.total == len(misses) and len(misses) >= 10
    rows = check_db(env)
    assert len(rows) == 10
    by_url = {}
    for u, _rc, payload, _err in results:
        by_url.setdefault(u, set()).add(payload["results"][0]["content"])
    for v in rows.values():
        assert v["content"] in by_url[v["url"]]  # a stored item is one some process fetched
    assert not leftover_tempdirs(env) and not held_locks(env)


# -- SIGTERM at random moments --------------------------------------------------------------


def _wait_for(predicate, timeout=20.0, step=0.005):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(step)
    return False


def _waiting_on_a_slot(pid):
    """Is the process inside a slot wait?  It has the slot lock files open then."""
    try:
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                if "/locks/search-" in os.readlink("/proc/%d/fd/%s" % (pid, fd)):
                    return True
            except OSError:
                pass
    except OSError:
        pass
    return False


def _read_stderr_until(proc, marker, timeout=20.0):
    """Read the process's stderr until ``marker`` shows up (the pause hook's announcement)."""
    import select

    buf = b""
    end = time.monotonic() + timeout
    while marker not in buf and time.monotonic() < end:
        ready, _, _ = select.select([proc.stderr], [], [], 0.05)
        if ready:
            chunk = os.read(proc.stderr.fileno(), 4096)
            if not chunk:
                break
            buf += chunk
    return marker in buf


# A call paused inside its write transaction holds SQLite's write lock; a second writer
# would give up after the busy timeout and skip its write (by design: never a failed
# call), never reaching the pause.  So write-phase kills take turns.
_WRITE_PHASE = threading.Lock()


def _one_kill(phase, n, env, server, rng):
    """Start a call, bring it to ``phase``, SIGTERM it at a random moment there; return what we saw."""
    if phase == "write":
        with _WRITE_PHASE:
            return _one_kill_now(phase, n, env, server, rng)
    return _one_kill_now(phase, n, env, server, rng)


def _one_kill_now(phase, n, env, server, rng):
    query = "kill %s %d" % (phase, n)
    args = ["search", query, "--provider", "fake"]
    run_env = env
    if phase == "write":
        run_env = dict(env, WEBSEARCH_WORKER_TEST_PAUSE="cache-write", WEBSEARCH_WORKER_TEST_PAUSE_S="20")
    elif phase == "slot":
        args += ["--config", env["SLOT_CONFIG"]]
    proc = spawn(args, run_env)
    try:
        if phase == "slot":
            reached = _wait_for(lambda: _waiting_on_a_slot(proc.pid))
        elif phase == "request":
            reached = server.stats.event(query).wait(20)
        else:
            reached = _read_stderr_until(proc, b"test pause: cache-write")
        assert reached and proc.poll() is None, (phase, proc.poll())
        time.sleep(rng.uniform(0, 0.15))
        assert proc.poll() is None  # it is still in the phase: every kill below lands in a live call
        proc.send_signal(signal.SIGTERM)
        rc, payload, err = finish(proc, timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return phase, query, rc, payload, err


def test_200_sigterms_at_random_moments(tmp_path, server):
    # Request phase: the server takes 5 s, far longer than any kill delay.
    env = setup(tmp_path, server, delay=5)
    # Slot phase: a provider (its own type, so its own slots) whose single slot is taken for the
    # whole test by a call the server holds.
    slot_cfg = tmp_path / "slot.json"
    slot_cfg.write_text(
        json.dumps(
            {
                "providers": [
                    {"name": "fake", "type": OTHER_TYPE, "options": {"url": server.url, "delay": 600, "concurrency": 1}}
                ]
            }
        )
    )
    env["SLOT_CONFIG"] = str(slot_cfg)
    blocker = spawn(["search", "blocker", "--provider", "fake", "--config", str(slot_cfg), "--timeout", "600"], env)
    try:
        assert server.stats.event("blocker").wait(30)
        # Write phase needs answers that arrive at once: a fast server for those calls.
        fast = CountServer().start()
        try:
            fast_cfg = tmp_path / "fast.json"
            fast_cfg.write_text(
                json.dumps({"providers": [{"name": "fake", "type": FAKE_TYPE, "options": {"url": fast.url}}]})
            )
            write_env = dict(env, WEBSEARCH_CONFIG=str(fast_cfg))
            rng = random.Random(7)
            phases = ["slot", "request", "write"] * 67
            rng.shuffle(phases)
            phases = phases[:200]
            jobs = []
            with ThreadPoolExecutor(max_workers=12) as pool:
                for n, phase in enumerate(phases):
                    e = write_env if phase == "write" else env
                    jobs.append(pool.submit(_one_kill, phase, n, e, server, random.Random(n)))
                outcomes = [j.result() for j in jobs]
        finally:
            fast.stop()
    finally:
        blocker.send_signal(signal.SIGTERM)
        assert finish(blocker)[0] == 130

    assert len(outcomes) == 200 and {o[0] for o in outcomes} == {"slot", "request", "write"}
    for phase, query, rc, payload, err in outcomes:
        assert rc == 130, (phase, query, rc, payload, err[-500:])
        assert payload and payload["error"]["code"] == "cancelled", (phase, payload)
        assert "Traceback" not in err
    assert not leftover_tempdirs(env)
    assert not held_locks(env)
    rows = check_db(env)
    # No killed call left a row: the write ones died inside their transaction, the others before writing.
    killed = {o[1] for o in outcomes}
    assert not any(json.loads(k)[-1].get("query") in killed for k in rows)
    # The next call with the one-slot provider proceeds at once and is answered and cached.
    env2 = dict(env, WEBSEARCH_CONFIG=str(slot_cfg))
    server.stats.reset()
    slot_cfg.write_text(
        json.dumps(
            {"providers": [{"name": "fake", "type": OTHER_TYPE, "options": {"url": server.url, "concurrency": 1}}]}
        )
    )
    rc, payload, err = finish(spawn(["search", "after the storm", "--provider", "fake"], env2))
    assert rc == 0 and payload["meta"]["cached"] is False, (payload, err)
    assert payload["meta"]["slot_wait_ms"] < 2000
    rc, payload, err = finish(spawn(["search", "after the storm", "--provider", "fake"], env2))
    assert rc == 0 and payload["meta"]["cached"] is True
    check_db(env)


# -- SIGKILL ----------------------------------------------------------------------------


def test_sigkill_inside_a_cache_write(tmp_path, server):
    env = setup(tmp_path, server)
    # an older answer for the same request is in the cache; --refresh replaces it
    rc, old, _ = finish(spawn(["search", "killed write", "--provider", "fake"], env))
    assert rc == 0 and old["meta"]["cached"] is False
    paused = dict(env, WEBSEARCH_WORKER_TEST_PAUSE="cache-write")
    for _ in range(3):
        proc = spawn(["search", "killed write", "--provider", "fake", "--refresh"], paused)
        assert _read_stderr_until(proc, b"test pause: cache-write")
        proc.kill()
        proc.wait()
        assert proc.returncode == -signal.SIGKILL
        proc.stdout.close()
        proc.stderr.close()
    # not blocked: the dead writer's SQLite locks went with it; not wrong: the old answer is intact
    start = time.monotonic()
    rc, hit, err = finish(spawn(["search", "killed write", "--provider", "fake"], env))
    assert rc == 0 and hit["meta"]["cached"] is True, (hit, err)
    assert hit["meta"]["serial"] == old["meta"]["serial"]
    assert time.monotonic() - start < 20
    rc, fresh, _ = finish(spawn(["search", "killed write", "--provider", "fake", "--refresh"], env))
    assert rc == 0 and fresh["meta"]["serial"] != old["meta"]["serial"]
    rc, hit, _ = finish(spawn(["search", "killed write", "--provider", "fake"], env))
    assert hit["meta"]["cached"] is True and hit["meta"]["serial"] == fresh["meta"]["serial"]
    check_db(env)
    assert not leftover_tempdirs(env)  # the killed calls' temp dirs were swept by later calls


def test_sigkill_while_holding_a_slot(tmp_path, server):
    env = setup(tmp_path, server, concurrency=1, delay=60)
    proc = spawn(["search", "holder", "--provider", "fake"], env)
    assert server.stats.event("holder").wait(30)
    assert held_locks(env)  # it holds the provider's only slot
    proc.kill()
    proc.wait()
    proc.stdout.close()
    proc.stderr.close()
    assert not held_locks(env)
    cfg = tmp_path / "cfg.json"
    cfg.write_text(
        json.dumps(
            {"providers": [{"name": "fake", "type": FAKE_TYPE, "options": {"url": server.url, "concurrency": 1}}]}
        )
    )
    rc, payload, err = finish(spawn(["search", "next", "--provider", "fake", "--timeout", "30"], env))
    assert rc == 0 and payload["meta"]["cached"] is False, (payload, err)
    assert payload["meta"]["slot_wait_ms"] < 2000
    assert [r["title"] for r in payload["results"]][0] == "next result 1"  # its own answer, not the dead call's
    assert not leftover_tempdirs(env)
