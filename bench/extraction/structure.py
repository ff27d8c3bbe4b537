#!/usr/bin/env python
"""Structure fidelity through the real CLI: code blocks, tables, headings and list items.

Usage (from the repo root, with the dev venv's python):

    python bench/extraction/structure.py [--sets wcxb,python,shapes] [--limit N] [--batch 30]
                                         [--shapes-sample 6] [--per-page FILE]

The metric is the team's (../shared/tools/structure.py, read from there, never copied):
per page, the share of its code blocks that come back as one fenced block with the same
lines (code exact), of its code lines found inside a fence, of its table rows found as a
row of a markdown table, of its headings found as heading lines and of its list items as
list lines; then the mean over the pages that have that structure.

Sets:
- wcxb: the WCXB development pages whose main content holds code or tables (the same
  filter as the held-out figures of issue 41), scored against `truth(html, main_content)`,
  plus token F1 of the markdown against the main content;
- python: every page of the Python 3.11 documentation that Debian's python3-doc installs
  (`dpkg -L python3.11-doc`), served under /3.11/ as the real site lives, scored against
  the site's own content container (`docs_truth(html, "python")`);
- shapes: every Nth page of each shared set (wcxb by type, classic, Zyte) served at a
  neutral path and at each of SHAPES (paths that read as a product, a collection, a forum,
  a listing, documentation), token F1 of the text against the truth at each.

Ours runs as users run it: `python -I -m worker fetch URL...` in batches of --batch URLs at
the default concurrency, `--format markdown --no-cache`. trafilatura's markdown
(`trafilatura.extract(html, url=url, output_format="markdown")`) runs in-process on the same
pages, in the same run.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import os
import re
import sys
from collections import Counter, defaultdict

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fakes import corpus_server as cs  # noqa: E402

SHARED = os.path.join(os.path.dirname(REPO), "shared")
METRIC = os.path.join(SHARED, "tools", "structure.py")
PYDOCS = "/usr/share/doc/python3.11/html"
UTF8 = "text/html; charset=utf-8"
# Paths that carry a page-type signal in their shape (Substack's posts, shop categories,
# Discourse topics, WordPress categories, search pages, tag pages, documentation)
SHAPES = ("/p/%s", "/c/%s", "/t/%s", "/category/news/%s", "/search/%s", "/tag/%s", "/docs/%s")
NEUTRAL = "/%s"
_TOKEN = re.compile(r"\w+")


def metric():
    if not os.path.exists(METRIC):
        sys.exit("error: the structure metric is missing (%s); it lives in ../shared beside the repo" % METRIC)
    spec = importlib.util.spec_from_file_location("structure_metric", METRIC)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def token_f1(truth, pred):
    t, p = Counter(_TOKEN.findall(truth or "")), Counter(_TOKEN.findall(pred or ""))
    tp = sum((t & p).values())
    if not tp:
        return 0.0
    precision, recall = tp / sum(p.values()), tp / sum(t.values())
    return 2 * precision * recall / (precision + recall)


# Documentation sites installed by the system's packages, each read against its own content
# container (the metric's docs_truth; the two beside Python are defined here, in its form):
# (name, folder, path served under, content container XPath, what is dropped from it, package)
DOC_SITES = (
    ("python", PYDOCS, "3.11/", None, (), "python3-doc"),
    # DocBook XSL (chunked): the chapter or section beside the Prev/Up/Home/Next tables
    ("valgrind", "/usr/share/doc/valgrind/html", "valgrind/", "//body/div[@class][1]", (), "valgrind"),
    # Node.js's own generator: the API page's column; its "#" permalink marks, its code blocks'
    # copy buttons and the CommonJS flavour of an example (shown only when the reader flips the
    # ES-module toggle) are not what a reader sees
    (
        "nodejs",
        "/usr/share/doc/nodejs/api",
        "api/",
        "//div[@id='apicontent']",
        (
            ".//a[contains(concat(' ', @class, ' '), ' mark ')]",
            ".//button",
            ".//pre/code[contains(concat(' ', @class, ' '), ' cjs ')]",
        ),
        "nodejs",
    ),
)


def docs_pages(folder):
    """[(relative path, bytes)] of a documentation site's HTML pages, or [] when not installed."""
    out = []
    if not os.path.isdir(folder):
        return out
    for base, _, files in os.walk(folder):
        for f in sorted(files):
            if f.endswith(".html"):
                path = os.path.join(base, f)
                rel = os.path.relpath(path, folder)
                if rel.startswith(("_static", "_sources")):
                    continue
                with open(path, "rb") as fh:
                    out.append((rel, fh.read()))
    return sorted(out)


