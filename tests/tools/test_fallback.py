"""Provider fallback on typed failures: fake Exa and Brave APIs on 127.0.0.1 answering 429, 402,
5xx, wrong keys or hanging, in sequences, and the worker as a real subprocess."""

import json
import os
import time

import pytest
from conftest import run_worker, worker_env
from fakes import brave_server, exa_server

pytestmark = pytest.mark.slow  # fake provider servers and a worker process in each test


@pytest.fixture
def exa():
    server = exa_server.start()
    yield server
    server.shutdown()


@pytest.fixture
def brave():
    with brave_server.FakeBrave() as server:
        yield server


def write_config(tmp_path, exa, brave, fallback=None, exa_key=exa_server.KEY, extra=None, name="c.json"):
    providers = [
        {"name": "exa-main", "type": "exa", "apiKey": exa_key, "baseUrl": exa.url},
        {
            "name": "brave",
            "type": "brave",
            "apiKey": brave_server.KEY,
            "baseUrl": brave.base_url,
            "options": {"minInterval": 0},
        },
    ]
    data = {"providers": providers}
    if fallback is not None:
        data["fallback"] = fallback
    data.update(extra or {})
    path = tmp_path / name
    path.write_text(json.dumps(data))
    os.chmod(path, 0o600)
    return str(path)


def search(args, env, **kw):
    return run_worker(["search", "--no-cache"] + list(args), env, **kw)


@pytest.mark.parametrize(
    "step,code,words",
    [
        ("429", "rate_limited", "exa-main: rate limited (retry after 90 s); answered by brave"),
        ("402", "quota", "exa-main: out of credit; answered by brave"),
        ("500", "provider", "exa-main: failed; answered by brave"),
    ],
)
def test_typed_failure_hands_the_call_on(tmp_path, exa, brave, step, code, words):
    env = worker_env(tmp_path)
    cfg = write_config(tmp_path, exa, brave, fallback=["exa-main", "brave"])
    exa.retry_after = "90"  # longer than the call: not waited out (short ones are: test_retry_after_*)
    exa.script.append(step)
    r = search(["--config", cfg, "full typescript"], env)
    assert r.returncode == 0, r
    p = r.payload
    assert p["provider"] == "brave" and p["provider_type"] == "brave"
    assert [x["url"] for x in p["results"]][0].startswith("https://devblogs.example.com/")
    attempts = p["meta"]["attempts"]
    assert [(a["provider"], a["outcome"]) for a in attempts] == [("exa-main", code), ("brave", "ok")]
    assert all(isinstance(a["ms"], int) and a["ms"] >= 0 for a in attempts)
    assert (attempts[0].get("retry_after") == 90) is (step == "429")
    assert words in p["warnings"]
    assert "- " + words in p["text"]
    assert len(exa.requests) == 1 and len(brave.requests) == 1
    assert exa_server.KEY not in r.stdout + r.stderr and brave_server.KEY not in r.stdout + r.stderr


def test_auto_order_without_a_list_falls_through_too(tmp_path, exa, brave):
    env = worker_env(tmp_path)
    cfg = write_config(tmp_path, exa, brave)  # no "fallback": auto = file order, then ddgs
    exa.retry_after = "90"
    exa.script.append("429")
    r = search(["--config", cfg, "full q"], env)
    assert r.returncode == 0, r
    assert r.payload["provider"] == "brave"
    assert [a["outcome"] for a in r.payload["meta"]["attempts"]] == ["rate_limited", "ok"]


def test_a_hanging_provider_leaves_time_for_the_next(tmp_path, exa, brave):
    env = worker_env(tmp_path)
    cfg = write_config(tmp_path, exa, brave, fallback=["exa-main", "brave"])
    exa.script.append("hang")
    started = time.monotonic()
    r = search(["--config", cfg, "--timeout", "6", "full q"], env, timeout=30)
    took = time.monotonic() - started
    assert r.returncode == 0, r
    assert r.payload["provider"] == "brave"
    first = r.payload["meta"]["attempts"][0]
    assert first["outcome"] == "timeout" and 2000 <= first["ms"] <= 4500, first  # half of what was left
    assert took < 6, took


