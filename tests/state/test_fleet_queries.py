"""A burst of queries in one call through the fleet's shared rate limit (issue 43).

The fake Brave of bench/state/fleet.py and tests/state/test_fleet.py allows one request a second
for the key, whoever sends it, and answers 429 to anything faster (``rate = 1``).  A search with
five queries runs them at once, but each still takes the provider's slot and keeps Brave's own
pace (one request a second, its default ``minInterval``): on this machine's state, and on Redis
with two machines each sending a five-query call at the same moment.  No 429 reaches the fake.
"""

import time

import pytest
from conftest import run_worker
from conftest import spawn_worker as spawn
from fakes import brave_server
from test_fleet import MACHINES, brave_config, collect, machine_env, spacing

pytestmark = pytest.mark.slow  # paced at one request a second

QUERIES = ["full burst %d" % i for i in range(5)]


def burst_args(tag):
    args = ["search", "--no-cache", "--provider", "brave", "%s %s" % (QUERIES[0], tag)]
    for q in QUERIES[1:]:
        args += ["--query", "%s %s" % (q, tag)]
    return args


@pytest.fixture
def rate_limited_brave():
    with brave_server.FakeBrave() as fake:
        fake.server.rate = 1.0
        fake.server.rate_retry_after = None  # a 429 would be the query's answer: it must never come
        yield fake


def check_paced(fake, expected):
    assert fake.server.refused == 0, fake.server.refused  # no request faster than the plan allows
    times = sorted(fake.server.answered)
    gaps, mean, _sd = spacing(times)
    assert len(times) == expected and min(gaps) >= 0.8, gaps  # the fake's own slack is 0.2 s
    return gaps, mean


def test_five_queries_in_one_call_keep_the_providers_rate(tmp_path, rate_limited_brave):
    fake = rate_limited_brave
    env = machine_env(tmp_path, "a", brave_config(fake))
    started = time.monotonic()
    r = run_worker(burst_args("alone"), env, timeout=60)
    took = time.monotonic() - started
    assert r.returncode == 0 and r.payload["warnings"] == [], r
    assert [s["outcome"] for s in r.payload["meta"]["searches"]] == ["ok"] * 5
    check_paced(fake, 5)
    assert took >= 4.0  # five starts a second apart: the rate, not the burst, sets the pace
    assert r.payload["meta"]["slot_wait_ms"] >= 4000 * 0.9


def test_two_machines_bursting_at_once_share_one_rate_through_redis(tmp_path, rate_limited_brave, redis_server):
    fake = rate_limited_brave
    envs = [machine_env(tmp_path, m, brave_config(fake, redis_server.url)) for m in MACHINES]
    procs = [spawn(burst_args(m), env) for m, env in zip(MACHINES, envs)]
    for r in collect(procs, timeout=90):
        assert r.returncode == 0 and r.payload["warnings"] == [], r
        assert [s["outcome"] for s in r.payload["meta"]["searches"]] == ["ok"] * 5
    gaps, mean = check_paced(fake, 10)
    assert 0.95 <= mean <= 1.2, gaps