def pydocs_pages():
    return docs_pages(PYDOCS)


def cli_markdown(served, names, batch, fmt="markdown"):
    """{name: content} through the real CLI, batches of `batch` at the default concurrency."""
    from sets import run_cli  # the one CLI runner of bench/extraction

    return run_cli(served, names, batch, fmt)


def traf_markdown(html, url):
    import trafilatura

    try:
        return trafilatura.extract(html, url=url, output_format="markdown") or ""
    except Exception:
        return ""


def summary_rows(M, per_page, f1=None):
    s = M.summarize(per_page)
    row = ["%.3f (%d)" % (s[k][0], s[k][1]) if s[k][0] is not None else "-" for k in M.METRICS]
    if f1 is not None:
        row.append("%.3f" % (sum(f1) / len(f1) if f1 else 0))
    return row


def print_table(title, M, rows, with_f1):
    print("\n" + title)
    heads = list(M.METRICS) + (["token F1"] if with_f1 else [])
    print("| pipeline | %s |" % " | ".join(heads))
    print("|---" * (len(heads) + 1) + "|")
    for name, cells in rows:
        print("| %s | %s |" % (name, " | ".join(cells)))


def run_wcxb(M, a, per_page):
    from worker.pages.read.content import decode

    pages = []
    for r in cs.wcxb_rows():
        raw = cs.wcxb_page(r["id"])
        t = M.truth(raw, r["main_content"])
        if t["code"] or t["tables"]:
            pages.append((r, raw, t))
    if a.limit:
        pages = pages[:: a.limit]
    names = ["wcxb/%s%s" % (r["id"], _path(r["url"])) for r, _, _ in pages]
    served = {n: (raw, UTF8) for n, (_, raw, _) in zip(names, pages)}
    ours, crashes, elapsed = cli_markdown(served, names, a.batch)
    o_scores, t_scores, o_f1, t_f1 = [], [], [], []
    o_toc, t_toc = [], []  # list items without the entries of an on-page table of contents
    peers = [p.split("=", 1) for p in a.peer]  # a peer reader's markdown files, DIR/ID.md (peers.py)
    p_scores, p_f1, p_toc = ([[] for _ in peers] for _ in range(3))
    for n, (r, raw, t) in zip(names, pages):
        html = decode(raw, UTF8, "html")[0]
        md_o = ours.get(n, "")
        md_t = traf_markdown(html, r["url"])
        so, st = M.score(t, md_o), M.score(t, md_t)
        o_scores.append(so)
        t_scores.append(st)
        toc = toc_entries(M, raw)
        items = [it for it in t["items"] if it not in toc]
        if items:
            bare = dict(t, code=[], tables=[], headings=[], items=items)
            o_toc.append(M.score(bare, md_o)["items"])
            t_toc.append(M.score(bare, md_t)["items"])
        o_f1.append(token_f1(r["main_content"], md_o))
        t_f1.append(token_f1(r["main_content"], md_t))
        for k, (_, folder) in enumerate(peers):
            path = os.path.join(folder, r["id"] + ".md")
            md_p = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
            p_scores[k].append(M.score(t, md_p))
            p_f1[k].append(token_f1(r["main_content"], md_p))
            if items:
                p_toc[k].append(M.score(bare, md_p)["items"])
        per_page.append(
            dict(
                set="wcxb",
                id=r["id"],
                type=r["page_type"],
                ours=so,
                trafilatura=st,
                ours_f1=o_f1[-1],
                trafilatura_f1=t_f1[-1],
            )
        )
    print_table(
        "## WCXB dev pages with code or tables: %d pages (%d CLI batches with no block, %.1f s)"
        % (len(pages), crashes, elapsed),
        M,
        [("trafilatura markdown (in-process)", summary_rows(M, t_scores, t_f1))]
        + [
            ("%s (%s)" % (name, folder), summary_rows(M, p_scores[k], p_f1[k]))
            for k, (name, folder) in enumerate(peers)
        ]
        + [("websearch-worker CLI", summary_rows(M, o_scores, o_f1))],
        True,
    )
    # An on-page table of contents repeats the headings as list items the ground truth leaves
    # out of the main text (the metric counts them, as a whole line of it: the heading's)
    print(
        "list items that are no entry of an on-page table of contents (%d pages): trafilatura %.3f, %sours %.3f"
        % (
            len(o_toc),
            sum(t_toc) / max(1, len(t_toc)),
            "".join("%s %.3f, " % (name, sum(p_toc[k]) / max(1, len(p_toc[k]))) for k, (name, _) in enumerate(peers)),
            sum(o_toc) / max(1, len(o_toc)),
        )
    )


