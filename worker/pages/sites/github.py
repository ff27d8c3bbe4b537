"""GitHub through its REST API and raw file host, not its script-built pages.

blob/ -> the raw file; a repository or tree/ -> README + listing; issues/N and
pull/N -> the thread with every comment (paginated by Link headers), and for a
pull request its reviews and line comments in the same date order; releases;
gists.  A ref may hold slashes (blob/feature/x/a.py): when the first segment is
not it, the API's branch and tag names say where the ref ends.  GITHUB_TOKEN /
GH_TOKEN, when set, go to the configured API and raw hosts only (never to a
redirect elsewhere) and are never written anywhere.
"""

from __future__ import annotations

import os
import re
from urllib.parse import quote, unquote

from ... import checked
from . import Doc, Fallback
from .pieces import code_block, heading, language_of

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any, Iterable, Sequence
    from urllib.parse import SplitResult

    from ..net.client import Response
    from . import Context

    # (when, who, note, body, diff hunk or None): one entry of a thread
    Entry = tuple[str, str, str, str, str | None]

NAME = "github"
API = "https://api.github.com"
RAW = "https://raw.githubusercontent.com"
MAX_PAGES = 30  # 100 per page: 3000 comments or changed files is more than any reader wants
RELEASES = 10
_LINK = re.compile(r'<([^>]*)>\s*;\s*rel="?([^",;]+)"?')


def _token() -> tuple[str, str] | tuple[None, None]:
    for name in ("GITHUB_TOKEN", "GH_TOKEN"):
        value = os.environ.get(name, "").strip()
        if value:
            return name, value
    return None, None


def next_link(header: str | None) -> str | None:
    """The rel="next" URL of a Link header, or None."""
    for url, rel in _LINK.findall(header or ""):
        if "next" in rel.split():
            return url
    return None


def _why(resp: Response, what: str) -> Fallback:
    """A Fallback for an API answer that is not a success, saying why."""
    h = resp.headers
    if resp.status == 429 or (
        resp.status == 403
        and (
            h.get("x-ratelimit-remaining") == "0" or "rate limit" in resp.body[:2000].decode("utf-8", "replace").lower()
        )
    ):
        reset = h.get("x-ratelimit-reset", "")
        when = ""
        if reset.isdigit():
            from .pieces import iso_date

            when = " until %s" % iso_date(reset)
        hint = "" if _token()[0] else "; set GITHUB_TOKEN for a higher limit"
        return Fallback("github: API rate limit reached%s (HTTP %d)%s" % (when, resp.status, hint))
    if resp.status in (401, 403):
        return Fallback("github: the API refused %s (HTTP %d)" % (what, resp.status))
    if resp.status == 404:
        return Fallback("github: the API has no %s (HTTP 404; private, or not there)" % what)
    return Fallback("github: the API answered HTTP %d for %s" % (resp.status, what))


class Api:
    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.base = ctx.base("apiBase", API)
        self.raw = ctx.base("rawBase", RAW)
        name, token = _token()
        ctx.meta["token"] = bool(token)
        if token:
            ctx.meta["token_source"] = "env:%s" % name
            ctx.auth({"Authorization": "Bearer " + token}, (self.base, self.raw))
        ctx.meta["api"] = self.base

    def json(self, path: str, what: str, kind: tuple[type, ...] = (dict,)) -> Any:
        resp, data = self.ctx.json(self.base + path, what)
        if resp.status >= 400:
            raise _why(resp, what)
        if not isinstance(data, kind):
            raise Fallback("github: the API's answer for %s has a shape this adapter does not know" % what)
        return data

    def pages(self, path: str, what: str) -> tuple[list[dict[str, Any]], bool]:
        """Every item of a paginated list, following rel="next" within the API."""
        url = self.base + path
        items: list[dict[str, Any]] = []
        for _ in range(MAX_PAGES):
            resp, data = self.ctx.json(url, what)
            if resp.status >= 400:
                raise _why(resp, what)
            if not isinstance(data, list):
                raise Fallback("github: the API's answer for %s is not a list" % what)
            items.extend(d for d in data if isinstance(d, dict))
            nxt = next_link(resp.headers.get("link"))
            if not nxt or not nxt.startswith(self.base + "/"):
                # A next page outside the API base is not followed (the token would not go there
                # anyway): the list is then cut, and the text says so.
                return items, bool(nxt)
            url = nxt
        return items, True


_s = checked.text


def _who(obj: Any) -> str:
    return _s(checked.obj(obj).get("login"))


