#!/usr/bin/env python
"""Score HTML -> main-text pipelines on the article-extraction benchmark.

Usage (from the repo root, with the dev venv's python):

    python bench/extraction/run.py [--data DIR] [--only NAME,...] [--limit N] [--per-page FILE]

The data (181 article pages and their ground truth) is NOT in this repo: by default
it is read from ../shared/data/article-extraction-benchmark relative to the repo
root. The metric is the benchmark's own (see its README): tokens are `\\w+` runs,
case-sensitive; each text is a multiset of 4-token shingles; per page precision and
recall; precision averaged over pages where the pipeline returned something, recall
over pages with non-empty truth; F1 is the harmonic mean of the two averages.

It also scores every pipeline on the held-out pages in tests/fixtures/pages/
(must-contain / must-not-contain checks) and prints a pass rate.

Comparison libraries (readabilipy, markdownify, html2text, html-text) are optional:
a pipeline whose library is missing is skipped. See requirements-bench.txt.
"""

import argparse
import gzip
import json
import os
import re
import statistics
import sys
import time
from collections import Counter

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_DATA = os.path.join(os.path.dirname(REPO), "shared", "data", "article-extraction-benchmark")
FIXTURES = os.path.join(REPO, "tests", "fixtures", "pages")
sys.path.insert(0, REPO)

# ---------------------------------------------------------------- the metric

_TOKEN_RE = re.compile(r"\w+")


def shingles(text, n=4):
    tokens = _TOKEN_RE.findall(text or "")
    if not tokens:
        return Counter()
    return Counter(" ".join(tokens[i : i + n]) for i in range(max(1, len(tokens) - n + 1)))


def page_scores(truth, pred):
    """(precision or None, recall or None) for one page."""
    t, p = shingles(truth), shingles(pred)
    tp = sum((t & p).values())
    fp = sum((p - t).values())
    fn = sum((t - p).values())
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    return precision, recall


def aggregate(rows):
    ps = [p for p, _ in rows if p is not None]
    rs = [r for _, r in rows if r is not None]
    precision = sum(ps) / len(ps) if ps else 0.0
    recall = sum(rs) / len(rs) if rs else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return f1, precision, recall


# ---------------------------------------------------------------- pipelines


def _ours(html, url):
    from worker.pages.extract.core import extract

    return extract(html, url=url, fmt="text")["text"]


def _traf_default(html, url):
    import trafilatura

    return trafilatura.extract(html, url=url) or ""


def _traf_precision(html, url):
    import trafilatura

    return trafilatura.extract(html, url=url, favor_precision=True, include_comments=False) or ""


def _readability_html_text(html, url):
    import html_text
    from readability import Document

    return html_text.extract_text(Document(html).summary(html_partial=True))


def _readabilipy_markdownify(html, url):
    # What the reference MCP fetch server does: readabilipy without readability.js,
    # then markdownify of the simplified article HTML.
    import markdownify
    import readabilipy.simple_json

    article = readabilipy.simple_json.simple_json_from_html_string(html, use_readability=False)
    content = article.get("content") or ""
    return markdownify.markdownify(content, heading_style=markdownify.ATX) if content else ""


def _html2text_page(html, url):
    import html2text

    h = html2text.HTML2Text()
    h.body_width = 0
    return h.handle(html)


PIPELINES = [
    ("ours", ("worker.pages.extract.core",), _ours),
    ("trafilatura default", ("trafilatura",), _traf_default),
    ("trafilatura precision, no comments", ("trafilatura",), _traf_precision),
    ("readability-lxml -> html_text", ("readability", "html_text"), _readability_html_text),
    ("readabilipy -> markdownify (MCP fetch)", ("readabilipy", "markdownify"), _readabilipy_markdownify),
    ("html2text whole page", ("html2text",), _html2text_page),
]
BASELINE = "trafilatura default"


def available(modules):
    import importlib.util

    for m in modules:
        try:
            if importlib.util.find_spec(m) is None:
                return False
        except (ImportError, ValueError):
            return False
    return True


# ---------------------------------------------------------------- data


def load_benchmark(data_dir, limit=None):
    with open(os.path.join(data_dir, "ground-truth.json"), encoding="utf-8") as f:
        truth = json.load(f)
    pages = []
    for pid in sorted(truth):
        path = os.path.join(data_dir, "html", pid + ".html.gz")
        if not os.path.exists(path):
            continue
        with gzip.open(path, "rb") as f:
            html = f.read().decode("utf-8", errors="replace")
        pages.append((pid, truth[pid].get("url"), html, truth[pid].get("articleBody") or ""))
        if limit and len(pages) >= limit:
            break
    return pages


