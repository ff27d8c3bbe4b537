#!/usr/bin/env python
"""Deadline benchmark: does ``fetch --timeout T`` answer within T + 1 s, every time, and in how much memory?

Usage (from the repo root, with the dev venv's python):

    python bench/deadline/run.py [--runs N] [--timeout T] [--shared K] [--inprocess-rounds R]

Everything is served on 127.0.0.1 (no internet); each call is a fresh
``python -I -m worker fetch ... --no-cache --timeout T`` process, its whole process
tree (the worker and its page-reading child) sampled from /proc for peak RSS.

Each of N rounds (default 50) runs:

1. every page of tests/fakes/pathological.py alone (200,000 attributes, 100,000
   headings, 50,000-deep nesting, 100,000 links, a 5 MB line, 100,000 table rows,
   5 MB of <br>, and one tag no extractor finishes);
2. the eight of them in one batch;
3. K pages (default 2) of each shared set in ../shared/data (wcxb-dev,
   classic-web-dev, article-extraction-benchmark), one call each, the largest
   pages first, the next K each round (50 rounds: each set's 100 largest pages);
4. one batch of eight shared pages (the next eight of all sets' pages by size).

It prints, per case, how many blocks arrived within T + 1 s, the slowest call,
the peak RSS of the process tree and how many items were read. Then the cost of
reading in a child: one article page, median of R fresh processes each way,
against WEBSEARCH_WORKER_READ_INPROCESS=1 (the page read in the worker's own
process, as before) in the same run.
"""

import argparse
import atexit
import gzip
import os
import shutil
import signal
import statistics
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.insert(0, REPO)

from fakes import pathological  # noqa: E402
from fakes.corpus_server import SHARED, CorpusServer  # noqa: E402
from fakes.http_server import FakeWeb  # noqa: E402
from proctree import run_tree  # noqa: E402

from worker import protocol  # noqa: E402

SETS = ("wcxb-dev", "classic-web-dev", "article-extraction-benchmark")
PYTHON = os.environ.get("BENCH_PYTHON", sys.executable)


