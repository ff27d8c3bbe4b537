#!/usr/bin/env python
"""Crawl benchmark (issue 42): answers found deep in a documentation site, through the real CLI.

Usage (from the repo root, with the dev venv's python):

    python bench/crawl/run.py [--modes chapter,site,map,single] [--limit N] [--timeout S]
                              [--questions FILE] [--root DIR] [--prefix /3.11/] [--warm]
                              [--latency MS] [--sitemap FILE SITE_URL]

The site (default: the Python 3.11 documentation of Debian's python3-doc, 498 pages in
/usr/share/doc/python3.11/html) is served from 127.0.0.1 under --prefix, as the real site
lives; the questions (default: ../shared/data/docs-qa-dev/questions.jsonl) each have an
``answer`` on ``page`` and a contents page ``chapter_root`` that links to it.  Every call
is a fresh worker process with a cache of its own (``--warm``: one cache for all calls);
``--latency MS`` delays every answer of the site, as a site across a network does, and each
crawl call's row counts the requests it made to the site.  ``--sitemap FILE SITE_URL`` serves
the site's own sitemap (an MkDocs site's ``sitemap.xml.gz``) at the prefix's ``sitemap.xml``,
named in robots.txt, its URLs moved from the real site's address to the local one; the map's
row then counts the pages the sitemap named.

Modes:

    chapter  fetch CHAPTER_ROOT --crawl 30 --focus Q --max-total-chars 4000
    site     fetch index.html --crawl 60 --focus Q --max-total-chars 4000
    map      map index.html --max-pages 5000: the pages it lists against the pages reachable
             from index.html by links (read here with html.parser, not by the worker), and
             any it lists outside the prefix or that do not exist
    single   fetch PAGE --focus Q --max-chars 2000 (and 1000)

A crawl call counts as a hit when ``answer`` (whitespace collapsed) is inside the text of
the passages it returns.  A single page's focused content is markdown: it counts when the
answer is inside the passages read as plain text (worker.site.plain: link addresses,
backticks and emphasis marks out; the "verbatim" column matches the markdown as it is).
Every call's wall time is checked against its --timeout.

Two more sites' questions, written by a helper that saw neither the worker nor its output, are in
bench/crawl/questions (Node.js's API docs and Valgrind's manual; its README says how to serve each).
"""

import argparse
import atexit
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.insert(0, REPO)

from fakes.site_server import SiteServer  # noqa: E402

from worker import protocol  # noqa: E402
from worker.site.plain import in_code_at, plain  # noqa: E402

SHARED = os.path.join(os.path.dirname(REPO), "shared", "data", "docs-qa-dev", "questions.jsonl")
PYDOCS = "/usr/share/doc/python3.11/html"


def fold(text):
    return " ".join(text.split())


class Env:
    def __init__(self, warm):
        self.tmp = tempfile.mkdtemp(prefix="bench-crawl-")
        atexit.register(shutil.rmtree, self.tmp, True)  # a bench leaves nothing in the temp folder
        self.warm = warm
        self.n = 0

    def __call__(self):
        e = dict(os.environ)
        self.n += 1
        e["WEBSEARCH_WORKER_TMPDIR"] = os.path.join(self.tmp, "calltmp")
        e["WEBSEARCH_CONFIG"] = os.path.join(self.tmp, "no-config.json")
        e["XDG_CACHE_HOME"] = os.path.join(self.tmp, "cache" if self.warm else "cache-%d" % self.n)
        for k in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy", "ALL_PROXY", "all_proxy"):
            e.pop(k, None)
        return e


def cli(env, args, timeout):
    started = time.monotonic()
    proc = subprocess.run(
        [os.environ.get("BENCH_PYTHON", sys.executable), "-I", "-m", "worker", *args, "--allow-private"],
        cwd=REPO,
        env=env(),
        capture_output=True,
        text=True,
        timeout=timeout + 30,
    )
    took = time.monotonic() - started
    try:
        payload = protocol.parse(proc.stdout)
    except Exception as exc:
        payload = {"ok": False, "error": {"code": "protocol", "message": str(exc)}}
    return payload, took


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            a = dict(attrs)
            if a.get("href") and "nofollow" not in (a.get("rel") or ""):
                self.hrefs.append(a["href"])


def reachable(root, start_rel):
    """The HTML pages reachable from ``start_rel`` by links, read from the files (independent of the worker)."""
    seen = {start_rel}
    queue = [start_rel]
    while queue:
        rel = queue.pop(0)
        path = os.path.join(root, rel)
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                html = f.read()
        except OSError:
            continue
        parser = Links()
        parser.feed(html)
        for href in parser.hrefs:
            target = urldefrag(urljoin("http://x/" + rel, href))[0]
            parts = urlsplit(target)
            nrel = unquote(parts.path.lstrip("/"))  # CMake's "Unix%20Makefiles.html" is a file with a space
            if nrel.endswith("/") or not nrel:
                nrel += "index.html"  # a folder's page (sites whose URLs end in /)
            if parts.netloc != "x" or not nrel.endswith((".html", ".htm")):
                continue
            if nrel not in seen and os.path.isfile(os.path.join(root, nrel)):
                seen.add(nrel)
                queue.append(nrel)
    return seen


