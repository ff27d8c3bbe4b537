#!/usr/bin/env python3
"""Which driver for the browser: Playwright for Python, or the worker's own CDP client over a pipe.

Usage (from the repo root; Chromium installed; Playwright only for this comparison,
never a dependency: pip install playwright into the Python running this, no browser
download: it launches the same system Chromium through executable_path):

    python bench/render/drivers.py [--runs N] [--browser PATH]

Per driver, rounds interleaved so machine load hits both alike, medians of:

    import_ms   importing the driver (playwright.sync_api / worker.pages.render.browser+cdp)
    start_ms    from nothing to a browser that answers (Playwright: its Node driver, then the browser)
    page_ms     one local page loaded in a fresh context and its DOM read
    peak_mb     the most memory (PSS: shared pages counted once) of every process the driver started, sampled

and the ratio pipe / playwright of each.  The page is served on 127.0.0.1 by this script.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from memory import Peak  # noqa: E402

PAGE = (
    b'<html><body><div id="root"></div><script>fetch("/data").then(r=>r.json()).then(d=>{'
    b'document.getElementById("root").textContent=d.text})</script></body></html>'
)

CHILD = r"""
import json, os, sys, time
t0 = time.monotonic()
driver, url, browser, profile = sys.argv[1:5]
if driver == "playwright":
    from playwright.sync_api import sync_playwright
    t1 = time.monotonic()
    pw = sync_playwright().start()
    b = pw.chromium.launch(executable_path=browser, args=["--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"], chromium_sandbox=False)
    t2 = time.monotonic()
    print("READY", flush=True); sys.stdin.readline()
    t3 = time.monotonic()
    ctx = b.new_context(); page = ctx.new_page(); page.goto(url); page.wait_for_load_state("networkidle")
    html = page.content(); ctx.close()
    t4 = time.monotonic()
else:
    sys.path.insert(0, os.environ["ROOT"])
    from worker.pages.render import browser as bm, page as pm
    from worker.pages.render.gate import Gate
    t1 = time.monotonic()
    gate = Gate(True, 50 << 20, 1000)
    b = bm.Browser(browser, profile, gate.address)
    b.conn.send("Browser.getVersion")
    t2 = time.monotonic()
    print("READY", flush=True); sys.stdin.readline()
    t3 = time.monotonic()
    html = pm.render(b.conn, url, time.monotonic() + 20, 5 << 20).html
    t4 = time.monotonic()
assert "hello from the data" in html, html[:300]
print(json.dumps({"import_ms": (t1 - t0) * 1000, "start_ms": (t2 - t1) * 1000, "page_ms": (t4 - t3) * 1000}), flush=True)
print("DONE", flush=True); sys.stdin.readline()
if driver == "playwright":
    b.close(); pw.stop()
else:
    b.close(); gate.close()
"""


def serve():
    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_GET(self):
            body = PAGE if self.path == "/" else json.dumps({"text": "hello from the data"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html" if self.path == "/" else "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return "http://127.0.0.1:%d/" % srv.server_port


def one(driver, url, browser, tmp):
    env = dict(os.environ, ROOT=ROOT)
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, driver, url, browser, os.path.join(tmp, "%s-%d" % (driver, time.time_ns()))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    with Peak(proc.pid) as peak:
        assert proc.stdout.readline().strip() == "READY"
        proc.stdin.write("\n")
        proc.stdin.flush()
        got = json.loads(proc.stdout.readline())
        assert proc.stdout.readline().strip() == "DONE"
    proc.stdin.write("\n")
    proc.stdin.flush()
    proc.wait(timeout=30)
    got["peak_mb"] = peak.mb
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--browser", default="/usr/lib/chromium/chromium")
    args = ap.parse_args()
    import tempfile

    try:
        import playwright  # noqa: F401
    except ImportError:
        sys.exit(
            "playwright is not installed in %s: pip install playwright (no browser download needed)" % sys.executable
        )
    url = serve()
    rows = {"playwright": [], "pipe": []}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.runs):
            for driver in rows:
                rows[driver].append(one(driver, url, args.browser, tmp))
    keys = ("import_ms", "start_ms", "page_ms", "peak_mb")
    med = {d: {k: statistics.median(r[k] for r in rs) for k in keys} for d, rs in rows.items()}
    print("%-11s %10s %10s %10s %10s" % ("driver", *keys))
    for d in rows:
        print("%-11s %10.1f %10.1f %10.1f %10.1f" % (d, *(med[d][k] for k in keys)))
    print("%-11s %10.2f %10.2f %10.2f %10.2f" % ("pipe/pw", *(med["pipe"][k] / med["playwright"][k] for k in keys)))


if __name__ == "__main__":
    main()
