"""robots.txt by RFC 9309: the RFC's own examples as rules, then the worker end to end against a local server."""

import json

import pytest
from conftest import run_worker
from fakes.fresh_server import FreshWeb, items
from fakes.fresh_server import fetch_private as fetch

from worker.pages.fetch import robots_rules as robots

# RFC 9309 5.1
SIMPLE = """User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot

EOF
"""

# RFC 9309 5.2
LONGEST = """User-Agent: foobot
Allow: /example/page/
Disallow: /example/page/disallowed.gif
"""


def allowed(text, agent, path, query=""):
    return robots.decide(robots.rules_for(robots.parse(text), agent), robots.target(path, query))[0]


@pytest.mark.parametrize(
    "agent, path, expected",
    [
        # foobot: everything disallowed but the two allowed files
        ("foobot", "/example/page.html", True),
        ("foobot", "/example/allowed.gif", True),
        ("foobot", "/example/other.html", False),
        ("foobot", "/", False),
        # barbot and bazbot share one group: only the page is disallowed; the * rules are not theirs
        ("barbot", "/example/page.html", False),
        ("bazbot", "/example/page.html", False),
        ("barbot", "/example/other.gif", True),
        ("BazBot", "/example/page.html", False),  # product tokens match case-insensitively
        # quxbot has a group with no rules: everything allowed
        ("quxbot", "/example/page.html", True),
        ("quxbot", "/a.gif", True),
        # everyone else: the * group
        ("otherbot", "/a/b/picture.gif", False),
        ("otherbot", "/a/b/picture.gif?size=2", True),  # $ anchors at the end of path and query
        ("otherbot", "/example/", False),
        ("otherbot", "/example/x", False),
        ("otherbot", "/publications/", True),
        ("otherbot", "/elsewhere", True),
        ("otherbot", "/robots.txt", True),
    ],
)
def test_rfc9309_simple_example(agent, path, expected):
    path, _, query = path.partition("?")
    assert allowed(SIMPLE, agent, path, query) is expected


def test_rfc9309_longest_match():
    assert allowed(LONGEST, "foobot", "/example/page/") is True
    assert allowed(LONGEST, "foobot", "/example/page/disallowed.gif") is False
    ok, rule = robots.decide(robots.rules_for(robots.parse(LONGEST), "foobot"), "/example/page/disallowed.gif")
    assert rule[1] == "/example/page/disallowed.gif"


def test_allow_wins_a_tie_and_groups_of_one_agent_merge():
    text = "User-agent: a\nDisallow: /x\nUser-agent: b\nDisallow: /\nUser-agent: a\nAllow: /x\nDisallow: /y\n"
    assert allowed(text, "a", "/x") is True  # /x allowed and disallowed, same length: allow
    assert allowed(text, "a", "/y/z") is False  # the second "a" group's rule applies too
    assert allowed(text, "a", "/z") is True


def test_special_characters_and_percent_encoding():
    # RFC 9309 2.2.3: %2A and %24 are a literal * and $; * is any run; $ the end
    text = (
        "User-agent: *\nDisallow: /path/file-with-a-%2A.html\nDisallow: /path/foo-%24\n"
        "Disallow: /this/path/*/with/wildcard\nDisallow: /this/path/exactly$\nDisallow: /foo/bar/%E3%83%84\n"
        "Disallow: /baz\n"
    )
    assert allowed(text, "x", "/path/file-with-a-*.html") is False
    assert allowed(text, "x", "/path/file-with-a-b.html") is True
    assert allowed(text, "x", "/path/foo-$") is False
    assert allowed(text, "x", "/this/path/a/b/with/wildcard/c") is False
    assert allowed(text, "x", "/this/path/exactly") is False
    assert allowed(text, "x", "/this/path/exactly/not") is True
    assert allowed(text, "x", "/foo/bar/\u30c4") is False  # RFC 2.2.2: U+30C4 is %E3%83%84
    assert allowed(text, "x", "/%62%61%7A") is False  # %62%61%7A is "baz"


def test_comments_unknown_lines_and_empty_disallow():
    text = "# hi\nSitemap: https://x.example/s.xml\nDisallow: /early\nUser-agent: * # all\nDisallow:\nCrawl-delay: 5\n"
    assert allowed(text, "x", "/early") is True  # a rule before any user-agent line is no rule
    assert allowed(text, "x", "/anything") is True  # an empty disallow disallows nothing
    assert allowed("", "x", "/a") is True
    assert allowed("<html><body>Not a robots file</body></html>", "x", "/a") is True


