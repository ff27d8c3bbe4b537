"""Stack Exchange questions through the public API (no key): the question and every answer.

Answers come accepted first, then by score, each with score, author and date;
post bodies are the API's HTML, turned to markdown with code blocks verbatim.
"""

from urllib.parse import quote

from . import Doc, Fallback
from .markup import heading, html_to_text, iso_date

NAME = "stackexchange"
API = "https://api.stackexchange.com/2.3"
MAX_PAGES = 10  # 100 answers a page
# host -> the API's "site" parameter, where it is not the host's first label
SITES = {"stackoverflow.com": "stackoverflow", "superuser.com": "superuser", "serverfault.com": "serverfault",
         "askubuntu.com": "askubuntu", "mathoverflow.net": "mathoverflow"}


def site_param(host):
    host = host.lower()
    if host.startswith("www."):
        host = host[4:]
    if host in SITES:
        return SITES[host]
    if host.endswith(".stackexchange.com"):
        return host[:-len(".stackexchange.com")]
    if host.endswith(".stackoverflow.com"):  # meta.stackoverflow.com, pt.stackoverflow.com
        return host[:-len(".com")]
    return host  # a configured host: the API accepts a site's domain as its parameter


def question_id(path):
    segs = [s for s in path.split("/") if s]
    if len(segs) >= 2 and segs[0] in ("questions", "q") and segs[1].isdigit():
        return segs[1]
    return None


def _why(resp, data, what):
    err = data if isinstance(data, dict) else {}
    name = err.get("error_name") or ""
    if resp.status == 429 or name == "throttle_violation" or err.get("error_id") == 502:
        return Fallback("stackexchange: API throttled (%s)" % (err.get("error_message") or "HTTP %d" % resp.status)[:200])
    if name:
        return Fallback("stackexchange: API error %s for %s" % (name, what))
    return Fallback("stackexchange: the API answered HTTP %d for %s" % (resp.status, what))


def _get(ctx, url, what):
    resp, data = ctx.json(url, what)
    if resp.status >= 400 or not isinstance(data, dict) or "error_id" in data:
        raise _why(resp, data, what)
    if not isinstance(data.get("items"), list):
        raise Fallback("stackexchange: the API's answer for %s has no items" % what)
    return data


def ordered(answers):
    """Accepted first, then by score (highest first), then oldest first."""
    return sorted(answers, key=lambda a: (not a.get("is_accepted"), -int(a.get("score") or 0),
                                          int(a.get("creation_date") or 0)))


def _who(post):
    owner = post.get("owner") if isinstance(post.get("owner"), dict) else {}
    import html

    return html.unescape(str(owner.get("display_name") or "(unknown)"))


def thread_text(q, answers, md):
    import html

    title = html.unescape(str(q.get("title") or ""))
    lines = [heading(1, title, md), ""]
    facts = ["Score: %s" % q.get("score", 0), "Asked by %s on %s" % (_who(q), iso_date(q.get("creation_date")) or "?")]
    if q.get("tags"):
        facts.append("Tags: %s" % ", ".join(str(t) for t in q["tags"]))
    lines += [("- " if md else "") + f for f in facts] + ["", html_to_text(q.get("body") or "", md)]
    lines += ["", heading(2, "%d answer%s" % (len(answers), "" if len(answers) == 1 else "s"), md)]
    for a in answers:
        mark = "Accepted answer" if a.get("is_accepted") else "Answer"
        lines += ["", heading(3, "%s (score %s) by %s on %s" % (mark, a.get("score", 0), _who(a),
                                                                iso_date(a.get("creation_date")) or "?"), md), "",
                  html_to_text(a.get("body") or "", md)]
    return "\n".join(lines).strip() + "\n"


def read(ctx, url, parts):
    qid = question_id(parts.path)
    if qid is None:
        raise Fallback("stackexchange: %s is not a question URL" % url)
    base = ctx.base("apiBase", API)
    site = quote(site_param(parts.hostname or ""), safe="")
    ctx.meta["api"] = base
    data = _get(ctx, "%s/questions/%s?site=%s&filter=withbody" % (base, qid, site), "question %s" % qid)
    if not data["items"] or not isinstance(data["items"][0], dict):
        raise Fallback("stackexchange: the API has no question %s on %s" % (qid, site))
    q = data["items"][0]
    answers, page, cut = [], 1, False
    while True:
        got = _get(ctx, "%s/questions/%s/answers?site=%s&filter=withbody&sort=votes&order=desc&pagesize=100&page=%d"
                   % (base, qid, site, page), "the answers of %s" % qid)
        answers.extend(a for a in got["items"] if isinstance(a, dict))
        if not got.get("has_more"):
            break
        page += 1
        if page > MAX_PAGES:
            cut = True
            break
    answers = ordered(answers)
    ctx.meta.update(kind="question", site=site, answers=len(answers), score=q.get("score"),
                    accepted=any(a.get("is_accepted") for a in answers), quota_remaining=data.get("quota_remaining"))
    warnings = ["more answers than this adapter reads (%d shown)" % len(answers)] if cut else []
    import html

    return Doc(url, thread_text(q, answers, ctx.md), fmt=ctx.fmt, title=html.unescape(str(q.get("title") or "")),
               author=_who(q), published=iso_date(q.get("creation_date")), warnings=warnings,
               final_url=q.get("link") if isinstance(q.get("link"), str) else None)
