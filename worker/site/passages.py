"""The passages of several pages that answer one question, ranked across the pages, within one budget.

Pure functions.  Each page's blocks are scored by worker.pages.answer.focus (the question's terms
in the block, in the headings above it, in the block before it), each term weighing less the
more of the blocks of all the pages read hold it, and the more of the pages (``term_weights``);
a block then counts
more the better its page ranked for the question (worker.site.rank): a page that ranks
near the best one multiplies its blocks' scores by up to ``1 + PAGE_BOOST``, unless it is a
site's single-page edition of other pages read (``compilations``).  The best
blocks are taken until the budget is spent, each given as plain text (worker.site.plain),
a description with the API signature right above it, with its page, the section it sits
in and its offset in the page's markdown, so ``fetch URL --start-index OFFSET`` reads on from it.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Sequence
    from typing import Any

PAGE_BOOST = 3.0  # how much a page's rank lifts its blocks
# (page score / best page score) ** this: pages well behind the best lift little. 1.5, not 3: the
# best page's blocks crowded out the answer on a page close behind it (replayed on seven sites'
# crawls: 10 answers more, one fewer, 2026-12-01)
PAGE_POWER = 1.5
MAX_TRIED = 400  # blocks tried for the budget
MIN_LEFT = 40  # stop when less budget than this is left
TITLE_MAX = 120


def _section(text: str, outline: Any, start: int) -> str | None:
    """The title of the section ``start`` is in (its nearest heading above), or None."""
    from ..pages.answer.focus import HEADING

    h = outline.at(start)
    if h < 0 or outline.starts[h] >= start:
        if h >= 0 and outline.starts[h] == start:
            h -= 1  # a heading's own passage: its parent section
        if h < 0:
            return None
    m = HEADING.match(text, outline.starts[h])
    if not m:
        return None
    from .plain import plain

    return " ".join(plain(m.group().lstrip("#")).split())[:TITLE_MAX] or None


SITE_FLOOR = 0.5  # the weight a query term on every page read keeps (one on a single page keeps all of it)


def term_weights(texts: Sequence[str], query: str) -> dict[str, float]:
    """{term: factor} for the query's terms by how many of the pages hold them (an idf over the
    pages read): a term on every page (the site's own name, the section's topic) tells the
    pages' passages apart by little; SITE_FLOOR is the least a term keeps."""
    import math

    from ..pages.answer import focus

    words = focus.terms(query)
    n = len(texts)
    if n < 2 or not words:
        return {}
    lows = [t.lower() for t in texts]
    top = math.log(1 + (n - 0.5) / 1.5)
    out = {}
    for w in words:
        df = sum(1 for low in lows if w in low)
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        out[w] = SITE_FLOOR + (1 - SITE_FLOOR) * min(1.0, idf / top)
    return out


# A page that holds most of the paragraphs of COMPILES or more other pages read is a site's
# single-page edition (Node's all.html, Sphinx's singlehtml, mdBook's print.html)
COMPILES = 2
HOLDS = 0.5  # the share of another page's paragraphs it must hold
KEY_WORDS = 12  # a paragraph is known by its first words (one with fewer is not counted)
_KEY_LINK = re.compile(r"\]\([^)\s]*\)")  # a link's address: its page's markdown has it, a flat text not
_KEY_WORD = re.compile(r"[^\W_]+")


def _paragraph_keys(text: str) -> set[str]:
    """The first KEY_WORDS words of each of the text's paragraphs, lower case, without link addresses."""
    out = set()
    for para in text.split("\n\n"):
        if len(para) < 4 * KEY_WORDS:
            continue
        words = _KEY_WORD.findall(_KEY_LINK.sub("]", para[: 30 * KEY_WORDS].lower()))
        if len(words) >= KEY_WORDS:
            out.add(" ".join(words[:KEY_WORDS]))
    return out


def compilations(texts: Sequence[str]) -> set[int]:
    """The indexes of the pages that are a single-page edition of others read with them: their
    passages are those pages' too, and their rank (they say every question's words) is no sign
    that a passage of theirs answers."""
    keys = [_paragraph_keys(t) for t in texts]
    out = set()
    for i, mine in enumerate(keys):
        held = 0
        for j, theirs in enumerate(keys):
            if j == i or not theirs:
                continue
            both = len(theirs & mine)
            if both >= HOLDS * len(theirs) and both < HOLDS * len(mine):
                held += 1  # not a copy of the same page (the one holds most of the other, and not the reverse)
        if held >= COMPILES:
            out.add(i)
    return out


def rank(
    texts: Sequence[str],
    query: str,
    budget: int,
    page_scores: Sequence[float] | None = None,
) -> list[dict[str, Any]]:
    """The passages of ``texts`` (pages' markdown) for ``query`` within ``budget`` (counted as
    worker.tools.fit.weight counts), best first: ``{"page": index, "offset", "length",
    "section", "text", "score"}``."""
    from ..pages.answer import focus, window
    from ..tools.fit import weight
    from .plain import in_code_at, plain

    scores = list(page_scores) if page_scores is not None else [0.0] * len(texts)
    for i in compilations(texts) if len(texts) > COMPILES else ():
        scores[i] = 0.0  # its blocks compete on their own words, unlifted
    top = max(scores) if scores else 0.0
    candidates: list[tuple[float, int, int, int]] = []
    outlines = []
    sigs: list[set[tuple[int, int]]] = []
    weights = term_weights(texts, query)
    found = [focus.Hits(text, query) for text in texts]
    # One idf over the blocks of all the pages read: a page's own would weigh a term most where
    # it is rare, in the pages least about it (a changelog's one line on the question's topic)
    shared = focus.idf([sum(col) for col in zip(*(h.df for h in found))], sum(h.n for h in found))
    for i, text in enumerate(texts):
        blocks, outline = focus.score(text, query, weights, found[i], shared)
        outlines.append(outline)
        sigs.append(set(outline.signatures))
        rel = (max(0.0, scores[i]) / top) ** PAGE_POWER if top > 0 else 0.0
        lift = 1.0 + PAGE_BOOST * rel
        for (start, end), s in blocks.items():
            candidates.append((s * lift, i, start, end))
    candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    signed: set[tuple[int, int]] = set()  # (page, signature's offset) already shown
    used = 0
    for s, i, start, end in candidates[:MAX_TRIED]:
        if budget - used < MIN_LEFT:
            break
        text = texts[i]
        if (i, start) in signed:
            continue  # a signature line shown already, above its description
        sig = focus.signature_above(text, outlines[i], start, end)
        if sig is not None and (i, sig[0]) not in signed:
            shown = plain(text[sig[0] : end], in_code_at(text, sig[0])).strip()
            if weight(shown) <= budget - used:
                start = sig[0]  # a description under its API signature, as the page shows it
            else:
                sig = None
        else:
            sig = None
        shown = plain(text[start:end], in_code_at(text, start)).strip()
        key = " ".join(shown.split()).lower()
        if not key or key in seen:
            continue  # the same words on another page (a shared note, a repeated example)
        cost = weight(shown)
        if cost > budget - used:
            if out:
                continue
            shown, _, _ = window.window(shown, 0, max(0, (budget - used) * len(shown) // max(1, cost)))
            cost = weight(shown)
            if not shown:
                continue
        seen.add(key)
        if sig is not None or (start, end) in sigs[i]:
            signed.add((i, start))
        used += cost
        out.append(
            {
                "page": i,
                "offset": start,
                "length": end - start,
                "section": _section(text, outlines[i], start),
                "text": shown,
                "score": round(s, 2),
            }
        )
    return out
