#!/usr/bin/env python
"""Cache benchmark: a cache hit against `--version` and against a cold call.

Usage (from the repo root, with the dev venv's python):

    python bench/cache/run.py [--rounds N]

Every call is a fresh ``python -I -m worker`` process, as hosts run it; the
variants run interleaved, round after round, and we report medians of wall time
and of the child's CPU time (user + system, from os.wait4; far less disturbed
by other load on the machine than wall time).

- version:    ``--version``, the floor every call pays (the baseline)
- search floor: ``search "   "``, refused as an empty query after the command line is
              parsed and the search tool imported: what any search pays before
              the cache is even asked (argparse, json, the tool's modules)
- ddgs hit:   ``search "..."`` with the builtin ddgs provider, answered from the
              cache (the entry is stored beforehand); the target is <= 1.3x version
- fake cold:  the same search through a provider of our own
              (tests/fakes/slow_provider.py) against a local server, ``--refresh``:
              provider import, slot, HTTP request, cache write
- fake hit:   that search again, from the cache
- fetch cold / fetch hit: one local page, ``--refresh`` vs from the cache
- 1MB full / 1MB revalidated: a 1 MB article whose server sends an ETag and
              ``max-age=0`` (tests/fakes/fresh_server.py): downloaded and extracted
              whole (``--refresh``) against the cached item revalidated (a conditional
              request answered 304, no body, no extraction), same server, same run

No internet: a cold ddgs search cannot run here, so the cold rows use local servers
and show the worker's own cost of a miss, not a search engine's latency.
"""

import argparse
import atexit
import json
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

from fakes.count_server import CountServer  # noqa: E402
from fakes.fresh_server import FreshWeb  # noqa: E402

from worker import protocol  # noqa: E402

PY = os.environ.get("BENCH_PYTHON", sys.executable)
QUERY = "rust async runtime comparison"


