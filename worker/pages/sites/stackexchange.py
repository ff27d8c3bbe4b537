"""Stack Exchange questions through the public API (no key): the question and every answer.

An answer's URL (/a/ID, /questions/ID/slug/ANSWERID) gives the same whole thread,
with that answer marked where it stands and named at the top.

Answers come accepted first, then by score, each with score, author and date;
post bodies are the API's HTML, rendered as pages are (worker.pages.extract.render),
images and code blocks kept.
"""

from __future__ import annotations

from urllib.parse import quote

from ... import checked
from . import Doc, Fallback
from .pieces import heading, iso_date

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any
    from urllib.parse import SplitResult

    from ..net.client import Response
    from ..read.doc import Rendered
    from . import Context

NAME = "stackexchange"
API = "https://api.stackexchange.com/2.3"
MAX_PAGES = 10  # 100 answers a page
# host -> the API's "site" parameter, where it is not the host's first label
SITES = {
    "stackoverflow.com": "stackoverflow",
    "superuser.com": "superuser",
    "serverfault.com": "serverfault",
    "askubuntu.com": "askubuntu",
    "mathoverflow.net": "mathoverflow",
}


def site_param(host: str) -> str:
    host = host.lower()
    if host.startswith("www."):
        host = host[4:]
    if host in SITES:
        return SITES[host]
    if host.endswith(".stackexchange.com"):
        return host[: -len(".stackexchange.com")]
    if host.endswith(".stackoverflow.com"):  # meta.stackoverflow.com, pt.stackoverflow.com
        return host[: -len(".com")]
    return host  # a configured host: the API accepts a site's domain as its parameter


def _is_id(text: str) -> bool:
    # ASCII digits only ("²".isdigit() is true too), and short enough to be a post id.
    return text.isascii() and text.isdigit() and len(text) <= 15


def question_id(path: str) -> str | None:
    segs = [s for s in path.split("/") if s]
    if len(segs) >= 2 and segs[0] in ("questions", "q") and _is_id(segs[1]):
        return segs[1]
    return None


def answer_id(path: str, fragment: str = "") -> str | None:
    """The answer a URL links to: /a/ID[/USER], /questions/ID/slug/ANSWERID[#ANSWERID], or #ANSWERID."""
    segs = [s for s in path.split("/") if s]
    if len(segs) >= 2 and segs[0] == "a" and _is_id(segs[1]):
        return segs[1]
    if len(segs) >= 4 and segs[0] == "questions" and _is_id(segs[3]):
        return segs[3]
    if question_id(path) and _is_id(fragment):  # older links: /questions/ID/slug#ANSWERID
        return fragment
    return None


def _why(resp: Response, data: Any, what: str) -> Fallback:
    err = checked.obj(data)
    name = checked.text(err.get("error_name"))[:100]
    if resp.status == 429 or name == "throttle_violation" or err.get("error_id") == 502:
        return Fallback(
            "stackexchange: API throttled (%s)"
            % (checked.text(err.get("error_message")) or "HTTP %d" % resp.status)[:200]
        )
    if name:
        return Fallback("stackexchange: API error %s for %s" % (name, what))
    return Fallback("stackexchange: the API answered HTTP %d for %s" % (resp.status, what))


def _get(ctx: Context, url: str, what: str) -> dict[str, Any]:
    resp, data = ctx.json(url, what)
    if resp.status >= 400 or not isinstance(data, dict) or "error_id" in data:
        raise _why(resp, data, what)
    if not isinstance(data.get("items"), list):
        raise Fallback("stackexchange: the API's answer for %s has no items" % what)
    return data


MAX_ID = 10**15 - 1  # a post id is at most 15 digits (see _is_id)


def post(raw: dict[str, Any], dropped: checked.Dropped, what: str) -> dict[str, Any]:
    """A question or answer as the API sent it, read into checked fields (a bad one is None, with a warning)."""
    import html

    owner = checked.obj(raw.get("owner"))
    return {
        "title": html.unescape(checked.text(raw.get("title"))),
        "body": checked.text(raw.get("body")),
        "link": checked.text(raw.get("link")) or None,
        "tags": checked.texts(raw.get("tags")),
        "who": html.unescape(checked.text(owner.get("display_name")) or "(unknown)"),
        "score": dropped.whole(raw, "score", "the score of %s" % what, -(10**9), 10**9),
        "created": dropped.whole(raw, "creation_date", "the date of %s" % what, 0, checked.MAX_EPOCH),
        "accepted": checked.flag(raw.get("is_accepted")),
        "answer_id": checked.whole(raw.get("answer_id"), 1, MAX_ID),
        "question_id": checked.whole(raw.get("question_id"), 1, MAX_ID),
    }


