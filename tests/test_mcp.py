"""The MCP host (hosts/mcp) end to end: the real server process, driven by the MCP SDK's own
stdio client and, once, by raw newline-delimited JSON-RPC as a client in another language would.
Every tool call runs a real worker subprocess; pages come from a local HTTP server, searches
from a provider of our own (tests/fakes/own_provider.py)."""

import json
import os
import re
import signal
import subprocess
import sys
import time

import anyio
import pytest
from conftest import ROOT, worker_env
from fakes.stall_server import StallServer
from jsonschema import Draft202012Validator
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from worker import cli
from worker import tool_schemas as tools
from worker.errors import UsageError

pytestmark = pytest.mark.slow  # an MCP server and its worker processes in each test

PY = sys.executable  # the dev venv: the worker and the SDK are importable


def _route(path):
    if path.startswith("/slow/"):
        time.sleep(1.0)
    if path.startswith("/long/"):
        return "text/markdown; charset=utf-8", ("# Long\n\n" + "A sentence of the long page. " * 400).encode()
    if path.startswith(("/page/", "/slow/")):
        n = path.rsplit("/", 1)[1]
        return (
            "text/markdown; charset=utf-8",
            ("# Page %s\n\nThe body of page number %s, served to the MCP test.\n" % (n, n)).encode(),
        )
    return None


@pytest.fixture
def web():
    server = StallServer(_route, hold=60)  # /stall holds the worker inside its request
    yield server
    server.close()


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "web-search.json"
    path.write_text(
        json.dumps(
            {
                "defaultProvider": "echo",
                "providers": [{"name": "echo", "type": "tests.fakes.own_provider:Echo", "options": {"flavour": "mcp"}}],
            }
        )
    )
    return str(path)


def params(tmp_path, *flags, extra=None):
    return StdioServerParameters(
        command=PY, args=["-I", "-m", "hosts.mcp"] + list(flags), env=worker_env(tmp_path, extra), cwd=ROOT
    )


# Flags a result may name: the server's own, which a person sets where the client starts it.
SERVER_FLAGS = {"--allow-private", "--config", "--venv"}


def stray_flags(text):
    """CLI flags named in a result's text that neither the tool nor the server has."""
    return sorted(set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text or "")) - SERVER_FLAGS)


def result_texts(result):
    """Every error, hint, warning and the text view of a tools/call result (an SDK object or raw JSON)."""
    if hasattr(result, "structured_content"):
        payload, content = result.structured_content or {}, [c.text for c in result.content]
    else:
        payload, content = result.get("structuredContent") or {}, [c.get("text") for c in result.get("content", [])]
    out = list(content)
    for holder in [payload] + [r for r in payload.get("results") or [] if isinstance(r, dict)]:
        for key in ("error", "fetch_error"):
            err = holder.get(key) or {}
            out += [err.get("message"), err.get("hint")]
        out += holder.get("warnings") or []
    return [t for t in out if isinstance(t, str)]


def check_host_terms(result):
    """No result names a CLI flag the tool does not have (issue 28): every MCP test runs this."""
    for text in result_texts(result):
        assert not stray_flags(text), (stray_flags(text), text[-500:])
    return result


class CheckedSession(ClientSession):
    async def call_tool(self, *args, **kwargs):
        return check_host_terms(await super().call_tool(*args, **kwargs))


def run_session(tmp_path, body, *flags, extra=None):
    """Start the server, initialize a ClientSession, run ``body(session)``; returns (body's value, server stderr)."""
    errlog = open(tmp_path / "server-stderr.txt", "w+")

    async def main():
        async with stdio_client(params(tmp_path, *flags, extra=extra), errlog=errlog) as (read, write):
            async with CheckedSession(read, write) as session:
                await session.initialize()
                return await body(session)

    try:
        value = anyio.run(main)
    finally:
        errlog.seek(0)
        stderr = errlog.read()
        errlog.close()
    assert "Traceback" not in stderr, stderr
    return value, stderr


