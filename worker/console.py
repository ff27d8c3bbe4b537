"""The `websearch-worker` command of the installed package (pipx, uvx): `websearch-worker search|fetch|mcp ...`.

The same entries as `python -m worker` (worker/__main__.py, signal handlers first) and, for
`mcp`, `python -m hosts.mcp`; the package's own environment already holds the dependencies,
so no bootstrap runs.
"""

from __future__ import annotations

import os
import runpy
import sys


def main() -> None:
    os.environ.setdefault("WEBSEARCH_WORKER_PROG", "websearch-worker")
    if sys.argv[1:2] == ["mcp"]:
        del sys.argv[1]
        runpy.run_module("hosts.mcp", run_name="__main__", alter_sys=True)
    else:
        runpy.run_module("worker", run_name="__main__", alter_sys=True)