def folder_page(url):
    """A folder's URL as its page's (``.../fields/`` is ``.../fields/index.html``), as the questions name it."""
    url = urldefrag(url)[0]
    return url + "index.html" if url.endswith("/") else url


def crawl_mode(site, env, questions, mode, timeout, index="index.html"):
    rows = []
    for q in questions:
        start = q["chapter_root"] if mode == "chapter" else index
        n = 30 if mode == "chapter" else 60
        args = ["fetch", site.url(start), "--crawl", str(n), "--focus", q["question"]]
        args += ["--max-total-chars", "4000", "--timeout", str(timeout)]
        asked = len(site.requests)
        payload, took = cli(env, args, timeout)
        asked = len(site.requests) - asked
        passages = payload.get("passages") or []
        text = " ".join(p.get("text") or "" for p in passages)
        hit = fold(q["answer"]) in fold(text)
        crawl = payload.get("crawl") or {}
        rows.append(
            {
                "page": q["page"],
                "hit": hit,
                "ok": bool(payload.get("ok")),
                "seconds": round(took, 2),
                "within": took <= timeout + 1.0,
                "read": crawl.get("read", 0),
                "mapped": crawl.get("mapped", 0),
                "requests": asked,
                # a passage of the answer's page was returned (not whether the page was read:
                # replay.py's record keeps the pages read)
                "answer_page_read": any(folder_page(p.get("url", "")).endswith("/" + q["page"]) for p in passages)
                or any((r.get("url") or "").endswith("/" + q["page"]) for r in payload.get("results") or ()),
                "chars": sum(len(p.get("text") or "") for p in passages),
                "error": None if payload.get("ok") else (payload.get("error") or {}).get("code"),
            }
        )
        mark = "hit " if hit else "miss"
        print(
            "  %s %-5s %5.1fs read %2d asked %3d  %s" % (mode, mark, took, crawl.get("read", 0), asked, q["page"]),
            flush=True,
        )
    return rows


def summary(rows):
    n = len(rows)
    secs = [r["seconds"] for r in rows]
    return {
        "questions": n,
        "hits": sum(r["hit"] for r in rows),
        "hit_rate": round(sum(r["hit"] for r in rows) / max(1, n), 3),
        "within_timeout": sum(r["within"] for r in rows),
        "errors": sum(1 for r in rows if not r["ok"]),
        "seconds_median": round(statistics.median(secs), 2) if secs else None,
        "seconds_p90": round(sorted(secs)[int(0.9 * (n - 1))], 2) if secs else None,
        "seconds_max": round(max(secs), 2) if secs else None,
        "pages_read_median": statistics.median([r["read"] for r in rows]) if rows else None,
        "pages_mapped_median": statistics.median([r["mapped"] for r in rows]) if rows else None,
        "requests_median": statistics.median([r.get("requests", 0) for r in rows]) if rows else None,
        "max_chars": max((r.get("chars", 0) for r in rows), default=0),
    }


def serve_sitemap(site, path, site_url):
    """The site's sitemap as the real site serves it: its URLs on this host, named in robots.txt."""
    import gzip

    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    local = site.url("").encode()
    data = data.replace(site_url.rstrip("/").encode() + b"/", local)
    site.pages[site.prefix + "sitemap.xml"] = (200, "application/xml", data)
    site.pages["/robots.txt"] = (200, "text/plain", "User-agent: *\nSitemap: %s\n" % site.url("sitemap.xml"))


def map_mode(site, env, root, timeout, index="index.html"):
    payload, took = cli(env, ["map", site.url(index), "--max-pages", "5000", "--timeout", str(timeout)], timeout)
    listed = [r["url"] for r in payload.get("results") or ()]
    from_sitemap = sum(1 for r in payload.get("results") or () if "sitemap" in (r.get("found") or ()))
    base = site.url("")
    inside, outside, missing = set(), [], []
    for url in listed:
        if not url.startswith(base):
            outside.append(url)
            continue
        rel = unquote(urlsplit(url).path[len(site.prefix) :]) or "index.html"
        if rel.endswith("/"):
            rel += "index.html"
        if os.path.isfile(os.path.join(root, rel)):
            inside.add(rel)
        else:
            missing.append(url)
    want = reachable(root, index)
    return {
        "reachable": len(want),
        "listed": len(listed),
        "from_sitemap": from_sitemap,
        "listed_reachable": len(want & inside),
        "coverage": round(len(want & inside) / max(1, len(want)), 4),
        "outside_prefix": len(outside),
        "not_a_file": len(missing),
        "seconds": round(took, 2),
        "within": took <= timeout + 1.0,
        "ok": bool(payload.get("ok")),
    }


