#!/usr/bin/env python
"""Every shared page's answer, by hash: to show that a change of layout changed no output.

Usage (from the repo root, with the dev venv's python):

    python bench/extraction/same.py --write FILE [--jobs 2] [--limit N]
    python bench/extraction/same.py --compare FILE [--jobs 2] [--limit N]

For each of the 2,871 shared pages (wcxb-dev, classic-web-dev, the Zyte set: see
sets.py), the page is handed to the fetch's own item builder as a 200 response from its
original URL, once as markdown and once as text (the body as captured, the content type
as the CLI bench serves it). The item (text, metadata, outline, page type, extractor,
warnings) is written as sorted JSON and hashed. --write keeps the hashes; --compare
prints every page whose markdown or text item differs, and exits 1 if any does.

This is the reading path of `fetch` without the network and the reading child, which
only carry the item (tests/tools cover them). Nothing is timed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.insert(0, HERE)

FORMATS = ("markdown", "text")


def _builder():
    try:
        from worker.pages.read.item import build_item
    except ImportError:  # the layout before issue 46's regrouping, to hash both sides of it
        from worker.pages.download import build_item  # type: ignore[no-redef]
    return build_item


def _hash_chunk(chunk):
    import sets

    from worker.pages.net.client import Response
    from worker.pages.spec import Spec

    build_item = _builder()
    out = {}
    for page in chunk:
        body = sets.page_bytes(page)
        resp = Response(page["url"], page["url"], 200, {"content-type": page["ct"]}, body, False, len(body), [])
        for fmt in FORMATS:
            item = build_item(page["url"], resp, Spec(fmt=fmt, max_chars=10**9))
            blob = json.dumps(item, sort_keys=True, ensure_ascii=False).encode("utf-8")
            out["%s/%s/%s" % (page["set"], page["id"], fmt)] = hashlib.sha256(blob).hexdigest()
    return out


def hashes(limit: int = 0, jobs: int = 2) -> dict[str, str]:
    import sets

    pages = sets.pages_of(sets.SETS)
    if limit:
        pages = pages[::limit]
    chunks = [pages[i::jobs] for i in range(jobs)]
    out: dict[str, str] = {}
    with ProcessPoolExecutor(jobs) as pool:
        for part in pool.map(_hash_chunk, chunks):
            out.update(part)
    return dict(sorted(out.items()))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", default="", help="write the hashes (JSON) here")
    ap.add_argument("--compare", default="", help="compare with the hashes written here")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="every Nth page only (quick runs)")
    args = ap.parse_args(argv)
    if not (args.write or args.compare):
        ap.error("--write FILE or --compare FILE")
    now = hashes(args.limit, args.jobs)
    pages = len(now) // len(FORMATS)
    if args.write:
        with open(args.write, "w", encoding="utf-8") as f:
            json.dump(now, f, indent=0)
        print("%d pages, %d items hashed into %s" % (pages, len(now), args.write))
    if args.compare:
        with open(args.compare, encoding="utf-8") as f:
            before = json.load(f)
        keys = sorted(set(before) | set(now))
        differ = [k for k in keys if before.get(k) != now.get(k)]
        for k in differ:
            print("differs: %s" % k)
        print("%d pages, %d items: %d the same, %d differ" % (pages, len(keys), len(keys) - len(differ), len(differ)))
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
