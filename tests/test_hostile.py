"""Hostile servers, hostile input, hostile timing: every call still ends in one honest block.

The real CLI runs as a subprocess against tests/fakes/hostile_server.py (127.0.0.1
only) and every call is checked against tests/invariants.py: exit 0/1/2/130,
exactly one block, never ``internal``, no temp dir left, no key on stdout or
stderr, no traceback.
"""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import ROOT, Result, run_worker, worker_env
from fakes.hostile_server import BRAVE, EXA, KEY, PAGES, HostileServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import call_dirs, check

pytestmark = pytest.mark.slow  # a worker process per hostile page or answer

SLOW = ("drip-body", "drip-headers", "silent")
FAST_PAGES = sorted(n for n in PAGES if n not in SLOW)


@pytest.fixture(scope="module")
def server():
    s = HostileServer().start()
    yield s
    s.stop()


def hostile_env(tmp_path, **extra):
    # Proxies point at a closed local port: nothing here can reach beyond 127.0.0.1.
    dead = "http://127.0.0.1:9"
    return worker_env(
        tmp_path,
        dict({"HTTPS_PROXY": dead, "NO_PROXY": "127.0.0.1", "EXA_API_KEY": KEY, "BRAVE_API_KEY": KEY}, **extra),
    )


def write_config(tmp_path, data, name="config.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    os.chmod(str(path), 0o600)
    return str(path)


# -- pages ------------------------------------------------------------------------------


def _groups(names, size):
    return [names[i : i + size] for i in range(0, len(names), size)]


@pytest.mark.parametrize("names", _groups(FAST_PAGES, 8), ids=lambda names: names[0])
def test_page_catalogue(server, tmp_path, names):
    env = hostile_env(tmp_path)
    urls = [server.url("/page/" + n) for n in names]
    r = run_worker(["fetch", "--allow-private", "--timeout", "20", "--"] + urls, env)
    payload = check(r, env, keys=[KEY])
    items = payload["results"] if payload["ok"] else payload["error"]["results"]
    assert [it["url"] for it in items] == urls


@pytest.mark.parametrize("name", SLOW)
def test_slow_pages_end_at_the_timeout(server, tmp_path, name):
    env = hostile_env(tmp_path)
    started = time.monotonic()
    r = run_worker(["fetch", "--allow-private", "--timeout", "2", "--", server.url("/page/" + name)], env)
    assert time.monotonic() - started < 10
    assert check(r, env, keys=[KEY])["error"]["code"] == "timeout"


@pytest.mark.parametrize(
    "name,code",
    [
        ("retry-after-huge-429", "http_error"),
        ("retry-after-huge-503", "http_error"),
        ("retry-after-superscript", "http_error"),
        ("retry-after-inf", "http_error"),
        ("content-length-superscript", None),
        ("charset-header-rot13", None),
        ("charset-meta-hex", None),
        ("charset-xml-base64", None),
        ("charset-header-idna", None),
        ("redirect-bad-ipv6", "http_error"),
        ("redirect-file", "invalid_url"),
    ],
)
def test_named_cases_get_their_code(server, tmp_path, name, code):
    env = hostile_env(tmp_path)
    r = run_worker(["fetch", "--allow-private", "--timeout", "20", "--", server.url("/page/" + name)], env)
    payload = check(r, env, keys=[KEY])
    if code is None:
        assert payload["ok"], r  # a page naming a non-text codec is read as UTF-8, not refused
        assert "Hostile page" in payload["results"][0]["content"]
    else:
        assert payload["error"]["code"] == code, r
        assert "retry_after" not in json.dumps(payload) or payload["error"].get("retry_after") is None


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    names=st.lists(st.sampled_from(FAST_PAGES), min_size=1, max_size=6),
    fmt=st.sampled_from(["markdown", "text", "html", "raw"]),
    max_chars=st.sampled_from([None, "1", "50", "100000"]),
)
def test_property_random_batches(server, tmp_path_factory, names, fmt, max_chars):
    tmp = tmp_path_factory.mktemp("batch")
    env = hostile_env(tmp)
    args = ["fetch", "--allow-private", "--timeout", "20", "--format", fmt]
    if max_chars:
        args += ["--max-chars", max_chars]
    check(run_worker(args + ["--"] + [server.url("/page/" + n) for n in names], env), env, keys=[KEY])


