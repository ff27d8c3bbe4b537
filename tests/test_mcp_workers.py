"""The MCP server's bound on workers (docs/hosts.md: at most 16 at once) counts a worker until the
last process it started is gone (issue 44).  A worker kills its reading child as it ends, but a
child being torn down can outlive it by a moment; a slot freed at the worker's own exit let a 17th
worker start beside it.

Here the server runs in this process with a stand-in for the worker's interpreter: a script that
starts a child of its own (as the worker starts its reading child or a browser), works 0.3 s and
answers, the child lingering 0.5 s; a quarter of the calls are cancelled after 0.1 s (the script
dies at once, its child stays).  Counted from /proc all along, the calls with a process alive never
pass 16; without the wait for the group they reach well past it.  tests/test_hostile.py runs the
real worker 100 calls at once."""

import json
import os
import threading
import time
import types

import anyio
import pytest

from hosts.mcp import server
from hosts.mcp.settings import Settings
from worker import host_client, protocol

CALLS = 40
PAYLOAD = {"ok": True, "v": protocol.VERSION, "results": [], "meta": {}, "text": "done"}


@pytest.fixture
def fake_worker(tmp_path):
    path = tmp_path / "fake-worker"
    path.write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do last="$a"; done\n'
        'if [ "$1" = linger ]; then sleep 0.5; exit 0; fi\n'
        '"$0" linger "$last" >/dev/null 2>&1 </dev/null &\n'  # the worker's child, in its group, outliving it
        "sleep 0.3\n"
        "printf '%%s\\n%%s\\n%%s\\n' %s '%s' %s\n" % (protocol.OK, json.dumps(PAYLOAD), protocol.DONE)
    )
    path.chmod(0o755)
    return str(path)


def _live_calls(script):
    """The calls (their URL, the last argument) with a process of the script alive, from /proc."""
    calls = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                if f.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X"):
                    continue
            with open("/proc/%s/cmdline" % name, "rb") as f:
                argv = f.read().split(b"\0")[:-1]
        except (OSError, IndexError):
            continue
        if script.encode() in argv[:2]:
            calls.add(argv[-1])
    return calls


def run_calls(fake_worker, monkeypatch, end_groups=True):
    """CALLS web_fetch calls at once through the server's own call path; (results, most calls alive)."""
    monkeypatch.setenv(server.PROGRESS_INTERVAL_ENV, "3600")
    monkeypatch.setenv("WEBSEARCH_MCP_PREPARED", "0")  # the stand-in is no worker to prepare (test_mcp_prepared.py)
    if not end_groups:  # what the server did before: the slot free at the worker's exit
        monkeypatch.setattr(host_client.Handle, "end_group", lambda self, within=5.0: True)
    host = server.Host(Settings(["--allow-private"]))
    host.workers.interpreter = lambda: (fake_worker, None)
    ctx = types.SimpleNamespace(session=types.SimpleNamespace(report_progress=None))
    seen = {"most": 0, "samples": 0}
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            seen["most"] = max(seen["most"], len(_live_calls(fake_worker)))
            seen["samples"] += 1
            time.sleep(0.002)

    results = {}

    async def main():
        async def one(i):
            params = types.SimpleNamespace(name="web_fetch", arguments={"urls": ["https://example.org/%d" % i]})
            with anyio.move_on_after(0.1 if i % 4 == 0 else 3600):  # as a client's notifications/cancelled does
                results[i] = await host.call_tool(ctx, params)
                return
            results[i] = None

        async with anyio.create_task_group() as tg:
            for i in range(CALLS):
                tg.start_soon(one, i)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        anyio.run(main)
    finally:
        stop.set()
        sampler.join(10)
    deadline = time.monotonic() + 5
    while _live_calls(fake_worker) and time.monotonic() < deadline:  # the last calls' children
        time.sleep(0.02)
    return results, seen


@pytest.mark.slow  # 40 calls through a real process pool, about 3 s
def test_a_worker_counts_until_its_children_are_gone(fake_worker, monkeypatch, capsys):
    started = time.monotonic()
    results, seen = run_calls(fake_worker, monkeypatch)
    stopped = [line for line in capsys.readouterr().err.splitlines() if "web_fetch cancelled: worker" in line]
    assert sorted(results) == list(range(CALLS))
    done = [r for i, r in results.items() if i % 4]
    assert all(not r.is_error and r.structured_content["text"] == "done" for r in done), done[0]
    cancelled = [i for i, r in results.items() if r is None]
    assert set(cancelled) <= set(range(0, CALLS, 4)) and len(cancelled) >= 4, cancelled
    assert stopped, "no worker was running when its call was cancelled: the cancel path went untested"
    assert seen["samples"] > 50
    assert seen["most"] <= server.MAX_WORKERS, "%d calls alive at once" % seen["most"]
    assert seen["most"] >= server.MAX_WORKERS - 2  # the bound was reached: the calls did overlap
    # an answered call holds its slot 0.5 s (its child's), 30 of them: two rounds at least
    assert time.monotonic() - started >= 2 * 0.5


@pytest.mark.slow
def test_without_waiting_for_the_group_the_bound_was_passed(fake_worker, monkeypatch):
    """The control: the same calls with the slot freed at the worker's exit (the old server)."""
    _, seen = run_calls(fake_worker, monkeypatch, end_groups=False)
    assert seen["most"] > server.MAX_WORKERS, seen


def test_end_group_waits_for_the_workers_children_and_kills_what_stays(tmp_path):
    script = tmp_path / "leaves-a-child"
    script.write_text('#!/bin/sh\nsleep "$1" >/dev/null 2>&1 &\nexit 0\n')  # the child holds no pipe of ours
    script.chmod(0o755)
    handle = host_client.Handle([str(script), "0.3"], own_group=True)
    handle.wait(timeout=10)
    assert host_client.group_alive(handle.proc.pid)  # the worker is gone, its child is not
    started = time.monotonic()
    assert handle.end_group(5.0) is True
    assert 0.1 < time.monotonic() - started < 2 and not host_client.group_alive(handle.proc.pid)
    stays = host_client.Handle([str(script), "60"], own_group=True)
    stays.wait(timeout=10)
    started = time.monotonic()
    assert stays.end_group(0.2) is True  # past the wait: SIGKILL, then gone
    assert time.monotonic() - started < 2 and not host_client.group_alive(stays.proc.pid)
    plain = host_client.Handle(["true"])
    plain.wait(timeout=10)
    assert plain.end_group() is True  # no group of its own: nothing to wait for
