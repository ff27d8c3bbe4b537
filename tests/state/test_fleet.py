"""A fleet: worker processes as two "machines" (each its own cache directory, config home and
config file) sharing one real redis-server, against fake Brave and Exa APIs on 127.0.0.1.

What issue 32 asks to be shown:

* rate limits for the whole fleet: against a fake Brave that allows one request a second, twenty
  calls from two machines without shared state meet 429s; with Redis, no 429 reaches it and the
  answers come one a second;
* the breaker for the whole fleet: three refusals seen on one machine, and every process of
  either machine skips the provider in its next call;
* Redis stopped mid-run: calls still answer, from local state and saying so, within their
  timeouts; started again, calls use it again.
"""

import json
import os
import statistics
import time

import pytest
from conftest import Result, run_worker, worker_env
from conftest import spawn_worker as spawn
from fakes import brave_server, exa_server
from redisproc import Blackhole

pytestmark = pytest.mark.slow  # fleets of worker processes, paced at one request a second

CALLS = 20
MACHINES = ("a", "b")


def machine_env(tmp_path, name, config):
    """One machine: its own cache directory and config home, its config file in it."""
    env = worker_env(tmp_path / name)
    path = tmp_path / name / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config))
    os.chmod(path, 0o600)
    env["WEBSEARCH_CONFIG"] = str(path)
    return env


def brave_config(fake, state=None, **extra):
    # Brave's own pacing (minInterval 1 s, its default), no pause removed: the fleet must keep it.
    entry = {"name": "brave", "type": "brave", "apiKey": brave_server.KEY, "baseUrl": fake.base_url}
    config = dict(extra, providers=[entry])
    if state:
        config["state"] = state
    return config


def collect(procs, timeout=120):
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=timeout)
        out.append(Result(p, stdout.decode("ascii", "replace"), stderr.decode("utf-8", "replace")))
    return out


def run_fleet(tmp_path, fake, state=None, calls=CALLS):
    """``calls`` searches at once, half on each machine; (results, seconds)."""
    envs = [machine_env(tmp_path, m, brave_config(fake, state)) for m in MACHINES]
    started = time.monotonic()
    procs = [
        spawn(["search", "--no-cache", "--provider", "brave", "full fleet %d" % i], envs[i % len(envs)])
        for i in range(calls)
    ]
    results = collect(procs)
    return results, time.monotonic() - started


def spacing(times):
    gaps = [b - a for a, b in zip(times, times[1:])]
    return gaps, statistics.mean(gaps), statistics.pstdev(gaps)


@pytest.fixture
def rate_limited_brave():
    """A fake Brave that allows one request a second for the key, whoever sends it (as the free plan)."""
    with brave_server.FakeBrave() as fake:
        fake.server.rate = 1.0
        yield fake


def test_without_shared_state_two_machines_meet_429s(tmp_path, rate_limited_brave):
    fake = rate_limited_brave
    fake.server.rate_retry_after = None  # as before Retry-After was honoured: each 429 is the call's answer
    results, _took = run_fleet(tmp_path, fake)
    limited = [r for r in results if r.payload and r.payload.get("error", {}).get("code") == "rate_limited"]
    answered = [r for r in results if r.payload and r.payload.get("ok")]
    # Each machine keeps one a second, so the two together send two: about every other call is refused.
    assert fake.server.refused >= CALLS // 4 and len(limited) >= CALLS // 4, (fake.server.refused, len(limited))
    assert len(limited) + len(answered) == CALLS
    print("\nwithout shared state: %d of %d calls rate_limited, %d 429s at the fake" % (
        len(limited), CALLS, fake.server.refused))  # fmt: skip


def test_with_redis_the_fleet_keeps_one_request_a_second(tmp_path, rate_limited_brave, redis_server):
    fake = rate_limited_brave
    results, took = run_fleet(tmp_path, fake, state=redis_server.url)
    for r in results:
        assert r.returncode == 0 and r.payload["provider"] == "brave", r
        assert r.payload["warnings"] == [] and "retried_after_s" not in r.payload["meta"], r
    assert fake.server.refused == 0, fake.server.refused  # no 429 reached it
    times = sorted(fake.server.answered)
    gaps, mean, sd = spacing(times)
    assert len(times) == CALLS and min(gaps) >= 0.9 and 0.95 <= mean <= 1.1, gaps
    waits = sorted(r.payload["meta"]["slot_wait_ms"] for r in results)
    assert waits[-1] >= (CALLS - 4) * 1000 * 0.9, waits  # the last in line waited for the others' seconds
    print("\nwith Redis: %d calls, %d 429s at the fake, answers spaced %.2f±%.2f s (min %.2f), %.1f s in all" % (
        CALLS, fake.server.refused, mean, sd, min(gaps), took))  # fmt: skip


# -- the breaker -----------------------------------------------------------------------------


