"""The circuit breaker: its state machine under a fake clock (real SQLite file), then real
worker processes running concurrently against fake providers with short windows."""

import json
import os
import subprocess
import sys
import time

import pytest
from conftest import ROOT, Result, run_worker, worker_env
from fakes import brave_server, exa_server
from invariants import check

from worker.state import breaker

CONF = {"threshold": 3, "window": 60.0, "cooldown": 120.0, "probe": 30.0}


class Clock:
    def __init__(self, t=1_800_000_000.0):
        self.t = t

    def __call__(self):
        return self.t


def make(tmp_path, clock, **conf):
    return breaker.Breaker(str(tmp_path), dict(CONF, **conf), clock=clock)


def test_opens_after_threshold_within_window_and_a_success_resets(tmp_path):
    clock = Clock()
    b = make(tmp_path, clock)
    for _ in range(2):
        b.record("provider:x", "rate_limited")
    assert b.check("provider:x").state == "go"
    b.record("provider:x", None)  # a success: the count starts again
    for _ in range(2):
        b.record("provider:x", "blocked")
    assert b.check("provider:x").state == "go"
    b.record("provider:x", "blocked")
    d = b.check("provider:x")
    assert d.state == "skip" and d.until == clock.t + 120 and d.code == "blocked" and d.failures == 3
    assert b.check("provider:other").state == "go"


def test_failures_spread_past_the_window_do_not_open(tmp_path):
    clock = Clock()
    b = make(tmp_path, clock, window=10)
    for _ in range(5):
        b.record("k", "blocked")
        clock.t += 6  # two failures never within 10 s of the first of their run... except pairs
    # runs restart when the window passes: 1,2 | 1,2 | 1 -> never 3
    assert b.check("k").state == "go"


def test_other_failures_neither_count_nor_reset(tmp_path):
    clock = Clock()
    b = make(tmp_path, clock)
    b.record("k", "blocked")
    b.record("k", "timeout")
    b.record("k", "network")
    b.record("k", "blocked")
    assert b.check("k").state == "go"
    b.record("k", "blocked")
    assert b.check("k").state == "skip"


def test_retry_after_sets_the_cool_down(tmp_path):
    clock = Clock()
    b = make(tmp_path, clock, threshold=1)
    b.record("k", "rate_limited", retry_after=7)
    assert b.check("k").until == clock.t + 7


def test_half_open_lets_exactly_one_probe_then_closes_or_reopens(tmp_path):
    clock = Clock()
    a, other = make(tmp_path, clock, threshold=1), make(tmp_path, clock, threshold=1)  # two processes' views
    a.record("k", "blocked")
    clock.t += 121
    assert a.check("k").state == "probe"
    d = other.check("k")
    assert d.state == "skip" and d.until == clock.t + 30  # the lease
    a.record("k", "blocked")  # the probe was blocked again: open for another cool-down
    d = other.check("k")
    assert d.state == "skip" and d.until == clock.t + 120
    clock.t += 121
    assert other.check("k").state == "probe"
    other.record("k", "timeout")  # proved nothing: the lease is given back
    assert a.check("k").state == "probe"
    a.record("k", None)
    assert other.check("k").state == "go" and a.check("k").state == "go"


def test_a_probe_whose_process_died_expires(tmp_path):
    clock = Clock()
    a, b = make(tmp_path, clock, threshold=1), make(tmp_path, clock, threshold=1)
    a.record("k", "blocked")
    clock.t += 121
    assert a.check("k").state == "probe"
    a.close()  # and never records: killed mid-probe
    assert b.check("k").state == "skip"
    clock.t += 31
    assert b.check("k").state == "probe"


def test_a_clock_that_stepped_back_does_not_hold_a_circuit_for_ever(tmp_path):
    clock = Clock()
    b = make(tmp_path, clock, threshold=1)
    b.record("k", "blocked")
    clock.t -= 3 * 24 * 3600
    assert b.check("k").state == "go"


def test_a_broken_state_file_is_replaced_not_fatal(tmp_path, capfd):
    (tmp_path / breaker.DB_NAME).write_bytes(b"this is not a database" * 100)
    clock = Clock()
    b = make(tmp_path, clock, threshold=1)
    b.record("k", "blocked")
    assert b.check("k").state == "skip"
    assert "started a new one" in capfd.readouterr().err


def test_settings_off_and_defaults():
    assert breaker.settings({"breaker": False}) is None
    assert breaker.settings({}) == breaker.DEFAULTS
    assert breaker.settings({"breaker": {"threshold": 2}})["threshold"] == 2


