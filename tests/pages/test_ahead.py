"""Extraction's imports on a thread while the page downloads (worker/pages/extract/ahead.py, issue 45).

Each case runs in a fresh interpreter (the imports must not be made yet), against a local page
on 127.0.0.1 through the real pipeline (pipeline.fetch_one): the thread starts with the
download and the reading waits for it; a failure on the thread is a warning naming the stage
and the page is still read; the download imports none of the modules trafilatura's and
readability's stand-ins replace while the thread runs; the switch turns it off."""

import json
import os
import subprocess
import sys

import pytest

from worker.pages.extract import imports

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PRELUDE = """
import json, os, sys, threading
sys.path.insert(0, os.path.join(%(repo)r, "tests"))
from fakes.http_server import FakeWeb
from worker.pages import pipeline
from worker.pages.extract import ahead
from worker.pages.spec import Spec
from worker.runtime import Call
web = FakeWeb().start()

def fetch(path):
    call = Call(timeout=30.0)
    try:
        return pipeline.fetch_one(web.url(path), call, Spec(fmt="markdown", allow_private=True), reserve=0.2)
    finally:
        call.cleanup()
"""


def _run(code, **env):
    full = dict(os.environ)
    for k in ("WEBSEARCH_WORKER_PLAIN", "WEBSEARCH_WORKER_PLAIN_IMPORTS", "WEBSEARCH_WORKER_READ_CHILD"):
        full.pop(k, None)
    full.update(env)
    proc = subprocess.run(
        [sys.executable, "-c", PRELUDE % {"repo": REPO} + code],
        cwd=REPO,
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_the_imports_run_on_their_thread_during_the_download_and_the_page_reads_as_without():
    got = _run(
        """
started = []
real = threading.Thread.start
def start(self):
    started.append((self.name, "trafilatura.core" in sys.modules))
    return real(self)
threading.Thread.start = start
item = fetch("/slow?ms=300")
threading.Thread.start = real
print(json.dumps({"started": started, "ok": item["ok"], "content": item["content"],
                  "warnings": item.get("warnings", []), "error": repr(ahead._state.get("error"))}))
"""
    )
    plain = _run(
        """
item = fetch("/slow?ms=300")
print(json.dumps({"content": item["content"], "thread": "thread" in ahead.AHEAD}))
""",
        WEBSEARCH_WORKER_PLAIN="import_ahead",
    )
    assert ["import-ahead", False] in got["started"]  # started before extraction was imported
    assert got["ok"] and got["warnings"] == [] and got["error"] == "None"
    assert plain["thread"] is False  # the switch: no thread
    assert got["content"] == plain["content"] and "Alpine glaciers" in got["content"]


@pytest.mark.slow
def test_a_failure_on_the_thread_is_a_warning_naming_it_and_the_page_is_still_read():
    got = _run(
        """
from worker.pages.extract import core
real = core.prepare
def prepare():
    if threading.current_thread().name == "import-ahead":
        raise RuntimeError("broken on purpose")
    return real()
core.prepare = prepare
item = fetch("/article")
print(json.dumps({"ok": item["ok"], "content": item.get("content", ""), "warnings": item.get("warnings", [])}))
"""
    )
    assert got["ok"] and "Alpine glaciers" in got["content"]
    named = [w for w in got["warnings"] if w.startswith("import_ahead:") and "RuntimeError: broken on purpose" in w]
    assert named, got["warnings"]


@pytest.mark.slow
def test_the_download_imports_none_of_the_stood_in_modules_while_the_thread_runs():
    # core.prepare() asks that no other thread import those while its stand-ins are in sys.modules:
    # with the thread off, every module the download imports after import_ahead()'s own imports
    stood_in = sorted(imports.TRAFILATURA_DEFERRED + imports.READABILITY_DEFERRED)
    got = _run(
        """
from worker.pages.child import small
small.import_ahead()  # the download's imports (the thread is off by the switch)
before = set(sys.modules)
item = fetch("/article")
print(json.dumps({"ok": item["ok"], "new": sorted(set(sys.modules) - before), "thread": "thread" in ahead.AHEAD}))
""",
        WEBSEARCH_WORKER_PLAIN="import_ahead",
        WEBSEARCH_WORKER_READ_CHILD="always",  # the page read in the child: only the download imports here
    )
    assert got["ok"] and got["thread"] is False
    assert not set(got["new"]) & set(stood_in), sorted(set(got["new"]) & set(stood_in))
    assert not [m for m in got["new"] if m.startswith(("trafilatura", "readability", "lxml"))]