def _labels(obj: dict[str, Any]) -> list[str]:
    return [name for name in (_s(lab.get("name")) for lab in checked.objs(obj.get("labels"))) if name]


def _count(value: Any) -> str:
    """A count the API sends (additions, stars...) as text; "?" when it is not a sane whole number."""
    n = checked.whole(value, 0, 10**12)
    return "?" if n is None else str(n)


REVIEW_STATES = {
    "APPROVED": "approved",
    "CHANGES_REQUESTED": "changes requested",
    "COMMENTED": "commented",
    "DISMISSED": "dismissed",
}  # PENDING reviews are drafts, seen by their author only
HUNK_LINES = 3  # of a review comment's diff hunk: the lines it is about, not the whole hunk


def conversation(
    comments: Iterable[dict[str, Any]],
    reviews: Iterable[dict[str, Any]] = (),
    review_comments: Iterable[dict[str, Any]] = (),
) -> list[Entry]:
    """Issue comments, reviews and review comments as one list in date order: (when, who, note, body, hunk)."""
    out: list[Entry] = [
        (_s(c.get("created_at")), _who(c.get("user")), "", _s(c.get("body")).strip(), None) for c in comments
    ]
    for r in reviews:
        state = REVIEW_STATES.get(_s(r.get("state")))
        body = _s(r.get("body")).strip()
        # A "commented" review with no text only holds line comments, which come on their own.
        if state is None or (state == "commented" and not body):
            continue
        out.append((_s(r.get("submitted_at")), _who(r.get("user")), "review: " + state, body, None))
    for c in review_comments:
        line = checked.whole(c.get("line"), 1) or checked.whole(c.get("original_line"), 1)
        start = checked.whole(c.get("start_line"), 1) or checked.whole(c.get("original_start_line"), 1)
        where = _s(c.get("path")) + (
            "" if not line else " line %s" % line if not start or start == line else " lines %s-%s" % (start, line)
        )
        hunk = None
        if not c.get("in_reply_to_id") and _s(c.get("diff_hunk")):  # a reply is about the same lines
            hunk = "\n".join(_s(c.get("diff_hunk")).splitlines()[-HUNK_LINES:])
        out.append((_s(c.get("created_at")), _who(c.get("user")), "on " + where, _s(c.get("body")).strip(), hunk))
    return sorted(out, key=lambda e: e[0])  # ISO 8601 UTC times order as strings; ties keep their order


def thread_text(
    issue: dict[str, Any],
    comments: Iterable[dict[str, Any]],
    md: bool,
    pull: dict[str, Any] | None = None,
    files: Sequence[dict[str, Any]] = (),
    files_cut: bool = False,
    comments_cut: bool = False,
    reviews: Iterable[dict[str, Any]] = (),
    review_comments: Iterable[dict[str, Any]] = (),
) -> str:
    """An issue or pull request with its comments (and reviews), in order, as markdown (or text)."""
    kind = "Pull request" if pull is not None else "Issue"
    if pull is not None:  # the pull request's own record is the one kept current for its text
        issue = dict(issue, **{k: pull[k] for k in ("title", "body", "user", "state") if pull.get(k) is not None})
    state = _s(issue.get("state"))
    if pull is not None and checked.flag(pull.get("merged")):
        state = "merged"
    lines = [heading(1, "%s #%s: %s" % (kind, _count(issue.get("number")), _s(issue.get("title"))), md), ""]
    facts = ["State: %s" % state, "Author: %s" % _who(issue.get("user")), "Opened: %s" % _s(issue.get("created_at"))]
    if _labels(issue):
        facts.append("Labels: %s" % ", ".join(_labels(issue)))
    if pull is not None:
        facts.append(
            "Branches: %s -> %s"
            % (_s(checked.obj(pull.get("head")).get("label")), _s(checked.obj(pull.get("base")).get("label")))
        )
    lines += [("- " if md else "") + f for f in facts] + ["", _s(issue.get("body")).strip() or "(no description)"]
    if pull is not None:
        lines += ["", heading(2, "Changed files (%d)" % len(files), md), ""]
        for f in files:
            lines.append(
                "%s%s (%s, +%s -%s)"
                % (
                    "- " if md else "",
                    _s(f.get("filename")),
                    _s(f.get("status")),
                    _count(f.get("additions", 0)),
                    _count(f.get("deletions", 0)),
                )
            )
        if files_cut:
            lines.append("(more files than this adapter lists)")
    entries = conversation(comments, reviews, review_comments)
    lines += ["", heading(2, "Comments (%d)" % len(entries), md)]
    for when, who, note, body, hunk in entries:
        lines += ["", heading(3, "%s on %s%s" % (who or "(unknown)", when, " (%s)" % note if note else ""), md), ""]
        if hunk:
            lines += [code_block(hunk, "diff", md), ""]
        lines.append(body)
    if comments_cut:
        lines += ["", "(more comments than this adapter reads)"]
    return "\n".join(lines).strip() + "\n"


