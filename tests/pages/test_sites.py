"""Site adapters (worker/pages/sites) end to end: the real CLI against local fakes of each API.

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
    sites = {
        "github": {"apiBase": srv.base + "/gh-api", "rawBase": srv.base + "/gh-raw"},
        "stackexchange": {"apiBase": srv.base + "/se-api"},
        "pypi": {"apiBase": srv.base, "hosts": ["pypi.test"]},
        "npm": {"apiBase": srv.base + "/npm"},
        "arxiv": {
            "apiBase": srv.base + "/arxiv-api",
            "htmlBase": srv.base + "/arxiv-html",
            "pdfBase": srv.base + "/arxiv-pdf",
        },
    }
    for name, more in (extra_sites or {}).items():
        sites[name] = dict(sites.get(name, {}), **more)
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"sites": sites}))
    env = worker_env(tmp_path, extra_env)
    env["WEBSEARCH_CONFIG"] = str(cfg)
    # The URLs are the real sites': should an adapter miss and fall back to the page, the fetch
    # meets a proxy that refuses (port 9) instead of the internet.  The fakes are direct.
    env.update(HTTPS_PROXY="http://127.0.0.1:9", HTTP_PROXY="http://127.0.0.1:9", NO_PROXY="127.0.0.1")
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


@pytest.mark.slow
def test_github_pull_request_reviews_and_line_comments_in_order_with_the_comments(tmp_path, srv):
    env = make_env(tmp_path, srv)
    r, it = fetch_item(env, "https://github.com/octo/demo/pull/9")
    assert it["ok"] and it["meta"]["kind"] == "pull", r
    assert it["meta"]["comments"] == 2 and it["meta"]["review_comments"] == 2 and it["meta"]["reviews"] == 3
    c = it["content"]
    heads = [line for line in c.splitlines() if line.startswith("### ")]
    assert heads == [
        "### reviewer on 2025-01-03T09:00:00Z (on src/config.py line 12)",
        "### reviewer on 2025-01-03T09:30:00Z (review: changes requested)",
        "### user1 on 2025-01-03T10:00:01Z",
        "### user2 on 2025-01-03T10:00:02Z",
        "### fixer on 2025-01-03T11:00:00Z (on src/config.py line 12)",
        "### reviewer on 2025-01-04T08:00:00Z (review: approved)",
    ]
    assert "## Comments (6)" in c
    # A line comment shows the lines it is about (the end of its diff hunk); its reply does not repeat them.
    hunk = "```diff\n+    if not data:\n+        return {}\n+    return data['key']\n```\n\nWhat if `data` is None?"
    assert hunk in c and c.count("```diff") == 1
    assert "Handled in the second commit." in c and "Please handle None as well." in c and "Looks good now." in c
    assert "draft, not sent" not in c  # a pending review is its author's draft
    assert c.index("Changed files (3)") < c.index("## Comments")
    _, plain = fetch_item(env, "https://github.com/octo/demo/pull/9", "--format", "text")
    assert "reviewer on 2025-01-04T08:00:00Z (review: approved)\n\nLooks good now." in plain["content"]
    # An issue has no reviews to ask for.
    before = len(srv.requests)
    fetch_item(env, "https://github.com/octo/demo/issues/7", "--no-cache")
    assert not [p for p, _ in srv.requests[before:] if "/pulls/" in p]


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


def test_github_tree_is_the_directory_listing_with_its_readme(tmp_path, srv):
    env = make_env(tmp_path, srv)
    r, it = fetch_item(env, "https://github.com/octo/demo/tree/main/src")
    assert it["ok"] and it["extractor"] == "adapter:github", r
    assert it["meta"]["kind"] == "tree" and it["meta"]["ref"] == "main" and it["meta"]["entries"] == 3
    assert it["meta"]["readme"] is True and it["title"] == "octo/demo/src"
    c = it["content"]
    assert c.startswith("# octo/demo/src\n") and "- Branch: main" in c
    assert c.index("- util/") < c.index("- app.py") < c.index("- README.md")  # directories first, then by name
    assert "## README.md" in c and "`app.py` is the entry point" in c
    assert "License: MIT" not in c and "pip install demo" not in c  # the repository's facts and README are the root's
    assert srv.seen("/gh-api/repos/octo/demo/readme/src?ref=main")
    # A directory without a README: the listing alone (the API's 404 for the README is no failure).
    _, bare = fetch_item(env, "https://github.com/octo/demo/tree/main/tests", "--format", "text")
    assert bare["ok"] and bare["meta"]["readme"] is False and bare["format"] == "text"
    assert bare["content"].splitlines()[:2] == ["octo/demo/tests", ""]
    assert "data/\ntest_app.py" in bare["content"] and "README" not in bare["content"]


@pytest.mark.slow
def test_github_latest_release_and_release_by_tag(tmp_path, srv):
    env = make_env(tmp_path, srv)
    r, latest = fetch_item(env, "https://github.com/octo/demo/releases/latest")
    assert latest["ok"] and latest["extractor"] == "adapter:github", r
    assert latest["meta"]["kind"] == "release" and latest["meta"]["tag"] == "v1.3.0"
    assert latest["title"] == "Version 1.3.0" and latest["author"] == "releaser"
    assert latest["published"] == "2025-06-01T00:00:00Z"
    c = latest["content"]
    assert c.startswith("# Version 1.3.0\n") and "- Tag: v1.3.0" in c and "- Empty configs load" in c
    _, tagged = fetch_item(env, "https://github.com/octo/demo/releases/tag/v1.2.0", "--format", "text")
    assert tagged["ok"] and tagged["meta"]["tag"] == "v1.2.0" and tagged["author"] == "releaser"
    assert tagged["content"].startswith("Version 1.2.0\n") and "Tag: v1.2.0" in tagged["content"]
    assert "Faster loading" in tagged["content"] and "Empty configs" not in tagged["content"]
    # A tag the API does not have: the page, with a warning naming the release.
    host = srv.base.split("//")[1]
    env = make_env(tmp_path, srv, extra_sites={"github": {"hosts": [host]}})
    _, missing = fetch_item(env, srv.base + "/octo/demo/releases/tag/v9.9.9", "--allow-private")
    assert missing["ok"] and "fallback fetch" in missing["content"]
    assert any(w.startswith("github: the API has no release v9.9.9") for w in missing["warnings"]), missing["warnings"]


@pytest.mark.slow
def test_github_ref_with_slashes_is_resolved_through_the_api(tmp_path, srv):
    env = make_env(tmp_path, srv)
    before = len(srv.requests)
    r, it = fetch_item(env, "https://github.com/octo/demo/blob/feature/x/src/a.py")
    assert it["ok"] and it["extractor"] == "adapter:github", r
    assert it["meta"]["ref"] == "feature/x" and it["meta"]["path"] == "src/a.py" and it["meta"]["language"] == "python"
    assert it["title"] == "a.py" and "return 'on the feature/x branch'" in it["content"]
    assert it["content"].startswith("```python\n")
    seen = [p for p, _ in srv.requests[before:]]
    # The raw host first (ref "feature"), then the refs starting with "feature", then the file by its ref.
    assert seen[0] == "/gh-raw/octo/demo/feature/x/src/a.py"
    assert "/gh-api/repos/octo/demo/git/matching-refs/heads/feature?per_page=100" in seen
    assert seen[-1] == "/gh-api/repos/octo/demo/contents/src/a.py?ref=feature%2Fx"
    _, tree = fetch_item(env, "https://github.com/octo/demo/tree/feature/x/src")
    assert tree["ok"] and tree["meta"]["ref"] == "feature/x" and tree["title"] == "octo/demo/src"
    assert "- Branch: feature/x" in tree["content"] and tree["content"].index("- new/") < tree["content"].index(
        "- a.py"
    )
    # "feature-y" also starts with "feature" but is not a whole-segment prefix; no such ref: the 404 stands.
    host = srv.base.split("//")[1]
    env2 = make_env(tmp_path, srv, extra_sites={"github": {"hosts": [host]}})
    _, none = fetch_item(env2, srv.base + "/octo/demo/blob/feature/y/src/a.py", "--allow-private")
    assert none["ok"] and "fallback fetch" in none["content"]
    assert any(
        w.startswith("github: the API has no file src/a.py") or w.startswith("github: the API has no file y/src/a.py")
        for w in none["warnings"]
    ), none["warnings"]
    # An ordinary ref costs no API request, and a name written with %20 is asked for once encoded.
    before = len(srv.requests)
    _, plain = fetch_item(env, "https://github.com/octo/demo/blob/main/docs/My%20Notes.md")
    assert plain["ok"] and plain["meta"]["path"] == "docs/My Notes.md" and plain["title"] == "My Notes.md"
    assert "A file whose name has a space." in plain["content"] and plain["meta"]["api_requests"] == 1
    assert [p for p, _ in srv.requests[before:]] == ["/gh-raw/octo/demo/main/docs/My%20Notes.md"]


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
def test_github_token_never_follows_a_redirect_to_another_origin(tmp_path, srv):
    other = SitesServer().start()  # another port: another origin
    other.echo_auth = True  # whatever header it got would show in a comment
    srv.github_moved = other.base
    try:
        env = make_env(tmp_path, srv, extra_env={"GITHUB_TOKEN": TOKEN})
        before = len(srv.requests)
        runs = [
            fetch_item(env, "https://github.com/octo/demo/blob/main/src/app.py", "--allow-private"),
            fetch_item(env, "https://github.com/octo/demo", "--allow-private"),
            fetch_item(env, "https://github.com/octo/demo/issues/7", "--allow-private", "--max-chars", "200000"),
        ]
    finally:
        srv.github_moved = None
        other.stop()
    for r, it in runs:
        assert it["ok"] and it["extractor"] == "adapter:github" and it["meta"]["token"] is True, r
    blob, root, thread = (it for _, it in runs)
    assert "hello ```not a fence``` world" in blob["content"] and "pip install demo" in root["content"]
    # The configured hosts got the token; the origin they redirected to never did.
    mine = srv.requests[before:]
    assert mine and all(h.get("authorization") == "Bearer " + TOKEN for _, h in mine)
    assert {p.split("/")[1] for p, _ in mine} == {"gh-api", "gh-raw"}
    assert other.requests and not [p for p, h in other.requests if "authorization" in h]
    assert "I see your header" not in thread["content"]
    # Its next-page links point at itself, outside the API base: not followed, and the text says the list is cut.
    assert thread["meta"]["comments"] == 100 and "(more comments than this adapter reads)" in thread["content"]
    for r, _ in runs:
        assert TOKEN not in r.stdout and TOKEN not in r.stderr
    for root_dir, _, files in os.walk(tmp_path):
        for name in files:
            with open(os.path.join(root_dir, name), "rb") as fh:
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
    assert heads == [
        "### Accepted answer (score 50) by answerer302 on 2020-09-13T12:30:00Z",
        "### Answer (score 90) by answerer301 on 2020-09-13T12:28:20Z",
        "### Answer (score -2) by answerer303 on 2020-09-13T12:31:40Z",
    ]
    # Code blocks verbatim, blank lines inside them included; a block's language from its class.
    assert "```py\nflat = [x for xs in xss for x in xs]\n\n# two blank lines above\n```" in c
    assert "```\nimport itertools\n\nflat = list(itertools.chain.from_iterable(xss))\n```" in c
    assert "`sum(xss, [])`" in c and it["meta"]["answers"] == 3 and it["meta"]["site"] == "stackoverflow"
    pages = [p for p, _ in srv.seen("/se-api/questions/123/answers")]
    assert any("page=3" in p for p in pages)


@pytest.mark.slow
def test_stackexchange_answer_urls_give_the_thread_with_that_answer_marked(tmp_path, srv):
    env = make_env(tmp_path, srv)
    r, it = fetch_item(env, "https://stackoverflow.com/a/301")
    assert it["ok"] and it["extractor"] == "adapter:stackexchange", r
    assert it["meta"]["answer_id"] == 301 and it["meta"]["answers"] == 3
    assert it["title"] == "How do I flatten a list of lists?"
    assert it["final_url"] == "https://stackoverflow.com/questions/123/flatten-a-list/301#301"
    c = it["content"]
    assert "- Linked answer: 301 by answerer301 (score 90), marked below" in c
    heads = [line for line in c.splitlines() if line.startswith("### ")]
    assert heads == [
        "### Accepted answer (score 50) by answerer302 on 2020-09-13T12:30:00Z",
        "### Linked answer (score 90) by answerer301 on 2020-09-13T12:28:20Z",
        "### Answer (score -2) by answerer303 on 2020-09-13T12:31:40Z",
    ]
    assert srv.seen("/se-api/answers/301?site=stackoverflow")
    # The share link (with the sharer's user id) and the question's own answer link.
    _, shared = fetch_item(env, "https://stackoverflow.com/a/302/11")
    assert shared["meta"]["answer_id"] == 302
    assert "### Linked accepted answer (score 50) by answerer302 on 2020-09-13T12:30:00Z" in shared["content"]
    before = len(srv.seen("/se-api/answers/"))
    _, linked = fetch_item(env, "https://stackoverflow.com/questions/123/flatten-a-list/303#303", "--format", "text")
    assert linked["ok"] and linked["meta"]["answer_id"] == 303 and linked["format"] == "text"
    assert "\nLinked answer (score -2) by answerer303 on 2020-09-13T12:31:40Z\n" in linked["content"]
    assert "Use sum(xss, []), it is quadratic." in linked["content"]
    assert len(srv.seen("/se-api/answers/")) == before  # the question id is in the URL: no lookup
    # An answer the thread does not have (deleted): the thread, and a warning saying so.
    _, gone = fetch_item(env, "https://stackoverflow.com/questions/123/flatten-a-list/999#999")
    assert gone["ok"] and "Linked" not in gone["content"]
    assert any("linked answer 999 is not among the answers" in w for w in gone["warnings"]), gone["warnings"]
    assert gone["final_url"] == "https://stackoverflow.com/questions/123/flatten-a-list"


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


@pytest.mark.slow
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
    proc = subprocess.run(
        [
            sys.executable,
            "-I",
            "-X",
            "importtime",
            "-m",
            "worker",
            "fetch",
            "--allow-private",
            srv.base + "/plain/page",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "SEARCH_OK" in proc.stdout
    imported = [line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if "|" in line]
    assert "worker.tools.fetch" in imported
    assert not [m for m in imported if m.startswith("worker.pages.sites.")], imported
