#!/usr/bin/env python
"""The crawl bench's ranking, replayed in process: change the passage ranking, score again in seconds.

Usage (from the repo root, with the dev venv's python):

    python bench/crawl/replay.py record [--modes chapter,site,single] [--out DIR] [--jobs 2]
                                        [--questions FILE --root DIR --prefix /api/]
    python bench/crawl/replay.py score  [--out DIR] [--misses]

``record`` runs the bench's calls through the real CLI (bench/crawl/run.py's site, questions
and arguments) with the worker's ranking functions wrapped, and keeps what they were given:
for a crawl, the pages read (their markdown) and each page's score for the question
(worker.site.passages.rank's arguments); for a single page, the page's whole markdown.
``score`` ranks those inputs again with the code as it is now and counts the answers as
bench/crawl/run.py does (the answer, whitespace folded, inside the plain text returned),
so a change to worker.pages.answer.focus or worker.site.passages is measured on the whole
dev set without the crawl's minutes.  Pages read are fixed at record time: a change to
worker.site.rank (which pages are read) needs ``record`` again, and the real bench decides.
"""

import argparse
import json
import os
import pickle
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, REPO)

import run as bench  # noqa: E402

_WRAP = r"""
import os, pickle, sys
out = sys.argv.pop(1)
from worker.site import passages
real = passages.rank
def rank(texts, query, budget, page_scores=None):
    with open(out, "wb") as f:
        pickle.dump({"texts": list(texts), "query": query, "budget": budget, "scores": list(page_scores or [])}, f)
    return real(texts, query, budget, page_scores)
passages.rank = rank
from worker.main import main
main(prog="worker")
"""


def _call(env, args, out, timeout=60):
    proc = subprocess.run(
        [sys.executable, "-c", _WRAP, out, *args, "--allow-private"],
        cwd=REPO,
        env=env(),
        capture_output=True,
        text=True,
        timeout=timeout + 30,
    )
    return bench.protocol.parse(proc.stdout)


def record(args, questions):
    site = bench.SiteServer(root=args.root, prefix=args.prefix).start()
    env = bench.Env(warm=True)
    os.makedirs(args.out, exist_ok=True)
    try:
        for mode in args.modes.split(","):
            jobs = []
            for n, q in enumerate(questions):
                path = os.path.join(args.out, "%s-%02d.pickle" % (mode, n))
                if mode == "single":
                    call = ["fetch", site.url(q["page"]), "--max-chars", "10000000", "--timeout", "60"]
                else:
                    start = q["chapter_root"] if mode == "chapter" else args.index
                    call = ["fetch", site.url(start), "--crawl", "30" if mode == "chapter" else "60"]
                    call += ["--focus", q["question"], "--max-total-chars", "4000", "--timeout", "60"]
                jobs.append((call, path))

            def one(job):
                call, path = job
                payload = _call(env, call, path)
                if call[2] == "--max-chars":
                    page = ((payload.get("results") or [{}])[0]).get("content") or ""
                    if not page:
                        print("  failed", call[1], payload.get("error") or payload.get("results"), flush=True)
                    with open(path, "wb") as f:
                        pickle.dump({"page": page}, f)
                print("  recorded", os.path.basename(path), flush=True)

            with ThreadPoolExecutor(args.jobs) as pool:
                list(pool.map(one, jobs))
    finally:
        site.stop()


def score(args, questions):
    from worker.pages.answer import focus
    from worker.site import passages

    fold = bench.fold
    report = {}
    for mode in ("single", "chapter", "site"):
        rows = []
        for n, q in enumerate(questions):
            path = os.path.join(args.out, "%s-%02d.pickle" % (mode, n))
            if not os.path.exists(path):
                continue
            with open(path, "rb") as f:
                rec = pickle.load(f)
            answer = fold(q["answer"])
            if mode == "single":
                page = rec["page"]
                row = {"n": n, "page": q["page"], "present": answer in fold(bench.plain(page))}
                for budget in (1000, 2000):
                    view = focus.focused(page, q["question"], budget)
                    content = view["content"] if view else page[:budget]
                    text = bench.plain_view(page, content, view and view["passages"])
                    row[budget] = answer in fold(text)
                rows.append(row)
            else:
                found = passages.rank(rec["texts"], rec["query"], rec["budget"], rec["scores"])
                text = " ".join(p["text"] for p in found)
                read = any(answer in fold(bench.plain(t)) for t in rec["texts"])
                rows.append({"n": n, "page": q["page"], "hit": answer in fold(text), "read": read})
        if not rows:
            continue
        if mode == "single":
            report[mode] = {
                "questions": len(rows),
                "hits_1000": sum(r[1000] for r in rows),
                "hits_2000": sum(r[2000] for r in rows),
                "answer_in_page": sum(r["present"] for r in rows),
            }
            misses = [(r["n"], r["page"], r[1000], r[2000]) for r in rows if not r[2000] or not r[1000]]
        else:
            report[mode] = {
                "questions": len(rows),
                "hits": sum(r["hit"] for r in rows),
                "answer_read": sum(r["read"] for r in rows),
            }
            misses = [(r["n"], r["page"], r["read"]) for r in rows if not r["hit"]]
        print(mode, json.dumps(report[mode]))
        if args.misses:
            for m in misses:
                print("   miss", *m)
    return report


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=("record", "score"))
    ap.add_argument("--modes", default="chapter,site,single")
    ap.add_argument("--out", default="/tmp/bench-crawl-replay")
    ap.add_argument("--questions", default=bench.SHARED)
    ap.add_argument("--root", default=bench.PYDOCS, help="the site's folder (run.py's --root)")
    ap.add_argument("--prefix", default="/3.11/", help="the path it is served under (run.py's --prefix)")
    ap.add_argument("--index", default="index.html", help="the documentation's home page (run.py's --index)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--misses", action="store_true")
    args = ap.parse_args()
    with open(args.questions, encoding="utf-8") as f:
        questions = [json.loads(line) for line in f if line.strip()]
    if args.what == "record":
        record(args, questions)
    else:
        score(args, questions)


if __name__ == "__main__":
    main()
