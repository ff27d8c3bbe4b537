#!/usr/bin/env python
"""A peer reader's markdown of the WCXB pages the structure bench scores, for its --peer row.

Usage (from the repo root, with the dev venv's python; needs node and npm):

    python bench/extraction/peers.py defuddle --into DIR [--limit N]
    python bench/extraction/structure.py --sets wcxb --peer defuddle=DIR/md

Defuddle (kepano/defuddle, the reader of the Obsidian Web Clipper, which issue 41 names as the
peer to beat on a page's shape) is installed with npm into DIR/node (pinned below; never into
the repo), and run over the WCXB dev pages whose main content holds code or tables (the
structure bench's set) in one node process, each page at its original URL: DIR/md/ID.md. A
page it takes more than PAGE_S seconds on is left empty and the run goes on after it.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.insert(0, HERE)

from fakes import corpus_server as cs  # noqa: E402

PACKAGES = ("defuddle@0.19.4", "jsdom@29.1.1")  # the versions the figures in docs/PERFORMANCE.md used
PAGE_S = 30


def install(node_dir):
    if not os.path.isdir(os.path.join(node_dir, "node_modules", "defuddle")):
        os.makedirs(node_dir, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "--prefix", node_dir, *PACKAGES], check=True)


def pages(limit):
    """The structure bench's WCXB pages: main content with code or tables."""
    from structure import metric

    M = metric()
    out = []
    for r in cs.wcxb_rows():
        raw = cs.wcxb_page(r["id"])
        t = M.truth(raw, r["main_content"])
        if t["code"] or t["tables"]:
            out.append((r, raw))
    return out[::limit] if limit else out


def run(into, limit):
    node_dir, md_dir, html_dir = (os.path.join(into, d) for d in ("node", "md", "html"))
    install(node_dir)
    os.makedirs(md_dir, exist_ok=True)
    os.makedirs(html_dir, exist_ok=True)
    manifest = []
    for r, raw in pages(limit):
        html = os.path.join(html_dir, r["id"] + ".html")
        with open(html, "wb") as f:
            f.write(raw)
        manifest.append({"html": html, "url": r["url"], "out": os.path.join(md_dir, r["id"] + ".md")})
    path = os.path.join(into, "manifest.json")
    with open(path, "w") as f:
        json.dump(manifest, f)
    # node resolves the script's imports from its own folder: a copy sits beside node_modules
    runner = os.path.join(node_dir, "defuddle.mjs")
    with open(os.path.join(HERE, "peers", "defuddle.mjs")) as src, open(runner, "w") as dst:
        dst.write(src.read())
    start, skipped, began = 0, [], time.monotonic()
    while start < len(manifest):
        with open(os.path.join(into, "defuddle.log"), "a") as log:  # its own console.error, per page
            proc = subprocess.Popen(["node", runner, path, str(start)], stdout=subprocess.PIPE, stderr=log, text=True)
        done = start - 1  # the last page written
        while done < len(manifest) - 1:
            ready, _, _ = select.select([proc.stdout], [], [], PAGE_S)
            line = proc.stdout.readline() if ready else ""
            if not line:  # the next page hangs, or took the process down
                break
            done = int(line)
        proc.kill()
        proc.wait()
        if done < len(manifest) - 1:
            failed = manifest[done + 1]["out"]
            skipped.append(os.path.basename(failed))
            open(failed, "w").close()
        start = done + 2
    print(
        "defuddle: %d pages in %.0f s into %s; %d left empty after %d s: %s"
        % (len(manifest), time.monotonic() - began, md_dir, len(skipped), PAGE_S, skipped)
    )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("peer", choices=["defuddle"])
    ap.add_argument("--into", required=True, help="a folder outside the repo")
    ap.add_argument("--limit", type=int, default=0, help="every Nth page only")
    a = ap.parse_args(argv)
    if os.path.abspath(a.into).startswith(REPO + os.sep):
        sys.exit("error: --into must be outside the repo")
    run(a.into, a.limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
