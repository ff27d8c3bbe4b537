#!/usr/bin/env python3
"""Context a model spends on the MCP tool list: the size of the server's tools/list answer.

Usage (from the repo root, with the dev venv or a ready worker venv):

    .venv-dev/bin/python bench/mcp/tools_list.py

Starts the real server (`python -I -m hosts.mcp`) three times and prints the length in
characters of its tools/list response line, as a client receives it:

    default   no config file, no API keys (ddgs and the local fetcher): under 3,400 (issue 43's bound;
              issue 28's was 3,000 before queries, sources and find)
    keys      EXA_API_KEY and BRAVE_API_KEY set: every provider's options appear
    baseline  the same tools with every parameter and the full output schemas, built here from
              worker/tool_schemas.py the way the server listed them before (the 7,722 of issue 28)

and each one's ratio to the baseline.
"""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)


def served(extra):
    env = {k: v for k, v in os.environ.items() if k not in ("EXA_API_KEY", "BRAVE_API_KEY")}
    env.update(extra)
    env["WEBSEARCH_CONFIG"] = os.path.join(tempfile.gettempdir(), "websearch-bench-no-config.json")
    proc = subprocess.Popen(
        [sys.executable, "-I", "-m", "hosts.mcp"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}
    for message in (
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    ):
        proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()
    line = b""
    while b'"id":1' not in line:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit("the server closed stdout")
    proc.stdin.close()
    proc.wait(20)
    return len(line.rstrip(b"\n").decode("utf-8"))


def baseline():
    """The list as the server built it before issue 28: every parameter, the full output schema."""
    from worker import tool_schemas

    tools = [
        {
            "name": name,
            "title": {"web_search": "Web search", "web_fetch": "Web fetch"}[name],
            "description": tool_schemas.DESCRIPTIONS[name],
            "inputSchema": tool_schemas.input_schema(name),
            "outputSchema": tool_schemas.output_schema(name),
            "annotations": {"readOnlyHint": True, "openWorldHint": True},
        }
        for name in tool_schemas.PARAMS
    ]
    body = {"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}
    return len(json.dumps(body, separators=(",", ":"), ensure_ascii=False))


def main():
    base = baseline()
    rows = [
        ("default", served({})),
        ("keys", served({"EXA_API_KEY": "bench-not-a-key", "BRAVE_API_KEY": "bench-not-a-key"})),
        ("baseline", base),
    ]
    for name, size in rows:
        print("%-9s %6d characters  %.2f x baseline" % (name, size, size / base))


if __name__ == "__main__":
    main()
