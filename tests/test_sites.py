"""Site adapters (worker/sites) end to end: the real CLI against local fakes of each API.

The URLs are the real sites' (github.com, stackoverflow.com...); the config's
"sites" bases point the adapters at tests/fakes/sites_server.py, so nothing
leaves 127.0.0.1.  Fallback tests add the fake's own address to an adapter's
"hosts", so the ordinary HTML fetch that follows also stays local.
"""

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, run_worker, worker_env
from fakes.sites_server import COMMENTS, SitesServer

TOKEN = "ghp_TESTTOKEN1234567890abcdefSECRET"


@pytest.fixture(scope="module")
def srv():
    s = SitesServer().start()
    yield s
    s.stop()


def make_env(tmp_path, srv, extra_sites=None, extra_env=None):
    sites = {"github": {"apiBase": srv.base + "/gh-api", "rawBase": srv.base + "/gh-raw"},
             "stackexchange": {"apiBase": srv.base + "/se-api"},
             "pypi": {"apiBase": srv.base, "hosts": ["pypi.test"]},
             "npm": {"apiBase": srv.base + "/npm"},
             "arxiv": {"apiBase": srv.base + "/arxiv-api", "htmlBase": srv.base + "/arxiv-html",
                       "pdfBase": srv.base + "/arxiv-pdf"}}
    for name, more in (extra_sites or {}).items():
        sites[name] = dict(sites.get(name, {}), **more)
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"sites": sites}))
    env = worker_env(tmp_path, extra_env)
    env["WEBSEARCH_CONFIG"] = str(cfg)
    for name in ("GITHUB_TOKEN", "GH_TOKEN"):
        if not extra_env or name not in extra_env:
            env.pop(name, None)
    return env


def fetch_item(env, url, *args):
    r = run_worker(["fetch"] + list(args) + ["--", url], env)
    assert r.payload is not None, r
    assert "Traceback" not in r.stderr, r
    items = r.payload["results"] if r.payload["ok"] else r.payload["error"]["results"]
    return r, items[0]


# ------------------------------------------------------------------ GitHub

def test_github_blob_is_the_raw_file_fenced_with_its_language(tmp_path, srv):
    env = make_env(tmp_path, srv)
    r, it = fetch_item(env, "https://github.com/octo/demo/blob/main/src/app.py")
    assert r.returncode == 0 and it["ok"], r
    assert it["extractor"] == "adapter:github"
    assert it["meta"]["language"] == "python" and it["meta"]["kind"] == "blob" and it["meta"]["token"] is False
    # The file holds ``` itself: the fence must be longer so the code cannot close it.
    assert it["content"].startswith("````python\nimport sys\n\n\ndef main():")
    assert it["content"].rstrip().endswith("````")
    assert 'print("hello ```not a fence``` world")' in it["content"]
    # --format text: the file as it is, no fence.
    _, plain = fetch_item(env, "https://github.com/octo/demo/blob/main/src/app.py", "--format", "text", "--no-cache")
    assert plain["format"] == "text" and plain["content"].startswith("import sys\n")


def test_github_issue_has_every_comment_in_order_across_pages(tmp_path, srv):
    env = make_env(tmp_path, srv)
    r, it = fetch_item(env, "https://github.com/octo/demo/issues/7", "--max-chars", "200000")
    assert it["ok"] and it["extractor"] == "adapter:github", r
    c = it["content"]
    assert it["title"] == "Crash when the config is empty" and it["author"] == "reporter"
    assert "State: open" in c and "Labels: bug, good first issue" in c and "load_config('')" in c
    positions = [c.index("Comment number %03d." % i) for i in range(1, COMMENTS + 1)]
    assert positions == sorted(positions)
    assert it["meta"]["comments"] == COMMENTS and it["meta"]["labels"] == ["bug", "good first issue"]
    pages = [p for p, _ in srv.seen("/gh-api/repos/octo/demo/issues/7/comments")]
    assert any("page=3" in p for p in pages)  # followed Link rel="next" to the last page
    assert "user1 on 2025-01-03T10:00:01Z" in c


