"""Readable text for people (--output text) and for models (the payload's text field).

Pure functions over result payloads.
"""

DEFAULT_TEXT_CHARS = 20000


def md_link_url(url):
    """A URL safe inside markdown link parentheses."""
    return (url or "").replace(" ", "%20").replace("(", "%28").replace(")", "%29")


def md_link_text(text):
    return " ".join((text or "").split()).replace("[", "\\[").replace("]", "\\]")


def _clip(text, limit):
    if limit is None or len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit - 20)
    if cut < limit // 2:
        cut = text.rfind(" ", 0, limit - 20)
    if cut <= 0:
        cut = limit - 20
    return text[:cut].rstrip() + "\n[... truncated]"


def search_text(payload, max_chars=None):
    lines = []
    results = payload.get("results") or []
    if not results:
        lines.append("No results for %r." % payload.get("query", ""))
    for i, r in enumerate(results, 1):
        title = md_link_text(r.get("title")) or r.get("url", "")
        lines.append("%d. [%s](%s)" % (i, title, md_link_url(r.get("url"))))
        date = r.get("published") or r.get("age")
        if date:
            lines.append("   %s" % date)
        body = r.get("excerpt") or r.get("snippet") or ""
        body = " ".join(body.split())
        if body:
            lines.append("   %s" % body)
        lines.append("")
    warnings = payload.get("warnings") or []
    if warnings:
        lines.append("Warnings:")
        lines.extend("- %s" % w for w in warnings)
        lines.append("")
    lines.append("(%d results from %s)" % (len(results), payload.get("provider")))
    return _clip("\n".join(lines).strip() + "\n", max_chars or DEFAULT_TEXT_CHARS)
