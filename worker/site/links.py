"""What a map needs from an HTML page: its title, canonical URL, links (with their text) and
the names it defines (headings, element ids), read with a few regular expressions.

Pure functions, no parser: a page is scanned once for the tags that matter (``a``,
``title``, ``h1``-``h3``, ``base``, ``link``, ``meta``; ``script``, ``style`` and comments
skipped whole), so a 5 MB page costs tens of milliseconds, and every list is capped.
A link's text is the words between ``<a>`` and ``</a>`` (or the next ``<a>``), its
``title`` attribute when it has no words.
"""

from __future__ import annotations

import re
from html import unescape

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

MAX_LINKS = 5000  # links read from one page (a general index has a few thousand)
MAX_IDS = 5000
MAX_HEADINGS = 400
TEXT_MAX = 200  # characters of one link's text or one heading
HEAD_CHARS = 200_000
_DEAD = re.compile(r"<!--.*?(?:-->|$)|<(script|style|template|svg)\b.*?(?:</\1\s*>|$)", re.I | re.S)
_HEAD_TAG = re.compile(r"<(base|link|meta)\b([^<>]*)>", re.I)
_TITLE = re.compile(r"<title\b[^<>]*>(.{0,3000}?)</title\s*>", re.I | re.S)
_HEADINGS = re.compile(r"<h([1-3])\b[^<>]*>(.{0,3000}?)</h\1\s*>", re.I | re.S)
_A_START = re.compile(r"<a\s([^<>]*)>", re.I)
_ATTR = re.compile(r"""([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""")
_ID = re.compile(r"""id=["']?([^"'\s<>]{1,120})""")
_HREF = re.compile(r"""(?<![\w-])(href)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""", re.I)
_ANY_TAG = re.compile(r"<[^<>]*>")


class Page:
    """What one HTML page says about the site: see the module's docstring."""

    __slots__ = ("title", "canonical", "base", "links", "headings", "ids", "nofollow", "noindex")

    def __init__(self) -> None:
        self.title: str | None = None
        self.canonical: str | None = None
        self.base: str | None = None
        self.links: list[tuple[str, str]] = []  # (href as written, its text)
        self.headings: list[str] = []
        self.ids: list[str] = []
        self.nofollow = False  # <meta name="robots" content="nofollow">: its links are not followed
        self.noindex = False


def attrs(tag: str, pattern: re.Pattern[str] = _ATTR) -> dict[str, str]:
    """A start tag's attributes (the part after its name), names lower-cased, values unescaped."""
    out: dict[str, str] = {}
    for m in _ATTR.finditer(tag):
        name = m.group(1).lower()
        if name not in out:
            value = m.group(2) if m.group(2) is not None else m.group(3) if m.group(3) is not None else m.group(4)
            out[name] = unescape(value) if value and "&" in value else (value or "")
    return out


def words(fragment: str, limit: int = TEXT_MAX) -> str:
    """The text of a piece of markup: tags dropped, entities read, whitespace folded, at most ``limit``."""
    if "<" not in fragment and "&" not in fragment:
        return " ".join(fragment[: limit * 4].split())[:limit]
    text = " ".join(unescape(_ANY_TAG.sub(" ", fragment[: limit * 40])).split())
    return text[:limit]


def read(html: str) -> Page:
    """The page's title, canonical URL, base, links, headings and ids (see Page)."""
    from bisect import bisect_right

    page = Page()
    dead = [(m.start(), m.end()) for m in _DEAD.finditer(html)]  # scripts, styles, comments
    starts = [s for s, _ in dead]

    def alive(pos: int) -> bool:
        i = bisect_right(starts, pos) - 1
        return i < 0 or pos >= dead[i][1]

    head = html[:HEAD_CHARS]
    for m in _HEAD_TAG.finditer(head):
        if not alive(m.start()):
            continue
        name, a = m.group(1).lower(), attrs(m.group(2))
        if name == "base" and page.base is None and a.get("href"):
            page.base = a["href"].strip()
        elif name == "link" and "canonical" in a.get("rel", "").lower().split() and a.get("href"):
            page.canonical = page.canonical or a["href"].strip()
        elif name == "meta" and a.get("name", "").lower() == "robots":
            content = a.get("content", "").lower().replace(",", " ").split()
            page.nofollow = page.nofollow or "nofollow" in content or "none" in content
            page.noindex = page.noindex or "noindex" in content or "none" in content
    title = _TITLE.search(head)
    if title:
        page.title = words(title.group(1), 300) or None
    for m in _HEADINGS.finditer(html):
        if alive(m.start()):
            text = words(m.group(2)).rstrip("\u00b6#").strip()
            if text:
                page.headings.append(text)
                if len(page.headings) >= MAX_HEADINGS:
                    break
    anchors = list(_A_START.finditer(html))
    for i, m in enumerate(anchors):
        if not alive(m.start()):
            continue
        tag = m.group(1)
        h = _HREF.search(tag)
        if h is None:
            continue
        href = _value(h).strip()
        if not href or ("rel" in tag and "nofollow" in attrs(tag).get("rel", "").lower()):
            continue
        end = min(m.end() + TEXT_MAX * 40, anchors[i + 1].start() if i + 1 < len(anchors) else len(html))
        close = _find_close(html, m.end(), end)
        text = words(html[m.end() : close])
        if not text and "title" in tag:
            text = " ".join(attrs(tag).get("title", "").split())[:TEXT_MAX]
        page.links.append((href, text))
        if len(page.links) >= MAX_LINKS:
            break
    page.ids = ids(html)
    return page


def _find_close(html: str, start: int, end: int) -> int:
    """Where the link that starts at ``start`` ends: its ``</a>``, else ``end``."""
    at = html.find("</a", start, end)
    if at < 0:
        at = html.find("</A", start, end)
    return end if at < 0 else at


def _value(m: re.Match[str]) -> str:
    value = m.group(2) if m.group(2) is not None else m.group(3) if m.group(3) is not None else m.group(4)
    return unescape(value) if value and "&" in value else (value or "")


def ids(html: str) -> list[str]:
    """The values of the page's ``id`` attributes (at most MAX_IDS)."""
    out = []
    for m in _ID.finditer(html):
        before = html[m.start() - 1 : m.start()]
        if before.isspace():
            out.append(m.group(1))
            if len(out) >= MAX_IDS:
                break
    return out


def _add_link(page: Page, open_a: tuple[str, str, int], inner: str) -> None:
    href, title, _ = open_a
    text = words(inner) or " ".join(title.split())[:TEXT_MAX]
    page.links.append((href, text))


def plain_text(html: str, limit: int = 2_000_000) -> str:
    """The page's words, markup, scripts and styles left out (for counting a question's terms)."""
    html = html[:limit]
    html = re.sub(r"(?is)<(script|style|template|svg)\b.*?</\1\s*>|<!--.*?-->", " ", html)
    return unescape(_ANY_TAG.sub(" ", html))


def summary(page: Page) -> dict[str, Any]:
    """A JSON-ready record of ``page`` (the map's per-page cache entry)."""
    return {
        "title": page.title,
        "canonical": page.canonical,
        "base": page.base,
        "links": page.links,
        "headings": page.headings,
        "ids": page.ids,
        "nofollow": page.nofollow,
        "noindex": page.noindex,
    }