# -- Brave and Exa -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(BRAVE))
def test_brave_catalogue(server, tmp_path, name):
    cfg = write_config(
        tmp_path,
        {
            "providers": [
                {
                    "name": "b",
                    "type": "brave",
                    "apiKey": KEY,
                    "baseUrl": server.brave_base(name),
                    "options": {"minInterval": 0},
                }
            ]
        },
    )
    env = hostile_env(tmp_path, WEBSEARCH_WORKER_DEBUG="1")
    r = run_worker(["search", "--config", cfg, "--provider", "b", "--timeout", "20", "--", "query"], env)
    payload = check(r, env, keys=[KEY], debug=True)
    if name == "echo-key-request-id":
        assert payload["meta"]["request_id"] == "req-***"
    if name.startswith("reset-") or name.startswith("retry-after"):
        assert payload["error"]["code"] == "rate_limited"
        assert payload["error"].get("retry_after") is None or payload["error"]["retry_after"] < 10**8
    if name in ("nan-body", "huge-number"):
        assert payload["ok"]


@pytest.mark.parametrize("tool", ["search", "fetch"])
@pytest.mark.parametrize("name", sorted(EXA))
def test_exa_catalogue(server, tmp_path, name, tool):
    cfg = write_config(
        tmp_path, {"providers": [{"name": "e", "type": "exa", "apiKey": KEY, "baseUrl": server.exa_base(name)}]}
    )
    env = hostile_env(tmp_path, WEBSEARCH_WORKER_DEBUG="1")
    target = ["query"] if tool == "search" else ["https://example.org/x"]
    r = run_worker([tool, "--config", cfg, "--provider", "e", "--timeout", "20", "--"] + target, env)
    payload = check(r, env, keys=[KEY], debug=True)
    if name == "nan" or (name == "infinity" and tool == "search"):
        assert payload["ok"], r
    if name in ("deep",):
        assert payload["error"]["code"] == "provider"


def test_exa_nan_answer_is_served_and_cached_as_null(server, tmp_path):
    cfg = write_config(
        tmp_path, {"providers": [{"name": "e", "type": "exa", "apiKey": KEY, "baseUrl": server.exa_base("nan")}]}
    )
    env = hostile_env(tmp_path)
    args = ["search", "--config", cfg, "--provider", "e", "--", "nan query"]
    first = check(run_worker(args, env), env, keys=[KEY])
    assert first["results"][0]["score"] is None and first["meta"]["cached"] is False
    second = check(run_worker(args, env), env, keys=[KEY])
    assert second["meta"]["cached"] is True and second["results"][0]["score"] is None


# -- user input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args,code",
    [
        (["fetch", "http://[::1:80/x"], "invalid_url"),
        (["fetch", "--timeout", "inf", "http://127.0.0.1/"], "usage"),
        (["fetch", "--timeout", "1e10", "http://127.0.0.1/"], "usage"),
        (["fetch", "--timeout", "nan", "http://127.0.0.1/"], "usage"),
        (["fetch", "--cache-ttl", "9" * 400, "http://127.0.0.1/"], "usage"),
        (["fetch", "--concurrency", "\u00b2", "http://127.0.0.1/"], "usage"),
        (["search", "--limit", "\u0663", "x"], "usage"),
        (["fetch", "--config", "/dev/zero", "http://127.0.0.1/"], "config"),
        (["search", "--provider", "exa", "--output-schema", "@/dev/zero", "x"], "usage"),
    ],
)
def test_bad_arguments_are_clear_errors(tmp_path, args, code):
    env = hostile_env(tmp_path)
    r = run_worker(args, env, timeout=30)
    assert check(r, env, keys=[KEY])["error"]["code"] == code


def test_non_utf8_url_argument(tmp_path):
    env = hostile_env(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-I", "-m", "worker", "fetch", b"http://127.0.0.1/\xff"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=30,
    )
    r = Result(proc, proc.stdout.decode("ascii"), proc.stderr.decode("utf-8", "replace"))
    assert check(r, env)["error"]["code"] == "invalid_url"


@pytest.mark.parametrize(
    "data,key",
    [
        ({"providers": [{"name": "b", "type": "brave", "options": {"minInterval": "abc"}}]}, "minInterval"),
        ({"providers": [{"name": "b", "type": "brave", "options": {"concurrency": "x"}}]}, "concurrency"),
        ({"providers": [{"name": "b", "type": "brave", "options": {"timeout": None}}]}, "timeout"),
        ({"providers": [{"name": "d", "type": "ddgs", "options": {"backends": 5}}]}, "backends"),
        ({"cacheDir": "a\u0000b"}, "cacheDir"),
        ({"cacheTtl": 10**400}, "cacheTtl"),
    ],
)
def test_config_values_of_the_wrong_type_name_the_key(tmp_path, data, key):
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps(data) if key != "cacheTtl" else '{"cacheTtl": %s}' % ("9" * 400))
    env = hostile_env(tmp_path)
    r = run_worker(["search", "--config", str(cfg), "--provider", "ddgs", "--", "x"], env)
    e = check(r, env)["error"]
    assert e["code"] == "config" and '"%s"' % key in e["message"], r


