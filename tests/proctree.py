"""Run a command and measure its whole process tree: wall time and peak resident memory.

The worker reads pages in a child process, so the peak that matters is the sum over
the tree at one moment, not one process's ``ru_maxrss``: the tree is sampled from
/proc every few milliseconds (Linux).

    r = run_tree([python, "-I", "-m", "worker", "fetch", url], env=env, cwd=ROOT)
    r.seconds, r.peak_mb, r.cpu, r.stdout, r.returncode
"""

import os
import resource
import subprocess
import threading
import time

PAGE = os.sysconf("SC_PAGE_SIZE")


class TreeRun:
    def __init__(self, returncode, stdout, stderr, seconds, peak_mb, cpu):
        self.cpu = cpu  # user + system seconds of the tree (children reaped by their parents included)
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.seconds = seconds
        self.peak_mb = peak_mb


def parents():
    """{pid: parent pid} of every process now."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                stat = f.read()
        except OSError:
            continue
        out[int(name)] = int(stat[stat.rindex(b")") + 2 :].split()[1])
    return out


def tree_mb(root):
    """Resident MB of ``root`` and all its descendants now."""
    ppids = parents()
    tree, todo = set(), [root]
    while todo:
        pid = todo.pop()
        tree.add(pid)
        todo.extend(p for p, pp in ppids.items() if pp == pid and p not in tree)
    total = 0
    for pid in tree:
        try:
            with open("/proc/%d/statm" % pid, "rb") as f:
                total += int(f.read().split()[1]) * PAGE
        except (OSError, ValueError, IndexError):
            pass
    return total / 1048576.0


def run_tree(argv, env=None, cwd=None, timeout=120, every=0.01):
    """Run ``argv`` to its end; a TreeRun (stdout as ASCII text). ``cpu`` counts every child this
    process reaps meanwhile: run one tree at a time."""
    start = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    peak = [0.0]
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            peak[0] = max(peak[0], tree_mb(proc.pid))
            stop.wait(every)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        seconds = time.monotonic() - start
        stop.set()
        sampler.join()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return TreeRun(
        proc.returncode, out.decode("ascii", "replace"), err.decode("utf-8", "replace"), seconds, peak[0], cpu
    )


def reader_of(pid, within=10.0):
    """The pid of ``pid``'s page-reading child, once it runs."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        for child in [p for p, pp in parents().items() if pp == pid]:
            try:
                with open("/proc/%d/cmdline" % child, "rb") as f:
                    if b"worker.pages.child.main" in f.read():
                        return child
            except OSError:
                continue
        time.sleep(0.05)
    raise AssertionError("no reading child under %d" % pid)


def gone(pid, within=3.0):
    """Whether ``pid`` has ended (or is a zombie, ended and not yet reaped) within ``within`` seconds."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            with open("/proc/%d/stat" % pid, "rb") as f:
                if f.read().split(b") ")[1][:1] == b"Z":
                    return True
        except OSError:
            return True
        time.sleep(0.05)
    return False
