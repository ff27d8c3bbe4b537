"""GitHub's issue and pull-request search (``GET /search/issues``): the ``github`` source of a search.

A result is an issue or a pull request with what the API says of it: ``state``
(open, closed, or merged for a merged pull request), ``comments`` (its count),
``repository`` (owner/name), ``number``, ``kind`` (issue or pull), ``labels``,
``author``, ``published`` (opened) and ``updated``.  Its ``url`` is the page on
github.com, which a fetch reads through the site adapter (worker/pages/sites/github.py)
with every comment.

``GITHUB_TOKEN`` (or ``GH_TOKEN``), when set, goes to the configured API as a bearer
token, never anywhere else; it is never written.  The API base is the config's
``sites.github.apiBase`` (a GitHub Enterprise server), the adapter's setting.
Without a token GitHub allows 10 searches a minute, with one 30: a 403 or 429 for
the rate limit is ``rate_limited`` with ``retry_after`` (from Retry-After or the
X-RateLimit-Reset time), which the search tool reports as a warning when other
lists answered.
"""

from __future__ import annotations

import os
import time

from .. import checked, numbers
from ..errors import WorkerError
from .keyed import KeyedApi, error_body, one_line

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from ..request import SearchRequest
    from .keyed import Headers

DEFAULT_BASE_URL = "https://api.github.com"
TOKEN_ENV = ("GITHUB_TOKEN", "GH_TOKEN")
MAX_PER_PAGE = 100
SNIPPET_CHARS = 300
RECENCY_DAYS = {"day": 1, "week": 7, "month": 31, "year": 366}
# GitHub asks newer tokens for one of these qualifiers; a query without one that is refused so
# is asked once more for issues.
KIND_QUALIFIERS = ("is:issue", "is:pr", "is:pull-request", "type:issue", "type:pr")


def token(environ: Any = None) -> tuple[str, str] | tuple[None, None]:
    """(variable, token) from GITHUB_TOKEN or GH_TOKEN, or (None, None)."""
    environ = os.environ if environ is None else environ
    for name in TOKEN_ENV:
        value = (environ.get(name) or "").strip()
        if value:
            return name, value
    return None, None


def query_of(request: SearchRequest, now: float | None = None) -> str:
    """The API's ``q``: the query as written (GitHub's qualifiers work), and ``--recency`` as ``updated:>=DATE``."""
    q = request.query
    days = RECENCY_DAYS.get(request.recency or "")
    if days:
        since = time.gmtime((time.time() if now is None else now) - days * 86400)
        q += " updated:>=%s" % time.strftime("%Y-%m-%d", since)
    return q


