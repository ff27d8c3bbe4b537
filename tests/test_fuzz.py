"""Fuzzing the two places user input enters: the option parser and the config loader.

In-process for volume (hypothesis, hundreds of cases in seconds), then a few
real subprocess calls with the same generators, checked against
tests/invariants.py.  Nothing here touches the network: fetches go to a closed
port on 127.0.0.1 (refused at once) and searches to a provider that needs a key
nobody set, or are stopped by --provider of an unknown name.
"""

import json
import math
import os
import sys

import pytest
from conftest import ROOT, run_worker, worker_env
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from invariants import check

from worker import cli, config, numbers
from worker.errors import WorkerError

pytestmark = pytest.mark.slow  # hypothesis, hundreds of examples per test

sys.path.insert(0, os.path.join(ROOT, "bootstrap"))
import run as bootstrap  # noqa: E402

OPTIONS = [
    "--config",
    "--provider",
    "--timeout",
    "--output",
    "--keep-temp",
    "--allow-private",
    "--no-cache",
    "--refresh",
    "--cache-ttl",
    "--cache-dir",
    "--format",
    "--limit",
    "--page",
    "--region",
    "--safesearch",
    "--recency",
    "--include-domain",
    "--exclude-domain",
    "--backend",
    "--max-chars",
    "--type",
    "--category",
    "--start-published",
    "--include-text",
    "--user-location",
    "--additional-query",
    "--output-schema",
    "--text",
    "--highlights",
    "--summary",
    "--country",
    "--fetch-top",
    "--excerpt-chars",
    "--source-timeout",
    "--start-index",
    "--concurrency",
    "--livecrawl",
    "--livecrawl-timeout",
    "--max-age-hours",
    "--subpages",
    "--links",
    "--version",
    "--",
    "-",
    "--timeout=",
    "--limit=",
]
NASTY = [
    "inf",
    "-inf",
    "nan",
    "NaN",
    "1e10",
    "1e400",
    "9" * 400,
    "\u00b2",
    "\u0663",
    "1_000",
    "0x10",
    "-1",
    "0",
    "1.5",
    "",
    " ",
    "\udcff",
    "\x00",
    "http://[::1:80/x",
    "@/dev/zero",
    "SEARCH_DONE",
    "-5e-3",
    "+3",
    "07",
]
token = st.one_of(
    st.sampled_from(OPTIONS), st.sampled_from(NASTY), st.sampled_from(["search", "fetch"]), st.text(max_size=12)
)
argv_strategy = st.builds(
    lambda head, rest: head + rest,
    st.lists(st.sampled_from(["search", "fetch"]), min_size=0, max_size=1),
    st.lists(token, max_size=10),
)


def _numbers_are_sane(args):
    for name, value in vars(args).items():
        if isinstance(value, float):
            assert math.isfinite(value), (name, value)
    if getattr(args, "timeout", None) is not None:
        assert 0 < args.timeout <= cli.MAX_SECONDS


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(argv=argv_strategy)
@example(argv=["fetch", "--timeout", "inf", "x"])
@example(argv=["search", "--cache-ttl", "9" * 400, "q"])
@example(argv=["fetch", "--concurrency", "\u00b2", "x"])
def test_parser_returns_args_or_usage_error(argv):
    """Every argv: a Namespace with finite, bounded numbers and a request, or a WorkerError; --help exits; nothing else."""
    try:
        args = cli.parse_args(argv)
    except WorkerError as exc:
        assert exc.code == "usage", exc.to_dict()
        return
    except SystemExit as exc:  # --help / -h
        assert exc.code in (0, None)
        return
    _numbers_are_sane(args)
    if args.version:
        return
    try:
        request = cli.request_of(args)
    except WorkerError as exc:  # an empty or oversized query, found as the request is built
        assert exc.code == "invalid_query" and args.command == "search", exc.to_dict()
        return
    assert request.command == args.command


scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["ddgs", "exa", "brave", "local", "auto", "a:b", "os:path", "\u0000", "9" * 400]),
)
json_value = st.recursive(
    scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)
OPTION_KEYS = sorted(config.schema.OPTION_RULES) + ["other"]
entry = st.fixed_dictionaries(
    {},
    optional={
        "name": st.one_of(st.sampled_from(["ddgs", "exa", "brave", "local", "mine", "auto", ""]), scalar),
        "type": st.one_of(st.sampled_from(["ddgs", "exa", "brave", "local", "nope", "os:path"]), scalar),
        "apiKey": st.one_of(st.just("k" * 20), scalar),
        "apiKeyEnv": scalar,
        "baseUrl": st.one_of(st.just("http://127.0.0.1:9"), scalar),
        "options": st.one_of(st.dictionaries(st.sampled_from(OPTION_KEYS), json_value, max_size=4), scalar),
    },
)
config_data = st.one_of(
    json_value,
    st.fixed_dictionaries(
        {},
        optional={
            "providers": st.one_of(st.lists(entry, max_size=3), scalar),
            "defaultProvider": st.one_of(st.sampled_from(["ddgs", "exa", "mine", "auto"]), scalar),
            "cacheTtl": scalar,
            "cacheDir": scalar,
            "cacheMaxBytes": scalar,
            "cache": scalar,
            "allowPrivate": scalar,
            "apiKey": scalar,
            "baseUrl": scalar,
            "$comment": scalar,
        },
    ),
)


