"""The Redis backend (worker/state/redis_backend.py) against a real redis-server: the state URL as
config, slots, cache entries and circuits on the server, and falling back to local state when the
server is gone, slow or refusing.  The fleet itself (many processes, two "machines"): test_fleet.py."""

import json
import os
import subprocess
import sys
import threading
import time

import pytest
from conftest import ROOT, redis_missing, run_worker, worker_env
from fakes import brave_server
from redisproc import Blackhole, RedisServer

from worker import protocol
from worker.config import parse_config
from worker.errors import WorkerError
from worker.request import SearchRequest
from worker.runtime import Call
from worker.state import backend, breaker, cache
from worker.state.backend import parse_url
from worker.state.redis_backend import RedisState

SECRET = "s3cret-redis-pass-7731"


def state(server, call=None):
    return RedisState(parse_url(server.url), call or Call(timeout=30))


# -- the URL ---------------------------------------------------------------------------------


def test_urls_parse_and_never_show_their_password():
    t = parse_url("rediss://alice:%s@cache.example:6380/3?ssl_cert_reqs=none" % SECRET)
    assert (t.tls, t.host, t.port, t.db, t.username, t.password, t.verify) == (
        True,
        "cache.example",
        6380,
        3,
        "alice",
        SECRET,
        False,
    )
    assert SECRET not in str(t) and SECRET not in repr(t) and str(t) == "rediss://alice:***@cache.example:6380/3"
    t = parse_url("redis://[::1]")
    assert (t.host, t.port, t.db, t.password) == ("::1", 6379, 0, None) and str(t) == "redis://[::1]:6379/0"


@pytest.mark.parametrize(
    "value,problem",
    [
        ("http://cache.example:6379/0", "must start with redis://"),
        ("redis://", "names no host"),
        ("redis://cache.example:port/0", "host and port"),
        ("redis://cache.example/zero", "database number"),
        ("redis://cache.example/0?timeout=5", "unknown option"),
        (6379, "must be a redis://"),
        ("", "must be a redis://"),
        ("redis://:%s@cache.example:notaport/0" % SECRET, "host and port"),
    ],
)
def test_a_bad_state_url_is_a_config_error(value, problem):
    with pytest.raises(WorkerError) as exc:
        parse_config("/tmp/c.json", {"state": value})
    err = exc.value
    assert err.code == "config" and problem in err.message and '"state"' in err.message, err.message
    assert "\n" not in err.message and err.hint
    assert SECRET not in err.message + (err.hint or "")


def test_state_env_names_a_variable():
    with pytest.raises(WorkerError) as exc:
        parse_config("/tmp/c.json", {"stateEnv": "NOT A NAME"})
    assert exc.value.code == "config" and "environment variable" in exc.value.message
    assert backend.state_url({"stateEnv": "WS_STATE"}, {"WS_STATE": " redis://h/1 "}) == ("redis://h/1", "$WS_STATE")
    assert backend.state_url({"stateEnv": "WS_STATE"}, {}) == (None, "")  # unset: this machine's state
    assert backend.state_url({"state": "sqlite", "stateEnv": "WS_STATE"}, {"WS_STATE": "redis://h"}) == (None, "")
    assert (
        backend.state_url({"state": "redis://a", "stateEnv": "WS_STATE"}, {"WS_STATE": "redis://b"})[0] == "redis://a"
    )


def test_a_bad_url_in_the_variable_is_a_config_error_through_the_cli(tmp_path):
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"stateEnv": "WS_TEST_STATE"}))
    env = worker_env(tmp_path, {"WEBSEARCH_CONFIG": str(cfg), "WS_TEST_STATE": "redis://:%s@h:xx/0" % SECRET})
    r = run_worker(["search", "q", "--provider", "ddgs"], env)
    assert r.returncode == 1 and r.payload["error"]["code"] == "config", r
    assert "$WS_TEST_STATE" in r.payload["error"]["message"] and "Traceback" not in r.stderr
    assert SECRET not in r.stdout + r.stderr


# -- slots --------------------------------------------------------------------------------------


