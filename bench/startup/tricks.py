#!/usr/bin/env python3
"""What each start-up trick (worker/startup.py) saves: the real CLI with the trick on and off.

Usage (from the repo root, with the dev venv: the fakes of tests/ answer every call, no network):

    .venv-dev/bin/python bench/startup/tricks.py [--runs N] [--only NAME,...] [--together NAME,...]

For each trick, N rounds of two runs of the call that takes it, one with every trick on and
one with ``WEBSEARCH_WORKER_PLAIN=<trick>`` (that trick alone off), in a random order in
each round (machine load hits both alike).  Then the same for ``--together`` (those tricks
off at once, on the cached search) and for ``WEBSEARCH_WORKER_PLAIN=1`` (all off).  Printed: the median wall time each way, the median of the rounds' differences
(the saving), and the same for the CPU time (user + sys) of the process and its children,
which other load disturbs less, and (except for fetch, whose reading child imports apart)
for the import time the worker's ``-X importtime`` log adds up, in N more rounds.  The calls:

    hit          search of a fake Brave, answered from the SQLite cache
    fetch        fetch of a local article page, --no-cache (the reading child extracts it)
    exa          search of a fake Exa, --no-cache (exa-py imported)

The tricks dropped for saving under ~5 ms (gettext, socket, sha) were timed by this script
at commit fc1582c, which still had them (docs/PERFORMANCE.md#start-up-tricks-one-switch-issue-46).
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, ROOT)

from worker.startup import TRICKS  # noqa: E402

# trick -> the call it is timed on
CALL_OF = {
    "json": "hit",
    "sqlite": "hit",
    "record": "hit",
    "fast_parser": "hit",
    "standins": "fetch",
    "xpath_rewrite": "fetch",
    "readability_fast": "fetch",
    "exa_import": "exa",
    "regex_cache": "fetch",
    "gc_threshold": "fetch",
    "import_ahead": "fetch",
}


def time_once(argv, env):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if proc.returncode != 0 or b'"ok":true' not in proc.stdout[:400].replace(b" ", b""):
        sys.exit("a timed call failed: %s\n%s\n%s" % (argv, proc.stdout[-1000:], proc.stderr[-2000:]))
    return wall * 1000, cpu * 1000


def worker(*args):
    return [sys.executable, "-I", "-m", "worker"] + list(args)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--only", default="", help="trick names, comma-separated (default: all)")
    ap.add_argument("--together", default="", help="also these tricks off at once, on the cached search")
    opts = ap.parse_args()
    only = [n for n in opts.only.split(",") if n] or list(TRICKS)
    unknown = sorted(set(only) - set(TRICKS))
    if unknown:
        sys.exit("unknown tricks: %s (known: %s)" % (unknown, ", ".join(TRICKS)))
    missing = sorted(set(TRICKS) - set(CALL_OF))
    if missing:
        sys.exit("no call to time these on: %s" % missing)

    from fakes import exa_server
    from fakes.brave_server import FakeBrave
    from fakes.http_server import FakeWeb

    tmp = tempfile.mkdtemp(prefix="tricks-bench-")
    atexit.register(shutil.rmtree, tmp, True)  # a bench leaves nothing in the temp folder
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("WEBSEARCH_") or k.endswith(("_PROXY", "_proxy")) or k.endswith("_API_KEY"):
            del env[k]
    env.update(
        HOME=os.path.join(tmp, "home"),
        XDG_CACHE_HOME=os.path.join(tmp, "cache"),
        WEBSEARCH_WORKER_TMPDIR=os.path.join(tmp, "calltmp"),
        WEBSEARCH_CONFIG=os.path.join(tmp, "none.json"),
        DDGS_PROXY="http://127.0.0.1:9",
    )
    web = FakeWeb().start()
    exa = exa_server.start()
    with FakeBrave() as brave:
        config = brave.config_file(_Path(os.path.join(tmp, "brave.json")))
        exa_config = os.path.join(tmp, "exa.json")
        with open(exa_config, "w") as f:
            json.dump({"providers": [exa.provider_entry()]}, f)
        calls = {
            "hit": worker("search", "startup tricks", "--config", config),
            "fetch": worker("fetch", web.url("/article"), "--allow-private", "--no-cache"),
            "exa": worker("search", "startup tricks", "--config", exa_config, "--no-cache"),
        }
        try:
            time_once(calls["hit"], env)  # fills the cache
            rows = []
            cases = [(n, CALL_OF[n], n) for n in only if CALL_OF[n] in calls]
            if opts.together:
                cases.append(("together (hit)", "hit", opts.together))
            cases += [("all (hit)", "hit", "1"), ("all (fetch)", "fetch", "1")]
            for label, call, switch in cases:
                imports = call != "fetch"  # the reading child's imports are not in the worker's log
                rows.append((label, call, measure(calls[call], env, switch, opts.runs, imports)))
                print_row(*rows[-1])
        finally:
            web.stop()
            exa.shutdown()
    print("\n%d rounds each, %s, %s" % (opts.runs, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), _machine()))


class _Path(str):
    """brave.config_file takes a pathlib-like object: write_text is all it uses."""

    def write_text(self, text):
        with open(self, "w") as f:
            f.write(text)


def import_ms(argv, env):
    """The call's own import time: the sum of ``-X importtime``'s self times, in ms."""
    proc = subprocess.run(
        argv[:1] + ["-X", "importtime"] + argv[1:], env=env, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True
    )
    total = 0
    for line in proc.stderr.decode(errors="replace").splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            total += int(line.split(":", 1)[1].split("|", 1)[0])
    return total / 1000


def measure(argv, env, switch, runs, imports=False):
    on_env, off_env = dict(env, WEBSEARCH_WORKER_PLAIN=""), dict(env, WEBSEARCH_WORKER_PLAIN=switch)
    time_once(argv, on_env), time_once(argv, off_env)  # warm the page cache both ways
    on, off = [], []
    for _ in range(runs):
        order = [(on, on_env), (off, off_env)]
        random.shuffle(order)
        for out, e in order:
            out.append(time_once(argv, e))
    wall = [b[0] - a[0] for a, b in zip(on, off)]
    cpu = [b[1] - a[1] for a, b in zip(on, off)]
    imp_on, imp_off = [], []
    for _ in range(runs if imports else 0):
        order = [(imp_on, on_env), (imp_off, off_env)]
        random.shuffle(order)
        for out, e in order:
            out.append(import_ms(argv, e))
    return {
        "imports_on": statistics.median(imp_on) if imp_on else None,
        "imports_saving": statistics.median(b - a for a, b in zip(imp_on, imp_off)) if imp_on else None,
        "on": statistics.median(x[0] for x in on),
        "off": statistics.median(x[0] for x in off),
        "saving": statistics.median(wall),
        "cpu_on": statistics.median(x[1] for x in on),
        "cpu_off": statistics.median(x[1] for x in off),
        "cpu_saving": statistics.median(cpu),
    }


def print_row(label, call, m):
    imports = (
        ""
        if m["imports_on"] is None
        else " | imports on %5.1f saves %5.1f ms"
        % (
            m["imports_on"],
            m["imports_saving"],
        )
    )
    print(
        "%-17s %-13s wall on %6.1f off %6.1f saves %6.1f ms | cpu on %6.1f off %6.1f saves %6.1f ms%s"
        % (label, call, m["on"], m["off"], m["saving"], m["cpu_on"], m["cpu_off"], m["cpu_saving"], imports),
        flush=True,
    )


def _machine():
    return "%d CPUs, load %.2f, Python %s" % (os.cpu_count() or 0, os.getloadavg()[0], sys.version.split()[0])


if __name__ == "__main__":
    main()
