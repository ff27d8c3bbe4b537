"""The search tool's developer sources (issue 43): GitHub's issue search and Stack Overflow's question
search, in-process against the local stand-ins of their APIs (tests/fakes/sites_server.py): mapping,
errors of every kind the APIs give, keys kept out of messages, and random shapes thrown at the mapping."""

import copy
import gzip
import json
import random
import time

import pytest
from fakes import sites_server as fake
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from worker import jsonio
from worker.errors import WorkerError
from worker.providers import github_search, stackexchange_search
from worker.providers.base import ProviderSpec
from worker.request import SearchRequest
from worker.runtime import Call
from worker.state import ratelimit
from worker.tools import fusion, textview


@pytest.fixture
def srv():
    s = fake.SitesServer().start()
    yield s
    s.stop()


@pytest.fixture(autouse=True)
def own_locks(tmp_path):
    ratelimit.configure(str(tmp_path / "state"))  # the slots' files in the test's directory, not the home
    yield
    ratelimit.configure(None)


def gh(srv, key=None, **options):
    spec = ProviderSpec("github", "github", api_key=key, base_url=srv.base + "/gh-api", options=options)
    return github_search.GithubSearch(spec, Call(timeout=30))


def se(srv, key=None, **options):
    spec = ProviderSpec("stackexchange", "stackexchange", api_key=key, base_url=srv.base + "/se-api", options=options)
    return stackexchange_search.StackExchangeSearch(spec, Call(timeout=30))


def q(text="flatten", **kw):
    return SearchRequest(query=text, **kw)


# -- GitHub ---------------------------------------------------------------------------------


def test_github_maps_issues_and_pull_requests(srv):
    got = gh(srv).search(q("crash", limit=7, page=2))
    issue, pull = got["results"]
    assert issue == {
        "title": "Crash when the config is empty",
        "url": "https://github.com/octo/demo/issues/7",
        "snippet": "Steps: ```python load_config('') ``` It raises `KeyError`.",
        "kind": "issue",
        "state": "open",
        "comments": 205,
        "repository": "octo/demo",
        "number": 7,
        "published": "2025-01-02T03:04:05Z",
        "updated": "2025-01-09T00:00:00Z",
        "labels": ["bug", "good first issue"],
        "author": "reporter",
    }
    assert pull["kind"] == "pull" and pull["state"] == "merged" and pull["url"].endswith("/pull/9")
    assert (
        got["meta"]["total_count"] == 2 and got["meta"]["token"] is False and got["meta"]["ratelimit_remaining"] == 59
    )
    assert got["meta"]["request_id"] == "AB12:3456:789"
    path, headers = srv.seen("/gh-api/search/issues")[0]
    assert "per_page=7" in path and "page=2" in path and "authorization" not in headers


def test_github_recency_is_an_updated_qualifier():
    now = time.mktime((2026, 3, 10, 12, 0, 0, 0, 0, 0))
    assert github_search.query_of(q("x", recency="week"), now=now).startswith("x updated:>=2026-03-0")
    assert github_search.query_of(q("repo:a/b is:pr x")) == "repo:a/b is:pr x"


def test_github_rate_limits_are_rate_limited_with_the_wait(srv):
    srv.github_limited = True  # 403, X-RateLimit-Remaining: 0, a reset time in the past
    with pytest.raises(WorkerError) as exc:
        gh(srv).search(q())
    e = exc.value
    assert e.code == "rate_limited" and e.retryable and e.extra["status"] == 403 and e.extra["retry_after"] >= 1
    assert "GITHUB_TOKEN" in e.hint
    provider = gh(srv)
    e429 = provider.http_error(429, {"Retry-After": "42"}, b'{"message": "slow down"}')
    assert e429.code == "rate_limited" and e429.extra["retry_after"] == 42
    secondary = provider.http_error(403, {}, b'{"message": "You have exceeded a secondary rate limit"}')
    assert secondary.code == "rate_limited"
    assert provider.http_error(403, {}, b'{"message": "Resource not accessible"}').code == "auth"
    assert provider.http_error(401, {}, b'{"message": "Bad credentials"}').code == "auth"
    assert provider.http_error(422, {}, b'{"message": "Validation Failed"}').code == "invalid_argument"
    assert provider.http_error(502, {}, b"<html>bad gateway</html>").code == "provider"


def test_github_token_is_sent_and_never_in_a_message(srv):
    token = "ghp_secret0123456789abcdef"
    srv.answers["/gh-api/search/issues"] = "not json"  # a broken answer: its error names no token
    with pytest.raises(WorkerError) as exc:
        gh(srv, key=token).search(q())
    assert exc.value.code == "provider" and token not in str(exc.value.to_dict())
    assert srv.seen("/gh-api/search/issues")[0][1]["authorization"] == "Bearer " + token
    echoed = gh(srv, key=token).http_error(403, {}, json.dumps({"message": "rate limit for %s" % token}).encode())
    assert echoed.code == "rate_limited" and token not in echoed.message


