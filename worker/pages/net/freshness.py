"""What a response says about its own reuse: validators and freshness (RFC 9111).

Pure functions over a response's headers (lower-case names, as
``client.Response.headers``); the fetch cache (worker.tools.fetch_cache) keeps
what ``describe`` returns beside the item and asks ``conditional`` for the
headers of a revalidation.  We are a private cache (one user's processes), so
``private`` responses are stored; ``s-maxage`` is for shared caches and ignored.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Mapping
    from typing import Any

MAX_LIFETIME = 10 * 365 * 24 * 3600.0  # a max-age of 400 digits is "forever", not an overflow
MAX_VALIDATOR = 1024  # an ETag longer than this is not sent back (nor stored)


def cache_control(value: str | None) -> dict[str, str | None]:
    """``Cache-Control`` as {directive (lower case): argument or None}; the first of a repeated directive wins."""
    out: dict[str, str | None] = {}
    for part in (value or "").split(","):
        name, eq, arg = part.strip().partition("=")
        name = name.strip().lower()
        if name and name not in out:
            out[name] = arg.strip().strip('"') if eq else None
    return out


def http_date(value: str | None) -> float | None:
    """Epoch seconds of an HTTP date, or None when it is not one."""
    if not value or not value.strip():
        return None
    from email.utils import mktime_tz, parsedate_tz

    try:
        parsed = parsedate_tz(value.strip())
        return float(mktime_tz(parsed)) if parsed is not None else None
    except (TypeError, ValueError, OverflowError, IndexError):
        return None


def _seconds(value: str | None) -> float | None:
    if value is None or not value.strip().isdigit() or not value.strip().isascii():
        return None
    return min(float(value.strip()[:12]), MAX_LIFETIME)


def _validator(value: str | None) -> str | None:
    if not value:
        return None
    value = value.strip()
    if not value or len(value) > MAX_VALIDATOR or any(ord(c) < 0x20 or ord(c) > 0x7E for c in value):
        return None  # a header we could not send back as it came
    return value


def lifetime(headers: Mapping[str, str]) -> float | None:
    """Seconds the response stays fresh from the moment we received it (``Age`` taken off), or None when it does not say."""
    cc = cache_control(headers.get("cache-control"))
    if "no-cache" in cc or "no-store" in cc:
        return 0.0
    age = _seconds(headers.get("age")) or 0.0
    max_age = _seconds(cc.get("max-age")) if "max-age" in cc else None
    if "max-age" in cc and max_age is None:
        return 0.0  # RFC 9111 4.2.1: an invalid max-age means stale
    if max_age is not None:
        return max(0.0, max_age - age)
    if "expires" in headers:
        expires = http_date(headers.get("expires"))
        if expires is None:
            return 0.0  # "Expires: 0" and other invalid dates mean already expired
        date = http_date(headers.get("date"))
        if date is None:
            import time

            date = time.time()
        return max(0.0, expires - date - age)
    return None


def describe(headers: Mapping[str, str]) -> dict[str, Any]:
    """What the cache keeps of a 200 (or 304) response: validators, ``no_store``, ``lifetime``, ``must_revalidate``."""
    cc = cache_control(headers.get("cache-control"))
    info: dict[str, Any] = {
        "etag": _validator(headers.get("etag")),
        "last_modified": _validator(headers.get("last-modified")),
        "lifetime": lifetime(headers),
    }
    if "no-store" in cc:
        info["no_store"] = True
    if "must-revalidate" in cc or "proxy-revalidate" in cc:
        info["must_revalidate"] = True  # RFC 9111 5.2.2.2: never served stale, even on an error
    return info


def merge(old: Mapping[str, Any], fresh: Mapping[str, Any]) -> dict[str, Any]:
    """The description after a 304: its headers update the stored ones (RFC 9111 4.3.4).

    Validators it omits stay; so does the stored word on freshness when the 304 says
    nothing of it (many servers send a bare 304).
    """
    out = dict(old)
    for key in ("etag", "last_modified"):
        if fresh.get(key):
            out[key] = fresh[key]
    if fresh.get("lifetime") is not None or fresh.get("no_store") or fresh.get("must_revalidate"):
        out["lifetime"] = fresh.get("lifetime")
        for flag in ("no_store", "must_revalidate"):
            out.pop(flag, None)
            if fresh.get(flag):
                out[flag] = True
    return out


def conditional(info: Mapping[str, Any] | None) -> dict[str, str]:
    """The request headers that revalidate a stored response; {} when it has no validator."""
    headers = {}
    if info and info.get("etag"):
        headers["If-None-Match"] = info["etag"]
    if info and info.get("last_modified"):
        headers["If-Modified-Since"] = info["last_modified"]
    return headers


def fresh_for(info: Mapping[str, Any] | None, ttl: float) -> float:
    """How long an entry is served without asking the site: our TTL, shortened by what the site said."""
    life = (info or {}).get("lifetime")
    if isinstance(life, (int, float)) and not isinstance(life, bool):
        return max(0.0, min(float(ttl), float(life)))
    return float(ttl)
