"""The payload's ``text`` field: the answer a host hands to a model unchanged
(and what ``--output text`` prints for people).

Pure functions over result payloads.

Page text is hostile, so the layout keeps what we write and what pages wrote
apart by line position:

* every structural line (``## Sources``, ``## Meta``, ``## Warnings``,
  ``## Page N of M: URL``, a source's ``N. [title](url)`` line, ``status:`` lines, the
  truncation marker) starts at column 0 and is written only by this module;
* a title, URL, date or snippet from the web is folded onto one line (every
  line break, Unicode separators included, becomes a space; control and
  bidi-override characters are dropped) and placed after one of our own line
  prefixes, so it can never begin a line;
* multi-line page text (fetched content) is quoted: every one of its lines is
  written behind ``> `` (a blank line as ``>``), so a page line that reads
  ``## Meta`` or ``2. ...`` arrives as ``> ## Meta``, visibly inside the quote.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

DEFAULT_TEXT_CHARS = 20000
QUOTE = "> "
MAX_TITLE = 200
MAX_URL = 500
MAX_WARNING = 300
MAX_WARNINGS = 20
MIN_BODY = 80  # a source's snippet is never squeezed below this before sources are dropped

# C0/C1 controls (tab and newline are folded before this runs) and bidi overrides/isolates.
# (A deletion table, not a regex: ``re`` would be this module's only reason to load it.)
_UNSAFE = dict.fromkeys(
    [
        *range(0x00, 0x09),
        *range(0x0B, 0x20),
        *range(0x7F, 0xA0),
        0x200E,
        0x200F,
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
    ]
)


def md_link_url(url: str | None) -> str:
    """A URL safe inside markdown link parentheses."""
    return (url or "").replace(" ", "%20").replace("(", "%28").replace(")", "%29")


def md_link_text(text: str | None) -> str:
    return " ".join((text or "").split()).replace("[", "\\[").replace("]", "\\]")


def one_line(value: object, limit: int | None = None) -> str:
    """Untrusted text as one safe line: no line breaks, no control or bidi characters."""
    if value is None:
        return ""
    text = " ".join(str(value).split()).translate(_UNSAFE)
    text = " ".join(text.split())
    if limit is not None and len(text) > limit:
        cut = text.rfind(" ", 0, limit - 3)
        text = text[: cut if cut > limit // 2 else limit - 3].rstrip() + "..."
    return text


def quote(text: object) -> str:
    """Multi-line untrusted text, every line behind the quote prefix."""
    lines = []
    for raw in str(text or "").splitlines():  # splitlines knows every Unicode line boundary
        line = raw.replace("\t", "    ").translate(_UNSAFE).rstrip()
        lines.append(QUOTE + line if line else QUOTE.rstrip())
    return "\n".join(lines)


def _is_iso_datetime(text: str) -> bool:
    """Starts like 2024-11-22T...: an ISO timestamp whose day is all a reader needs."""
    return (
        len(text) > 10
        and text[4] == "-"
        and text[7] == "-"
        and text[10] == "T"
        and (text[:4] + text[5:7] + text[8:10]).isdigit()
    )


def _date(r: dict[str, Any]) -> str:
    published = one_line(r.get("published") or r.get("published_date") or r.get("publishedDate"), 40)
    if _is_iso_datetime(published):
        published = published[:10]  # the day is what a reader needs
    age = one_line(r.get("age"), 40)
    if published and age and age != published:
        return "%s (%s)" % (published, age)
    return published or age


def _source_head(i: int, r: dict[str, Any]) -> list[str]:
    """``N. [Title](url)``: a numbered markdown link people and models both read.

    Brackets in the title are escaped and parentheses and spaces in the URL
    percent-encoded, so neither can end the link early."""
    title = one_line(r.get("title"), MAX_TITLE) or "(untitled)"
    url = one_line(r.get("url"), MAX_URL)
    lines = [
        "%d. [%s](%s)" % (i, md_link_text(title), md_link_url(url)) if url else "%d. %s" % (i, md_link_text(title))
    ]
    date = _date(r)
    if date:
        lines.append("    date: %s" % date)
    return lines


def _source_body(r: dict[str, Any]) -> tuple[str, str]:
    """(label, text) of what a source says: the fetched excerpt, else the search snippet."""
    if r.get("excerpt"):
        return "excerpt", one_line(r.get("excerpt"))
    body = one_line(r.get("snippet") or r.get("summary") or r.get("text") or "")
    if not body and r.get("highlights"):
        body = one_line(" ... ".join(str(h) for h in r["highlights"] if h))
    return "snippet", body


def _excerpt_offsets(r: dict[str, Any]) -> str:
    """Where a focused excerpt's passages are in the page, so a fetch with start_index reads on from one."""
    passages = [p for p in r.get("excerpt_passages") or [] if isinstance(p, dict) and isinstance(p.get("offset"), int)]
    if not passages:
        return ""
    total = r.get("total_chars")
    return "excerpt at characters %s%s (fetch with start_index to read on)" % (
        ", ".join(str(p["offset"]) for p in passages[:10]),
        " of %d" % total if isinstance(total, int) else "",
    )


