"""One clean result list: URLs reduced to a canonical key, duplicates dropped.

Pure functions, standard library only (``urllib.parse`` is already loaded by
every search path).  The key is for comparison, never shown: results keep the
URL the engine gave.

What counts as the same page:

* scheme and host case, a default port (``:80`` for http, ``:443`` for https),
  a trailing dot on the host, ``http`` against ``https``;
* a trailing slash on the path, an empty path and ``/``, ``index.html``-less
  directory URLs are *not* folded (servers differ);
* the fragment;
* tracking parameters (``utm_*``, ``fbclid``, ``gclid`` and the other click
  ids below), and the order of the remaining parameters;
* AMP and mobile copies whose URL says what they are a copy of: Google's and
  Cloudflare's AMP caches (``/amp/s/HOST/PATH``, ``HOST.cdn.ampproject.org/c/s/...``),
  an ``amp``/``m``/``mobile`` first host label (and ``www``, which
  is where a mobile copy's desktop page usually lives), a trailing ``/amp`` path segment,
  ``?amp=1`` / ``?outputType=amp``.  A page that states its canonical URL
  (``--fetch-top`` reads it) is keyed by that instead (``dedupe`` reads
  ``canonical_url`` on the result).
"""

from __future__ import annotations

from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

# Click and campaign ids that never change the page served.
TRACKING = frozenset(
    {
        "fbclid",
        "gclid",
        "gclsrc",
        "dclid",
        "gbraid",
        "wbraid",
        "msclkid",
        "yclid",
        "twclid",
        "ttclid",
        "li_fat_id",
        "mc_cid",
        "mc_eid",
        "igshid",
        "igsh",
        "_ga",
        "_gl",
        "_hsenc",
        "_hsmi",
        "__hstc",
        "__hssc",
        "__hsfp",
        "hsctatracking",
        "mkt_tok",
        "oly_anon_id",
        "oly_enc_id",
        "vero_id",
        "vero_conv",
        "wickedid",
        "rb_clickid",
        "s_cid",
        "spm",
        "ref_src",
        "ref_url",
        "cmpid",
        "icid",
        "ncid",
        "sr_share",
        "ocid",
        "amp",
        "outputtype",
    }
)
TRACKING_PREFIXES = ("utm_", "pk_", "mtm_", "hsa_")
DEFAULT_PORTS = {"http": 80, "https": 443}
MOBILE_LABELS = ("www", "amp", "m", "mobile")  # www too: a mobile copy's desktop page is usually www.
AMP_CACHE_SUFFIX = ".cdn.ampproject.org"


def _is_tracking(name: str) -> bool:
    name = name.lower()
    return name in TRACKING or name.startswith(TRACKING_PREFIXES)


def _unwrap_amp_cache(host: str, path: str) -> tuple[str, str] | None:
    """(host, path) of the page an AMP cache URL serves, or None when it is not one."""
    parts = path.split("/")
    if host.endswith(AMP_CACHE_SUFFIX) and len(parts) > 3 and parts[1] in ("c", "v", "i"):
        # /c/s/example.com/path (s = https), or /c/example.com/path (http)
        rest = parts[2:]
        if rest and rest[0] == "s":
            rest = rest[1:]
        if rest and "." in rest[0]:
            return rest[0].lower(), "/" + "/".join(rest[1:])
    if (
        (host == "google.com" or host.startswith("google.") or host.endswith(".google.com"))
        and len(parts) > 3
        and parts[1] == "amp"
    ):
        rest = parts[2:]
        if rest and rest[0] == "s":
            rest = rest[1:]
        if rest and "." in rest[0]:
            return rest[0].lower(), "/" + "/".join(rest[1:])
    return None


def canonical_key(url: object) -> str:
    """A comparison key for ``url`` (a string); the stripped input when it does not parse as http(s)."""
    if not isinstance(url, str):
        return ""
    text = url.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return text
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        return text
    host = (parts.hostname or "").rstrip(".")
    path = parts.path or "/"
    unwrapped = _unwrap_amp_cache(host, path)
    if unwrapped:
        host, path = unwrapped
        port = None
    labels = host.split(".")
    if len(labels) > 2 and labels[0] in MOBILE_LABELS:
        host = ".".join(labels[1:])
    elif len(labels) > 2 and labels[1] in MOBILE_LABELS and len(labels[0]) <= 3:
        host = ".".join(labels[:1] + labels[2:])  # en.m.wikipedia.org: language first, then m
    if port is not None and port != DEFAULT_PORTS[scheme]:
        host = "%s:%d" % (host, port)
    # Percent-encoding of unreserved characters is one spelling among several.
    path = unquote(path).rstrip("/") or "/"
    if path.endswith("/amp") and len(path) > 4:
        path = path[:-4] or "/"
    elif path.endswith(".amp"):
        path = path[:-4] or "/"
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _is_tracking(k)]
    query.sort()
    # http and https copies of one page are one page to a reader.
    return "//%s%s%s" % (host, path, "?" + urlencode(query) if query else "")


def dedupe(results: list[Any]) -> tuple[list[dict[str, Any]], int]:
    """(results without duplicates, number dropped): the best-ranked copy of each page stays.

    A result's key is the canonical URL its page states (``canonical_url``, after
    --fetch-top) when it has one, else the key of its ``url``; a later copy
    that matches either of an earlier copy's keys is dropped.
    """
    seen: set[str] = set()
    out = []
    dropped = 0
    for r in results:
        if not isinstance(r, dict):
            continue
        keys = {canonical_key(r.get("url"))}
        stated = r.get("canonical_url")
        if isinstance(stated, str) and stated.strip():
            keys.add(canonical_key(stated))
        keys.discard("")
        if keys & seen:
            dropped += 1
            continue
        seen.update(keys)
        out.append(r)
    return out, dropped
