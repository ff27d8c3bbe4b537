"""Local stand-ins for the APIs the site adapters read (worker/pages/sites), on 127.0.0.1.

The answers follow the real services' recorded shapes: GitHub's REST fields,
its Link pagination and X-RateLimit-* headers and its 403 rate-limit body; the
Stack Exchange API's wrapper (items, has_more, quota_remaining) and its 400
throttle_violation error; the PyPI and npm JSON documents; arXiv's Atom feed.
Everything else is an ordinary HTML page, what the fallback fetch reads.

    s = SitesServer().start()
    s.base                 -> "http://127.0.0.1:PORT"
    s.requests             -> [(path, headers dict)] seen
    s.github_limited = True   GitHub answers 403 rate limit
    s.github_moved = URL      GitHub's API and raw host answer a redirect to URL + the same path
                              (another server: another origin, which must never see the token)
    s.se_throttled = True     Stack Exchange answers 400 throttle_violation
    s.answers[path] = body    that path (without its query) answers 200 with ``body`` instead: a JSON
                              value, or str/bytes sent as they are (a hostile API's answer)

The search endpoints (the search tool's github and stackexchange sources, worker/providers/):
GitHub's ``/search/issues`` answers issue 7 and pull request 9 of octo/demo (``s.github_found``
replaces the items; ``s.github_needs_kind = True`` refuses a query without is:issue/is:pr with
GitHub's 422), and the Stack Exchange ``/search/advanced`` answers question 123 and an unanswered
one, gzip-compressed as the real API always is.  ``s.searches`` lists (api, q) as they came.
"""

import base64
import gzip
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

from fakes import answers

COMMENTS = 205  # three pages of 100: the adapter must follow rel="next" twice
RESET = 1767225600  # 2026-01-01T00:00:00Z

APP_PY = 'import sys\n\n\ndef main():\n    print("hello ```not a fence``` world")\n    return 0\n\n\nif __name__ == "__main__":\n    sys.exit(main())\n'
README = "# demo\n\nA demo repository for the adapter tests.\n\n```sh\npip install demo\n```\n"

