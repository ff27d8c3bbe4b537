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


# -- the fast parser agrees with argparse ------------------------------------------

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worker import cli
from worker.errors import UsageError

TOKENS = [
    "search",
    "fetch",
    "q",
    "two words",
    "-",
    "--",
    "-h",
    "--help",
    "--version",
    "-5",
    "3",
    "0",
    "x",
    "https://a.example/",
    "--limit",
    "--limit=2",
    "--lim",
    "--timeout",
    "--timeout=0",
    "--timeout=2.5",
    "--output",
    "text",
    "protocol",
    "--output=text",
    "--config",
    "c.json",
    "--provider",
    "exa",
    "--keep-temp",
    "--keep-temp=1",
    "--no-cache",
    "--refresh",
    "--cache-ttl",
    "--cache-dir",
    "/tmp/c",
    "--format",
    "markdown",
    "raw",
    "--max-chars",
    "500",
    "--start-index",
    "--concurrency",
    "--recency",
    "week",
    "--include-domain",
    "a.org",
    "--exclude-domain=b.org",
    "--fetch-top",
    "--type",
    "deep",
    "--highlights",
    "--additional-query",
    "--backend",
    "duckduckgo",
    "--allow-private",
    "--page",
]


def _argparse_only(argv):
    try:
        ns = cli.build_parser(only=cli.command_in(argv)).parse_args(argv)
    except (UsageError, SystemExit) as exc:
        return type(exc).__name__
    return vars(ns)


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.sampled_from(TOKENS), max_size=9),
    st.sampled_from(["search", "fetch", None]),
    st.integers(min_value=0, max_value=3),
)
def test_fast_parser_agrees_with_argparse(tokens, command, at):
    # a command word put in (where a line has one) gives the fast parser lines it takes: with
    # tokens alone it declined all but a handful, and the comparison was almost never made
    argv = tokens if command is None else tokens[:at] + [command] + tokens[at:]
    fast = cli.fast_parse(argv)
    if fast is None:
        return  # argparse decides (and words the error or the help)
    assert vars(fast) == _argparse_only(argv), argv


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "rust async"],
        ["search", "a", "b", "--limit", "3"],
        ["--timeout", "5", "search", "--", "-x y"],
        ["search", "--limit", "3", "--", "q"],
        ["fetch", "https://a.example/", "https://b.example/", "--format", "text"],
        ["--no-cache", "fetch", "--max-chars=900", "https://a.example/"],
        ["search", "q", "--include-domain", "a.org", "--include-domain=b.org", "--output", "text"],
    ],
)
def test_fast_parser_takes_the_common_lines(argv):
    fast = cli.fast_parse(argv)
    assert fast is not None and vars(fast) == _argparse_only(argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "q", "--lim", "3"],
        ["search", "-h"],
        ["search", "q", "--limit"],
        ["search", "q", "--limit", "x"],
        ["search", "a", "--refresh", "b"],
    ],
)
def test_fast_parser_declines_what_argparse_must_word(argv):
    assert cli.fast_parse(argv) is None


_VALUES = {
    "--limit": ["1", "7", "x"],
    "--timeout": ["5", "0.5", "-1"],
    "--output": ["text", "protocol", "json"],
    "--config": ["c.json", ""],
    "--provider": ["exa", "search"],
    "--cache-ttl": ["0", "60"],
    "--recency": ["week", "decade"],
    "--include-domain": ["a.org"],
    "--format": ["text", "raw", "pdf"],
    "--max-chars": ["500", "1"],
    "--start-index": ["0", "40"],
    "--concurrency": ["2", "99"],
    "--page": ["2"],
    "--fetch-top": ["1", "9"],
    "--additional-query": ["more"],
    "--backend": ["mojeek"],
}
_FLAGS = ["--keep-temp", "--no-cache", "--refresh", "--allow-private", "--highlights", "--summary", "--text"]


@st.composite
def plausible_lines(draw):
    """Mostly well-formed command lines, so the fast path is really exercised."""

    def options():
        out = []
        for _ in range(draw(st.integers(0, 4))):
            if draw(st.booleans()):
                out.append(draw(st.sampled_from(_FLAGS)))
            else:
                flag = draw(st.sampled_from(sorted(_VALUES)))
                value = draw(st.sampled_from(_VALUES[flag]))
                out += [flag + "=" + value] if draw(st.booleans()) else [flag, value]
        return out

    command = draw(st.sampled_from(["search", "fetch"]))
    words = draw(st.lists(st.sampled_from(["q", "two words", "https://a.example/", "-", "-x"]), min_size=1, max_size=3))
    head = options()
    tail = options()
    if draw(st.booleans()):
        return head + [command] + tail + ["--"] + words
    return head + [command] + words + tail


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(plausible_lines())
def test_fast_parser_agrees_with_argparse_on_plausible_lines(argv):
    fast = cli.fast_parse(argv)
    if fast is not None:
        assert vars(fast) == _argparse_only(argv), argv


@pytest.mark.slow
def test_fast_parser_takes_every_plain_line():
    import random

    rng = random.Random(3)
    for _ in range(200):
        command = rng.choice(["search", "fetch"])
        extra = rng.choice(
            [[], ["--no-cache"], ["--timeout=9"], ["--output", "text"], ["--provider", "x", "--refresh"]]
        )
        argv = [command, "q"] + extra
        fast = cli.fast_parse(argv)
        assert fast is not None and vars(fast) == _argparse_only(argv), argv