def listing_text(
    repo: dict[str, Any],
    path: str,
    ref: str,
    entries: list[dict[str, Any]],
    readme: tuple[str, str] | None,
    md: bool,
) -> str:
    title = _s(repo.get("full_name")) + ("/" + path if path else "")
    lines = [heading(1, title, md), ""]
    if repo.get("description") and not path:
        lines += [_s(repo["description"]), ""]
    facts = ["Branch: %s" % ref]
    language, stars = _s(repo.get("language")), checked.whole(repo.get("stargazers_count"), 0)
    lic = _s(checked.obj(repo.get("license")).get("spdx_id"))
    if not path:
        facts += ["Language: %s" % language] if language else []
        facts += ["Stars: %d" % stars] if stars is not None else []
        facts += ["License: %s" % lic] if lic else []
    lines += [("- " if md else "") + f for f in facts] + ["", heading(2, "Files", md), ""]
    order: dict[Any, int] = {"dir": 0, "submodule": 1, "symlink": 2, "file": 3}
    for e in sorted(entries, key=lambda e: (order.get(_s(e.get("type")), 4), _s(e.get("name")).lower())):
        suffix = "/" if e.get("type") == "dir" else ""
        lines.append("%s%s%s" % ("- " if md else "", _s(e.get("name")), suffix))
    if readme is not None:
        name, text = readme
        lines += ["", heading(2, name, md), "", text.strip()]
    return "\n".join(lines).strip() + "\n"


def release_text(rel: dict[str, Any], md: bool, level: int = 1) -> str:
    name = _s(rel.get("name")) or _s(rel.get("tag_name"))
    lines = [heading(level, name, md), ""]
    facts = [
        "Tag: %s" % _s(rel.get("tag_name")),
        "Published: %s" % _s(rel.get("published_at")),
        "Author: %s" % _who(rel.get("author")),
    ]
    if checked.flag(rel.get("prerelease")):
        facts.append("Pre-release")
    lines += [("- " if md else "") + f for f in facts] + ["", _s(rel.get("body")).strip() or "(no notes)"]
    return "\n".join(lines).strip() + "\n"


def gist_text(gist: dict[str, Any], md: bool) -> str:
    lines = [
        heading(1, _s(gist.get("description")) or "Gist %s" % _s(gist.get("id")), md),
        "",
        "%sOwner: %s" % ("- " if md else "", _who(gist.get("owner"))),
        "%sCreated: %s" % ("- " if md else "", _s(gist.get("created_at"))),
    ]
    files = checked.obj(gist.get("files"))
    for name, f in files.items():
        if not isinstance(f, dict):
            continue
        lang = _s(f.get("language")).lower() or language_of(name)
        lines += ["", heading(2, name, md), "", code_block(_s(f.get("content")), lang, md)]
        if checked.flag(f.get("truncated")):
            lines.append("(the API cut this file; its raw_url has the rest)")
    return "\n".join(lines).strip() + "\n"


def _q(part: str) -> str:
    return quote(part, safe="")


def _refs_named(api: Api, where: str, first: str) -> set[str]:
    """Branch and tag names starting with ``first`` (the API's matching-refs), slashes and all."""
    names: set[str] = set()
    for kind in ("heads", "tags"):
        refs, _ = api.pages(
            "%s/git/matching-refs/%s/%s?per_page=100" % (where, kind, _q(first)), "the refs named %s..." % first
        )
        prefix = "refs/%s/" % kind
        names.update(_s(r.get("ref"))[len(prefix) :] for r in refs if _s(r.get("ref")).startswith(prefix))
    return names


def split_ref(api: Api, where: str, tail: list[str], need_path: bool) -> tuple[str, str] | None:
    """(ref, path) for the segments after blob/ or tree/ when the ref may hold slashes, or None.

    ``feature/x/src/a.py`` is ref ``feature/x`` and path ``src/a.py`` when a branch or tag of
    that name exists: the longest name the segments start with wins, as on GitHub's own pages.
    """
    names = _refs_named(api, where, tail[0])
    for k in range(len(tail) - (1 if need_path else 0), 0, -1):
        if "/".join(tail[:k]) in names:
            return "/".join(tail[:k]), "/".join(tail[k:])
    return None


