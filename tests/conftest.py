import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from worker import protocol  # noqa: E402


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    """A test marked upstream(dist, ...) watches those distributions' internals: it fails at once, saying so,
    when the installed versions are not the locked ones (a new release would fail it for no fault of ours).
    A test marked tricks(name, ...) checks those start-up tricks themselves: with WEBSEARCH_WORKER_PLAIN
    turning one off (a smoke run of the suite without them) it is skipped, saying so."""
    marks = list(item.iter_markers("upstream"))
    if marks:
        import locks

        for mark in marks:
            for dist in mark.args:
                problem = locks.version_problem(dist)
                if problem:
                    pytest.fail(problem, pytrace=False)
    tricks = {name for mark in item.iter_markers("tricks") for name in mark.args}
    if tricks:
        from worker import startup

        unknown = tricks - set(startup.TRICKS)
        assert not unknown, "tricks(...) names no trick of worker/startup.py: %s" % sorted(unknown)
        off = sorted(tricks & startup.off_in(os.environ))
        if off:
            pytest.skip("checks the start-up trick %s, which WEBSEARCH_WORKER_PLAIN turns off" % ", ".join(off))


def shared_data_missing():
    """None when the team's shared data sets (../shared beside the repo) are there; else one line saying
    what is missing, for the caller to skip with.  Under CI=true it fails instead: CI runs with the
    data beside the clone, so there a missing set is a broken setup, never a quiet pass."""
    from fakes import corpus_server

    why = corpus_server.missing()
    if why and os.environ.get("CI", "").lower() == "true":
        pytest.fail("%s (CI=true: the tests that read them must run)" % why, pytrace=False)
    return why


class Result:
    def __init__(self, proc, stdout, stderr):
        self.returncode = proc.returncode
        self.stdout = stdout
        self.stderr = stderr
        self.payload = None
        try:
            self.payload = protocol.parse(stdout)
        except protocol.ProtocolError:
            pass

    def __repr__(self):
        return "Result(rc=%r, stdout=%r, stderr=%r)" % (self.returncode, self.stdout[:2000], self.stderr[-2000:])


def worker_env(tmp_path, extra=None):
    env = dict(os.environ)
    env["WEBSEARCH_WORKER_TMPDIR"] = str(tmp_path / "calltmp")
    env["WEBSEARCH_CONFIG"] = str(tmp_path / "no-config.json")
    env["HOME"] = str(tmp_path / "home")
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    env.pop("XDG_CONFIG_HOME", None)  # the config lookup falls to HOME/.config, inside tmp_path
    for key in ("EXA_API_KEY", "BRAVE_API_KEY", "HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
        env.pop(key, None)
    if extra:
        env.update(extra)
    if "HTTPS_PROXY" not in env:
        # A search chain ends in ddgs: a test whose first provider fails must not reach the
        # real engines.  ddgs' own proxy variable; port 9 refuses at once.  Tests that route
        # ddgs through the TLS proxy (HTTPS_PROXY) or name DDGS_PROXY keep theirs.
        env.setdefault("DDGS_PROXY", "http://127.0.0.1:9")
    return env


def run_worker(args, env, timeout=60, input=None, cwd=ROOT):
    """Run ``python -m worker`` as a real subprocess, the way hosts do."""
    proc = subprocess.run(
        [sys.executable, "-I", "-m", "worker"] + list(args),
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    return Result(proc, proc.stdout.decode("ascii", errors="replace"), proc.stderr.decode("utf-8", errors="replace"))


def spawn_worker(args, env, **popen):
    """Start ``python -m worker`` as a real subprocess without waiting: for calls that run at once."""
    return subprocess.Popen(
        [sys.executable, "-I", "-m", "worker"] + list(args),
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **popen,
    )


@pytest.fixture
def env(tmp_path):
    return worker_env(tmp_path)


@pytest.fixture(scope="module")
def proxy(tmp_path_factory):
    """A local CONNECT proxy terminating TLS with a test CA (tests/fakes/tls_proxy.py), per test module."""
    from fakes.tls_proxy import TlsProxy

    p = TlsProxy(tmp_path_factory.mktemp("ca"))
    yield p
    p.close()


def redis_missing():
    """None when redis-server can be started here; else one line to skip with.  Under CI=true a missing
    server fails instead: .ci/run installs it, so there a skip would hide a broken setup."""
    import redisproc

    why = redisproc.missing()
    if why and os.environ.get("CI", "").lower() == "true":
        pytest.fail("%s (CI=true: the shared-state tests must run)" % why, pytrace=False)
    return why


@pytest.fixture
def redis_server(tmp_path_factory):
    """A real redis-server of this test's own on a free port (tests/redisproc.py), stopped at teardown."""
    import redisproc

    why = redis_missing()
    if why:
        pytest.skip(why)
    server = redisproc.RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()
