"""Work stays bounded by the page and by the call: expensive markup, huge pages and
batches that meet --timeout, through real worker processes and a real server."""

import subprocess
import sys

import pytest
from conftest import ROOT, run_worker
from fakes.http_server import FakeWeb

pytestmark = pytest.mark.slow  # multi-megabyte pages and whole deadlines

PRIV = "--allow-private"


@pytest.fixture(scope="module")
def web():
    w = FakeWeb().start(hosts=8)
    yield w
    w.stop()


@pytest.mark.parametrize("kind", ["headings", "attrs", "links", "paras", "docs"])
def test_expensive_markup_is_read_within_the_budget(web, env, kind):
    r = run_worker(
        ["fetch", web.url("/heavy?kind=%s&mb=4.5" % kind), PRIV, "--no-cache", "--timeout", "60"], env, timeout=90
    )
    assert r.returncode == 0, r
    item = r.payload["results"][0]
    assert item["ok"], item
    assert item["total_chars"] > 0
    if kind != "attrs":  # the attribute flood is cut before parsing; the rest of that page is small
        assert item["extractor"] == "budget" and item["page_type"] == "unknown"
        assert any("too large to analyse" in w for w in item["warnings"])
    if kind == "docs":  # a manual on one page keeps its shape (extract/budget_text.py)
        content = item["content"]
        assert "\n## Section 7\n" in content and "| a | b |\n|---|---|\n| 1 | 2 |" in content
        assert "```\ndef f(x):\n    return x\n\nprint(f(1))\n```" in content


# Starts the worker in a process of its own and reports its peak RSS. Linux records the peak
# of the memory a process execs from: a worker started straight from this test process (vfork
# and exec) reports pytest's own peak, over 500 MB late in a full suite, whatever it used.
MEASURED = (
    "import os, sys\n"
    "pid = os.fork()\n"
    "if pid == 0:\n"
    "    os.execv(sys.argv[1], sys.argv[1:])\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "sys.stderr.write('\\npeak_kb %d\\n' % usage.ru_maxrss)\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)


def test_eight_5mb_link_pages_in_one_batch_stay_under_500_mb(web, env):
    urls = [web.url("/heavy?kind=links&mb=4.9&n=%d" % i, host=i) for i in range(8)]
    proc = subprocess.run(
        [sys.executable, "-c", MEASURED, sys.executable, "-I", "-m", "worker", "fetch"] + urls + [PRIV, "--no-cache"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    from worker import protocol

    payload = protocol.parse(proc.stdout.decode("ascii"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert payload["ok"] and all(it["ok"] for it in payload["results"])
    peak_mb = int(proc.stderr.decode().rsplit("peak_kb ", 1)[1]) / 1024.0
    assert 30 < peak_mb < 500, "peak RSS %.0f MB" % peak_mb  # above 30: the worker's own, measured


def test_a_batch_at_its_timeout_keeps_finished_items(web, env):
    fast = [web.url("/article", host=i) for i in range(3)]
    slow = web.url("/hang?s=20", host=5)
    r = run_worker(["fetch"] + fast + [slow, PRIV, "--no-cache", "--timeout", "3"], env, timeout=30)
    assert r.returncode == 0, r
    assert r.payload["ok"]
    items = r.payload["results"]
    assert [it["ok"] for it in items] == [True, True, True, False]
    assert items[3]["error"]["code"] == "timeout"
    assert "Glaciers" in items[0]["content"]