def test_a_group_naming_us_replaces_the_star_group():
    text = "User-agent: *\nDisallow: /\n\nUser-agent: websearch-worker\nDisallow: /private/\n"
    assert allowed(text, "websearch-worker", "/public") is True
    assert allowed(text, "websearch-worker", "/private/x") is False
    assert allowed(text, "other", "/public") is False
    # a user-agent line with a version still names the product token
    assert allowed("User-agent: websearch-worker/1.0\nDisallow: /\n", "websearch-worker", "/a") is False


def test_a_byte_order_mark_is_no_part_of_the_first_line():
    """A robots.txt saved with a BOM (Windows editors do): its first group still counts."""
    body = b"\xef\xbb\xbfUser-agent: *\r\nDisallow: /private\r\n"
    text = robots.decode(body)
    assert text == "User-agent: *\r\nDisallow: /private\r\n"
    assert allowed(text, "x", "/private/x") is False and allowed(text, "x", "/public") is True
    # parse drops a BOM left in the text too (a verdict cached before decode dropped it)
    assert robots.parse("\ufeffUser-agent: *\nDisallow: /private\n") == [(["*"], [(False, "/private", "/private")])]
    assert allowed("\ufeffUser-agent: *\nDisallow: /private\n", "x", "/private/x") is False
    # only a leading one: a BOM inside the file is a character like another (not a key's)
    assert allowed("User-agent: *\n\ufeffDisallow: /private\n", "x", "/private/x") is True
    assert robots.decode(b"User-agent: *\nDisallow: /\xff\n") == "User-agent: *\nDisallow: /\ufffd\n"


def test_a_dollar_sign_before_the_end_is_the_character():
    text = "User-agent: *\nDisallow: /price$list\nDisallow: /end$\n"
    assert allowed(text, "x", "/price$list") is False
    assert allowed(text, "x", "/price$list/2") is False
    assert allowed(text, "x", "/pricelist") is True
    assert allowed(text, "x", "/end") is False and allowed(text, "x", "/end/more") is True


# ----------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def web():
    w = FreshWeb().start()
    yield w
    w.stop()


RULES = "User-agent: *\nDisallow: /private\nAllow: /private/open\n"


def test_robots_off_asks_for_nothing(web, env):
    web.robots = ("text", "User-agent: *\nDisallow: /\n")
    web.reset_stats()
    r = fetch(env, web.url("/article"))
    assert r.returncode == 0 and items(r)[0]["ok"], r
    assert web.hits("/robots.txt") == 0


def test_disallowed_url_is_an_item_error_naming_the_rule(web, env):
    web.robots = ("text", RULES)
    web.reset_stats()
    urls = [web.url("/article"), web.url("/private/page"), web.url("/private/open/page")]
    r = fetch(env, "--respect-robots", *urls)
    assert r.returncode == 0, r
    ok, refused, open_ = items(r)
    assert ok["ok"] and open_["ok"] is False and open_["error"]["code"] == "http_error"  # allowed: asked, a 404
    err = refused["error"]
    assert refused["ok"] is False and err["code"] == "robots" and err["retryable"] is False
    assert err["rule"] == "Disallow: /private" and err["agent"] == "websearch-worker"
    assert err["robots_url"] == web.url("/robots.txt") and "Disallow: /private" in err["message"]
    assert web.hits("/private/page") == 0  # never requested
    assert web.hits("/robots.txt") == 1  # once for the batch
    # cached per origin in the shared cache: the next call does not ask again
    r = fetch(env, "--respect-robots", "--no-adapters", web.url("/private/other"))
    assert items(r)[0]["error"]["code"] == "robots"
    assert web.hits("/robots.txt") == 1


def test_a_robots_txt_with_a_byte_order_mark_refuses_its_disallowed_page(web, env):
    web.robots = ("text", b"\xef\xbb\xbfUser-agent: *\r\nDisallow: /private\r\n")
    web.reset_stats()
    r = fetch(env, "--respect-robots", web.url("/article"), web.url("/private/page"))
    assert r.returncode == 0, r
    ok, refused = items(r)
    assert ok["ok"], ok
    assert refused["ok"] is False and refused["error"]["code"] == "robots", refused
    assert refused["error"]["rule"] == "Disallow: /private"
    assert web.hits("/private/page") == 0 and web.hits("/robots.txt") == 1


