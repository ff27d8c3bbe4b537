"""The ``text`` field of a map and of a crawl (worker.tools.textview's rules: what we write starts a
line, what a site wrote is folded onto one line or quoted)."""

from __future__ import annotations

from .textview import MAX_WARNING, MAX_WARNINGS, budget_line, md_link_text, md_link_url, one_line, quote

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any


def _warnings(payload: dict[str, Any]) -> list[str]:
    warnings = [w for w in (payload.get("warnings") or []) if w]
    if not warnings:
        return []
    lines = ["", "## Warnings", ""]
    lines.extend("- %s" % one_line(w, MAX_WARNING) for w in warnings[:MAX_WARNINGS])
    if len(warnings) > MAX_WARNINGS:
        lines.append("- (%d more warnings in the payload)" % (len(warnings) - MAX_WARNINGS))
    return lines


def map_text(payload: dict[str, Any]) -> str:
    """``## Map of HOST/PREFIX: N pages``, then one ``- [title](url) (sources)`` line a page."""
    scope = payload.get("scope") or {}
    where = one_line(scope.get("host"), 200) + (
        one_line(scope.get("prefix"), 300) if scope.get("mode") == "section" else ""
    )
    pages = payload.get("results") or []
    lines = ["## Map of %s: %d page%s" % (where, len(pages), "" if len(pages) == 1 else "s"), ""]
    for page in pages:
        title = md_link_text(one_line(page.get("title"), 200)) or "(no title)"
        found = ", ".join(one_line(f, 20) for f in page.get("found") or ())
        lines.append("- [%s](%s) (%s)" % (title, md_link_url(one_line(page.get("url"), 500)), found))
    meta = payload.get("meta") or {}
    lines += ["", "## Meta", ""]
    sources = meta.get("sources") or {}
    if sources:
        lines.append("found by: %s" % ", ".join("%s %s" % (one_line(k, 20), v) for k, v in sources.items()))
    lines.append("requests: %s, from the cache: %s" % (meta.get("requests", 0), meta.get("cached", 0)))
    lines.extend(_warnings(payload))
    return "\n".join(lines) + "\n"


def crawl_text(payload: dict[str, Any]) -> str:
    """A crawl's answer: the passages ranked across pages, each under a line naming its page,
    section and offset (or, without a focus, the pages in map order), then what was read."""
    crawl = payload.get("crawl") or {}
    lines = []
    passages = payload.get("passages")
    if passages is not None:
        lines.append(
            "## Passages for %s from %d pages of %s"
            % (
                '"%s"' % one_line(crawl.get("focus"), 300),
                crawl.get("read", 0),
                one_line(crawl.get("scope"), 300),
            )
        )
        if not passages:
            lines += ["", "no passage of the pages read mentions the focus"]
        for i, p in enumerate(passages, 1):
            lines.append("")
            section = one_line(p.get("section"), 200)
            lines.append(
                "passage %d: %s -- %s%s; --start-index %s reads on"
                % (
                    i,
                    md_link_url(one_line(p.get("url"), 500)),
                    one_line(p.get("title"), 200) or "(no title)",
                    ' > "%s"' % section if section else "",
                    p.get("offset"),
                )
            )
            lines.append(quote(p.get("text")))
    else:
        lines.append("## %d pages of %s in map order" % (crawl.get("read", 0), one_line(crawl.get("scope"), 300)))
        for i, item in enumerate(payload.get("results") or (), 1):
            lines.append("")
            lines.append("### Page %d: %s" % (i, md_link_url(one_line(item.get("url"), 500))))
            if not item.get("ok"):
                err = item.get("error") or {}
                lines.append(
                    "status: error (%s): %s" % (one_line(err.get("code"), 40), one_line(err.get("message"), 300))
                )
                continue
            lines.append("title: %s" % one_line(item.get("title"), 200))
            lines.append(quote(item.get("content")))
            if item.get("next_start_index") is not None:
                lines.append(
                    "[... truncated: %s of %s characters shown; continue with --start-index %s]"
                    % (len(item.get("content") or ""), item.get("total_chars"), item.get("next_start_index"))
                )
    meta = payload.get("meta") or {}
    lines += ["", "## Meta", ""]
    lines.append(
        "pages: %s mapped, %s read (%s failed)" % (crawl.get("mapped", 0), crawl.get("read", 0), crawl.get("failed", 0))
    )
    for url in crawl.get("editions") or ():
        lines.append("not read, a single-page edition of pages read or mapped: %s" % url)
    budget = meta.get("budget")
    if isinstance(budget, dict) and passages is not None:
        lines.append(
            "budget: %s of %s characters used by %d passages"
            % (budget.get("used_chars"), budget.get("max_total_chars"), len(passages))
        )
    elif isinstance(budget, dict):
        lines.append(budget_line(budget))
    lines.extend(_warnings(payload))
    return "\n".join(lines) + "\n"
