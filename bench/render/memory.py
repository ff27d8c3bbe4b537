"""Peak memory of a process and everything it started: PSS (shared pages split between sharers), sampled."""

import os
import threading
import time


def tree_pss_kb(root):
    """PSS in KiB of ``root`` and all its descendants, from /proc."""
    children = {}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open("/proc/%s/stat" % pid) as f:
                    children.setdefault(int(f.read().rsplit(")", 1)[1].split()[1]), []).append(int(pid))
            except (OSError, IndexError, ValueError):
                pass
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        try:
            with open("/proc/%d/smaps_rollup" % pid) as f:
                total += sum(int(line.split()[1]) for line in f if line.startswith("Pss:"))
        except OSError:
            pass
    return total


class Peak:
    """``with Peak(pid) as p: ...`` then ``p.mb``: the most the tree held while the block ran."""

    def __init__(self, pid, every=0.02):
        self.pid = pid
        self.every = every
        self.kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.kb = max(self.kb, tree_pss_kb(self.pid))
            time.sleep(self.every)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        return False

    @property
    def mb(self):
        return self.kb / 1024