_PERMALINK = re.compile(r"[\u00b6\u00a7#\U0001f517\u200b]+")


def toc_entries(M, raw):
    """The list items of a page that are entries of a table of contents of the page itself:
    an item whose text is one of the page's headings (its permalink marks left out) or a title
    whose link points at one (``#id`` of a heading, or of a section it heads). The metric counts such
    an item wherever it stands (a sidebar's "On this page" too), because its text is a whole
    line of the main text: its section's heading. WCXB's annotators leave tables of contents
    out of the main text."""
    import lxml.html

    try:
        doc = lxml.html.fromstring(raw)
    except Exception:
        return set()
    hs = doc.xpath("//h1|//h2|//h3|//h4|//h5|//h6")
    heads = {M.norm(_PERMALINK.sub(" ", h.text_content())) for h in hs}
    ids = set()
    for h in hs:  # the heading's own id, its anchor's, and its section's
        for el in (h, h.getparent(), *h.iterchildren("a")):
            if el is not None and el.get("id"):
                ids.add(el.get("id"))
            if el is not None and el.get("name"):
                ids.add(el.get("name"))
    out = set()
    for li in doc.iter("li"):
        text = M._own_text(li)
        link = next(li.iter("a"), None)  # its own link comes first; a nested list's come after
        href = (link.get("href") or "") if link is not None else ""
        titled = len(text) <= 100 and not text.endswith(".")  # a title, not a step that links on
        if text in heads or (titled and href.startswith("#") and href[1:] in ids):
            out.add(text)
    return out


def run_docs(M, a, per_page, site):
    name, folder, under, container, drop, package = site
    pages = docs_pages(folder)
    if not pages:
        print("\n## %s docs: skipped, %s is missing (apt-get install %s)" % (name, folder, package))
        return
    if container and name not in M.DOC_CONTAINERS:
        M.DOC_CONTAINERS[name] = (container, drop)
    if a.limit:
        pages = pages[:: a.limit]
    names = [under + rel for rel, _ in pages]
    served = {n: (raw, UTF8) for n, (_, raw) in zip(names, pages)}
    ours, crashes, elapsed = cli_markdown(served, names, a.batch)
    o_scores, t_scores = [], []
    for n, (rel, raw) in zip(names, pages):
        t = M.docs_truth(raw, name)
        if not any(t.values()):
            continue
        so = M.score(t, ours.get(n, ""))
        st = M.score(t, traf_markdown(raw.decode("utf-8", "replace"), "https://docs.example.org/" + n))
        o_scores.append(so)
        t_scores.append(st)
        per_page.append(dict(set=name, id=rel, ours=so, trafilatura=st))
    print_table(
        "## %s docs (%s): %d pages with structure (%d CLI batches with no block, %.1f s)"
        % (name, package, len(o_scores), crashes, elapsed),
        M,
        [
            ("trafilatura markdown (in-process)", summary_rows(M, t_scores)),
            ("websearch-worker CLI", summary_rows(M, o_scores)),
        ],
        False,
    )


def _path(url):
    from urllib.parse import urlsplit

    return urlsplit(url or "").path or "/"


