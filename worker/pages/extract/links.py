"""The page's links put back into trafilatura's text for markdown and html.

trafilatura extracts better without links (stages.trafilatura_doc asks it without);
each link text of the page found in the extracted text becomes a link again, first
occurrence only, never inside code.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from lxml.html import HtmlElement  # no stubs: Any to the checker


# Query parameters that only tell the linked site who sent the reader there (campaign tags,
# click ids, and every "utm_" one): the page is the same without them, and each costs the
# reader tokens. A set, not a regex: compiling one costs every call near a millisecond.
_TRACKING = frozenset(
    "fbclid gclid dclid gbraid wbraid msclkid yclid igshid mc_cid mc_eid _gl _hsenc _hsmi mkt_tok".split()
)


def _tracking(param: str) -> bool:
    name = param.split("=", 1)[0].lower()
    return name.startswith("utm_") or name in _TRACKING


def untracked(href: str) -> str:
    """href without its tracking parameters (_tracking), the rest of its query in order."""
    q = href.find("?")
    if q < 0:
        return href
    end = href.find("#", q)
    end = len(href) if end < 0 else end
    params = href[q + 1 : end].split("&")
    kept = [p for p in params if p and not _tracking(p)]
    if len(kept) == len(params):
        return href
    return href[:q] + ("?" + "&".join(kept) if kept else "") + href[end:]


def in_page(href: str, url: str) -> bool:
    """Whether an absolute href is a place on the page at url ("page.html#section")."""
    at = href.find("#")
    return at >= 0 and href[:at] == url.split("#", 1)[0]


def page_anchors(tree: HtmlElement, url: str | None, limit: int = 2000) -> dict[str, str]:
    """{anchor text: absolute href} for the page's links, first occurrence wins."""
    import re
    from urllib.parse import urljoin

    out: dict[str, str] = {}
    for i, a in enumerate(tree.iter("a")):
        if i >= limit:
            break
        href = (a.get("href") or "").strip()
        if not href or href.startswith(("#", "javascript:", "data:")):
            continue
        text = " ".join(a.text_content().split())
        if not (2 <= len(text) <= 150) or text in out:
            continue
        if url:
            try:
                href = urljoin(url, href)
            except ValueError:
                continue
            if in_page(href, url):
                continue  # a place on this page, written out in full: no link for a reader
        if re.match(r"^(https?:|mailto:|/)", href) or not url:
            out[text] = href
    return out


# A run of word characters, or one character that is neither word nor space: where a
# link text can start in text (re's \w, so the same word boundaries as (?<!\w) / (?!\w)).
_TOKEN_PATTERN = r"\w+|[^\w\s]"


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def attach_links(body: HtmlElement, tree: HtmlElement, url: str | None) -> None:
    """Turn occurrences of the page's link texts in trafilatura's body back into links.

    trafilatura extracts better without links (see _trafilatura); for markdown and html
    each link text found in the extracted text becomes a <ref target> again, first
    occurrence only, never inside code.
    """
    import re

    from lxml.etree import Element

    anchors = page_anchors(tree, url)
    if not anchors:
        return
    keys = sorted(anchors, key=len, reverse=True)[:1000]
    # Link texts by their first token, longest first. One regex alternation of up to
    # 1,000 texts cost ~17 ms a page to compile (re's compiler is Python code) and more
    # to run; this finds the same matches: the leftmost, the longest text there, whole
    # words only, and after a match the search goes on from its end.
    token = re.compile(_TOKEN_PATTERN)  # re's own cache keeps it compiled after the first page
    by_token: dict[str, list[str]] = {}
    for k in keys:
        first = token.match(k)
        if first:
            by_token.setdefault(first.group(0), []).append(k)
    used: set[str] = set()

    def split(text: str) -> list[tuple[str, str | None]] | None:
        """[(before, match or None)] pieces of text; each anchor used once."""
        pieces: list[tuple[str, str | None]] = []
        pos = resume = 0
        for m in token.finditer(text):
            start = m.start()
            if start < resume:
                continue
            candidates = by_token.get(m.group(0))
            if not candidates or (start and _is_word(text[start - 1])):
                continue
            for k in candidates:
                end = start + len(k)
                if text.startswith(k, start) and not (end < len(text) and _is_word(text[end])):
                    break
            else:
                continue
            resume = end
            if k in used:
                continue
            used.add(k)
            pieces.append((text[pos:start], k))
            pos = end
        if not pieces:
            return None
        pieces.append((text[pos:], None))
        return pieces

    def make_refs(pieces: list[tuple[str, str | None]]) -> list[HtmlElement]:
        refs = []
        for i in range(len(pieces) - 1):
            ref = Element("ref")
            ref.text = pieces[i][1]
            # every piece but the last ends at a match: its key is a str
            ref.set("target", anchors[pieces[i][1]])  # type: ignore[index]
            ref.tail = pieces[i + 1][0]
            refs.append(ref)
        return refs

    slots = []
    for el in body.iter():
        if not isinstance(el.tag, str) or el.tag in ("code", "ref", "graphic"):
            continue
        if any(anc.tag in ("code", "ref") for anc in el.iterancestors()):
            continue
        slots.append(el)
    for el in slots:
        if el.text:
            pieces = split(el.text)
            if pieces:
                el.text = pieces[0][0]
                for i, ref in enumerate(make_refs(pieces)):
                    el.insert(i, ref)
        parent = el.getparent()
        if el.tail and parent is not None and parent.tag not in ("code", "ref") and el is not body:
            pieces = split(el.tail)
            if pieces:
                el.tail = pieces[0][0]
                anchor = el
                for ref in make_refs(pieces):
                    anchor.addnext(ref)
                    anchor = ref
