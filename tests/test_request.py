"""Typed requests: built once from the command line, frozen, and the only thing below the CLI."""

import os
import re

import pytest
from conftest import ROOT

from worker import cli
from worker.errors import WorkerError
from worker.providers.base import ProviderSpec
from worker.request import FetchRequest, SearchRequest
from worker.state import cache
from worker.tools import search
from worker.tools.fetch import settle

SEARCH_ARGV = (
    "search q --limit 7 --page 2 --news --include-domain a.example --include-domain b.example --recency week "
    "--provider ddgs --timeout 9 --fetch-top 2 --max-chars 900"
).split()
FETCH_ARGV = (
    "fetch https://a.example/ --format text --max-chars 500 --start-index 10 --no-adapters --llms-txt "
    "--allow-private --subpage-target t1 --livecrawl always --concurrency 3"
).split()


def test_nothing_below_the_cli_sees_the_parsed_command_line():
    """Only worker/cli/ and worker/main.py know the parser; everything else reads a request."""
    forbidden = re.compile(r"\bargparse\b|\b(?:Simple)?Namespace\b|getattr\(args\b|vars\(args\)")
    cli = os.path.join("worker", "cli")
    shell = {os.path.join(cli, n) for n in os.listdir(os.path.join(ROOT, cli)) if n.endswith(".py")}
    shell.add(os.path.join("worker", "main.py"))
    assert os.path.join(cli, "fast.py") in shell
    found = []
    for folder, _dirs, files in os.walk(os.path.join(ROOT, "worker")):
        for name in files:
            path = os.path.relpath(os.path.join(folder, name), ROOT)
            if not name.endswith(".py") or path in shell:
                continue
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    if forbidden.search(line):
                        found.append("%s:%d: %s" % (path, number, line.strip()))
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    "argv",
    [
        SEARCH_ARGV,
        FETCH_ARGV,
        ["search", "x", "--type", "deep", "--text"],
        ["--no-cache", "fetch", "https://a.example/", "--links", "3"],
    ],
)
def test_every_option_is_a_field_of_the_same_value(argv):
    args = cli.parse_args(argv)
    request = cli.request_of(args)
    fields = request.fields()
    for name, value in vars(args).items():
        if name in cli.CLI_ONLY:
            continue
        assert name in fields, name  # request_of would have raised; said here by name
        assert fields[name] == (tuple(value) if isinstance(value, list) else value), name
    assert request.command == args.command


def test_building_a_search_request_cleans_the_query():
    request = cli.request_of(cli.parse_args(["search", "  rust \x07 async\t runtime  "]))
    assert request.query == "rust async runtime"
    with pytest.raises(WorkerError) as err:
        cli.request_of(cli.parse_args(["search", "\x00", "\t"]))
    assert err.value.code == "invalid_query"
    with pytest.raises(WorkerError):
        SearchRequest(query="x" * 2001)
    assert SearchRequest(query="a  b").replace(limit=3).query == "a b"


def test_a_request_is_frozen():
    request = SearchRequest(query="q", include_domain=["a.example"])
    assert request.include_domain == ("a.example",)  # a list is kept as a tuple
    with pytest.raises(AttributeError):
        request.query = "other"
    with pytest.raises(AttributeError):
        del request.limit
    with pytest.raises(TypeError):
        SearchRequest(query="q", urls=["https://a.example/"])  # a fetch field
    changed = request.replace(limit=3)
    assert changed.limit == 3 and request.limit is None and changed != request
    assert request == SearchRequest(query="q", include_domain=("a.example",))


def _key(fields):
    """The key text: a tuple of the request and a list of the Namespace are one JSON array."""
    return cache.make_key("search", ProviderSpec("p", "ddgs"), fields)


def _old_fields(ns, exclude=()):
    """cache.request_fields as it read the argparse Namespace before requests were typed."""
    out = {}
    for name, value in sorted(vars(ns).items()):
        if name in cache.NOT_IN_KEY | {"command", "version", "search_format"} or name in exclude:
            continue
        if value is None or value == [] or value is False:
            continue
        out[name] = value
    return out


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "  rust   async\truntime "],
        SEARCH_ARGV,
        "search q --vertical web --type deep --additional-query x --moderation --text --country DE".split(),
    ],
)
def test_search_keys_are_what_the_namespace_made(argv):
    args = cli.parse_args(argv)
    request = cli.request_of(args)
    args.query = request.query  # the old clean_query mutation
    exclude = search.SEARCH_NOT_IN_KEY + ("news",)
    assert _key(cache.request_fields(request, exclude=search.SEARCH_NOT_IN_KEY)) == _key(_old_fields(args, exclude))


@pytest.mark.parametrize("argv", [FETCH_ARGV, ["fetch", "https://a.example/", "https://b.example/x"]])
def test_fetch_keys_are_what_the_namespace_made(argv):
    args = cli.parse_args(argv)
    request = settle(cli.request_of(args), {}, environ={})
    # what run_fetch wrote onto the Namespace
    args.allow_private = bool(args.allow_private)
    args.max_chars_given = args.max_chars is not None
    if args.max_chars is None:
        args.max_chars = 20000
    args.max_bytes = 5 * 1024 * 1024
    if not args.no_adapters:
        args.sites = None
        args.github_auth = None
    assert _key(cache.request_fields(request, exclude=("urls",))) == _key(_old_fields(args, ("urls",)))


# Keys written before requests were typed: a cache filled then still answers.
PINNED = [
    (
        ["search", "  rust   async\truntime "],
        '[1,"search","auto:ddgs","292c35d2",{"page":1,"query":"rust async runtime"}]',
    ),
    (
        SEARCH_ARGV,
        '[1,"search","ddgs","386d51e8",{"include_domain":["a.example","b.example"],"limit":7,"page":2,"query":"q",'
        '"recency":"week","vertical":"news"}]',
    ),
    (
        ["fetch", "https://a.example/"],
        '[1,"fetch","local","f6a516fd",{"fetch_format":"markdown","max_bytes":5242880,"max_chars":20000,'
        '"start_index":0,"url":"https://a.example/"}]',
    ),
    (
        FETCH_ARGV,
        '[1,"fetch","local","f6a516fd",{"allow_private":true,"fetch_format":"text","livecrawl":"always","llms_txt":true,'
        '"max_bytes":5242880,"max_chars":500,"max_chars_given":true,"no_adapters":true,"start_index":10,'
        '"subpage_target":["t1"],"url":"https://a.example/"}]',
    ),
]


@pytest.mark.parametrize("argv,key", PINNED)
def test_cache_keys_are_pinned(argv, key, monkeypatch, tmp_path):
    from worker import config

    monkeypatch.setenv("WEBSEARCH_CONFIG", str(tmp_path / "none.json"))
    request = cli.request_of(cli.parse_args(argv))
    cfg = config.load(request)
    if isinstance(request, SearchRequest):
        assert search.plan(cfg, request)[0] == key
        return
    assert isinstance(request, FetchRequest)
    request = settle(request, cfg.settings, environ={})
    spec = config.select(cfg, "fetch", request.provider)
    fields = cache.request_fields(request, exclude=("urls",))
    assert cache.make_key("fetch", spec, dict(fields, url=request.urls[0])) == key
