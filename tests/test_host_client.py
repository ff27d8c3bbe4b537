"""worker.host_client against the real worker: spawn, parse, time out, cancel."""

import os
import subprocess
import sys
import threading
import time

import pytest
from fakes.stall_server import StallServer

from worker import host_client as client

pytestmark = pytest.mark.slow  # worker processes, one through the bootstrap

PAGE = b"# Client notes\n\nThe worker client fetched this page.\n"


def _route(path):
    return ("text/markdown; charset=utf-8", PAGE) if path == "/notes.md" else None


@pytest.fixture
def web():
    server = StallServer(_route, hold=30)
    yield server
    server.close()


PY = sys.executable  # the dev venv: the worker is importable through its .pth


def test_fetch_payload(web, env):
    payload = client.fetch(web.url + "/notes.md", python=PY, env=env, allow_private=True, max_chars=500)
    assert payload["ok"] and payload["tool"] == "fetch"
    assert "fetched this page" in payload["results"][0]["content"]
    assert "fetched this page" in payload["text"]


def test_worker_error_becomes_client_error(env):
    r = client.run(["fetch", "--max-chars", "0", "https://example.org/"], python=PY, env=env)
    assert r.returncode == 2 and not r.ok and r.error["code"] == "usage"
    with pytest.raises(client.ClientError) as e:
        r.raise_for_error()
    assert e.value.code == "usage" and e.value.hint


def test_cancel_event_stops_the_call_with_exit_130(web, env):
    cancel = threading.Event()
    threading.Thread(target=lambda: web.stalled.wait(30) and cancel.set(), daemon=True).start()
    started = time.monotonic()
    r = client.run(["fetch", "--allow-private", web.url + "/stall"], python=PY, env=env, cancel=cancel)
    assert web.stalled.is_set()
    assert r.cancelled and not r.timed_out
    assert r.returncode == 130
    assert r.payload["error"]["code"] == "cancelled"
    assert time.monotonic() - started < 30  # far below the worker's own 60 s timeout
    with pytest.raises(client.ClientError) as e:
        r.raise_for_error()
    assert e.value.code == "cancelled"


def test_handle_cancel_from_another_thread(web, env):
    h = client.spawn(["fetch", "--allow-private", web.url + "/stall"], python=PY, env=env)
    assert web.stalled.wait(30)
    threading.Thread(target=h.cancel).start()
    r = h.wait()
    assert r.cancelled and r.returncode == 130


def test_host_timeout(web, env):
    h = client.spawn(["fetch", "--allow-private", web.url + "/stall"], python=PY, env=env)
    assert web.stalled.wait(30)  # the worker is inside its request (signal handlers installed)
    r = h.wait(timeout=0.5)
    assert r.timed_out and not r.cancelled
    assert r.returncode == 130  # the worker answered the SIGTERM itself
    with pytest.raises(client.ClientError) as e:
        r.raise_for_error()
    assert e.value.code == "timeout"


def test_sigterm_ignored_is_killed_after_grace(env):
    # Not the worker: a process that ignores SIGTERM, so only the kill stops it.
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('started', flush=True); time.sleep(60)"
    h = client.Handle([PY, "-c", code], env=env)
    started = time.monotonic()
    r = h.wait(timeout=0.5, grace=0.5)
    assert r.timed_out and r.returncode == -9
    assert time.monotonic() - started < 20
    assert r.payload is None and "no SEARCH_OK" in r.protocol_error


def test_no_block_is_a_protocol_error(env):
    r = client.run(["search", "x"], python="/bin/false", env=env)
    assert r.returncode == 1 and r.payload is None
    with pytest.raises(client.ClientError) as e:
        r.raise_for_error()
    assert e.value.code == "protocol"


def test_through_the_bootstrap(tmp_path, web, env):
    """Default command: bootstrap/run.py with --venv; a venv the bootstrap's own stamp calls ready."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    wrapper = venv / "bin" / "python"
    wrapper.write_text('#!/bin/sh\nexec "%s" "$@"\n' % PY)
    wrapper.chmod(0o755)
    sys.path.insert(0, os.path.join(client.ROOT, "bootstrap"))
    try:
        import run as bootstrap
    finally:
        sys.path.pop(0)
    bootstrap.write_stamp(str(venv), bootstrap.read_inputs())
    argv = client.command(["fetch", "x"], venv=str(venv))
    assert argv[:4] == [sys.executable, client.BOOTSTRAP, "--venv", str(venv)]
    payload = client.fetch([web.url + "/notes.md", web.url + "/missing"], venv=str(venv), env=env, allow_private=True)
    assert [item["ok"] for item in payload["results"]] == [True, False]


def test_options_mapping():
    assert client.options(
        limit=3, highlights=True, summary=False, provider=None, include_domain=["a.org", "b.org"]
    ) == ["--limit", "3", "--highlights", "--include-domain", "a.org", "--include-domain", "b.org"]


def test_importable_without_the_venv(tmp_path):
    """Hosts import worker.host_client with a plain interpreter: standard library only."""
    code = "import sys; sys.path.insert(0, sys.argv[1]); import worker.host_client as c; print(sorted(m for m in sys.modules if m.startswith('worker')))"
    out = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, client.ROOT], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    # procgroup: whether a call's process group is gone (os only), for the MCP host's count
    assert out.stdout.strip() == "['worker', 'worker.host_client', 'worker.procgroup', 'worker.protocol']"
