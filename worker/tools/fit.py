"""Fetched pages fitted to what the call asked for: focused passages, and one budget for the whole call.

Pure functions over fetch items whose ``content`` is the page's whole text from
``start_index`` on (the fetch tool asks its provider for all of it when --focus
or --max-total-chars is given, so the cache holds the page once for any focus).
Every page that is cut keeps ``next_start_index``; offsets are the whole text's.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

FULL_CHARS = 2_000_000  # what the provider is asked for; a longer page keeps the provider's own cut
OUTLINE_SHARE = 5  # with a call budget, a page's outline titles get at most 1/5 of its share
NO_MATCH = "no passage mentions the focus; the page's start is shown"
# A CJK character costs a model about four Latin ones (0.99-1.12 tokens against 0.21-0.25 for
# English prose, docs/focus.md): it counts four toward a budget, so one budget holds for both.
WIDE_WEIGHT = 4
WIDE = "[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]"


def weight(text: str) -> int:
    """What ``text`` counts toward a budget: its characters, a CJK one as WIDE_WEIGHT."""
    import re  # here: importing fit costs nothing until a budget is counted

    return len(text) + (WIDE_WEIGHT - 1) * len(re.findall(WIDE, text))


def char_limits(texts: list[str], max_chars: int, total: int | None) -> list[int]:
    """Each text's limit in characters: ``max_chars``, and its fair share of ``total`` (counted by ``weight``)."""
    shown = [min(len(t), max_chars) for t in texts]
    if total is None:
        return shown
    demands = [weight(t[:n]) for t, n in zip(texts, shown)]
    out = []
    for n, d, share in zip(shown, demands, shares(demands, total)):
        out.append(n if share >= d else n * share // d)
    return out


def shares(demands: list[int], total: int) -> list[int]:
    """A fair split of ``total`` over pages that want ``demands``: the smallest are served whole
    first, and what a short page leaves goes to the others (max-min fairness)."""
    out = [0] * len(demands)
    left = total
    order = sorted(range(len(demands)), key=lambda i: demands[i])
    for rank, i in enumerate(order):
        out[i] = min(demands[i], left // (len(demands) - rank))
        left -= out[i]
    return out


def _outline_within(outline: list[dict[str, Any]], room: int) -> list[dict[str, Any]]:
    """The outline's entries whose titles fit ``room`` characters, the top levels first."""
    for depth in (6, 3, 2, 1):
        kept = [o for o in outline if o.get("level", 1) <= depth]
        if sum(len(str(o.get("title", ""))) for o in kept) <= room:
            return kept
    kept, used = [], 0
    for o in outline:
        if o.get("level", 1) > 1:
            continue
        used += len(str(o.get("title", "")))
        if used > room:
            break
        kept.append(o)
    return kept


def _view(item: dict[str, Any], text: str, focus: str | None, limit: int) -> dict[str, Any]:
    """The item showing at most ``limit`` characters of ``text`` (its content from start_index on)."""
    from ..pages import focus as focus_mod
    from ..pages import window

    base = int(item.get("start_index") or 0)
    out = dict(item)
    view = focus_mod.focused(text, focus, limit, base) if focus else None
    if view is not None:
        out["content"] = view["content"]
        out["passages"] = view["passages"]
        nxt = view["next_start_index"]
        out["focused"] = True
    else:
        piece, _, rel = window.window(text, 0, limit)
        out["content"] = piece
        nxt = None if rel is None else base + rel
        if focus:
            out["focused"] = False
            out["warnings"] = list(item.get("warnings") or []) + [NO_MATCH]
    if nxt is None and item.get("truncated"):  # the provider cut the page (past FULL_CHARS): its own next
        nxt = item.get("next_start_index")
    out["truncated"] = nxt is not None
    out["next_start_index"] = nxt
    return out


def fit_items(
    items: list[dict[str, Any]], focus: str | None, max_chars: int, total: int | None
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """(items cut to ``max_chars`` each and ``total`` in all, the budget's account or None).

    With ``focus`` each page shows its most relevant passages (worker.pages.focus).
    """
    readable = [
        i for i, it in enumerate(items) if isinstance(it, dict) and isinstance(it.get("content"), str) and it["content"]
    ]
    limits = char_limits([items[i]["content"] for i in readable], max_chars, total)
    out = list(items)
    for i, limit in zip(readable, limits):
        item = _view(items[i], items[i]["content"], focus, limit)
        if total is not None and item.get("outline"):
            item["outline"] = _outline_within(item["outline"], max(limit // OUTLINE_SHARE, 200))
        out[i] = item
    if total is None:
        return out, None
    used = sum(weight(out[i]["content"]) for i in readable)
    account = {
        "max_total_chars": total,
        "used_chars": used,  # counted as the budget counts: a CJK character as WIDE_WEIGHT
        "pages": len(readable),
        "fair_share": total // len(readable) if readable else total,
        "cut_pages": sum(1 for i in readable if out[i].get("truncated")),
    }
    return out, account
