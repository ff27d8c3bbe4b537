#!/usr/bin/env python
"""Focus benchmark (issue 29): is the answer within the first B characters a call returns?

Usage (from the repo root, with the dev venv's python):

    python bench/focus/run.py [--split train|heldout|all] [--rounds N]

Questions (bench/focus/questions.json, written by hand) sit on long pages of the
shared WCXB dev and classic-web dev sets, each with a short answer string found
deep in the page (2,800 to 66,000 characters in).  Their pages are served as
captured from 127.0.0.1 and read through the real CLI, a fresh worker process
per call (``fetch URL --focus QUESTION --max-chars B``).  A question counts for
B when its answer string (whitespace folded) is in what came back.

Baselines in the same run, on the very text the CLI extracted: the page's lead
(its first B characters, cut as the CLI cuts them) and BM25 over the page's
paragraphs (k1 1.2, b 0.75, the same glue words dropped), its best paragraphs
packed into B in the same way and shown in page order.

The "heldout" split was written with the rest and never used for tuning.

Cost: focus on a 20,000-word page (the bench pages' texts joined): CPU time,
the median over the questions of each question's median of N rounds, against
BM25 over the same page's paragraphs in the same run (wall time is printed
too: on a shared machine it mostly measures the wait for a core).
"""

import argparse
import atexit
import gzip
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.insert(0, REPO)

from fakes.corpus_server import SHARED, CorpusServer  # noqa: E402

from worker import protocol  # noqa: E402
from worker.pages.answer import focus, window  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BUDGETS = (1000, 2000, 4000)


def env():
    e = dict(os.environ)
    tmp = tempfile.mkdtemp(prefix="bench-focus-")
    atexit.register(shutil.rmtree, tmp, True)  # a bench leaves nothing in the temp folder
    e["WEBSEARCH_WORKER_TMPDIR"] = os.path.join(tmp, "calltmp")
    e["WEBSEARCH_CONFIG"] = os.path.join(tmp, "no-config.json")
    e["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")  # pages are cached once for every focus and budget
    for k in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
        e.pop(k, None)
    return e


ENV = env()


def cli(args):
    proc = subprocess.run(
        [os.environ.get("BENCH_PYTHON", sys.executable), "-I", "-m", "worker", "fetch", *args, "--allow-private"],
        cwd=REPO,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
    )
    payload = protocol.parse(proc.stdout)
    if not payload.get("ok"):
        raise SystemExit("fetch failed: %s" % payload.get("error"))
    return payload["results"][0]


def fold(text):
    return " ".join(text.split())


# -- the BM25 baseline ----------------------------------------------------------------

_WORD = re.compile(r"\w+")


def paragraphs(text):
    spans, pos = [], 0
    for m in re.finditer(r"\n\s*\n", text):
        if text[pos : m.start()].strip():
            spans.append((pos, m.start()))
        pos = m.end()
    if text[pos:].strip():
        spans.append((pos, len(text)))
    return spans


def bm25_view(text, query, budget, k1=1.2, b=0.75):
    """The page's best paragraphs by BM25, packed into ``budget`` as focus packs them, in page order."""
    if len(text) <= budget:
        return text
    spans = paragraphs(text)
    docs = [_WORD.findall(text[s:e].lower()) for s, e in spans]
    terms = [t for t in dict.fromkeys(_WORD.findall(query.lower())) if t not in focus._STOP]
    n = len(docs)
    avg = sum(len(d) for d in docs) / max(1, n)
    df = {t: sum(1 for d in docs if t in d) for t in terms}
    scores = []
    for d in docs:
        tf = {}
        for w in d:
            if w in df:
                tf[w] = tf.get(w, 0) + 1
        s = 0.0
        for t, f in tf.items():
            idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            s += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len(d) / avg))
        scores.append(s)
    chosen, used = [], 0
    gap = len(focus.GAP)
    for i in sorted(range(n), key=lambda i: -scores[i]):
        if scores[i] <= 0:
            break
        s, e = spans[i]
        if used + (e - s) + gap <= budget:
            chosen.append((s, e))
            used += e - s + gap
        elif not chosen:
            piece, _, _ = window.window(text[s:e], 0, budget - 2 * gap)
            chosen.append((s, s + len(piece)))
            used += len(piece) + 2 * gap
    if not chosen:
        return window.window(text, 0, budget)[0]
    return focus.GAP.join(text[s:e] for s, e in sorted(chosen))


