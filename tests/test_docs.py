"""The manual is tested: README.md and docs/*.md against the live CLI.

- docs/usage.md's option tables are the CLI's declarations (``python -m worker.docs_options --write``),
  and ``--help`` names the same options with the same values;
- every option a shell example uses is one the CLI accepts, so renaming an option fails here;
- every shell example that can run offline runs: the worker as a real subprocess against local
  fakes (ddgs' real engines through the TLS proxy, fake Exa and Brave APIs, every site an example
  names served by the proxy); the lines that cannot are in NOT_OFFLINE with the reason;
- the Python examples compile and import only what the worker has.
"""

import ast
import functools
import glob
import importlib
import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
from urllib.parse import urlsplit

import pytest
from conftest import ROOT, run_worker, worker_env

from worker import cli, docs_options
from worker.errors import UsageError

DOCS = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
SHELL = ("sh", "bash", "shell", "console")

# Shell lines that cannot run offline, by how they start, with the reason.  Their worker
# options are still checked against the CLI (test_example_options_are_the_clis).
NOT_OFFLINE = {
    "claude mcp add": "changes the user's Claude Code settings; needs Claude Code",
    "ln -s": "installs the pi extension into the user's home",
    "python3 bootstrap/test.py": "runs this test suite",
    "python3 bootstrap/lock.py": "writes the lock files again: needs uv and a package index",
    "python3 bootstrap/run.py --check": "inspects the worker's own venv (tests/test_bootstrap.py runs it)",
    "python3 bootstrap/run.py --python-path": "installs the worker's venv (tests/test_bootstrap.py runs it)",
    "python -m worker.docs_options --write": "rewrites docs/usage.md; test_usage_tables_are_the_clis checks it",
    "python3 bootstrap/run.py fetch --render always": "the browser trusts no local stand-in for a public HTTPS site; "
    "tests/pages/test_render.py renders local pages through the CLI",
    "apt-get install chromium": "installs a system package (.ci/run does, for the rendering tests)",
    "mkdir -p ~/.config/websearch-worker": "moves the user's own config file (tests/test_config_path.py reads both places)",
    "mv ~/.pi/agent/web-search.json": "moves the user's own config file (tests/test_config_path.py reads both places)",
    "chmod 600 ~/.config/websearch-worker/config.json": "changes the user's own config file's mode",
}
BOOTSTRAP_VALUED = ("--venv",)


class Example:
    def __init__(self, path, lineno, line):
        self.path = os.path.relpath(path, ROOT)
        self.lineno = lineno
        self.line = line
        self.argv = shlex.split(line, comments=True)

    @property
    def id(self):
        return "%s:%d" % (self.path, self.lineno)

    def worker_args(self):
        """The worker's argv (bootstrap flags left out) when the line runs bootstrap/run.py, else None."""
        for i, token in enumerate(self.argv):
            if token == "websearch-worker":  # the installed command runs the same worker
                return self.argv[i + 1 :]
            if token.endswith("bootstrap/run.py"):
                args = self.argv[i + 1 :]
                while args and (args[0] in cli_bootstrap_flags() or args[0].startswith("--venv=")):
                    args = args[2:] if args[0] in BOOTSTRAP_VALUED else args[1:]
                return args
        if self.argv[1:3] == ["-m", "worker"]:
            return self.argv[3:]
        return None

    def reason_not_offline(self):
        for prefix, reason in NOT_OFFLINE.items():
            if self.line.startswith(prefix):
                return reason
        if not self.line.startswith(("python3 bootstrap/run.py ", "websearch-worker ")):
            return "not a worker command (%s)" % self.argv[0]
        return None


