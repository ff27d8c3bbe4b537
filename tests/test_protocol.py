import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worker import protocol

HOSTILE = [
    "SEARCH_DONE",
    "SEARCH_OK\n{}\nSEARCH_DONE",
    "\nSEARCH_DONE\n",
    "search_done",
    "SEARCH_ERROR",
    "\ud800 lone surrogate",
    "\x00\x01\x1b[31m",
    "\u2028\u2029",
    "caf\u00e9 \U0001f600",
    "\\u005f",
    "SEARCH\\_DONE",
    "\\SEARCH_DONE",
    '"}SEARCH_DONE{"',
]


def naive_parse(out):
    start = out.index(protocol.OK) if protocol.OK in out else out.index(protocol.ERROR)
    marker = protocol.OK if out.startswith(protocol.OK, start) else protocol.ERROR
    end = out.index(protocol.DONE)
    return json.loads(out[start + len(marker) : end])


@pytest.mark.parametrize("s", HOSTILE)
def test_hostile_strings_round_trip(s):
    out = protocol.render_ok({"results": [{"title": s, "snippet": s, s: s}]})
    assert out.isascii()
    body = out.split("\n")
    assert body[0] == "SEARCH_OK" and body[2] == "SEARCH_DONE" and len(body) == 4
    assert "SEARCH_" not in body[1]
    assert protocol.parse(out)["results"][0]["title"] == s
    assert naive_parse(out)["results"][0][s] == s


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_round_trips_through_emitter(s):
    out = protocol.render_error("internal", s, hint=s)
    assert out.count("SEARCH_") == 2
    assert protocol.parse(out)["error"]["message"] == s
    assert naive_parse(out)["error"].get("hint", "") == s


def test_parser_tolerates_noise_outside_block():
    out = "banner\nwarning: x\n" + protocol.render_ok({"a": 1}) + "trailing noise\n"
    assert protocol.parse(out)["a"] == 1


@pytest.mark.parametrize(
    "out, why",
    [
        ("", "no SEARCH_OK"),
        ("SEARCH_OK\n", "no payload"),
        ('SEARCH_OK\n{"ok":true,"v":1}\n', "not followed"),
        ('SEARCH_OK\n{"ok":true,"v":1', "malformed"),
        ('SEARCH_OK\n{"ok":tr\n', "malformed"),
        ('SEARCH_OK\n{"ok":false,"v":1}\nSEARCH_DONE\n', "disagrees"),
        ("SEARCH_OK\n[1]\nSEARCH_DONE\n", "not a protocol object"),
    ],
)
def test_parser_is_strict_inside_block(out, why):
    with pytest.raises(protocol.ProtocolError, match=why):
        protocol.parse(out)


# -- the one error serialiser (worker.errors.error_object) and the shapes built from it ----------


def test_error_object_order_and_fields():
    from worker.errors import WorkerError, error_object

    exc = WorkerError(
        "http_error",
        "x answered HTTP 503",
        hint="retry later",
        retryable=True,
        status=503,
        retry_after=3.0,
        results=[1],
    )
    assert list(exc.to_dict()) == ["code", "message", "retryable", "hint", "status", "retry_after", "results"]
    assert error_object("timeout", "m") == {"code": "timeout", "message": "m", "retryable": False}
    assert list(error_object("auth", "m", hint="", extra={"status": 401})) == ["code", "message", "retryable", "status"]
    assert exc.to_dict(("message", "nope", "code")) == {"message": "x answered HTTP 503", "code": "http_error"}
    assert list(exc.to_dict(("message", "nope", "code"))) == ["message", "code"]


def test_block_item_attempt_and_fetch_error_shapes():
    """The JSON each place writes, byte for byte as before the serialiser was shared."""
    from worker.errors import WorkerError
    from worker.pages.read.item import error_item
    from worker.providers.base import ProviderSpec
    from worker.tools.search import _attempt

    exc = WorkerError(
        "http_error",
        "u answered HTTP 429",
        hint="slow down",
        retryable=True,
        status=429,
        retry_after=7,
        results=[{"x": 1}],
        request_id="r",
    )
    block = protocol.render_error(exc.code, exc.message, exc.hint, exc.retryable, **exc.extra).split("\n")[1]
    assert block == (
        '{"ok":false,"v":1,"error":{"code":"http_error","message":"u answered HTTP 429","retryable":true,'
        '"hint":"slow down","status":429,"retry_after":7,"results":[{"x":1}],"request_id":"r"}}'
    )
    assert json.dumps(error_item("u", exc)) == (
        '{"url": "u", "ok": false, "error": {"code": "http_error", "message": "u answered HTTP 429", "status": 429, '
        '"retry_after": 7, "hint": "slow down", "retryable": true}}'
    )
    assert error_item("u", KeyError("k"))["error"] == {
        "code": "internal",
        "message": "internal error: KeyError: 'k'",
        "retryable": False,
    }
    attempt = _attempt(ProviderSpec("exa-main", "exa"), exc.code, 41.6, exc)
    assert json.dumps(attempt) == (
        '{"provider": "exa-main", "type": "exa", "outcome": "http_error", "ms": 42, '
        '"message": "u answered HTTP 429", "retry_after": 7}'
    )
    assert "retry_after" not in _attempt(ProviderSpec("b", "brave"), "auth", 1, WorkerError("auth", "no"))


def test_enrich_fetch_error_and_exa_item_errors_keep_their_few_fields():
    from worker.providers.exa import fetch_items
    from worker.tools.enrich import _mark_failed

    result = {}
    _mark_failed(result, "timeout", "no answer\nwithin 6 s")
    assert result == {"fetched": False, "fetch_error": {"code": "timeout", "message": "no answer within 6 s"}}
    data = {
        "results": [],
        "statuses": [
            {"id": "https://a.example/x", "status": "error", "error": {"tag": "CRAWL_NOT_FOUND", "httpStatusCode": 404}}
        ],
    }
    items = fetch_items(["https://a.example/x", "https://a.example/y"], data, 100, 0)
    assert json.dumps([it["error"] for it in items]) == (
        '[{"code": "http_error", "message": "Exa could not fetch this URL (CRAWL_NOT_FOUND, HTTP 404)", '
        '"tag": "CRAWL_NOT_FOUND", "status": 404}, '
        '{"code": "provider", "message": "Exa returned no content for this URL"}]'
    )
