"""The prepared worker (issue 45): a worker process started before its call, imports done, waiting
for its argv (worker/prepared.py), which the MCP server keeps one of (hosts/mcp/prepared.py).

Driven two ways: directly, with hosts.mcp.prepared.Prepared and the real worker (a SIGTERM is a
real signal to the real process), and through the real MCP server over raw JSON-RPC. What must
hold: a prepared worker answers as a fresh one does; each serves one call and exits (no call sees
a process another call ran in); SIGTERM is exit 130 with a ``cancelled`` block and no temp dir
left; ``--timeout`` counts from the call, not from the preparation; a prepared worker that died
is replaced, and the call it would have served runs in a fresh worker and says so."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import ROOT, worker_env
from fakes.http_server import ARTICLE
from fakes.stall_server import StallServer
from test_mcp import alive, raw_initialize, receive, send, start_raw, temp_dirs, wait_for

from hosts.mcp.prepared import Prepared
from worker import protocol

pytestmark = pytest.mark.slow  # real worker processes, prepared and fresh

PY = sys.executable


def _route(path):
    if path.startswith("/article"):
        return "text/html; charset=utf-8", ARTICLE.encode()
    if path.startswith("/page/"):
        n = path.rsplit("/", 1)[1]
        return "text/markdown; charset=utf-8", ("# Page %s\n\nThe body of page number %s.\n" % (n, n)).encode()
    return None


@pytest.fixture
def web():
    server = StallServer(_route, hold=60)
    yield server
    server.close()


@pytest.fixture
def env(tmp_path, monkeypatch):
    """The worker's environment, for the prepared workers this process starts (they inherit it)."""
    values = worker_env(tmp_path)
    for key in list(os.environ):
        if key not in values:
            monkeypatch.delenv(key)
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("WEBSEARCH_MCP_PREPARED", raising=False)
    return values


