"""Several ranked lists made one: reciprocal rank fusion, one entry per canonical URL.

Pure functions, standard library only.  Each list is what one query found on one
source; a result's score is the sum, over the lists that hold it, of
``1 / (K + rank)`` (rank 1 is a list's first result; K = 60, the constant of Cormack,
Clarke and Buettcher's RRF paper and of most engines that fuse lists since).  A page
second in three lists (3/62 = 0.0484) so ranks above one first in a single list
(1/61 = 0.0164): agreement between phrasings counts for more than one list's top spot.

Copies of one page (canonical.canonical_key) become one result: the fields of its
best-ranked copy, with what the other copies add (a GitHub result's state on a web
result for the same issue), the queries that found it in the call's order, and its
sources.  Ties keep the order of first appearance.
"""

from __future__ import annotations

from .canonical import canonical_key

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any, Sequence

    # (source, query, results) of one list, in the call's order
    Ranked = tuple[str, str, Sequence[Any]]

K = 60
DIGITS = 6  # a score's decimals: 1/61 = 0.016393


class _Entry:
    __slots__ = ("best", "copies", "first", "queries", "score", "sources")

    def __init__(self, first: int) -> None:
        self.first = first  # position of first appearance: the tie-break
        self.best: tuple[int, int] = (1 << 30, 0)  # (rank, list index) of the best-ranked copy
        self.copies: list[tuple[tuple[int, int], dict[str, Any], str]] = []
        self.queries: list[str] = []
        self.sources: list[str] = []
        self.score = 0.0


def fuse(
    lists: Sequence[Ranked], k: int = K, cap: int | None = None, mark_source: bool = True
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(merged results, best first; facts for the payload's meta) from ``lists``.

    Every result gains ``score``, ``queries`` and, with ``mark_source``, ``source`` (its
    best copy's) and ``sources`` when more than one source found it.  ``cap`` bounds the
    merged list.
    """
    entries: dict[str, _Entry] = {}
    candidates = 0
    for index, (source, query, results) in enumerate(lists):
        rank = 0
        seen: set[str] = set()
        for r in results:
            if not isinstance(r, dict):
                continue
            key = canonical_key(r.get("url"))
            if not key or key in seen:  # one list names a page once
                continue
            seen.add(key)
            rank += 1
            candidates += 1
            entry = entries.get(key)
            if entry is None:
                entry = entries[key] = _Entry(len(entries))
            entry.score += 1.0 / (k + rank)
            entry.copies.append(((rank, index), r, source))
            entry.best = min(entry.best, (rank, index))
            if query not in entry.queries:
                entry.queries.append(query)
            if source not in entry.sources:
                entry.sources.append(source)
    order = sorted(entries.values(), key=lambda e: (-round(e.score, 12), e.best, e.first))
    merged = []
    for entry in order[:cap] if cap is not None else order:
        out: dict[str, Any] = {}
        for _where, copy, _source in sorted(entry.copies, key=lambda c: c[0], reverse=True):
            out.update(copy)  # the best-ranked copy last: its fields win
        best_source = min(entry.copies, key=lambda c: c[0])[2]
        if mark_source:
            out["source"] = best_source
            if len(entry.sources) > 1:
                out["sources"] = list(entry.sources)
        out["queries"] = list(entry.queries)
        out["score"] = round(entry.score, DIGITS)
        merged.append(out)
    facts = {
        "method": "rrf",
        "k": k,
        "lists": len(lists),
        "candidates": candidates,
        "distinct": len(entries),
        "found_by_several": sum(1 for e in entries.values() if len(e.copies) > 1),
    }
    return merged, facts
