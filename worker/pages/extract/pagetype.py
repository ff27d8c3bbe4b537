"""What kind of page this is, from what the page itself says.

Seven kinds, as a reader would name them: article, documentation, forum (and Q&A),
product, listing (entries that lead elsewhere: search results, course or job lists,
blog indexes), collection (a shop's category grid) and service (a company's page
about what it offers).

Evidence, strongest first, each worth points to one kind:
- schema.org types in JSON-LD and microdata (QAPage, DiscussionForumPosting,
  Product, ItemList, CollectionPage, TechArticle, NewsArticle, Service, ...);
- the ``og:type`` meta tag;
- the shape of the page's own canonical URL (``/docs/``, ``/questions/123``, ``/product/``,
  ``/category/``) and the host names of it and of the URL fetched (``docs.``, ``forum.``), each
  signal once; on a page that reads as an article, only for a kind the page itself gives
  evidence of, so that a URL breaks a tie or adds weight and never outvotes the page
  (corroborate). The fetched URL's path is not the page's word: the same page is served at
  a mirror's, a tag's or a category's path (url_evidence);
- the markup: repeated post blocks with authors, repeated cards with prices,
  code blocks, "add to cart" forms.

The kind with most points wins; with no evidence a page is an article, which is
what the extractor did for every page before it knew kinds. Pure; no I/O.
"""

from __future__ import annotations

import re

from . import thresholds as th
from .tree import word_count  # a light module (lxml is imported on first use): no import per element

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from lxml.html import HtmlElement  # no stubs: Any to the checker


KINDS = ("article", "documentation", "forum", "product", "listing", "collection", "service")

# schema.org type (lower case) -> (kind, points)
LD_TYPES = {
    "qapage": ("forum", 6),
    "discussionforumposting": ("forum", 6),
    "question": ("forum", 4),
    "answer": ("forum", 2),
    "socialmediaposting": ("forum", 3),
    "product": ("product", 5),
    "productgroup": ("product", 5),
    "offer": ("product", 1),
    "aggregateoffer": ("product", 1),
    "individualproduct": ("product", 5),
    "productmodel": ("product", 4),
    "collectionpage": ("collection", 4),
    "offercatalog": ("collection", 3),
    "itemlist": ("listing", 2),
    "searchresultspage": ("listing", 5),
    "techarticle": ("documentation", 5),
    "apireference": ("documentation", 6),
    "softwaresourcecode": ("documentation", 2),
    "howto": ("documentation", 1),
    "newsarticle": ("article", 5),
    "blogposting": ("article", 5),
    "article": ("article", 3),
    "reportagenewsarticle": ("article", 5),
    "analysisnewsarticle": ("article", 5),
    "opinionnewsarticle": ("article", 5),
    "scholarlyarticle": ("article", 4),
    "recipe": ("article", 3),
    "service": ("service", 4),
    "professionalservice": ("service", 4),
    "localbusiness": ("service", 2),
    "financialservice": ("service", 4),
    "legalservice": ("service", 4),
    "medicalbusiness": ("service", 2),
    "homeandconstructionbusiness": ("service", 2),
    "faqpage": ("service", 1),
    "aboutpage": ("service", 2),
    "contactpage": ("service", 2),
}

OG_TYPES = {
    "article": ("article", 2),
    "product": ("product", 4),
    "og:product": ("product", 4),
    "product.item": ("product", 4),
    "product.group": ("collection", 3),
    "profile": ("service", 1),
}

# (regex over the lower-cased path, kind, points)
URL_SHAPES = [
    (
        r"/(docs?|documentation|reference|api|apis|manual|guides?|handbook|sdk|tutorials?|learn|kb|"
        r"knowledge-?base|help-?center|wiki)(/|$)",
        "documentation",
        3,
    ),
    (r"\.(readthedocs|gitbook)\.io|/latest/|/stable/|/v\d+(\.\d+)*/", "documentation", 1),
    (
        r"/(forums?|community|communities|discuss|discussions?|threads?|topics?|t|questions|q|answers|"
        r"boards?|viewtopic|showthread)(/|\.php|$)",
        "forum",
        3,
    ),
    (r"/(products?|p|dp|ip|item|items|gp/product|shop/p|buy)/", "product", 3),
    (r"/(collections?|category|categories|shop|store|catalog|browse|departments?|c)(/|$)", "collection", 3),
    (
        r"/(search|results|jobs|careers|events|courses|tags?|archives?|authors?|page/\d+|blog/?$|news/?$)(/|$)",
        "listing",
        2,
    ),
    (
        r"/(services?|solutions?|about(-us)?|pricing|features|contact(-us)?|what-we-do|industries|"
        r"consulting|company)(/|$)",
        "service",
        2,
    ),
    (r"/(19|20)\d\d/\d\d?/|/(blog|news|articles?|posts?|stories|story)/[^/]+", "article", 2),
]
_URL_SHAPES = [(re.compile(rx), kind, pts) for rx, kind, pts in URL_SHAPES]