def _cpu_and_state(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None, None
    return int(fields[11]) + int(fields[12]), fields[0]


def idle(pid, timeout=60.0):
    """Whether ``pid`` is up and waiting: asleep, its CPU time unchanged for 100 ms."""
    deadline, last, still = time.monotonic() + timeout, None, 0
    while time.monotonic() < deadline:
        ticks, state = _cpu_and_state(pid)
        if ticks is None:
            return False
        still = still + 1 if (ticks == last and state == b"S") else 0
        if still >= 5:
            return True
        last = ticks
        time.sleep(0.02)
    return False


def ready(prepared):
    prepared.prepare(PY)
    pid = prepared.pid()
    assert pid is not None and idle(pid), "no prepared worker became ready"
    return pid


def call_dirs(tmp_path):
    return [d for d in temp_dirs(tmp_path) if d.startswith("call-")]


def fresh(args, env):
    proc = subprocess.run([PY, "-I", "-m", "worker"] + args, cwd=ROOT, env=env, capture_output=True, timeout=60)
    stdout = proc.stdout.decode("utf-8", "replace")
    return proc.returncode, None if "--output" in args else protocol.parse(proc.stdout), stdout


CLOCK = ("elapsed_ms", "slot_wait_ms", "fetched_at", "ms")


def comparable(value):
    """The payload less what differs between any two calls: the clock's readings."""
    if isinstance(value, dict):
        return {k: comparable(v) for k, v in value.items() if k not in CLOCK}
    if isinstance(value, list):
        return [comparable(v) for v in value]
    return value


# -- the prepared worker itself ----------------------------------------------


def test_a_prepared_worker_answers_as_a_fresh_one(tmp_path, env, web):
    """The same items, byte for byte, in every format (its rehearsal page leaves no trace), and
    the same search answer."""
    config = tmp_path / "web-search.json"
    config.write_text(
        json.dumps(
            {
                "defaultProvider": "echo",
                "providers": [{"name": "echo", "type": "tests.fakes.own_provider:Echo", "options": {"flavour": "p"}}],
            }
        )
    )
    prepared = Prepared()
    try:
        for args in (
            ["search", "--config", str(config), "--no-cache", "--", "rust async runtime"],
            ["search", "--config", str(config), "--no-cache", "--limit", "2", "--output", "text", "--", "tokio"],
            ["fetch", "--allow-private", "--no-cache", web.url + "/article"],
            ["fetch", "--allow-private", "--no-cache", "--format", "text", web.url + "/article"],
            ["fetch", "--allow-private", "--no-cache", "--format", "html", web.url + "/article?b"],
            ["fetch", "--allow-private", "--no-cache", "--max-chars", "300", web.url + "/article?c"],
            ["fetch", "--allow-private", "--no-cache", web.url + "/page/4", web.url + "/article?d"],
            ["fetch", "--colour"],
        ):
            pid = ready(prepared)
            handle, warning = prepared.take(args, PY)
            assert handle is not None and warning is None and handle.proc.pid == pid
            result = handle.wait(timeout=60)
            code, payload, stdout = fresh(args, env)
            assert result.returncode == code, (args, result.stderr[-2000:])
            if "--output" in args:  # --output text: for people, no block
                assert result.stdout == stdout and "tokio" in stdout, args
            else:
                assert comparable(result.payload) == comparable(payload), args
            assert not alive(pid), "a prepared worker serves one call and exits"
    finally:
        prepared.close()
    assert call_dirs(tmp_path) == []


def test_sigterm_to_a_call_on_a_prepared_worker_is_exit_130_and_a_cancelled_block(tmp_path, env, web):
    prepared = Prepared()
    try:
        pid = ready(prepared)
        handle, _ = prepared.take(["fetch", "--allow-private", web.url + "/stall"], PY)
        assert handle is not None and handle.proc.pid == pid
        assert web.stalled.wait(30), "the call never reached the page"
        assert [d.split("-")[1] for d in call_dirs(tmp_path)] == [str(pid)]  # its temp dir: the call's own
        os.kill(pid, signal.SIGTERM)  # a real signal, to the process serving the call
        started = time.monotonic()
        result = handle.wait(timeout=30)
        assert time.monotonic() - started < 5
        assert result.returncode == 130
        assert result.payload["ok"] is False and result.payload["error"]["code"] == "cancelled"
        assert "SIGTERM" in result.payload["error"]["message"] and "Traceback" not in result.stderr
        assert handle.end_group(5)
        assert call_dirs(tmp_path) == []
    finally:
        prepared.close()


def test_a_signal_while_idle_ends_it_with_no_block_and_no_temp_dir(tmp_path, env):
    prepared = Prepared()
    pid = ready(prepared)
    handle = prepared.handle
    os.kill(pid, signal.SIGTERM)
    assert handle.proc.wait(10) == 130
    assert handle.proc.stdout.read() == b""  # no call: nothing to answer
    assert call_dirs(tmp_path) == []
    # the host finds it gone at the next call: a fresh worker serves, and the call is told why
    taken, warning = prepared.take(["--version"], PY)
    assert taken is None and "prepared worker" in warning and "ended (exit 130)" in warning
    prepared.close()


def test_the_timeout_counts_from_the_call_not_from_the_preparation(tmp_path, env, web):
    prepared = Prepared()
    try:
        pid = ready(prepared)
        time.sleep(1.5)  # prepared long before its call: none of this is the call's time
        started = time.monotonic()
        handle, _ = prepared.take(["fetch", "--allow-private", "--timeout", "2", web.url + "/stall"], PY)
        assert handle is not None and handle.proc.pid == pid
        result = handle.wait(timeout=30)
        took = time.monotonic() - started
        assert result.payload["error"]["code"] == "timeout", result.payload
        assert 1.5 < took < 4.0, took
    finally:
        prepared.close()
    assert call_dirs(tmp_path) == []


def test_a_prepared_worker_that_died_is_replaced(tmp_path, env):
    prepared = Prepared()
    try:
        first = ready(prepared)
        os.kill(first, signal.SIGKILL)
        assert wait_for(lambda: prepared.handle.proc.poll() is not None)
        handle, warning = prepared.take(["--version"], PY)
        assert handle is None
        assert warning.startswith("prepared worker:") and "killed by signal 9" in warning
        second = ready(prepared)  # what the server does after each call
        assert second != first and alive(second) and not alive(first)
    finally:
        prepared.close()
    assert not alive(second), "closing the host stops its idle prepared worker"


def test_bad_argv_from_the_host_is_an_error_block_not_a_traceback(tmp_path, env):
    proc = subprocess.run(
        [PY, "-I", "-m", "worker.prepared"], cwd=ROOT, input=b'{"not": "a list"}\n', capture_output=True, timeout=60
    )
    assert proc.returncode == 1 and b"Traceback" not in proc.stderr
    assert protocol.parse(proc.stdout)["error"]["code"] == "internal"
    quiet = subprocess.run([PY, "-I", "-m", "worker.prepared"], cwd=ROOT, input=b"", capture_output=True, timeout=60)
    assert quiet.returncode == 0 and quiet.stdout == b"" and quiet.stderr == b""  # the host went away: no call


# -- through the MCP server ----------------------------------------------------


def prepared_children(server_pid):
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            with open("/proc/%s/cmdline" % name, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if int(fields[1]) == server_pid and fields[0] not in (b"Z", b"X") and b"worker.prepared" in argv:
            out.append(int(name))
    return out


def one_prepared(server_pid, not_in=()):
    found = {}

    def there():
        kids = [p for p in prepared_children(server_pid) if p not in not_in]
        if len(kids) == 1:
            found["pid"] = kids[0]
            return True
        return False

    assert wait_for(there, 30), prepared_children(server_pid)
    assert idle(found["pid"])
    return found["pid"]


def call(proc, rid, arguments):
    send(
        proc,
        {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": "web_fetch", "arguments": arguments}},
    )


def test_mcp_calls_each_run_in_a_prepared_process_of_their_own(tmp_path, web):
    proc = start_raw(tmp_path, "--allow-private")
    try:
        raw_initialize(proc)
        served = []
        for i in range(3):
            pid = one_prepared(proc.pid, not_in=served)
            served.append(pid)
            call(proc, 10 + i, {"urls": [web.url + "/page/%d" % i]})
            result = receive(proc, 10 + i)["result"]
            assert (
                not result["isError"] and "page number %d." % i in result["structuredContent"]["results"][0]["content"]
            )
            assert not result["structuredContent"].get("warnings")
            assert wait_for(lambda: not alive(served[-1])), "the process that served a call is gone after it"
        assert len(set(served)) == 3
        assert call_dirs(tmp_path) == []
        last = one_prepared(proc.pid, not_in=served)
        proc.stdin.close()
        assert proc.wait(10) == 0
        assert wait_for(lambda: not alive(last)), "the server's end stops its idle prepared worker"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_mcp_cancellation_of_a_call_on_the_prepared_worker(tmp_path, web):
    proc = start_raw(tmp_path, "--allow-private")
    try:
        raw_initialize(proc)
        pid = one_prepared(proc.pid)
        call(proc, 7, {"urls": [web.url + "/stall"]})
        assert web.stalled.wait(30)
        assert [d.split("-")[1] for d in call_dirs(tmp_path)] == [str(pid)]
        send(proc, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}})
        assert wait_for(lambda: not alive(pid) and call_dirs(tmp_path) == [])
        # a SIGTERM sent to the worker by anyone else: its cancelled block is the call's result
        web.stalled.clear()
        second = one_prepared(proc.pid, not_in=[pid])
        call(proc, 8, {"urls": [web.url + "/stall"]})
        assert web.stalled.wait(30)
        os.kill(second, signal.SIGTERM)
        result = receive(proc, 8)["result"]
        assert result["isError"] and result["structuredContent"]["error"]["code"] == "cancelled"
        assert wait_for(lambda: call_dirs(tmp_path) == [])
        proc.stdin.close()
        assert proc.wait(10) == 0
        stderr = proc.stderr.read().decode()
        assert "web_fetch cancelled: worker %d exited with 130" % pid in stderr
        assert "Traceback" not in stderr
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_mcp_a_dead_prepared_worker_is_replaced_and_the_call_says_so(tmp_path, web):
    proc = start_raw(tmp_path, "--allow-private")
    try:
        raw_initialize(proc)
        pid = one_prepared(proc.pid)
        os.kill(pid, signal.SIGKILL)
        call(proc, 3, {"urls": [web.url + "/page/3"]})
        result = receive(proc, 3)["result"]
        assert not result["isError"] and "page number 3." in result["structuredContent"]["results"][0]["content"]
        warnings = result["structuredContent"]["warnings"]
        assert any(w.startswith("prepared worker:") and "killed by signal 9" in w for w in warnings), warnings
        one_prepared(proc.pid, not_in=[pid])  # and the next call has one again
        proc.stdin.close()
        assert proc.wait(10) == 0
        assert "prepared worker: the process prepared for this call had ended" in proc.stderr.read().decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_mcp_without_a_prepared_worker(tmp_path, web):
    proc = start_raw(tmp_path, "--allow-private", extra={"WEBSEARCH_MCP_PREPARED": "0"})
    try:
        raw_initialize(proc)
        call(proc, 1, {"urls": [web.url + "/page/1"]})
        assert not receive(proc, 1)["result"]["isError"]
        time.sleep(0.5)
        assert prepared_children(proc.pid) == []
        proc.stdin.close()
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _cmdline(pid):
    with open("/proc/%d/cmdline" % pid, "rb") as f:
        return f.read().split(b"\0")


@pytest.mark.parametrize("updated", [False, True])
def test_a_prepared_worker_whose_code_changed_runs_the_call_as_a_fresh_worker(tmp_path, env, web, updated):
    """An update of the checkout while it waited: the call runs in freshly loaded code (the same
    process, exec'd as ``python -m worker``), and a SIGTERM to it is still exit 130 and a
    cancelled block. Run from a copy of the worker package, so the test changes no file of ours."""
    import shutil

    from worker import host_client

    shutil.copytree(
        os.path.join(ROOT, "worker"), tmp_path / "copy" / "worker", ignore=shutil.ignore_patterns("__pycache__")
    )
    handle = host_client.Handle(
        [PY, "-m", "worker.prepared"], cwd=str(tmp_path / "copy"), own_group=True, stdin=subprocess.PIPE
    )
    try:
        assert idle(handle.proc.pid)
        assert b"worker.prepared" in _cmdline(handle.proc.pid)
        if updated:
            errors = tmp_path / "copy" / "worker" / "errors.py"
            os.utime(errors, ns=(errors.stat().st_atime_ns, errors.stat().st_mtime_ns + 10**9))
        handle.proc.stdin.write((json.dumps(["fetch", "--allow-private", web.url + "/stall"]) + "\n").encode())
        handle.proc.stdin.close()
        handle.proc.stdin = None
        assert web.stalled.wait(30)
        argv = _cmdline(handle.proc.pid)
        if updated:
            assert argv[1:4] == [b"-m", b"worker", b"fetch"], argv
        else:
            assert b"worker.prepared" in argv, argv
        os.kill(handle.proc.pid, signal.SIGTERM)
        result = handle.wait(timeout=30)
        assert result.returncode == 130 and result.payload["error"]["code"] == "cancelled", result.stderr[-2000:]
        assert call_dirs(tmp_path) == []
    finally:
        if handle.proc.poll() is None:
            handle.proc.kill()
            handle.proc.wait()
