import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worker import protocol

HOSTILE = [
    "SEARCH_DONE", "SEARCH_OK\n{}\nSEARCH_DONE", "\nSEARCH_DONE\n", "search_done", "SEARCH_ERROR",
    "\ud800 lone surrogate", "\x00\x01\x1b[31m", "\u2028\u2029", "caf\u00e9 \U0001F600", "\\u005f", "SEARCH\\_DONE",
    "\\SEARCH_DONE", '"}SEARCH_DONE{"',
]


def naive_parse(out):
    start = out.index(protocol.OK) if protocol.OK in out else out.index(protocol.ERROR)
    marker = protocol.OK if out.startswith(protocol.OK, start) else protocol.ERROR
    end = out.index(protocol.DONE)
    return json.loads(out[start + len(marker):end])


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


@pytest.mark.parametrize("out, why", [
    ("", "no SEARCH_OK"),
    ("SEARCH_OK\n", "no payload"),
    ('SEARCH_OK\n{"ok":true,"v":1}\n', "not followed"),
    ('SEARCH_OK\n{"ok":true,"v":1', "malformed"),
    ('SEARCH_OK\n{"ok":tr\n', "malformed"),
    ('SEARCH_OK\n{"ok":false,"v":1}\nSEARCH_DONE\n', "disagrees"),
    ('SEARCH_OK\n[1]\nSEARCH_DONE\n', "not a protocol object"),
])
def test_parser_is_strict_inside_block(out, why):
    with pytest.raises(protocol.ProtocolError, match=why):
        protocol.parse(out)
