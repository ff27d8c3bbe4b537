"""What a response says about its reuse (worker.pages.net.freshness): pure functions over headers."""

from worker.pages.net import freshness

DATE = "Tue, 03 Mar 2026 10:00:00 GMT"


def test_max_age_less_age_and_no_cache():
    assert freshness.lifetime({"cache-control": "public, max-age=600"}) == 600
    assert freshness.lifetime({"cache-control": "max-age=600", "age": "100"}) == 500
    assert freshness.lifetime({"cache-control": "max-age=60", "age": "100"}) == 0
    assert freshness.lifetime({"cache-control": "no-cache, max-age=600"}) == 0
    assert freshness.lifetime({"cache-control": 'max-age="abc"'}) == 0  # invalid: stale (RFC 9111 4.2.1)
    assert freshness.lifetime({"cache-control": "max-age=\u00b2"}) == 0
    assert freshness.lifetime({"cache-control": "max-age=" + "9" * 400}) == freshness.MAX_LIFETIME
    assert freshness.lifetime({}) is None  # nothing said: our TTL decides
    assert freshness.lifetime({"cache-control": "private"}) is None


def test_expires_against_date():
    assert freshness.lifetime({"expires": "Tue, 03 Mar 2026 11:00:00 GMT", "date": DATE}) == 3600
    assert freshness.lifetime({"expires": "0", "date": DATE}) == 0  # an invalid date is already expired
    assert freshness.lifetime({"expires": "Tue, 03 Mar 2026 11:00:00 GMT", "cache-control": "max-age=5"}) == 5


def test_describe_conditional_and_fresh_for():
    info = freshness.describe({"etag": 'W/"abc"', "last-modified": DATE, "cache-control": "no-store, must-revalidate"})
    assert info["etag"] == 'W/"abc"' and info["no_store"] and info["must_revalidate"]
    assert freshness.conditional(info) == {"If-None-Match": 'W/"abc"', "If-Modified-Since": DATE}
    assert freshness.conditional(freshness.describe({"etag": "bad\x01value"})) == {}  # never sent back
    assert freshness.conditional(None) == {}
    assert freshness.fresh_for({"lifetime": 30}, 300) == 30
    assert freshness.fresh_for({"lifetime": 3000}, 300) == 300  # never longer than our TTL
    assert freshness.fresh_for({"lifetime": None}, 300) == 300


def test_a_bare_304_keeps_what_was_stored():
    stored = freshness.describe({"etag": '"a"', "cache-control": "max-age=60, must-revalidate"})
    bare = freshness.merge(stored, freshness.describe({}))
    assert bare["etag"] == '"a"' and bare["lifetime"] == 60 and bare["must_revalidate"]
    told = freshness.merge(stored, freshness.describe({"etag": '"b"', "cache-control": "max-age=5"}))
    assert told["etag"] == '"b"' and told["lifetime"] == 5 and "must_revalidate" not in told