def load_fixtures():
    """[(name, html, spec)] from tests/fixtures/pages/*.html + *.json."""
    out = []
    if not os.path.isdir(FIXTURES):
        return out
    for name in sorted(os.listdir(FIXTURES)):
        if not name.endswith(".html"):
            continue
        base = name[:-5]
        spec_path = os.path.join(FIXTURES, base + ".json")
        if not os.path.exists(spec_path):
            continue
        with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
            html = f.read()
        with open(spec_path, encoding="utf-8") as f:
            spec = json.load(f)
        out.append((base, html, spec))
    return out


def _norm(s):
    return " ".join(s.split())


def fixture_checks(text, spec):
    """(passed, total) over the must_contain / must_not_contain strings of one page."""
    t = _norm(text or "")
    passed = total = 0
    for s in spec.get("must_contain", []):
        total += 1
        passed += _norm(s) in t
    for s in spec.get("must_not_contain", []):
        total += 1
        passed += _norm(s) not in t
    return passed, total


# ---------------------------------------------------------------- run


def run_pipeline(fn, pages, warm=True):
    if warm and pages:  # imports and first-call caches are not per-page costs
        try:
            fn(pages[0][2], pages[0][1])
        except Exception:
            pass
    rows, times, errors = [], [], 0
    per_page = {}
    for pid, url, html, truth in pages:
        t0 = time.perf_counter()
        try:
            pred = fn(html, url) or ""
        except Exception:
            pred, errors = "", errors + 1
        times.append((time.perf_counter() - t0) * 1000)
        ps = page_scores(truth, pred)
        rows.append(ps)
        per_page[pid] = ps
    return rows, times, errors, per_page


def pct(values, q):
    s = sorted(values)
    if not s:
        return 0.0
    k = (len(s) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=DEFAULT_DATA, help="benchmark directory (default: %(default)s)")
    ap.add_argument("--only", default="", help="comma-separated substrings of pipeline names to run")
    ap.add_argument("--limit", type=int, default=0, help="only the first N pages (for quick iterations)")
    ap.add_argument("--per-page", default="", help="write per-page precision/recall JSON here")
    args = ap.parse_args(argv)

    data = os.path.abspath(args.data)
    if not os.path.exists(os.path.join(data, "ground-truth.json")) or not os.path.isdir(os.path.join(data, "html")):
        sys.stderr.write(
            "error: benchmark data not found at %s\n"
            "expected ground-truth.json and html/<id>.html.gz there (the Zyte article-extraction-benchmark);\n"
            "pass --data DIR to point at it. The data is not part of this repo.\n" % data
        )
        return 2

    pages = load_benchmark(data, args.limit or None)
    fixtures = load_fixtures()
    only = [s.strip().lower() for s in args.only.split(",") if s.strip()]
    print("article-extraction-benchmark: %d pages from %s; held-out pages: %d" % (len(pages), data, len(fixtures)))

    results, per_page_all = [], {}
    for name, modules, fn in PIPELINES:
        if only and not any(o in name.lower() for o in only) and name != BASELINE:
            continue
        if not available(modules):
            print("skipped %s: %s not installed" % (name, ", ".join(modules)))
            continue
        # trafilatura as it ships: ours puts rewritten XPaths in its modules, in this process
        from worker.pages.extract import trafilatura_fast

        trafilatura_fast.placed(name == "ours")
        rows, times, errors, per_page = run_pipeline(fn, pages)
        f1, p, r = aggregate(rows)
        fx_pass = fx_total = 0
        for _, html, spec in fixtures:
            try:
                text = fn(html, spec.get("url"))
            except Exception:
                text = ""
            a, b = fixture_checks(text, spec)
            fx_pass, fx_total = fx_pass + a, fx_total + b
        results.append(
            dict(
                name=name,
                f1=f1,
                p=p,
                r=r,
                med=statistics.median(times) if times else 0,
                p90=pct(times, 0.9),
                errors=errors,
                fx=(fx_pass, fx_total),
            )
        )
        per_page_all[name] = per_page
        sys.stdout.flush()

    base = next((x for x in results if x["name"] == BASELINE), None)
    hdr = (
        "| pipeline | F1 | precision | recall | median ms/page | p90 ms/page | median vs %s | held-out checks |"
        % BASELINE
    )
    print()
    print(hdr)
    print("|" + "---|" * 8)
    for x in results:
        ratio = "%.2fx" % (x["med"] / base["med"]) if base and base["med"] else "-"
        fx = "%d/%d (%.0f%%)" % (x["fx"][0], x["fx"][1], 100.0 * x["fx"][0] / x["fx"][1]) if x["fx"][1] else "-"
        err = " (%d errors)" % x["errors"] if x["errors"] else ""
        print(
            "| %s%s | %.3f | %.3f | %.3f | %.1f | %.1f | %s | %s |"
            % (x["name"], err, x["f1"], x["p"], x["r"], x["med"], x["p90"], ratio, fx)
        )
    if args.per_page:
        with open(args.per_page, "w", encoding="utf-8") as f:
            json.dump(per_page_all, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