def env(extra=None):
    e = dict(os.environ)
    tmp = tempfile.mkdtemp(prefix="bench-deadline-")
    atexit.register(shutil.rmtree, tmp, True)  # a bench leaves nothing in the temp folder
    e["WEBSEARCH_WORKER_TMPDIR"] = os.path.join(tmp, "calltmp")
    e["WEBSEARCH_CONFIG"] = os.path.join(tmp, "no-config.json")
    e["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
    for k in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy", "WEBSEARCH_WORKER_READ_INPROCESS"):
        e.pop(k, None)
    e.update(extra or {})
    return e


def shared_pages():
    """{"set/name": bytes} of every shared page, and {set: [names, largest first]}."""
    pages, order = {}, {}
    for name in SETS:
        folder = os.path.join(SHARED, name, "html")
        if not os.path.isdir(folder):
            continue
        names = []
        for f in sorted(os.listdir(folder)):
            if f.endswith(".html.gz"):
                with gzip.open(os.path.join(folder, f), "rb") as g:
                    key = "%s/%s" % (name, f[: -len(".html.gz")])
                    pages[key] = g.read()
                    names.append(key)
        order[name] = sorted(names, key=lambda k: -len(pages[k]))
    return pages, order


class Tally:
    def __init__(self, limit):
        self.limit = limit
        self.calls = self.in_time = self.items = self.read = 0
        self.slowest = self.peak = 0.0
        self.codes = {}

    def add(self, run):
        self.calls += 1
        self.in_time += run.seconds <= self.limit
        self.slowest = max(self.slowest, run.seconds)
        self.peak = max(self.peak, run.peak_mb)
        try:
            payload = protocol.parse(run.stdout)
        except protocol.ProtocolError:
            self.codes["no block"] = self.codes.get("no block", 0) + 1
            return
        items = payload.get("results") or payload.get("error", {}).get("results") or []
        self.items += len(items)
        for it in items:
            if it.get("ok"):
                self.read += 1
            else:
                code = it["error"]["code"]
                self.codes[code] = self.codes.get(code, 0) + 1

    def line(self, label):
        codes = ", ".join("%s x%d" % kv for kv in sorted(self.codes.items())) or "-"
        return "  %-28s %4d/%-4d in T+1 s  slowest %6.2f s  peak %6.1f MB  read %5d/%-5d  (%s)" % (
            label,
            self.in_time,
            self.calls,
            self.slowest,
            self.peak,
            self.read,
            self.items,
            codes,
        )


def _stop(signum, frame):
    raise KeyboardInterrupt


def fetch(urls, timeout, e):
    argv = [PYTHON, "-I", "-m", "worker", "fetch"] + urls + ["--allow-private", "--no-cache", "--timeout", str(timeout)]
    return run_tree(argv, env=e, cwd=REPO, timeout=timeout + 60)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--timeout", type=float, default=6.0)
    ap.add_argument("--shared", type=int, default=2, help="pages of each shared set per round, one call each")
    ap.add_argument("--inprocess-rounds", type=int, default=15)
    a = ap.parse_args()
    limit = a.timeout + 1.0
    e = env()
    web = FakeWeb().start(hosts=8)
    pages, order = shared_pages()
    corpus = CorpusServer(pages).start(hosts=8)
    kinds = list(pathological.KINDS)
    tallies = {k: Tally(limit) for k in kinds + ["batch of eight"] + list(order) + ["shared, batches of eight"]}
    everything = sorted(pages, key=lambda k: -len(pages[k]))
    try:
        print("## --timeout %g: %d rounds (limits: T + 1 s; 400 MB a page, 500 MB a batch)" % (a.timeout, a.runs))
        done = 0
        signal.signal(signal.SIGTERM, _stop)
        try:
            for r in range(a.runs):
                for kind in kinds:
                    tallies[kind].add(fetch([web.url("/pathological?kind=%s" % kind)], a.timeout, e))
                batch = [web.url("/pathological?kind=%s" % k, host=i) for i, k in enumerate(kinds)]
                tallies["batch of eight"].add(fetch(batch, a.timeout, e))
                for name, names in order.items():
                    for j in range(a.shared):
                        key = names[(r * a.shared + j) % len(names)]
                        tallies[name].add(fetch([corpus.url(key)], a.timeout, e))
                start = (r * 8) % len(everything)
                chosen = (everything + everything)[start : start + 8]
                tallies["shared, batches of eight"].add(
                    fetch([corpus.url(k, host=i) for i, k in enumerate(chosen)], a.timeout, e)
                )
                sys.stderr.write("round %d/%d\n" % (r + 1, a.runs))
                done = r + 1
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the rounds so far are still a result
            print("  (stopped after %d of %d rounds)" % (done, a.runs))
        for label, tally in tallies.items():
            print(tally.line(label))
        total = sum(t.calls for t in tallies.values())
        in_time = sum(t.in_time for t in tallies.values())
        print("  all calls: %d/%d within T + 1 s" % (in_time, total))

        print("\n## one article page, fresh process, median of %d each way (interleaved)" % a.inprocess_rounds)
        inproc = env({"WEBSEARCH_WORKER_READ_INPROCESS": "1"})
        url = [web.url("/article")]
        child, own = [], []
        for _ in range(a.inprocess_rounds):
            child.append(fetch(url, 30, e))
            own.append(fetch(url, 30, inproc))
        for label, runs in (("read in the worker's process (before)", own), ("read in the child (now)", child)):
            wall = statistics.median(r.seconds for r in runs) * 1000
            cpu = statistics.median(r.cpu for r in runs) * 1000
            base_wall = statistics.median(r.seconds for r in own) * 1000
            base_cpu = statistics.median(r.cpu for r in own) * 1000
            print(
                "  %-40s wall %5.0f ms x%.2f   CPU %5.0f ms x%.2f"
                % (label, wall, wall / base_wall, cpu, cpu / base_cpu)
            )
    finally:
        web.stop()
        corpus.stop()


if __name__ == "__main__":
    main()
