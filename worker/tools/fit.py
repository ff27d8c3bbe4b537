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
OUTLINE_SHARE = 5  # with a call budget, a cut page's description and outline get at most 1/5 of its share
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


def _titles_weight(outline: list[dict[str, Any]]) -> int:
    return sum(weight(str(o.get("title", ""))) for o in outline)


def _outline_within(outline: list[dict[str, Any]], room: int) -> list[dict[str, Any]]:
    """The outline's entries whose titles fit ``room`` (by ``weight``), the top levels first."""
    levels = sorted({o.get("level", 1) for o in outline}, reverse=True)
    for depth in levels:
        kept = [o for o in outline if o.get("level", 1) <= depth]
        if _titles_weight(kept) <= room:
            return kept
    kept, used = [], 0
    for o in outline:
        if o.get("level", 1) > levels[-1]:
            continue
        used += weight(str(o.get("title", "")))
        if used > room:
            break
        kept.append(o)
    return kept


def _clip(text: str, room: int) -> str:
    """``text`` within ``room`` (by ``weight``), cut at a space where one is near, with "..." when cut."""
    if weight(text) <= room:
        return text
    cut = text[: max(0, room * len(text) // max(1, weight(text)) - 3)]
    space = cut.rfind(" ")
    return (cut[:space] if space > len(cut) // 2 else cut).rstrip() + "..."


def _trim_extras(item: dict[str, Any], room: int) -> int:
    """The page's description and outline cut to ``room`` between them (in place); what they now weigh."""
    description = item.get("description")
    if isinstance(description, str):
        item["description"] = _clip(description, room // 2)
        room -= weight(item["description"])
    if item.get("outline"):
        item["outline"] = _outline_within(item["outline"], room)
    return _extras(item)


def _extras(item: dict[str, Any]) -> int:
    """What a page's description and outline titles weigh: the budget counts them with the text."""
    description = item.get("description")
    return (weight(description) if isinstance(description, str) else 0) + _titles_weight(item.get("outline") or [])


def _view(item: dict[str, Any], text: str, focus: str | None, limit: int) -> dict[str, Any]:
    """The item showing at most ``limit`` characters of ``text`` (its content from start_index on)."""
    from ..pages.answer import focus as focus_mod
    from ..pages.answer import window

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

    With ``focus`` each page shows its most relevant passages (worker.pages.answer.focus).
    """
    items = list(items)  # cut pages are replaced by copies: the caller's list stays as it was
    readable = [
        i for i, it in enumerate(items) if isinstance(it, dict) and isinstance(it.get("content"), str) and it["content"]
    ]
    texts = [items[i]["content"] for i in readable]
    shown = [min(len(t), max_chars) for t in texts]
    limits = shown
    if total is not None:
        # A page's description and outline titles are sent too: they share its part of the budget,
        # at most a fifth of it when the page is cut.
        extras = [_extras(items[i]) for i in readable]
        demands = [weight(t[:n]) + x for t, n, x in zip(texts, shown, extras)]
        parts = shares(demands, total)
        limits = []
        for k, (i, n, d, part) in enumerate(zip(readable, shown, demands, parts)):
            if part >= d:
                limits.append(n)
                continue
            item = items[i] = dict(items[i])
            spent = _trim_extras(item, part // OUTLINE_SHARE)
            text_weight = d - extras[k]
            limits.append(n * max(0, part - spent) // max(1, text_weight))
    out = items
    for i, limit in zip(readable, limits):
        out[i] = _view(items[i], items[i]["content"], focus, limit)
    if total is None:
        return out, None
    used = sum(weight(out[i]["content"]) + _extras(out[i]) for i in readable)
    account = {
        "max_total_chars": total,
        "used_chars": used,  # counted as the budget counts: a CJK character as WIDE_WEIGHT
        "pages": len(readable),
        "fair_share": total // len(readable) if readable else total,
        "cut_pages": sum(1 for i in readable if out[i].get("truncated")),
    }
    return out, account