def run_shapes(M, a, per_page):
    """Token F1 of the same pages at a neutral path and at each shape, per set (wcxb by type)."""
    sample = []
    for r in cs.wcxb_rows():
        sample.append(("wcxb-" + r["page_type"], r["id"], cs.wcxb_page(r["id"]), r["main_content"], UTF8))
    if not cs.classic_missing():
        for r in cs.classic_rows():
            sample.append(
                ("classic-" + r["dataset"], r["id"], cs.classic_page(r["id"]), r["main_content"], "text/html")
            )
    import run as zyte_bench

    for pid, _, _, truth in zyte_bench.load_benchmark(zyte_bench.DEFAULT_DATA):
        sample.append(("zyte", pid, cs.zyte_page(pid), truth, UTF8))
    sample = sample[:: max(1, a.shapes_sample)]
    layouts = (NEUTRAL,) + SHAPES
    served, names = {}, {}
    for group, pid, raw, _, ct in sample:
        slug = "%s-%s" % (group, re.sub(r"[^A-Za-z0-9]+", "-", str(pid)))
        for lay in layouts:
            name = (lay % slug).lstrip("/")
            served[name] = (raw, ct)
            names[(pid, group, lay)] = name
    order = list(served)
    texts, crashes, elapsed = cli_markdown(served, order, a.batch, fmt="text")
    f1 = defaultdict(list)  # (group, layout) -> [F1]
    for group, pid, _, truth, _ in sample:
        for lay in layouts:
            f1[(group, lay)].append(token_f1(truth, texts.get(names[(pid, group, lay)], "")))
    groups = sorted({g for g, *_ in sample})
    print(
        "\n## URL shapes: %d pages, each at %d paths (%d CLI batches with no block, %.1f s); token F1 of the text"
        % (len(sample), len(layouts), crashes, elapsed)
    )
    print("| set | pages | neutral | %s | worst delta |" % " | ".join(s.strip("/%s") for s in SHAPES))
    print("|---" * (len(SHAPES) + 4) + "|")
    worst_all = 0.0
    for g in groups + ["classic", "wcxb"]:
        keys = [x for x in groups if x == g or x.startswith(g + "-")] if g in ("classic", "wcxb") else [g]
        vals = {lay: [v for k in keys for v in f1[(k, lay)]] for lay in layouts}
        n = len(vals[NEUTRAL])
        if not n:
            continue
        mean = {lay: sum(v) / len(v) for lay, v in vals.items()}
        worst = min(mean[s] - mean[NEUTRAL] for s in SHAPES)
        worst_all = min(worst_all, worst)
        print(
            "| %s | %d | %.4f | %s | %+.4f |"
            % (g, n, mean[NEUTRAL], " | ".join("%.4f" % mean[s] for s in SHAPES), worst)
        )
    print("\nworst drop from the neutral path, any set and shape: %+.4f" % worst_all)
    per_page.append(dict(set="shapes", f1={"%s %s" % k: v for k, v in f1.items()}))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--sets",
        default="wcxb,python,valgrind,nodejs,shapes",
        help="comma-separated: wcxb, python, valgrind, nodejs (documentation sites), shapes",
    )
    ap.add_argument("--limit", type=int, default=0, help="every Nth page only (quick runs)")
    ap.add_argument("--batch", type=int, default=30)
    ap.add_argument("--shapes-sample", type=int, default=6, help="shapes: every Nth page of the shared sets")
    ap.add_argument("--per-page", default="", help="write per-page scores (JSON) here")
    ap.add_argument(
        "--peer",
        action="append",
        default=[],
        metavar="NAME=DIR",
        help="wcxb: also score a peer reader's markdown, DIR/ID.md (bench/extraction/peers.py writes Defuddle's)",
    )
    a = ap.parse_args(argv)
    problem = cs.missing()
    if problem:
        sys.stderr.write("error: %s\n" % problem)
        return 2
    M = metric()
    per_page: list = []
    sets = [s for s in a.sets.split(",") if s]
    if "wcxb" in sets:
        run_wcxb(M, a, per_page)
    for site in DOC_SITES:
        if site[0] in sets:
            run_docs(M, a, per_page, site)
    if "shapes" in sets:
        run_shapes(M, a, per_page)
    if a.per_page:
        opener = gzip.open if a.per_page.endswith(".gz") else open
        with opener(a.per_page, "wt", encoding="utf-8") as f:
            json.dump(per_page, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
