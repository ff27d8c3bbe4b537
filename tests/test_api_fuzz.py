"""Random JSON shapes thrown at every reader of an API's answer (issue 27, item 4), in-process.

Each site adapter's ``read`` runs against a stand-in Context whose GETs answer
the recorded documents of tests/fakes/sites_server.py with values swapped for
random JSON (wrong types, huge and non-finite numbers, odd text) or a random
value outright; each search provider's mapping gets the same treatment with
tests/fakes/brave_server.py's and exa_server.py's answers.  A reader may give up
(an adapter's Fallback, a provider's error of a documented code) but never
raise anything else, and what it returns must be what the protocol's encoder
writes.  tests/test_api_values.py has the named cases through the real CLI.
"""

import copy
import random
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest
from fakes import brave_server, exa_server
from fakes import sites_server as fake
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from worker import jsonio
from worker.errors import CODES, WorkerError
from worker.pages import sites
from worker.pages.net.client import Options
from worker.providers import brave, ddgs, exa
from worker.providers.base import ProviderSpec
from worker.tools import textview

pytestmark = pytest.mark.slow  # hypothesis, hundreds of examples per test

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# JSON as an API might send it: every type, numbers no sane API sends, text with markup and odd characters.
LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(["", "12abc", "1e400", "NaN", "\u00b2", "IyBk!!", "a\x00b", "<b>x</b>", "=" * 5, "base64"])
    | st.text(max_size=20)
)
JSON = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def mutate(doc, rng, values):
    """``doc`` with some of its values (at any depth) swapped for ``values`` drawn in turn."""
    doc = copy.deepcopy(doc)
    stack = [doc]
    while stack:
        node = stack.pop()
        keys = list(node) if isinstance(node, dict) else range(len(node)) if isinstance(node, list) else []
        for k in keys:
            if rng.random() < 0.3 and values:
                node[k] = values.pop()
            elif isinstance(node[k], (dict, list)):
                stack.append(node[k])
    return doc


def encodes(value):
    """What the protocol writes: the strict encoder (no NaN, no Infinity) must take it."""
    jsonio.dumps(value)


# ------------------------------------------------------------------ site adapters

REPO = {"id": 1, "full_name": "octo/demo", "description": "d", "default_branch": "main", "stargazers_count": 3}
RECORDED = [  # (path prefix of the API request, the recorded answer)
    ("/gh/repos/octo/demo/issues/7/comments", [fake.comment(i) for i in range(1, 4)]),
    ("/gh/repos/octo/demo/issues/9/comments", [fake.comment(i) for i in range(1, 3)]),
    ("/gh/repos/octo/demo/issues/", fake.issue(9, pull=True)),
    ("/gh/repos/octo/demo/pulls/9/files", fake.FILES),
    ("/gh/repos/octo/demo/pulls/9/reviews", fake.REVIEWS),
    ("/gh/repos/octo/demo/pulls/9/comments", fake.REVIEW_COMMENTS),
    ("/gh/repos/octo/demo/pulls/9", fake.pull(9)),
    ("/gh/repos/octo/demo/contents/", fake.TREES[("main", "")]),
    ("/gh/repos/octo/demo/readme", fake.readme("README.md", fake.README)),
    ("/gh/repos/octo/demo/releases/latest", fake.RELEASES["v1.3.0"]),
    ("/gh/repos/octo/demo/releases/tags/", fake.RELEASES["v1.2.0"]),
    ("/gh/repos/octo/demo/releases", list(fake.RELEASES.values())),
    ("/gh/repos/octo/demo/git/matching-refs/heads/", fake.matching_refs("heads", "")),
    ("/gh/repos/octo/demo/git/matching-refs/tags/", fake.matching_refs("tags", "")),
    ("/gh/repos/octo/demo", REPO),
    ("/gh/gists/abc123", {"id": "abc123", "description": "g", "owner": {"login": "o"}, "files": {"a.py": {}}}),
    ("/se/questions/123/answers", {"items": fake.SE_ANSWERS, "has_more": False, "quota_remaining": 3}),
    ("/se/questions/123", {"items": [fake.SE_QUESTION], "has_more": False, "quota_remaining": 3}),
    ("/se/answers/301", {"items": [{"answer_id": 301, "question_id": 123}], "has_more": False}),
    ("/npm/demo-js", fake.NPM),
    ("/pypi/demo-pkg/json", fake.PYPI),
]
URLS = {
    "github": [
        "https://github.com/octo/demo/issues/7",
        "https://github.com/octo/demo/pull/9",
        "https://github.com/octo/demo",
        "https://github.com/octo/demo/tree/main/src",
        "https://github.com/octo/demo/tree/feature/x/src",
        "https://github.com/octo/demo/releases",
        "https://github.com/octo/demo/releases/latest",
        "https://github.com/octo/demo/releases/tag/v1.2.0",
        "https://gist.github.com/octo/abc123",
    ],
    "stackexchange": ["https://stackoverflow.com/questions/123/x", "https://stackoverflow.com/a/301"],
    "npm": ["https://www.npmjs.com/package/demo-js"],
    "pypi": ["https://pypi.test/project/demo-pkg/"],
}
BASES = {
    "github": {"apiBase": "http://api.test/gh", "rawBase": "http://raw.test/raw"},
    "stackexchange": {"apiBase": "http://api.test/se"},
    "npm": {"apiBase": "http://api.test/npm"},
    "pypi": {"apiBase": "http://api.test"},
}


