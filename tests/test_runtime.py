"""Per-call runtime as a real process: signals, temp dirs, --timeout.

The blocked call is a real ddgs search through the local TLS proxy, whose
engine accepts the request and never answers: the worker thread sits inside
primp's native network call when the signal arrives.
"""

import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import ROOT, worker_env

from worker import protocol

DDG = "html.duckduckgo.com"


@pytest.fixture
def hanging(proxy, tmp_path):
    proxy.reset()
    proxy.route(DDG, hang=True)
    env = worker_env(tmp_path, proxy.env())
    return proxy, env


def call_dirs(env):
    base = env["WEBSEARCH_WORKER_TMPDIR"]
    try:
        return sorted(n for n in os.listdir(base) if n.startswith("call-"))
    except FileNotFoundError:
        return []


def start(args, env, code=None):
    cmd = (
        [sys.executable, "-I", "-m", "worker"] + list(args)
        if code is None
        else [sys.executable, "-I", "-c", code] + list(args)
    )
    return subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


def wait_for(predicate, timeout=30, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError("timed out waiting for %s" % what)


def signal_and_collect(proc, signum):
    sent = time.monotonic()
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=30)
    return time.monotonic() - sent, out.decode("ascii"), err.decode("utf-8", "replace")


@pytest.mark.parametrize("signum,name", [(signal.SIGTERM, "SIGTERM"), (signal.SIGINT, "SIGINT")])
def test_signal_during_blocked_network_call(hanging, signum, name):
    proxy, env = hanging
    proc = start(["search", "rust async runtime", "--backend", "duckduckgo"], env)
    try:
        wait_for(lambda: proxy.requests_for(DDG), what="the engine request to reach the proxy")
        assert len(call_dirs(env)) == 1  # the call's temp dir exists while it runs
        assert proc.poll() is None  # and the call is really blocked
        elapsed, out, err = signal_and_collect(proc, signum)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == protocol.EXIT_CANCELLED, (out, err)
    # Generous bound: the worker answers in milliseconds; this only catches a hang
    # (waiting on the blocked thread, or on the engine's 10 s timeout).
    assert elapsed < 2.0, elapsed
    payload = protocol.parse(out)
    assert payload["error"]["code"] == "cancelled" and name in payload["error"]["message"]
    assert out.startswith(protocol.ERROR + "\n") and out.endswith(protocol.DONE + "\n")
    assert out.count("\n") == 3  # nothing but the block
    assert call_dirs(env) == []
    assert "Traceback" not in err


@pytest.mark.slow
def test_sigterm_while_worker_threads_are_busy(tmp_path):
    """os._exit, not sys.exit: busy non-daemon threads cannot hold the exit back."""
    env = worker_env(tmp_path)
    code = (
        "import sys, threading, os\n"
        "from worker.runtime import Call\n"
        "from worker import protocol\n"
        "def spin():\n"
        "    while True: sum(range(10000))\n"
        "for _ in range(4): threading.Thread(target=spin).start()\n"  # non-daemon, CPU-bound
        "call = Call(); call.install_signal_handlers(); call.claim_stdout(); call.make_tempdir()\n"
        "os.write(2, b'ready\\n')\n"
        "status, value = call.run(lambda: threading.Event().wait())\n"
    )
    proc = start([], env, code=code)
    try:
        assert proc.stderr.readline() == b"ready\n"
        assert len(call_dirs(env)) == 1
        time.sleep(0.2)
        elapsed, out, err = signal_and_collect(proc, signal.SIGTERM)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == protocol.EXIT_CANCELLED, (out, err)
    assert elapsed < 2.0, elapsed
    assert protocol.parse(out)["error"]["code"] == "cancelled"
    assert call_dirs(env) == []


def test_keep_temp_keeps_the_directory(hanging):
    proxy, env = hanging
    proc = start(["search", "q", "--backend", "duckduckgo", "--keep-temp"], env)
    try:
        wait_for(lambda: proxy.requests_for(DDG), what="the engine request")
        _, out, err = signal_and_collect(proc, signal.SIGTERM)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == protocol.EXIT_CANCELLED
    kept = call_dirs(env)
    assert len(kept) == 1 and kept[0].startswith("call-%d-" % proc.pid)
    assert os.path.join(env["WEBSEARCH_WORKER_TMPDIR"], kept[0]) in err  # told where it is