def read(ctx: Context, url: str, parts: SplitResult) -> Doc:
    # Decoded, so a name written %20 in the URL is not encoded twice when a request path is built.
    segs = [unquote(s) for s in parts.path.split("/") if s]
    host = (parts.hostname or "").lower()
    api = Api(ctx)
    md = ctx.md
    if host.startswith("gist.") or (segs[:1] == ["gist"]):
        segs = segs[1:] if segs[:1] == ["gist"] else segs
        if not segs:
            raise Fallback("github: a gist URL without an id")
        gid = segs[-1] if len(segs) <= 2 else segs[1]
        gist = api.json("/gists/" + _q(gid), "gist %s" % gid)
        ctx.meta["kind"] = "gist"
        return Doc(
            url,
            gist_text(gist, md),
            fmt=ctx.fmt,
            title=_s(gist.get("description")) or "Gist " + gid,
            author=_who(gist.get("owner")) or None,
            published=_s(gist.get("created_at")) or None,
        )
    if len(segs) < 2:
        raise Fallback("github: %s is not a repository, file, issue or release URL" % url)
    owner, repo = segs[0], segs[1]
    if repo.endswith(".git"):
        repo = repo[:-4]
    where = "/repos/%s/%s" % (_q(owner), _q(repo))
    rest = segs[2:]
    if rest[:1] == ["blob"] and len(rest) >= 3 or rest[:1] == ["raw"] and len(rest) >= 3:
        ref, path = rest[1], "/".join(rest[2:])
        # The raw host first, with the first segment as the ref: right for nearly every URL, and
        # outside the API's rate limit.
        resp = ctx.get("%s/%s/%s/%s/%s" % (api.raw, _q(owner), _q(repo), _q(ref), quote(path)))
        if resp.status == 404 and len(rest) > 3:
            # Perhaps a ref with slashes (blob/feature/x/src/a.py).  A raw URL cannot say where
            # the ref ends; the contents API takes it as a parameter and answers the raw file.
            found = split_ref(api, where, rest[1:], need_path=True)
            if found and found[0] != ref:
                ref, path = found
                resp = ctx.get(
                    "%s%s/contents/%s?ref=%s" % (api.base, where, quote(path), _q(ref)),
                    accept="application/vnd.github.raw+json",
                )
        if resp.status >= 400:
            raise _why(resp, "file %s" % path)
        if b"\0" in resp.body[:8000]:
            raise Fallback("github: %s is a binary file" % path)
        text = resp.body.decode("utf-8", "replace")
        lang = language_of(path)
        ctx.meta.update(kind="blob", language=lang, path=path, ref=ref)
        if lang == "markdown" and md:
            body = text
        else:
            body = code_block(text, lang, md) if md else text
        warnings = (
            ["the file is larger than the %d-byte cap; only its start is shown" % len(resp.body)]
            if resp.truncated
            else []
        )
        return Doc(
            url,
            body,
            fmt=ctx.fmt,
            title=path.rsplit("/", 1)[-1],
            nbytes=len(resp.body),
            content_type=resp.content_type or "text/plain",
            warnings=warnings,
        )
    if rest[:1] in (["issues"], ["pull"], ["pulls"]) and len(rest) >= 2 and rest[1].isascii() and rest[1].isdigit():
        n = rest[1]
        issue = api.json("%s/issues/%s" % (where, n), "issue #%s" % n)
        pull: dict[str, Any] | None = None
        files: list[dict[str, Any]] = []
        files_cut = False
        if rest[0] != "issues" or issue.get("pull_request"):
            pull = api.json("%s/pulls/%s" % (where, n), "pull request #%s" % n)
            files, files_cut = api.pages("%s/pulls/%s/files?per_page=100" % (where, n), "the changed files of #%s" % n)
        comments, cut = api.pages("%s/issues/%s/comments?per_page=100" % (where, n), "the comments of #%s" % n)
        reviews: list[dict[str, Any]] = []
        review_comments: list[dict[str, Any]] = []
        if pull is not None:  # a review and its line comments are the API's other two lists
            reviews, cut2 = api.pages("%s/pulls/%s/reviews?per_page=100" % (where, n), "the reviews of #%s" % n)
            review_comments, cut3 = api.pages(
                "%s/pulls/%s/comments?per_page=100" % (where, n), "the review comments of #%s" % n
            )
            cut = cut or cut2 or cut3
        ctx.meta.update(
            kind="pull" if pull is not None else "issue",
            state=_s(issue.get("state")),
            labels=_labels(issue),
            comments=len(comments),
        )
        if pull is not None:
            ctx.meta.update(
                changed_files=len(files),
                merged=checked.flag(pull.get("merged")),
                reviews=sum(1 for r in reviews if _s(r.get("state")) in REVIEW_STATES),
                review_comments=len(review_comments),
            )
        text = thread_text(issue, comments, md, pull, files, files_cut, cut, reviews, review_comments)
        return Doc(
            url,
            text,
            fmt=ctx.fmt,
            title=_s(issue.get("title")),
            author=_who(issue.get("user")) or None,
            published=_s(issue.get("created_at")) or None,
        )
    if rest[:1] == ["releases"]:
        if rest[1:2] == ["tag"] and len(rest) >= 3:
            tag = "/".join(rest[2:])
            rel = api.json("%s/releases/tags/%s" % (where, quote(tag, safe="")), "release %s" % tag)
            ctx.meta.update(kind="release", tag=_s(rel.get("tag_name")) or tag)
            return Doc(
                url,
                release_text(rel, md),
                fmt=ctx.fmt,
                title=_s(rel.get("name")) or tag,
                published=_s(rel.get("published_at")) or None,
                author=_who(rel.get("author")) or None,
            )
        if rest[1:2] == ["latest"]:
            rel = api.json("%s/releases/latest" % where, "the latest release")
            ctx.meta["kind"] = "release"
            ctx.meta["tag"] = _s(rel.get("tag_name"))
            return Doc(
                url,
                release_text(rel, md),
                fmt=ctx.fmt,
                title=_s(rel.get("name")) or _s(rel.get("tag_name")),
                published=_s(rel.get("published_at")) or None,
                author=_who(rel.get("author")) or None,
            )
        if len(rest) == 1:
            rels = api.json("%s/releases?per_page=%d" % (where, RELEASES), "the releases", kind=(list,))
            rels = [r for r in rels if isinstance(r, dict)]
            ctx.meta.update(kind="releases", releases=len(rels))
            text = (
                heading(1, "Releases of %s/%s" % (owner, repo), md)
                + "\n\n"
                + "\n".join(release_text(r, md, level=2) for r in rels)
            )
            return Doc(url, text.strip() + "\n", fmt=ctx.fmt, title="Releases of %s/%s" % (owner, repo))
        raise Fallback("github: a releases URL of a shape this adapter does not know")
    if not rest or rest[:1] == ["tree"] and len(rest) >= 2:
        info = api.json(where, "repository %s/%s" % (owner, repo))
        ref = rest[1] if rest else _s(info.get("default_branch")) or "HEAD"
        path = "/".join(rest[2:]) if rest else ""
        resp, entries = ctx.json("%s%s/contents/%s?ref=%s" % (api.base, where, quote(path), _q(ref)), "the listing")
        if resp.status == 404 and len(rest) > 2:  # perhaps a ref with slashes: tree/feature/x/src
            found = split_ref(api, where, rest[1:], need_path=False)
            if found and found[0] != ref:
                ref, path = found
                resp, entries = ctx.json(
                    "%s%s/contents/%s?ref=%s" % (api.base, where, quote(path), _q(ref)), "the listing"
                )
        if resp.status >= 400:
            raise _why(resp, "the listing")
        if not isinstance(entries, list):
            raise Fallback("github: the API's answer for the listing has a shape this adapter does not know")
        entries = [e for e in entries if isinstance(e, dict)]
        suffix = "?ref=" + _q(ref)
        readme = None
        resp, data = ctx.json(
            "%s%s/readme%s%s" % (api.base, where, ("/" + quote(path)) if path else "", suffix), "the README"
        )
        if resp.status == 404:
            pass  # no README: the listing alone
        elif resp.status >= 400:
            raise _why(resp, "the README")
        elif isinstance(data, dict):
            name = _s(data.get("name")) or "README"
            try:
                if data.get("encoding") != "base64":
                    raise ValueError("it came in an encoding this adapter does not know")
                readme = (name, checked.b64text(data.get("content")))
            except ValueError as exc:  # the listing is still the answer; the README is left out
                ctx.warnings.append("github: the README (%s) was left out: %s" % (name[:100], exc))
        ctx.meta.update(kind="tree" if rest else "repository", ref=ref, entries=len(entries), readme=readme is not None)
        return Doc(
            url,
            listing_text(info, path, ref, entries, readme, md),
            fmt=ctx.fmt,
            title=_s(info.get("full_name")) + ("/" + path if path else ""),
            description=_s(info.get("description")) or None,
        )
    raise Fallback("github: %s is a page this adapter does not read" % url)
