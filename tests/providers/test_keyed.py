"""The keyed JSON API base (providers/keyed.py) and the one Retry-After reader (numbers.retry_after).

Pure functions first (status table, Retry-After, error bodies, decoding), then the
real CLI against local fakes on 127.0.0.1: Brave and Exa answer the same failures
in the same way, and a key a server echoes reaches neither the output nor the cache.
"""

import email.utils
import json
import os

import pytest
from conftest import run_worker
from fakes.hostile_server import KEY as HOSTILE_KEY
from fakes.hostile_server import HostileServer

from worker import numbers
from worker.errors import CODES, WorkerError
from worker.providers import keyed
from worker.providers.base import ProviderSpec

NOW = 1_700_000_000.0


# -- the status table ----------------------------------------------------------------


@pytest.mark.parametrize(
    "status, code, retryable",
    [
        (400, "invalid_argument", False),
        (422, "invalid_argument", False),
        (401, "auth", False),
        (403, "auth", False),
        (402, "quota", False),
        (429, "rate_limited", True),
        (500, "provider", True),
        (502, "provider", True),
        (503, "provider", True),
        (504, "provider", True),
        (404, "provider", False),
        (405, "provider", False),
        (409, "provider", False),
        (413, "provider", False),
    ],
)
def test_status_table(status, code, retryable):
    assert keyed.status_code(status) == (code, retryable)


def test_status_table_codes_are_stable_codes_with_their_default_retryability():
    for code, retryable in keyed.STATUS_CODES.values():
        assert code in CODES and CODES[code] == retryable


# -- Retry-After ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, seconds",
    [
        ("7", 7.0),
        (" 7 ", 7.0),
        ("0", 0.0),
        ("604800", 604800.0),
        (None, None),
        ("", None),
        ("   ", None),
        ("soon", None),
        ("-1", None),
        ("+5", 5.0),
        ("1.5", None),
        ("1e3", None),
        ("604801", None),
        ("9" * 400, None),
        ("\u00b2", None),
        ("\u0663", None),
        ("inf", None),
        ("nan", None),
        ("Infinity", None),
        (7, None),
    ],
)
def test_retry_after_delta_seconds(value, seconds):
    got = numbers.retry_after(value, now=NOW)
    assert got == seconds and (got is None or isinstance(got, float))


def test_retry_after_http_dates():
    def date(offset, usegmt=True):
        return email.utils.formatdate(NOW + offset, usegmt=usegmt)

    assert numbers.retry_after(date(30), now=NOW) == 30.0
    assert numbers.retry_after(date(-30), now=NOW) == 0.0  # already past: no wait
    assert numbers.retry_after(date(30 * 24 * 3600), now=NOW) == numbers.MAX_RETRY_AFTER  # clamped, not refused
    assert numbers.retry_after(date(30), cap=10, now=NOW) == 10.0
    assert numbers.retry_after(date(90, usegmt=False), now=NOW) == 90.0  # "+0000" form
    assert numbers.retry_after(date(90).replace("GMT", "-0000"), now=NOW) == 90.0  # no zone: UTC
    assert numbers.retry_after("Wed, 32 Oct 2015 07:28:00 GMT", now=NOW) is None


def test_retry_after_cap_is_the_callers():
    assert numbers.retry_after("86400", cap=3600) is None
    assert numbers.retry_after("3600", cap=3600) == 3600.0


# -- error bodies ---------------------------------------------------------------------


def test_error_detail_reads_brave_exa_and_plain_bodies():
    brave = {
        "error": {
            "id": "e-1",
            "status": 401,
            "code": "SUBSCRIPTION_TOKEN_INVALID",
            "detail": "The provided subscription\ntoken is invalid.",
        }
    }
    assert keyed.error_detail(brave) == ("The provided subscription token is invalid.", "e-1")
    assert keyed.error_detail({"error": {"code": "ONLY_A_CODE"}}) == ("ONLY_A_CODE", None)
    exa = {"requestId": "req-401", "error": "Invalid API key x", "tag": "INVALID_API_KEY"}
    assert keyed.error_detail(exa) == ("Invalid API key x", "req-401")
    assert keyed.error_detail({"message": "gateway says no"}) == ("gateway says no", None)
    assert keyed.error_detail({"error": 5, "requestId": ["x"]}) == ("", None)
    assert keyed.error_detail({}) == ("", None)


def test_error_body_is_an_object_or_empty():
    assert keyed.error_body(b'{"error": "x"}') == {"error": "x"}
    assert keyed.error_body(b"<html>502</html>") == {}
    assert keyed.error_body(b"[1, 2]") == {}
    assert keyed.error_body(b"[" * 100000) == {}


# -- the base, without I/O --------------------------------------------------------------


class _Api(keyed.KeyedApi):
    label = "Fake"
    key_env = "FAKE_API_KEY"
    default_base_url = "http://127.0.0.1:9"

    def auth_headers(self):
        return {"X-Key": self.spec.api_key}


SECRET = "sk-fake-0123456789"


def _api(key=SECRET, **spec):
    return _Api(ProviderSpec("fake-main", "fake", api_key=key, key_source="env:FAKE_API_KEY", **spec), None)