def _count(value: Any, one: str, many: str) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return "%d %s" % (value, one if value == 1 else many)


def _dev_facts(r: dict[str, Any]) -> str:
    """A developer source's facts in one line: ``github: open issue #7 in octo/demo, 3 comments``."""
    facts: list[str | None] = []
    if r.get("source") == "github" or "github" in (r.get("sources") or ()):
        kind = "pull request" if r.get("kind") == "pull" else "issue"
        number = r.get("number")
        what = " ".join(one_line(x, 40) for x in (r.get("state"), kind) if x)
        if isinstance(number, int) and not isinstance(number, bool):
            what += " #%d" % number
        if r.get("repository"):
            what += " in %s" % one_line(r.get("repository"), 100)
        facts += [what, _count(r.get("comments"), "comment", "comments")]
        updated = one_line(r.get("updated"), 40)
        if updated:
            facts.append("updated %s" % updated[:10])
        return "github: " + ", ".join(f for f in facts if f)
    if r.get("source") == "stackexchange" or "stackexchange" in (r.get("sources") or ()):
        facts.append(_count(r.get("votes"), "vote", "votes"))
        if isinstance(r.get("answered"), bool):
            facts.append("answered" if r["answered"] else "not answered")
        facts.append(_count(r.get("answers"), "answer", "answers"))
        if r.get("accepted_answer"):
            facts.append("accepted answer %s" % one_line(r.get("accepted_answer"), MAX_URL))
        tags = [one_line(t, 40) for t in r.get("tags") or [] if t]
        if tags:
            facts.append("tags %s" % ", ".join(tags[:6]))
        return "stackexchange: " + ", ".join(f for f in facts if f)
    return ""


def _render_source(i: int, r: dict[str, Any], body_limit: int | None, several: bool = False) -> str:
    lines = _source_head(i, r)
    dev = _dev_facts(r)
    if dev:
        lines.append("    " + dev)
    queries = [one_line(q, 100) for q in r.get("queries") or [] if q]
    if several and queries:
        score = r.get("score")
        lines.append(
            "    found by: %s%s" % (" | ".join(queries), " (score %.4f)" % score if isinstance(score, float) else "")
        )
    label, body = _source_body(r)
    if body:
        if body_limit is not None and len(body) > body_limit:
            body = one_line(body, body_limit)
        lines.append("    %s: %s" % (label, body))
        if label == "excerpt":
            where = _excerpt_offsets(r)
            if where:
                lines.append("    " + where)
    err = r.get("fetch_error")
    if isinstance(err, dict):
        lines.append("    page not fetched: %s" % one_line(err.get("code"), 40))
    return "\n".join(lines)


