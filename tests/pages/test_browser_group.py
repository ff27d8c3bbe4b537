"""A browser's end is the end of every process of its group, not of its first one only (issue 44):
the worker's call, and so a host that counts workers (the MCP server), outlives none of them."""

import time

from worker.pages.render import browser
from worker.procgroup import group_alive


def test_kill_returns_once_the_whole_group_is_gone(tmp_path):
    # a stand-in browser whose child process stays after it (as Chromium's renderers and zygotes do)
    script = tmp_path / "chrome"
    script.write_text("#!/bin/sh\nsleep 30 &\nexec sleep 30\n")
    script.chmod(0o755)
    b = browser.Browser(str(script), str(tmp_path / "profile"), "127.0.0.1:9", sandbox=False)
    deadline = time.monotonic() + 5
    while len(_members(b.pid)) < 2 and time.monotonic() < deadline:  # the child is there
        time.sleep(0.01)
    assert len(_members(b.pid)) == 2
    b.kill()
    assert not group_alive(b.pid) and _members(b.pid) == []
    assert not (tmp_path / "profile").exists()


def test_a_zombie_is_no_live_member():
    import os
    import subprocess

    leader = subprocess.Popen(["sleep", "0"], start_new_session=True)
    deadline = time.monotonic() + 5
    while _members(leader.pid) and time.monotonic() < deadline:  # exited: a zombie until reaped
        time.sleep(0.01)
    assert not group_alive(leader.pid)  # though killpg still finds the unreaped zombie
    os.killpg(leader.pid, 0)
    leader.wait()


def _members(pgid):
    """The live processes of group ``pgid``, from /proc."""
    import os

    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name, "rb") as f:
                    state, _ppid, pgrp = f.read().rsplit(b")", 1)[1].split()[:3]
            except (OSError, ValueError):
                continue
            if int(pgrp) == pgid and state not in (b"Z", b"X"):
                out.append(int(name))
    return out