@pytest.mark.parametrize(
    "value,problem",
    [
        ("yes", "must be true, false or an object"),
        ({"threshold": 0}, "threshold"),
        ({"cooldown": -1}, "cooldown"),
        ({"speed": 1}, "unknown key"),
    ],
)
def test_bad_breaker_settings_are_config_errors(tmp_path, value, problem):
    env = worker_env(tmp_path)
    path = tmp_path / "b.json"
    path.write_text(json.dumps({"breaker": value}))
    r = run_worker(["search", "--config", str(path), "q"], env)
    assert r.returncode == 1 and r.payload["error"]["code"] == "config", r
    assert problem in r.payload["error"]["message"]


# -- real processes -----------------------------------------------------------------------


# The fakes' 429s carry no Retry-After here: a short one is waited out within the call (and asked
# again), so the breaker's own cool-down opens the circuits these tests watch.


@pytest.fixture
def exa():
    server = exa_server.start()
    server.retry_after = None
    yield server
    server.shutdown()


@pytest.fixture
def brave():
    with brave_server.FakeBrave() as server:
        server.retry_after = None
        yield server


def config(tmp_path, exa, brave, **conf):
    data = {
        "fallback": ["exa-main", "brave"],
        "breaker": dict({"threshold": 2, "window": 30, "cooldown": 3}, **conf),
        "providers": [exa.provider_entry("exa-main"), brave.provider_entry()],
    }
    path = tmp_path / "breaker.json"
    path.write_text(json.dumps(data))
    return str(path)


def spawn(args, env):
    return subprocess.Popen(
        [sys.executable, "-I", "-m", "worker", "search", "--no-cache"] + list(args),
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )


def collect(procs):
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=60)
        out.append(Result(p, stdout.decode("ascii", "replace"), stderr.decode("utf-8", "replace")))
    return out


@pytest.mark.slow
def test_breaker_across_concurrent_processes_opens_skips_probes_closes(tmp_path, exa, brave):
    env = worker_env(tmp_path)
    cfg = config(tmp_path, exa, brave)
    # Four processes at once, every Exa answer a 429: each falls back to Brave, and the circuit opens.
    exa.script.extend(["429"] * 4)
    results = collect([spawn(["--config", cfg, "full q%d" % i], env) for i in range(4)])
    for r in results:
        assert r.returncode == 0 and r.payload["provider"] == "brave", r
    assert len(exa.requests) == 4
    # Later calls skip Exa without asking it, and say until when.
    r = run_worker(["search", "--no-cache", "--config", cfg, "full later"], env)
    assert r.returncode == 0 and r.payload["provider"] == "brave", r
    assert len(exa.requests) == 4
    skipped = r.payload["meta"]["skipped_providers"]
    assert [(s["provider"], s["reason"]) for s in skipped] == [("exa-main", "rate_limited")]
    assert 0 < skipped[0]["retry_in_s"] <= 3 and skipped[0]["until"].endswith("Z")  # the 3 s cool-down
    assert [a["outcome"] for a in r.payload["meta"]["attempts"]] == ["skipped", "ok"]
    assert any(
        w.startswith("exa-main: skipped until ") and w.endswith("answered by brave") for w in r.payload["warnings"]
    )
    # Naming Exa always asks Exa, open circuit or not.
    r = run_worker(["search", "--no-cache", "--config", cfg, "--provider", "exa-main", "full named"], env)
    assert r.returncode == 0 and r.payload["provider"] == "exa-main", r
    assert len(exa.requests) == 5
    # That success closed it again; open it once more, then wait out the cool-down.
    exa.script.extend(["429", "429"])
    for i in range(2):
        run_worker(["search", "--no-cache", "--config", cfg, "full again%d" % i], env)
    r = run_worker(["search", "--no-cache", "--config", cfg, "full skip"], env)
    assert r.payload["meta"]["skipped_providers"], r
    n = len(exa.requests)
    wait = r.payload["meta"]["skipped_providers"][0]["retry_in_s"]
    time.sleep(wait + 0.3)
    # Half-open: three processes at once, one probe (a slow one, so the others see its lease).
    exa.script.append("slow")
    results = collect([spawn(["--config", cfg, "full probe%d" % i], env) for i in range(3)])
    assert len(exa.requests) == n + 1, [r.payload for r in results]
    providers = sorted(r.payload["provider"] for r in results)
    assert providers == ["brave", "brave", "exa-main"], [r.payload for r in results]
    # The probe succeeded: closed, Exa answers the next call.
    r = run_worker(["search", "--no-cache", "--config", cfg, "full closed"], env)
    assert r.payload["provider"] == "exa-main" and r.payload["meta"]["skipped_providers"] == [], r


