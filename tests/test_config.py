"""The config file, through the real worker subprocess: every mistake is a precise config error."""

import json
import os

import pytest
from conftest import run_worker
from fakes import exa_server

CANARY = "canary-key-7f3a9c-DO-NOT-LEAK"


def write(tmp_path, data, name="web-search.json", mode=0o600):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    os.chmod(path, mode)
    return str(path)


def config_error(result):
    assert result.returncode == 1, result
    assert result.payload and result.payload["ok"] is False, result
    err = result.payload["error"]
    assert err["code"] == "config", result
    return err


def test_missing_file_is_fine_for_fetch_auto_and_no_provider_needs_it(env, tmp_path):
    # WEBSEARCH_CONFIG names a file that does not exist: the builtins answer; an
    # invalid query shows selection got as far as the search tool without a config error.
    r = run_worker(["search", " "], env)
    assert r.payload["error"]["code"] == "invalid_query", r


def test_explicit_config_missing(env, tmp_path):
    path = str(tmp_path / "nope.json")
    err = config_error(run_worker(["search", "q", "--config", path], env))
    assert path in err["message"] and "no such file" in err["message"]
    assert "apiKey" in err["hint"]


def test_config_flag_before_subcommand(env, tmp_path):
    path = str(tmp_path / "nope.json")
    err = config_error(run_worker(["--config", path, "search", "q"], env))
    assert path in err["message"]


def test_env_var_overrides_default_path(env, tmp_path):
    path = write(tmp_path, "{nope")
    env["WEBSEARCH_CONFIG"] = path
    err = config_error(run_worker(["search", "q"], env))
    assert path in err["message"]


def test_default_path_under_home(env, tmp_path):
    del env["WEBSEARCH_CONFIG"]
    home = tmp_path / "home" / ".pi" / "agent"
    home.mkdir(parents=True)
    path = write(home, '{"providers": []}')
    err = config_error(run_worker(["search", "q"], env))
    assert path in err["message"] and "empty" in err["message"]


def test_unreadable_file(env, tmp_path):
    if os.geteuid() == 0:
        path = str(tmp_path)  # root reads anything: use a directory instead
        err = config_error(run_worker(["search", "q", "--config", path], env))
        assert "directory" in err["message"]
        return
    path = write(tmp_path, "{}", mode=0o000)
    err = config_error(run_worker(["search", "q", "--config", path], env))
    assert "cannot be read" in err["message"]


def test_invalid_json_line_and_column(env, tmp_path):
    path = write(tmp_path, '{\n  "providers": [\n    {"name": "a",}\n  ]\n}')
    err = config_error(run_worker(["search", "q", "--config", path], env))
    assert path in err["message"]
    assert "line 3 column" in err["message"]
    assert "minimal valid config" in err["hint"] and '"providers"' in err["hint"]


@pytest.mark.parametrize(
    "data, fragment",
    [
        ([1, 2], "top level must be a JSON object"),
        ({"providers": {"name": "x"}}, '"providers" must be a list'),
        ({"providers": []}, "empty list"),
        ({"providers": ["exa"]}, "provider entry 1 must be an object"),
        ({"providers": [{"type": "exa"}]}, 'needs a "name"'),
        ({"providers": [{"name": "a", "type": "exa"}, {"name": "a", "type": "ddgs"}]}, "duplicate provider name 'a'"),
        (
            {"defaultProvider": "zzz", "providers": [{"name": "a", "type": "ddgs"}]},
            "'zzz', which is not in \"providers\"",
        ),
        ({"providers": [{"name": "a", "type": "bing"}]}, "unknown type 'bing'"),
        ({"providers": [{"name": "a", "type": "ddgs", "colour": 1}]}, 'unknown key "colour"'),
        ({"provider": []}, 'unknown key "provider"'),
        ({"providers": [{"name": "a", "type": "exa", "options": {"defaultSearchLimit": "5"}}]}, "defaultSearchLimit"),
        ({"providers": [{"name": "a", "type": "exa", "baseUrl": "ftp://x"}]}, '"baseUrl" must be an http(s) URL'),
        ({"cacheTtl": -1}, '"cacheTtl" must be a whole number'),
        ({"allowPrivate": "yes"}, '"allowPrivate" must be true or false'),
    ],
)
def test_shape_errors(env, tmp_path, data, fragment):
    path = write(tmp_path, data)
    err = config_error(run_worker(["search", "q", "--config", path], env))
    assert path in err["message"], err
    assert fragment in err["message"], err
    assert "hint" in err and "{" in err["hint"], err  # a minimal valid example


