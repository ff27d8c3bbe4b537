# Signal handlers come first, before any import that takes time: a SIGTERM that
# arrives while the worker loads is recorded here and answered with a
# ``cancelled`` block once the call is set up (worker.runtime), never a silent
# death by signal.  ``_signal`` is the C module: no enum import on this path.
from __future__ import annotations

import _signal

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from types import FrameType

_early: list[int] = []


def _record(signum: int, frame: FrameType | None) -> None:
    _early.append(signum)


for _sig in (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP):
    _signal.signal(_sig, _record)

import os  # noqa: E402
import sys  # noqa: E402

if sys.argv[1:2] == ["mcp"]:
    # The MCP host (hosts/mcp) runs each call as a worker subprocess; it is no worker
    # call itself, so it starts before the worker's runtime, which claims stdout.
    from hosts.mcp.server import main as mcp_main

    sys.exit(mcp_main(sys.argv[2:], early=_early))

from .main import main  # noqa: E402

# bootstrap/run.py says how it was called, so --help shows the command the user typed.
main(prog=os.environ.get("WEBSEARCH_WORKER_PROG") or "python -m worker", early=_early)