def test_backends_string_is_one_backend_not_letters():
    from worker import config

    cfg = config.parse_config(
        "c.json", {"providers": [{"name": "d", "type": "ddgs", "options": {"backends": "duckduckgo"}}]}, {}
    )
    assert cfg.providers["d"].options["backends"] == ["duckduckgo"]


def test_unusable_tmpdir_is_a_config_block(tmp_path):
    env = hostile_env(tmp_path)
    (tmp_path / "afile").write_text("")
    env["WEBSEARCH_WORKER_TMPDIR"] = str(tmp_path / "afile" / "sub")
    r = run_worker(["fetch", "http://127.0.0.1/"], env)
    env["WEBSEARCH_WORKER_TMPDIR"] = str(tmp_path / "calltmp")
    e = check(r, env)["error"]
    assert e["code"] == "config" and "temp directory" in e["message"]


def test_cache_rows_of_the_wrong_type_are_misses(server, tmp_path):
    env = hostile_env(tmp_path)
    url = server.url("/page/ok")
    args = ["fetch", "--allow-private", "--", url]
    assert check(run_worker(args, env), env)["ok"]
    import sqlite3

    db = sqlite3.connect(str(tmp_path / "cache" / "websearch-worker" / "cache.sqlite3"))
    for column, value in (
        ("created", "'yesterday'"),
        ("created", "x'00ff'"),
        ("value", "x'7b7d'"),
        ("value", "'[1, 2]'"),
        ("value", "'{\"meta\": 5}'"),
        ("value", "'{\"a\": NaN}'"),
        ("expires", "'never'"),
    ):
        db.execute("UPDATE entries SET %s = %s" % (column, value))
        db.commit()
        r = run_worker(args, env)
        payload = check(r, env)
        assert payload["ok"] and payload["results"][0]["cached"] is False, r
        assert "wrong shape" in r.stderr
    db.close()


def test_host_concurrency_is_capped(server, tmp_path):
    env = hostile_env(tmp_path, WEBSEARCH_WORKER_HOST_CONCURRENCY="100000")
    check(run_worker(["fetch", "--allow-private", "--", server.url("/page/ok")], env), env)
    locks = os.listdir(str(tmp_path / "cache" / "websearch-worker" / "locks"))
    assert 0 < len(locks) <= 64


def test_output_text_prints_characters(server, tmp_path):
    env = hostile_env(tmp_path)
    proc = subprocess.run(
        [
            sys.executable,
            "-I",
            "-m",
            "worker",
            "fetch",
            "--allow-private",
            "--output",
            "text",
            "--",
            server.url("/page/cjk"),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode("utf-8")
    assert "\u4e2d\u6587" in text and "\\u4e2d" not in text


def test_subcommand_help_names_the_command_once(tmp_path):
    env = hostile_env(tmp_path, WEBSEARCH_WORKER_PROG="bootstrap/run.py")
    out = subprocess.run(
        [sys.executable, "-I", "-m", "worker", "search", "--help"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        timeout=30,
    ).stdout.decode()
    assert 'bootstrap/run.py search "rust' in out and "search search" not in out
    assert "fetch https://" not in out  # only the command's own examples


def test_debug_traceback_has_no_key(server, tmp_path):
    cfg = write_config(
        tmp_path,
        {
            "providers": [
                {
                    "name": "b",
                    "type": "brave",
                    "apiKey": KEY,
                    "baseUrl": server.brave_base("echo-key-error-id"),
                    "options": {"minInterval": 0},
                }
            ]
        },
    )
    env = hostile_env(tmp_path, WEBSEARCH_WORKER_DEBUG="1")
    r = run_worker(["search", "--config", cfg, "--provider", "b", "--", "q"], env)
    assert "WorkerError" in r.stderr  # the traceback is there...
    assert check(r, env, keys=[KEY], debug=True)["error"]["code"] == "auth"  # ...and the key is not


# -- signals -------------------------------------------------------------------------------------


def _spawn(args, env, blocked=False):
    def block():
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGHUP})

    return subprocess.Popen(
        args,
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=block if blocked else None,
    )


def _collect(proc, timeout=30):
    out, err = proc.communicate(timeout=timeout)
    return Result(proc, out.decode("ascii", "replace"), err.decode("utf-8", "replace"))


@pytest.mark.parametrize("entry", ["worker", "bootstrap"])
def test_signal_before_the_handlers_is_held_then_answered(server, tmp_path, entry):
    """A SIGTERM sent before any Python code runs (held in the inherited mask, as
    bootstrap/run.py holds it across exec) is answered with a cancelled block."""
    env = hostile_env(tmp_path, WEBSEARCH_WORKER_VENV=os.path.dirname(os.path.dirname(sys.executable)))
    cmd = (
        [sys.executable, "-I", "-m", "worker"]
        if entry == "worker"
        else [sys.executable, os.path.join(ROOT, "bootstrap", "run.py")]
    )
    proc = _spawn(cmd + ["fetch", "--allow-private", "--", server.url("/page/silent")], env, blocked=True)
    proc.send_signal(signal.SIGTERM)  # at once: the child may not even have exec'd yet
    r = _collect(proc)
    if entry == "bootstrap" and "not installed" in r.stderr:
        pytest.fail("the test interpreter's venv is not a ready worker venv: %r" % r)
    assert r.returncode == 130, r
    assert check(r, env)["error"]["code"] == "cancelled"


def test_sighup_cancels_like_sigterm(server, tmp_path):
    env = hostile_env(tmp_path)
    proc = _spawn(
        [sys.executable, "-I", "-m", "worker", "fetch", "--allow-private", "--", server.url("/page/silent")], env
    )
    deadline = time.monotonic() + 20
    while not call_dirs(env) and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGHUP)
    r = _collect(proc)
    e = check(r, env)["error"]
    assert e["code"] == "cancelled" and "SIGHUP" in e["message"]


