# `python -m hosts.mcp`: the MCP server. Signal handlers come first (worker/early.py). The
# server runs each call as a worker subprocess; it is no worker call itself.
from __future__ import annotations

import sys  # noqa: E402

from worker.early import received as _early

from .server import main  # noqa: E402

sys.exit(main(sys.argv[1:], early=_early))
