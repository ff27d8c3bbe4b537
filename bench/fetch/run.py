#!/usr/bin/env python
"""Fetch benchmark: batch concurrency, peak memory on a huge body, single-page latency.

Usage (from the repo root, with the dev venv's python):

    python bench/fetch/run.py [--rounds N]

Everything runs against tests/fakes/http_server.py on 127.0.0.1 (no internet),
with the worker started as hosts start it: a fresh ``python -I -m worker``.

1. 20 URLs, 300 ms server latency each: ``--concurrency 1`` (sequential
   baseline) vs the default (8) and ``--concurrency 20``; ratio = baseline/ours.
2. Peak RSS of the process tree (sampled from /proc) fetching a 50 MB body,
   against the RSS of ``--version`` and of a small page: the 5 MB body cap
   must keep it bounded.
3. 5 MB pages of expensive markup (paragraphs, link lists, documentation,
   100,000 headings, one tag with 200,000 attributes), one fresh process each,
   and eight 5 MB link pages in one batch: seconds and peak RSS.
4. One local article page end to end (process start, imports, download,
   extraction), median of N fresh processes, against ``--version``.
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

from fakes.http_server import FakeWeb  # noqa: E402
from proctree import run_tree  # noqa: E402

from worker import protocol  # noqa: E402


def env():
    e = dict(os.environ)
    tmp = tempfile.mkdtemp(prefix="bench-fetch-")
    atexit.register(shutil.rmtree, tmp, True)  # a bench leaves nothing in the temp folder
    e["WEBSEARCH_WORKER_TMPDIR"] = os.path.join(tmp, "calltmp")
    e["WEBSEARCH_CONFIG"] = os.path.join(tmp, "no-config.json")
    e["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
    for k in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
        e.pop(k, None)
    return e


ENV = env()


def run(args, tree=False):
    """(seconds, max RSS in MB, payload) for one fresh worker process.

    ``tree``: the RSS is the peak of the whole process tree (the worker and its
    page-reading child), sampled from /proc; else the largest single process's
    (os.wait4), with no sampler beside the timed process.
    """
    if args and args[0] == "fetch":
        args = args + ["--no-cache"]  # measure the network path, not the cache
    argv = [os.environ.get("BENCH_PYTHON", sys.executable), "-I", "-m", "worker"] + args
    if tree:
        r = run_tree(argv, env=ENV, cwd=REPO)
        elapsed, rss, out = r.seconds, r.peak_mb, r.stdout
    else:
        start = time.perf_counter()
        proc = subprocess.Popen(
            argv, cwd=REPO, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL
        )
        out = proc.stdout.read().decode("ascii")
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed, rss = time.perf_counter() - start, usage.ru_maxrss / 1024.0
    try:
        payload = protocol.parse(out)
    except protocol.ProtocolError:
        payload = None
    return elapsed, rss, payload


def median_run(args, rounds):
    runs = [run(args) for _ in range(rounds)]
    return statistics.median(r[0] for r in runs), max(r[1] for r in runs), runs[-1][2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    web = FakeWeb().start(hosts=10)
    try:
        print("## batch: 20 URLs, 300 ms server latency each (10 loopback hosts, 2 URLs each)")
        urls = [web.url("/slow?ms=300&id=%d" % i, host=i) for i in range(20)]
        one_host = [web.url("/slow?ms=300&id=%d" % i) for i in range(20)]
        rows = []
        for label, extra in (
            ("sequential (--concurrency 1)", ["--concurrency", "1"]),
            ("default (--concurrency 8)", []),
            ("--concurrency 20", ["--concurrency", "20"]),
            ("one host, --concurrency 20", ["--concurrency", "20", "ONEHOST"]),
        ):
            if "ONEHOST" in extra:
                extra = extra[:-1]
                batch = one_host
            else:
                batch = urls
            web.reset_stats()
            t, _, payload = median_run(["fetch"] + batch + ["--allow-private"] + extra, max(1, a.rounds // 3))
            ok = sum(1 for it in (payload or {}).get("results", []) if it.get("ok"))
            rows.append((label, t, web.max_active, ok))
        base = rows[0][1]
        for label, t, peak, ok in rows:
            print("  %-30s %6.2f s  peak concurrent %2d  ok %2d/20  speed-up x%.1f" % (label, t, peak, ok, base / t))

        print("\n## memory: peak RSS of the process tree (the worker and its page-reading child)")
        _, rss_version, _ = run(["--version"], tree=True)
        _, rss_small, _ = run(["fetch", web.url("/plain"), "--allow-private"], tree=True)
        t_raw, rss_raw, p_raw = run(
            ["fetch", web.url("/huge?mb=50"), "--allow-private", "--format", "raw", "--max-chars", "2000"], tree=True
        )
        t_md, rss_md, p_md = run(["fetch", web.url("/huge?mb=50"), "--allow-private", "--max-chars", "2000"], tree=True)
        t_bomb, rss_bomb, p_bomb = run(["fetch", web.url("/bomb?mb=200"), "--allow-private"], tree=True)

        def status(p):
            if not p:
                return "no block"
            if p["ok"]:
                it = p["results"][0]
                return "ok, %d bytes kept%s" % (it["bytes"], ", body_truncated" if it.get("body_truncated") else "")
            return "error " + p["error"]["code"]

        print("  --version                         %6.1f MB" % rss_version)
        print("  small text page                   %6.1f MB" % rss_small)
        print("  50 MB body, --format raw          %6.1f MB  %5.2f s  (%s)" % (rss_raw, t_raw, status(p_raw)))
        print("  50 MB body, markdown extraction   %6.1f MB  %5.2f s  (%s)" % (rss_md, t_md, status(p_md)))
        print("  gzip bomb (200 MB of zeros)       %6.1f MB  %5.2f s  (%s)" % (rss_bomb, t_bomb, status(p_bomb)))

        print("\n## 5 MB HTML pages (just under the body cap), markdown, fresh process each: time and peak RSS")
        print(
            "  (the worker's --version process: %.1f MB; limits: 1.5 s and 200 MB a page, 500 MB for the batch)"
            % rss_version
        )
        for kind in ("paras", "links", "docs", "headings", "attrs"):
            t_h, rss_h, p_h = run(["fetch", web.url("/heavy?kind=%s&mb=4.9" % kind), "--allow-private"], tree=True)
            it = (p_h or {}).get("results", [{}])[0]
            print("  %-9s %6.2f s  %6.1f MB  (%s, extractor=%s)" % (kind, t_h, rss_h, status(p_h), it.get("extractor")))
        batch = [web.url("/heavy?kind=links&mb=4.9&n=%d" % i, host=i) for i in range(8)]
        t_b, rss_b, p_b = run(["fetch"] + batch + ["--allow-private"], tree=True)
        ok_b = sum(1 for it in (p_b or {}).get("results", []) if it.get("ok"))
        print("  batch of eight 5 MB link pages: %.2f s, %.1f MB peak, ok %d/8" % (t_b, rss_b, ok_b))

        print("\n## single local page, fresh process, median of %d" % a.rounds)
        t_version, _, _ = median_run(["--version"], a.rounds)
        t_page, _, p_page = median_run(["fetch", web.url("/article"), "--allow-private"], a.rounds)
        t_text, _, _ = median_run(["fetch", web.url("/plain"), "--allow-private"], a.rounds)
        it = (p_page or {}).get("results", [{}])[0]
        print("  --version                         %6.0f ms" % (t_version * 1000))
        print("  text/plain page                   %6.0f ms" % (t_text * 1000))
        print(
            "  HTML article -> markdown          %6.0f ms  (ok=%s, extractor=%s)"
            % (t_page * 1000, it.get("ok"), it.get("extractor"))
        )
        print("  article cost over --version       %6.0f ms" % ((t_page - t_version) * 1000))
    finally:
        web.stop()


if __name__ == "__main__":
    main()