def test_reservations_are_spaced_on_the_server_and_refused_past_max_wait(redis_server):
    # A wait counts from the moment the call reached the server, somewhere between the call's
    # start and its return: each start is known to lie in [before + wait, after + wait], so the
    # bounds hold however slow a round trip is on a loaded machine.
    s = state(redis_server)
    starts = []
    for _ in range(4):
        before = time.monotonic()
        wait = s.reserve("k", 0.5, None)
        starts.append((before + wait, time.monotonic() + wait))
        assert len(starts) > 1 or wait == 0
    for (lo_a, hi_a), (lo_b, hi_b) in zip(starts, starts[1:]):
        assert hi_b - lo_a >= 0.5 - 0.01 and lo_b - hi_a <= 0.5 + 0.01, starts  # 0.5 s apart
    assert s.reserve("k", 0.5, 1.0) is None  # the next start is ~2 s after the first: nothing reserved
    before = time.monotonic()
    wait = s.reserve("k", 0.5, None)
    assert starts[0][0] + 2.0 - 0.01 <= time.monotonic() + wait and before + wait <= starts[0][1] + 2.0 + 0.01
    before = time.monotonic()
    s.defer("other", 0.0, 3.0)  # a Retry-After of 3 s
    wait = s.reserve("other", 0.0, None)
    assert before + 3.0 - 0.01 <= time.monotonic() + wait and wait <= 3.0
    assert redis_server.keys() == ["websearch-worker:rate:k", "websearch-worker:rate:other"]
    ttl = redis_server.command("PTTL", "websearch-worker:rate:k")
    assert 0 < ttl <= 3600, ttl  # the slot key expires once its last start has passed