_PRICE = re.compile(r"(?:[$€£¥₹]\s?\d[\d,.]*|\d[\d,.]*\s?(?:€|USD|EUR|GBP|kr|zł))")
# Tags that entries, posts and cards are built of (paragraphs are prose, not entries).
ENTRY_TAGS = frozenset(("article", "div", "li", "section"))
_AUTHOR = re.compile(r"author|username|user-name|poster|byline|avatar", re.I)
_CART = re.compile(r"add[\s_-]?to[\s_-]?(?:cart|bag|basket)|buy[\s_-]?now|in den warenkorb|ajouter au panier", re.I)


def _ld_types(tree: HtmlElement, facts: dict[str, Any]) -> list[str]:
    from .meta import json_ld_objects

    out: list[str] = []
    objects = json_ld_objects(tree)
    facts["json_ld"] = bool(objects)
    for obj in objects:
        t = obj.get("@type")
        for name in t if isinstance(t, list) else [t]:
            if isinstance(name, str):
                out.append(name.rsplit("/", 1)[-1].lower())
    for el in tree.xpath("descendant::*[@itemtype]"):  # libxml2's walk, not ElementPath's Python one
        for name in (el.get("itemtype") or "").split():
            out.append(name.rstrip("/").rsplit("/", 1)[-1].lower())
        if len(out) > 400:
            break
    return out


def evidence(
    tree: HtmlElement,
    url: str | None = None,
    og_type: str | None = None,
    facts: dict[str, Any] | None = None,
    canonical: str | None = None,
    markup: bool = True,
) -> dict[str, int]:
    """{kind: points} for the page (pure). ``facts``, when given, receives what the
    markup showed: "entries", the share of the body's words in its largest run of
    alike, titled entries (0 when there is none); "json_ld", whether the page describes
    itself in schema.org JSON-LD. ``canonical``: the URL the page gives for itself (a
    fetched mirror, short link or tracking URL may say less). Without ``markup``, only
    what the page states (schema.org, og:type, the URL): add_markup adds the rest."""
    score = dict.fromkeys(KINDS, 0)
    seen: set[str] = set()
    if facts is None:
        facts = {}
    for name in _ld_types(tree, facts):
        if name in LD_TYPES and name not in seen:  # a type counts once, however often repeated
            seen.add(name)
            kind, pts = LD_TYPES[name]
            score[kind] += pts
    og = (og_type or "").strip().lower()
    if og in OG_TYPES:
        kind, pts = OG_TYPES[og]
        score[kind] += pts
    urls = url_evidence(url, canonical)
    score["article"] += urls.pop("article", 0)  # it only adds to what the page may read as
    if markup:
        add_markup(tree, score, facts)
        corroborate(score, urls, tree)
    return score


def url_evidence(url: str | None, canonical: str | None = None) -> dict[str, int]:
    """{kind: points} of what the page's own canonical URL says by its shape and host name,
    and of what the URL fetched says by its host name; a signal either shows counts once.
    The fetched URL's path is where the page was found, not what the page says of itself:
    the same article is served at "/p/slug" (Substack), "/t/slug" (a tag), a category's
    path or a mirror's, and its own canonical URL still names it. Not even an article's
    path: at "/category/news/slug" (WordPress) it would make a listing an article."""
    signals: set[int] = set()
    if url:
        signals |= _url_signals(url, path=False)
    if canonical:
        signals |= _url_signals(canonical)
    out: dict[str, int] = {}
    for i in signals:
        kind, pts = _URL_SIGNALS[i]
        out[kind] = out.get(kind, 0) + pts
    return out


def corroborate(score: dict[str, int], urls: dict[str, int], tree: HtmlElement | None = None) -> None:
    """Add the URL's points (but an article's, added with the page's own) to score. On a
    page that reads as an article (reads_as_article), only for the kinds the page itself
    gives evidence of: there a URL's shape may add evidence or break a tie, never outvote
    the page. "/p/slug" is a shop's product and Substack's post, "/t/slug" a forum's topic
    and a blog's tag: the same article served at either reads the same."""
    if not urls:
        return
    prose = tree is not None and reads_as_article(tree)
    for kind, pts in urls.items():
        if not prose or score.get(kind, 0) > 0:
            score[kind] += pts


