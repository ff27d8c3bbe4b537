#!/usr/bin/env python3
"""Rendering through the CLI: what a script-built page costs, and what --render auto costs a static one.

Usage (from the repo root, with the dev venv's Python; Chromium installed):

    .venv-dev/bin/python bench/render/run.py [--runs N]

Pages are served on 127.0.0.1 by tests/fakes/app_server.py; every call is a real
``python -m worker fetch --no-cache --allow-private`` subprocess.  Printed:

    shell call      wall time of a call that renders one script-built page: the run's first call, then
                    median and p90 of the later ones
    render_ms       the item's render_ms (page open to DOM read, browser start excluded): median, p90
    browser start   meta.browser_start_ms (spawn to the first DevTools answer): median, p90
    batch of 4      four script-built pages in one call (one browser, four tabs): wall median
    peak memory     the most PSS (shared pages counted once) of the call's whole process tree, sampled
    static auto     a batch of 5 static pages with --render auto vs --render never, rounds interleaved:
                    median wall of each and the ratio auto / never (the check is all auto adds)
    auto's check    that check alone, in-process (median of 2000), and the self time of importing its modules
"""

import argparse
import atexit
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fakes.app_server import AppServer  # noqa: E402
from memory import Peak  # noqa: E402


def call(env, urls, *extra):
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-I", "-m", "worker", "fetch", "--no-cache", "--allow-private", *extra, *urls],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    with Peak(proc.pid) as peak:
        out, _ = proc.communicate(timeout=120)
    wall = (time.monotonic() - started) * 1000
    payload = json.loads(out.decode().splitlines()[1])
    return wall, payload, peak.mb


def in_process_check(urls):
    """Microseconds --render auto's check takes on a batch of static items (the call's only added work)."""
    sys.path.insert(0, ROOT)
    from worker.pages import pipeline
    from worker.pages.render.hook import complete
    from worker.pages.spec import Spec

    spec = Spec(allow_private=True)
    items = pipeline.fetch_all(urls, None, spec)
    runs = []
    for _ in range(2000):
        t = time.perf_counter()
        got, info = complete(items, urls, None, spec, "auto")
        runs.append((time.perf_counter() - t) * 1e6)
        assert got is items and info == {}
    return statistics.median(runs)


def hook_import_us():
    """-X importtime of worker.pages.render.hook (with decide) in a fresh interpreter: cumulative microseconds."""
    out = subprocess.run(
        [sys.executable, "-I", "-X", "importtime", "-c", "import worker.pages.render.hook"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stderr
    own = [
        line
        for line in out.splitlines()
        if line.rstrip().endswith(("worker.pages.render.hook", "worker.pages.render.decide", "worker.pages.render"))
    ]
    return sum(int(line.split("|")[0].split(":")[1]) for line in own)


def p90(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.9 * (len(xs) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    import tempfile

    app = AppServer().start()
    tmp = tempfile.mkdtemp(prefix="bench-render-")
    atexit.register(shutil.rmtree, tmp, True)  # a bench leaves nothing in the temp folder
    env = dict(os.environ, WEBSEARCH_WORKER_TMPDIR=tmp, WEBSEARCH_CONFIG=os.path.join(tmp, "none.json"))
    shell = app.url("/app/shell")
    statics = [app.url("/static/page-%d" % n) for n in range(5)]
    walls, renders, starts, peaks = [], [], [], []
    for _ in range(args.runs):
        wall, payload, peak = call(env, [shell])
        item = payload["results"][0]
        assert item.get("rendered"), item
        walls.append(wall)
        renders.append(item["render_ms"])
        starts.append(payload["meta"]["browser_start_ms"])
        peaks.append(peak)
    batch = [
        call(env, [app.url("/app/shell"), app.url("/app/bare"), app.url("/app/dialogs"), shell])[0] for _ in range(3)
    ]
    auto, never = [], []
    for _ in range(args.runs):
        wall, payload, _ = call(env, statics)
        assert "browser_start_ms" not in payload["meta"]
        auto.append(wall)
        never.append(call(env, statics, "--render", "never")[0])
    check_us = in_process_check(statics)
    import_us = hook_import_us()
    app.stop()
    later = walls[1:]
    print(
        "shell call      first %7.0f ms   later median %7.0f ms   p90 %7.0f ms"
        % (walls[0], statistics.median(later), p90(later))
    )
    print(
        "render_ms       median %6.0f ms   p90 %6.0f ms   (first call %d ms)"
        % (statistics.median(renders), p90(renders), renders[0])
    )
    print("browser start   median %6.0f ms   p90 %6.0f ms" % (statistics.median(starts), p90(starts)))
    print("batch of 4      median %6.0f ms" % statistics.median(batch))
    print("peak memory     median %6.0f MB   max %6.0f MB" % (statistics.median(peaks), max(peaks)))
    print(
        "static auto     auto %6.0f ms   never %6.0f ms   ratio %.3f"
        % (statistics.median(auto), statistics.median(never), statistics.median(auto) / statistics.median(never))
    )
    print(
        "auto's check    %.1f us per batch of 5 static items in-process; its modules import in %d us"
        % (check_us, import_us)
    )


if __name__ == "__main__":
    main()
