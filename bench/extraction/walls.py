#!/usr/bin/env python
"""Wall, shell and hidden-text checks over the shared sets: false positives and cost.

Usage (from the repo root, with the dev venv's python):

    python bench/extraction/walls.py [--limit N]

Every page of ../shared/data/wcxb-dev and ../shared/data/article-extraction-benchmark
is a real page with human-reviewed main text, so any of them called a challenge,
a login wall, a paywall or a JavaScript shell is a false positive. The page goes
through what worker.pages.pipeline does (worker.pages.checks.page around worker.pages.extract.core, status
200, no headers); the milliseconds of the checks themselves (not the extraction)
are reported per page, and those of removing hidden elements (worker.pages.extract.hidden.strip,
which runs inside extraction), timed alone. Times are this thread's CPU time, so
that other work on the machine does not inflate them.
"""

import argparse
import os
import statistics
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "tests"))

from fakes import corpus_server as cs  # noqa: E402


class _Resp:
    def __init__(self, url):
        self.url = self.final_url = url
        self.status = 200
        self.headers = {"content-type": "text/html; charset=utf-8"}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=0, help="every Nth page only")
    a = ap.parse_args(argv)
    if cs.missing():
        sys.stderr.write("error: %s\n" % cs.missing())
        return 2
    from worker.errors import WorkerError
    from worker.pages.checks import page as pagecheck
    from worker.pages.extract import hidden
    from worker.pages.extract.core import extract, prepare
    from worker.pages.extract.parse import load_html
    from worker.pages.read import content

    prepare()
    pages = [("wcxb/" + r["id"], r["url"], lambda i=r["id"]: cs.wcxb_page(i)) for r in cs.wcxb_rows()]
    pages += [("zyte/" + i, "https://example.org/" + i, lambda i=i: cs.zyte_page(i)) for i in cs.zyte_ids()]
    if a.limit:
        pages = pages[:: a.limit]
    positives, times, hidden_pages, warned, hidden_times = [], [], 0, 0, []
    for name, url, load in pages:
        html, _, _ = content.decode(load(), "text/html", "html")
        resp = _Resp(url)
        tree = load_html(html)
        if tree is not None:  # the hidden-element pass, timed alone on its own parse of the page
            t = time.thread_time()
            hidden.strip(tree)
            hidden_times.append(time.thread_time() - t)
        t0 = time.thread_time()
        try:
            pagecheck.before(resp, html)
        except WorkerError as exc:
            positives.append((name, exc.code, exc.extra.get("reason")))
            times.append(time.thread_time() - t0)
            continue
        spent = time.thread_time() - t0
        result = extract(html, url=url, fmt="text")
        hidden_pages += bool(result.get("hidden_removed_chars"))
        warned += any("instructions to an AI" in w for w in result.get("warnings", []))
        meta, warnings = {}, []
        t1 = time.thread_time()
        try:
            pagecheck.after(resp, html, "text", result.get("text") or "", result.get("extractor"), meta, warnings)
            if meta.get("wall"):
                positives.append((name, "blocked", meta["wall"].extra.get("reason")))
            elif meta.get("page_data"):
                positives.append((name, "page-data", meta["page_data"]))
        except WorkerError as exc:
            positives.append((name, exc.code, None))
        times.append(spent + time.thread_time() - t1)
    print("%d pages: %d called a wall or shell" % (len(pages), len(positives)))
    for p in positives:
        print("  %s: %s %s" % p)
    print("checks per page (challenge, shell, login, paywall): %s" % _spread(times))
    print("hidden-element removal per page (worker.pages.extract.hidden.strip): %s" % _spread(hidden_times))
    both = [a + b for a, b in zip(times, hidden_times)] if len(times) == len(hidden_times) else []
    if both:
        print("both, per page: %s" % _spread(both))
    print("pages with hidden text removed: %d; pages warned of instructions to a model: %d" % (hidden_pages, warned))
    return 0


def _spread(times):
    times = sorted(times)
    return "median %.2f ms, p90 %.2f ms, max %.1f ms" % (
        1000 * statistics.median(times),
        1000 * times[int(0.9 * (len(times) - 1))],
        1000 * times[-1],
    )


if __name__ == "__main__":
    sys.exit(main())
