"""The Exa provider through the real worker and the real exa-py, against a fake Exa API on 127.0.0.1."""

import ast
import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, run_worker
from fakes import exa_server

# Fresh processes importing exa-py (slow); the fast import mirrors exa-py's own imports (exa_import.py).
pytestmark = [pytest.mark.slow, pytest.mark.upstream("exa-py")]

CANARY = "exa-canary-5d1e0b77-NEVER-PRINT"


@pytest.fixture(scope="module")
def server():
    s = exa_server.start()
    yield s
    s.shutdown()


@pytest.fixture
def exa_env(env, tmp_path, server):
    path = tmp_path / "web-search.json"
    path.write_text(json.dumps({"apiKey": exa_server.KEY, "baseUrl": server.url}))
    os.chmod(path, 0o600)
    env["WEBSEARCH_CONFIG"] = str(path)
    server.requests.clear()
    return env


def ok(r):
    assert r.returncode == 0 and r.payload and r.payload["ok"], r
    return r.payload


def err(r, code):
    assert r.returncode == 1 and r.payload and not r.payload["ok"], r
    assert r.payload["error"]["code"] == code, r
    return r.payload["error"]


# -- the fast import ----------------------------------------------------------------


def _exa_package_dir():
    import importlib.util

    return os.path.dirname(importlib.util.find_spec("exa_py").origin)