def make_env(tmp, server):
    env = dict(os.environ)
    env["WEBSEARCH_WORKER_TMPDIR"] = os.path.join(tmp, "calltmp")
    env["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
    env["HOME"] = os.path.join(tmp, "home")
    cfg = os.path.join(tmp, "cfg.json")
    with open(cfg, "w") as fh:
        json.dump(
            {
                "providers": [
                    {"name": "fake", "type": "tests.fakes.slow_provider:SlowProvider", "options": {"url": server.url}}
                ]
            },
            fh,
        )
    env["WEBSEARCH_CONFIG"] = cfg
    for k in ("EXA_API_KEY", "BRAVE_API_KEY", "HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
        env.pop(k, None)
    return env


def store_ddgs_entry(env):
    """Put a ddgs answer for QUERY in the cache, under the key the worker computes."""
    saved = dict(os.environ)
    os.environ.update({k: env[k] for k in ("WEBSEARCH_CONFIG", "HOME", "XDG_CACHE_HOME")})
    try:
        from worker import config
        from worker.cli import parse_args, request_of
        from worker.state import cache
        from worker.tools import search

        request = request_of(parse_args(["search", QUERY]))
        cfg = config.load(request)
        key = search.plan(cfg, request)[0]
        spec = config.select(cfg, "search", None)
        results = [
            {
                "title": "Result %d about async runtimes" % i,
                "url": "https://example.org/%d" % i,
                "snippet": "A comparison of tokio, async-std and smol, part %d." % i,
                "engine": "duckduckgo",
            }
            for i in range(1, 6)
        ]
        store = cache.open_store(request, cfg.settings)
        store.put(
            key,
            "search",
            spec.name,
            {
                "results": results,
                "meta": {"engine": "duckduckgo"},
                "warnings": [],
                "provider": spec.name,
                "provider_type": spec.type,
            },
        )
        store.close()
    finally:
        os.environ.clear()
        os.environ.update(saved)


def run(args, env, extra_py=()):
    """(wall s, cpu s, payload, stderr) of one fresh worker process."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [PY, "-I"] + list(extra_py) + ["-m", "worker"] + list(args),
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    # communicate() reaped it; children's rusage accumulates in RUSAGE_CHILDREN, read around the call instead
    return wall, out, err, proc.returncode


def timed(args, env):
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, out, err, rc = run(args, env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    payload = None
    if args and args[0] != "--version":
        payload = protocol.parse(out.decode("ascii"))
        if rc != 0 and args[1:2] != ["   "]:
            raise SystemExit("%s failed: %s %s" % (args, payload, err.decode()[-500:]))
    return wall, cpu, payload


def import_cost(args, env):
    """Cumulative -X importtime of a few modules on one cache-hit run (microseconds)."""
    _, _, err, _ = run(args, env, extra_py=("-X", "importtime"))
    cost = {}
    for line in err.decode().splitlines():
        if line.startswith("import time:"):
            parts = [p.strip() for p in line[len("import time:") :].split("|")]
            try:
                cost[parts[2].strip()] = int(parts[1])
            except (IndexError, ValueError):
                pass
    return cost


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    opts = ap.parse_args()

    server = CountServer().start()
    fresh = FreshWeb().start()
    big = fresh.url("/v/big?kb=1024")
    tmp = tempfile.mkdtemp(prefix="bench-cache-")
    atexit.register(shutil.rmtree, tmp, True)  # a bench leaves nothing in the temp folder
    env = make_env(tmp, server)
    store_ddgs_entry(env)
    page = server.url + "/page/bench"
    fmt = []
    try:
        import worker.pages.extract.core  # noqa: F401
    except ImportError:  # before the extractor exists: time the raw page
        fmt = ["--format", "raw"]
        print("note: worker.pages.extract.core is missing; fetch rows use --format raw (no extraction)")
    variants = [
        ("version", ["--version"], None),
        ("search floor", ["search", "   "], None),
        ("ddgs hit", ["search", QUERY], True),
        ("fake cold", ["search", QUERY, "--provider", "fake", "--refresh"], False),
        ("fake hit", ["search", QUERY, "--provider", "fake"], True),
        ("fetch cold", ["fetch", page, "--allow-private", "--refresh"] + fmt, False),
        ("fetch hit", ["fetch", page, "--allow-private"] + fmt, True),
        ("1MB full", ["fetch", big, "--allow-private", "--refresh"] + fmt, "miss"),
        ("1MB revalidated", ["fetch", big, "--allow-private"] + fmt, "revalidated"),
    ]
    for _, args, _ in variants:  # warm the OS caches and the cache entries
        timed(args, env)
    walls = {name: [] for name, _, _ in variants}
    cpus = {name: [] for name, _, _ in variants}
    for _ in range(opts.rounds):
        for name, args, want_cached in variants:
            wall, cpu, payload = timed(args, env)
            if isinstance(want_cached, str):  # the item's cache state: miss, revalidated
                got = payload["results"][0].get("cache")
                if got != want_cached:
                    raise SystemExit("%s: expected cache=%s, got %r" % (name, want_cached, payload["results"][0]))
            elif want_cached is not None:
                got = payload["meta"].get("cached")
                if got is not want_cached:
                    raise SystemExit("%s: expected cached=%s, got %r" % (name, want_cached, payload["meta"]))
            walls[name].append(wall)
            cpus[name].append(cpu)
    server.stop()
    fresh.stop()
    answers = {status: fresh.answered("/v/big", status) for status in (200, 304)}

    base_w = statistics.median(walls["version"])
    base_c = statistics.median(cpus["version"])
    print("cache benchmark: %d interleaved rounds, medians, python %s" % (opts.rounds, sys.version.split()[0]))
    try:
        print("load average: %.2f %.2f %.2f" % os.getloadavg())
    except OSError:
        pass
    print("%-16s %9s %9s %9s %9s" % ("call", "wall ms", "x version", "cpu ms", "x version"))
    for name, _, _ in variants:
        w = statistics.median(walls[name])
        c = statistics.median(cpus[name])
        print("%-16s %9.1f %9.2f %9.1f %9.2f" % (name, w * 1000, w / base_w, c * 1000, c / base_c))
    for cold, hit in (("fake cold", "fake hit"), ("fetch cold", "fetch hit"), ("1MB full", "1MB revalidated")):
        print(
            "%s / %s: wall x%.2f, cpu x%.2f"
            % (
                hit,
                cold,
                statistics.median(walls[hit]) / statistics.median(walls[cold]),
                statistics.median(cpus[hit]) / statistics.median(cpus[cold]),
            )
        )
    print(
        "ddgs hit - search floor: wall %+.1f ms, cpu %+.1f ms (the cache's own share of a hit)"
        % (
            (statistics.median(walls["ddgs hit"]) - statistics.median(walls["search floor"])) * 1000,
            (statistics.median(cpus["ddgs hit"]) - statistics.median(cpus["search floor"])) * 1000,
        )
    )
    print(
        "1 MB page: %d full answers (200, %d bytes of body each), %d answered 304 with no body"
        % (answers[200], fresh.body_bytes("/v/big") // max(1, answers[200]), answers[304])
    )
    hit_ratio = statistics.median(walls["ddgs hit"]) / base_w
    print("target: ddgs hit <= 1.30x version (wall): %.2fx %s" % (hit_ratio, "met" if hit_ratio <= 1.3 else "NOT met"))
    cost = import_cost(["search", QUERY], env)
    print(
        "imports on the ddgs hit path (-X importtime, cumulative us): _sqlite3 %s, worker.state.cache %s, worker.tools.search %s"
        % (cost.get("_sqlite3"), cost.get("worker.state.cache"), cost.get("worker.tools.search"))
    )
    heavy = sorted(
        m for m in cost if m.split(".")[0] in ("ddgs", "primp", "lxml", "exa_py", "trafilatura", "ssl", "socket")
    )
    print("provider/network modules imported on the hit path: %s" % (", ".join(heavy) or "none"))


if __name__ == "__main__":
    main()
