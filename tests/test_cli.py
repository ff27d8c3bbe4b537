from conftest import run_worker


def test_usage_error_prints_block_and_exits_2(env):
    r = run_worker(["search", "x", "--limit", "nope"], env)
    assert r.returncode == 2, r
    assert r.payload["error"]["code"] == "usage"
    assert "Traceback" not in r.stderr


def test_missing_command_is_usage(env):
    r = run_worker([], env)
    assert r.returncode == 2 and r.payload["error"]["code"] == "usage"


def test_empty_query_is_invalid_query(env):
    r = run_worker(["search", "   "], env)
    assert r.returncode == 1 and r.payload["error"]["code"] == "invalid_query"


def test_version(env):
    r = run_worker(["--version"], env)
    assert r.returncode == 0 and r.stdout.startswith("websearch-worker ")


def test_help_has_examples(env):
    r = run_worker(["search", "--help"], env)
    assert r.returncode == 0 and "examples:" in r.stdout
