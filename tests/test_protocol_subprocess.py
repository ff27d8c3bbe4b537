"""Hostile strings through a real worker process, read by the reference parser and a naive host.

Two channels carry attacker-controlled text into the payload:

* a search result page (title, snippet and percent-encoded URL), served by the
  fake engine behind the local TLS proxy and parsed by ddgs' real code; the
  expected results are what ddgs' own parser makes of the same page;
* the command line: an unknown option is echoed verbatim in the usage error, so
  bytes that are not UTF-8 arrive as lone surrogates (surrogateescape).

For every example both parsers must return exactly the expected payload, and
stdout must hold nothing but the one block.
"""

import html
import json
import os
import subprocess
import sys
from urllib.parse import quote

import pytest
from conftest import ROOT, worker_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from worker import protocol
from worker.request import clean_query

pytestmark = pytest.mark.slow  # hypothesis examples, a worker process each

DDG = "html.duckduckgo.com"
HOSTILE = [
    "SEARCH_DONE",
    "SEARCH_OK",
    "SEARCH_ERROR",
    "SEARCH_",
    "SEARCH\\u005f",
    "SEARCH_DONE\n",
    "\nSEARCH_DONE\n",
    "\n",
    "\r\n",
    "\r",
    "\x00",
    "\x1b[2J",
    "\x7f",
    "\u0085",
    "\u2028",
    "\u2029",
    "\ufeff",
    "\ud800",
    "\udfff",
    "\udc80",
    '"',
    "\\",
    "\\n",
    "</a>",
    "<b>",
    "&amp;",
    "&#10;",
    "%0A",
    "%00",
    "%E2%80%A8",
    "%ff",
    "{",
    "}",
    "\U0001f600",
    "\u00e9",
    " ",
]

hostile_text = st.lists(st.one_of(st.sampled_from(HOSTILE), st.characters(exclude_categories=())), max_size=12).map(
    "".join
)

SETTINGS = settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def naive_parse(stdout):
    """What a careless host does: substring search for the markers, parse what lies between."""
    for opener in (protocol.OK, protocol.ERROR):
        i = stdout.find(opener)
        if i != -1:
            break
    j = stdout.find(protocol.DONE)
    return json.loads(stdout[i + len(opener) : j])


def check_stdout(raw):
    """Only the block, ASCII, three lines; returns both parsers' (identical) payload."""
    text = raw.decode("ascii")  # raises if any byte is not ASCII
    lines = text.split("\n")
    assert len(lines) == 4 and lines[3] == "", text
    assert lines[0] in (protocol.OK, protocol.ERROR) and lines[2] == protocol.DONE
    assert "SEARCH_" not in lines[1]
    ref = protocol.parse(text)
    assert naive_parse(text) == ref
    return ref


def page_for(title, snippet, path):
    """A DuckDuckGo result page; every non-ASCII character as a character reference."""

    def esc(s):
        return html.escape(s, quote=True).encode("ascii", "xmlcharrefreplace").decode("ascii")

    url = "https://example.org/" + quote(path.encode("utf-8", "surrogatepass"), safe="")
    return (
        '<html><body><div class="result results_links web-result"><div class="links_main result__body">'
        '<h2 class="result__title"><a class="result__a" href="%s">%s</a></h2>'
        '<a class="result__snippet" href="%s">%s</a></div></div></body></html>' % (url, esc(title), url, esc(snippet))
    )


def expected_results(page):
    """What ddgs' own parser makes of the page, in the worker's result shape."""
    from ddgs.engines.duckduckgo import Duckduckgo

    from worker.providers.ddgs import to_result

    engine = Duckduckgo()
    items = engine.post_extract_results(engine.extract_results(page))
    out, seen = [], set()
    for item in items:
        r = to_result(item, "duckduckgo")
        if r["url"] and r["url"] not in seen:
            seen.add(r["url"])
            out.append(r)
    return out


def argv_safe(s):
    """The string as a subprocess argument can carry it (no NUL, encodable surrogates only)."""
    s = s.replace("\x00", "")
    return "".join(ch for ch in s if not ("\ud800" <= ch <= "\udfff") or "\udc80" <= ch <= "\udcff")


@pytest.fixture(scope="module")
def penv(tmp_path_factory, proxy):
    return worker_env(tmp_path_factory.mktemp("hostile"), proxy.env())


def run(args, env):
    proc = subprocess.run(
        [sys.executable, "-I", "-m", "worker"] + args,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.upstream("ddgs")  # ddgs' own parser is the oracle
@SETTINGS
@given(title=hostile_text, snippet=hostile_text, path=hostile_text, query=hostile_text)
def test_hostile_result_page_and_query(proxy, penv, title, snippet, path, query):
    page = page_for(title, snippet, path)
    proxy.reset()
    proxy.route(DDG, body=page)
    query = argv_safe(query)
    try:
        expected_query = clean_query(query)
    except Exception:
        query = "q " + query
        expected_query = clean_query(query)
    rc, out, err = run(["search", query, "--backend", "duckduckgo", "--limit", "1", "--no-cache"], penv)
    assert rc == 0, err
    payload = check_stdout(out)
    assert payload["query"] == expected_query
    assert payload["results"] == expected_results(page)[:1]


@SETTINGS
@given(text=hostile_text)
def test_hostile_argument_echoed_in_usage_error(penv, text):
    # Spaces would make argparse treat it as part of the query, not as an option.
    text = argv_safe(text).replace(" ", "_")
    arg = "--zz=" + text
    rc, out, err = run(["search", "q", arg], penv)
    assert rc == protocol.EXIT_USAGE, err
    payload = check_stdout(out)
    # What the worker's argv holds: the OS round trip turns stray bytes into lone surrogates.
    echoed = os.fsdecode(os.fsencode(arg))
    assert payload["error"]["code"] == "usage"
    assert payload["error"]["message"] == "unrecognized arguments: %s" % echoed


def test_lone_surrogate_really_reaches_the_payload(penv):
    """The usage channel does carry a lone surrogate end to end (not silently dropped)."""
    rc, out, _ = run(["search", "q", "--zz=a\udc80SEARCH_DONE\nb"], penv)
    payload = check_stdout(out)
    assert payload["error"]["message"] == "unrecognized arguments: --zz=a\udc80SEARCH_DONE\nb"
    assert b"\\udc80" in out and b"SEARCH\\u005fDONE" in out