def test_config_turns_it_on_and_names_the_agent(web, env, tmp_path):
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({"robots": True, "robotsAgent": "mybot"}))
    web.robots = ("text", "User-agent: mybot\nDisallow: /docs\n\nUser-agent: *\nDisallow: /article\n")
    r = fetch(env, "--config", str(cfg), web.url("/article"), web.url("/docs"))
    art, docs = items(r)
    assert art["ok"], art
    assert docs["error"]["code"] == "robots" and docs["error"]["agent"] == "mybot"


@pytest.mark.parametrize(
    "mode, allowed_",
    [
        (("status", 404), True),  # 4xx: no rules
        (("status", 403), True),
        (("status", 503), False),  # 5xx: disallow all
        (("drop", None), False),  # unreachable: disallow all
    ],
)
def test_status_answers(web, env, mode, allowed_):
    web.robots = mode
    r = fetch(env, "--respect-robots", web.url("/article"))
    [it] = items(r)
    if allowed_:
        assert it["ok"], it
    else:
        assert it["error"]["code"] == "robots" and it["error"]["retryable"] is True, it
        assert "could not be read" in it["error"]["message"]


def test_unreachable_verdict_is_kept_for_a_bounded_time(web, env):
    from worker.pages.fetch import robots as robots_check

    assert robots_check.UNREACHABLE_TTL < robots_check.TTL
    web.robots = ("status", 500)
    web.reset_stats()
    fetch(env, "--respect-robots", web.url("/article"))
    web.robots = ("text", "User-agent: *\nAllow: /\n")
    r = fetch(env, "--respect-robots", web.url("/article"))
    assert items(r)[0]["error"]["code"] == "robots"  # still within the bound: not asked again
    assert web.hits("/robots.txt") == 1


def test_redirects_followed_up_to_five_hops(web, env, tmp_path):
    web.robots = ("redirect", 5)
    web.robots_after = "User-agent: *\nDisallow: /article\n"
    r = fetch(env, "--respect-robots", web.url("/article"))
    assert items(r)[0]["error"]["code"] == "robots"  # the rules at the end of 5 hops apply
    web.robots = ("redirect", 6)  # more than 5: unavailable, no rules
    other = run_worker(
        ["fetch", "--allow-private", "--respect-robots", "--cache-dir", str(tmp_path / "c2"), web.url("/article")], env
    )
    assert items(other)[0]["ok"], other


def test_timeout_means_disallow(web, env):
    web.robots = ("hang", 10)
    r = fetch(env, "--respect-robots", "--timeout", "3", web.url("/article"), timeout=30)
    [it] = items(r)
    assert it["error"]["code"] == "robots" and "timeout" in it["error"]["message"], it


def test_a_redirect_hop_is_checked_against_robots_txt(web, env):
    web.robots = ("text", RULES)
    web.reset_stats()
    r = fetch(env, "--respect-robots", web.url("/redirect-to?to=/private/page"))
    [it] = items(r)
    assert it["error"]["code"] == "robots" and it["error"]["rule"] == "Disallow: /private", it
    assert web.hits("/redirect-to") == 1 and web.hits("/private/page") == 0


def test_search_enrichment_honours_the_config(web, env, tmp_path):
    from fakes.brave_server import KEY, FakeBrave

    web.robots = ("text", "User-agent: *\nDisallow: /docs\n")
    cfg = tmp_path / "cfg.json"
    with FakeBrave() as brave:
        providers = [{"name": "brave", "type": "brave", "apiKey": KEY, "baseUrl": brave.base_url}]
        cfg.write_text(json.dumps({"robots": True, "allowPrivate": True, "providers": providers}))
        cfg.chmod(0o600)
        brave.set_urls([web.url("/article"), web.url("/docs")])
        r = run_worker(["search", "urls please", "--provider", "brave", "--config", str(cfg), "--fetch-top", "2"], env)
    assert r.returncode == 0, r
    article, docs = r.payload["results"]
    assert article["fetched"] is True, r.payload["results"]
    assert docs["fetched"] is False and docs["fetch_error"]["code"] == "robots"