def temp_dirs(tmp_path):
    base = tmp_path / "calltmp"
    return sorted(os.listdir(base)) if base.exists() else []


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is gone for our purposes, but only its parent may reap it
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def wait_for(predicate, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


# -- schemas ---------------------------------------------------------------


def test_initialize_and_list_tools_with_valid_schemas(tmp_path):
    async def body(session):
        return await session.list_tools()

    listed, _ = run_session(tmp_path, body)
    by_name = {t.name: t for t in listed.tools}
    assert sorted(by_name) == ["web_fetch", "web_search"]
    for tool in by_name.values():
        Draft202012Validator.check_schema(tool.input_schema)
        Draft202012Validator.check_schema(tool.output_schema)
    # the descriptions are short (tools/list under 3,400 characters) but say what a model must act on
    assert "start_index" in by_name["web_fetch"].description and "--allow-private" in by_name["web_fetch"].description
    assert "rate_limited" in by_name["web_search"].description and "web_fetch" in by_name["web_search"].description
    search = by_name["web_search"].input_schema
    assert search["required"] == ["query"] and search["additionalProperties"] is False
    assert search["properties"]["recency"]["enum"] == list(cli.RECENCY)
    assert (search["properties"]["fetch_top"]["minimum"], search["properties"]["fetch_top"]["maximum"]) == (0, 5)
    assert search["properties"]["include_domains"]["type"] == "array"
    fetch = by_name["web_fetch"].input_schema
    assert fetch["properties"]["format"]["enum"] == list(cli.FETCH_FORMATS)
    assert fetch["properties"]["urls"]["maxItems"] == tools.MAX_URLS


def raw_tools_list(tmp_path, extra=None):
    """(the tools/list response line's length, {tool: parameter names})."""
    proc = start_raw(tmp_path, extra=extra)
    try:
        raw_initialize(proc)
        send(proc, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        line = proc.stdout.readline()
        listed = json.loads(line)["result"]["tools"]
        proc.stdin.close()
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return len(line.rstrip(b"\n")), {t["name"]: sorted(t["inputSchema"]["properties"]) for t in listed}


def test_the_tool_list_is_lean_and_shows_a_providers_options_only_when_it_is_configured(tmp_path):
    size, names = raw_tools_list(tmp_path)  # no config file, no API keys: ddgs and the local fetcher
    assert size < 3400, size  # issue 43's bound (docs/PERFORMANCE.md: the reference fetch server's is about 1,150)
    assert names["web_search"] == [
        "exclude_domains",
        "fetch_top",
        "include_domains",
        "limit",
        "news",
        "queries",
        "query",
        "recency",
        "region",
        "sources",
        "timeout",
    ]
    assert names["web_fetch"] == [
        "crawl",
        "find",
        "focus",
        "format",
        "map",
        "max_chars",
        "max_total_chars",
        "render",
        "start_index",
        "timeout",
        "urls",
    ]
    _size, with_exa = raw_tools_list(tmp_path, extra={"EXA_API_KEY": "test-key-not-real"})
    assert {"summary", "highlights", "category", "provider"} <= set(with_exa["web_search"])
    assert {"summary", "highlights", "provider"} <= set(with_exa["web_fetch"])
    assert "country" not in with_exa["web_search"]  # Brave's, and Brave has no key


def test_an_option_the_answering_provider_lacks_is_said_not_ignored(tmp_path, web):
    async def body(session):
        local = await session.call_tool(
            "web_fetch", {"urls": [web.url + "/page/1"], "provider": "local", "summary": True}
        )
        unknown = await session.call_tool("web_fetch", {"urls": [web.url + "/page/1"], "country": "US"})
        return local, unknown

    (local, unknown), _ = run_session(tmp_path, body, "--allow-private", extra={"EXA_API_KEY": "test-key-not-real"})
    error = local.structured_content["error"]
    assert local.is_error and error["code"] == "usage"
    assert "summary is an option of the exa provider" in error["message"] and "local" in error["message"]
    assert unknown.is_error and "country" in unknown.structured_content["error"]["message"]
    assert not web.stalled.is_set()


def test_messages_name_the_tools_parameters_and_the_timeout_holds(tmp_path, web):
    async def refused(session):
        return await session.call_tool("web_fetch", {"urls": [web.url + "/page/1"]})

    blocked, _ = run_session(tmp_path, refused)  # no --allow-private: loopback is refused
    assert blocked.is_error and "the server's --allow-private flag" in blocked.structured_content["error"]["hint"]

    async def body(session):
        long = await session.call_tool("web_fetch", {"urls": [web.url + "/long/1"], "max_chars": 300})
        started = time.monotonic()
        stalled = await session.call_tool("web_fetch", {"urls": [web.url + "/stall"], "timeout": 2})
        return long, stalled, time.monotonic() - started

    (long, stalled, took), _ = run_session(tmp_path, body, "--allow-private")
    text = long.content[0].text
    assert "truncated" in text and "continue with start_index " in text and "--start-index" not in text
    error = stalled.structured_content["error"]
    assert stalled.is_error and error["code"] == "timeout", error
    assert "--timeout" not in error["message"] + error.get("hint", "")
    assert took < 2 + 5, took  # the tool's timeout, not the worker's default 60 s nor the host's hang limit


def test_schema_ranges_are_the_clis():
    """A value at a schema bound parses on the CLI; one past a bound the CLI also has fails there too."""
    for tool, command in tools.COMMANDS.items():
        positional = "q" if command == "search" else "https://example.org/"
        for param in tools.PARAMS[tool]:
            if param.flag in (None, tools.MAP):  # the positional; web_fetch's map, the map command
                continue
            schema = tools.param_schema(tool, param)
            _dest, kw = tools._declaration(command, param.flag)
            if schema.get("type") == "integer":
                lo, hi = kw["type"].bounds
                for value in (schema.get("minimum"), schema.get("maximum")):
                    if value is not None:
                        cli.parse_args([command, "%s=%d" % (param.flag, value), "--", positional])
                for cli_bound, past in ((lo, -1), (hi, 1)):
                    if cli_bound is not None:
                        with pytest.raises(UsageError):
                            cli.parse_args([command, "%s=%d" % (param.flag, cli_bound + past), "--", positional])
            for value in schema.get("enum", []):
                cli.parse_args([command, "%s=%s" % (param.flag, value), "--", positional])


def test_argv_keeps_dash_values_and_bounds_size():
    argv = tools.argv(
        "web_search",
        {"query": "-v flag", "exclude_domains": ["-evil.example"], "highlights": True, "summary": False, "limit": 3},
    )
    assert argv[-2:] == ["--", "-v flag"] and "--exclude-domain=-evil.example" in argv and "--summary" not in argv
    args = cli.parse_args(argv)
    assert args.query == "-v flag" and args.exclude_domain == ["-evil.example"] and args.limit == 3
    with pytest.raises(tools.ArgumentError, match="KiB"):
        tools.argv("web_fetch", {"urls": ["https://example.org/" + "a" * 4000] * 20})
    assert tools.fold_arguments("web_fetch", {"url": "https://a.example/"}) == {"urls": ["https://a.example/"]}
    assert cli.parse_args(tools.argv("web_search", {"query": "rust", "news": True})).news is True


# -- calls -----------------------------------------------------------------


def test_fetch_of_a_local_page(tmp_path, web):
    async def body(session):
        return await session.call_tool("web_fetch", {"urls": [web.url + "/page/7"], "max_chars": 500})

    result, _ = run_session(tmp_path, body, "--allow-private")
    assert not result.is_error
    payload = result.structured_content
    assert payload["ok"] and payload["tool"] == "fetch" and payload["provider"] == "local"
    assert "page number 7" in payload["results"][0]["content"]
    assert result.content[0].text == payload["text"] and "page number 7" in payload["text"]
    assert temp_dirs(tmp_path) == []


def test_fetch_renders_a_script_built_page(tmp_path):
    from fakes.app_server import ARTICLE, AppServer

    from worker.pages.render import browser

    if browser.find() is None and os.environ.get("CI") != "true":
        pytest.skip("no Chrome/Chromium installed (apt-get install chromium); CI installs it and runs this")
    app = AppServer().start()

    async def body(session):
        return await session.call_tool("web_fetch", {"urls": [app.url("/app/shell")], "render": "auto"})

    try:
        result, _ = run_session(tmp_path, body, "--allow-private")
    finally:
        app.stop()
    assert not result.is_error, result.content
    [item] = result.structured_content["results"]
    assert item["rendered"] is True and ARTICLE[:60] in item["content"]
    assert app.hits["/api/article"] == 1
    assert temp_dirs(tmp_path) == []


def test_search_against_a_fake_provider(tmp_path, config):
    async def body(session):
        return await session.call_tool("web_search", {"query": "-dash leading mcp query", "limit": 2})

    result, _ = run_session(tmp_path, body, "--config", config)
    assert not result.is_error
    payload = result.structured_content
    assert payload["provider"] == "echo" and payload["meta"]["flavour"] == "mcp"
    assert payload["results"][0]["snippet"] == "-dash leading mcp query"
    assert "-dash leading mcp query" in result.content[0].text


def test_error_results_carry_code_message_and_hint(tmp_path, web):
    async def body(session):
        blocked = await session.call_tool("web_fetch", {"urls": [web.url + "/page/1"]})
        bad = await session.call_tool("web_search", {"query": "x", "limit": 0})
        unknown = await session.call_tool("web_fetch", {"urls": ["https://example.org/"], "colour": "red"})
        return blocked, bad, unknown

    (blocked, bad, unknown), _ = run_session(tmp_path, body)  # no --allow-private: loopback is refused
    assert blocked.is_error
    error = blocked.structured_content["error"]
    assert error["code"] == "blocked_address" and error["message"] and error["hint"]
    assert blocked.content[0].text.startswith("web_fetch failed (blocked_address): ")
    assert "hint: " + error["hint"] in blocked.content[0].text
    assert not web.stalled.is_set()
    assert bad.is_error and bad.structured_content["error"]["code"] == "usage"
    assert "limit" in bad.structured_content["error"]["message"]
    assert unknown.is_error and "colour" in unknown.structured_content["error"]["message"]


def test_cancelling_a_slow_call_stops_its_worker(tmp_path, web):
    seen = {}

    async def body(session):
        async with anyio.create_task_group() as tg:

            async def slow():
                await session.call_tool("web_fetch", {"urls": [web.url + "/stall"]})
                seen["finished"] = True  # never: the call is cancelled

            tg.start_soon(slow)
            await anyio.to_thread.run_sync(web.stalled.wait, 30)
            dirs = temp_dirs(tmp_path)
            seen["pid"] = int(dirs[0].split("-")[1])
            seen["alive_before"] = alive(seen["pid"])
            tg.cancel_scope.cancel()  # the SDK client sends notifications/cancelled
        await anyio.to_thread.run_sync(lambda: wait_for(lambda: not alive(seen["pid"]) and not temp_dirs(tmp_path)))
        seen["after"] = await session.call_tool("web_fetch", {"urls": [web.url + "/page/2"]})
        return seen

    started = time.monotonic()
    seen, stderr = run_session(tmp_path, body, "--allow-private")
    assert seen["alive_before"] and "finished" not in seen
    assert not alive(seen["pid"]) and temp_dirs(tmp_path) == []
    assert "web_fetch cancelled: worker %d exited with 130" % seen["pid"] in stderr
    assert time.monotonic() - started < 30  # far below the worker's own 60 s timeout
    assert not seen["after"].is_error  # the server goes on serving


def test_many_calls_at_once(tmp_path, web, config):
    n = 12
    results = {}

    async def body(session):
        async def one(i):
            if i % 3 == 0:
                results[i] = await session.call_tool("web_search", {"query": "query number %d" % i})
            else:
                results[i] = await session.call_tool("web_fetch", {"urls": [web.url + "/page/%d" % i]})

        async with anyio.create_task_group() as tg:
            for i in range(n):
                tg.start_soon(one, i)

    run_session(tmp_path, body, "--allow-private", "--config", config)
    assert sorted(results) == list(range(n))
    for i, result in results.items():
        assert not result.is_error, result
        if i % 3 == 0:
            assert result.structured_content["results"][0]["snippet"] == "query number %d" % i
        else:
            assert "page number %d," % i in result.structured_content["results"][0]["content"]
    assert temp_dirs(tmp_path) == []


def test_progress_while_a_batch_runs(tmp_path, web):
    updates = []

    async def progress(value, total, message):
        updates.append((value, message))

    async def body(session):
        return await session.call_tool(
            "web_fetch", {"urls": [web.url + "/slow/1", web.url + "/slow/2"]}, progress_callback=progress
        )

    result, _ = run_session(tmp_path, body, "--allow-private", extra={"WEBSEARCH_MCP_PROGRESS_INTERVAL": "0.2"})
    assert not result.is_error and len(result.structured_content["results"]) == 2
    assert len(updates) >= 2, updates
    values = [v for v, _m in updates]
    assert values == sorted(values) and len(set(values)) == len(values)
    assert all(m.startswith("web_fetch: reading 2 pages") for _v, m in updates)


def test_progress_while_the_first_run_install_runs(tmp_path, config):
    """--venv names a venv that is not there: the call goes through bootstrap/run.py, which installs;
    the client hears of it at once.  No index is reachable here, so the install fails fast and the
    result is bootstrap_failed."""
    updates = []
    venv = tmp_path / "fresh-venv"
    uv_dir = os.path.dirname(PY)  # uv is in requirements-dev.txt: a second per venv instead of pip's 20

    async def progress(value, total, message):
        updates.append(message)

    async def body(session):
        return await session.call_tool("web_search", {"query": "anything"}, progress_callback=progress)

    extra = {
        "PATH": uv_dir + os.pathsep + os.environ.get("PATH", ""),
        "UV_NO_CONFIG": "1",
        "UV_NO_INDEX": "1",
        "UV_OFFLINE": "1",
        "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
        "PIP_NO_INDEX": "1",
        "PIP_CONFIG_FILE": os.devnull,
        "WEBSEARCH_WORKER_INSTALL_ATTEMPTS": "1",
    }
    result, _ = run_session(tmp_path, body, "--venv", str(venv), "--config", config, extra=extra)
    assert updates and updates[0].startswith("installing the worker's dependencies into %s (not installed)" % venv)
    assert result.is_error and result.structured_content["error"]["code"] == "bootstrap_failed"


# -- the process -----------------------------------------------------------


def start_raw(tmp_path, *flags, extra=None):
    return subprocess.Popen(
        [PY, "-I", "-m", "hosts.mcp"] + list(flags),
        cwd=ROOT,
        env=worker_env(tmp_path, extra),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def send(proc, message):
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def receive(proc, want_id=None):
    """The next message (with ``want_id``: the response to that request), skipping notifications."""
    while True:
        line = proc.stdout.readline()
        assert line, "server closed stdout: %s" % proc.stderr.read().decode(errors="replace")[-2000:]
        message = json.loads(line)
        if isinstance(message.get("result"), dict) and "content" in message["result"]:
            check_host_terms(message["result"])
        if want_id is None or message.get("id") == want_id:
            return message


def raw_initialize(proc):
    send(
        proc,
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw-test", "version": "1"},
            },
        },
    )
    init = receive(proc, 0)
    send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    return init


def test_raw_newline_delimited_json_rpc(tmp_path, web):
    proc = start_raw(tmp_path, "--allow-private", extra={"WEBSEARCH_MCP_PROGRESS_INTERVAL": "0.2"})
    try:
        init = raw_initialize(proc)
        assert init["result"]["serverInfo"]["name"] == "websearch-worker"
        assert "tools" in init["result"]["capabilities"]
        send(proc, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert sorted(t["name"] for t in receive(proc, 1)["result"]["tools"]) == ["web_fetch", "web_search"]
        send(
            proc,
            {
                "jsonrpc": "2.0",
                "id": "two",
                "method": "tools/call",
                "params": {
                    "name": "web_fetch",
                    "arguments": {"url": web.url + "/slow/5"},
                    "_meta": {"progressToken": "tok"},
                },
            },
        )
        seen = []
        while True:
            message = receive(proc)
            seen.append(message)
            if message.get("id") == "two":
                break
        progress = [m["params"] for m in seen if m.get("method") == "notifications/progress"]
        assert progress and all(p["progressToken"] == "tok" for p in progress)
        result = seen[-1]["result"]
        assert result["isError"] is False and "page number 5" in result["content"][0]["text"]
        assert result["structuredContent"]["results"][0]["url"] == web.url + "/slow/5"
        send(
            proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "web_crawl", "arguments": {}}}
        )
        assert "web_crawl" in receive(proc, 3)["error"]["message"]
        proc.stdin.close()
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("how", ["close stdin", "SIGTERM"])
def test_ending_the_server_stops_every_call_in_flight(tmp_path, web, how):
    proc = start_raw(tmp_path, "--allow-private")
    try:
        raw_initialize(proc)
        for i in range(2):
            send(
                proc,
                {
                    "jsonrpc": "2.0",
                    "id": 10 + i,
                    "method": "tools/call",
                    "params": {"name": "web_fetch", "arguments": {"urls": [web.url + "/stall"]}},
                },
            )
        assert wait_for(lambda: len(temp_dirs(tmp_path)) == 2), temp_dirs(tmp_path)
        pids = [int(d.split("-")[1]) for d in temp_dirs(tmp_path)]
        assert all(alive(p) for p in pids)
        if how == "close stdin":
            proc.stdin.close()
        else:
            proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == (0 if how == "close stdin" else 130)
        assert wait_for(lambda: not any(alive(p) for p in pids), 5)
        assert temp_dirs(tmp_path) == []
        assert b"Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_lines_that_are_not_json_rpc_get_an_error_and_serving_goes_on(tmp_path):
    proc = start_raw(tmp_path)
    try:
        raw_initialize(proc)
        proc.stdin.write(b'this is not json\n\n[1, 2\n{"hello": 1}\n')
        send(proc, {"jsonrpc": "2.0", "id": 5, "method": "tools/list"})
        answers = [json.loads(proc.stdout.readline()) for _ in range(4)]
        assert [a.get("error", {}).get("code") for a in answers[:3]] == [-32700, -32700, -32600]
        assert all(a["id"] is None and a["jsonrpc"] == "2.0" for a in answers[:3])  # the blank line is no request
        assert answers[3]["id"] == 5 and len(answers[3]["result"]["tools"]) == 2
        proc.stdin.close()
        assert proc.wait(10) == 0
        assert b"Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_bad_server_flags_are_one_line_not_a_traceback(tmp_path):
    for flags, needle in (
        (["--colour"], "unrecognized arguments: --colour"),
        (["--config", str(tmp_path / "nope.json")], "no such file"),
        (["--venv"], "expected one argument"),
        (["--venv", " "], "--venv needs a value"),
    ):
        proc = subprocess.run(
            [PY, "-I", "-m", "hosts.mcp"] + flags,
            cwd=ROOT,
            env=worker_env(tmp_path),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=30,
        )
        assert proc.returncode == 2 and proc.stdout == b""
        assert needle in proc.stderr.decode() and b"Traceback" not in proc.stderr
    shown = subprocess.run(
        [PY, "-I", "-m", "hosts.mcp", "--help"], cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, timeout=30
    )
    assert shown.returncode == 0 and shown.stdout == b""  # stdout is the JSON-RPC channel
    assert b"--allow-private" in shown.stderr and b"--venv DIR" in shown.stderr


