"""Where the config file is looked for (issue 34, item 2), through the real CLI with an empty home.

--config, else $WEBSEARCH_CONFIG, else $XDG_CONFIG_HOME/websearch-worker/config.json
(~/.config/... without it), else the old pi location ~/.pi/agent/web-search.json.
Each planted file is one the worker refuses with a config error naming it, so
the error says which file was read.
"""

import json
import os

import pytest
from conftest import run_worker, worker_env

BAD = '{"providers": []}'  # "empty": a config error that names the file it read


@pytest.fixture
def home_env(tmp_path):
    env = worker_env(tmp_path)
    del env["WEBSEARCH_CONFIG"]
    os.makedirs(env["HOME"])
    assert os.listdir(env["HOME"]) == []
    return env


def plant(path, text=BAD):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o600)
    return path


def xdg_file(env):
    return os.path.join(env["XDG_CONFIG_HOME"], "websearch-worker", "config.json")


def old_file(env):
    return os.path.join(env["HOME"], ".pi", "agent", "web-search.json")


def read_by(env):
    """The file the worker read, from the config error that names it; and its stderr."""
    r = run_worker(["search", "q"], env)
    err = r.payload["error"]
    assert err["code"] == "config" and "empty" in err["message"], r
    return err["file"], r.stderr


def test_the_xdg_location_is_read(home_env, tmp_path):
    home_env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    path = plant(xdg_file(home_env))
    assert read_by(home_env) == (path, "")


def test_without_xdg_config_home_it_is_under_dot_config(home_env):
    path = plant(os.path.join(home_env["HOME"], ".config", "websearch-worker", "config.json"))
    assert read_by(home_env)[0] == path
    home_env["XDG_CONFIG_HOME"] = "relative/dir"  # the XDG rules: a relative value is ignored
    assert read_by(home_env)[0] == path


def test_only_the_old_pi_file_is_read_when_the_new_one_is_absent(home_env, tmp_path):
    home_env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    path = plant(old_file(home_env))
    assert read_by(home_env) == (path, "")


def test_with_both_the_xdg_one_wins_and_a_warning_names_the_other(home_env, tmp_path):
    home_env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    new = plant(xdg_file(home_env))
    old = plant(old_file(home_env), '{"apiKey": "old-key-never-read"}')
    path, stderr = read_by(home_env)
    assert path == new
    [line] = stderr.splitlines()
    assert line.startswith("websearch-worker: warning:") and new in line and old in line and "not read" in line


def test_websearch_config_still_comes_first(home_env, tmp_path):
    home_env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    plant(xdg_file(home_env), "{}")
    plant(old_file(home_env), "{}")
    home_env["WEBSEARCH_CONFIG"] = path = plant(str(tmp_path / "named.json"))
    assert read_by(home_env) == (path, "")


def test_with_no_file_the_builtins_answer_and_a_key_error_names_the_xdg_file(home_env, tmp_path):
    home_env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    r = run_worker(["search", "q", "--provider", "exa"], home_env)
    err = r.payload["error"]
    assert err["code"] == "config" and "no config file (%s)" % xdg_file(home_env) in err["message"], r
    assert err["file"] == xdg_file(home_env)


def test_help_says_how_the_file_is_found_and_which_it_is_here(home_env, tmp_path):
    home_env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    old = plant(old_file(home_env), json.dumps({"cacheTtl": 5}))
    r = run_worker(["--help"], home_env)
    text = "".join(r.stdout.split())  # argparse wraps a long path anywhere
    assert "$XDG_CONFIG_HOME/websearch-worker/config.json" in text and "~/.pi/agent/web-search.json" in text, r
    # A file in the home folder is named as the user writes it, never by one account's home path.
    assert old.startswith(home_env["HOME"] + "/") and home_env["HOME"] not in text, text
    assert "Here:~/.pi/agent/web-search.json(exists)" in text
    new = plant(xdg_file(home_env), "{}")  # $XDG_CONFIG_HOME is outside the home: named in full
    text = "".join(run_worker(["--help"], home_env).stdout.split())
    assert ("Here:%s(exists;~/.pi/agent/web-search.jsonispassedover)" % new) in text
    del home_env["XDG_CONFIG_HOME"]
    text = "".join(run_worker(["--help"], home_env).stdout.split())
    assert "Here:~/.config/websearch-worker/config.json(absent:thebuiltinsanswer;" not in text
    assert "Here:~/.pi/agent/web-search.json(exists)" in text  # the old file, with no XDG file in the home
    plant(os.path.join(home_env["HOME"], ".config", "websearch-worker", "config.json"), "{}")
    text = "".join(run_worker(["--help"], home_env).stdout.split())
    assert "Here:~/.config/websearch-worker/config.json(exists;~/.pi/agent/web-search.jsonispassedover)" in text


def test_as_written_puts_a_tilde_for_the_home_only():
    from worker.config import as_written

    env = {"HOME": "/home/me"}
    assert as_written("/home/me/.config/websearch-worker/config.json", env) == "~/.config/websearch-worker/config.json"
    assert as_written("/home/mel/x.json", env) == "/home/mel/x.json"  # another folder that starts alike
    assert as_written("/home/me", env) == "/home/me"
    assert as_written("/etc/ws.json", {"HOME": "/"}) == "/etc/ws.json"  # a home of / shortens nothing
    assert as_written("/srv/x/ws.json", {"HOME": "/srv/x/"}) == "~/ws.json"
