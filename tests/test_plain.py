"""The start-up tricks' one switch (worker/startup.py): WEBSEARCH_WORKER_PLAIN=1 turns every
trick off, and the real CLI then gives the same answers, errors and exit codes as with them on:
a search through a fake provider and its cache hit, a fetch of a local page and its cache hit,
bad input, an MCP tool call, and (with redis-server) a cache hit through Redis.

Each call runs twice, the switch off and on, each way with a cache of its own; the payloads are
compared without what is timed (``ms``, ``*_ms``, ``fetched_at``...).  An import log shows that the plain run did
take the public modules, so the comparison cannot pass by both runs taking the same path.
"""

import ast
import json
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT, run_worker, worker_env
from fakes.brave_server import FakeBrave
from fakes.http_server import FakeWeb

from worker import startup

TIMED = ("ms", "elapsed", "age_s")


def steady(value):
    """``value`` without what is timed: keys ``ms``, ``*_ms``, ``*_s`` and ``*_at``, a cached page's age."""
    if isinstance(value, dict):
        return {k: steady(v) for k, v in value.items() if not (k in TIMED or k.endswith(("_ms", "_s", "_at")))}
    if isinstance(value, list):
        return [steady(v) for v in value]
    if isinstance(value, str):  # the text view says how old a cached page is: "cached 1 s ago"
        return re.sub(r"cached [^,)\n]* ago", "cached ... ago", value)
    return value


# -- the switch itself ----------------------------------------------------------


def test_the_switch_turns_all_tricks_off_or_the_named_ones():
    assert startup.off_in({}) == frozenset()
    assert startup.off_in({"WEBSEARCH_WORKER_PLAIN": "0"}) == frozenset()
    assert startup.off_in({"WEBSEARCH_WORKER_PLAIN": "1"}) == frozenset(startup.TRICKS)
    assert startup.off_in({"WEBSEARCH_WORKER_PLAIN": " json, sqlite ,nosuch"}) == {"json", "sqlite"}
    assert startup.off_in({"WEBSEARCH_WORKER_PLAIN_IMPORTS": "1"}) == {"standins"}
    assert startup.off_in({"WEBSEARCH_EXA_PLAIN_IMPORT": "yes", "WEBSEARCH_WORKER_PLAIN": "json"}) == {
        "exa_import",
        "json",
    }


def _trick_reads():
    """{trick name: [where]} of every ``on("name")`` in worker/."""
    found = {}
    for folder, _dirs, files in os.walk(os.path.join(ROOT, "worker")):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read())
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id == "on"
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                ):
                    found.setdefault(node.args[0].value, []).append(os.path.relpath(path, ROOT))
    return found


def test_every_trick_is_listed_and_every_listed_one_is_read():
    reads = _trick_reads()
    assert "json" in reads and "standins" in reads  # the reader sees both kinds of call
    assert sorted(set(reads) - set(startup.TRICKS)) == [], "read but not in startup.TRICKS"
    assert sorted(set(startup.TRICKS) - set(reads)) == [], "in startup.TRICKS but never read"


def test_on_reads_the_environment_once(monkeypatch):
    monkeypatch.setenv("WEBSEARCH_WORKER_PLAIN", "json")
    startup.forget()
    try:
        assert not startup.on("json") and startup.on("sqlite")
        monkeypatch.setenv("WEBSEARCH_WORKER_PLAIN", "")
        assert not startup.on("json")  # read once a process
    finally:
        startup.forget()


_ENTRY_GC = """
import gc, runpy, sys
sys.argv = ["worker", "--version"]
try:
    runpy.run_module("worker", run_name="__main__")
except SystemExit:
    pass
print(gc.get_threshold()[0])
"""