HTML_PAGE = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Served as HTML</title></head>
<body><nav><a href="/">Home</a></nav><main><article><h1>Served as HTML</h1>
<p>This is the ordinary page the fallback fetch reads when an adapter cannot answer. It has enough
text to be the main content of the page, and says so in more than one sentence.</p>
<p>A second paragraph keeps the extractor content with the article it found here.</p></article></main></body></html>"""


def _user(login):
    return {
        "login": login,
        "id": 1000 + len(login),
        "type": "User",
        "site_admin": False,
        "html_url": "https://github.com/" + login,
    }


def _labels(*names):
    return [
        {"id": 10 + i, "name": n, "color": "d73a4a", "default": False, "description": ""} for i, n in enumerate(names)
    ]


def issue(number, pull=False):
    doc = {
        "url": "https://api.github.com/repos/octo/demo/issues/%d" % number,
        "number": number,
        "title": "Crash when the config is empty" if not pull else "Handle empty configs",
        "state": "open" if not pull else "closed",
        "state_reason": None,
        "locked": False,
        "user": _user("reporter"),
        "labels": _labels("bug", "good first issue"),
        "comments": COMMENTS if not pull else 2,
        "created_at": "2025-01-02T03:04:05Z",
        "updated_at": "2025-01-09T00:00:00Z",
        "closed_at": None,
        "author_association": "NONE",
        "body": "Steps:\n\n```python\nload_config('')\n```\n\nIt raises `KeyError`.",
        "html_url": "https://github.com/octo/demo/issues/%d" % number,
    }
    if pull:
        doc["pull_request"] = {
            "url": "https://api.github.com/repos/octo/demo/pulls/%d" % number,
            "merged_at": "2025-01-09T00:00:00Z",
        }
    return doc


def comment(i, token=None):
    body = "Comment number %03d." % i
    if token and i == 1:
        body += " I see your header: " + token
    return {
        "id": 5000 + i,
        "user": _user("user%d" % (i % 7)),
        "created_at": "2025-01-%02dT10:00:%02dZ" % (3 + i // 60, i % 60),
        "updated_at": "2025-01-03T10:00:00Z",
        "author_association": "CONTRIBUTOR",
        "body": body,
        "html_url": "https://github.com/octo/demo/issues/7#issuecomment-%d" % (5000 + i),
    }


def pull(number):
    return {
        "number": number,
        "title": "Handle empty configs",
        "state": "closed",
        "merged": True,
        "merged_at": "2025-01-09T00:00:00Z",
        "user": _user("fixer"),
        "labels": _labels("bug"),
        "body": "Fixes #7.",
        "head": {"label": "fixer:empty-config", "ref": "empty-config"},
        "base": {"label": "octo:main", "ref": "main"},
        "changed_files": 3,
        "additions": 40,
        "deletions": 2,
        "commits": 2,
        "draft": False,
    }


def entry(path, kind):
    """One item of a contents-API directory listing."""
    return {
        "name": path.rsplit("/", 1)[-1],
        "path": path,
        "sha": "x",
        "size": 0 if kind == "dir" else 10,
        "url": "https://api.github.com/repos/octo/demo/contents/" + path,
        "type": kind,
        "html_url": "https://github.com/octo/demo/%s/main/%s" % ("tree" if kind == "dir" else "blob", path),
        "download_url": None if kind == "dir" else "https://raw.githubusercontent.com/octo/demo/main/" + path,
    }


def readme(path, text):
    return {
        "name": "README.md",
        "path": path,
        "encoding": "base64",
        "type": "file",
        "size": len(text),
        "content": base64.encodebytes(text.encode()).decode(),
    }


# Directories by (ref, path).  The branch "feature/x" holds a slash: the raw host here knows only
# one-segment refs (a raw URL cannot say where a ref ends), so the adapter must find it through the API.
TREES = {
    ("main", ""): [entry("README.md", "file"), entry("src", "dir"), entry("pyproject.toml", "file")],
    ("main", "src"): [entry("src/app.py", "file"), entry("src/util", "dir"), entry("src/README.md", "file")],
    ("main", "tests"): [entry("tests/test_app.py", "file"), entry("tests/data", "dir")],
    ("feature/x", "src"): [entry("src/a.py", "file"), entry("src/new", "dir")],
}
READMES = {("main", ""): README, ("main", "src"): "# src\n\nThe package's code; `app.py` is the entry point.\n"}
BRANCHES = ["main", "feature/x", "feature-y"]
TAGS = ["v1.2.0", "v1.3.0"]
A_PY = "def feature_x():\n    return 'on the feature/x branch'\n"
NOTES_MD = "# My notes\n\nA file whose name has a space.\n"
RAW = {"main/src/app.py": APP_PY, "main/docs/My Notes.md": NOTES_MD}
FILES_AT = {("feature/x", "src/a.py"): A_PY}


def matching_refs(kind, prefix):
    names = BRANCHES if kind == "heads" else TAGS
    return [
        {
            "ref": "refs/%s/%s" % (kind, n),
            "node_id": "REF_" + n,
            "url": "https://api.github.com/repos/octo/demo/git/refs/%s/%s" % (kind, n),
            "object": {
                "sha": "c0ffee%02d" % i,
                "type": "commit",
                "url": "https://api.github.com/repos/octo/demo/git/commits/x",
            },
        }
        for i, n in enumerate(names)
        if n.startswith(prefix)
    ]


def release(tag, name, published, body):
    return {
        "tag_name": tag,
        "name": name,
        "draft": False,
        "prerelease": False,
        "published_at": published,
        "created_at": published,
        "author": _user("releaser"),
        "body": body,
        "assets": [],
        "html_url": "https://github.com/octo/demo/releases/tag/" + tag,
    }


RELEASES = {
    "v1.2.0": release("v1.2.0", "Version 1.2.0", "2025-04-01T00:00:00Z", "## Changes\n\n- Faster loading\n"),
    "v1.3.0": release("v1.3.0", "Version 1.3.0", "2025-06-01T00:00:00Z", "## Changes\n\n- Empty configs load\n"),
}

# Pull request 9's reviews and line comments; its issue comments are at 10:00:01 and 10:00:02 on 01-03.
REVIEWS = [
    {
        "id": 80,
        "user": _user("reviewer"),
        "body": "",
        "state": "COMMENTED",
        "submitted_at": "2025-01-03T09:00:05Z",
        "commit_id": "c0ffee00",
        "author_association": "MEMBER",
    },  # the container of the first line comment
    {
        "id": 82,
        "user": _user("reviewer"),
        "body": "Please handle None as well.",
        "state": "CHANGES_REQUESTED",
        "submitted_at": "2025-01-03T09:30:00Z",
        "commit_id": "c0ffee00",
        "author_association": "MEMBER",
    },
    {
        "id": 81,
        "user": _user("reviewer"),
        "body": "Looks good now.",
        "state": "APPROVED",
        "submitted_at": "2025-01-04T08:00:00Z",
        "commit_id": "c0ffee01",
        "author_association": "MEMBER",
    },
    {
        "id": 83,
        "user": _user("fixer"),
        "body": "draft, not sent",
        "state": "PENDING",
        "commit_id": "c0ffee01",
        "author_association": "CONTRIBUTOR",
    },  # a pending review has no submitted_at
]
HUNK = "@@ -10,4 +10,6 @@ def load_config(text):\n     data = parse(text)\n-    return data['key']\n+    if not data:\n+        return {}\n+    return data['key']"
REVIEW_COMMENTS = [
    {
        "id": 9001,
        "pull_request_review_id": 80,
        "diff_hunk": HUNK,
        "path": "src/config.py",
        "position": 5,
        "original_position": 5,
        "commit_id": "c0ffee00",
        "original_commit_id": "c0ffee00",
        "user": _user("reviewer"),
        "body": "What if `data` is None?",
        "created_at": "2025-01-03T09:00:00Z",
        "updated_at": "2025-01-03T09:00:00Z",
        "start_line": None,
        "original_start_line": None,
        "line": 12,
        "original_line": 12,
        "side": "RIGHT",
        "subject_type": "line",
        "author_association": "MEMBER",
    },
    {
        "id": 9002,
        "pull_request_review_id": 84,
        "in_reply_to_id": 9001,
        "diff_hunk": HUNK,
        "path": "src/config.py",
        "position": 5,
        "original_position": 5,
        "commit_id": "c0ffee01",
        "original_commit_id": "c0ffee00",
        "user": _user("fixer"),
        "body": "Handled in the second commit.",
        "created_at": "2025-01-03T11:00:00Z",
        "updated_at": "2025-01-03T11:00:00Z",
        "start_line": None,
        "original_start_line": None,
        "line": 12,
        "original_line": 12,
        "side": "RIGHT",
        "subject_type": "line",
        "author_association": "CONTRIBUTOR",
    },
]

FILES = [
    {
        "sha": "a%d" % i,
        "filename": name,
        "status": st,
        "additions": ad,
        "deletions": de,
        "changes": ad + de,
        "patch": "@@ -1 +1 @@",
    }
    for i, (name, st, ad, de) in enumerate(
        [
            ("src/config.py", "modified", 30, 2),
            ("tests/test_config.py", "added", 10, 0),
            ("CHANGES.md", "modified", 0, 0),
        ]
    )
]

SE_QUESTION = {
    "tags": ["python", "list"],
    "owner": {
        "account_id": 1,
        "reputation": 1200,
        "user_id": 11,
        "user_type": "registered",
        "display_name": "Asker &amp; Co",
        "link": "https://stackoverflow.com/users/11",
    },
    "is_answered": True,
    "view_count": 1000,
    "accepted_answer_id": 302,
    "answer_count": 3,
    "score": 42,
    "last_activity_date": 1700000000,
    "creation_date": 1600000000,
    "question_id": 123,
    "content_license": "CC BY-SA 4.0",
    "link": "https://stackoverflow.com/questions/123/flatten-a-list",
    "title": "How do I flatten a list of lists?",
    "body": "<p>I have <code>[[1, 2], [3]]</code> and want <code>[1, 2, 3]</code>.</p>",
}


def se_answer(aid, score, accepted, body, when):
    return {
        "owner": {"display_name": "answerer%d" % aid, "user_id": aid, "reputation": 10},
        "is_accepted": accepted,
        "score": score,
        "last_activity_date": when,
        "creation_date": when,
        "answer_id": aid,
        "question_id": 123,
        "content_license": "CC BY-SA 4.0",
        "body": body,
    }


SE_ANSWERS = [
    se_answer(
        301,
        90,
        False,
        "<p>Use itertools:</p>\n<pre><code>import itertools\n\nflat = list(itertools.chain.from_iterable(xss))\n</code></pre>",
        1600000100,
    ),
    se_answer(
        302,
        50,
        True,
        '<p>A comprehension:</p>\n<pre class="lang-py"><code>flat = [x for xs in xss for x in xs]\n\n# two blank lines above\n</code></pre>',
        1600000200,
    ),
    se_answer(303, -2, False, "<p>Use <code>sum(xss, [])</code>, it is quadratic.</p>", 1600000300),
]

PYPI = {
    "info": {
        "name": "demo-pkg",
        "summary": "A demo package",
        "version": "2.1.0",
        "license": "MIT",
        "license_expression": None,
        "author": "Ann Author",
        "requires_python": ">=3.9",
        "requires_dist": ["requests>=2", 'tomli; python_version < "3.11"'],
        "project_urls": {"Homepage": "https://demo.example/", "Source": "https://github.com/octo/demo"},
        "home_page": None,
        "description_content_type": "text/markdown",
        "description": "# demo-pkg\n\nLong description with code:\n\n```python\nimport demo\n```\n",
    },
    "urls": [{"filename": "demo_pkg-2.1.0-py3-none-any.whl", "upload_time_iso_8601": "2025-02-03T04:05:06.000000Z"}],
    "releases": {"2.0.0": [], "2.1.0": []},
    "vulnerabilities": [],
}

NPM = {
    "_id": "demo-js",
    "name": "demo-js",
    "description": "A demo JS package",
    "dist-tags": {"latest": "3.0.1"},
    "license": "ISC",
    "homepage": "https://demo.example/js",
    "repository": {"type": "git", "url": "git+https://github.com/octo/demo-js.git"},
    "bugs": {"url": "https://github.com/octo/demo-js/issues"},
    "time": {"created": "2020-01-01T00:00:00.000Z", "3.0.1": "2025-03-04T05:06:07.000Z"},
    "versions": {
        "3.0.1": {
            "name": "demo-js",
            "version": "3.0.1",
            "license": "ISC",
            "dependencies": {"left-pad": "^1.3.0"},
            "peerDependencies": {"react": ">=18"},
        }
    },
    "readme": "# demo-js\n\nUsage:\n\n```js\nrequire('demo-js')\n```\n",
}

ARXIV_ATOM = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
<title type="html">ArXiv Query: id_list=2401.00001</title>
<entry><id>http://arxiv.org/abs/2401.00001v2</id><updated>2024-01-05T00:00:00Z</updated>
<published>2024-01-01T00:00:00Z</published><title>A Study of
  Demo Papers</title><summary>  We study demo papers and find that they demonstrate.
</summary><author><name>Ada Lovelace</name></author><author><name>Alan Turing</name></author>
<arxiv:primary_category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
<link href="http://arxiv.org/abs/2401.00001v2" rel="alternate" type="text/html"/>
<link title="pdf" href="http://arxiv.org/pdf/2401.00001v2" rel="related" type="application/pdf"/></entry></feed>"""

