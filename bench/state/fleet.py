#!/usr/bin/env python
"""A fleet against one key: twenty worker processes as two "machines" and a fake Brave that allows one
request a second (tests/fakes/brave_server.py, ``rate = 1``), with and without shared state.

Usage (from the repo root, with the dev venv's python; needs redis-server on PATH):

    python bench/state/fleet.py [--calls 20]

Each machine is its own cache directory, config home and config file (tests/state/test_fleet.py);
the calls start at once, half on each, ``search --no-cache --provider brave`` with Brave's own
pacing (one request a second).  Three set-ups, one after the other:

- local, no wait: SQLite state on each machine, the fake's 429s without Retry-After (each 429 is
  the call's answer, as before Retry-After was honoured);
- local: SQLite state on each machine, 429s with Retry-After: 1 (waited out once, then asked again);
- redis: both machines on one redis-server.

For each: calls answered and failed (by code), the 429s that reached the fake, the spacing of the
requests it let through, and the run's wall time.
"""

import argparse
import atexit
import os
import shutil
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests", "state"))
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.insert(0, REPO)

from fakes import brave_server  # noqa: E402
from redisproc import RedisServer, missing  # noqa: E402
from test_fleet import run_fleet, spacing  # noqa: E402


def one(name, calls, url=None, retry_after="1"):
    tmp = tempfile.mkdtemp(prefix="bench-fleet-")
    atexit.register(shutil.rmtree, tmp, True)  # a bench leaves nothing in the temp folder
    with brave_server.FakeBrave() as fake:
        fake.server.rate = 1.0
        fake.server.rate_retry_after = retry_after
        results, took = run_fleet(__import__("pathlib").Path(tmp), fake, state=url, calls=calls)
        codes = {}
        for r in results:
            code = "ok" if r.payload and r.payload.get("ok") else (r.payload or {}).get("error", {}).get("code", "?")
            codes[code] = codes.get(code, 0) + 1
        retried = sum(1 for r in results if r.payload and r.payload.get("meta", {}).get("retried_after_s"))
        gaps, mean, sd = spacing(sorted(fake.server.answered))
        print(
            "| %s | %s | %d | %d | %.2f±%.2f s (min %.2f) | %.1f s |"
            % (
                name,
                ", ".join("%s %d" % kv for kv in sorted(codes.items())),
                retried,
                fake.server.refused,
                mean,
                sd,
                min(gaps),
                took,
            )
        )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=20)
    opts = ap.parse_args()
    why = missing()
    if why:
        raise SystemExit(why)
    print("%d calls, two machines, a fake Brave allowing one request a second\n" % opts.calls)
    print("| state | calls | waited out a Retry-After | 429s at the fake | requests let through, spaced | wall |")
    print("| --- | --- | --- | --- | --- | --- |")
    one("local, 429s without Retry-After", opts.calls, retry_after=None)
    one("local, 429s with Retry-After: 1", opts.calls)
    redis_dir = tempfile.mkdtemp(prefix="bench-fleet-redis-")
    atexit.register(shutil.rmtree, redis_dir, True)
    server = RedisServer(redis_dir).start()
    try:
        one("redis", opts.calls, url=server.url)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
