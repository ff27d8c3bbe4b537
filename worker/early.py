"""Signal handlers installed before any import that takes time: a SIGTERM that arrives
while a process loads is recorded here and answered once the call is set up (a worker's
``cancelled`` block, worker.runtime; the MCP server's clean stop), never a silent death by
signal. Imported first by each entry (worker/__main__.py, hosts/mcp/__main__.py).
"""

from __future__ import annotations

import signal as _signal

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from types import FrameType

received: list[int] = []


def _record(signum: int, frame: FrameType | None) -> None:
    received.append(signum)


for _sig in (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP):
    _signal.signal(_sig, _record)