def test_sigterm_while_a_big_block_is_stuck_in_a_full_pipe(tmp_path):
    """The main thread blocks writing 4 MB into a pipe nobody reads; SIGTERM must still end it, with 130."""
    big = tmp_path / "big.html"
    big.write_text("x" * (4 << 20))
    env = hostile_env(tmp_path)
    import http.server
    import threading

    handler = lambda *a: http.server.SimpleHTTPRequestHandler(*a, directory=str(tmp_path))  # noqa: E731
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.RequestHandlerClass.log_message = lambda *a: None
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = "http://127.0.0.1:%d/big.html" % httpd.server_address[1]
        proc = _spawn(
            [
                sys.executable,
                "-I",
                "-m",
                "worker",
                "fetch",
                "--allow-private",
                "--format",
                "raw",
                "--max-chars",
                "10000000",
                "--",
                url,
            ],
            env,
        )
        # Wait until the worker is done with its work and sits in the write: its stdout pipe is full.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with open("/proc/%d/wchan" % proc.pid) as f:
                wchan = f.read()
            if "pipe" in wchan and not call_dirs(env) == []:
                break
            time.sleep(0.05)
        time.sleep(0.3)
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 130
        assert time.monotonic() - sent < 5
        proc.stdout.close()
        proc.stderr.close()
        assert not call_dirs(env)
    finally:
        httpd.shutdown()


# -- the MCP server under the catalogue ------------------------------------------------------


def _stats():
    """{(pid, start time): (state, parent pid)} of every process, from /proc/PID/stat."""
    out = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name, "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
                out[(int(name), fields[19])] = (fields[0], int(fields[1]))
            except (OSError, IndexError, ValueError):
                continue
    return out


