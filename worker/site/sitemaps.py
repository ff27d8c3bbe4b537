"""Sitemaps (sitemaps.org 0.9), robots.txt's ``Sitemap:`` lines and llms.txt, read as lists of URLs.

Pure functions over bytes.  No XML parser: ``<loc>`` elements are found with a
regular expression, so an entity bomb or a DTD has nothing to expand, and a
sitemap of 50,000 URLs is read in milliseconds.  A gzip body (``.xml.gz``, or the
gzip magic bytes) is inflated to at most ``MAX_INFLATED`` bytes: past that it is a
compression bomb, refused.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

MAX_INFLATED = 50 * 1024 * 1024  # the sitemaps.org limit for one file, uncompressed
MAX_URLS = 50000  # the sitemaps.org limit for one file
_LOC = re.compile(
    rb"<(?:[\w-]+:)?loc\b[^>]*>\s*(?:<!\[CDATA\[)?\s*(.*?)\s*(?:\]\]>)?\s*</(?:[\w-]+:)?loc\s*>", re.S | re.I
)
_INDEX = re.compile(rb"<(?:[\w-]+:)?sitemapindex\b", re.I)
_URLSET = re.compile(rb"<(?:[\w-]+:)?urlset\b", re.I)
_SITEMAP_LINE = re.compile(r"^\s*sitemap\s*:\s*(\S+)", re.I | re.M)
_MD_LINK = re.compile(r"\[([^\[\]\n]{0,300})\]\(\s*<?([^()\s<>]+)>?(?:\s+\"[^\"\n]*\")?\s*\)")


class Bomb(ValueError):
    """A compressed body that inflates past the limit."""


def inflate(body: bytes, limit: int = MAX_INFLATED) -> bytes:
    """A gzip body inflated, at most ``limit`` bytes (Bomb past it); any other body as it is."""
    if not body.startswith(b"\x1f\x8b"):
        return body
    import zlib

    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = d.decompress(body, limit + 1)
    except zlib.error as exc:
        raise ValueError("corrupt gzip: %s" % exc) from None
    if len(out) > limit or d.unconsumed_tail:
        raise Bomb("inflates past %d bytes" % limit)
    return out


def parse(body: bytes) -> tuple[str, list[str]]:
    """(kind, URLs) of a sitemap: kind "index" (URLs of sitemaps), "urlset" (URLs of pages) or "text"
    (one URL a line); at most MAX_URLS.  ValueError when it is none of these."""
    from html import unescape

    head = body[:4096]
    if _INDEX.search(head) or (not _URLSET.search(head) and _INDEX.search(body[:65536])):
        kind = "index"
    elif _URLSET.search(body[:65536]):
        kind = "urlset"
    else:
        text = body.decode("utf-8", "replace").lstrip("\ufeff")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if lines and all(line.startswith(("http://", "https://")) for line in lines[:20]):
            return "text", [line for line in lines if " " not in line][:MAX_URLS]
        raise ValueError("not a sitemap")
    urls = []
    for m in _LOC.finditer(body):
        urls.append(unescape(m.group(1).decode("utf-8", "replace")).strip())
        if len(urls) >= MAX_URLS:
            break
    return kind, [u for u in urls if u]


def robots_sitemaps(text: str) -> list[str]:
    """The ``Sitemap:`` URLs of a robots.txt (they may sit anywhere in the file, in any group)."""
    return list(dict.fromkeys(_SITEMAP_LINE.findall(text[: 500 * 1024])))[:50]


def llms_links(text: str) -> list[tuple[str, str]]:
    """(URL as written, its title) of every markdown link of an llms.txt (or llms-full.txt)."""
    out = []
    for m in _MD_LINK.finditer(text):
        title = " ".join(m.group(1).replace("`", "").split())
        out.append((m.group(2), title))
    return out


def summary(kind: str, urls: list[str]) -> dict[str, Any]:
    return {"kind": kind, "urls": urls}