def test_one_machine_sees_three_refusals_and_every_process_skips_the_provider(tmp_path, redis_server):
    exa = exa_server.start()
    exa.retry_after = None  # refusals with no wait to honour: each one is a refusal the breaker counts
    try:
        with brave_server.FakeBrave() as brave:
            config = {
                "state": redis_server.url,
                "fallback": ["exa-main", "brave"],
                "breaker": {"threshold": 3, "window": 60, "cooldown": 60},
                "providers": [exa.provider_entry("exa-main"), brave.provider_entry()],
            }
            envs = {m: machine_env(tmp_path, m, config) for m in MACHINES}
            exa.script.extend(["429"] * 3)
            for i in range(3):  # machine a: three refusals, each call answered by brave
                r = run_worker(["search", "--no-cache", "full refused %d" % i], envs["a"])
                assert r.payload["provider"] == "brave", r
                assert [a["outcome"] for a in r.payload["meta"]["attempts"]] == ["rate_limited", "ok"], r
            assert len(exa.requests) == 3
            # Every process on either machine skips Exa in its next call, without asking it.
            procs = [spawn(["search", "--no-cache", "full next %d" % i], envs[MACHINES[i % 2]]) for i in range(10)]
            for r in collect(procs):
                assert r.returncode == 0 and r.payload["provider"] == "brave", r
                skipped = r.payload["meta"]["skipped_providers"]
                assert [(s["provider"], s["reason"], s["failures"]) for s in skipped] == [
                    ("exa-main", "rate_limited", 3)
                ], r
            assert len(exa.requests) == 3
            assert redis_server.keys("websearch-worker:circuit:*") == ["websearch-worker:circuit:provider:exa-main"]
            # Without the shared state, machine b would have asked Exa: its own file knows nothing.
            local = dict(config)
            del local["state"]
            env = machine_env(tmp_path, "c", local)
            r = run_worker(["search", "--no-cache", "full alone"], env)
            assert r.payload["provider"] == "exa-main" and len(exa.requests) == 4, r
    finally:
        exa.shutdown()


# -- Redis stopped mid-run ------------------------------------------------------------------------


def test_redis_stopped_mid_run_calls_answer_locally_then_use_it_again(tmp_path, redis_server):
    with brave_server.FakeBrave() as fake:
        envs = [machine_env(tmp_path, m, brave_config(fake, redis_server.url)) for m in MACHINES]

        def call(i, env, timeout=5):
            started = time.monotonic()
            r = run_worker(["search", "--timeout", str(timeout), "full mid-run %d" % i], env, timeout=60)
            return r, time.monotonic() - started

        r, _ = call(0, envs[0])
        assert r.payload["ok"] and r.payload["warnings"] == [], r
        r, _ = call(0, envs[1])  # the other machine's cached answer, through Redis
        assert r.payload["meta"]["cached"] is True and r.payload["warnings"] == [], r
        redis_server.stop()
        tooks = []
        for i in range(1, 5):
            r, took = call(i, envs[i % 2])
            tooks.append(took)
            assert r.returncode == 0 and r.payload["provider"] == "brave", r
            (warning,) = r.payload["warnings"]
            assert "shared state redis://127.0.0.1:%d/0 is unreachable" % redis_server.port in warning, warning
            assert "this machine's state" in warning and "Traceback" not in r.stderr
            assert took < 5, took
        print("\nRedis stopped: 4 calls answered from local state in %s s (--timeout 5)" % [round(t, 2) for t in tooks])
        r, _ = call(1, envs[1])  # its own machine's cache answers while Redis is away
        assert r.payload["meta"]["cached"] is True, r
        redis_server.start()
        for i in range(5, 7):
            r, _ = call(i, envs[i % 2])
            assert r.payload["ok"] and r.payload["warnings"] == [], r
        r, _ = call(5, envs[0])  # machine a reads what machine b stored in Redis
        assert r.payload["meta"]["cached"] is True and r.payload["warnings"] == [], r
        assert len(redis_server.keys("websearch-worker:cache:*")) == 2


def test_redis_stopped_while_a_fleet_waits_for_its_slots(tmp_path, redis_server):
    """Ten calls paced one a second through Redis; the server stops three seconds in: every call answers."""
    with brave_server.FakeBrave() as fake:
        envs = [machine_env(tmp_path, m, brave_config(fake, redis_server.url)) for m in MACHINES]
        started = time.monotonic()
        procs = [
            spawn(["search", "--timeout", "30", "--provider", "brave", "full waiting %d" % i], envs[i % 2])
            for i in range(10)
        ]
        time.sleep(3)
        redis_server.stop()
        results = collect(procs)
        took = time.monotonic() - started
        warned = 0
        for r in results:
            assert r.returncode == 0 and r.payload["provider"] == "brave", r
            warned += any("is unreachable" in w for w in r.payload["warnings"])
        assert warned >= 5, warned  # those that reached Redis after it stopped said so (the others before)
        assert took < 30, took
        print("\nRedis stopped 3 s into ten paced calls: all answered in %.1f s, %d with the warning" % (took, warned))
        redis_server.start()
        r = run_worker(["search", "--provider", "brave", "full after restart"], envs[0])
        assert r.payload["ok"] and r.payload["warnings"] == [], r
        assert redis_server.keys("websearch-worker:cache:*"), redis_server.keys()


def test_a_redis_that_never_answers_never_holds_a_call_past_its_timeout(tmp_path):
    hole = Blackhole()
    try:
        with brave_server.FakeBrave() as fake:
            for machine, timeout in zip(MACHINES, ("3", "1")):
                # One machine per call: on one, Brave's one-second pace (kept locally while Redis is
                # away) would hold the second call until its deadline, and the test would time that.
                env = machine_env(tmp_path, machine, brave_config(fake, hole.url))
                started = time.monotonic()
                r = run_worker(["search", "--timeout", timeout, "full blackhole " + timeout], env, timeout=60)
                took = time.monotonic() - started
                assert r.returncode == 0 and r.payload["provider"] == "brave", r
                assert "no answer within the time allowed" in r.payload["warnings"][0], r
                assert took < float(timeout) + 1.0, took  # interpreter start-up counts into --timeout
                print("\nRedis never answering: --timeout %s call answered in %.2f s" % (timeout, took))
    finally:
        hole.close()