def ordered(answers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Accepted first, then by score (highest first), then oldest first (checked posts)."""
    return sorted(answers, key=lambda a: (not a["accepted"], -(a["score"] or 0), a["created"] or 0))


def _score(p: dict[str, Any]) -> str:
    return "?" if p["score"] is None else str(p["score"])


def _body(html: str, md: bool) -> str:
    """A post's body (the API's HTML) as markdown or text."""
    from ..extract.render import render_fragment

    return render_fragment(html, md, authored=True)


def thread_text(q: dict[str, Any], answers: list[dict[str, Any]], md: bool, linked: str | None = None) -> str:
    """The thread as markdown (or text) from checked posts (``post``); parses HTML, so it
    runs on the calling thread (Doc.render)."""
    lines = [heading(1, q["title"], md), ""]
    facts = ["Score: %s" % _score(q), "Asked by %s on %s" % (q["who"], iso_date(q["created"]) or "?")]
    if q["tags"]:
        facts.append("Tags: %s" % ", ".join(q["tags"]))
    link = next((a for a in answers if linked is not None and str(a["answer_id"]) == linked), None)
    if link is not None:  # the URL named one answer: say which, up front; it keeps its place below
        facts.append("Linked answer: %s by %s (score %s), marked below" % (linked, link["who"], _score(link)))
    lines += [("- " if md else "") + f for f in facts] + ["", _body(q["body"], md)]
    lines += ["", heading(2, "%d answer%s" % (len(answers), "" if len(answers) == 1 else "s"), md)]
    for a in answers:
        mark = "Accepted answer" if a["accepted"] else "Answer"
        if a is link:
            mark = "Linked " + mark[0].lower() + mark[1:]
        lines += [
            "",
            heading(
                3,
                "%s (score %s) by %s on %s" % (mark, _score(a), a["who"], iso_date(a["created"]) or "?"),
                md,
            ),
            "",
            _body(a["body"], md),
        ]
    return "\n".join(lines).strip() + "\n"


def read(ctx: Context, url: str, parts: SplitResult) -> Doc:
    qid, aid = question_id(parts.path), answer_id(parts.path, parts.fragment)
    if qid is None and aid is None:
        raise Fallback("stackexchange: %s is not a question or answer URL" % url)
    base = ctx.base("apiBase", API)
    site = quote(site_param(parts.hostname or ""), safe="")
    ctx.meta["api"] = base
    if qid is None:  # /a/ID: the answer's record names its question; the whole thread is read
        got = _get(ctx, "%s/answers/%s?site=%s" % (base, aid, site), "answer %s" % aid)
        first = checked.whole((checked.objs(got["items"])[:1] or [{}])[0].get("question_id"), 1, MAX_ID)
        if first is None:
            raise Fallback("stackexchange: the API has no answer %s on %s" % (aid, site))
        qid = str(first)
    data = _get(ctx, "%s/questions/%s?site=%s&filter=withbody" % (base, qid, site), "question %s" % qid)
    if not data["items"] or not isinstance(data["items"][0], dict):
        raise Fallback("stackexchange: the API has no question %s on %s" % (qid, site))
    dropped = checked.Dropped(NAME)
    q = post(data["items"][0], dropped, "the question")
    answers: list[dict[str, Any]] = []
    page, cut = 1, False
    while True:
        got = _get(
            ctx,
            "%s/questions/%s/answers?site=%s&filter=withbody&sort=votes&order=desc&pagesize=100&page=%d"
            % (base, qid, site, page),
            "the answers of %s" % qid,
        )
        answers.extend(
            post(
                a,
                dropped,
                "answer %s" % checked.whole(a.get("answer_id"), 1, MAX_ID) if "answer_id" in a else "an answer",
            )
            for a in checked.objs(got["items"])
        )
        if not checked.flag(got.get("has_more")):
            break
        page += 1
        if page > MAX_PAGES:
            cut = True
            break
    answers = ordered(answers)
    ctx.meta.update(
        kind="question",
        site=site,
        answers=len(answers),
        score=q["score"],
        accepted=any(a["accepted"] for a in answers),
        quota_remaining=checked.whole(data.get("quota_remaining"), 0, 10**9),
    )
    warnings = ["more answers than this adapter reads (%d shown)" % len(answers)] if cut else []
    warnings += dropped.warnings
    final = q["link"]
    if aid is not None:
        ctx.meta["answer_id"] = int(aid)
        if any(str(a["answer_id"]) == aid for a in answers):
            final = final and "%s/%s#%s" % (final, aid, aid)  # where the site itself sends an answer link
        else:
            warnings.append("the linked answer %s is not among the answers read (deleted, or past the last page)" % aid)

    def render(fmt: str) -> Rendered:
        return thread_text(q, answers, fmt == "markdown", aid), fmt, {}, None, []

    return Doc(
        url,
        "",  # the thread, from render: the bodies are HTML, parsed only on the calling thread
        fmt=ctx.fmt,
        title=q["title"],
        author=q["who"],
        published=iso_date(q["created"]),
        warnings=warnings,
        final_url=final,
        render=render,
    )