def test_explicit_provider_never_falls_through(tmp_path, exa, brave):
    env = worker_env(tmp_path)
    cfg = write_config(tmp_path, exa, brave, fallback=["exa-main", "brave"])
    exa.retry_after = "90"
    exa.script.append("429")
    r = search(["--config", cfg, "--provider", "exa-main", "full q"], env)
    assert r.returncode == 1, r
    assert r.payload["error"]["code"] == "rate_limited" and r.payload["error"]["retry_after"] == 90
    assert brave.requests == []


def test_auth_stops_the_auto_chain_but_not_a_listed_one(tmp_path, exa, brave):
    env = worker_env(tmp_path)
    cfg = write_config(tmp_path, exa, brave, exa_key="wrong-key-123456")
    r = search(["--config", cfg, "full q"], env)
    assert r.returncode == 1, r
    err = r.payload["error"]
    assert err["code"] == "auth" and [a["outcome"] for a in err["attempts"]] == ["auth"]
    assert brave.requests == []
    cfg = write_config(tmp_path, exa, brave, exa_key="wrong-key-123456", fallback=["exa-main", "brave"], name="l.json")
    r = search(["--config", cfg, "full q"], env)
    assert r.returncode == 0, r
    assert r.payload["provider"] == "brave"
    assert "exa-main: refused the API key; answered by brave" in r.payload["warnings"]
    assert "wrong-key-123456" not in r.stdout + r.stderr


def test_a_listed_provider_without_a_key_is_reported_then_passed(tmp_path, exa, brave):
    env = worker_env(tmp_path)
    path = tmp_path / "nokey.json"
    path.write_text(
        json.dumps(
            {
                "fallback": ["exa", "brave"],
                "providers": [
                    {
                        "name": "brave",
                        "type": "brave",
                        "apiKey": brave_server.KEY,
                        "baseUrl": brave.base_url,
                        "options": {"minInterval": 0},
                    }
                ],
            }
        )
    )
    r = search(["--config", str(path), "full q"], env)
    assert r.returncode == 0, r
    assert [(a["provider"], a["outcome"]) for a in r.payload["meta"]["attempts"]] == [
        ("exa", "config"),
        ("brave", "ok"),
    ]
    assert "exa: not usable; answered by brave" in r.payload["warnings"]


def test_every_provider_failing_is_one_error_naming_each(tmp_path, exa, brave):
    env = worker_env(tmp_path)
    cfg = write_config(tmp_path, exa, brave, fallback=["exa-main", "brave"])
    exa.retry_after, brave.retry_after = "90", "80"
    exa.script.append("429")
    brave.script.append("429")
    r = search(["--config", cfg, "full q"], env)
    assert r.returncode == 1, r
    err = r.payload["error"]
    assert err["code"] == "rate_limited" and err["retryable"] is True and err["retry_after"] == 80
    assert "exa-main: rate limited" in err["message"] and "brave: rate limited" in err["message"]
    assert [(a["provider"], a["outcome"]) for a in err["attempts"]] == [
        ("exa-main", "rate_limited"),
        ("brave", "rate_limited"),
    ]
    exa.script.append("402")
    brave.script.append("500")
    r = search(["--config", cfg, "full q"], env)
    assert r.payload["error"]["code"] == "provider", r  # mixed: the last provider's code
    assert "exa-main: out of credit" in r.payload["error"]["message"]


def test_fallback_answer_is_cached_under_the_chain_not_the_provider(tmp_path, exa, brave):
    env = worker_env(tmp_path)
    cfg = write_config(tmp_path, exa, brave, fallback=["exa-main", "brave"])
    exa.retry_after = "90"
    exa.script.append("429")
    r = run_worker(["search", "--config", cfg, "full cached"], env)
    assert r.payload["provider"] == "brave", r
    r = run_worker(["search", "--config", cfg, "full cached"], env)
    assert r.payload["provider"] == "brave" and r.payload["meta"]["cached"] is True, r
    assert r.payload["meta"]["attempts"] == []
    # naming exa asks exa: the chain's cached answer is not exa's
    r = run_worker(["search", "--config", cfg, "--provider", "exa-main", "full cached"], env)
    assert r.payload["provider"] == "exa-main" and r.payload["meta"]["cached"] is False, r


