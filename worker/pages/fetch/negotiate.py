"""Pages that offer markdown are read as markdown.

The first request asks for ``text/markdown`` before HTML. Then, in order:

* a markdown answer with text is used as is; an empty one, or a 406, is asked again
  for HTML;
* an HTML page that names a markdown version (``<link rel="alternate"
  type="text/markdown">``) is replaced by that version when it answers with text;
* with ``--llms-txt``, or for the root of a documentation host (``docs.``,
  ``developer.``...), the site's ``/llms.txt`` is read first, and the page asked only
  when it is missing, empty or HTML (sites that answer every path with their app).

Every extra request goes through the same guarded download; any failure of one
keeps what was there before. ``get(url, accept)`` is the caller's download.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Callable, TypeGuard

    from ..net.client import Response

    # get(url, accept): the caller's guarded download; accept None asks for markdown first
    Get = Callable[[str, str | None], Response]


MARKDOWN_TYPES = ("text/markdown", "text/x-markdown")
_ALTERNATE = re.compile(r"<link\b[^<>]{0,2000}>", re.I)
_ATTR = re.compile(r"""([a-z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I)
DOC_HOSTS = ("docs.", "doc.", "developer.", "developers.")
HEAD_CHARS = 200000


def _media(resp: Response) -> str:
    return (resp.content_type or "").split(";", 1)[0].strip().lower()


def _has_text(resp: Response) -> bool:
    return bool(resp.body and resp.body.strip())


def markdown_link(resp: Response) -> str | None:
    """The URL of the markdown version an HTML page names, or None."""
    from urllib.parse import urljoin

    head = resp.body[:HEAD_CHARS].decode("utf-8", "replace")
    end = head.lower().find("</head>")
    if end > 0:
        head = head[:end]
    for tag in _ALTERNATE.findall(head):
        attrs = {m.group(1).lower(): (m.group(2) or m.group(3) or m.group(4) or "") for m in _ATTR.finditer(tag)}
        if "alternate" in attrs.get("rel", "").lower().split() and attrs.get("type", "").lower() in MARKDOWN_TYPES:
            href = attrs.get("href", "").strip()
            if href:
                try:
                    return urljoin(resp.final_url, href)
                except ValueError:
                    return None
    return None


def wants_llms_txt(url: str) -> bool:
    """Whether ``url`` is the root of a documentation host, where /llms.txt is the site's own map."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.path in ("", "/") and not parts.query and (parts.hostname or "").startswith(DOC_HOSTS)


def llms_url(url: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/llms.txt", "", ""))


def _usable_text(resp: Response | None) -> TypeGuard[Response]:
    """A response that is plain text or markdown with something in it (not an app's HTML)."""
    return (
        resp is not None
        and resp.status < 400
        and _has_text(resp)
        and (_media(resp) in MARKDOWN_TYPES or _media(resp) == "text/plain")
    )


def reusable(resp: Response) -> bool:
    """Whether an HTML page downloaded by another request (a crawl's map, which asks for HTML)
    is the answer this module's first request would get: a 200 whose server says it does not
    depend on the request's Accept (no ``Vary: Accept``), so a server that would answer the
    markdown this module asks for first is asked again."""
    vary = {v.strip().lower() for v in (resp.headers.get("vary") or "").split(",")}
    return resp.status == 200 and _media(resp) in ("text/html", "application/xhtml+xml") and not vary & {"accept", "*"}


def fetch(url: str, get: Get, llms_txt: bool = False, first: Response | None = None) -> Response:
    """The Response to read for ``url``: markdown when the site offers it, else the page.
    ``first``: the page as another request already downloaded it (``reusable``), for the first request."""
    from ...errors import WorkerError
    from ..net.client import HTML_ACCEPT

    if llms_txt or wants_llms_txt(url):
        try:
            got = get(llms_url(url), None)
        except (WorkerError, ValueError):  # no llms.txt, or a URL the page request will word as invalid
            got = None
        if _usable_text(got):
            got.source_markdown = True
            return got
    try:
        resp = first if first is not None else get(url, None)
    except WorkerError as exc:
        if exc.code == "http_error" and exc.extra.get("status") == 406:  # a server that refuses to negotiate
            return get(url, HTML_ACCEPT)
        raise
    if resp.status == 304:  # a revalidation answered: the cached copy stands, whatever it was
        return resp
    if _media(resp) in MARKDOWN_TYPES:
        if _has_text(resp):
            resp.source_markdown = True
            return resp
        return get(url, HTML_ACCEPT)
    if _media(resp) in ("text/html", "application/xhtml+xml"):
        alt = markdown_link(resp)
        if alt and alt != resp.final_url:
            try:
                md = get(alt, None)
            except WorkerError:
                md = None
            if _usable_text(md):
                md.source_markdown = True
                md.page_url = resp.final_url
                return md
    return resp