def _imports(path):
    """(module imported, names) for every from-import in a file, relative ones resolved."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    rel = os.path.relpath(path, os.path.dirname(_exa_package_dir()))[:-3].replace(os.sep, ".")
    package = rel.rsplit(".", 1)[0] if not rel.endswith("__init__") else rel[: -len(".__init__")]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            out.append((module, {a.name for a in node.names}))
        elif isinstance(node, ast.Import):
            out.extend((a.name, set()) for a in node.names)
    return out


def test_guard_exa_py_imports_match_the_fast_path():
    """Fails when exa-py changes what it imports from openai or the deferred sub-packages."""
    from worker.providers import exa_import

    root = _exa_package_dir()
    openai_names = set()
    deferred_names = {}
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            if not f.endswith(".py"):
                continue
            path = os.path.join(dirpath, f)
            rel_mod = os.path.relpath(path, os.path.dirname(root))[:-3].replace(os.sep, ".")
            for module, names in _imports(path):
                if module and (module == "openai" or module.startswith("openai.")):
                    assert rel_mod in ("exa_py.api", "exa_py.utils"), "new openai import in %s" % rel_mod
                    assert names, "plain `import openai` in %s" % rel_mod
                    openai_names |= names
                top = ".".join((module or "").split(".")[:2])
                if top in exa_import.DEFERRED and not rel_mod.startswith(top):
                    if module in exa_import.DEFERRED:
                        deferred_names.setdefault(module, set()).update(names)
                    else:  # a real sub-module imported past a placeholder package
                        assert module in ("exa_py.websets.core.base", "exa_py.agent.betas"), (rel_mod, module)
    assert openai_names == set(exa_import.OPENAI_NAMES)
    assert deferred_names == {k: set(v) for k, v in exa_import.DEFERRED.items() if v}


def _probe(code, env=None):
    proc = subprocess.run(
        [sys.executable, "-I", "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env or dict(os.environ),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.tricks("exa_import")
def test_fast_import_keeps_openai_and_subpackages_off_and_defers_correctly():
    out = _probe(
        "import sys, json\n"
        "from worker.providers import exa_import\n"
        "m = exa_import.import_exa()\n"
        "before = sorted(k for k in sys.modules if k.split('.')[0] == 'openai' or k.startswith(('exa_py.websets.types', 'exa_py.research.models')))\n"
        "e = m.Exa(api_key='k', base_url='http://127.0.0.1:9')\n"
        "cls = type(e.websets.items).__name__\n"  # first use imports the real websets package
        "print(json.dumps({'mode': exa_import.mode, 'before': before, 'cls': cls,\n"
        "  'websets_types': 'exa_py.websets.types' in sys.modules, 'search': callable(e.search)}))\n"
    )
    assert out["mode"] == "fast"
    assert out["before"] == []
    assert out["cls"] == "WebsetItemsClient"
    assert out["websets_types"] is True and out["search"] is True


@pytest.mark.tricks("exa_import")
def test_fast_import_falls_back_to_plain_when_exa_py_changes():
    out = _probe(
        "import json\n"
        "from worker.providers import exa_import\n"
        "exa_import.OPENAI_NAMES = frozenset({'OpenAI'})\n"  # as if exa-py started using a new openai name
        "m = exa_import.import_exa()\n"
        "e = m.Exa(api_key='k', base_url='http://127.0.0.1:9')\n"
        "print(json.dumps({'mode': exa_import.mode, 'why': exa_import.fallback_reason, 'ws': type(e.websets).__name__}))\n"
    )
    assert out["mode"] == "plain"
    assert out["why"].startswith("ImportError") and "ChatCompletionMessageParam" in out["why"]
    assert out["ws"] == "WebsetsClient"


@pytest.mark.tricks("exa_import")
def test_openai_import_outside_exa_py_is_real():
    out = _probe(
        "import json, sys\n"
        "from worker.providers import exa_import\n"
        "exa_import.import_exa()\n"
        "import openai\n"
        "print(json.dumps({'real': hasattr(openai, '__version__'), 'mode': exa_import.mode}))\n"
    )
    assert out == {"real": True, "mode": "fast"}


# -- search --------------------------------------------------------------------


def test_search_metadata_only_by_default(exa_env, server):
    p = ok(run_worker(["search", "rust async", "--provider", "exa"], exa_env))
    body = server.requests[-1]["body"]
    headers = server.requests[-1]["headers"]
    assert headers["x-api-key"] == exa_server.KEY and "application/json" in headers["content-type"]
    assert body == {"query": "rust async", "numResults": 5}
    assert p["provider"] == "exa" and len(p["results"]) == 5
    first = p["results"][0]
    assert set(first) >= {"title", "url", "published", "author", "score", "id"}
    assert "text" not in first and "highlights" not in first
    assert p["meta"]["request_id"] == "req-search-5" and p["meta"]["cost_dollars"] == 0.005
    from worker import startup

    # exa-py imported the fast way, unless WEBSEARCH_WORKER_PLAIN turns that trick off
    assert p["meta"]["key_source"] == "config"
    assert p["meta"]["exa_import"] == ("fast" if startup.on("exa_import") else "plain")
    assert p["raw"]["requestId"] == "req-search-5" and p["raw"]["searchTime"] == 123.4
    assert p["raw"]["costDollars"]["total"] == 0.005


def test_search_maps_every_option(exa_env, server, tmp_path):
    schema = tmp_path / "schema.json"
    schema.write_text('{"type": "text", "description": "one paragraph"}')
    p = ok(
        run_worker(
            [
                "search",
                "state of WebGPU",
                "--provider",
                "exa",
                "--type",
                "deep",
                "--category",
                "research paper",
                "--limit",
                "3",
                "--include-domain",
                "arxiv.org",
                "--exclude-domain",
                "spam.example",
                "--start-published",
                "2024-01-01",
                "--end-published",
                "2025-01-01T00:00:00Z",
                "--start-crawl",
                "2024-02-01",
                "--end-crawl",
                "2024-12-31",
                "--include-text",
                "compute shaders",
                "--exclude-text",
                "sponsored",
                "--user-location",
                "de",
                "--moderation",
                "--additional-query",
                "WebGPU adoption",
                "--additional-query",
                "WGSL",
                "--system-prompt",
                "prefer primary sources",
                "--output-schema",
                "@" + str(schema),
                "--text",
                "--highlights",
                "--summary",
            ],
            exa_env,
        )
    )
    body = server.requests[-1]["body"]
    assert body == {
        "query": "state of WebGPU",
        "type": "deep",
        "category": "research paper",
        "numResults": 3,
        "includeDomains": ["arxiv.org"],
        "excludeDomains": ["spam.example"],
        "startPublishedDate": "2024-01-01",
        "endPublishedDate": "2025-01-01T00:00:00Z",
        "startCrawlDate": "2024-02-01",
        "endCrawlDate": "2024-12-31",
        "includeText": ["compute shaders"],
        "excludeText": ["sponsored"],
        "userLocation": "DE",
        "moderation": True,
        "additionalQueries": ["WebGPU adoption", "WGSL"],
        "systemPrompt": "prefer primary sources",
        "outputSchema": {"type": "text", "description": "one paragraph"},
        "contents": {"text": True, "highlights": True, "summary": True},
    }
    assert p["output"]["content"] == "Synthesised answer about state of WebGPU."
    assert "Synthesised answer" in p["text"]
    r = p["results"][0]
    assert r["url"].startswith("https://arxiv.org/") and r["text"] and r["summary"] and r["highlights"]
    assert r["snippet"] == r["highlights"][0]


def test_recency_becomes_published_bound_and_options_default_limit(exa_env, server, tmp_path):
    cfg = tmp_path / "opt.json"
    cfg.write_text(
        json.dumps(
            {
                "providers": [
                    {
                        "name": "exa-main",
                        "type": "exa",
                        "apiKey": exa_server.KEY,
                        "baseUrl": server.url,
                        "options": {"defaultSearchLimit": 2, "defaultFetchHighlightsMaxCharacters": 300},
                    }
                ]
            }
        )
    )
    p = ok(run_worker(["search", "news", "--config", str(cfg), "--recency", "week", "--highlights"], exa_env))
    body = server.requests[-1]["body"]
    import datetime

    start = datetime.datetime.fromisoformat(body["startPublishedDate"].replace("Z", "+00:00"))
    age = datetime.datetime.now(datetime.timezone.utc) - start
    assert datetime.timedelta(days=6) < age < datetime.timedelta(days=8)
    assert body["numResults"] == 2 and body["contents"] == {"highlights": {"maxCharacters": 300}}
    assert p["provider"] == "exa-main" and len(p["results"]) == 2


@pytest.mark.parametrize(
    "args, option",
    [
        (["--include-text", "one two three four five six"], "--include-text"),
        (["--exclude-text", "   "], "--exclude-text"),
        (["--additional-query", "more"], "--additional-query"),
        (["--type", "deep"] + sum((["--additional-query", "q%d" % i] for i in range(6)), []), "--additional-query"),
        (["--start-published", "last tuesday"], "--start-published"),
        (["--recency", "day", "--start-published", "2024-01-01"], "--recency"),
        (["--user-location", "Germany"], "--user-location"),
        (["--output-schema", "{not json"], "--output-schema"),
        (["--output-schema", '{"type": "table"}'], "--output-schema"),
        (["--output-schema", "@/nonexistent/schema.json"], "--output-schema"),
        (["--type", "Deep Search!"], "--type"),
    ],
)
def test_search_validation_happens_before_the_call(exa_env, server, args, option):
    e = err(run_worker(["search", "q", "--provider", "exa"] + args, exa_env), "invalid_argument")
    assert e["message"].startswith(option), e
    assert server.requests == []


@pytest.mark.parametrize(
    "query, code, extra",
    [
        ("status401 q", "auth", {"status": 401}),
        ("status402 q", "quota", {"status": 402}),
        ("status429 q", "rate_limited", {"status": 429, "retry_after": 90}),
        ("status500 q", "provider", {"status": 500}),
    ],
)
def test_http_errors(exa_env, server, query, code, extra):
    server.retry_after = "90"  # beyond the call's 60 s: passed on, not waited out
    e = err(run_worker(["search", query, "--provider", "exa"], exa_env), code)
    for k, v in extra.items():
        assert e[k] == v, e
    assert e["retryable"] is (code in ("rate_limited", "provider"))
    assert exa_server.KEY not in json.dumps(e)


def test_network_error(env, tmp_path):
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"apiKey": "k", "baseUrl": "http://127.0.0.1:9"}))
    e = err(run_worker(["search", "q", "--config", str(cfg), "--provider", "exa"], env), "network")
    assert e["retryable"] is True


def test_wrong_key_is_auth_and_never_echoed(env, tmp_path, server):
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"apiKey": CANARY, "baseUrl": server.url}))
    os.chmod(cfg, 0o600)
    r = run_worker(["search", "q", "--config", str(cfg)], env)
    e = err(r, "auth")
    assert server.requests[-1]["headers"]["x-api-key"] == CANARY  # the fake echoed it in its 401 body
    assert CANARY not in r.stdout + r.stderr and "***" in e["message"]


# -- fetch -------------------------------------------------------------------------


def test_fetch_many_urls_with_per_url_errors(exa_env, server):
    urls = [
        "https://a.example/one",
        "https://a.example/missing/two",
        "https://a.example/three",
        "https://a.example/timeout/four",
    ]
    p = ok(run_worker(["fetch"] + urls + ["--provider", "exa", "--max-chars", "100"], exa_env))
    body = server.requests[-1]["body"]
    assert server.requests[-1]["path"] == "/contents"
    assert body == {"urls": urls, "text": {"maxCharacters": 100}}
    items = p["results"]
    assert [i["url"] for i in items] == urls
    assert [i["ok"] for i in items] == [True, False, True, False]
    assert items[0]["content"].startswith("# Page /one") and len(items[0]["content"]) == 100
    assert items[0]["truncated"] is True and items[0]["title"] == "Page at /one"
    assert items[0]["author"] == "Fake Author" and items[0]["published"].startswith("2024-06-01")
    assert items[1]["error"]["code"] == "http_error" and items[1]["error"]["status"] == 404
    assert "CRAWL_NOT_FOUND" in items[1]["error"]["message"]
    assert items[3]["error"]["code"] == "timeout"
    assert p["meta"]["request_id"] == "req-contents-4" and p["meta"]["cost_dollars"] == 0.002


def test_provider_fetch_returns_raw_statuses(server):
    """ExaProvider.fetch keeps Exa's own answer under raw (the fetch tool decides what reaches the payload)."""
    from worker.providers.base import ProviderSpec
    from worker.providers.exa import ExaProvider
    from worker.request import FetchRequest

    spec = ProviderSpec("exa", "exa", api_key=exa_server.KEY, key_source="env:EXA_API_KEY", base_url=server.url)
    request = FetchRequest(start_index=5, fetch_format="text")
    answer = ExaProvider(spec, None).fetch(["https://b.example/x", "https://b.example/missing/y"], request)
    assert answer["raw"]["requestId"] == "req-contents-2" and answer["raw"]["searchTime"] == 45.6
    assert [s["status"] for s in answer["raw"]["statuses"]] == ["success", "error"]
    assert answer["meta"]["key_source"] == "env:EXA_API_KEY"
    first = answer["results"][0]
    assert server.requests[-1]["body"]["text"] == {"maxCharacters": 20005}
    assert first["content"].startswith("e /x") and first["start_index"] == 5