@pytest.mark.parametrize("plain, young", [("", startup.GC_FIRST), ("gc_threshold", 700)])
def test_the_worker_entry_sets_the_young_generation_threshold(plain, young):
    env = dict(os.environ, WEBSEARCH_WORKER_PLAIN=plain)
    out = subprocess.run(
        [sys.executable, "-I", "-c", _ENTRY_GC], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout
    assert out.split()[-1] == str(young)


# -- the CLI both ways ----------------------------------------------------------


@pytest.fixture(scope="module")
def web():
    server = FakeWeb().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def brave():
    with FakeBrave() as server:
        yield server


def both(tmp_path, argv, extra=None):
    """(tricks on, tricks off): the Result of ``argv`` each way, each with a cache of its own."""
    out = []
    for plain in ("", "1"):
        cache = str(tmp_path / ("cache-plain" if plain else "cache-tricks"))
        env = worker_env(tmp_path, dict(extra or {}, WEBSEARCH_WORKER_PLAIN=plain, XDG_CACHE_HOME=cache))
        out.append(run_worker(argv, env))
    return out


def same(tmp_path, argv, extra=None):
    on, off = both(tmp_path, argv, extra)
    assert on.returncode == off.returncode, (on, off)
    assert on.payload is not None and off.payload is not None, (on, off)
    assert steady(on.payload) == steady(off.payload), (on.payload, off.payload)
    assert "Traceback" not in on.stderr + off.stderr
    return on.payload


def test_search_through_a_fake_provider_then_its_cache_hit(tmp_path, brave):
    config = brave.config_file(tmp_path / "config.json")
    argv = ["search", "rust async runtime", "--config", config, "--limit", "3"]
    first = same(tmp_path, argv)
    assert first["ok"] and first["provider"] == "brave" and first["results"] and not first["meta"]["cached"]
    hit = same(tmp_path, argv)
    assert hit["meta"]["cached"] is True and hit["results"] == first["results"]
    own = tmp_path / "own.json"
    own.write_text(json.dumps({"providers": [{"name": "echo", "type": "tests.fakes.own_provider:Echo"}]}))
    echoed = same(tmp_path, ["search", "a  query of my own", "--config", str(own), "--provider", "echo"])
    assert echoed["results"][0]["snippet"] == "a query of my own"


def test_fetch_of_a_local_page_then_its_cache_hit(tmp_path, web):
    argv = ["fetch", web.url("/article"), "--allow-private", "--max-chars", "3000"]
    first = same(tmp_path, argv)
    [item] = first["results"]
    assert item["ok"] and "Glaciers" in item["content"] and item["title"]
    hit = same(tmp_path, argv)
    assert hit["results"][0]["content"] == item["content"]
    for path in ("/docs", "/long", "/cp1252", "/report.pdf"):
        page = same(tmp_path, ["fetch", web.url(path), "--allow-private", "--no-cache", "--format", "text"])
        assert page["results"][0]["ok"], page


@pytest.mark.parametrize(
    "argv,code",
    [
        (["search", "   "], "invalid_query"),
        (["search", "q", "--limit", "x"], "usage"),  # the fast parser declines: argparse words it
        (["search", "q", "--lim", "3", "--no-cache", "--provider", "nosuch"], "config"),  # an abbreviation
        (["fetch", "not a url"], None),
        (["frobnicate"], "usage"),
    ],
)
def test_bad_input_is_the_same_error_block(tmp_path, argv, code):
    payload = same(tmp_path, argv)
    if code is not None:
        assert payload["ok"] is False and payload["error"]["code"] == code, payload


def test_help_is_the_same(tmp_path):
    on, off = both(tmp_path, ["fetch", "--help"])
    assert on.returncode == off.returncode == 0 and on.stdout == off.stdout and "--max-chars" in on.stdout


def test_the_plain_run_takes_the_public_modules(tmp_path, web):
    """The import log of a cached fetch: the public modules with the switch, the C ones without."""
    logs = {}
    for plain in ("", "1"):
        env = worker_env(tmp_path, {"WEBSEARCH_WORKER_PLAIN": plain})
        argv = ["fetch", web.url("/article"), "--allow-private"]
        run_worker(argv, env)  # fills the cache
        proc = subprocess.run(
            [sys.executable, "-I", "-X", "importtime", "-m", "worker"] + argv,
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        logs[plain] = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if "|" in line}
    public = {"sqlite3", "dataclasses", "json"}
    assert not public & logs[""], sorted(public & logs[""])
    assert public <= logs["1"], sorted(public - logs["1"])


def test_an_mcp_tool_call(tmp_path, web):
    results = []
    for plain in ("", "1"):
        env = worker_env(tmp_path / ("plain%s" % plain), {"WEBSEARCH_WORKER_PLAIN": plain})
        proc = subprocess.Popen(
            [sys.executable, "-I", "-m", "hosts.mcp", "--allow-private"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        messages = [
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            },
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "web_fetch", "arguments": {"url": web.url("/article"), "max_chars": 2000}},
            },
        ]
        replies = {}
        try:
            proc.stdin.write(("\n".join(json.dumps(m) for m in messages) + "\n").encode())
            proc.stdin.flush()  # open until the answer is in: a server whose stdin closes cancels its calls
            while 1 not in replies:
                line = proc.stdout.readline()
                if not line:
                    break
                message = json.loads(line)
                if "id" in message:
                    replies[message["id"]] = message
            proc.stdin.close()
            proc.wait(30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        err = proc.stderr.read()
        assert "result" in replies.get(1, {}), (replies, err.decode(errors="replace")[-2000:])
        results.append(replies[1]["result"])
    on, off = results
    assert on["isError"] is False and "Glaciers" in on["content"][0]["text"]
    assert steady(on) == steady(off)


def test_a_cache_hit_through_redis(tmp_path, brave, redis_server):
    """The Redis client's tricks (_socket, _sha1/_sha2) on, then off: the plain run finds the
    answer the other stored (the same keys, by hashlib's digests), and answers the same."""
    config = brave.config_file(tmp_path / "config.json", state=redis_server.url)
    argv = ["search", "shared state", "--config", config]
    runs = {}
    for plain in ("", "1"):
        env = worker_env(tmp_path / ("plain%s" % plain), {"WEBSEARCH_WORKER_PLAIN": plain})
        runs[plain] = run_worker(argv, env)
        assert runs[plain].payload is not None and runs[plain].payload["ok"], runs[plain]
    stored, found = runs[""].payload, runs["1"].payload
    assert stored["meta"]["cached"] is False and found["meta"]["cached"] is True
    assert found["results"] == stored["results"]