def test_github_pull_request_lists_changed_files_and_merge_state(tmp_path, srv):
    env = make_env(tmp_path, srv)
    _, it = fetch_item(env, "https://github.com/octo/demo/pull/9")
    assert it["ok"] and it["meta"]["kind"] == "pull" and it["meta"]["merged"] is True
    c = it["content"]
    assert "State: merged" in c and "Changed files (3)" in c
    assert "src/config.py (modified, +30 -2)" in c and "tests/test_config.py (added, +10 -0)" in c
    assert "Comment number 002." in c and "Fixes #7." in c


def test_github_repository_root_is_readme_and_listing(tmp_path, srv):
    env = make_env(tmp_path, srv)
    _, it = fetch_item(env, "https://github.com/octo/demo")
    assert it["ok"] and it["meta"]["kind"] == "repository" and it["meta"]["readme"] is True
    c = it["content"]
    assert c.index("- src/") < c.index("- README.md")  # directories first
    assert "pip install demo" in c and "License: MIT" in c and it["description"] == "Demo repository"


def test_github_release_and_gist(tmp_path, srv):
    env = make_env(tmp_path, srv)
    _, rel = fetch_item(env, "https://github.com/octo/demo/releases/tag/v1.2.0")
    assert rel["ok"] and rel["title"] == "Version 1.2.0" and "Faster loading" in rel["content"]
    assert rel["published"] == "2025-04-01T00:00:00Z"
    _, gist = fetch_item(env, "https://gist.github.com/gister/abc123")
    assert gist["ok"] and gist["extractor"] == "adapter:github"
    assert "```python\nprint('gist')\n```" in gist["content"] and gist["author"] == "gister"


def test_github_token_is_sent_to_the_api_and_never_written(tmp_path, srv):
    srv.echo_auth = True  # a hostile API that echoes the header into a comment
    try:
        env = make_env(tmp_path, srv, extra_env={"GITHUB_TOKEN": TOKEN})
        before = len(srv.requests)
        r, it = fetch_item(env, "https://github.com/octo/demo/issues/7", "--max-chars", "200000")
        r2, _ = fetch_item(env, "https://github.com/octo/demo/issues/7", "--max-chars", "200000")  # from the cache
    finally:
        srv.echo_auth = False
    assert it["ok"] and it["meta"]["token"] is True and it["meta"]["token_source"] == "env:GITHUB_TOKEN"
    sent = [h.get("authorization") for _, h in srv.requests[before:]]
    assert sent and all(a == "Bearer " + TOKEN for a in sent)
    assert "I see your header: Bearer ***" in it["content"]
    for out in (r.stdout, r.stderr, r2.stdout, r2.stderr):
        assert TOKEN not in out
    for root, _, files in os.walk(tmp_path):
        for name in files:
            with open(os.path.join(root, name), "rb") as fh:
                assert TOKEN.encode() not in fh.read(), name


@pytest.mark.slow
def test_github_rate_limit_falls_back_to_the_html_page(tmp_path, srv):
    host = srv.base.split("//")[1]
    env = make_env(tmp_path, srv, extra_sites={"github": {"hosts": [host]}})
    srv.github_limited = True
    try:
        r, it = fetch_item(env, srv.base + "/octo/demo/issues/7", "--allow-private")
    finally:
        srv.github_limited = False
    assert it["ok"] and it["extractor"] != "adapter:github" and "meta" not in it, r
    assert "ordinary page the fallback fetch reads" in it["content"]
    [warning] = [w for w in it["warnings"] if w.startswith("github:")]
    assert "rate limit" in warning and "2026-01-01T00:00:00Z" in warning and "GITHUB_TOKEN" in warning
    assert "HTML page" in warning


@pytest.mark.slow
def test_no_adapters_reads_the_html(tmp_path, srv):
    host = srv.base.split("//")[1]
    env = make_env(tmp_path, srv, extra_sites={"github": {"hosts": [host]}})
    before = len(srv.seen("/gh-api/"))
    _, it = fetch_item(env, srv.base + "/octo/demo/issues/7", "--allow-private", "--no-adapters")
    assert it["ok"] and it["extractor"] != "adapter:github" and "fallback fetch" in it["content"]
    assert not any(w.startswith("github:") for w in it.get("warnings", []))
    assert len(srv.seen("/gh-api/")) == before
    _, it = fetch_item(env, srv.base + "/octo/demo/issues/7", "--allow-private")
    assert it["extractor"] == "adapter:github"  # and without the flag, the same URL is the adapter's


