#!/usr/bin/env python
"""Where a small fetch's time goes, in a fresh process (issue 45).

Usage (from the repo root, with the dev venv's python):

    .venv-dev/bin/python bench/startup/where.py [--rounds N]

One local article page (tests/fakes/http_server.py, /article, 2.6 KB of HTML), fetched as
``python -I -m worker fetch URL --allow-private --no-cache`` would, by this file run as a
fresh ``python -I`` process that calls worker.main.main with timers around its stages
(time.monotonic() is the system's clock, the same in both processes, so the interpreter's
start and the exit are measured from outside). Two ways, interleaved, medians of N:

    in-process   the page read in the worker's own process (a small page, issue 45)
    child        WEBSEARCH_WORKER_READ_CHILD=always: in the reading child, as before issue 45

Then ``-X importtime`` of the in-process way: the imports' own time by package (-X importtime
itself slows imports down: the shares count, not the sum).
"""

import atexit
import os  # only these before the child's first mark: the rest is imported where used
import shutil
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

STAGES = [
    ("interpreter", "the interpreter's start, to this file's first line (site, encodings, -I)"),
    ("runtime", "worker.main and worker.runtime imported: what --version pays beyond the interpreter"),
    ("parse", "the command line (worker.cli and its imports)"),
    ("before_download", "the fetch tool's imports, config, state directory, cache look-up"),
    ("download_imports", "the download path's imports: http.client (and email), ssl, our client and guard"),
    ("download", "the download from 127.0.0.1 (connect, request, body), robots and host slot"),
    ("child_spawn", "posix_spawn of the reading child (child way)"),
    ("read_imports", "extraction's imports: lxml, trafilatura's core, our extractor (in-process way)"),
    ("read", "reading the page: parse, extraction, markdown (child way: waiting for the child's answer)"),
    ("answer", "the answer: cache write, text view"),
    ("render", "protocol.render_ok: the block as JSON"),
    ("output", "writing the block to stdout"),
    ("exit", "clean-up (temp dir, the child killed) and the process's exit, seen from outside"),
]


FLOOR = {
    "-c pass": ["-c", "pass"],
    "--version": ["-m", "worker", "--version"],
    "lxml.html": ["-c", "import lxml.html"],
    "http.client": ["-c", "import http.client"],
    "lxml.html, http.client": ["-c", "import lxml.html, http.client"],
}


def child_main():
    """Run in the fresh process: worker.main.main with timers; the marks go to fd 3 as JSON."""
    t0 = time.monotonic()
    sys.path.insert(0, REPO)
    marks = {"t0": t0}
    import worker.main as main_mod
    from worker import protocol, runtime
    from worker.early import received

    marks["runtime"] = time.monotonic()
    spans = {}

    def timed(owner, name, label, before=None, before_label=None):
        orig = getattr(owner, name)

        def wrapper(*a, **k):
            start = time.monotonic()
            if before is not None:
                before()
                spans[before_label] = spans.get(before_label, 0.0) + time.monotonic() - start
                start = time.monotonic()
            try:
                return orig(*a, **k)
            finally:
                spans[label] = spans.get(label, 0.0) + time.monotonic() - start
                marks["end_" + label] = time.monotonic()

        setattr(owner, name, wrapper)

    import worker.cli as cli

    timed(cli, "parse_args", "parse")
    from worker.pages import pipeline
    from worker.pages.child import small, spawn

    def extraction_imports():
        from worker.pages.extract.core import prepare

        prepare()

    def download_imports():
        from worker.pages.fetch import get, negotiate  # noqa: F401
        from worker.pages.net import client, guard  # noqa: F401
        from worker.pages.read import content  # noqa: F401

    timed(pipeline, "get", "download", before=download_imports, before_label="download_imports")
    timed(small, "read", "read", before=extraction_imports, before_label="read_imports")
    timed(spawn.Extractor, "start", "child_spawn")
    timed(spawn.Extractor, "item", "read")
    timed(protocol, "render_ok", "render")
    timed(runtime.Call, "emit", "output")

    real_exit = os._exit

    def leave(code):
        marks["exit"] = time.monotonic()
        import json

        os.write(int(os.environ["BENCH_WHERE_FD"]), json.dumps({"marks": marks, "spans": spans}).encode())
        real_exit(code)

    os._exit = leave  # runtime.Call.finish leaves with it
    main_mod.main(sys.argv[2:], prog="python -m worker", early=received)


