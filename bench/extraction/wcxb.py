#!/usr/bin/env python
"""Extraction across page types: WCXB dev pages, ours against trafilatura, one run.

Usage (from the repo root, with the dev venv's python):

    python bench/extraction/wcxb.py [--limit N] [--no-cli] [--batch 30] [--per-page FILE]

Data: ../shared/data/wcxb-dev (1,334 pages of seven types with human-reviewed main
text; CC-BY-4.0, Murrough Foley, WCXB) and ../shared/data/article-extraction-benchmark
(181 news articles), beside the repo root; never copied into it.

Three measurements, each against a baseline measured in the same run:

1. In-process, one page at a time: token F1 per page type (the WCXB README's metric:
   per page, F1 of the multisets of case-sensitive \\w+ tokens of the extracted plain
   text and of `main_content`; then the mean per type and over all pages) for
   `worker.pages.extract.core.extract(html, url, fmt="text")` and `trafilatura.extract(html, url)`
   with defaults, and each one's median and 90th-percentile milliseconds per page
   (imports excluded). A development aid: fast to run, not what users get.
2. Through the real CLI, the path users take: every page served as captured on
   127.0.0.1 (8 loopback hosts) under its original URL's path, fetched by `python -I -m worker fetch` in batches
   of --batch URLs at the default --concurrency, `--format text --no-cache`, and
   scored the same way. Its F1 must equal (1) up to decoding: a batch returns what
   single calls return.
3. The Zyte article set through the same CLI batches, scored with its own metric
   (4-token shingles, see run.py): the article figure must hold in batches too.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fakes import corpus_server as cs  # noqa: E402

TYPES = ["all", "article", "documentation", "service", "forum", "listing", "collection", "product"]
TARGETS = {
    "all": 0.87,
    "article": 0.93,
    "documentation": 0.94,
    "service": 0.84,
    "forum": 0.80,
    "listing": 0.70,
    "collection": 0.70,
    "product": 0.70,
}
_TOKEN = re.compile(r"\w+")


def token_f1(truth, pred):
    t, p = Counter(_TOKEN.findall(truth or "")), Counter(_TOKEN.findall(pred or ""))
    tp = sum((t & p).values())
    if not tp:
        return 0.0
    precision, recall = tp / sum(p.values()), tp / sum(t.values())
    return 2 * precision * recall / (precision + recall)


def by_type(rows, scores):
    out = defaultdict(list)
    for row, f in zip(rows, scores):
        out[row["page_type"]].append(f)
        out["all"].append(f)
    return {k: sum(v) / len(v) for k, v in out.items()}


def pct(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(round((len(s) - 1) * q)))] if s else 0.0


def ours(html, url):
    from worker.pages.extract.core import extract

    return extract(html, url=url, fmt="text")["text"]


def trafilatura_defaults(html, url):
    import trafilatura

    return trafilatura.extract(html, url=url) or ""


def in_process(rows, fn):
    fn(cs.wcxb_page(rows[0]["id"]).decode("utf-8", "replace"), rows[0]["url"])  # imports are not per-page costs
    scores, times = [], []
    for row in rows:
        html = cs.wcxb_page(row["id"]).decode("utf-8", "replace")
        t0 = time.perf_counter()
        text = fn(html, row["url"])
        times.append((time.perf_counter() - t0) * 1000)
        scores.append(token_f1(row["main_content"], text))
    return scores, times


def cli_texts(names, pages, batch):
    """{name: extracted text or None} fetched through the real CLI in batches."""
    server = cs.CorpusServer(pages).start(hosts=8)
    env = dict(os.environ)
    env["WEBSEARCH_CONFIG"] = os.path.join(REPO, ".bench-no-config.json")
    for k in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
        env.pop(k, None)
    from worker import protocol

    out, crashes, elapsed = {}, 0, 0.0
    try:
        for start in range(0, len(names), batch):
            chunk = names[start : start + batch]
            urls = [server.url(n, host=i) for i, n in enumerate(chunk)]
            t0 = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-I", "-m", "worker", "fetch"]
                + urls
                + ["--allow-private", "--no-cache", "--format", "text", "--max-chars", "50000000", "--timeout", "600"],
                cwd=REPO,
                env=env,
                capture_output=True,
            )
            elapsed += time.perf_counter() - t0
            try:
                payload = protocol.parse(proc.stdout.decode("ascii"))
            except protocol.ProtocolError:
                crashes += 1
                continue
            items = payload["results"] if payload["ok"] else payload["error"].get("results", [])
            for name, item in zip(chunk, items):
                # a login wall or paywall item keeps the public text beside its error: a user reads it
                out[name] = item.get("content") or ""
    finally:
        server.stop()
    return out, crashes, elapsed


def table(title, columns):
    print("\n" + title)
    print("| extractor | " + " | ".join(TYPES) + " |")
    print("|---" * (len(TYPES) + 1) + "|")
    for name, scores in columns:
        print("| %s | " % name + " | ".join("%.3f" % scores.get(t, 0) for t in TYPES) + " |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=0, help="every Nth page only (quick runs)")
    ap.add_argument("--no-cli", action="store_true", help="skip the CLI measurements")
    ap.add_argument("--batch", type=int, default=30)
    ap.add_argument("--per-page", default="", help="write per-page F1 JSON here")
    a = ap.parse_args(argv)
    if cs.missing():
        sys.stderr.write("error: %s\n" % cs.missing())
        return 2
    rows = cs.wcxb_rows()
    if a.limit:
        rows = rows[:: a.limit]
    print(
        "WCXB dev: %d pages (%s)"
        % (len(rows), ", ".join("%s %d" % kv for kv in Counter(r["page_type"] for r in rows).most_common()))
    )

    o_scores, o_times = in_process(rows, ours)
    t_scores, t_times = in_process(rows, trafilatura_defaults)
    o, t = by_type(rows, o_scores), by_type(rows, t_scores)
    table(
        "## 1. In-process, token F1 (mean per page type)",
        [("trafilatura defaults", t), ("websearch-worker", o), ("target", TARGETS)],
    )
    print(
        "\nspeed per page: ours median %.1f ms, p90 %.1f ms; trafilatura defaults median %.1f ms, p90 %.1f ms;"
        " ratio of medians %.2fx, of p90s %.2fx"
        % (
            statistics.median(o_times),
            pct(o_times, 0.9),
            statistics.median(t_times),
            pct(t_times, 0.9),
            statistics.median(o_times) / statistics.median(t_times),
            pct(o_times, 0.9) / pct(t_times, 0.9),
        )
    )
    above = [k for k in TYPES if o.get(k, 0) > t.get(k, 0)]
    print("types where ours is above trafilatura: %s" % ", ".join(above))
    print(
        "targets met: %s (all %.4f)"
        % (", ".join("%s %s" % (k, "yes" if o.get(k, 0) >= v else "no") for k, v in TARGETS.items()), o["all"])
    )
    if a.per_page:
        with open(a.per_page, "w", encoding="utf-8") as f:
            json.dump(
                {
                    r["id"]: {"type": r["page_type"], "ours": x, "trafilatura": y}
                    for r, x, y in zip(rows, o_scores, t_scores)
                },
                f,
                indent=0,
            )
    if a.no_cli:
        return 0

    # each page under its own URL's path, so the URL's shape (/docs/, /t/123) still speaks;
    # only the host is the local server's
    from urllib.parse import urlsplit

    names = ["wcxb/%s%s" % (r["id"], urlsplit(r["url"]).path or "/") for r in rows]
    pages = {n: cs.wcxb_page(n.split("/")[1]) for n in names}
    texts, crashes, elapsed = cli_texts(names, pages, a.batch)
    c_scores = [token_f1(r["main_content"], texts.get(n) or "") for r, n in zip(rows, names)]
    c = by_type(rows, c_scores)
    if a.per_page:  # the CLI's score beside the in-process ones, to read where they differ
        with open(a.per_page, encoding="utf-8") as f:
            per_page = json.load(f)
        for r, x in zip(rows, c_scores):
            per_page[r["id"]]["cli"] = x
        with open(a.per_page, "w", encoding="utf-8") as f:
            json.dump(per_page, f, indent=0)
    table(
        "## 2. Through the CLI, batches of %d at the default concurrency (%d batches with no block)"
        % (a.batch, crashes),
        [("websearch-worker CLI", c), ("(in-process, above)", o)],
    )
    print(
        "CLI targets met: %s (all %.4f)"
        % (", ".join("%s %s" % (k, "yes" if c.get(k, 0) >= v else "no") for k, v in TARGETS.items()), c["all"])
    )
    print(
        "\nCLI: %.1f s for %d pages, %.0f ms a page; per-page scores equal to in-process on %d of %d pages"
        % (
            elapsed,
            len(names),
            1000 * elapsed / len(names),
            sum(1 for x, y in zip(c_scores, o_scores) if abs(x - y) < 1e-9),
            len(names),
        )
    )

    import run as zyte_bench

    zpages = zyte_bench.load_benchmark(zyte_bench.DEFAULT_DATA)
    if a.limit:
        zpages = zpages[:: a.limit]
    # under the article's own URL's path too, as the WCXB pages above: a user fetches the real URL
    znames = ["zyte/%s%s" % (pid, urlsplit(url or "").path or "/") for pid, url, _, _ in zpages]
    ztexts, zcrashes, _ = cli_texts(znames, {n: cs.zyte_page(n.split("/")[1]) for n in znames}, a.batch)
    z_cli = zyte_bench.aggregate(
        [zyte_bench.page_scores(truth, ztexts.get(n) or "") for n, (_, _, _, truth) in zip(znames, zpages)]
    )
    z_in = zyte_bench.aggregate([zyte_bench.page_scores(truth, ours(html, url)) for _, url, html, truth in zpages])
    z_tr = zyte_bench.aggregate(
        [zyte_bench.page_scores(truth, trafilatura_defaults(html, url)) for _, url, html, truth in zpages]
    )
    print("\n## 3. Zyte article set (%d pages, shingle F1)" % len(zpages))
    print("| extractor | F1 | precision | recall |\n|---|---|---|---|")
    for name, (f, p, r) in (
        ("trafilatura defaults, in-process", z_tr),
        ("websearch-worker, in-process", z_in),
        ("websearch-worker, CLI batches of %d (%d with no block)" % (a.batch, zcrashes), z_cli),
    ):
        print("| %s | %.3f | %.3f | %.3f |" % (name, f, p, r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