def _plain(value: Any, limit: int | None = None) -> str:
    text = " ".join(checked.text(value).split())
    if limit is not None and len(text) > limit:
        cut = text.rfind(" ", 0, limit - 3)
        text = text[: cut if cut > limit // 2 else limit - 3] + "..."
    return text


def repository(item: dict[str, Any]) -> str | None:
    """owner/name from the item's repository_url (…/repos/OWNER/NAME)."""
    url = checked.text(item.get("repository_url"))
    parts = url.rstrip("/").split("/")
    if len(parts) >= 2 and "repos" in parts[:-2]:
        return "%s/%s" % (parts[-2], parts[-1])
    return None


def result_of(item: dict[str, Any]) -> dict[str, Any] | None:
    """One result from a search item, or None when it has no usable page URL."""
    url = checked.text(item.get("html_url")).strip()
    if not url.startswith(("https://", "http://")) or any(ch.isspace() for ch in url):
        return None
    pull = item.get("pull_request")
    state = checked.text(item.get("state")) or None
    if isinstance(pull, dict) and checked.text(pull.get("merged_at")):
        state = "merged"
    r: dict[str, Any] = {
        "title": _plain(item.get("title"), 300),
        "url": url,
        "snippet": _plain(item.get("body"), SNIPPET_CHARS),
        "kind": "pull" if isinstance(pull, dict) else "issue",
        "state": state,
        "comments": checked.whole(item.get("comments"), 0, 10**9),
        "repository": repository(item),
        "number": checked.whole(item.get("number"), 1, 10**12),
        "published": checked.text(item.get("created_at")) or None,
        "updated": checked.text(item.get("updated_at")) or None,
    }
    labels = [n for n in (_plain(lab.get("name"), 60) for lab in checked.objs(item.get("labels"))) if n]
    if labels:
        r["labels"] = labels[:10]
    author = _plain(checked.obj(item.get("user")).get("login"), 60)
    if author:
        r["author"] = author
    return r


class GithubSearch(KeyedApi):
    tools = frozenset({"search"})
    verticals = frozenset({"dev"})
    needs_key = False  # a token raises the limit; GitHub answers without one
    label = "GitHub"
    key_env = "GITHUB_TOKEN"
    default_base_url = DEFAULT_BASE_URL
    request_id_headers = ("X-GitHub-Request-Id",)
    rate_hint = "set GITHUB_TOKEN for 30 searches a minute instead of 10"

    def check_key(self) -> str:
        return self.spec.api_key or ""

    def auth_headers(self) -> dict[str, str]:
        key = self.spec.api_key
        return {"Authorization": "Bearer " + key} if key else {}

    def retry_wait(self, headers: Headers | None) -> float | None:
        """Retry-After (a secondary limit), else the seconds until X-RateLimit-Reset (the primary one)."""
        wait = numbers.retry_after(headers.get("Retry-After") if headers is not None else None, self.max_retry_after)
        if wait is not None:
            return wait
        reset = numbers.or_none(headers.get("X-RateLimit-Reset") if headers is not None else None, 0, 10**11)
        if reset is None:
            return None
        return max(1.0, min(float(self.max_retry_after), reset - time.time()))

    def http_error(self, status: int, headers: Headers | None, raw: bytes) -> WorkerError:
        body = error_body(raw)
        message = one_line(body.get("message"))
        limited = status == 429 or (
            status == 403
            and (
                (headers is not None and (headers.get("X-RateLimit-Remaining") or "").strip() == "0")
                or "rate limit" in message.lower()
            )
        )
        if not limited:
            return super().http_error(status, headers, raw)
        extra: dict[str, Any] = {"status": status}
        wait = self.retry_wait(headers)
        if wait is not None:
            extra["retry_after"] = int(round(wait))
        return WorkerError(
            "rate_limited",
            self.scrub("GitHub's search rate limit reached (HTTP %d)%s" % (status, ": " + message if message else "")),
            hint="wait %s and retry%s"
            % (
                "%d s" % extra["retry_after"] if "retry_after" in extra else "a minute",
                "" if self.spec.api_key else "; " + self.rate_hint,
            ),
            retryable=True,
            **extra,
        )

    def search(self, request: SearchRequest) -> dict[str, Any]:
        limit = max(1, min(MAX_PER_PAGE, int(request.limit or self.spec.options.get("defaultSearchLimit") or 5)))
        q = query_of(request)
        params = {"q": q, "per_page": limit, "page": request.page or 1}
        headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}
        warnings: list[str] = []
        try:
            answer_headers, body = self.call_api("GET", "/search/issues", params=params, headers=headers)
        except WorkerError as exc:
            # Newer tokens must say which kind they search for: asked once more, for issues.
            if exc.extra.get("status") != 422 or "is:issue" not in exc.message or any(k in q for k in KIND_QUALIFIERS):
                raise
            params["q"] = q + " is:issue"
            answer_headers, body = self.call_api("GET", "/search/issues", params=params, headers=headers)
            warnings.append(
                "GitHub searches one kind at a time for this token: issues shown; add is:pr for pull requests"
            )
        items = body.get("items")
        results = [r for r in (result_of(i) for i in checked.objs(items)) if r is not None]
        facts: dict[str, Any] = {
            "total_count": checked.whole(body.get("total_count"), 0, 10**12),
            "q": params["q"],
            "token": bool(self.spec.api_key),
        }
        remaining = checked.whole(numbers.or_none(answer_headers.get("X-RateLimit-Remaining")), 0, 10**9)
        if remaining is not None:
            facts["ratelimit_remaining"] = remaining
        if checked.flag(body.get("incomplete_results")):
            warnings.append("GitHub's search timed out on its side: the list may be incomplete")
        return {"results": results, "meta": self.meta(self.request_id(answer_headers), facts), "warnings": warnings}
