#!/usr/bin/env python
"""Several queries in one call (issue 43): the time of a 3-query call against its slowest single query.

Usage (from the repo root, with the dev venv's python):

    python bench/search/multi.py [--rounds 9] [--delays 0.3,0.5,0.8] [--burst]

A fake Brave API on 127.0.0.1 (tests/fakes/brave_server.py) holds each answer a fixed time per
query (``--delays``: the three queries' latencies, the last the slowest); the config removes
Brave's one-request-a-second pace (``minInterval: 0``), as a paid plan may.  Each round runs, in
this order, a fresh ``python -I -m worker search --no-cache`` process per call, as hosts run it:

- the three queries one call each (what an agent does without ``--query``);
- one call with the three (``Q1 --query Q2 --query Q3``).

The baseline is measured in the same run, interleaved: the slowest single query's call (its
process start included) in the same round.  Reported: the median over rounds of each call, the
ratio of the 3-query call to the slowest single call, and to the three singles one after another.

``--burst``: also a 5-query call against the fake at Brave's free-plan rate (it answers 429 to a
request less than a second after the last it let through) with Brave's own pace kept: the 429s
that reached it (0 is the bar), the spacing of the requests it let through, and the call's time.
"""

import argparse
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

from fakes import brave_server  # noqa: E402

from worker import protocol  # noqa: E402

PY = os.environ.get("BENCH_PYTHON", sys.executable)
WORDS = ("alpha", "beta", "gamma", "delta", "epsilon")


def env_for(tmp, config):
    env = dict(os.environ)
    env["WEBSEARCH_WORKER_TMPDIR"] = os.path.join(tmp, "calltmp")
    env["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
    env["HOME"] = os.path.join(tmp, "home")
    env["WEBSEARCH_CONFIG"] = config
    for k in ("EXA_API_KEY", "BRAVE_API_KEY", "HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
        env.pop(k, None)
    return env


def write_config(tmp, fake, pace):
    entry = fake.provider_entry()
    if pace:
        entry.pop("options")  # Brave's own minInterval: one request a second
    path = os.path.join(tmp, "config.json")
    with open(path, "w") as f:
        json.dump({"providers": [entry]}, f)
    os.chmod(path, 0o600)
    return path


def call(env, queries):
    args = ["search", "--no-cache", "--provider", "brave", queries[0]]
    for q in queries[1:]:
        args += ["--query", q]
    started = time.monotonic()
    proc = subprocess.run([PY, "-I", "-m", "worker"] + args, cwd=REPO, env=env, capture_output=True, timeout=120)
    took = time.monotonic() - started
    payload = protocol.parse(proc.stdout.decode("ascii", "replace"))
    if not payload.get("ok"):
        raise SystemExit("a call failed: %s" % payload.get("error"))
    return took, payload


def latency(rounds, delays):
    tmp = tempfile.mkdtemp(prefix="bench-multi-")
    try:
        with brave_server.FakeBrave() as fake:
            for word, delay in zip(WORDS, delays):
                fake.server.delays[word] = delay
            env = env_for(tmp, write_config(tmp, fake, pace=False))
            queries = ["%s rust async runtime" % w for w in WORDS[: len(delays)]]
            singles = [[] for _ in queries]
            multi, sums, ratios = [], [], []
            for _ in range(rounds):
                times = [call(env, [q])[0] for q in queries]
                for i, t in enumerate(times):
                    singles[i].append(t)
                took, payload = call(env, queries)
                assert len(payload["meta"]["searches"]) == len(queries)
                multi.append(took)
                sums.append(sum(times))
                ratios.append(took / times[-1])
        med = statistics.median
        print("%d rounds, query latencies %s s at the fake API, no pace between requests\n" % (
            rounds, ", ".join("%g" % d for d in delays)))  # fmt: skip
        print("| call | median wall time | against the slowest single query |")
        print("| --- | --- | --- |")
        for d, ts in zip(delays, singles):
            print("| one query (%g s at the API) | %.3f s | %.2fx |" % (d, med(ts), med(ts) / med(singles[-1])))
        print("| the %d one after another | %.3f s | %.2fx |" % (len(queries), med(sums), med(sums) / med(singles[-1])))
        print("| one call, `--query` x%d | %.3f s | **%.2fx** (per-round ratio: median %.2fx, max %.2fx) |" % (
            len(queries) - 1, med(multi), med(multi) / med(singles[-1]), med(ratios), max(ratios)))  # fmt: skip
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def burst(n=5):
    tmp = tempfile.mkdtemp(prefix="bench-multi-burst-")
    try:
        with brave_server.FakeBrave() as fake:
            fake.server.rate = 1.0
            fake.server.rate_retry_after = None
            env = env_for(tmp, write_config(tmp, fake, pace=True))
            took, payload = call(env, ["full burst %d" % i for i in range(n)])
            times = sorted(fake.server.answered)
            gaps = [b - a for a, b in zip(times, times[1:])]
            print("\n%d queries in one call, the fake at one request a second, Brave's pace kept\n" % n)
            print("| 429s at the fake | requests let through | spacing (min / mean) | call |")
            print("| --- | --- | --- | --- |")
            print("| %d | %d | %.2f / %.2f s | %.2f s |" % (
                fake.server.refused, len(times), min(gaps), statistics.mean(gaps), took))  # fmt: skip
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--delays", default="0.3,0.5,0.8", help="each query's latency at the API, seconds")
    ap.add_argument("--burst", action="store_true")
    opts = ap.parse_args()
    delays = [float(d) for d in opts.delays.split(",")]
    if not 2 <= len(delays) <= len(WORDS) or delays[-1] != max(delays):
        raise SystemExit("--delays: 2 to 5 latencies, the slowest last")
    latency(opts.rounds, delays)
    if opts.burst:
        burst()


if __name__ == "__main__":
    main()