ARXIV_HTML = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>A Study of Demo Papers</title></head>
<body><article class="ltx_document"><h1 class="ltx_title">A Study of Demo Papers</h1>
<section><h2>1 Introduction</h2><p>Demo papers are everywhere. This introduction explains at length why they matter
to the field and what the rest of the paper does with them, in sentences long enough to count as content.</p>
<h2>2 Method</h2><p>We counted the demo papers by hand and reported the totals in a table that nobody reads.</p></section>
</article></body></html>"""


def search_item(number, pull=False):
    """An item of GitHub's /search/issues: the issue's fields, its repository_url and a score."""
    doc = dict(issue(number, pull), repository_url="https://api.github.com/repos/octo/demo", score=1.0)
    if pull:
        doc["html_url"] = "https://github.com/octo/demo/pull/%d" % number
        doc["pull_request"] = dict(doc["pull_request"], html_url=doc["html_url"])
    return doc


SE_UNANSWERED = dict(
    SE_QUESTION,
    question_id=456,
    title="Flatten a list &quot;in place&quot;?",
    link="https://stackoverflow.com/questions/456/flatten-in-place",
    is_answered=False,
    answer_count=0,
    score=1,
    view_count=12,
    body="<p>Can it be done <em>without</em> a copy?</p>",
)
SE_UNANSWERED.pop("accepted_answer_id")


class SitesServer:
    def __init__(self):
        self.requests = []
        self.searches = []  # (api, q) of each search request: "github" or "stackexchange"
        self.github_found = None  # the items /search/issues answers; None: issue 7 and pull request 9
        self.github_needs_kind = False
        self.github_limited = False
        self.se_throttled = False
        self.echo_auth = False
        self.github_moved = None
        self.arxiv_html = True
        self.arxiv_pdf = None  # bytes of the paper's PDF, or None: 404
        self.answers = {}  # path -> the answer given instead of the recorded one
        self._server = None

    @property
    def base(self):
        return "http://127.0.0.1:%d" % self._server.server_address[1]

    def seen(self, prefix):
        return [(p, h) for p, h in self.requests if p.startswith(prefix)]

    def start(self):
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def send(self, status, body, ctype="application/json; charset=utf-8", headers=()):
                if not isinstance(body, bytes):
                    body = body if isinstance(body, str) else json.dumps(body)
                    body = body.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for k, v in headers:
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                parts = urlsplit(self.path)
                outer.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                q = {k: v[0] for k, v in parse_qs(parts.query).items()}
                path = parts.path
                try:
                    if path in outer.answers:
                        return answers.send(self, outer.answers[path])
                    if outer.github_moved and path.startswith(("/gh-api/", "/gh-raw/")):
                        # A renamed repository's API answer (301) or a raw host's redirect (302).
                        status = 301 if path.startswith("/gh-api/") else 302
                        return self.send(
                            status,
                            {"message": "Moved Permanently", "url": outer.github_moved + self.path},
                            headers=[("Location", outer.github_moved + self.path)],
                        )
                    if path.startswith("/gh-api/"):
                        return self.github(path[len("/gh-api") :], q)
                    if path.startswith("/gh-raw/"):
                        text = (
                            RAW.get(unquote(path[len("/gh-raw/octo/demo/") :]))
                            if path.startswith("/gh-raw/octo/demo/")
                            else None
                        )
                        if text is not None:
                            return self.send(200, text, "text/plain; charset=utf-8")
                        return self.send(404, "404: Not Found", "text/plain")
                    if path.startswith("/se-api/"):
                        return self.stackexchange(path[len("/se-api") :], q)
                    if path == "/pypi/demo-pkg/json":
                        return self.send(200, PYPI)
                    if path == "/npm/demo-js":
                        return self.send(200, NPM)
                    if path == "/arxiv-api/query":
                        return self.send(200, ARXIV_ATOM, "application/atom+xml; charset=utf-8")
                    if path.startswith("/arxiv-html/2401.00001"):
                        if outer.arxiv_html:
                            return self.send(200, ARXIV_HTML, "text/html; charset=utf-8")
                        return self.send(404, "<html><body>No HTML</body></html>", "text/html")
                    if path.startswith("/arxiv-pdf/"):
                        if outer.arxiv_pdf:
                            return self.send(200, outer.arxiv_pdf, "application/pdf")
                        return self.send(404, "<html><body>Not found</body></html>", "text/html")
                    return self.send(200, HTML_PAGE, "text/html; charset=utf-8")
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def limits(self, remaining):
                return [
                    ("X-RateLimit-Limit", "60"),
                    ("X-RateLimit-Remaining", str(remaining)),
                    ("X-RateLimit-Reset", str(RESET)),
                    ("X-RateLimit-Used", str(60 - remaining)),
                    ("X-RateLimit-Resource", "core"),
                    ("X-GitHub-Media-Type", "github.v3; format=json"),
                ]

            def github(self, path, q):
                if outer.github_limited:
                    return self.send(
                        403,
                        {
                            "message": "API rate limit exceeded for 203.0.113.9. (But here's the good news: "
                            "Authenticated requests get a higher rate limit. Check out the "
                            "documentation for more details.)",
                            "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
                        },
                        headers=self.limits(0),
                    )
                token = self.headers.get("Authorization") if outer.echo_auth else None
                h = self.limits(59)
                if path == "/search/issues":
                    return self.search_issues(q, h)
                if path == "/repos/octo/demo":
                    return self.send(
                        200,
                        {
                            "id": 1,
                            "full_name": "octo/demo",
                            "description": "Demo repository",
                            "default_branch": "main",
                            "language": "Python",
                            "stargazers_count": 12,
                            "license": {"key": "mit", "spdx_id": "MIT"},
                            "private": False,
                        },
                        headers=h,
                    )
                path = unquote(path)
                ref = q.get("ref", "main")
                if (
                    path.startswith(("/repos/octo/demo/contents/", "/repos/octo/demo/readme"))
                    and ref not in BRANCHES + TAGS
                ):
                    return self.send(
                        404,
                        {
                            "message": "No commit found for the ref %s" % ref,
                            "documentation_url": "https://docs.github.com/rest/repos/contents",
                            "status": "404",
                        },
                        headers=h,
                    )
                if path.startswith("/repos/octo/demo/contents/"):
                    sub = path[len("/repos/octo/demo/contents/") :].strip("/")
                    if (ref, sub) in TREES:
                        return self.send(200, TREES[(ref, sub)], headers=h)
                    if (ref, sub) in FILES_AT and "raw" in self.headers.get("Accept", ""):
                        return self.send(200, FILES_AT[(ref, sub)], "text/plain; charset=utf-8", headers=h)
                if path == "/repos/octo/demo/readme" or path.startswith("/repos/octo/demo/readme/"):
                    sub = path[len("/repos/octo/demo/readme") :].strip("/")
                    if (ref, sub) in READMES:
                        return self.send(200, readme((sub + "/README.md").lstrip("/"), READMES[(ref, sub)]), headers=h)
                for kind in ("heads", "tags"):
                    prefix = "/repos/octo/demo/git/matching-refs/%s/" % kind
                    if path.startswith(prefix):
                        return self.send(200, matching_refs(kind, path[len(prefix) :]), headers=h)
                if path == "/repos/octo/demo/pulls/9/reviews":
                    return self.send(200, REVIEWS, headers=h)
                if path == "/repos/octo/demo/pulls/9/comments":
                    return self.send(200, REVIEW_COMMENTS, headers=h)
                if path == "/repos/octo/demo/releases/latest":
                    return self.send(200, RELEASES["v1.3.0"], headers=h)
                if path.startswith("/repos/octo/demo/releases/tags/") and path.rsplit("/", 1)[1] in RELEASES:
                    return self.send(200, RELEASES[path.rsplit("/", 1)[1]], headers=h)
                if path == "/repos/octo/demo/issues/7":
                    return self.send(200, issue(7), headers=h)
                if path == "/repos/octo/demo/issues/9":
                    return self.send(200, issue(9, pull=True), headers=h)
                if path == "/repos/octo/demo/pulls/9":
                    return self.send(200, pull(9), headers=h)
                if path == "/repos/octo/demo/pulls/9/files":
                    return self.send(200, FILES, headers=h)
                if path in ("/repos/octo/demo/issues/7/comments", "/repos/octo/demo/issues/9/comments"):
                    total = COMMENTS if "/7/" in path else 2
                    per, page = int(q.get("per_page", 30)), int(q.get("page", 1))
                    items = [comment(i, token) for i in range(1, total + 1)][(page - 1) * per : page * per]
                    last = (total + per - 1) // per
                    links = []
                    link = '<%s/gh-api%s?per_page=%d&page=%%d>; rel="%%s"' % (outer.base, path, per)
                    if page < last:
                        links += [link % (page + 1, "next"), link % (last, "last")]
                    if page > 1:
                        links += [link % (1, "first"), link % (page - 1, "prev")]
                    return self.send(200, items, headers=h + ([("Link", ", ".join(links))] if links else []))
                if path == "/gists/abc123":
                    return self.send(
                        200,
                        {
                            "id": "abc123",
                            "description": "A handy snippet",
                            "owner": _user("gister"),
                            "created_at": "2024-05-06T07:08:09Z",
                            "files": {
                                "snippet.py": {
                                    "filename": "snippet.py",
                                    "language": "Python",
                                    "size": 20,
                                    "truncated": False,
                                    "content": "print('gist')\n",
                                }
                            },
                        },
                        headers=h,
                    )
                return self.send(
                    404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}, headers=h
                )

            def search_issues(self, q, h):
                query = q.get("q", "")
                outer.searches.append(("github", query))
                if outer.github_needs_kind and not any(k in query.split() for k in ("is:issue", "is:pr")):
                    return self.send(
                        422,
                        {
                            "message": "Query must include 'is:issue' or 'is:pull-request'",
                            "documentation_url": "https://docs.github.com/rest/search/search#search-issues-and-pull-requests",
                            "status": "422",
                        },
                        headers=h,
                    )
                found = outer.github_found if outer.github_found is not None else [search_item(7), search_item(9, True)]
                per = int(q.get("per_page", 30))
                body = {"total_count": len(found), "incomplete_results": False, "items": found[:per]}
                return self.send(200, body, headers=h + [("X-GitHub-Request-Id", "AB12:3456:789")])

            def stackexchange(self, path, q):
                if outer.se_throttled:
                    return self.send(
                        400,
                        {
                            "error_id": 502,
                            "error_message": "too many requests from this IP, more requests available in 80000 seconds",
                            "error_name": "throttle_violation",
                        },
                    )
                if q.get("site") != "stackoverflow":
                    return self.send(
                        400, {"error_id": 400, "error_message": "site is required", "error_name": "bad_parameter"}
                    )
                if path == "/search/advanced":
                    outer.searches.append(("stackexchange", q.get("q")))
                    items = [SE_QUESTION, SE_UNANSWERED][: int(q.get("pagesize", 30))]
                    body = gzip.compress(
                        json.dumps(
                            {"items": items, "has_more": False, "quota_max": 300, "quota_remaining": 290}
                        ).encode()
                    )
                    return self.send(200, body, headers=[("Content-Encoding", "gzip")])
                if path == "/questions/123":
                    return self.send(
                        200, {"items": [SE_QUESTION], "has_more": False, "quota_max": 300, "quota_remaining": 297}
                    )
                if path.startswith("/answers/"):  # an answer's own record (default filter: no body)
                    found = [
                        {k: v for k, v in a.items() if k != "body"}
                        for a in SE_ANSWERS
                        if "/answers/%d" % a["answer_id"] == path
                    ]
                    return self.send(200, {"items": found, "has_more": False, "quota_max": 300, "quota_remaining": 298})
                if path == "/questions/123/answers":
                    page = int(q.get("page", 1))
                    # One answer a page whatever pagesize says: has_more must be followed.
                    ordered = sorted(SE_ANSWERS, key=lambda a: -a["score"])
                    return self.send(
                        200,
                        {
                            "items": ordered[page - 1 : page],
                            "has_more": page < len(ordered),
                            "quota_max": 300,
                            "quota_remaining": 296,
                        },
                    )
                return self.send(200, {"items": [], "has_more": False, "quota_max": 300, "quota_remaining": 295})

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self):
        self._server.shutdown()
        self._server.server_close()
