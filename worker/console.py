"""The `websearch-worker` command of the installed package (pipx, uvx): `websearch-worker search|fetch|mcp ...`.

The same entry as `python -m worker` (worker/__main__.py, signal handlers first); the
package's own environment already holds the dependencies, so no bootstrap runs.
"""

from __future__ import annotations

import os
import runpy


def main() -> None:
    os.environ.setdefault("WEBSEARCH_WORKER_PROG", "websearch-worker")
    runpy.run_module("worker", run_name="__main__", alter_sys=True)
