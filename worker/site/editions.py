"""A site's single-page editions (Node's all.html, mdBook's print.html, Sphinx's singlehtml),
found in the map before any page is read.

Pure functions over the map's records (worker.site.mapper: each page's word counts, ``bag``,
and its number of words). Such a page says every question's words, so it ranks near the top
of every crawl; reading it costs the most of any page (Node's all.html: 8 MB of HTML, seconds
of extraction, half the text the passages are ranked over) and gives back passages the pages
it holds give too (worker.site.passages.compilations finds them again once read).

A page is an edition of others when it holds them: each of at least HOLDS_PAGES pages of the
map has COVER of its words' occurrences counted at least as often in the page, and those
pages' words add up to at least HELD_SHARE of the page's own. The second condition keeps a
long reference page whose vocabulary holds a few short pages' (an introduction, a glossary):
those make little of its words. And an edition holds its pages side by side: taken together,
their word occurrences are counted in it JOINT of the time. Pages that merely share a long
page's words each find them there, not all at once: Git's git-config.html names every word of
55 command pages whose settings it repeats (64% of their words together), and git-log.html
those of git-rev-list.html, git-show.html and git-diff-tree.html, which share its options
(39%); Node's all.html holds its modules at 95%.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Iterable, Sequence
    from typing import Any

COVER = 0.9  # the share of a page's word occurrences an edition holds as often
HOLDS_PAGES = 2  # the pages an edition must hold (as worker.site.passages.COMPILES)
HELD_SHARE = 0.5  # the share of the edition's words the pages it holds make
CANDIDATES = 3  # only the longest pages are asked: an edition is longer than what it holds
MIN_WORDS = 50  # a page shorter than this (a redirect's stub, a nav page) counts for none
PREFILTER = 0.6  # the share of a page's distinct words an edition's bag must name (a set test in C)
JOINT = 0.8  # the share of the held pages' word occurrences, summed, an edition counts as often


def _bag(record: dict[str, Any] | None) -> tuple[dict[str, int], int] | None:
    if not record:
        return None
    bag, words = record.get("bag"), record.get("words")
    if not isinstance(bag, dict) or not bag or not isinstance(words, int) or words < MIN_WORDS:
        return None
    return bag, words


def holds(big: dict[str, int], small: dict[str, int], cover: float = COVER) -> bool:
    """Whether ``big`` counts ``cover`` of ``small``'s word occurrences at least as often."""
    if len(small.keys() & big.keys()) < PREFILTER * len(small):
        return False
    allowed = (1 - cover) * sum(small.values())
    missing = 0
    get = big.get
    for t, c in small.items():
        have = get(t, 0)
        if have < c:
            missing += c - have
            if missing > allowed:
                return False
    return True


def editions(records: Sequence[dict[str, Any] | None]) -> set[int]:
    """The indexes of the records whose pages are single-page editions of other pages of the map."""
    known = [(i, b[0], b[1]) for i, b in ((i, _bag(r)) for i, r in enumerate(records)) if b is not None]
    if len(known) <= HOLDS_PAGES:
        return set()
    out = set()
    for i, big, words in sorted(known, key=lambda k: -k[2])[:CANDIDATES]:
        held = [(bag, w) for j, bag, w in known if j != i and w < words and holds(big, bag)]
        if len(held) >= HOLDS_PAGES and sum(w for _, w in held) >= HELD_SHARE * words:
            if holds(big, _summed(bag for bag, _ in held), JOINT):
                out.add(i)
    return out


def _summed(bags: Iterable[dict[str, int]]) -> dict[str, int]:
    """The word counts of several pages added up: the pages side by side."""
    out: dict[str, int] = {}
    for bag in bags:
        for t, c in bag.items():
            out[t] = out.get(t, 0) + c
    return out