@pytest.mark.parametrize(
    "status, code",
    [
        (400, "invalid_argument"),
        (401, "auth"),
        (402, "quota"),
        (429, "rate_limited"),
        (503, "provider"),
        (404, "provider"),
    ],
)
def test_http_error_codes_and_key_scrubbing(status, code):
    raw = json.dumps({"requestId": "req-" + SECRET, "error": "bad key %s" % SECRET}).encode()
    exc = _api().http_error(status, {"Retry-After": "12"}, raw)
    assert exc.code == code and exc.retryable == keyed.status_code(status)[1]
    assert exc.extra["status"] == status and exc.extra["request_id"] == "req-***"
    assert SECRET not in json.dumps(exc.to_dict()) and "bad key ***" in exc.message
    assert ("retry_after" in exc.extra) is (code == "rate_limited")
    if code == "rate_limited":
        assert exc.extra["retry_after"] == 12 and isinstance(exc.extra["retry_after"], int)
    if code == "auth":
        assert "FAKE_API_KEY" in exc.hint and "'fake-main'" in exc.message


def test_http_error_request_id_header_first():
    class WithHeader(_Api):
        request_id_headers = ("X-Request-Id",)

    api = WithHeader(ProviderSpec("f", "fake", api_key=SECRET), None)
    exc = api.http_error(500, {"X-Request-Id": "hdr-1"}, b'{"requestId": "body-1"}')
    assert exc.extra["request_id"] == "hdr-1"
    assert "request_id" not in api.http_error(500, {}, b"not json").extra


def test_unusable_retry_after_is_left_out():
    for value in ("9" * 400, "nan", "1.5", "soon"):
        assert "retry_after" not in _api().http_error(429, {"Retry-After": value}, b"{}").extra


def test_decode_tames_and_checks():
    api = _api()
    assert api.decode(b'{"score": NaN, "x": [{"y": -Infinity}], "s": "\xc3\xa9"}') == {
        "score": None,
        "x": [{"y": None}],
        "s": "\u00e9",
    }
    for raw, words in (
        (b"<html>", "not JSON"),
        (b"[1]", "unexpected JSON shape"),
        (b"[" * 100000, "not JSON"),
        (b'{"a": ' * 70 + b"1" + b"}" * 70, "not JSON"),
    ):
        with pytest.raises(WorkerError) as e:
            api.decode(raw)
        assert e.value.code == "provider" and words in e.value.message


def test_meta_and_missing_key():
    api = _api()
    assert api.meta("id-" + SECRET, {"count": 3}) == {
        "request_id": "id-***",
        "count": 3,
        "key_source": "env:FAKE_API_KEY",
    }
    with pytest.raises(WorkerError) as e:
        _api(key=None).call_api("GET", "/x")
    assert e.value.code == "config" and "FAKE_API_KEY" in e.value.hint


# -- end to end: the worker against local fakes ---------------------------------------------


@pytest.fixture(scope="module")
def hostile():
    s = HostileServer().start()
    yield s
    s.stop()


def _config(tmp_path, entry):
    path = tmp_path / "web-search.json"
    path.write_text(json.dumps({"providers": [entry]}))
    os.chmod(path, 0o600)
    return str(path)


@pytest.mark.slow  # worker processes through the CLI
@pytest.mark.parametrize("ptype", ["brave", "exa"])
def test_echoed_key_reaches_neither_output_nor_cache(hostile, env, tmp_path, ptype):
    base = hostile.brave_base("echo-key-request-id") if ptype == "brave" else hostile.exa_base("echo-key-request-id")
    cfg = _config(
        tmp_path, {"name": "p", "type": ptype, "apiKey": HOSTILE_KEY, "baseUrl": base, "options": {"minInterval": 0}}
    )
    r = run_worker(["search", "--config", cfg, "--provider", "p", "--", "query"], env)
    assert r.returncode == 0, r
    assert r.payload["meta"]["request_id"] == "req-***"
    assert HOSTILE_KEY not in r.stdout + r.stderr
    again = run_worker(["search", "--config", cfg, "--provider", "p", "--", "query"], env)
    assert again.payload["meta"]["cached"] is True
    scanned = 0
    for dirpath, _dirs, files in os.walk(env["XDG_CACHE_HOME"]):
        for name in files:
            with open(os.path.join(dirpath, name), "rb") as fh:
                assert HOSTILE_KEY.encode() not in fh.read(), name
            scanned += 1
    assert scanned


@pytest.mark.slow  # worker processes through the CLI
@pytest.mark.parametrize("ptype", ["brave", "exa"])
def test_same_failure_same_answer(hostile, env, tmp_path, ptype):
    """A Retry-After no one can use is left out, for either API, through the real CLI."""
    base = hostile.brave_base("retry-after-huge") if ptype == "brave" else hostile.exa_base("retry-after-huge")
    cfg = _config(
        tmp_path, {"name": "p", "type": ptype, "apiKey": HOSTILE_KEY, "baseUrl": base, "options": {"minInterval": 0}}
    )
    r = run_worker(["search", "--config", cfg, "--provider", "p", "--", "query"], env)
    e = r.payload["error"]
    assert r.returncode == 1 and e["code"] == "rate_limited" and e["retryable"] is True and e["status"] == 429, r
    assert "retry_after" not in e
    assert e["message"].startswith(("Brave rate limit reached", "Exa rate limit reached"))