@pytest.mark.parametrize(
    "fallback,problem",
    [
        ("brave", "must be a list"),
        ([], "must be a list"),
        (["brave", "brave"], "twice"),
        (["nope"], "not a provider"),
        (["auto"], 'not "auto"'),
        (["local"], "cannot search"),
    ],
)
def test_bad_fallback_lists_are_config_errors(tmp_path, exa, brave, fallback, problem):
    env = worker_env(tmp_path)
    cfg = write_config(tmp_path, exa, brave, fallback=fallback)
    r = search(["--config", cfg, "q"], env)
    assert r.returncode == 1, r
    assert r.payload["error"]["code"] == "config" and problem in r.payload["error"]["message"], r
    assert "Traceback" not in r.stderr


# -- Retry-After: honoured within the call, not passed on ------------------------------------------


def test_retry_after_short_enough_is_waited_out_and_asked_again(tmp_path, exa, brave):
    env = worker_env(tmp_path)
    cfg = write_config(tmp_path, exa, brave, fallback=["exa-main", "brave"])
    exa.retry_after = "1"
    exa.script.append("429")
    started = time.monotonic()
    r = search(["--config", cfg, "full q"], env)
    assert r.returncode == 0, r
    p = r.payload
    assert p["provider"] == "exa-main" and brave.requests == [], r  # waited out: no fallback
    assert len(exa.requests) == 2
    assert [(a["provider"], a["outcome"]) for a in p["meta"]["attempts"]] == [("exa-main", "ok")]
    assert p["meta"]["retried_after_s"] == 1 and p["meta"]["slot_wait_ms"] >= 900  # the wait is the slot's
    assert time.monotonic() - started >= 1.0


def test_retry_after_beyond_the_deadline_falls_back_at_once(tmp_path, exa, brave):
    env = worker_env(tmp_path)
    cfg = write_config(tmp_path, exa, brave, fallback=["exa-main", "brave"])
    exa.script.append("429")  # Retry-After: 7, while Exa's share of a 6 s call is about 3 s
    started = time.monotonic()
    r = search(["--config", cfg, "--timeout", "6", "full q"], env)
    assert r.returncode == 0, r
    assert r.payload["provider"] == "brave" and len(exa.requests) == 1
    first = r.payload["meta"]["attempts"][0]
    assert first["outcome"] == "rate_limited" and first["retry_after"] == 7 and first["ms"] < 2000, first
    assert time.monotonic() - started < 5


def test_a_second_429_after_the_wait_is_rate_limited(tmp_path, exa, brave):
    env = worker_env(tmp_path)
    cfg = write_config(tmp_path, exa, brave)
    brave.retry_after = "1"
    brave.script.extend(["429", "429"])
    r = search(["--config", cfg, "--provider", "brave", "full q"], env)
    assert r.returncode == 1, r
    err = r.payload["error"]
    assert err["code"] == "rate_limited" and err["retry_after"] == 1, err
    assert len(brave.requests) == 2  # asked once more, never a third time
    gap = brave.times[1] - brave.times[0]
    assert gap >= 0.9, gap


@pytest.mark.parametrize("step", ["429", "503"])
def test_a_named_provider_waits_too(tmp_path, exa, brave, step):
    env = worker_env(tmp_path)
    cfg = write_config(tmp_path, exa, brave)
    exa.retry_after = "1"
    exa.script.append(step)
    r = search(["--config", cfg, "--provider", "exa-main", "full q"], env)
    assert r.returncode == 0, r
    assert r.payload["provider"] == "exa-main" and r.payload["meta"]["retried_after_s"] == 1
    assert len(exa.requests) == 2


def test_no_retry_after_is_no_wait(tmp_path, exa, brave):
    env = worker_env(tmp_path)
    cfg = write_config(tmp_path, exa, brave)
    brave.retry_after = None
    brave.script.append("503")
    started = time.monotonic()
    r = search(["--config", cfg, "--provider", "brave", "full q"], env)
    assert r.returncode == 1 and r.payload["error"]["code"] == "provider", r
    assert len(brave.requests) == 1 and time.monotonic() - started < 5
