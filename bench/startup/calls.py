#!/usr/bin/env python
"""A small fetch, every way a host makes it, against ``--version`` in the same run (issue 45).

Usage (from the repo root, with the dev venv's python):

    .venv-dev/bin/python bench/startup/calls.py [--rounds N]

One local article page (tests/fakes/http_server.py, /article, 2.6 KB of HTML) on 127.0.0.1,
each call with a URL of its own (a query string), so no call is a cache hit. Rounds
interleaved, the order of the ways rotated each round; medians, and ratios against the
``--version`` median of the same run:

    version       python -I -m worker --version
    fetch         python -I -m worker fetch URL --allow-private --no-cache      a fresh process
    fetch_child   the same with WEBSEARCH_WORKER_READ_CHILD=always: the page in the reading
                  child, as before issue 45
    fetch_no_ahead  fetch with WEBSEARCH_WORKER_PLAIN=import_ahead: extraction's imports after
                  the download, not on a thread during it (worker/pages/extract/ahead.py)
    slow          fetch of the same page behind 100 ms of the server's latency (/slow?ms=100),
                  as a page on the network answers; slow_no_ahead: the same without the thread
    prepared      a prepared worker (hosts/mcp/prepared.py) driven from Python, no MCP: from
                  writing the argv to its exit, block read
    mcp_warm      a web_fetch round trip through a running MCP server (python -I -m hosts.mcp
                  --allow-private, raw JSON-RPC on its stdin/stdout), its prepared worker idle
                  and ready when the request is written
    mcp_cold      the same server with WEBSEARCH_MCP_PREPARED=0: a fresh worker per call
    pi_warm       a web_fetch through the pi extension's runner (hosts/pi/src/runner.ts, with pi's
                  own exec) in a running node process (bench/startup/pi_driver.ts), its prepared
                  worker (hosts/pi/src/prepared.ts) idle and ready when the URL is written
    pi_cold       the same with WEBSEARCH_PI_PREPARED=0: pi.exec starts a fresh worker per call
                  (the pi ways are left out, with a line saying so, where node or the extension's
                  node_modules are missing: hosts/pi/test.sh installs them)

The must-shows: fetch <= 3x version, mcp_warm <= 2x version (medians); pi_warm is the pi
extension's counterpart of mcp_warm.
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

from fakes.http_server import FakeWeb  # noqa: E402

from worker import protocol  # noqa: E402

PY = sys.executable


def environment():
    tmp = tempfile.mkdtemp(prefix="bench-calls-")
    atexit.register(shutil.rmtree, tmp, True)  # a bench leaves nothing in the temp folder
    env = dict(os.environ)
    env.update(
        WEBSEARCH_WORKER_TMPDIR=os.path.join(tmp, "calltmp"),
        WEBSEARCH_CONFIG=os.path.join(tmp, "no-config.json"),
        XDG_CACHE_HOME=os.path.join(tmp, "cache"),
        HOME=os.path.join(tmp, "home"),
    )
    for k in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy", "WEBSEARCH_MCP_PREPARED"):
        env.pop(k, None)
    env.pop("WEBSEARCH_WORKER_READ_CHILD", None)
    return env


CPU = {}  # way -> CPU times (user + system) of its fresh processes, the reading child's included


def timed(argv, env, way):
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(argv, cwd=REPO, env=env, stdin=subprocess.DEVNULL, capture_output=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.setdefault(way, []).append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return wall, proc


def cpu_ticks(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return int(fields[11]) + int(fields[12]), fields[0]
    except (OSError, IndexError, ValueError):
        return None, None


def children(pid):
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
            if ppid != pid:
                continue
            with open("/proc/%s/cmdline" % name, "rb") as f:
                out.append((int(name), f.read().split(b"\0")))
        except (OSError, IndexError, ValueError):
            continue
    return out


def wait_idle(pid, timeout=20.0):
    """Wait until a prepared worker (``pid``, or a function giving it) is up and idle: its CPU
    time unchanged for 60 ms, asleep."""
    deadline = time.monotonic() + timeout
    last, still = None, 0
    while time.monotonic() < deadline:
        p = pid() if callable(pid) else pid
        ticks, state = cpu_ticks(p) if p else (None, None)
        if ticks is not None and ticks == last and state == b"S":
            still += 1
            if still >= 3:
                return
        else:
            still = 0
        last = ticks
        time.sleep(0.02)
    raise SystemExit("a prepared worker never became ready")


class Server:
    """A running MCP server driven with raw newline-delimited JSON-RPC."""

    def __init__(self, env, prepared=True):
        env = dict(env)
        if not prepared:
            env["WEBSEARCH_MCP_PREPARED"] = "0"
        self.prepared = prepared
        self.proc = subprocess.Popen(
            [PY, "-I", "-m", "hosts.mcp", "--allow-private"],
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "b"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            answer = json.loads(self.proc.stdout.readline())
            if answer.get("id") == self.next_id:
                return answer

    def ready(self):
        if self.prepared:
            wait_idle(lambda: next((p for p, argv in children(self.proc.pid) if b"worker.prepared" in argv), None))

    def fetch(self, url):
        t = time.perf_counter()
        answer = self.request("tools/call", {"name": "web_fetch", "arguments": {"urls": [url]}})
        return time.perf_counter() - t, answer

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(10)


PI_DIR = os.path.join(REPO, "hosts", "pi")


def pi_missing():
    """Why the pi ways cannot run here, or None."""
    import shutil

    if shutil.which("node") is None:
        return "no node on PATH"
    if not os.path.isdir(os.path.join(PI_DIR, "node_modules", "@mariozechner", "pi-coding-agent")):
        return "hosts/pi/node_modules is not installed (run hosts/pi/test.sh once)"
    return None


class PiHost(Server):
    """The pi extension's runner in a node process (bench/startup/pi_driver.ts)."""

    def __init__(self, env, prepared=True):
        env = dict(env)
        if not prepared:
            env["WEBSEARCH_PI_PREPARED"] = "0"
        self.prepared = prepared
        self.calls = 0
        self.proc = subprocess.Popen(
            ["node", "--import", "jiti/register", os.path.join(REPO, "bench", "startup", "pi_driver.ts"), PY],
            cwd=PI_DIR,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    def fetch(self, url):
        t = time.perf_counter()
        self.proc.stdin.write(url.encode() + b"\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        return time.perf_counter() - t, answer


SLOW = "/slow?ms=100&"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=21)
    opts = ap.parse_args()
    env = environment()
    web = FakeWeb().start()
    warm, cold = Server(env), Server(env, prepared=False)
    n = [0]

    def url(page="/article?"):
        n[0] += 1
        return web.url("%sr=%d" % (page, n[0]))

    def fresh(extra=None, way="fetch", page="/article?"):
        e = dict(env, **(extra or {}))
        wall, proc = timed([PY, "-I", "-m", "worker", "fetch", url(page), "--allow-private", "--no-cache"], e, way)
        payload = protocol.parse(proc.stdout)
        assert payload["ok"] and payload["results"][0]["ok"], payload
        return wall

    def version():
        wall, proc = timed([PY, "-I", "-m", "worker", "--version"], env, "version")
        assert proc.stdout.startswith(b"websearch-worker "), proc.stdout
        return wall

    def mcp(server):
        server.ready()
        wall, answer = server.fetch(url())
        result = answer["result"]
        assert not result.get("isError") and result["structuredContent"]["results"][0]["ok"], result
        return wall

    def pi(host, via):
        if host.calls:  # the extension prepares its worker after its first call
            host.ready()
        wall, answer = host.fetch(url())
        assert answer.get("ok"), answer
        host.calls += 1
        assert answer["via"] == via or host.calls == 1, answer
        return wall

    from hosts.mcp.prepared import Prepared

    direct = Prepared()

    def prepared():
        """A prepared worker driven from Python, no MCP: what the server adds is mcp_warm - this."""
        direct.prepare(PY)
        wait_idle(direct.pid())
        t = time.perf_counter()
        handle, warning = direct.take(["fetch", url(), "--allow-private", "--no-cache"], PY)
        assert handle is not None and not warning, warning
        result = handle.wait(timeout=60)
        wall = time.perf_counter() - t
        assert result.ok, result.stderr
        return wall

    ways = {
        "version": version,
        "fetch": fresh,
        "fetch_child": lambda: fresh({"WEBSEARCH_WORKER_READ_CHILD": "always"}, "fetch_child"),
        "fetch_no_ahead": lambda: fresh({"WEBSEARCH_WORKER_PLAIN": "import_ahead"}, "fetch_no_ahead"),
        "slow": lambda: fresh(None, "slow", SLOW),
        "slow_no_ahead": lambda: fresh({"WEBSEARCH_WORKER_PLAIN": "import_ahead"}, "slow_no_ahead", SLOW),
        "prepared": prepared,
        "mcp_warm": lambda: mcp(warm),
        "mcp_cold": lambda: mcp(cold),
    }
    why_not = pi_missing()
    hosts = []
    if why_not:
        print("pi ways left out: %s" % why_not)
    else:
        pi_warm, pi_cold = PiHost(env), PiHost(env, prepared=False)
        hosts = [pi_warm, pi_cold]
        ways["pi_warm"] = lambda: pi(pi_warm, "prepared")
        ways["pi_cold"] = lambda: pi(pi_cold, "python")
    times = {name: [] for name in ways}
    try:
        for name in ways:  # one unmeasured call each: page caches, the servers' first call
            ways[name]()
        CPU.clear()
        names = list(ways)
        for r in range(opts.rounds):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                times[name].append(ways[name]())
    finally:
        direct.close()
        for host in hosts:
            host.close()
        warm.close()
        cold.close()
        web.stop()
    med = {name: statistics.median(v) * 1000 for name, v in times.items()}
    p90 = {name: sorted(v)[int(0.9 * (len(v) - 1))] * 1000 for name, v in times.items()}
    print(
        "%d rounds, interleaved; load average %.1f on %d CPUs; median / p90 ms, ratio of medians to --version"
        % (opts.rounds, os.getloadavg()[0], os.cpu_count() or 0)
    )
    cpu = {name: statistics.median(v) * 1000 for name, v in CPU.items()}
    print("  %-12s %7s  %7s  %7s  %s" % ("", "median", "p90", "ratio", "CPU median (fresh processes)"))
    for name in ways:
        extra = "  %5.1f ms (%.2fx)" % (cpu[name], cpu[name] / cpu["version"]) if name in cpu else ""
        print("  %-12s %7.1f  %7.1f   %5.2fx%s" % (name, med[name], p90[name], med[name] / med["version"], extra))
    print()
    print("fresh fetch / --version: %.2fx (must be <= 3)" % (med["fetch"] / med["version"]))
    print("warm MCP web_fetch / --version: %.2fx (must be <= 2)" % (med["mcp_warm"] / med["version"]))
    if "pi_warm" in med:
        print("warm pi web_fetch / --version: %.2fx" % (med["pi_warm"] / med["version"]))


if __name__ == "__main__":
    main()