def test_search_and_fetch_never_import_the_sdk(tmp_path, web):
    """Start-up of ordinary calls is unchanged: neither the SDK nor the host is imported."""
    env = worker_env(tmp_path)
    for args in (["--version"], ["fetch", "--allow-private", web.url + "/page/3"]):
        proc = subprocess.run(
            [PY, "-X", "importtime", "-I", "-m", "worker"] + args,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        modules = {line.split("|")[-1].strip() for line in proc.stderr.decode().splitlines() if "|" in line}
        assert "worker.main" in modules or args == ["--version"]
        leaked = {
            m
            for m in modules
            if m.split(".")[0] in ("mcp", "mcp_types", "anyio", "hosts", "pydantic") or m == "worker.tool_schemas"
        }
        assert not leaked, leaked


def test_bootstrap_takes_the_servers_venv_flag(tmp_path):
    """`bootstrap/run.py mcp --venv DIR` runs the server from DIR (one venv), not from the default venv."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("boot", os.path.join(ROOT, "bootstrap", "run.py"))
    boot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(boot)
    assert boot.mcp_venv_first(["mcp", "--allow-private", "--venv", "/v", "--config", "c"]) == [
        "--venv",
        "/v",
        "mcp",
        "--allow-private",
        "--config",
        "c",
    ]
    assert boot.mcp_venv_first(["mcp", "--venv=/v"]) == ["--venv=/v", "mcp"]
    assert boot.mcp_venv_first(["mcp", "--config", "c"]) == ["mcp", "--config", "c"]
    # End to end, without an install: a --venv naming a file is refused by the bootstrap, by that name.
    flag_file, env_file = tmp_path / "flag-venv", tmp_path / "env-venv"
    flag_file.write_text("")
    env_file.write_text("")
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, "bootstrap", "run.py"), "mcp", "--venv", str(flag_file)],
        env=dict(worker_env(tmp_path), WEBSEARCH_WORKER_VENV=str(env_file)),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
    )
    # stdout is the JSON-RPC channel: the bootstrap's own error goes to stderr (issue 28)
    assert proc.returncode == 2 and proc.stdout == b""
    assert str(flag_file) in proc.stderr.decode() and str(env_file) not in proc.stderr.decode()


# -- first run through bootstrap/run.py (hosts/mcp/firstrun.py) ---------------------------------


def first_run_repo(tmp_path, broken=False):
    """A checkout whose requirements are one wheel built here: a .pth putting the dev venv's
    site-packages (the MCP SDK) on the new venv's path.  The install is real and offline; after
    it the real server runs from the new venv.  ``broken``: the lock's hash matches no file."""
    import shutil
    import sysconfig

    from test_bootstrap import build_wheel, bundled_pip, lock_text, write

    repo = tmp_path / "repo"
    for part in ("bootstrap", "worker", "hosts/mcp"):
        shutil.copytree(os.path.join(ROOT, part), repo / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(os.path.join(ROOT, "hosts", "__init__.py"), repo / "hosts" / "__init__.py")
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    build_wheel(wheels, "wsw_devsite", "1.0", extra={"wsw_devsite.pth": sysconfig.get_paths()["purelib"] + "\n"})
    if bundled_pip():  # the pip path upgrades pip first, from this directory too
        shutil.copy(bundled_pip(), str(wheels))
    requirements = "wsw_devsite==1.0\n"
    write(str(repo / "requirements.txt"), requirements)
    lock = lock_text(wheels, requirements)
    if broken:
        lock = re.sub(r"sha256:[0-9a-f]{64}", "sha256:" + "0" * 64, lock)
    write(str(repo / "requirements.lock"), lock)
    return repo, wheels


def start_first_run(tmp_path, repo, wheels, *flags, uv=True):
    """`bootstrap/run.py mcp --venv <new>`: installs from ``wheels`` only (pip, or uv when there is one)."""
    from test_bootstrap import UV, boot_env

    env = boot_env(tmp_path, wheels, uv=uv and UV is not None)
    worker = worker_env(tmp_path)
    env.update({k: worker[k] for k in ("WEBSEARCH_WORKER_TMPDIR", "WEBSEARCH_CONFIG", "HOME", "XDG_CACHE_HOME")})
    env.update({"WEBSEARCH_MCP_PROGRESS_INTERVAL": "0.2", "WEBSEARCH_WORKER_INSTALL_ATTEMPTS": "1"})
    return subprocess.Popen(
        [sys.executable, str(repo / "bootstrap" / "run.py"), "mcp", "--venv", str(tmp_path / "venv")] + list(flags),
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def call_and_collect(proc, rid, name, arguments):
    """Send a tools/call with a progressToken; (progress values, the result) once it is answered."""
    send(
        proc,
        {
            "jsonrpc": "2.0",
            "id": rid,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": {"progressToken": "tok-%s" % rid}},
        },
    )
    progress = []
    while True:
        message = receive(proc)  # every stdout line must be JSON: receive parses each
        if message.get("method") == "notifications/progress":
            progress.append(message["params"]["progress"])
        elif message.get("id") == rid:
            return progress, message["result"]


def test_first_run_answers_at_once_installs_meanwhile_then_serves_the_call(tmp_path, web):
    repo, wheels = first_run_repo(tmp_path)
    started = time.monotonic()
    proc = start_first_run(tmp_path, repo, wheels, "--allow-private", uv=False)  # pip: seconds of install
    try:
        init = raw_initialize(proc)
        send(proc, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        early_tools = receive(proc, 1)["result"]["tools"]
        answered = time.monotonic() - started
        assert init["result"]["serverInfo"]["name"] == "websearch-worker"
        assert answered < 3, answered  # issue 28: 2 s on an idle machine; this one is shared
        assert not os.path.exists(tmp_path / "venv" / "websearch-worker-ready.json")  # answered before the install
        progress, result = call_and_collect(proc, 2, "web_fetch", {"urls": [web.url + "/page/4"]})
        assert result["isError"] is False, result
        assert "page number 4" in result["content"][0]["text"]
        assert progress and progress == sorted(progress) and len(set(progress)) == len(progress), progress
        send(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
        assert receive(proc, 3)["result"]["tools"] == early_tools  # the real server's list is the same
        proc.stdin.close()
        assert proc.wait(20) == 0
        stderr = proc.stderr.read().decode(errors="replace")
        assert "Traceback" not in stderr and "serving from its venv" in stderr
        assert proc.stdout.read() == b""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    ready = subprocess.run(
        [sys.executable, str(repo / "bootstrap" / "run.py"), "--venv", str(tmp_path / "venv"), "--check"],
        capture_output=True,
        timeout=60,
    )
    assert ready.returncode == 0, ready.stdout


def test_a_failed_first_run_install_is_a_tool_error_and_stdout_stays_json_rpc(tmp_path, web):
    repo, wheels = first_run_repo(tmp_path, broken=True)
    proc = start_first_run(tmp_path, repo, wheels, "--allow-private")
    try:
        raw_initialize(proc)
        _progress, result = call_and_collect(proc, 2, "web_fetch", {"urls": [web.url + "/page/4"]})
        assert result["isError"] is True
        error = result["structuredContent"]["error"]
        assert error["code"] == "bootstrap_failed" and "could not install" in error["message"], error
        assert "hash" in (error.get("detail") or "").lower(), error  # the installer's own words say why
        send(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
        assert len(receive(proc, 3)["result"]["tools"]) == 2  # still serving
        send(proc, {"jsonrpc": "2.0", "id": 4, "method": "ping"})
        assert receive(proc, 4)["result"] == {}
        proc.stdin.close()
        assert proc.wait(20) == 0
        assert proc.stdout.read() == b""
        assert b"Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_first_run_call_out_of_time_says_the_install_is_still_running_and_a_later_call_gets_its_answer(tmp_path, web):
    repo, wheels = first_run_repo(tmp_path)
    proc = start_first_run(tmp_path, repo, wheels, "--allow-private", uv=False)  # pip: seconds of install
    try:
        raw_initialize(proc)
        started = time.monotonic()
        # timeout 6: less than 5 s of it would be left for the work after a second of waiting
        _progress, early = call_and_collect(proc, 2, "web_fetch", {"urls": [web.url + "/page/5"], "timeout": 6})
        assert time.monotonic() - started < 6
        assert early["isError"] is True
        error = early["structuredContent"]["error"]
        assert error["code"] == "timeout" and "still running" in error["message"] and error["retryable"] is True
        _progress, later = call_and_collect(proc, 3, "web_fetch", {"urls": [web.url + "/page/5"]})
        assert later["isError"] is False and "page number 5" in later["content"][0]["text"]
        proc.stdin.close()
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