def reads_as_article(tree: HtmlElement) -> bool:
    """Whether the page's text is mostly paragraphs of running text, as an article's is
    (and a product's, a listing's, a forum's or a documentation index's is not)."""
    body = tree.find(".//body")
    if body is None:
        return False
    prose = 0
    for p in body.iter("p"):
        n = len("".join(x for x in p.itertext() if isinstance(x, str)).split())
        if n >= th.T.PROSE_PARAGRAPH:
            prose += n
    return prose >= th.T.ARTICLE_PROSE_WORDS and prose >= th.T.PROSE_SHARE * _words(body)


def settled(score: dict[str, int], urls: dict[str, int] | None = None) -> bool:
    """Whether the markup's points (add_markup, at most MARKUP_MOST a kind) and the URL's
    that they would corroborate cannot change what pick says of score, nor how sure it is:
    an article of more than WEAK_ARTICLE points that no other kind can reach. The markup's
    facts are then not needed either ("entries" is read only where an article's evidence
    is weak): on most news pages, the walk of the body's runs of entries (up to 6 ms) is
    not made."""
    article = score["article"]
    if article <= th.T.WEAK_ARTICLE:
        return False
    for k in KINDS:
        if k != "article":
            if score[k] + MARKUP_MOST.get(k, 0) + (urls or {}).get(k, 0) > article:
                return False
    return True


# (kind, points) of each URL signal: the shapes, then the host's first label
_URL_SIGNALS = [(kind, pts) for _, kind, pts in _URL_SHAPES] + [("documentation", 3), ("forum", 3), ("collection", 1)]
_HOST_STARTS = (
    ("docs.", "developer.", "developers.", "api.", "learn.", "wiki."),
    ("forum.", "forums.", "community.", "discuss.", "answers."),
    ("shop.", "store."),
)