def _load(tmp_path, data):
    path = tmp_path / "fuzz-config.json"
    path.write_text(json.dumps(data, allow_nan=True))
    request = cli.request_of(cli.parse_args(["search", "--config", str(path), "--", "q"]))
    cfg = config.load(request)
    return request, cfg


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=config_data)
def test_config_loader_returns_config_or_config_error(tmp_path, data):
    from worker.state import cache

    try:
        request, cfg = _load(tmp_path, data)
        for tool in ("search", "fetch"):
            try:
                spec = config.select(cfg, tool, None)
            except WorkerError as exc:
                assert exc.code in ("config", "invalid_argument"), exc.to_dict()
                continue
            for value in spec.options.values():  # options the providers read are of their declared type
                assert not isinstance(value, float) or math.isfinite(value)
        pol = cache.policy(request, cfg.settings)
        assert 0 <= pol.ttl <= 365 * 24 * 3600 and pol.max_bytes >= 0
        assert "\0" not in pol.directory
    except WorkerError as exc:
        assert exc.code == "config", exc.to_dict()


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(raw=st.binary(max_size=200))
def test_config_loader_on_arbitrary_bytes(tmp_path, raw):
    path = tmp_path / "bytes.json"
    path.write_bytes(raw)
    request = cli.request_of(cli.parse_args(["search", "--config", str(path), "--", "q"]))
    try:
        config.load(request)
    except WorkerError as exc:
        assert exc.code == "config"


@settings(max_examples=500, deadline=None)
@given(
    text=st.one_of(
        st.text(max_size=40),
        st.sampled_from(NASTY),
        st.from_regex(r"[+-]?[0-9]{0,5}(\.[0-9]{0,3})?([eE][+-]?[0-9]{0,4})?", fullmatch=True),
    ),
    integer=st.booleans(),
)
def test_bootstrap_number_twin_agrees_with_worker_numbers(text, integer):
    """bootstrap/run.py cannot import the worker; its copy of the number reader must agree with it."""

    def outcome(fn):
        try:
            return ("ok", fn(text, 0, 10**6, integer))
        except ValueError:
            return ("error", None)

    assert outcome(numbers.parse) == outcome(bootstrap.number)


# -- a few through the real CLI --------------------------------------------------------------------


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(argv=st.lists(token, max_size=6))
def test_cli_fuzz_through_the_real_process(tmp_path_factory, argv):
    tmp = tmp_path_factory.mktemp("cli")
    env = worker_env(tmp, {"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9", "NO_PROXY": ""})
    # A provider nobody configured: a search never leaves the process; fetches go to a closed local port.
    # Left out: what prints no block by design (--version, --help, --output text), keeps its temp dir
    # (--keep-temp), or writes where the test cannot clean (--cache-dir), and NUL, which no argv can hold.
    skip = ("search", "fetch", "--version", "-h", "--help", "--output", "--keep-temp", "--cache-dir")
    argv = (
        ["fetch", "--allow-private", "--timeout", "10"]
        + [a for a in argv if a not in skip and "\0" not in a and not a.startswith(("--output", "--cache-dir"))]
        + ["--", "http://127.0.0.1:9/x"]
    )
    check(run_worker(argv, env, timeout=60), env)


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=config_data)
def test_config_fuzz_through_the_real_process(tmp_path_factory, data):
    tmp = tmp_path_factory.mktemp("cfg")
    env = worker_env(tmp, {"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9"})
    path = tmp / "c.json"
    path.write_text(json.dumps(data, allow_nan=True))
    r = run_worker(
        [
            "fetch",
            "--config",
            str(path),
            "--provider",
            "local",
            "--allow-private",
            "--timeout",
            "10",
            "--",
            "http://127.0.0.1:9/x",
        ],
        env,
        timeout=60,
    )
    check(r, env)


@pytest.mark.parametrize(
    "text,integer,expected",
    [
        ("42", True, 42),
        (" 7 ", True, 7),
        ("1.5", False, 1.5),
        ("1e3", False, 1000.0),
        ("+3", True, 3),
        ("\u00b2", True, None),
        ("\u0663", True, None),
        ("1_000", True, None),
        ("inf", False, None),
        ("nan", False, None),
        ("9" * 400, True, None),
        ("1e400", False, None),
        ("1.5", True, None),
        ("1e3", True, None),
        ("", True, None),
    ],
)
def test_strict_numbers(text, integer, expected):
    assert numbers.or_none(text, integer=integer) == expected


@pytest.mark.parametrize(
    "label,expected",
    [
        ("utf-8", "utf-8"),
        ("latin1", "cp1252"),
        ("Shift_JIS", "cp932"),
        ("rot13", None),
        ("base64", None),
        ("zlib", None),
        ("hex", None),
        ("uu", None),
        ("idna", None),
        ("punycode", None),
        ("unicode_escape", None),
        ("x" * 100, None),
        ("no-such-codec", None),
    ],
)
def test_charset_lookup_accepts_text_encodings_only(label, expected):
    from worker.pages.read import content

    assert content.codec_for(label) == expected