@pytest.mark.slow
def test_unknown_github_page_falls_back(tmp_path, srv):
    host = srv.base.split("//")[1]
    env = make_env(tmp_path, srv, extra_sites={"github": {"hosts": [host]}})
    _, it = fetch_item(env, srv.base + "/octo/demo/wiki/Home", "--allow-private")
    assert it["ok"] and "fallback fetch" in it["content"]
    assert any(w.startswith("github:") and "does not read" in w for w in it["warnings"])


# ------------------------------------------------------------------ Stack Exchange

@pytest.mark.slow
def test_stackexchange_question_with_answers_accepted_first_then_by_score(tmp_path, srv):
    env = make_env(tmp_path, srv)
    r, it = fetch_item(env, "https://stackoverflow.com/questions/123/flatten-a-list")
    assert it["ok"] and it["extractor"] == "adapter:stackexchange", r
    c = it["content"]
    assert it["title"] == "How do I flatten a list of lists?" and it["author"] == "Asker & Co"
    heads = [line for line in c.splitlines() if line.startswith("### ")]
    assert heads == ["### Accepted answer (score 50) by answerer302 on 2020-09-13T12:30:00Z",
                     "### Answer (score 90) by answerer301 on 2020-09-13T12:28:20Z",
                     "### Answer (score -2) by answerer303 on 2020-09-13T12:31:40Z"]
    # Code blocks verbatim, blank lines inside them included.
    assert "```\nflat = [x for xs in xss for x in xs]\n\n# two blank lines above\n```" in c
    assert "```\nimport itertools\n\nflat = list(itertools.chain.from_iterable(xss))\n```" in c
    assert "`sum(xss, [])`" in c and it["meta"]["answers"] == 3 and it["meta"]["site"] == "stackoverflow"
    pages = [p for p, _ in srv.seen("/se-api/questions/123/answers")]
    assert any("page=3" in p for p in pages)


def test_stackexchange_throttle_falls_back(tmp_path, srv):
    host = srv.base.split("//")[1]
    env = make_env(tmp_path, srv, extra_sites={"stackexchange": {"hosts": [host]}})
    srv.se_throttled = True
    try:
        _, it = fetch_item(env, srv.base + "/questions/123/x", "--allow-private")
    finally:
        srv.se_throttled = False
    assert it["ok"] and "fallback fetch" in it["content"]
    assert any(w.startswith("stackexchange: API throttled") for w in it["warnings"]), it["warnings"]


# ------------------------------------------------------------------ PyPI, npm, arXiv

def test_pypi_project_through_the_json_api(tmp_path, srv):
    env = make_env(tmp_path, srv)
    r, it = fetch_item(env, "https://pypi.test/project/demo-pkg/")
    assert it["ok"] and it["extractor"] == "adapter:pypi", r
    c = it["content"]
    assert c.startswith("# demo-pkg 2.1.0") and "A demo package" in c and "License: MIT" in c
    assert "Released: 2025-02-03T04:05:06.000000Z" in c and "- requests>=2" in c
    assert "- Source: https://github.com/octo/demo" in c and "```python\nimport demo\n```" in c
    assert it["meta"]["version"] == "2.1.0" and it["meta"]["requirements"] == 2