@pytest.mark.slow
def test_breaker_off_asks_every_time(tmp_path, exa, brave):
    env = worker_env(tmp_path)
    path = config(tmp_path, exa, brave)
    data = json.loads(open(path).read())
    data["breaker"] = False
    open(path, "w").write(json.dumps(data))
    exa.script.extend(["429"] * 4)
    for i in range(4):
        r = run_worker(["search", "--no-cache", "--config", path, "full q%d" % i], env)
        assert r.payload["provider"] == "brave" and r.payload["meta"]["skipped_providers"] == [], r
    assert len(exa.requests) == 4
    assert not os.path.exists(os.path.join(env["XDG_CACHE_HOME"], "websearch-worker", breaker.DB_NAME))


@pytest.mark.slow
def test_every_provider_cooling_down_fails_fast_with_retry_after(tmp_path, exa, brave):
    env = worker_env(tmp_path)
    cfg = config(tmp_path, exa, brave, threshold=1, cooldown=60)
    exa.retry_after, brave.retry_after = "90", "40"  # beyond the call: passed on, and they set the cool-downs
    exa.script.append("429")
    brave.script.append("429")
    r = run_worker(["search", "--no-cache", "--config", cfg, "full q"], env)
    assert r.payload["error"]["code"] == "rate_limited", r
    started = time.monotonic()
    r = run_worker(["search", "--no-cache", "--config", cfg, "full q2"], env)
    assert time.monotonic() - started < 5
    err = r.payload["error"]
    assert err["code"] == "rate_limited" and err["retryable"] is True and 30 <= err["retry_after"] <= 40, r
    assert "cooling down" in err["message"] and "--provider" in err["hint"]
    assert [s["provider"] for s in err["skipped_providers"]] == ["exa-main", "brave"]
    assert len(exa.requests) == 1 and len(brave.requests) == 1


# -- ddgs engines, through the TLS proxy --------------------------------------------------

DDG, MOJEEK = "html.duckduckgo.com", "www.mojeek.com"


def fixture_page(name):
    with open(os.path.join(ROOT, "tests", "fixtures", "ddgs", name + ".html"), "rb") as f:
        return f.read()


@pytest.mark.slow
def test_a_blocked_ddgs_engine_is_skipped_unless_engines_are_named(proxy, tmp_path):
    proxy.reset()
    proxy.route(DDG, status=202, body="<html>anomaly detected: please complete the challenge</html>")
    proxy.route(MOJEEK, body=fixture_page("mojeek"))
    env = worker_env(tmp_path, proxy.env())
    path = tmp_path / "ddgs.json"
    path.write_text(
        json.dumps(
            {
                "breaker": {"threshold": 2, "cooldown": 60},
                "providers": [{"name": "ddgs", "type": "ddgs", "options": {"backends": ["duckduckgo", "mojeek"]}}],
            }
        )
    )
    for i in range(2):
        r = run_worker(["search", "--no-cache", "--config", str(path), "rust async %d" % i], env)
        assert r.returncode == 0 and r.payload["meta"]["engine"] == "mojeek", r
    assert len(proxy.requests_for(DDG)) == 2
    r = run_worker(["search", "--no-cache", "--config", str(path), "rust async 3"], env)
    assert r.returncode == 0 and r.payload["meta"]["engine"] == "mojeek", r
    assert len(proxy.requests_for(DDG)) == 2  # not asked again
    skipped = r.payload["meta"]["skipped_providers"]
    assert [(s["provider"], s["engine"], s["reason"]) for s in skipped] == [("ddgs", "duckduckgo", "blocked")]
    assert 55 <= skipped[0]["retry_in_s"] <= 60
    assert any(w.startswith("ddgs/duckduckgo: skipped until") for w in r.payload["warnings"])
    # --backend names the engines: all of them are tried
    r = run_worker(
        ["search", "--no-cache", "--config", str(path), "--backend", "duckduckgo,mojeek", "rust async 4"], env
    )
    assert r.returncode == 0 and r.payload["meta"]["skipped_providers"] == [], r
    assert len(proxy.requests_for(DDG)) == 3


@pytest.mark.slow
def test_every_ddgs_engine_blocked_hands_over_to_brave(proxy, tmp_path):
    proxy.reset()
    proxy.route(DDG, status=202, body="<html>anomaly detected</html>")
    env = worker_env(tmp_path, proxy.env())
    with brave_server.FakeBrave() as brave:
        path = tmp_path / "chain.json"
        path.write_text(
            json.dumps(
                {
                    "fallback": ["ddgs", "brave"],
                    "providers": [
                        {"name": "ddgs", "type": "ddgs", "options": {"backends": ["duckduckgo"]}},
                        {
                            "name": "brave",
                            "type": "brave",
                            "apiKey": brave_server.KEY,
                            "baseUrl": brave.base_url,
                            "options": {"minInterval": 0},
                        },
                    ],
                }
            )
        )
        r = run_worker(["search", "--no-cache", "--config", str(path), "full q"], env)
        assert r.returncode == 0 and r.payload["provider"] == "brave", r
        assert [(a["provider"], a["outcome"]) for a in r.payload["meta"]["attempts"]] == [
            ("ddgs", "blocked"),
            ("brave", "ok"),
        ]
        assert "ddgs: blocked; answered by brave" in r.payload["warnings"]