def single_mode(site, env, questions, timeout):
    rows = []
    for q in questions:
        row = {"page": q["page"]}
        whole, _ = cli(
            env, ["fetch", site.url(q["page"]), "--max-chars", "10000000", "--timeout", str(timeout)], timeout
        )
        page = ((whole.get("results") or [{}])[0]).get("content") or ""
        for budget in (1000, 2000):
            args = ["fetch", site.url(q["page"]), "--focus", q["question"], "--max-chars", str(budget)]
            payload, took = cli(env, args + ["--timeout", str(timeout)], timeout)
            item = (payload.get("results") or [{}])[0]
            content = item.get("content") or ""
            row["hit_%d" % budget] = fold(q["answer"]) in fold(plain_view(page, content, item.get("passages")))
            row["verbatim_%d" % budget] = fold(q["answer"]) in fold(content)
            row["seconds_%d" % budget] = round(took, 2)
            row["within_%d" % budget] = took <= timeout + 1.0
        rows.append(row)
        print("  single %-5s %-5s  %s" % (row["hit_1000"], row["hit_2000"], q["page"]), flush=True)
    n = len(rows)
    return {
        "questions": n,
        "hits_1000": sum(r["hit_1000"] for r in rows),
        "hits_2000": sum(r["hit_2000"] for r in rows),
        "rate_1000": round(sum(r["hit_1000"] for r in rows) / max(1, n), 3),
        "rate_2000": round(sum(r["hit_2000"] for r in rows) / max(1, n), 3),
        "verbatim_1000": sum(r["verbatim_1000"] for r in rows),
        "verbatim_2000": sum(r["verbatim_2000"] for r in rows),
        "within_timeout": sum(r["within_1000"] + r["within_2000"] for r in rows),
    }, rows


def plain_view(page, content, passages):
    """A focused page's passages as plain text, each read from the whole page's markdown at its offset
    (so a passage cut from inside a code block is read as code); the content itself when none."""
    if not passages or not page:
        return plain(content)
    return "\n".join(
        plain(page[p["offset"] : p["offset"] + p["length"]], in_code_at(page, p["offset"])) for p in passages
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modes", default="chapter,site,map,single")
    ap.add_argument("--limit", type=int, default=0, help="the first N questions only")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--questions", default=SHARED)
    ap.add_argument("--root", default=PYDOCS)
    ap.add_argument("--prefix", default="/3.11/")
    ap.add_argument("--index", default="index.html", help="the documentation's home page (Git's is git.html)")
    ap.add_argument("--warm", action="store_true", help="one cache for every call")
    ap.add_argument("--json", default=None, help="write every row here")
    ap.add_argument("--latency", type=float, default=0.0, help="ms before the site answers each request")
    ap.add_argument(
        "--sitemap",
        nargs=2,
        metavar=("FILE", "SITE_URL"),
        help="serve FILE (a sitemap, gzip or not) at the prefix's sitemap.xml and name it in robots.txt, "
        "its URLs moved from SITE_URL (the real site's, as the generator wrote them) to the local site",
    )
    args = ap.parse_args()
    if not os.path.isdir(args.root):
        raise SystemExit("%s is missing: apt-get install python3-doc" % args.root)
    with open(args.questions, encoding="utf-8") as f:
        questions = [json.loads(line) for line in f if line.strip()]
    if args.limit:
        questions = questions[: args.limit]
    site = SiteServer(root=args.root, prefix=args.prefix, delay=args.latency / 1000).start()
    if args.sitemap:
        serve_sitemap(site, *args.sitemap)
    env = Env(args.warm)
    modes = args.modes.split(",")
    report = {"questions": len(questions), "timeout": args.timeout, "warm": args.warm}
    rows = {}
    try:
        for mode in modes:
            t = time.monotonic()
            if mode in ("chapter", "site"):
                rows[mode] = crawl_mode(site, env, questions, mode, args.timeout, args.index)
                report[mode] = summary(rows[mode])
            elif mode == "map":
                report[mode] = map_mode(site, env, args.root, args.timeout, args.index)
            elif mode == "single":
                report[mode], rows[mode] = single_mode(site, env, questions, args.timeout)
            else:
                raise SystemExit("unknown mode %r" % mode)
            report[mode]["bench_seconds"] = round(time.monotonic() - t, 1)
            print(mode, json.dumps(report[mode]), flush=True)
    finally:
        site.stop()
    print(json.dumps(report, indent=1))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"report": report, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