def test_unknown_provider_lists_configured(env, tmp_path):
    path = write(
        tmp_path,
        {"providers": [{"name": "exa-main", "type": "exa", "apiKey": CANARY}, {"name": "web", "type": "ddgs"}]},
    )
    r = run_worker(["search", "q", "--config", path, "--provider", "nope"], env)
    err = config_error(r)
    assert "'nope'" in err["message"] and "exa-main" in err["message"] and "web" in err["message"]
    assert CANARY not in r.stdout + r.stderr


def test_missing_key(env, tmp_path):
    path = write(tmp_path, {"providers": [{"name": "exa-main", "type": "exa"}]})
    err = config_error(run_worker(["search", "q", "--config", path, "--provider", "exa-main"], env))
    assert "'exa-main'" in err["message"] and "needs an API key" in err["message"] and "EXA_API_KEY" in err["message"]
    assert "apiKey" in err["hint"]


def test_missing_key_without_file(env):
    err = config_error(run_worker(["search", "q", "--provider", "brave"], env))
    assert "BRAVE_API_KEY" in err["message"]


def test_custom_type_import_failure_and_not_a_provider(env, tmp_path):
    path = write(tmp_path, {"providers": [{"name": "mine", "type": "no_such_module_xyz:Thing"}]})
    err = config_error(run_worker(["search", "q", "--config", path, "--provider", "mine"], env))
    assert "cannot be imported" in err["message"] and "ModuleNotFoundError" in err["message"]
    path = write(
        tmp_path, {"providers": [{"name": "mine", "type": "tests.fakes.own_provider:NotAProvider"}]}, name="b.json"
    )
    err = config_error(run_worker(["search", "q", "--config", path, "--provider", "mine"], env))
    assert "not a subclass" in err["message"]


def test_custom_provider_class_answers(env, tmp_path):
    path = write(
        tmp_path,
        {"providers": [{"name": "mine", "type": "tests.fakes.own_provider:Echo", "options": {"flavour": "x"}}]},
    )
    r = run_worker(["search", "hello", "--config", path, "--provider", "mine"], env)
    assert r.returncode == 0, r
    assert r.payload["provider"] == "mine" and r.payload["provider_type"] == "tests.fakes.own_provider:Echo"
    assert r.payload["results"][0]["snippet"] == "hello" and r.payload["meta"]["flavour"] == "x"
    # auto takes it too: it needs no key and comes first in the file
    r = run_worker(["search", "hello", "--config", path], env)
    assert r.payload["provider"] == "mine", r


@pytest.mark.slow
def test_shorthand_defines_exa_and_auto_picks_it(env, tmp_path):
    server = exa_server.start()
    try:
        path = write(tmp_path, {"apiKey": exa_server.KEY, "baseUrl": server.url})
        r = run_worker(["search", "hello world", "--config", path], env)
        assert r.returncode == 0, r
        assert r.payload["provider"] == "exa"
        assert r.payload["meta"]["key_source"] == "config"
    finally:
        server.shutdown()


@pytest.mark.slow
def test_key_in_file_wins_over_env_and_source_reported(env, tmp_path):
    server = exa_server.start()
    try:
        env["EXA_API_KEY"] = "wrong-env-key"
        path = write(
            tmp_path,
            {"providers": [{"name": "exa-main", "type": "exa", "apiKey": exa_server.KEY, "baseUrl": server.url}]},
        )
        r = run_worker(["search", "q", "--config", path, "--provider", "exa-main"], env)
        assert r.returncode == 0, r
        assert r.payload["meta"]["key_source"] == "config"
        assert server.requests[-1]["headers"]["x-api-key"] == exa_server.KEY
        # without a key in the entry, the env key is used and reported
        path = write(
            tmp_path, {"providers": [{"name": "exa-main", "type": "exa", "baseUrl": server.url}]}, name="e.json"
        )
        env["EXA_API_KEY"] = exa_server.KEY
        r = run_worker(["search", "q", "--config", path, "--provider", "exa-main", "--no-cache"], env)
        assert r.returncode == 0, r
        assert r.payload["meta"]["key_source"] == "env:EXA_API_KEY"
    finally:
        server.shutdown()


