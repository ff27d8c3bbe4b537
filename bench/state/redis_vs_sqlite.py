#!/usr/bin/env python
"""Shared state benchmark: a cache hit through Redis against a SQLite hit, and the cost of a slot reservation.

Usage (from the repo root, with the dev venv's python; needs redis-server on PATH):

    python bench/state/redis_vs_sqlite.py [--rounds N] [--redis-py PYTHON]

It starts its own redis-server on a free port of 127.0.0.1 (tests/redisproc.py)
and a fake Brave (tests/fakes/brave_server.py), then measures, interleaved round
after round so both backends see the same machine load:

In process (one ``Store``/``State`` opened per operation, as every call is a fresh process):
- cache hit: ``cache.Store.get`` of a stored search answer, SQLite file vs Redis
  (connect, ``MGET`` + ``TIME`` in one round trip, decode);
- slot: ``State.reserve`` of a key with no interval to wait out (the reservation
  itself: a locked ``.last`` file vs the Lua script on the server), on a state that
  is already open (a call reserves after it has read its cache).

Through the CLI (a fresh ``python -I -m worker`` per call, medians of wall and
of the child's CPU time): ``--version`` (the floor every call pays), and the same
``search --provider brave`` answered from the cache with ``"state"`` unset (SQLite)
and ``"state": "redis://..."``.

``--redis-py PYTHON``: also time ``import redis`` (redis-py) in that interpreter, the
client this worker does not use (worker/state/resp.py says why).
"""

import argparse
import atexit
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.insert(0, REPO)

from fakes import brave_server  # noqa: E402
from redisproc import RedisServer, missing  # noqa: E402

from worker import protocol  # noqa: E402
from worker.providers.base import ProviderSpec  # noqa: E402
from worker.runtime import Call  # noqa: E402
from worker.state import backend, cache  # noqa: E402

PY = os.environ.get("BENCH_PYTHON", sys.executable)
QUERY = "full rust async runtime comparison"
ANSWER = {
    "results": [
        {
            "title": "Result %d about async runtimes" % i,
            "url": "https://example.org/%d" % i,
            "snippet": "A comparison of tokio, async-std and smol, part %d." % i,
        }
        for i in range(1, 6)
    ],
    "meta": {"request_id": "req-bench"},
    "warnings": [],
}


def us(values):
    return statistics.median(values) * 1e6


def in_process(tmp, url, rounds):
    """{row: [seconds]} for the in-process measurements."""
    key = cache.make_key("search", ProviderSpec("brave", "brave"), {"query": QUERY})
    dirs = {"sqlite": os.path.join(tmp, "inproc-sqlite"), "redis": os.path.join(tmp, "inproc-redis")}
    settings = {"sqlite": {}, "redis": {"state": url}}
    for name in dirs:  # store the entry in each backend
        call = Call(timeout=60)
        backend.attach(call, dirs[name], settings[name])
        cache.Store(cache.Policy(dirs[name]), call).put(key, "search", "brave", ANSWER)
        call.state.close()
    out = {"hit sqlite": [], "hit redis": [], "slot sqlite": [], "slot redis": []}
    open_states = {}
    for name in dirs:
        call = Call(timeout=3600)
        open_states[name] = backend.attach(call, dirs[name], settings[name])
        open_states[name].reserve("bench", 0.0, None)  # connected (and the script loaded) before timing
    for _ in range(rounds):
        for name in dirs:
            call = Call(timeout=60)
            started = time.perf_counter()
            backend.attach(call, dirs[name], settings[name])
            hit = cache.Store(cache.Policy(dirs[name]), call).get(key)
            out["hit " + name].append(time.perf_counter() - started)
            assert hit is not None and call.warnings == [], (name, call.warnings)
            call.state.close()
            started = time.perf_counter()
            open_states[name].reserve("bench", 0.0, None)
            out["slot " + name].append(time.perf_counter() - started)
    for st in open_states.values():
        st.close()
    return out