def test_reservations_from_many_connections_never_share_a_start(redis_server):
    # A wait counts from the moment its own call reached the server, somewhere between the
    # call's start and its return: each start is known to lie in [before + wait, after + wait].
    starts, lock = [], threading.Lock()

    def one():
        before = time.monotonic()
        w = state(redis_server).reserve("fleet", 0.2, None)
        after = time.monotonic()
        with lock:
            starts.append((before + w, after + w))

    threads = [threading.Thread(target=one) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    starts.sort()
    # the latest b can start minus the earliest a can: under 0.19 only if two share a slot
    gaps = [b[1] - a[0] for a, b in zip(starts, starts[1:])]
    assert len(starts) == 12 and min(gaps) >= 0.19, starts
    assert starts[-1][1] - starts[0][0] >= 11 * 0.2 - 0.01, starts


# -- the cache ------------------------------------------------------------------------------------


def test_cache_entries_are_hashed_and_expire_by_the_servers_ttl(redis_server, tmp_path):
    call = Call(timeout=30)
    backend.attach(call, str(tmp_path / "c"), {"state": redis_server.url})
    req = SearchRequest(query="secret plans of the q3 launch")
    store = cache.Store(cache.Policy(str(tmp_path / "c"), ttl=1), call)
    key = cache.make_key("search", brave_server_spec(), cache.request_fields(req))
    store.put(key, "search", "brave", {"results": [{"title": "t", "url": "https://t.example/"}], "meta": {}})
    value, age = store.get(key)
    assert value["results"][0]["title"] == "t" and 0 <= age < 1
    (name,) = redis_server.keys()
    assert name.startswith("websearch-worker:cache:") and "q3" not in name and len(name) == 23 + 64
    assert 0 < redis_server.command("PTTL", name) <= 1000
    assert not os.path.exists(os.path.join(str(tmp_path / "c"), cache.DB_NAME))  # nothing written locally
    time.sleep(1.1)
    assert store.get(key) is None and redis_server.keys() == []


def brave_server_spec():
    from worker.providers.base import ProviderSpec

    return ProviderSpec("brave", "brave", api_key=brave_server.KEY)


# -- the breaker ------------------------------------------------------------------------------------


def test_circuits_on_the_server_open_for_every_process_and_lease_one_probe(redis_server, tmp_path):
    conf = {"threshold": 3, "window": 60.0, "cooldown": 1.0, "probe": 5.0}

    def process():  # each breaker has its own connection: another process's view
        call = Call(timeout=30)
        backend.attach(call, str(tmp_path / ("c%d" % id(call))), {"state": redis_server.url})
        return breaker.Breaker(call.state_dir, conf, call=call)

    a, b, c = process(), process(), process()
    for _ in range(2):
        a.record("provider:exa-main", "blocked")
    assert b.check("provider:exa-main").state == "go"  # two refusals: still closed
    a.record("provider:exa-main", "blocked")
    d = b.check("provider:exa-main")
    assert d.state == "skip" and d.code == "blocked" and d.failures == 3 and 0 < d.until - time.time() <= 1.5
    assert 0 < redis_server.command("PTTL", "websearch-worker:circuit:provider:exa-main") <= 3600 * 1000 + 60000
    time.sleep(1.1)
    first, second = b.check("provider:exa-main"), c.check("provider:exa-main")
    assert (first.state, second.state) == ("probe", "skip"), (first.state, second.state)  # one lease (SET NX PX)
    b.record("provider:exa-main", None)  # the probe answered: closed for everyone
    assert c.check("provider:exa-main").state == "go" and redis_server.keys() == []


# -- falling back ------------------------------------------------------------------------------------


def test_an_unreachable_server_falls_back_to_local_state_with_one_warning(tmp_path, capsys):
    dead = RedisServer(tmp_path / "never-started")  # a free port nobody listens on
    call = Call(timeout=30)
    st = backend.attach(call, str(tmp_path / "c"), {"state": dead.url})
    started = time.monotonic()
    assert st.reserve("k", 1.0, None) == 0  # local: the .last file
    assert 0.9 <= st.reserve("k", 1.0, None) <= 1.0
    assert time.monotonic() - started < 1
    assert os.path.exists(tmp_path / "c" / "locks" / "k.last")
    assert (
        len(call.warnings) == 1 and "is unreachable" in call.warnings[0] and "this machine's state" in call.warnings[0]
    )
    assert capsys.readouterr().err.count("websearch-worker: warning: shared state") == 1


def test_a_server_that_never_answers_costs_a_bounded_wait(tmp_path):
    hole = Blackhole()
    try:
        call = Call(timeout=30)
        st = backend.attach(call, str(tmp_path / "c"), {"state": hole.url})
        started = time.monotonic()
        assert st.cache_get_many(["k"]) == {}
        took = time.monotonic() - started
        assert took < backend.CONNECT_TIMEOUT_S + backend.IO_TIMEOUT_S + 0.3, took
        assert "no answer within the time allowed" in call.warnings[0]
        # and never past the call's own deadline when less is left
        call = Call(timeout=0.2)
        st = backend.attach(call, str(tmp_path / "d"), {"state": hole.url})
        started = time.monotonic()
        st.circuit_check("provider:x", time.time(), 30)
        assert time.monotonic() - started < 0.35
    finally:
        hole.close()


def test_a_cluster_node_is_named_as_one_and_the_call_goes_on(tmp_path):
    # The client speaks to a standalone server: a Cluster node refuses the scripts' and MGET's
    # keys of several slots. The warning says what the server is and what is needed.
    why = redis_missing()
    if why:
        pytest.skip(why)
    server = RedisServer(tmp_path / "r", cluster=True).start()
    try:
        call = Call(timeout=30)
        st = backend.attach(call, str(tmp_path / "c"), {"state": server.url})
        assert st.cache_get_many(["a", "b"]) == {}  # no slot served yet: CLUSTERDOWN
        assert server.command("CLUSTER", "ADDSLOTSRANGE", "0", "16383") == "OK"
        deadline = time.monotonic() + 10
        while b"cluster_state:ok" not in server.command("CLUSTER", "INFO") and time.monotonic() < deadline:
            time.sleep(0.05)
        call2 = Call(timeout=30)
        st = backend.attach(call2, str(tmp_path / "d"), {"state": server.url})
        assert st.cache_get_many(["a", "b", "c"]) == {}  # every slot served: CROSSSLOT
        for warnings, kind in ((call.warnings, "CLUSTERDOWN"), (call2.warnings, "CROSSSLOT")):
            assert len(warnings) == 1 and kind in warnings[0], warnings
            assert "is a Redis Cluster node" in warnings[0] and "needs a standalone Redis or Valkey" in warnings[0]
            assert "this machine's state" in warnings[0]
    finally:
        server.stop()


def test_a_wrong_password_is_a_warning_that_shows_no_password(tmp_path, capsys):
    why = redis_missing()
    if why:
        pytest.skip(why)
    server = RedisServer(tmp_path / "r", password=SECRET).start()
    try:
        wrong = "redis://:wrong-%s@127.0.0.1:%d/0" % (SECRET, server.port)
        call = Call(timeout=30)
        st = backend.attach(call, str(tmp_path / "c"), {"state": wrong})
        assert st.reserve("k", 1.0, None) == 0
        err = capsys.readouterr().err
        assert "refused the connection's setup (WRONGPASS)" in call.warnings[0], call.warnings
        assert SECRET not in call.warnings[0] + err and "***" in call.warnings[0]
        call = Call(timeout=30)  # the right one works, db 0 and the AUTH in the first round trip
        st = backend.attach(call, str(tmp_path / "c"), {"state": server.url})
        assert st.reserve("k", 1.0, None) == 0 and call.warnings == []
        assert server.keys() == ["websearch-worker:rate:k"]
    finally:
        server.stop()


def test_rediss_speaks_tls_and_checks_the_certificate(tmp_path):
    why = redis_missing()
    if why:
        pytest.skip(why)
    server = RedisServer(tmp_path / "r", tls=True).start()
    try:
        for query, ok in (("", False), ("?ssl_cert_reqs=none", True), ("?ssl_ca_certs=" + server.ca_file, True)):
            call = Call(timeout=30)
            st = backend.attach(call, str(tmp_path / ("c" + str(len(query)))), {"state": server.url + query})
            assert st.reserve("tls", 0.0, None) == 0
            if ok:
                assert call.warnings == [], (query, call.warnings)
            else:  # a test CA the system does not trust: refused, and the call goes on locally
                assert "CERTIFICATE_VERIFY_FAILED" in call.warnings[0], call.warnings
    finally:
        server.stop()


# -- start-up --------------------------------------------------------------------------------------


def _imports(args, env):
    proc = subprocess.run(
        [sys.executable, "-I", "-X", "importtime", "-m", "worker"] + args,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=60,
    )
    payload = protocol.parse(proc.stdout.decode("ascii"))
    names = {
        line.split("|")[-1].strip() for line in proc.stderr.decode().splitlines() if line.startswith("import time:")
    }
    return payload, names


def test_a_cached_answer_imports_the_redis_client_only_when_the_config_names_redis(redis_server, tmp_path):
    with brave_server.FakeBrave() as fake:
        for name, extra in (("sqlite", {}), ("redis", {"state": redis_server.url})):
            env = worker_env(tmp_path / name)
            cfg = tmp_path / (name + ".json")
            fake.config_file(cfg, **extra)
            args = ["search", "full startup", "--config", str(cfg), "--provider", "brave"]
            assert run_worker(args, env).payload["meta"]["cached"] is False
            payload, names = _imports(args, env)
            assert payload["meta"]["cached"] is True and payload["warnings"] == [], payload
            shared = {"worker.state.redis_backend", "worker.state.resp"}
            assert not {m for m in names if m.split(".")[0] in ("redis", "ddgs", "exa_py", "asyncio")}
            # no TLS for redis://, and no idna codec for an ASCII host
            assert not {"ssl", "encodings.idna"} & names
            if name == "sqlite":
                assert not shared & names, sorted(shared & names)
                assert not {"socket", "hashlib", "selectors"} & names  # a SQLite hit opens no socket
            else:
                assert shared <= names
        assert len(fake.requests) == 2  # each state answered its second call itself