def one(url, env, child):
    import json
    import subprocess

    e = dict(env)
    if child:
        e["WEBSEARCH_WORKER_READ_CHILD"] = "always"
    import resource

    r, w = os.pipe()
    e["BENCH_WHERE_FD"] = str(w)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-I", os.path.abspath(__file__), "--child", "fetch", url, "--allow-private", "--no-cache"],
        cwd=REPO,
        env=e,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        pass_fds=(w,),
    )
    os.close(w)
    out, err = proc.communicate(timeout=60)
    end = time.monotonic()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    data = b""
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        data += chunk
    os.close(r)
    assert b"SEARCH_OK" in out, (out[-500:], err[-2000:])
    got = json.loads(data)
    marks, spans = got["marks"], got["spans"]
    row = dict(spans)
    row["interpreter"] = marks["t0"] - start
    row["runtime"] = marks["runtime"] - marks["t0"]
    row["exit"] = end - marks["exit"]
    row["total"] = end - start
    row["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    inside = marks["exit"] - marks["runtime"]
    named = sum(spans.values()) - spans.get("child_spawn", 0)  # the child starts inside the download
    row["before_download"] = (
        marks.get("end_download", marks["runtime"])
        - spans.get("download", 0)
        - spans.get("download_imports", 0)
        - marks["runtime"]
        - spans.get("parse", 0)
    )
    row["answer"] = inside - named - row["before_download"]
    row["download"] = spans.get("download", 0) - spans.get("child_spawn", 0)
    return row


def child_costs(url, rounds):
    """The reading child's own costs, in this process: its spawn, its first answer (the child's
    interpreter, imports and a first reading), its second (a reading and the frames), and the
    same page read here, warm: the frames' cost is the second answer less that."""
    import statistics

    from fakes.http_server import ARTICLE

    from worker.pages.child.spawn import Extractor
    from worker.pages.extract.core import prepare
    from worker.pages.net.client import Response
    from worker.pages.read.item import item_of
    from worker.pages.spec import Spec

    body = ARTICLE.encode()
    page = Response(url, url, 200, {"content-type": "text/html; charset=utf-8"}, body, False, len(body), [])
    spec = Spec(fmt="markdown")
    prepare()
    item_of(url, page, spec)
    times = {"spawn": [], "first": [], "second": [], "here": []}
    for _ in range(rounds):
        reader = Extractor(None)
        t = time.monotonic()
        reader.start()
        times["spawn"].append(time.monotonic() - t)
        for key in ("first", "second"):
            t = time.monotonic()
            reader.item(url, page, spec, None)
            times[key].append(time.monotonic() - t)
        reader.close(0.5)
        t = time.monotonic()
        item_of(url, page, spec)
        times["here"].append(time.monotonic() - t)
    return {k: statistics.median(v) * 1000 for k, v in times.items()}


def importtime(url, env):
    import subprocess

    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-I", "-m", "worker", "fetch", url, "--allow-private", "--no-cache"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    groups = {}
    roots = {}
    total = 0
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        first, cum, raw = line.split("|", 2)
        us = int(first.split(":", 1)[1])
        name = raw.strip()
        if raw.rstrip() == " " + name:  # depth 0: an import the code asked for, its subtree's total
            roots[name] = roots.get(name, 0) + int(cum)
        top = name.split(".")[0]
        if top == "worker":
            key = ".".join(name.split(".")[:3]) if name.startswith("worker.pages.") else ".".join(name.split(".")[:2])
        elif top in ("http", "email", "ssl", "_ssl", "socket", "_socket", "selectors", "ipaddress", "urllib"):
            key = "stdlib: network (http.client, email, ssl, socket, urllib)"
        elif top in ("lxml", "trafilatura"):
            key = top
        elif top.lstrip("_") in sys.stdlib_module_names or top in sys.stdlib_module_names:
            key = "stdlib: the rest (re, logging, json, threading, importlib, encodings...)"
        else:
            key = "other libraries (readability, courlan, htmldate, charset_normalizer...): " + top
        groups[key] = groups.get(key, 0) + us
        total += us
    return total, sorted(groups.items(), key=lambda kv: -kv[1]), roots


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return child_main()
    import argparse
    import statistics
    import subprocess
    import tempfile

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    opts = ap.parse_args()
    sys.path.insert(0, os.path.join(REPO, "tests"))
    from fakes.http_server import FakeWeb

    tmp = tempfile.mkdtemp(prefix="bench-where-")
    atexit.register(shutil.rmtree, tmp, True)  # a bench leaves nothing in the temp folder
    env = dict(os.environ)
    env.update(
        WEBSEARCH_WORKER_TMPDIR=os.path.join(tmp, "calltmp"),
        WEBSEARCH_CONFIG=os.path.join(tmp, "no-config.json"),
        XDG_CACHE_HOME=os.path.join(tmp, "cache"),
    )
    for k in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy", "WEBSEARCH_WORKER_READ_CHILD"):
        env.pop(k, None)
    web = FakeWeb().start()
    url = web.url("/article")
    rows = {False: [], True: []}
    floor = {name: [] for name in FLOOR}
    try:
        one(url, env, False)
        one(url, env, True)
        for _ in range(opts.rounds):
            for child in (False, True):
                rows[child].append(one(url, env, child))
            for name, argv in FLOOR.items():
                start = time.monotonic()
                subprocess.run([sys.executable, "-I"] + argv, cwd=REPO, env=env, capture_output=True)
                floor[name].append(time.monotonic() - start)
        runs = [importtime(url, env) for _ in range(5)]  # one -X importtime log is noisy: medians of five
        total = statistics.median(t for t, _, _ in runs)
        keys = {k for _, g, _ in runs for k, _ in g}
        groups = sorted(
            ((k, statistics.median(dict(g).get(k, 0) for _, g, _ in runs)) for k in keys), key=lambda kv: -kv[1]
        )
        names = {k for _, _, r in runs for k in r}
        roots = sorted(((k, statistics.median(r.get(k, 0) for _, _, r in runs)) for k in names), key=lambda kv: -kv[1])
        child = child_costs(url, opts.rounds)
    finally:
        web.stop()
    print(
        "%d rounds each, interleaved; load average %.1f on %d CPUs; median ms of each stage"
        % (opts.rounds, os.getloadavg()[0], os.cpu_count() or 0)
    )
    print("  %-16s %11s %8s   %s" % ("stage", "in-process", "child", ""))
    for name, what in STAGES + [
        ("total", "the whole call, wall, seen from outside"),
        ("cpu", "CPU time of the call's processes (user + system; the reading child's too when it was reaped)"),
    ]:
        med = [statistics.median([r.get(name, 0.0) for r in rows[c]]) * 1000 for c in (False, True)]
        print("  %-16s %11.1f %8.1f   %s" % (name, med[0], med[1], what))
    print()
    print("The reading child's own costs (in this process, the article page, medians):")
    print("  %7.1f ms  posix_spawn of the child" % child["spawn"])
    print("  %7.1f ms  its first answer: the child's interpreter, imports, a first reading" % child["first"])
    print("  %7.1f ms  its second answer: a reading and the frames" % child["second"])
    print("  %7.1f ms  the same page read here, warm" % child["here"])
    print("  %7.1f ms  the frames (second answer less the reading here)" % (child["second"] - child["here"]))
    print()
    print("The floor: what a fetch's libraries cost to import alone, fresh processes interleaved with the above")
    base = statistics.median(floor["--version"])
    for name, argv in FLOOR.items():
        med = statistics.median(floor[name])
        print("  %7.1f ms  %5.2fx --version  python -I %s" % (med * 1000, med / base, " ".join(argv)))
    print()
    print(
        "python -X importtime -I -m worker fetch (in-process way), median of 5 logs: %.1f ms of imports' own time"
        % (total / 1000)
    )
    for key, us in groups[:12]:
        print("  %7.1f ms  %4.1f%%  %s" % (us / 1000, 100.0 * us / total, key))
    print("the imports the code asks for (not nested), with all they import, cumulative:")
    for key, us in roots[:14]:
        print("  %7.1f ms  %4.1f%%  %s" % (us / 1000, 100.0 * us / total, key))


if __name__ == "__main__":
    main()