@pytest.mark.slow
def test_stale_temp_dir_of_dead_pid_is_swept(hanging):
    proxy, env = hanging
    base = env["WEBSEARCH_WORKER_TMPDIR"]
    # A SIGKILLed call leaves its dir behind: no handler runs.
    proc = start(["search", "q", "--backend", "duckduckgo"], env)
    wait_for(lambda: proxy.requests_for(DDG), what="the engine request")
    proc.kill()
    proc.communicate(timeout=30)
    stale = call_dirs(env)
    assert len(stale) == 1
    with open(os.path.join(base, stale[0], "scratch.bin"), "wb") as f:
        f.write(b"x" * 100)  # not empty: the sweep must remove trees
    # A dir whose owner is alive (this test process) must survive the sweep.
    alive = os.path.join(base, "call-%d-1" % os.getpid())
    os.mkdir(alive)
    proxy.route(DDG, status=403)
    r = subprocess.run(
        [sys.executable, "-I", "-m", "worker", "search", "q", "--backend", "duckduckgo"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=60,
    )
    assert protocol.parse(r.stdout)["error"]["code"] == "blocked"
    assert call_dirs(env) == [os.path.basename(alive)]


@pytest.mark.slow
def test_timeout_bounds_the_whole_call(hanging):
    proxy, env = hanging
    started = time.monotonic()
    r = subprocess.run(
        [sys.executable, "-I", "-m", "worker", "search", "q", "--backend", "duckduckgo", "--timeout", "1"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=60,
    )
    elapsed = time.monotonic() - started
    payload = protocol.parse(r.stdout)
    assert r.returncode == protocol.EXIT_ERROR
    assert payload["error"]["code"] == "timeout" and payload["error"]["retryable"] is True
    assert elapsed < 8, elapsed  # bounded by --timeout, not by the engine's own 10 s
    assert call_dirs(env) == []


def test_bad_timeout_is_usage(tmp_path):
    env = worker_env(tmp_path)
    r = subprocess.run(
        [sys.executable, "-I", "-m", "worker", "search", "q", "--timeout", "0"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=60,
    )
    assert r.returncode == protocol.EXIT_USAGE
    assert protocol.parse(r.stdout)["error"]["code"] == "usage"


def test_timeout_counts_from_the_process_start():
    """--timeout runs from the process's start (as its host counts), capped at MAX_START_S."""
    code = (
        "import time; time.sleep(0.4)\n"
        "from worker.runtime import Call, process_age, MAX_START_S\n"
        "c = Call(); before = c.started; c.count_from_process_start()\n"
        "print(process_age(), before - c.started, MAX_START_S)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=30)
    age, moved, cap = map(float, out.stdout.split())
    assert 0.4 <= age <= cap, out
    assert 0.4 <= moved <= cap, out


def test_cleanup_waits_for_a_child_between_spawn_and_track(tmp_path):
    # A signal's cleanup runs on the main thread while the work thread spawns: a child
    # spawned but not yet tracked must still be killed, and none may start after.
    import threading

    from worker.runtime import Call

    call = Call()
    call.tempdir = str(tmp_path / "call")
    os.makedirs(call.tempdir)
    killed, spawned = [], threading.Event()

    class Child:
        def kill(self):
            killed.append(time.monotonic())

    def work():
        with call.spawning():
            spawned.set()
            time.sleep(0.3)  # the spawn itself
            call.track(Child())

    worker = threading.Thread(target=work)
    worker.start()
    spawned.wait(5)
    call.cleanup()
    worker.join(5)
    assert len(killed) == 1 and not os.path.exists(call.tempdir)
    late = []
    threading.Thread(target=lambda: late.append(call.spawning().acquire(timeout=0.2))).start()
    time.sleep(0.4)
    assert late == [False]
    call.cleanup()  # a signal during finish() re-enters on the same thread, at once


# A signal that comes while the main thread is importing worker.jsonio for the first time (a
# module the cancelled block's encoder lives in): the handler runs inside that import, and the
# half-made module has none of its names yet. The full suite once saw SIGHUP answered with an
# `internal` ImportError block and exit 1 (tests/test_hostile.py, test_sighup_cancels_like_sigterm).
SIGNAL_IN_IMPORT = """
import importlib.abc, os, signal, sys

class Hook(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != "worker.jsonio":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        real = spec.loader.exec_module

        def exec_module(module):
            os.kill(os.getpid(), signal.SIG%s)  # the handler runs here, the module still empty
            real(module)

        spec.loader.exec_module = exec_module
        return spec

import importlib.util
sys.meta_path.insert(0, Hook())
from worker import main
main.main(["fetch", "http://127.0.0.1:9/x", "--allow-private"])
"""


@pytest.mark.parametrize("name", ["TERM", "HUP"])
def test_a_signal_during_a_first_import_still_answers_cancelled(tmp_path, name):
    proc = subprocess.run(
        [sys.executable, "-I", "-c", SIGNAL_IN_IMPORT % name],
        cwd=ROOT,
        env=worker_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == protocol.EXIT_CANCELLED, (proc.stdout, proc.stderr[-2000:])
    assert proc.stdout.count(protocol.DONE) == 1 and proc.stdout.startswith(protocol.ERROR), proc.stdout
    payload = protocol.parse(proc.stdout)
    assert payload["error"] == {"code": "cancelled", "message": "cancelled by SIG" + name, "retryable": False}


def test_the_cancelled_block_is_the_one_render_error_writes():
    from worker.runtime import HANDLED_SIGNALS, SIGNAL_NAMES

    for sig in HANDLED_SIGNALS:
        name = SIGNAL_NAMES[sig]
        assert protocol.render_cancelled(name) == protocol.render_error("cancelled", "cancelled by " + name)
    assert protocol.render_cancelled("signal 10") == protocol.render_error("cancelled", "cancelled by signal 10")