def _url_signals(url: str, path: bool = True) -> set[int]:
    """Indices into _URL_SIGNALS of what the URL's shape says (what its host says alone,
    without ``path``)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        where, host = parts.path.lower(), parts.hostname or ""
    except ValueError:
        return set()
    out = set()
    for i, (rx, kind, _) in enumerate(_URL_SHAPES):
        if (path and rx.search(where)) or (kind == "documentation" and rx.search(host)):
            out.add(i)
    for j, starts in enumerate(_HOST_STARTS):
        if host.startswith(starts):
            out.add(len(_URL_SHAPES) + j)
    return out


def _signature(el: HtmlElement) -> tuple[Any, str]:
    cls = (el.get("class") or "").split()
    return el.tag, cls[0] if cls else ""


def _words(el: HtmlElement) -> int:
    return word_count(el)


def repeated_group(body: HtmlElement) -> dict[str, Any] | None:
    """The largest run of alike siblings (same tag and first class) holding text, as a
    dict of facts a reader would use to name the page, or None.

    "Alike siblings" are how lists of posts, result entries and product cards are
    built, whatever the site.
    """
    return runs(body)[0]


# The elements with 4 entries or more among their children, in document order: only
# they can hold a run. libxml2 finds them; a Python walk of every element cost more
# than the runs themselves.
_PARENTS_XPATH = "descendant-or-self::*[*[4]][count(%s) >= 4]" % " | ".join(sorted(ENTRY_TAGS))
_PARENTS: Any = None  # its compiled lxml XPath, made on first use (extraction runs on one thread)


def runs(body: HtmlElement, grid_min: float = 0) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """(the largest run, as repeated_group; the largest run of which PRICED show a
    price, of over grid_min words), in one walk of the body: the second is a shop's grid
    when a larger run that is no grid (a mega menu's columns) outweighs it."""
    global _PARENTS
    if _PARENTS is None:
        from lxml import etree

        _PARENTS = etree.XPath(_PARENTS_XPATH)
    best: dict[str, Any] | None = None
    grid: dict[str, Any] | None = None
    for parent in _PARENTS(body):
        groups: dict[tuple[Any, str], list[HtmlElement]] = {}
        for child in parent.iterchildren(*ENTRY_TAGS):
            groups.setdefault(_signature(child), []).append(child)
        for members in groups.values():
            if len(members) < 4:
                continue
            words = [_words(m) for m in members]
            texty = [m for m, w in zip(members, words) if w >= 4]
            if len(texty) < 4:
                continue
            total = sum(words)
            if grid is not None and total <= grid["words"]:
                continue  # no larger than either (grid is never larger than best)
            if best is not None and total <= best["words"] and (total < grid_min or not _priced(texty)):
                continue  # smaller than best, and no grid: not worth the facts
            facts = _run_facts(members[0].tag, texty, total)
            if best is None or total > best["words"]:
                best = facts
            if facts["priced"] >= th.T.PRICED and total >= grid_min:
                grid = facts
    return best, grid


def _priced(texty: list[HtmlElement]) -> bool:
    """Whether PRICED of texty show a price (what _run_facts would say, sooner)."""
    need = th.T.PRICED * len(texty)
    seen = 0
    for i, m in enumerate(texty):
        if _PRICE.search(" ".join(m.itertext())[:2000]):
            seen += 1
            if seen >= need:
                return True
        elif seen + len(texty) - i - 1 < need:
            return False
    return seen >= need


def _run_facts(tag: Any, texty: list[HtmlElement], total: int) -> dict[str, Any]:
    titled = priced = dated = 0
    for m in texty:
        head = m.find(".//h2")
        if head is None:
            head = m.find(".//h3")
        if head is None:
            head = m.find(".//h4")
        link = head.find(".//a") if head is not None else None
        if link is None:
            for a in m.iterfind(".//a"):
                if _words(a) >= 3:
                    link = a
                    break
        if link is not None:
            titled += 1
        if _PRICE.search(" ".join(m.itertext())[:2000]):
            priced += 1
        if m.find(".//time") is not None or _AUTHOR.search(
            " ".join(filter(None, (d.get("class") for d in m.iter() if isinstance(d.tag, str))))[:3000]
        ):
            dated += 1
    n = len(texty)
    return {
        "n": n,
        "words": total,
        "avg": total / n,
        "titled": titled / n,
        "priced": priced / n,
        "dated": dated / n,
        "tag": tag,
    }


# The most points add_markup gives each kind (a test holds it to that)
MARKUP_MOST = {"documentation": 2, "collection": 4, "listing": 4, "forum": 2, "product": 2}


def add_markup(tree: HtmlElement, score: dict[str, int], facts: dict[str, Any]) -> None:
    """Points from the page's structure, added to score; facts as in evidence."""
    body = tree.find(".//body")
    if body is None:
        return
    pre = len(body.findall(".//pre"))
    code = len(body.findall(".//code"))
    if pre >= 2 or code >= 8:
        score["documentation"] += 2 if pre >= 4 else 1
    buttons = " ".join(
        filter(
            None,
            (el.get("class") or el.get("id") or el.get("name") or el.get("value") for el in body.iterfind(".//button")),
        )
    )
    buttons += " " + " ".join(
        filter(None, (el.get("name") or el.get("value") or el.get("class") for el in body.iterfind(".//input")))
    )
    buttons += " " + " ".join(b.text_content() for b in body.findall(".//button")[:50])
    cart = bool(_CART.search(buttons))
    body_words = max(1, _words(body))
    group, grid = runs(body, th.T.GRID_SHARE * body_words)
    share = group["words"] / body_words if group is not None else 0
    facts["entries"] = share if group is not None and group["titled"] >= th.T.TITLED else 0
    if group is not None and group["priced"] < th.T.PRICED and share >= th.T.GRID_SHARE:
        # the largest run is not priced (a mega menu's columns, say): a grid of short,
        # priced cards that each lead to their product, a little smaller, is the page's
        # content (a buying guide's long priced reviews are not cards)
        if grid is not None and grid["titled"] >= th.T.TITLED and grid["avg"] <= th.T.CARD_WORDS:
            group, share = grid, grid["words"] / body_words
    if group is not None and share >= th.T.GRID_SHARE and group["priced"] >= th.T.PRICED:
        score["collection"] += 4  # a grid of priced cards: a shop's category
    elif (
        group is not None
        and share >= th.T.RUN_SHARE
        and group["titled"] >= th.T.TITLED
        and group["avg"] <= th.T.CARD_WORDS
    ):
        score["listing"] += 4  # short entries that each lead somewhere by a titled link
    elif (
        group is not None
        and share >= th.T.RUN_SHARE
        and group["dated"] >= th.T.DATED
        and group["avg"] >= th.T.POST_WORDS
    ):
        score["forum"] += 2  # long signed and dated blocks: posts
    if cart and not (group is not None and group["priced"] >= th.T.PRICED):
        score["product"] += 2


def pick(score: dict[str, int]) -> str:
    """The kind with most points; with no evidence at all, article. On a tie article
    wins, unless its evidence is weak (WEAK_ARTICLE): then the other kind names the page
    (a documentation host's pages carry a bare Article type too)."""
    best = max(KINDS, key=lambda k: (score[k], k == "article"))
    if best == "article" and 0 < score[best] <= th.T.WEAK_ARTICLE:
        other = max((k for k in KINDS if k != "article"), key=lambda k: score[k])
        if score[other] == score[best]:
            return other
    return best if score[best] > 0 else "article"