def _meta_section(payload: dict[str, Any], tool: str) -> str:
    meta = payload.get("meta") or {}
    provider = one_line(payload.get("provider"), 80) or "?"
    ptype = one_line(payload.get("provider_type"), 80)
    lines = ["## Meta", "", "provider: %s%s" % (provider, " (%s)" % ptype if ptype and ptype != provider else "")]
    results = payload.get("results") or []
    if tool == "search":
        queries = [one_line(q, 300) for q in payload.get("queries") or () if q]
        query = one_line(payload.get("query"), 300)
        if len(queries) > 1:
            lines.append("queries: %s" % " | ".join(queries))
        elif query:
            lines.append("query: %s" % query)
        sources = [one_line(s, 40) for s in payload.get("sources") or () if s]
        if sources and sources != ["web"]:
            lines.append("sources: %s" % ", ".join(sources))
        fetched = sum(1 for r in results if isinstance(r, dict) and r.get("fetched"))
        tried = sum(1 for r in results if isinstance(r, dict) and "fetched" in r)
        lines.append("results: %d%s" % (len(results), ", %d of %d pages fetched" % (fetched, tried) if tried else ""))
    else:
        ok = sum(1 for r in results if isinstance(r, dict) and r.get("ok"))
        lines.append("pages: %d ok, %d failed" % (ok, len(results) - ok))
    budget = meta.get("budget")
    if isinstance(budget, dict):
        lines.append(budget_line(budget))
    rid = meta.get("request_id") or meta.get("requestId")
    if rid:
        lines.append("request id: %s" % one_line(rid, 100))
    if meta.get("cached"):
        age = meta.get("cache_age_s")
        lines.append("cached: yes%s" % (" (%s s old)" % int(age) if isinstance(age, (int, float)) else ""))
    else:
        lines.append("cached: no")
    return "\n".join(lines)


def budget_line(budget: dict[str, Any]) -> str:
    """How the call's --max-total-chars was spent, in one line."""
    cut = budget.get("cut_pages") or 0
    return "budget: %s of %s characters used over %s page%s (fair share %s); %s" % (
        budget.get("used_chars"),
        budget.get("max_total_chars"),
        budget.get("pages"),
        "" if budget.get("pages") == 1 else "s",
        budget.get("fair_share"),
        "%d cut, each with where to continue" % cut if cut else "nothing cut",
    )


def _warnings_section(payload: dict[str, Any]) -> str:
    warnings = [w for w in (payload.get("warnings") or []) if w]
    if not warnings:
        return ""
    lines = ["## Warnings", ""]
    lines.extend("- %s" % one_line(w, MAX_WARNING) for w in warnings[:MAX_WARNINGS])
    if len(warnings) > MAX_WARNINGS:
        lines.append("- (%d more warnings in the payload)" % (len(warnings) - MAX_WARNINGS))
    return "\n".join(lines)


def _hard_clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    marker = "\n[... truncated to %d characters]\n" % limit
    return text[: max(0, limit - len(marker))].rstrip() + marker


def _fit_sources(results: list[dict[str, Any]], budget: int, several: bool = False) -> list[str]:
    """Rendered sources within ``budget``: shrink snippets evenly first, then drop from the end."""
    rendered = [_render_source(i, r, None, several) for i, r in enumerate(results, 1)]
    if sum(len(s) + 2 for s in rendered) <= budget:
        return rendered
    longest = max(len(_source_body(r)[1]) for r in results)
    limit = longest
    while limit > MIN_BODY:
        limit = max(MIN_BODY, int(limit * 0.8))
        rendered = [_render_source(i, r, limit, several) for i, r in enumerate(results, 1)]
        if sum(len(s) + 2 for s in rendered) <= budget:
            return rendered
    kept = []
    used = 0
    for s in rendered:
        if used + len(s) + 2 > budget - 80:
            break
        kept.append(s)
        used += len(s) + 2
    dropped = len(rendered) - len(kept)
    if dropped:
        kept.append(
            "[%d more source%s not shown here: raise --max-chars or read the results]"
            % (dropped, "" if dropped == 1 else "s")
        )
    return kept


