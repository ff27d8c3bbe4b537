"""Which URLs belong to a map: the start URL's section (its path prefix) or its whole site,
one key per page, and nothing that is not a page.

Pure functions.  A URL belongs when its host is the start's (``www.`` or not, http or
https, the default port or none) and, for a section, its path starts with the start
URL's folder (``/docs/3/library/asyncio.html`` -> ``/docs/3/library/``), or the folder
above it when the start page is the contents of another folder (``listed``).  Two URLs
are one page when their keys are equal: the scheme, a ``www.``, a default port, the
fragment, a trailing ``index.html``, the order of query parameters and tracking
parameters do not count.  A link into an ever-deeper loop of paths
(``a/b/a/b/a/b/...``), a URL over 2,000 characters, and files that are no page
(images, archives, styles, scripts, feeds) never belong.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

SCOPES = ("section", "site")
MAX_URL = 2000
MAX_DEPTH = 24  # path segments
MAX_REPEAT = 3  # one segment this many times in a path: a loop of relative links
NOT_PAGES = frozenset(
    """png jpg jpeg gif svg webp ico bmp tif tiff avif css js mjs map json xml rss atom woff woff2 ttf eot otf
    zip tar gz tgz bz2 xz 7z rar whl egg deb rpm dmg exe msi apk jar iso img bin mp3 mp4 m4a webm avi mov mkv
    wav ogg flac pdf epub mobi doc docx xls xlsx ppt pptx odt csv tsv sqlite db pickle pkl npy parquet""".split()
)
INDEX_FILES = ("index.html", "index.htm")
LISTS_MIN = 10  # links into one other folder that make the start page its contents
TRACKING_PREFIXES = ("utm_",)
TRACKING = frozenset({"fbclid", "gclid", "msclkid", "mc_cid", "mc_eid", "_ga", "_gl", "igshid", "ref_src"})


def _host(host: str | None) -> str:
    host = (host or "").lower().rstrip(".")
    return host[4:] if host.startswith("www.") else host


def _port(parts: Any) -> int | None:
    try:
        port = parts.port
    except ValueError:
        return -1
    if port is None or (parts.scheme == "http" and port == 80) or (parts.scheme == "https" and port == 443):
        return None
    return int(port)


def folder(path: str) -> str:
    """The folder a path is in: ``/a/b/c.html`` -> ``/a/b/``, ``/a/b/`` -> ``/a/b/``, ``""`` -> ``/``."""
    if not path:
        return "/"
    return path[: path.rfind("/") + 1] or "/"


class Scope:
    """The pages a map may list: ``mode`` "section" (the start URL's folder) or "site" (its host)."""

    def __init__(self, start: str, mode: str = "section", prefix: str | None = None) -> None:
        parts = urlsplit(start)
        if mode not in SCOPES:
            raise ValueError("unknown scope %r" % mode)
        self.start = start
        self.mode = mode
        self.host = _host(parts.hostname)
        self.port = _port(parts)
        self.prefix = "/" if mode != "section" else prefix or folder(parts.path)

    def listed(self, urls: list[str]) -> Scope:
        """This section, or the wider one the start page lays out when it links to ``urls``.

        A page whose links go, at least half of them and at least LISTS_MIN, to the pages of
        one folder outside its own is that folder's contents page: its section is the folder
        above both.  CMake's ``/help/manual/cmake-commands.7.html`` lists
        ``/help/command/*.html``: its section is ``/help/``, not ``/help/manual/`` where it
        has no command.  A page whose links stay mostly in its folder keeps it."""
        if self.mode != "section":
            return self
        pages = {urlsplit(key(url)).path or "/" for url in urls if self.same_site(url)}  # "a/index.html" is "a/"
        pages = {path for path in pages if page_like(path)}
        pages.discard(urlsplit(self.start).path or "/")
        counts: dict[str, int] = {}
        for path in pages:
            if not path.startswith(self.prefix):
                home = folder(path.rstrip("/"))  # the folder a page is in: /a/b/ is one of /a/'s
                counts[home] = counts.get(home, 0) + 1
        if not counts:
            return self
        home, most = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
        if most < LISTS_MIN or 2 * most < len(pages):
            return self
        above = self.prefix
        while not home.startswith(above):
            above = folder(above[:-1])
        return Scope(self.start, self.mode, above)

    def describe(self) -> str:
        """The scope as a person reads it: ``docs.example.org/3/library/`` or ``docs.example.org``."""
        port = "" if self.port is None else ":%d" % self.port
        return self.host + port + (self.prefix if self.mode == "section" else "")

    def contains(self, url: str) -> bool:
        """Whether ``url`` (absolute, fragment or not) is a page of this scope."""
        try:
            parts = urlsplit(url)
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or len(url) > MAX_URL or parts.username or parts.password:
            return False
        if _host(parts.hostname) != self.host or _port(parts) != self.port:
            return False
        path = parts.path or "/"
        if not path.startswith(self.prefix) and path + "/" != self.prefix:
            return False
        return page_like(path)

    def same_site(self, url: str) -> bool:
        """Whether ``url`` is on this scope's host (a sitemap or llms.txt may sit above the section)."""
        try:
            parts = urlsplit(url)
            return (
                parts.scheme in ("http", "https") and _host(parts.hostname) == self.host and _port(parts) == self.port
            )
        except ValueError:
            return False


def page_like(path: str) -> bool:
    """Whether a URL path can be a page: no file type that is not one, no loop of segments, not too deep."""
    segments = [s for s in path.split("/") if s]
    if len(segments) > MAX_DEPTH:
        return False
    if segments:
        counts: dict[str, int] = {}
        for s in segments:
            counts[s] = counts.get(s, 0) + 1
            if counts[s] > MAX_REPEAT:
                return False
        last = segments[-1].lower()
        if "." in last and last.rsplit(".", 1)[1] in NOT_PAGES:
            return False
    return True


def key(url: str) -> str:
    """The key two URLs of one page share (see the module's docstring)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    port = _port(parts)
    path = parts.path or "/"
    for name in INDEX_FILES:
        if path.endswith("/" + name):
            path = path[: -len(name)]
            break
    query = ""
    if parts.query:
        pairs = [
            (k, v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if not k.lower().startswith(TRACKING_PREFIXES) and k.lower() not in TRACKING
        ]
        query = urlencode(sorted(pairs))
    netloc = _host(parts.hostname) + ("" if port is None else ":%d" % port)
    return urlunsplit(("", netloc, path, query, ""))


def clean(url: str) -> str:
    """``url`` without its fragment and tracking parameters (as a map lists it)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if not parts.query and not parts.fragment:
        return url
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        kept = [(k, v) for k, v in pairs if not k.lower().startswith(TRACKING_PREFIXES) and k.lower() not in TRACKING]
        if len(kept) != len(pairs):
            query = urlencode(kept)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


def absolute(base: str, href: str) -> str | None:
    """``href`` resolved against ``base``, without its fragment; None when it is no http(s) URL."""
    from urllib.parse import urldefrag, urljoin

    href = href.strip()
    if not href or href.startswith(("#", "mailto:", "javascript:", "tel:", "data:")):
        return None
    try:
        url = urldefrag(urljoin(base, href))[0]
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return url


def fragment(href: str) -> str:
    """The ``#fragment`` of a link, as words (``#os.rename`` -> ``os.rename``), or ""."""
    _, _, frag = href.partition("#")
    return frag.strip()
