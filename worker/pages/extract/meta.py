"""Page metadata from an lxml HTML tree: title, author, published date, site name,
language, canonical URL, description.

Only what the page states (meta tags, OpenGraph, JSON-LD, <title>, <html lang>):
no date is guessed from text or URLs. Pure functions; cheap (one pass over <meta>,
<link> and JSON-LD scripts).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from lxml.html import HtmlElement  # no stubs: Any to the checker


_DATE = re.compile(r"^\s*(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2}))?)?")
_LANG = re.compile(r"^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$")
_TITLE_SPLIT = re.compile(r"\s+[|\u2013\u2014\u00b7•»:-]\s+")
MAX_FIELD = 500

_PUBLISHED_META = (
    "article:published_time",
    "og:article:published_time",
    "datepublished",
    "date",
    "pubdate",
    "publishdate",
    "publish-date",
    "publish_date",
    "dc.date",
    "dc.date.issued",
    "dcterms.date",
    "dcterms.created",
    "dc.date.created",
    "sailthru.date",
    "parsely-pub-date",
    "citation_publication_date",
    "citation_date",
    "article.published",
    "published_time",
)
_AUTHOR_META = (
    "author",
    "article:author",
    "dc.creator",
    "dcterms.creator",
    "sailthru.author",
    "parsely-author",
    "citation_author",
    "byl",
    "twitter:creator",
)
_ARTICLE_TYPES = (
    "article",
    "newsarticle",
    "blogposting",
    "reportagenewsarticle",
    "techarticle",
    "scholarlyarticle",
    "webpage",
    "discussionforumposting",
    "qapage",
    "product",
    "analysisnewsarticle",
    "opinionnewsarticle",
    "review",
    "howto",
    "recipe",
)


def iso_date(value: Any) -> str | None:
    """'YYYY-MM-DD' from an ISO-like date string, or None (no other formats guessed)."""
    if not isinstance(value, str):
        return None
    m = _DATE.match(value)
    if not m:
        return None
    y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if not (1990 <= y <= 2100 and 1 <= mo <= 12 and 1 <= d <= 31):
        return None
    return "%04d-%02d-%02d" % (y, mo, d)


def _clean(s: Any) -> str | None:
    if not isinstance(s, str):
        return None
    s = " ".join(s.split())
    if not s:
        return None
    return s[:MAX_FIELD]


def json_ld_objects(tree: HtmlElement) -> list[dict[str, Any]]:
    import json

    out: list[dict[str, Any]] = []
    for script in tree.iterfind(".//script"):
        if (script.get("type") or "").strip().lower() != "application/ld+json":
            continue
        raw = script.text or ""
        if not raw.strip() or len(raw) > 500000:
            continue
        try:
            data = json.loads(raw)
        except ValueError:
            try:  # common breakage: trailing junk, control characters
                data = json.loads(raw.strip().rstrip(";"), strict=False)
            except ValueError:
                continue
        stack = [data]
        seen = 0
        while stack and seen < 200:
            item = stack.pop()
            seen += 1
            if isinstance(item, list):
                stack.extend(reversed(item))
            elif isinstance(item, dict):
                out.append(item)
                graph = item.get("@graph")
                if isinstance(graph, list):
                    stack.extend(reversed(graph))
    return out


def ld_type(obj: dict[str, Any]) -> list[str]:
    t = obj.get("@type")
    if isinstance(t, list):
        return [str(x).lower() for x in t]
    return [str(t).lower()] if t else []


def _ld_name(value: Any) -> str | None:
    if isinstance(value, str):
        return _clean(value)
    if isinstance(value, dict):
        return _clean(value.get("name")) if isinstance(value.get("name"), str) else None
    if isinstance(value, list):
        names = [n for n in (_ld_name(v) for v in value[:5]) if n]
        return ", ".join(names) if names else None
    return None


def page_metadata(tree: HtmlElement, url: str | None = None) -> dict[str, Any]:
    """Dict of title, author, published, site_name, language, canonical_url, description."""
    meta: dict[str, str] = {}
    for m in tree.iterfind(".//meta"):
        key = m.get("property") or m.get("name") or m.get("itemprop") or m.get("http-equiv") or ""
        key = key.strip().lower()
        content = m.get("content")
        if key and content and key not in meta:
            meta[key] = content

    ld = []
    try:
        ld = json_ld_objects(tree)
    except Exception:
        ld = []
    articles = [o for o in ld if any(t in _ARTICLE_TYPES for t in ld_type(o))]

    def first_ld(field: str, objs: list[dict[str, Any]] | None = None) -> Any:
        for o in objs if objs is not None else articles:
            v = o.get(field)
            if v:
                return v
        return None

    res: dict[str, Any] = {}
    # title
    title = _clean(meta.get("og:title")) or _clean(meta.get("twitter:title")) or _clean(first_ld("headline"))
    if not title:
        t = tree.find(".//title")
        if t is not None:
            full = _clean(t.text_content())
            if full:
                parts = _TITLE_SPLIT.split(full)
                title = max(parts, key=len) if len(parts) > 1 and len(max(parts, key=len)) > 15 else full
    if not title:
        h1 = tree.find(".//h1")
        if h1 is not None:
            title = _clean(h1.text_content())
    res["title"] = title

    # author
    author = _ld_name(first_ld("author"))
    if not author:
        for k in _AUTHOR_META:
            v = _clean(meta.get(k))
            if v and not v.startswith(("http://", "https://", "@")):
                author = v
                break
    res["author"] = author

    # published: only an explicit statement
    published = iso_date(first_ld("datePublished")) or iso_date(first_ld("dateCreated"))
    if not published:
        for k in _PUBLISHED_META:
            published = iso_date(meta.get(k))
            if published:
                break
    if not published:
        for t in tree.iterfind(".//time"):
            if t.get("itemprop", "").lower() == "datepublished" or t.get("pubdate") is not None:
                published = iso_date(t.get("datetime") or t.text_content())
                if published:
                    break
    res["published"] = published

    # site name
    site = _clean(meta.get("og:site_name")) or _clean(meta.get("application-name"))
    if not site:
        for o in ld:
            if any(t in ("website", "organization", "newsmediaorganization") for t in ld_type(o)):
                site = _ld_name(o.get("name"))
                if site:
                    break
    if not site:
        pub = first_ld("publisher")
        site = _ld_name(pub)
    res["site_name"] = site

    # language
    root = tree.getroottree().getroot() if hasattr(tree, "getroottree") else tree
    lang = root.get("lang") or root.get("{http://www.w3.org/XML/1998/namespace}lang")
    if not lang:
        lang = meta.get("content-language") or meta.get("og:locale") or meta.get("inlanguage")
    if lang:
        lang = lang.split(",")[0].strip()
        res["language"] = lang.replace("_", "-") if _LANG.match(lang) else None
    else:
        res["language"] = None

    # canonical URL
    canonical = None
    for link in tree.iterfind(".//link"):
        rel = (link.get("rel") or "").lower().split()
        if "canonical" in rel and link.get("href"):
            canonical = link.get("href").strip()
            break
    if not canonical:
        canonical = (meta.get("og:url") or "").strip() or None
    if canonical:
        if url:
            from urllib.parse import urljoin

            try:
                canonical = urljoin(url, canonical)
            except ValueError:
                canonical = None
        if not (canonical and re.match(r"^https?://[^\s]+$", canonical)):
            canonical = None
    res["canonical_url"] = canonical

    res["description"] = (
        _clean(meta.get("description")) or _clean(meta.get("og:description")) or _clean(meta.get("twitter:description"))
    )
    return res


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and value else value


def product_facts(tree: HtmlElement) -> tuple[str | None, str | None, str | None] | None:
    """(name, price, availability) of the page's schema.org Product, from JSON-LD, as
    strings ("129.00 USD", "in stock") or None each; None when the page states none."""
    for obj in json_ld_objects(tree):
        if not any(t in ("product", "productgroup", "individualproduct") for t in ld_type(obj)):
            continue
        name = _ld_name(obj.get("name"))
        if name:
            from html import unescape

            # some shops put markup (<wbr/>) in names, and escape them as HTML ("&amp;")
            name = _clean(unescape(re.sub(r"<[^>]*>", "", name)))
        offer = _first(obj.get("offers"))
        price = availability = None
        if isinstance(offer, dict):
            currency = offer.get("priceCurrency") or ""
            spec = _first(offer.get("priceSpecification"))
            amount = offer.get("price")
            if amount in (None, "") and isinstance(spec, dict):
                amount = spec.get("price")
                currency = currency or spec.get("priceCurrency") or ""
            if amount not in (None, ""):
                price = ("%s %s" % (amount, currency)).strip()
            elif offer.get("lowPrice") not in (None, ""):
                high = offer.get("highPrice")
                price = (
                    "%s–%s %s" % (offer["lowPrice"], high, currency)
                    if high not in (None, "")
                    else "%s %s" % (offer["lowPrice"], currency)
                ).strip()
            avail = offer.get("availability")
            if isinstance(avail, str) and avail.strip():
                word = avail.rstrip("/").rsplit("/", 1)[-1]
                # "InStock" -> "in stock"
                availability = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", word).lower()
        if name or price:
            return (name, _clean(str(price)) if price else None, _clean(availability) if availability else None)
    return None
