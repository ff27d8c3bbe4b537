"""Cross-process slots on flock: limits hold across processes, waits end on deadline and cancel, dead holders free their slot."""

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from conftest import ROOT, run_worker, worker_env
from fakes import brave_server
from invariants import check

from worker.errors import WorkerError
from worker.runtime import Call
from worker.state import ratelimit

pytestmark = pytest.mark.slow  # processes contending for the same slots

HOLDER = r"""
import sys, time
from worker.state import ratelimit
ratelimit.configure(sys.argv[1])
key, limit, hold, log = sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
interval = float(sys.argv[6]) if len(sys.argv) > 6 else 0.0
with ratelimit.slot(None, key, limit=limit, min_interval=interval):
    t0 = time.time()
    sys.stdout.write("held\n"); sys.stdout.flush()
    time.sleep(hold)
    t1 = time.time()
with open(log, "a") as fh:
    fh.write("%.6f %.6f\n" % (t0, t1))
"""


def holder(tmp_path, key, limit, hold, interval=0.0):
    """A separate process that takes a slot, says "held", keeps it ``hold`` seconds, logs (start, end)."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-I",
            "-c",
            HOLDER,
            str(tmp_path),
            key,
            str(limit),
            str(hold),
            str(tmp_path / "log.txt"),
            str(interval),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return proc


def wait_held(proc):
    line = proc.stdout.readline()
    assert line == "held\n", (line, proc.stderr.read() if proc.poll() is not None else "")


def intervals(tmp_path):
    with open(tmp_path / "log.txt") as fh:
        return [tuple(map(float, line.split())) for line in fh if line.strip()]


def max_overlap(spans):
    events = sorted([(a, 1) for a, b in spans] + [(b, -1) for a, b in spans], key=lambda e: (e[0], e[1]))
    now = best = 0
    for _, d in events:
        now += d
        best = max(best, now)
    return best


@pytest.fixture(autouse=True)
def lock_dir(tmp_path):
    ratelimit.configure(str(tmp_path))
    yield
    ratelimit.configure(None)


def call_with(timeout=None):
    call = Call(timeout=timeout)
    return call


def test_limit_holds_across_processes(tmp_path):
    procs = [holder(tmp_path, "k", 3, 0.3) for _ in range(10)]
    for p in procs:
        assert p.wait(60) == 0, p.stderr.read()
    spans = intervals(tmp_path)
    assert len(spans) == 10
    assert max_overlap(spans) == 3  # never more; and the limit is used, not serialised to one


def test_waiting_call_gets_the_slot_when_a_holder_leaves(tmp_path):
    p = holder(tmp_path, "one", 1, 0.5)
    wait_held(p)
    with ratelimit.slot(call_with(30), "one", limit=1) as waited:
        assert p.poll() is not None or waited > 0  # we could only get in after the holder let go
    assert waited >= 0.1
    assert ratelimit.waited_ms() >= 100
    p.wait(30)


def test_wait_ends_at_the_call_deadline(tmp_path):
    p = holder(tmp_path, "busy", 1, 30)
    wait_held(p)
    try:
        start = time.monotonic()
        with pytest.raises(WorkerError) as exc:
            with ratelimit.slot(call_with(0.5), "busy", limit=1):
                pass
        assert exc.value.code == "timeout" and "busy" in exc.value.message
        assert time.monotonic() - start < 10
        with pytest.raises(WorkerError) as exc:  # an explicit deadline (fetch's per-URL one) too
            with ratelimit.slot(call_with(60), "busy", limit=1, deadline=time.monotonic() + 0.3):
                pass
        assert exc.value.code == "timeout"
    finally:
        p.kill()
        p.wait()


def test_wait_ends_when_the_call_is_cancelled(tmp_path):
    p = holder(tmp_path, "busy", 1, 30)
    wait_held(p)
    try:
        call = call_with(60)
        threading.Timer(0.3, call.cancelled.set).start()
        start = time.monotonic()
        with pytest.raises(WorkerError) as exc:
            with ratelimit.slot(call, "busy", limit=1):
                pass
        assert exc.value.code == "cancelled" and time.monotonic() - start < 10
    finally:
        p.kill()
        p.wait()


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_holder_frees_its_slot(tmp_path, sig):
    p = holder(tmp_path, "dead", 1, 60)
    wait_held(p)
    p.send_signal(sig)
    p.wait(30)
    start = time.monotonic()
    with ratelimit.slot(call_with(20), "dead", limit=1):
        pass
    assert time.monotonic() - start < 5  # at once in practice; generous for a loaded machine


def test_min_interval_spaces_request_starts_across_processes(tmp_path):
    procs = [holder(tmp_path, "spaced", 5, 0.0, interval=0.25) for _ in range(4)]
    for p in procs:
        assert p.wait(60) == 0, p.stderr.read()
    starts = sorted(a for a, _ in intervals(tmp_path))
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    # each start is written just after the slot is taken, so a holder descheduled in
    # between (load 4.5: 0.238 s seen) shortens a gap a little; without spacing they are ~0
    assert len(starts) == 4 and min(gaps) >= 0.2, gaps


def test_reentrant_on_one_thread(tmp_path):
    with ratelimit.slot(None, "re", limit=1):
        with ratelimit.slot(call_with(2), "re", limit=1) as waited:  # would deadlock if not reentrant
            assert waited == 0.0
    # and really released afterwards
    p = holder(tmp_path, "re", 1, 0.0)
    assert p.wait(30) == 0


def test_threads_of_one_process_count_separately(tmp_path):
    spans, lock = [], threading.Lock()

    def work():
        with ratelimit.slot(call_with(30), "thr", limit=2):
            t0 = time.time()
            time.sleep(0.15)
            with lock:
                spans.append((t0, time.time()))

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(spans) == 6 and max_overlap(spans) <= 2


def test_unusable_lock_dir_skips_the_limit(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(ratelimit, "_warned", False)
    (tmp_path / "file").write_text("not a directory")
    ratelimit.configure(str(tmp_path / "file"))
    with ratelimit.slot(None, "x", limit=1) as waited:
        with ratelimit.slot(None, "y", limit=1):
            pass
    assert waited < 5
    assert "not limiting" in capsys.readouterr().err


def test_locks_live_in_the_state_dir_the_call_names(tmp_path, monkeypatch):
    """The tool names the directory on the call; nothing else (opening the cache) moves the locks."""
    ratelimit.configure(None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "default"))
    call = Call()
    call.state_dir = str(tmp_path / "state")
    with ratelimit.slot(call, "named", limit=1):
        pass
    with ratelimit.slot(None, "unnamed", limit=1):
        pass
    assert os.listdir(tmp_path / "state" / "locks") == ["named.0.lock"]
    assert os.listdir(tmp_path / "default" / "websearch-worker" / "locks") == ["unnamed.0.lock"]


def test_safe_names():
    assert ratelimit.safe_name("brave:main") == "brave_main"
    assert ratelimit.safe_name("host-[::1]") == "host-___1_"
    assert ratelimit.safe_name("../../etc") == "_.._etc"
    assert "/" not in ratelimit.safe_name("a/b") and ratelimit.safe_name("") == "_"


def test_host_limit_default_and_env(monkeypatch):
    assert ratelimit.host_slot(None, "example.org").limit == 2
    monkeypatch.setenv("WEBSEARCH_WORKER_HOST_CONCURRENCY", "7")
    assert ratelimit.host_slot(None, "example.org").limit == 7


@pytest.mark.parametrize("content", [b"nan", b"NaN", b"inf", b"1e400", b"\xff\xfe", b"12:00", b"\x00" * 31])
def test_a_last_start_file_that_holds_no_time_holds_no_call(tmp_path, content):
    """A ``.last`` file left unreadable (another program, a damaged disk) means no wait, through the CLI."""
    env = worker_env(tmp_path)
    locks = os.path.join(env["XDG_CACHE_HOME"], "websearch-worker", "locks")
    os.makedirs(locks)
    with open(os.path.join(locks, "brave-interval-brave.last"), "wb") as f:
        f.write(content)
    with brave_server.FakeBrave() as fake:
        cfg = tmp_path / "brave.json"  # Brave's default one-second spacing: the .last file is read
        cfg.write_text(
            json.dumps(
                {
                    "providers": [
                        {"name": "brave", "type": "brave", "apiKey": brave_server.KEY, "baseUrl": fake.base_url}
                    ]
                }
            )
        )
        os.chmod(cfg, 0o600)
        started = time.monotonic()
        r = run_worker(["search", "full q", "--provider", "brave", "--config", str(cfg), "--timeout", "8"], env)
    assert check(r, env)["provider"] == "brave", r  # NaN held the call to its deadline: a timeout
    assert time.monotonic() - started < 6