def test_fetch_maps_every_option(exa_env, server):
    p = ok(
        run_worker(
            [
                "fetch",
                "https://a.example/doc",
                "--provider",
                "exa",
                "--highlights",
                "--summary",
                "--livecrawl",
                "fallback",
                "--livecrawl-timeout",
                "5000",
                "--subpages",
                "2",
                "--subpage-target",
                "docs",
                "--subpage-target",
                "api",
                "--links",
                "3",
                "--image-links",
                "1",
                "--format",
                "html",
            ],
            exa_env,
        )
    )
    body = server.requests[-1]["body"]
    assert body == {
        "urls": ["https://a.example/doc"],
        "text": {"maxCharacters": 20000, "includeHtmlTags": True},
        "highlights": True,
        "summary": True,
        "livecrawl": "fallback",
        "livecrawlTimeout": 5000,
        "subpages": 2,
        "subpageTarget": ["docs", "api"],
        "extras": {"links": 3, "imageLinks": 1},
    }
    item = p["results"][0]
    assert item["content"].startswith("<h1>") and item["summary"] == "A summary of /doc."
    assert item["highlights"] == ["a highlight of /doc"]
    assert len(item["extras"]["links"]) == 3 and len(item["subpages"]) == 2
    p = ok(run_worker(["fetch", "https://a.example/doc", "--provider", "exa", "--max-age-hours", "0"], exa_env))
    assert server.requests[-1]["body"]["maxAgeHours"] == 0