def test_npm_package_through_the_registry_and_unconfigured_fallback(tmp_path, srv):
    env = make_env(tmp_path, srv)
    _, it = fetch_item(env, "https://www.npmjs.com/package/demo-js")
    assert it["ok"] and it["extractor"] == "adapter:npm"
    c = it["content"]
    assert c.startswith("# demo-js 3.0.1") and "Released: 2025-03-04T05:06:07.000Z" in c and "License: ISC" in c
    assert "- left-pad ^1.3.0" in c and "- react >=18" in c and "require('demo-js')" in c
    assert "- Repository: https://github.com/octo/demo-js.git" in c
    # No apiBase: the page is read as HTML, and the warning says how to turn the adapter on.
    host = srv.base.split("//")[1]
    cfg = tmp_path / "npm.json"
    cfg.write_text(json.dumps({"sites": {"npm": {"hosts": [host]}}}))
    env = worker_env(tmp_path, {"WEBSEARCH_CONFIG": str(cfg)})
    _, it = fetch_item(env, srv.base + "/package/demo-js", "--allow-private")
    assert it["ok"] and "fallback fetch" in it["content"]
    assert any("no registry configured" in w and "apiBase" in w for w in it["warnings"]), it["warnings"]


def test_arxiv_abstract_and_html_paper(tmp_path, srv):
    env = make_env(tmp_path, srv)
    r, it = fetch_item(env, "https://arxiv.org/abs/2401.00001")
    assert it["ok"] and it["extractor"] == "adapter:arxiv", r
    c = it["content"]
    assert it["title"] == "A Study of Demo Papers" and it["author"] == "Ada Lovelace, Alan Turing"
    assert it["published"] == "2024-01-01T00:00:00Z" and "We study demo papers" in c
    assert "Demo papers are everywhere" in c and "We counted the demo papers" in c
    assert it["meta"]["text_source"] == "html" and it["meta"]["category"] == "cs.CL"


def test_arxiv_pdf_url_without_html_or_pdf_gives_the_abstract(tmp_path, srv):
    env = make_env(tmp_path, srv)
    srv.arxiv_html = False
    try:
        _, it = fetch_item(env, "https://arxiv.org/pdf/2401.00001v2")
    finally:
        srv.arxiv_html = True
    assert it["ok"], it
    assert "We study demo papers" in it["content"] and "Demo papers are everywhere" not in it["content"]
    assert any("only the abstract" in w for w in it["warnings"])


@pytest.mark.slow
def test_arxiv_paper_text_from_its_pdf_when_there_is_no_html(tmp_path, srv):
    from fakes.http_server import minimal_pdf
    env = make_env(tmp_path, srv)
    srv.arxiv_html = False
    srv.arxiv_pdf = minimal_pdf(["Section one: counting demo papers by hand", "We found exactly forty two"])
    try:
        r, it = fetch_item(env, "https://arxiv.org/abs/2401.00001")
    finally:
        srv.arxiv_html, srv.arxiv_pdf = True, None
    assert it["ok"] and it["extractor"] == "adapter:arxiv", r
    assert it["meta"]["text_source"] == "pdf", it["meta"]
    assert "We study demo papers" in it["content"]  # the abstract first
    assert "counting demo papers by hand" in it["content"] and "forty two" in it["content"]
    assert srv.seen("/arxiv-pdf/2401.00001")


# ------------------------------------------------------------------ config, start-up

def test_bad_sites_config_is_a_config_error(tmp_path):
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"sites": {"github": {"apiBase": "ftp://x"}}}))
    env = worker_env(tmp_path, {"WEBSEARCH_CONFIG": str(cfg)})
    r = run_worker(["fetch", "https://github.com/a/b"], env)
    assert r.returncode == 1 and r.payload["error"]["code"] == "config"
    assert "apiBase" in r.payload["error"]["message"] and "Traceback" not in r.stderr
    cfg.write_text(json.dumps({"sites": {"gitlab": {}}}))
    r = run_worker(["fetch", "https://github.com/a/b"], env)
    assert r.payload["error"]["code"] == "config" and "gitlab" in r.payload["error"]["message"]


@pytest.mark.slow
def test_an_ordinary_fetch_imports_no_adapter(tmp_path, srv):
    env = make_env(tmp_path, srv)
    proc = subprocess.run([sys.executable, "-I", "-X", "importtime", "-m", "worker", "fetch", "--allow-private",
                           srv.base + "/plain/page"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert "SEARCH_OK" in proc.stdout
    imported = [line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if "|" in line]
    assert "worker.fetch" in imported
    assert not [m for m in imported if m.startswith("worker.sites.")], imported
