"""Whether a process group still runs: for the MCP host, which counts a worker until its group
is gone (worker.host_client), and for a browser's end (worker.pages.render.browser).  Standard
library only: hosts import it without the worker's venv."""

from __future__ import annotations

import os


def group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` is still running.  A zombie is not: only its parent can
    reap it, and a container whose first process reaps nothing keeps orphans' zombies for good."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # a member is there, whether or not this process may signal it
    try:
        names = os.listdir("/proc")
    except OSError:
        return True  # no /proc (macOS): the signal's answer stands
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                state, _ppid, pgrp = f.read().rsplit(b")", 1)[1].split()[:3]
        except (OSError, ValueError):
            continue
        if int(pgrp) == pgid and state not in (b"Z", b"X"):
            return True
    return False
