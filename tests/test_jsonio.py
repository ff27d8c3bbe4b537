"""worker.jsonio must say exactly what json says, without loading it on the good path."""

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from worker import jsonio

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=20,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(values)
def test_dumps_and_loads_match_json(value):
    assert jsonio.dumps_ascii(value) == json.dumps(
        value, ensure_ascii=True, separators=(",", ":"), allow_nan=False, default=str
    )
    assert jsonio.dumps(value, sort_keys=True, separators=(",", ":")) == json.dumps(
        value, sort_keys=True, separators=(",", ":")
    )
    text = json.dumps(value)
    assert jsonio.loads(text) == json.loads(text)
    assert jsonio.loads("  %s\n" % text) == value


@pytest.mark.parametrize("bad", ["{nope", '{"a":', '{"a": 1} x', "", "[1,]", "NaN x"])
def test_malformed_documents_raise_json_errors(bad):
    with pytest.raises(json.JSONDecodeError) as ours:
        jsonio.loads(bad)
    with pytest.raises(json.JSONDecodeError) as theirs:
        json.loads(bad)
    assert (ours.value.msg, ours.value.pos) == (theirs.value.msg, theirs.value.pos)


def test_nan_and_unknown_objects():
    with pytest.raises(ValueError):
        jsonio.dumps_ascii(float("nan"))
    assert jsonio.dumps_ascii({"o": complex(1, 2)}) == '{"o":"(1+2j)"}'


def test_good_path_loads_neither_json_nor_re():
    code = (
        "import sys; sys.path.insert(0, %r); from worker import jsonio; "
        "jsonio.loads(jsonio.dumps_ascii({'a': [1, 'b\\u00e9']})); "
        "print(sorted(m for m in ('json', 're', 'enum') if m in sys.modules))" % ROOT
    )
    env = dict(os.environ, WEBSEARCH_WORKER_PLAIN="")  # the json trick on: what is checked here
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.strip() == "[]"


def test_a_c_encoder_that_takes_its_settings_in_another_order_is_not_used(monkeypatch):
    # A Python whose _json.make_encoder took the two separators the other way round would
    # write {"a"," 1} through the fast path: the probe sees it, and json does every call.
    real = jsonio._make_encoder

    def swapped(markers, default, encoder, indent, key_sep, item_sep, *rest):
        return real(markers, default, encoder, indent, item_sep, key_sep, *rest)

    monkeypatch.setattr(jsonio, "_make_encoder", swapped)
    monkeypatch.setattr(jsonio, "_checked", [])
    value = {"a": [1, {"b": None}], "c": "é"}
    assert jsonio.dumps(value, separators=(",", ":")) == json.dumps(value, separators=(",", ":"))
    assert jsonio.dumps_ascii(value) == '{"a":[1,{"b":null}],"c":"\\u00e9"}'
    assert jsonio._checked == [False]
    monkeypatch.setattr(jsonio, "_make_encoder", real)
    monkeypatch.setattr(jsonio, "_checked", [])
    assert jsonio.dumps(value) == json.dumps(value) and jsonio._checked == [True]