class Answer:
    """The few fields of a client Response an adapter reads."""

    def __init__(self, body, status=200):
        self.status = status
        self.body = body
        self.headers = {}
        self.truncated = False
        self.content_type = "application/json"


class FuzzContext(sites.Context):
    """An adapter's Context whose GETs answer recorded documents, mutated (or a random value outright)."""

    def __init__(self, name, rng, values, whole):
        super().__init__(name, None, Options(), BASES[name], "markdown")
        self.rng, self.values, self.whole = rng, values, whole

    def get(self, url, accept=None, max_bytes=None):
        self.requests += 1
        path = urlsplit(url).path
        doc = next((d for prefix, d in RECORDED if path.startswith(prefix)), None)
        if doc is None or (self.whole and self.values):
            doc = self.values.pop() if self.values else None
        else:
            doc = mutate(doc, self.rng, self.values)
        # NaN and Infinity as a careless encoder writes them, the way they arrive from a server
        return Answer(jsonio.dumps(doc, allow_nan=True).encode())


@pytest.mark.parametrize("name", sorted(URLS))
@SETTINGS
@given(values=st.lists(JSON, min_size=1, max_size=12), seed=st.integers(0, 2**32), whole=st.booleans())
def test_site_adapters_never_raise_beyond_fallback(name, values, seed, whole):
    from importlib import import_module

    module = import_module("worker.pages.sites." + name)
    for url in URLS[name]:
        ctx = FuzzContext(name, random.Random(seed), list(values), whole)
        try:
            doc = module.read(ctx, url, urlsplit(url))
        except sites.Fallback:
            continue
        except WorkerError as exc:
            assert exc.code in CODES and exc.code != "internal"
            continue
        text, fmt, meta, _, warnings = doc.document("markdown")
        assert isinstance(text, str) and all(isinstance(w, str) for w in warnings + ctx.warnings)
        encodes({"meta": ctx.meta, "fields": doc.fields, "title": doc.title, "doc_meta": meta})


# ------------------------------------------------------------------ search providers


def _check_results(results):
    for r in results:
        assert all(isinstance(r[k], str) for k in ("title", "url", "snippet")), r
    encodes(results)
    textview.search_text({"tool": "search", "provider": "p", "results": results, "meta": {}, "warnings": []})


@SETTINGS
@given(values=st.lists(JSON, min_size=1, max_size=12), seed=st.integers(0, 2**32), whole=st.booleans())
def test_brave_mapping_never_raises(values, seed, whole):
    rng = random.Random(seed)
    for recorded, parse in ((brave_server.FULL, brave.parse_results), (brave_server.NEWS, brave.parse_news_results)):
        body = values.pop() if whole and values else mutate(recorded, rng, values)
        body = jsonio.tame(jsonio.loads(jsonio.dumps(body, allow_nan=True)))  # as keyed.decode hands it over
        results, skipped = parse(body)
        assert isinstance(skipped, int)
        _check_results(results)


EXA_SEARCH = exa_server.search_answer(
    {"query": "q", "numResults": 3, "contents": {"text": True, "highlights": True, "summary": True}}
)
EXA_CONTENTS = {
    "requestId": "r",
    "results": [{"id": "https://a.example/", "url": "https://a.example/", "title": "A", "text": "body"}],
    "statuses": [
        {"id": "https://a.example/", "status": "success", "source": "cached"},
        {"id": "https://b.example/", "status": "error", "error": {"tag": "CRAWL_NOT_FOUND", "httpStatusCode": 404}},
    ],
    "costDollars": {"total": 0.001},
}


@SETTINGS
@given(values=st.lists(JSON, min_size=1, max_size=12), seed=st.integers(0, 2**32), whole=st.booleans())
def test_exa_mapping_never_raises(values, seed, whole):
    rng = random.Random(seed)
    api = exa.ExaProvider(ProviderSpec("exa", "exa", api_key="k"), None)
    search = values.pop() if whole and values else mutate(EXA_SEARCH, rng, values)
    contents = values.pop() if whole and values else mutate(EXA_CONTENTS, rng, values)
    # keyed.decode hands over a JSON object with NaN and Infinity tamed; anything else is its provider error
    search, contents = (jsonio.tame(jsonio.loads(jsonio.dumps(d, allow_nan=True))) for d in (search, contents))
    if isinstance(search, dict):
        _check_results(exa.search_results(search, news=seed % 2 == 0))
        encodes(exa.response_meta(search, api))
    if isinstance(contents, dict):
        urls = ["https://a.example/", "https://b.example/", "https://c.example/"]
        items = exa.fetch_items(urls, contents, 1000, 0)
        assert [it["url"] for it in items] == urls
        for it in items:
            assert it["ok"] or it["error"]["code"] in CODES and it["error"]["code"] != "internal"
            assert not it["ok"] or isinstance(it["content"], str) and isinstance(it["title"], str)
        encodes(items)
        encodes(exa.response_meta(contents, api))


@SETTINGS
@given(fields=st.lists(JSON | st.sampled_from(["http://[::1", "https://a.example/x", "\u00b2" * 10]), min_size=7))
def test_ddgs_mapping_never_raises(fields):
    names = ("title", "href", "body", "date", "url", "image", "source")
    item = SimpleNamespace(**dict(zip(names, fields)))
    results = [ddgs.to_result(item, "e"), ddgs.to_news_result(item, "e")]
    _check_results(ddgs.filter_domains(results, ["a.example"], ["b.example"]))
    assert ddgs.news_date("\u00b2" * 10) == "\u00b2" * 10  # str.isdigit's digits are no Unix time