# -- Stack Exchange -----------------------------------------------------------------------------


def test_stackexchange_maps_questions_from_gzip(srv):
    got = se(srv).search(q("flatten", limit=2, recency="month"))
    first, second = got["results"]
    assert first == {
        "title": "How do I flatten a list of lists?",
        "url": "https://stackoverflow.com/questions/123/flatten-a-list",
        "snippet": "I have [[1, 2], [3]] and want [1, 2, 3] .",
        "votes": 42,
        "answered": True,
        "answers": 3,
        "accepted_answer": "https://stackoverflow.com/a/302",
        "tags": ["python", "list"],
        "views": 1000,
        "published": "2020-09-13T12:26:40Z",
        "updated": "2023-11-14T22:13:20Z",
    }
    assert second["answered"] is False and second["accepted_answer"] is None and second["votes"] == 1
    assert got["meta"]["quota_remaining"] == 290 and got["meta"]["key"] is False
    path, _ = srv.seen("/se-api/search/advanced")[0]
    for part in ("site=stackoverflow", "pagesize=2", "filter=withbody", "sort=relevance", "fromdate="):
        assert part in path, path
    assert "key=" not in path


def test_stackexchange_gzip_without_its_header_is_read(srv):
    body = gzip.compress(json.dumps({"items": [fake.SE_QUESTION], "has_more": False}).encode())
    srv.answers["/se-api/search/advanced"] = body  # bytes sent as they are, no Content-Encoding
    assert se(srv).search(q())["results"][0]["votes"] == 42


def test_stackexchange_errors_and_the_key(srv):
    key = "se-key-0123456789((secret"
    srv.se_throttled = True
    with pytest.raises(WorkerError) as exc:
        se(srv, key=key).search(q())
    e = exc.value
    assert e.code == "rate_limited" and e.retryable and e.extra["retry_after"] == 80000
    assert e.extra["error_name"] == "throttle_violation" and key not in str(e.to_dict())
    path, _ = srv.seen("/se-api/search/advanced")[0]
    assert "key=se-key-0123456789%28%28secret" in path  # the key goes to the API, as a parameter
    p = se(srv, key=key)
    denied = p.http_error(
        400,
        None,
        json.dumps({"error_id": 403, "error_name": "access_denied", "error_message": "key %s" % key}).encode(),
    )
    assert denied.code == "auth" and key not in denied.message and "STACKEXCHANGE_KEY" in denied.hint
    assert p.http_error(400, None, b'{"error_id": 400, "error_name": "bad_parameter"}').code == "invalid_argument"
    assert p.http_error(503, None, b'{"error_id": 503, "error_name": "temporarily_unavailable"}').code == "provider"
    assert p.http_error(404, None, b"<html>").code == "provider"


def test_stackexchange_backoff_holds_the_next_request_back(srv, tmp_path):
    srv.answers["/se-api/search/advanced"] = {"items": [], "has_more": False, "backoff": 1}
    provider = se(srv)
    first = provider.search(q())
    assert first["meta"]["backoff_s"] == 1 and "pause of 1 s" in first["warnings"][0]
    del srv.answers["/se-api/search/advanced"]
    started = time.monotonic()
    se(srv).search(q())  # another call of the same user: it waits for the API's backoff too
    assert time.monotonic() - started >= 0.8


# -- random shapes at the mapping and the fusion --------------------------------------------------

LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(["", "1e400", "NaN", "\u00b2", "https://a.example/x", "javascript:x", "<b>x</b>", "a\x00b"])
    | st.text(max_size=20)
)
JSON = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def mutate(doc, rng, values):
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


@pytest.mark.slow
@SETTINGS
@given(values=st.lists(JSON, min_size=1, max_size=12), seed=st.integers(0, 2**32))
def test_the_mapping_and_the_fusion_never_raise(values, seed):
    rng = random.Random(seed)
    lists = []
    for module, item in (
        (github_search, fake.search_item(9, pull=True)),
        (stackexchange_search, fake.SE_QUESTION),
    ):
        doc = jsonio.tame(jsonio.loads(jsonio.dumps(mutate(item, rng, values), allow_nan=True)))
        result = module.result_of(doc) if isinstance(doc, dict) else None
        if result is not None:
            assert isinstance(result["url"], str) and result["url"].startswith(("http://", "https://"))
            jsonio.dumps(result)  # the strict encoder takes it
            lists.append((module.__name__.rsplit(".", 1)[-1], "q%d" % len(lists), [result]))
    merged, facts = fusion.fuse(lists + [("web", "q", [{"url": v} for v in values if not isinstance(v, list)])])
    jsonio.dumps([merged, facts])
    textview.search_text({"tool": "search", "provider": "p", "queries": ["a", "b"], "results": merged, "meta": {}})