# -- the run --------------------------------------------------------------------------


def load_pages(questions):
    pages = {}
    for q in questions:
        ds, page_id = q["page"].split("/")
        with gzip.open(os.path.join(SHARED, ds, "html", page_id + ".html.gz"), "rb") as f:
            pages[q["page"]] = f.read()
    return pages


def score(questions, server):
    hits = {(m, b): 0 for m in ("focus", "lead", "bm25") for b in BUDGETS}
    misses, texts = [], []
    for q in questions:
        url = server.url(q["page"])
        whole = cli([url, "--max-chars", "10000000"])
        text = whole["content"]
        texts.append(text)
        answer = fold(q["answer"])
        if answer not in fold(text):
            raise SystemExit("%s: the answer %r is not in the extracted text" % (q["page"], q["answer"]))
        for b in BUDGETS:
            got = {
                "focus": cli([url, "--focus", q["question"], "--max-chars", str(b)])["content"],
                "lead": window.window(text, 0, b)[0],
                "bm25": bm25_view(text, q["question"], b),
            }
            for method, content in got.items():
                assert len(content) <= b, (method, b, len(content))
                if answer in fold(content):
                    hits[(method, b)] += 1
                elif method == "focus" and b == 2000:
                    misses.append(q["page"])
    return hits, misses, texts


def cost(questions, texts, rounds):
    """(focus ms, BM25 ms, focus wall ms, words) on a 20,000-word page made of the bench pages' texts.

    CPU time of this process (time.process_time), median of the rounds, median over the questions:
    on a machine whose cores are shared, wall time mostly measures the wait for a core."""
    words = "\n\n".join(texts).split(" ")
    page = " ".join(words[:20000])
    mine, base, wall = [], [], []
    for q in questions:
        for fn, out in ((focus.focused, mine), (bm25_view, base)):
            runs, walls = [], []
            for _ in range(rounds):
                t, w = time.process_time(), time.perf_counter()
                fn(page, q["question"], 2000)
                runs.append(time.process_time() - t)
                walls.append(time.perf_counter() - w)
            out.append(statistics.median(runs) * 1000)
            if fn is focus.focused:
                wall.append(statistics.median(walls) * 1000)
    return statistics.median(mine), statistics.median(base), statistics.median(wall), len(page.split())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--split", choices=("train", "heldout", "all"), default="all")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    with open(os.path.join(HERE, "questions.json"), encoding="utf-8") as f:
        questions = json.load(f)
    splits = ("train", "heldout") if args.split == "all" else (args.split,)
    server = CorpusServer(load_pages(questions)).start()
    texts, asked = [], []
    try:
        for split in splits:
            qs = [q for q in questions if q["split"] == split]
            hits, misses, got = score(qs, server)
            texts += got
            asked += qs
            print("%s: %d questions (answer within the first B characters returned)" % (split, len(qs)))
            print("  %-34s %s" % ("method", "  ".join("B=%-5d" % b for b in BUDGETS)))
            for method, label in (
                ("focus", "fetch --focus (CLI)"),
                ("bm25", "BM25 over paragraphs"),
                ("lead", "the page's lead"),
            ):
                row = "  ".join("%5.1f%%" % (100.0 * hits[(method, b)] / len(qs)) for b in BUDGETS)
                print("  %-34s %s" % (label, row))
            if misses:
                print("  focus misses at B=2000: %s" % ", ".join(misses))
        ms, base_ms, wall_ms, words = cost(asked, texts, args.rounds)
        print(
            "cost on a %d-word page (CPU time, median of %d rounds, median over the questions): focus %.2f ms, "
            "BM25 over paragraphs %.2f ms (focus/BM25 %.2f); wall time of focus on this machine now: %.2f ms"
            % (words, args.rounds, ms, base_ms, ms / base_ms, wall_ms)
        )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