def test_fetch_options_defaults_and_conflicts(exa_env, server, tmp_path):
    cfg = tmp_path / "opt.json"
    cfg.write_text(
        json.dumps(
            {
                "defaultProvider": "exa-main",
                "providers": [
                    {
                        "name": "exa-main",
                        "type": "exa",
                        "apiKey": exa_server.KEY,
                        "baseUrl": server.url,
                        "options": {"defaultFetchTextMaxCharacters": 1234},
                    }
                ],
            }
        )
    )
    p = ok(run_worker(["fetch", "https://a.example/x", "--config", str(cfg)], exa_env))
    assert server.requests[-1]["body"]["text"] == {"maxCharacters": 1234}
    assert p["provider"] == "exa-main"
    n = len(server.requests)
    err(
        run_worker(
            ["fetch", "https://a.example/x", "--config", str(cfg), "--livecrawl", "always", "--max-age-hours", "1"],
            exa_env,
        ),
        "invalid_argument",
    )
    err(
        run_worker(["fetch", "https://a.example/x", "--config", str(cfg), "--livecrawl", "sometimes"], exa_env),
        "invalid_argument",
    )
    assert len(server.requests) == n


def test_fetch_whole_call_error(exa_env):
    e = err(run_worker(["fetch", "https://a.example/status500/x", "--provider", "exa"], exa_env), "provider")
    assert e["status"] == 500