def cli_env(tmp, name, fake, url):
    env = dict(os.environ)
    base = os.path.join(tmp, "cli-" + name)
    os.makedirs(base, exist_ok=True)
    env.update(
        WEBSEARCH_WORKER_TMPDIR=os.path.join(base, "calltmp"),
        XDG_CACHE_HOME=os.path.join(base, "cache"),
        HOME=os.path.join(base, "home"),
        WEBSEARCH_CONFIG=os.path.join(base, "config.json"),
    )
    for k in ("EXA_API_KEY", "BRAVE_API_KEY", "HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
        env.pop(k, None)
    extra = {"state": url} if url else {}
    fake.config_file(_Path(env["WEBSEARCH_CONFIG"]), **extra)
    return env


class _Path(str):
    """The little of pathlib.Path that FakeBrave.config_file uses."""

    def write_text(self, text):
        with open(self, "w") as fh:
            fh.write(text)


def timed(args, env):
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(
        [PY, "-I", "-m", "worker"] + args, cwd=REPO, env=env, stdin=subprocess.DEVNULL, capture_output=True
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    payload = protocol.parse(proc.stdout.decode("ascii")) if args[0] != "--version" else None
    return wall, cpu, payload


def through_cli(tmp, url, rounds):
    walls = {"version": [], "cli hit sqlite": [], "cli hit redis": []}
    cpus = {k: [] for k in walls}
    with brave_server.FakeBrave() as fake:
        envs = {"cli hit sqlite": cli_env(tmp, "sqlite", fake, None), "cli hit redis": cli_env(tmp, "redis", fake, url)}
        search = ["search", QUERY, "--provider", "brave"]
        for env in envs.values():
            timed(search, env)  # the miss that stores the answer
        variants = [("version", ["--version"], envs["cli hit sqlite"])] + [(k, search, e) for k, e in envs.items()]
        for _ in range(rounds):
            for name, args, env in variants:
                wall, cpu, payload = timed(args, env)
                if payload is not None:
                    assert payload["meta"]["cached"] is True and payload["warnings"] == [], (name, payload)
                walls[name].append(wall)
                cpus[name].append(cpu)
        assert len(fake.requests) == 2, len(fake.requests)
    return walls, cpus


def redis_py_import(python, rounds):
    out = []
    for _ in range(rounds):
        r = subprocess.run([python, "-X", "importtime", "-c", "import redis"], capture_output=True, text=True)
        last = [line for line in r.stderr.splitlines() if line.rstrip().endswith("| redis")]
        out.append(int(last[-1].split("|")[1]) / 1e6)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--inproc-rounds", type=int, default=500)
    ap.add_argument("--redis-py", metavar="PYTHON", help="an interpreter with redis-py installed")
    opts = ap.parse_args()
    why = missing()
    if why:
        raise SystemExit(why)
    tmp = tempfile.mkdtemp(prefix="bench-state-")
    atexit.register(shutil.rmtree, tmp, True)  # a bench leaves nothing in the temp folder
    server = RedisServer(os.path.join(tmp, "redis")).start()
    try:
        version = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout.split()[2]
        print("redis-server %s on 127.0.0.1:%d; %d CLI rounds, %d in-process rounds" % (
            version, server.port, opts.rounds, opts.inproc_rounds))  # fmt: skip
        inproc = in_process(tmp, server.url, opts.inproc_rounds)
        walls, cpus = through_cli(tmp, server.url, opts.rounds)
    finally:
        server.stop()
    print("\nin process, median per operation:")
    print("| operation | SQLite | Redis | Redis / SQLite |")
    print("| --- | --- | --- | --- |")
    for what, label in (("hit", "cache hit (open the state, read, decode)"), ("slot", "slot reservation")):
        a, b = us(inproc[what + " sqlite"]), us(inproc[what + " redis"])
        print("| %s | %.0f us | %.0f us | %.2fx |" % (label, a, b, b / a))
    print("\nthrough the CLI, median of %d interleaved rounds:" % opts.rounds)
    print("| call | wall | CPU | wall / --version |")
    print("| --- | --- | --- | --- |")
    floor = statistics.median(walls["version"])
    for name in walls:
        w, c = statistics.median(walls[name]), statistics.median(cpus[name])
        print("| %s | %.1f ms | %.1f ms | %.2fx |" % (name, w * 1e3, c * 1e3, w / floor))
    sq, rd = statistics.median(walls["cli hit sqlite"]), statistics.median(walls["cli hit redis"])
    print("\nRedis hit - SQLite hit through the CLI: %+.1f ms wall (%.2fx)" % ((rd - sq) * 1e3, rd / sq))
    if opts.redis_py:
        print(
            "import redis (redis-py), median of %d: %.0f ms"
            % (opts.rounds, us(redis_py_import(opts.redis_py, opts.rounds)) / 1e3)
        )


if __name__ == "__main__":
    main()