def search_text(payload: dict[str, Any], max_chars: int | None = None) -> str:
    """The LLM-facing text of a search payload, at most ``max_chars`` characters."""
    limit = max_chars or DEFAULT_TEXT_CHARS
    results = [r for r in (payload.get("results") or []) if isinstance(r, dict)]
    tail = [_meta_section(payload, "search")]
    warnings = _warnings_section(payload)
    if warnings:
        tail.append(warnings)
    head = []
    output = payload.get("output")
    answer = output.get("content") if isinstance(output, dict) else None
    if isinstance(answer, str) and answer.strip():
        # a provider-written answer (Exa deep search): quoted, it is built from pages
        head.append("## Answer\n\n" + quote(_hard_clip(answer.strip(), max(200, limit // 3))))
    fixed = sum(len(s) + 2 for s in head + tail) + len("## Sources\n\n")
    if results:
        several = len(payload.get("queries") or ()) > 1
        sources = _fit_sources(results, max(0, limit - fixed), several)
    else:
        sources = ["No results."]
    text = "\n\n".join(head + ["## Sources\n\n" + "\n\n".join(sources)] + tail) + "\n"
    return _hard_clip(text, limit)


# -- fetch ---------------------------------------------------------------------------


def _page_status(item):
    if not item.get("ok"):
        err = item.get("error") if isinstance(item.get("error"), dict) else {}
        return "status: error %s: %s" % (one_line(err.get("code"), 40) or "?", one_line(err.get("message"), 300))
    facts = []
    status = item.get("status") or item.get("http_status")
    if status:
        facts.append("HTTP %s" % one_line(status, 10))
    ctype = item.get("content_type")
    if ctype:
        facts.append(one_line(ctype, 80).split(";")[0])
    if item.get("cached"):
        age = item.get("cache_age_s")
        when = " %d s ago" % age if isinstance(age, (int, float)) else ""
        if item.get("cache") == "stale":  # must read as one: the site failed and this is an older answer
            facts.append("stale copy: the site failed; confirmed%s" % when)
        elif item.get("cache") == "revalidated":
            facts.append("cached, confirmed unchanged by the site now")
        else:
            facts.append("cached%s" % when)
    return "status: ok%s" % (" (%s)" % ", ".join(facts) if facts else "")


def _page_range(item, shown):
    start = item.get("start_index") or 0
    total = item.get("total_chars") or item.get("total_length")
    nxt = item.get("next_start_index")
    if not item.get("truncated") and not start:
        return None, None
    end = nxt if isinstance(nxt, int) and nxt > start else start + shown
    span = "characters %d-%d%s" % (start, end, " of %d" % total if isinstance(total, int) else "")
    marker = None
    if item.get("truncated"):
        marker = "[... truncated: %s shown%s]" % (
            span,
            "; continue with --start-index %d" % nxt if isinstance(nxt, int) else "",
        )
    return span, marker


def fetch_page_text(i: int, n: int, item: dict[str, Any], max_chars: int | None = None) -> str:
    """One URL's section: header, status, title, and the quoted (bounded) text."""
    url = one_line(item.get("url"), MAX_URL)
    lines = ["## Page %d of %d: %s" % (i, n, url), _page_status(item)]
    final = item.get("final_url")
    if final and final != item.get("url"):
        lines.append("final url: %s" % one_line(final, MAX_URL))
    if not item.get("ok") and not item.get("content"):  # a login wall or paywall keeps its public text
        return "\n".join(lines)
    for key, label in (("title", "title"), ("published", "published"), ("author", "author"), ("site_name", "site")):
        value = one_line(item.get(key), MAX_TITLE)
        if value:
            lines.append("%s: %s" % (label, value))
    if item.get("rendered"):  # the text is what a browser built (worker.pages.render)
        lines.append("rendered: in a browser, %d ms" % (item.get("render_ms") or 0))
    for w in (item.get("warnings") or [])[:5]:
        lines.append("warning: %s" % one_line(w, MAX_WARNING))
    lines += find_lines(item)
    content = item.get("content") or item.get("text") or ""
    if not isinstance(content, str):
        content = str(content)
    if item.get("focused") and isinstance(item.get("passages"), list) and content:
        lines.append("")
        lines.append(focused_text(item, content))
        return "\n".join(lines)
    cut_marker = None
    if max_chars is not None and len(content) > max_chars:
        cut = content.rfind("\n", 0, max_chars)
        if cut < max_chars // 2:
            cut = content.rfind(" ", 0, max_chars)
        content = content[: cut if cut > 0 else max_chars].rstrip()
        cut_marker = "[... truncated here to %d characters; the payload's content field has more]" % len(content)
    _, marker = _page_range(item, len(content))
    lines.append("")
    lines.append(quote(content) if content.strip() else "(no text extracted)")
    for m in (cut_marker, marker):
        if m:
            lines.append(m)
    return "\n".join(lines)


def find_lines(item: dict[str, Any]) -> list[str]:
    """--find: each text's count, then each match's offset, section and context (one line each)."""
    lines = []
    for entry in item.get("find") or []:
        if not isinstance(entry, dict):
            continue
        count = entry.get("count") or 0
        matches = [m for m in entry.get("matches") or [] if isinstance(m, dict)]
        shown = "; the first %d listed" % len(matches) if len(matches) < count else ""
        lines.append(
            'find "%s": %d match%s%s%s'
            % (
                one_line(entry.get("text"), 200),
                count,
                "" if count == 1 else "es",
                shown,
                " (an offset is a --start-index to read from)" if matches else "",
            )
        )
        for m in matches:
            where = one_line(m.get("section"), 80)
            lines.append(
                "    at %s%s: %s"
                % (m.get("offset"), ' (in "%s")' % where if where else "", one_line(m.get("context"), 400))
            )
    return lines


def focused_text(item: dict[str, Any], content: str) -> str:
    """A focused page: each passage quoted under a line that says where it is and how to read on."""
    from ..pages.answer import focus

    start = item.get("start_index") or 0
    total = item.get("total_chars")
    passages = item["passages"]
    out = []
    for passage, text in zip(passages, focus.parts(content, passages, start)):
        offset, length = passage.get("offset", 0), passage.get("length", 0)
        section = one_line(passage.get("section"), MAX_TITLE)
        out.append(
            "[passage: characters %d-%d%s%s; --start-index %d reads on from here]"
            % (
                offset,
                offset + length,
                " of %d" % total if isinstance(total, int) else "",
                ', in "%s"' % section if section else "",
                offset,
            )
        )
        out.append(quote(text))
    nxt = item.get("next_start_index")
    out.append(
        "[... focused: %d passage%s, %d of %s characters shown%s]"
        % (
            len(passages),
            "" if len(passages) == 1 else "s",
            sum(p.get("length", 0) for p in passages),
            total if isinstance(total, int) else "?",
            "; after the last, --start-index %d" % nxt if isinstance(nxt, int) else "",
        )
    )
    return "\n".join(out)


def fetch_text(payload: dict[str, Any], max_chars: int | None = None) -> str:
    """The LLM-facing text of a fetch payload: one clearly separated section per URL.

    ``max_chars`` bounds each page's quoted text (the content itself is already
    bounded by fetch's --max-chars).
    """
    items = [r for r in (payload.get("results") or []) if isinstance(r, dict)]
    sections = [fetch_page_text(i, len(items), item, max_chars) for i, item in enumerate(items, 1)]
    sections.append(_meta_section(payload, "fetch"))
    warnings = _warnings_section(payload)
    if warnings:
        sections.append(warnings)
    return "\n\n".join(sections) + "\n"