@functools.lru_cache(maxsize=None)
def cli_bootstrap_flags():
    spec = importlib.util.spec_from_file_location("bootstrap_run", os.path.join(ROOT, "bootstrap", "run.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FLAGS


def blocks(path, languages):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for m in FENCE.finditer(text):
        if m.group(1) in languages:
            yield text.count("\n", 0, m.start(2)) + 1, m.group(2)


def shell_examples():
    out = []
    for path in DOCS:
        for first, body in blocks(path, SHELL):
            for offset, line in enumerate(body.splitlines()):
                line = line.strip()
                if line and not line.startswith("#"):
                    out.append(Example(path, first + offset, line))
    return out


EXAMPLES = shell_examples()
RUNNABLE = [e for e in EXAMPLES if e.reason_not_offline() is None]


def snippets(language):
    """(file, line, body) of each block in that language, as pytest parameters."""
    out = []
    for path in DOCS:
        where = os.path.relpath(path, ROOT)
        out += [pytest.param(where, n, body, id="%s:%d" % (where, n)) for n, body in blocks(path, (language,))]
    return out


def mcp_flags():
    """The MCP server's flags, from its own argparse declaration."""
    from hosts.mcp.settings import parser

    return {flag for action in parser()._actions for flag in action.option_strings if flag.startswith("--")} - {
        "--help"
    }


def option_problem(args):
    """Why the worker would refuse these arguments' options (None when it would not)."""
    if not args:
        return None
    if args[0] == "mcp":
        unknown = [a for a in args[1:] if a.startswith("--") and a.split("=")[0] not in mcp_flags()]
        return "mcp has no option %s" % unknown if unknown else None
    if "-h" in args or "--help" in args:
        command = cli.command_in(args)
        return None if command or args[0] in ("-h", "--help") else "no such command: %s" % args[0]
    # Exact names only: argparse takes an abbreviation, so "--max-chars" would still parse after
    # a rename to "--max-chars-per-page", and the docs would be wrong.
    command = cli.command_in(args)
    if command:
        top, sub = cli.declared(command)
        flags = args[: args.index("--")] if "--" in args else args
        named = [a.split("=")[0] for a in flags if a.startswith("--")]
        unknown = [f for f in named if f not in sub.options and f not in top.options]
        if unknown:
            return "%s has no option %s" % (command, ", ".join(unknown))
    try:
        cli.parse_args(args)
    except UsageError as exc:
        return exc.message
    return None


# ------------------------------------------------------------------ README for a new user


def test_readme_is_short_and_the_claude_code_snippet_comes_early():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    lines = text.splitlines()
    assert len(lines) <= 250
    assert any(line.startswith("claude mcp add ") for line in lines[:80])
    prose = FENCE.sub("", text)
    for paragraph in re.split(r"\n\s*\n", prose):
        rows = paragraph.strip().splitlines()
        if rows and not rows[0].startswith(("|", "- ", "<!--")):  # tables and lists are not paragraphs
            assert len(rows) <= 8, "a README paragraph of %d lines: %s..." % (len(rows), rows[0])


# ------------------------------------------------------------------ the options tables


def test_usage_tables_are_the_clis():
    with open(docs_options.USAGE_MD, encoding="utf-8") as f:
        text = f.read()
    assert docs_options.rewrite(text) == text, "docs/usage.md's options differ from the CLI; run: %s" % (
        docs_options.REGENERATE
    )


def test_the_table_check_sees_a_changed_option():
    with open(docs_options.USAGE_MD, encoding="utf-8") as f:
        text = f.read()
    text = docs_options.rewrite(text)  # as the CLI has it now: this test checks the check, not the file
    stale = text.replace("| `--limit N` |", "| `--results N` |", 1)
    assert stale != text and docs_options.rewrite(stale) == text
    with pytest.raises(ValueError, match="options:fetch"):
        docs_options.rewrite(text.replace("<!-- /options:fetch -->", ""))
    r = subprocess.run(
        [sys.executable, "-m", "worker.docs_options", "--check", "/dev/stdin"],
        input=stale,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert r.returncode == 1 and docs_options.REGENERATE in r.stderr


def _home_env(home, **extra):
    """The environment of a user whose home is ``home``: no config named, no XDG folders of ours."""
    env = {k: v for k, v in os.environ.items() if k not in ("WEBSEARCH_CONFIG", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")}
    env.update(HOME=str(home), **extra)
    return env


def test_the_docs_checks_pass_with_home_an_empty_folder(tmp_path):
    """README's test command's docs checks in another account: HOME an empty folder (issue 44)."""
    home = tmp_path / "home"
    home.mkdir()
    here = "tests/test_docs.py::test_the_docs_checks_pass_with_home_an_empty_folder"
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/test_docs.py", "-m", "not slow", "-q", "-p", "no:cacheprovider"]
        + ["--deselect", here],  # not itself again
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=_home_env(home),
        timeout=300,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    passed = re.search(r"(\d+) passed", r.stdout)
    assert passed and int(passed.group(1)) >= 50 and " failed" not in r.stdout, r.stdout[-2000:]
    assert os.listdir(home) == [], "the docs checks wrote into the home: %s" % os.listdir(home)


@pytest.mark.parametrize("where", ["empty", "config in the home", "XDG_CONFIG_HOME elsewhere", "old file"])
def test_the_tables_and_help_are_the_same_for_any_home(tmp_path, where):
    """docs/usage.md holds no machine's path or state: --check passes whatever the home holds,
    and --help names a file in the home as ~/..."""
    home = tmp_path / "a-home-of-its-own"
    home.mkdir()
    extra = {}
    planted = {
        "config in the home": home / ".config" / "websearch-worker" / "config.json",
        "XDG_CONFIG_HOME elsewhere": tmp_path / "xdg" / "websearch-worker" / "config.json",
        "old file": home / ".pi" / "agent" / "web-search.json",
    }.get(where)
    if planted is not None:
        planted.parent.mkdir(parents=True)
        planted.write_text("{}")
    if where == "XDG_CONFIG_HOME elsewhere":
        extra["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    env = _home_env(home, **extra)
    check = subprocess.run(
        [sys.executable, "-I", "-m", "worker.docs_options", "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert check.returncode == 0, check.stderr
    help_text = subprocess.run(
        [sys.executable, "-I", "-m", "worker", "--help"], capture_output=True, text=True, cwd=ROOT, env=env
    ).stdout
    flat = "".join(help_text.split())  # argparse wraps a long path anywhere
    assert str(home) not in flat
    if planted is None:
        assert "Here:~/.config/websearch-worker/config.json(absent" in flat, help_text
    elif where == "XDG_CONFIG_HOME elsewhere":
        assert "Here:%s(exists)" % planted in flat, help_text
    else:
        assert "Here:~/%s(exists)" % planted.relative_to(home) in flat, help_text


MACHINE_HOME = re.compile(r"/root/|/home/(?!me/)[a-z_][\w.-]*/|/Users/(?!me/)\w+/")


def test_no_doc_holds_a_machines_home_path():
    """The manual's examples name /home/me or ~; never the home of the account that wrote them."""
    found = []
    for path in DOCS:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if MACHINE_HOME.search(line) or (HOME_HERE and HOME_HERE in line):
                    found.append("%s:%d: %s" % (os.path.relpath(path, ROOT), n, line.strip()[:120]))
    assert not found, "\n".join(found)
    assert MACHINE_HOME.search("Here: /root/.config/websearch-worker/config.json")  # the check sees one
    assert MACHINE_HOME.search("/home/alice/x") and not MACHINE_HOME.search("/home/me/.config")


HOME_HERE = os.path.expanduser("~").rstrip("/") + "/" if os.path.expanduser("~").rstrip("/") else None


def _help_options(args):
    """{'--flag VALUE'} from the usage lines of ``--help``, written as the tables write them."""
    r = subprocess.run([sys.executable, "-I", "-m", "worker"] + args, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    usage = r.stdout.split("\n\n", 1)[0]
    found = set()
    for flag, value in re.findall(r"\[(--[a-z-]+)(?: ([^\]]+))?\]", usage):
        if value.startswith("{"):
            value = value.strip("{}").replace(",", "|")
        found.add((flag + " " + value).strip())
    return found


def _table_options(*names):
    cells = [c for name in names for c in re.findall(r"^\| `([^`]+)` \|", docs_options.table(name), re.M)]
    return {c.replace("\\|", "|") for c in cells}


@pytest.mark.parametrize("command", ["search", "fetch", "map"])
def test_help_and_the_tables_name_the_same_options(command):
    common = _table_options("common") - {"--version"}
    assert _help_options([command, "--help"]) == common | _table_options(command)
    assert "--version" in _help_options(["--help"])


def test_the_hosts_and_bootstrap_flags_are_documented():
    with open(os.path.join(ROOT, "docs", "hosts.md"), encoding="utf-8") as f:
        hosts = f.read()
    with open(os.path.join(ROOT, "docs", "usage.md"), encoding="utf-8") as f:
        usage = f.read()
    assert mcp_flags() == {"--allow-private", "--config", "--venv"}
    for flag in mcp_flags():
        assert re.search(r"^\| `%s[ `]" % flag, hosts, re.M), "docs/hosts.md does not document mcp %s" % flag
    for flag in cli_bootstrap_flags():
        assert re.search(r"^\| `%s[ `]" % flag, usage, re.M), "docs/usage.md does not document %s" % flag


# ------------------------------------------------------------------ the examples


def test_the_docs_have_examples_and_every_rule_is_used():
    assert len(EXAMPLES) >= 30 and len(RUNNABLE) >= 20
    assert any(e.path == "README.md" for e in RUNNABLE)
    used = {p for e in EXAMPLES for p in NOT_OFFLINE if e.line.startswith(p)}
    assert used == set(NOT_OFFLINE), "NOT_OFFLINE entries no example needs: %s" % (set(NOT_OFFLINE) - used)
    unlisted = [e.id for e in EXAMPLES if (e.reason_not_offline() or "").startswith("not a worker command")]
    assert not unlisted, "shell lines neither run nor listed in NOT_OFFLINE: %s" % unlisted


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.id)
def test_example_options_are_the_clis(example):
    args = example.worker_args()
    if args is None:
        return  # not the worker (listed in NOT_OFFLINE: checked by the test above)
    problem = option_problem(args)
    assert problem is None, "%s: %s\n  %s" % (example.id, problem, example.line)


def test_the_option_check_sees_a_renamed_option():
    assert option_problem(["search", "q", "--recency", "week"]) is None
    assert "--recent" in option_problem(["search", "q", "--recent", "week"])
    assert option_problem(["fetch", "https://example.org/", "--max-char", "5"]) is not None  # argparse abbreviates
    assert option_problem(["fetch", "https://example.org/", "--max-chars-per-page", "5"]) is not None
    assert option_problem(["mcp", "--allow-privat"]) is not None
    assert option_problem(["search", "--help"]) is None


# ------------------------------------------------------------------ running them offline


def github_search():
    from fakes.sites_server import search_item

    return {"total_count": 2, "incomplete_results": False, "items": [search_item(7), search_item(9, pull=True)]}


def stackexchange_search():
    import gzip

    from fakes.sites_server import SE_QUESTION, SE_UNANSWERED

    return gzip.compress(json.dumps({"items": [SE_QUESTION, SE_UNANSWERED], "quota_remaining": 299}).encode())


@pytest.fixture(scope="module")
def offline(proxy, tmp_path_factory):
    """Everything the runnable examples reach, on 127.0.0.1, and the config that points there."""
    from fakes import brave_server, exa_server
    from fakes.engine_pages import DDG_HOST, DDG_NEWS_HOST, ddg_news_body, ddg_page
    from fakes.http_server import ARTICLE

    proxy.reset()
    proxy.route(DDG_HOST, body=ddg_page())
    proxy.route(DDG_NEWS_HOST, body=ddg_news_body(), headers={"Content-Type": "application/json"})
    # --sources github,stackexchange: their search APIs, as the real ones answer (the SE one gzipped)
    proxy.route("api.github.com", body=json.dumps(github_search()), headers={"Content-Type": "application/json"})
    proxy.route(
        "api.stackexchange.com",
        body=stackexchange_search(),
        headers={"Content-Type": "application/json; charset=utf-8", "Content-Encoding": "gzip"},
    )
    for example in RUNNABLE:
        for token in example.argv:
            host = urlsplit(token).hostname if token.startswith("https://") else None
            if host and host not in (DDG_HOST, DDG_NEWS_HOST):
                proxy.route(host, body=ARTICLE, headers={"Content-Type": "text/html; charset=utf-8"})
    exa = exa_server.start()
    with brave_server.FakeBrave() as brave:
        home = tmp_path_factory.mktemp("docs-home")
        config = {
            "providers": [exa.provider_entry(), brave.provider_entry()],
            "fallback": ["ddgs"],  # what a user without keys gets: the examples without --provider ask ddgs
        }
        # The file the configuration example names (--config ./web-search.json), in the examples' directory.
        (home / "web-search.json").write_text(json.dumps(config))
        yield home
    exa.shutdown()
    exa.server_close()


def prints_text(args):
    """--help, --version and --output text print text for people instead of a block."""
    pairs = zip(args, args[1:] + [""])
    return bool({"-h", "--help", "--version", "--output=text"} & set(args)) or ("--output", "text") in pairs


@pytest.mark.slow  # a worker process each
@pytest.mark.upstream("ddgs", "primp")  # ddgs' engines parse the recorded pages
@pytest.mark.parametrize("example", RUNNABLE, ids=lambda e: e.id)
def test_example_runs_offline(example, offline, proxy, tmp_path):
    env = worker_env(tmp_path, proxy.env())
    env["WEBSEARCH_CONFIG"] = str(offline / "web-search.json")
    args = example.worker_args()
    r = run_worker(args, env, timeout=90, cwd=str(offline))
    assert r.returncode == 0, "%s\n  %s\n%r" % (example.id, example.line, r)
    assert "Traceback" not in r.stderr, r
    if prints_text(args):
        assert r.payload is None and r.stdout.strip(), r  # text for people, not a block
        return
    assert r.payload is not None and r.payload["ok"] is True, "%s\n  %s\n%r" % (example.id, example.line, r)
    if args[0] == "fetch":
        assert all(item["ok"] for item in r.payload["results"]), r.payload["results"]
    else:
        assert r.payload["results"], r.payload


# ------------------------------------------------------------------ Python examples


@pytest.mark.parametrize("where,lineno,body", snippets("python"))
def test_python_examples_import_what_the_worker_has(where, lineno, body):
    tree = ast.parse(body, "%s:%d" % (where, lineno))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "worker":
            module = importlib.import_module(node.module)
            for alias in node.names:
                assert hasattr(module, alias.name) or importlib.util.find_spec("%s.%s" % (node.module, alias.name)), (
                    "%s:%d: %s has no %s" % (where, lineno, node.module, alias.name)
                )


# ------------------------------------------------------------------ config and client snippets

CLIENT_KEYS = {"mcpServers", "servers"}  # an MCP client's own file, not the worker's config
EXAMPLE_ENV = {"EXA_API_KEY": "k", "EXA_TEAM_KEY": "k", "BRAVE_API_KEY": "k"}  # the keys the examples name


@pytest.mark.parametrize("where,lineno,body", snippets("json"))
def test_json_examples_parse_and_configs_load(where, lineno, body):
    from worker import config

    data = json.loads(body)
    if CLIENT_KEYS & set(data):
        server = next(iter(next(iter(data[k] for k in CLIENT_KEYS if k in data)).values()))
        assert server["args"][-2:] == ["/path/to/websearch-worker/bootstrap/run.py", "mcp"], body
        return
    config.parse_config("%s:%d" % (where, lineno), data, EXAMPLE_ENV)  # a WorkerError names the problem


@pytest.mark.parametrize("where,lineno,body", snippets("toml"))
def test_toml_examples_parse(where, lineno, body):
    tomllib = pytest.importorskip("tomllib", reason="tomllib is Python 3.11's")
    data = tomllib.loads(body)
    assert data["mcp_servers"]["websearch"]["args"][-1] == "mcp"


# ------------------------------------------------------------------ links between the files


def _anchor(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


@pytest.mark.parametrize("path", DOCS, ids=lambda p: os.path.relpath(p, ROOT))
def test_links_between_the_docs_resolve(path):
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"`[^`\n]*`", "", FENCE.sub("", f.read()))  # code shows links, it does not make them
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # another site's page
        file, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
        assert os.path.exists(dest), "%s links to %s: no such file" % (os.path.relpath(path, ROOT), target)
        if anchor and dest.endswith(".md"):
            with open(dest, encoding="utf-8") as f:
                anchors = {_anchor(h) for h in re.findall(r"^#+ (.+)$", FENCE.sub("", f.read()), re.M)}
            assert anchor in anchors, "%s links to %s: no such heading" % (os.path.relpath(path, ROOT), target)