# -- state written by something else: never internal, read as absent ------------------------------

GOOD_OPEN = (2, "NOW", "LATER", 0.0, "rate_limited")  # an open circuit, as the breaker writes it


@pytest.mark.parametrize(
    "row",
    [
        ("two", "NOW", "LATER", 0.0, "rate_limited"),  # text where a count is
        (2, "NOW", "tomorrow", 0.0, "rate_limited"),  # text where a time is
        (2, "NOW", b"\x00\x01blob", 0.0, "rate_limited"),  # a blob
        (2, "NOW", "LATER", 2**62, "rate_limited"),  # a huge integer
        (2**63 - 1, "NOW", "LATER", 0.0, "rate_limited"),
        (2, "NOW", "LATER", None, "rate_limited"),  # NULL (the schema's NOT NULL is the breaker's, not the file's)
        (None, None, None, None, None),
        (2, "NOW", float("-inf"), 0.0, "rate_limited"),
        (2, "NOW", "LATER", 0.0, b"rate_limited"),
        (2, "NOW", "LATER", 0.0, "<not a code>"),
    ],
)
def test_breaker_rows_of_the_wrong_types_are_read_as_absent(tmp_path, exa, brave, row):
    env = worker_env(tmp_path)
    cfg = private_config(tmp_path, exa, brave)
    _plant_loose(env, row)
    r = run_worker(["search", "--no-cache", "--config", cfg, "full q"], env)
    payload = check(r, env)
    assert payload["ok"] and payload["provider"] == "exa-main" and payload["meta"]["skipped_providers"] == [], r
    assert r.stderr.count("websearch-worker: breaker:") == 1 and "read as absent" in r.stderr, r
    # The next outcome is written over it: a 429 now counts from one, as after no row at all.
    exa.script.append("429")
    r = run_worker(["search", "--no-cache", "--config", cfg, "full q2"], env)
    assert check(r, env)["provider"] == "brave" and "breaker" not in r.stderr, r


def test_a_planted_open_row_is_obeyed(tmp_path, exa, brave):
    # The same planting with sane values: the circuit is open, so the cases above test what they say.
    env = worker_env(tmp_path)
    _plant_loose(env, GOOD_OPEN)
    r = run_worker(["search", "--no-cache", "--config", private_config(tmp_path, exa, brave), "full q"], env)
    assert check(r, env)["provider"] == "brave" and r.stderr == "", r


def private_config(tmp_path, exa, brave):
    path = config(tmp_path, exa, brave)
    os.chmod(path, 0o600)  # else a warning about its keys on stderr, which these tests read
    return path


def _plant_loose(env, row):
    """The state file with one row for provider:exa-main in a table without type rules, as another
    program (or a damaged page) may leave it; "NOW" and "LATER" (in 10 minutes) stand for times."""
    import sqlite3

    directory = os.path.join(env["XDG_CACHE_HOME"], "websearch-worker")
    os.makedirs(directory, exist_ok=True)
    db = sqlite3.connect(os.path.join(directory, breaker.DB_NAME))
    db.execute(
        "CREATE TABLE circuits (key TEXT PRIMARY KEY, failures, first_at, open_until, probe_until, last_code, updated)"
    )
    now = time.time()
    values = [now if v == "NOW" else now + 600 if v == "LATER" else v for v in row]
    db.execute("INSERT INTO circuits VALUES ('provider:exa-main', ?, ?, ?, ?, ?, ?)", values + [now])
    db.commit()
    db.close()


def test_a_breaker_file_that_is_no_database_is_replaced_through_the_cli(tmp_path, exa, brave):
    env = worker_env(tmp_path)
    directory = os.path.join(env["XDG_CACHE_HOME"], "websearch-worker")
    os.makedirs(directory)
    with open(os.path.join(directory, breaker.DB_NAME), "wb") as f:
        f.write(b"SQLite format 3\x00" + os.urandom(4000))
    r = run_worker(["search", "--no-cache", "--config", config(tmp_path, exa, brave), "full q"], env)
    assert check(r, env)["provider"] == "exa-main", r
    assert r.stderr.count("websearch-worker: breaker:") <= 1