@pytest.mark.slow
def test_several_providers_of_one_type_and_default(env, tmp_path):
    a, b = exa_server.start(key="key-a"), exa_server.start(key="key-b")
    try:
        path = write(
            tmp_path,
            {
                "defaultProvider": "exa-b",
                "providers": [
                    {
                        "name": "exa-a",
                        "type": "exa",
                        "apiKey": "key-a",
                        "baseUrl": a.url,
                        "options": {"defaultSearchLimit": 2},
                    },
                    {
                        "name": "exa-b",
                        "type": "exa",
                        "apiKey": "key-b",
                        "baseUrl": b.url,
                        "options": {"defaultSearchLimit": 3},
                    },
                ],
            },
        )
        r = run_worker(["search", "q", "--config", path], env)
        assert r.returncode == 0, r
        assert r.payload["provider"] == "exa-b" and len(r.payload["results"]) == 3
        assert len(b.requests) == 1 and not a.requests
        r = run_worker(["search", "q", "--config", path, "--provider", "exa-a"], env)
        assert r.payload["provider"] == "exa-a" and len(r.payload["results"]) == 2
        # --provider auto: first available in file order
        r = run_worker(["search", "q", "--config", path, "--provider", "auto"], env)
        assert r.payload["provider"] == "exa-a", r
    finally:
        a.shutdown()
        b.shutdown()


@pytest.mark.slow
def test_auto_skips_keyless_and_type_name_uses_env_builtin(env, tmp_path):
    server = exa_server.start()
    try:
        # the first entry has no key: auto skips it and takes the env-key builtin exa
        path = write(tmp_path, {"providers": [{"name": "brave-main", "type": "brave"}]})
        env["EXA_API_KEY"] = exa_server.KEY
        cfg2 = write(
            tmp_path,
            {
                "providers": [
                    {"name": "brave-main", "type": "brave"},
                    {"name": "exa", "type": "exa", "baseUrl": server.url},
                ]
            },
            name="c2.json",
        )
        r = run_worker(["search", "q", "--config", cfg2, "--provider", "auto"], env)
        assert r.returncode == 0, r
        assert r.payload["provider"] == "exa" and r.payload["meta"]["key_source"] == "env:EXA_API_KEY"
        # fetch auto: the local fetcher unless defaultProvider can fetch
        cfg3 = write(
            tmp_path,
            {"defaultProvider": "exa", "providers": [{"name": "exa", "type": "exa", "baseUrl": server.url}]},
            name="c3.json",
        )
        r = run_worker(["fetch", "https://docs.example/page", "--config", cfg3], env)
        assert r.returncode == 0, r
        assert r.payload["provider"] == "exa"
        assert path  # the brave-only file is valid on its own
    finally:
        server.shutdown()


@pytest.mark.slow
def test_permission_warning(env, tmp_path):
    # the provider points at a closed local port: the call fails fast with a network error
    path = write(
        tmp_path,
        {"providers": [{"name": "exa-main", "type": "exa", "apiKey": CANARY, "baseUrl": "http://127.0.0.1:9"}]},
        mode=0o644,
    )
    r = run_worker(["search", "q", "--config", path, "--provider", "exa-main"], env)
    assert r.payload["error"]["code"] == "network", r
    assert "readable by" in r.stderr and "chmod 600" in r.stderr, r
    assert CANARY not in r.stdout + r.stderr
    os.chmod(path, 0o600)
    r = run_worker(["search", "q", "--config", path, "--provider", "exa-main"], env)
    assert r.payload["error"]["code"] == "network", r
    assert "readable by" not in r.stderr, r


def test_settings_are_exposed(tmp_path):
    from worker import config

    cfg = config.parse_config("/x.json", {"allowPrivate": True, "cacheTtl": 5, "cacheDir": "/tmp/c"}, environ={})
    assert cfg.settings == {"allowPrivate": True, "cacheTtl": 5, "cacheDir": "/tmp/c"}
    assert config.select(cfg, "search", None).name == "ddgs"
    assert config.select(cfg, "fetch", None).name == "local"