# -- the key goes nowhere ------------------------------------------------------------


def test_canary_key_leaks_nowhere(env, tmp_path):
    s = exa_server.start(key=CANARY)
    s.retry_after = "90"  # the 429 is passed on at once
    try:
        cfg = tmp_path / "c.json"
        cfg.write_text(json.dumps({"apiKey": CANARY, "baseUrl": s.url}))
        os.chmod(cfg, 0o600)
        outputs = []
        for args in (
            ["search", "canary query", "--text", "--summary"],
            ["search", "status401 canary", "--provider", "exa"],
            ["search", "status429 canary", "--provider", "exa"],
            ["search", "status500 x", "--provider", "exa"],
            ["fetch", "https://a.example/p", "https://a.example/missing/q", "--summary"],
        ):
            r = run_worker(args + ["--config", str(cfg), "--keep-temp"], env)
            assert r.payload is not None, r
            outputs.append(r.stdout + r.stderr)
        env2 = dict(env, EXA_API_KEY=CANARY)
        r = run_worker(["search", "env key", "--provider", "exa", "--keep-temp"], env2)
        outputs.append(r.stdout + r.stderr)
        assert all(s.requests[i]["headers"]["x-api-key"] == CANARY for i in range(len(s.requests) - 1))
        for out in outputs:
            assert CANARY not in out
        scanned = 0
        for top in (env["WEBSEARCH_WORKER_TMPDIR"], env["XDG_CACHE_HOME"]):
            for dirpath, _dirs, files in os.walk(top):
                for f in files:
                    with open(os.path.join(dirpath, f), "rb") as fh:
                        assert CANARY.encode() not in fh.read(), os.path.join(dirpath, f)
                    scanned += 1
        assert os.path.isdir(env["WEBSEARCH_WORKER_TMPDIR"])
    finally:
        s.shutdown()


def test_fetch_payload_keeps_exa_raw_and_explicit_default_max_chars(env, tmp_path, server):
    """The fetch tool passes Exa's own response through as `raw`; an explicit --max-chars
    equal to the tool's default still beats the provider option defaultFetchTextMaxCharacters."""
    path = tmp_path / "web-search.json"
    path.write_text(
        json.dumps(
            {
                "providers": [
                    {
                        "name": "exa",
                        "type": "exa",
                        "apiKey": exa_server.KEY,
                        "baseUrl": server.url,
                        "options": {"defaultFetchTextMaxCharacters": 3000},
                    }
                ]
            }
        )
    )
    os.chmod(path, 0o600)
    env["WEBSEARCH_CONFIG"] = str(path)
    p = ok(
        run_worker(["fetch", "https://a.example/one", "--provider", "exa", "--max-chars", "20000", "--no-cache"], env)
    )
    assert p["raw"]["requestId"].startswith("req-contents")
    assert server.requests[-1]["body"]["text"] == {"maxCharacters": 20000}
    ok(run_worker(["fetch", "https://a.example/one", "--provider", "exa", "--no-cache"], env))
    assert server.requests[-1]["body"]["text"] == {"maxCharacters": 3000}