def _argv(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


def _serving_prepared(pid):
    """A prepared worker (worker/prepared.py, issue 45) that has taken its call: it puts /dev/null
    on its stdin once its argv is read; an idle one waits on the server's pipe and is no call."""
    if _argv(pid)[2:4] != [b"-m", b"worker.prepared"]:
        return False
    try:
        return os.readlink("/proc/%d/fd/0" % pid) == os.devnull
    except OSError:
        return False


class WorkerCount:
    """Samples, in a thread, how many of the MCP server's worker calls are alive at once: its
    children running ``-m worker fetch``, and the reading children (worker.pages.child.main)
    of workers that have already ended, each counted as its worker (known from when its parent
    was that worker)."""

    def __init__(self, server_pid):
        import threading

        self.server_pid = server_pid
        self.readers = {}  # (pid, start time) of a reading child -> its worker's pid
        self.most = 0
        self.lingering = 0  # the most reading children seen alive after their worker
        self.pids = set()
        self.samples = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        # One scan reads /proc one process after another: it can see a worker that ended and the
        # one the server started in its place, which were never alive together. Processes seen in
        # two scans in a row were (each was alive from its first reading to its second, and the
        # scans do not overlap), so the count at once is taken over both.
        before = None
        while not self.stop.is_set():
            now = {key: parent for key, (state, parent) in _stats().items() if state not in (b"Z", b"X")}
            live = now if before is None else {key: parent for key, parent in now.items() if key in before}
            before = now
            workers = {pid for (pid, _), parent in live.items() if parent == self.server_pid and self.is_worker(pid)}
            for key, parent in live.items():
                if parent in workers and key not in self.readers and b"worker.pages.child.main" in _argv(key[0]):
                    self.readers[key] = parent
            readers = {worker for key, worker in self.readers.items() if key in live}
            self.most = max(self.most, len(workers | readers))
            self.lingering = max(self.lingering, len(readers - workers))
            # every worker started, also one that lived less than two scans
            self.pids.update(
                pid for (pid, _), parent in now.items() if parent == self.server_pid and self.is_worker(pid)
            )
            self.samples += 1

    @staticmethod
    def is_worker(pid):
        return _argv(pid)[2:5] == [b"-m", b"worker", b"fetch"] or _serving_prepared(pid)

    def close(self):
        self.stop.set()
        self.thread.join(10)


def test_the_mcp_server_runs_at_most_16_workers_for_100_calls_at_once(server, tmp_path):
    """docs/hosts.md: at most 16 workers run at once; further calls wait their turn (issue 44: 17 were
    seen).  100 web_fetch calls at once over the whole page catalogue, a quarter of them cancelled by
    the client at random moments, the calls' processes counted from /proc all along: a worker counts
    until its reading child is gone too (a cancelled worker's child, killed as it ends, outlived it
    while its slot went to the next call)."""
    import random

    import anyio
    from mcp.client.stdio import stdio_client
    from test_mcp import CheckedSession, params

    from hosts.mcp import server as mcp_server

    assert mcp_server.MAX_WORKERS == 16
    env = hostile_env(tmp_path)
    catalogue = sorted(PAGES)
    names = [catalogue[i % len(catalogue)] for i in range(100)]
    cancel_after = {i: random.Random(i).uniform(0.2, 2.0) for i in range(0, 100, 4)}
    results = {}
    counted = {}
    errlog = open(tmp_path / "server-stderr.txt", "w+")

    async def main():
        p = params(tmp_path, "--allow-private")
        p.env = env
        async with stdio_client(p, errlog=errlog) as (read, write):
            async with CheckedSession(read, write) as session:
                await session.initialize()
                [server_pid] = [
                    pid
                    for (pid, _), (_state, parent) in _stats().items()
                    if parent == os.getpid() and _argv(pid)[2:4] == [b"-m", b"hosts.mcp"]
                ]
                count = counted["count"] = WorkerCount(server_pid)

                async def one(i):
                    arguments = {"urls": [server.url("/page/" + names[i])], "timeout": 3 if names[i] in SLOW else 30}
                    with anyio.move_on_after(cancel_after.get(i, 3600)):  # the SDK sends notifications/cancelled
                        results[i] = await session.call_tool("web_fetch", arguments)
                        return
                    results[i] = None

                try:
                    async with anyio.create_task_group() as tg:
                        for i in range(100):
                            tg.start_soon(one, i)
                    # a call cancelled late may still be ending: the server answers the next request after
                    await session.list_tools()
                finally:
                    count.close()

    anyio.run(main)
    errlog.seek(0)
    stderr = errlog.read()
    errlog.close()
    count = counted["count"]
    assert sorted(results) == list(range(100))
    for i, result in results.items():
        if result is None:
            assert i in cancel_after
            continue
        payload = result.structured_content
        assert payload["v"] and (payload["ok"] or payload["error"]["code"] not in ("internal", "protocol")), (
            names[i],
            payload,
        )
    assert sum(r is None for r in results.values()) >= 10  # cancelled before they finished
    assert len(count.pids) >= 100 - len(cancel_after) and count.samples > 100, (len(count.pids), count.samples)
    assert count.most <= 16, "%d workers at once" % count.most
    assert count.most >= 8, "the calls barely overlapped (%d at most): the bound was not tested" % count.most
    assert "Traceback" not in stderr and KEY not in stderr
    deadline = time.monotonic() + 10
    while call_dirs(env) and time.monotonic() < deadline:  # the last cancelled workers clean up
        time.sleep(0.05)
    assert call_dirs(env) == []
