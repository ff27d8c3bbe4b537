"""The map of a site or section: every page its sources name, each with a title and where it was found.

Sources, in order: robots.txt's ``Sitemap:`` lines, ``llms.txt`` and ``llms-full.txt``
(at the root and in the section's folder), the sitemaps (those robots.txt names, else
``/sitemap.xml`` and the section's own; index files, gzip, nested), then the site's
own navigation: the start page and every page it reaches through links within the
scope, breadth first, until the map holds ``max_pages`` pages or its deadline comes.

Every request is the fetch tool's (worker.pages.fetch.get.fetch): the address guard on
every redirect hop, robots.txt when asked, the host's slot across processes; a wall
is a warning, and so is any page's failure: the others are kept.  A page's record
(title, links, headings, ids, the count of its words) is kept in the call's cache,
so a second map or crawl of the section costs no download.  A crawl's map also keeps the
pages it downloaded (``keep_bodies``, at most KEEP_BYTES), so the crawl reads them without a
second request (worker.pages.fetch.negotiate.reusable says which).  Memory stays bounded:
every list read from a page is capped (worker.site.links), a sitemap holds at most
50,000 URLs and inflates to at most 50 MB, and the map stops growing at its size.
"""

from __future__ import annotations

import threading
import time

from ..errors import WorkerError
from . import scope as scope_mod

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from ..pages.net.client import Options, Response
    from ..runtime import Call
    from .readers import Readers

KEY_VERSION = 2  # 2: the bag's terms drop a plural's s (worker.pages.answer.focus.words)
PAGE_S = 10.0  # one page's download at most, so a page that never ends costs one thread this long
MAX_SITEMAPS = 50  # sitemap files read for one map
SITEMAP_DEPTH = 4  # index files within index files
SITEMAP_BYTES = 50 * 1024 * 1024
MAX_TEXTS = 24  # link texts kept for one page
MAX_KNOWN = 100_000  # URLs remembered as seen (listed or not)
THREADS = 4
KEEP_BYTES = 32 * 1024 * 1024  # of downloaded pages a crawl's map keeps for the reading


def resolved_links(record: dict[str, Any], url: str) -> list[tuple[str, str, str]]:
    """(absolute URL, href, link text) of each link a page's record holds, resolved where the page
    was read from (its final URL, and its ``<base href>``); links that are no http(s) URL left out."""
    base = record.get("final_url") or url
    if record.get("base"):
        base = scope_mod.absolute(base, record["base"]) or base
    out = []
    for href, text in record.get("links") or ():
        got = scope_mod.absolute(base, href)
        if got is not None:
            out.append((got, href, text))
    return out


class Entry:
    """One page of the map."""

    __slots__ = ("url", "key", "title", "found", "texts", "fetched", "record", "order", "failed")

    def __init__(self, url: str, key: str, order: int) -> None:
        self.url = url
        self.key = key
        self.title: str | None = None
        self.found: list[str] = []  # sources, in the order they named the page
        self.texts: list[str] = []  # the words of links to it (and their #fragments)
        self.fetched = False
        self.record: dict[str, Any] | None = None  # what its HTML said (links.summary + bag), when read
        self.order = order
        self.failed: str | None = None  # the error code of its download

    def add_text(self, text: str) -> None:
        text = text.strip()
        if text and len(self.texts) < MAX_TEXTS and text not in self.texts:
            self.texts.append(text)

    def public(self) -> dict[str, Any]:
        return {"url": self.url, "title": self.title, "found": list(self.found)}


class Result:
    def __init__(
        self,
        scope: scope_mod.Scope,
        entries: list[Entry],
        warnings: list[str],
        stats: dict[str, Any],
        start_error: WorkerError | None = None,
        bodies: dict[str, Response] | None = None,
    ):
        self.scope = scope
        self.entries = entries  # in map order: the start, navigation's order, then the other sources'
        self.warnings = warnings
        self.stats = stats
        self.start_error = start_error  # why the start page could not be read, when it could not
        # the pages downloaded and kept (keep_bodies), by the URL asked and the URL answered
        self.bodies = bodies if bodies is not None else {}

    def pages(self) -> list[Entry]:
        """The entries that are pages: not those whose link led to an error page or out of the scope."""
        return [e for e in self.entries if e.failed not in NOT_PAGES]


# Why a listed URL is no page of the section: its link leads to an error, out of the section or to an
# address the guard refuses, or robots.txt (when respected) disallows it.
NOT_PAGES = (
    "http_error",
    "redirect",
    "unsupported_content",
    "blocked",
    "payment_required",
    "blocked_address",
    "robots",
)


class Mapper:
    """One map: ``run()`` walks the sources (see the module's docstring) and returns a Result."""

    def __init__(
        self,
        call: Call | None,
        start: str,
        *,
        mode: str = "section",
        max_pages: int = 500,
        deadline: float | None = None,
        allow_private: bool = False,
        robots: Any = None,
        store: Any = None,
        user_agent: str | None = None,
        max_bytes: int | None = None,
        fetch_limit: int | None = None,
        keep_bodies: bool = False,
    ) -> None:
        from ..pages.net import DEFAULT_MAX_BYTES

        self.call = call
        self.start = start
        self.mode = mode
        self.max_pages = max_pages
        self.fetch_limit = max_pages if fetch_limit is None else fetch_limit
        self.deadline = deadline
        self.allow_private = allow_private
        self.robots = robots
        self.store = store
        self.user_agent = user_agent
        self.max_bytes = max_bytes or DEFAULT_MAX_BYTES
        self.scope = scope_mod.Scope(start, mode)
        self.lock = threading.Lock()
        self.entries: dict[str, Entry] = {}
        self.nav: list[Entry] = []  # pages to read for their links, in the order they were found
        self.in_nav: set[str] = set()
        self.rows: list[tuple[str, str, str, dict[str, Any]]] = []  # cache rows, written at the end
        self.known: set[str] = set()
        self.left_out = 0  # in scope, but past max_pages
        self.fetches = 0
        self.hits = 0
        self.problems: dict[str, list[str]] = {}  # what went wrong -> the URLs it happened to
        self.warnings: list[str] = []
        self.sources: dict[str, int] = {}
        self.start_error: WorkerError | None = None
        self.keep_bodies = keep_bodies
        self.bodies: dict[str, Response] = {}
        self.kept_bytes = 0
        self.readers: Readers | None = None  # the map's other readers, while run() runs

    # -- time ---------------------------------------------------------------
    def left(self) -> float | None:
        now = time.monotonic()
        ends = [d for d in (self.deadline, getattr(self.call, "deadline", None)) if d is not None]
        return None if not ends else min(ends) - now

    def out_of_time(self) -> bool:
        left = self.left()
        cancelled = getattr(self.call, "cancelled", None)
        return (left is not None and left <= 0.05) or bool(cancelled is not None and cancelled.is_set())

    def options(self, accept: str | None = None, max_bytes: int | None = None) -> Options:
        from ..pages.net import client

        left = self.left()
        deadline = time.monotonic() + PAGE_S if left is None else time.monotonic() + min(PAGE_S, max(0.0, left))
        opts = client.Options(
            allow_private=self.allow_private,
            max_bytes=max_bytes or self.max_bytes,
            deadline=deadline,
            accept=accept or client.HTML_ACCEPT,
            user_agent=self.user_agent,
        )
        opts.robots = self.robots
        return opts

    def get(self, url: str, accept: str | None = None, max_bytes: int | None = None) -> Response:
        from ..pages.fetch import get as guarded

        with self.lock:
            self.fetches += 1
        return guarded.fetch(url, self.call, self.options(accept, max_bytes))

    def problem(self, what: str, url: str) -> None:
        with self.lock:
            self.problems.setdefault(what, []).append(url)

    # -- the cache ------------------------------------------------------------
    def cache_key(self, kind: str, url: str) -> str:
        from .. import jsonio

        return jsonio.dumps([KEY_VERSION, "map", kind, url, self.allow_private, self.max_bytes], separators=(",", ":"))

    def cached(self, kind: str, url: str) -> dict[str, Any] | None:
        if self.store is None:
            return None
        hit = self.store.get(self.cache_key(kind, url))
        if hit is None or not isinstance(hit[0].get(kind), dict):
            return None
        with self.lock:
            self.hits += 1
        return hit[0][kind]

    def keep(self, kind: str, url: str, value: dict[str, Any]) -> None:
        if self.store is not None:
            with self.lock:
                self.rows.append((self.cache_key(kind, url), "map", "local", {kind: value}))

    def flush(self) -> None:
        """Write what this map read to the cache, in one transaction."""
        if self.store is not None and self.rows:
            self.store.put_many(self.rows)
            self.rows = []

    # -- entries ----------------------------------------------------------------
    def add(self, url: str, source: str, text: str = "", nav: bool = False) -> Entry | None:
        """The page ``url`` named by ``source`` (a new entry, or the one it already is); None when out of scope."""
        if not self.scope.contains(url):
            return None
        url = scope_mod.clean(url)
        key = scope_mod.key(url)
        with self.lock:
            entry = self.entries.get(key)
            if entry is None:
                if len(self.entries) >= self.max_pages:
                    if key not in self.known and len(self.known) < MAX_KNOWN:
                        self.known.add(key)
                        self.left_out += 1
                    return None
                entry = self.entries[key] = Entry(url, key, len(self.entries))
                self.known.add(key)
            if nav and key not in self.in_nav:
                self.in_nav.add(key)
                self.nav.append(entry)
            if source not in entry.found:
                entry.found.append(source)
                self.sources[source] = self.sources.get(source, 0) + 1
            if text:
                entry.add_text(text)
            return entry

    # -- the run ------------------------------------------------------------------
    def run(self) -> Result:
        from .readers import Readers

        started = time.monotonic()
        # started at the first download, so their imports overlap it; a map read from the cache starts none
        self.readers = Readers(self.call, start=False)
        try:
            start_entry = self.read_start()
            if not self.out_of_time():
                sitemap_urls = self.read_robots()
                self.read_llms()
                self.read_sitemaps(sitemap_urls)
            self.walk(start_entry)
        finally:
            self.readers.close()
        self.warnings.extend(self.readers.warnings)
        self.flush()
        entries = self.ordered()
        for what, urls in self.problems.items():
            shown = ", ".join(urls[:3]) + (" and %d more" % (len(urls) - 3) if len(urls) > 3 else "")
            self.warnings.append("%s: %s" % (what, shown))
        if self.left_out:
            self.warnings.append(
                "%d more pages of %s were found but not listed: the map stops at --max-pages %d"
                % (self.left_out, self.scope.describe(), self.max_pages)
            )
        unread = sum(1 for e in entries if not e.fetched and e.failed is None)
        if unread and self.out_of_time():
            self.warnings.append(
                "the map ran out of time: %d pages listed were not read for their titles and links" % unread
            )
        stats = {
            "pages": len(entries),
            "sources": dict(self.sources),
            "requests": self.fetches,
            "cached": self.hits,
            "read": sum(1 for e in entries if e.fetched),
            "ms": int((time.monotonic() - started) * 1000),
        }
        return Result(self.scope, entries, self.warnings, stats, self.start_error, self.bodies)

    def ordered(self) -> list[Entry]:
        """The start page, the pages in the order navigation found them, then those only other sources named."""
        nav = [e for e in self.nav if e.key in self.entries]
        seen = {e.key for e in nav}
        rest = sorted((e for e in self.entries.values() if e.key not in seen), key=lambda e: e.order)
        return nav + rest

    def read_start(self) -> Entry:
        """The start page, read first: a redirect moves the scope to where it lands (``/docs/`` -> ``/docs/en/5.0/``),
        and a contents page widens it to the folder of the pages it lists (worker.site.scope.Scope.listed)."""
        record: dict[str, Any] | None = None
        try:
            record = self.page_record(self.start)
        except WorkerError as exc:
            if exc.code in ("invalid_url", "blocked_address", "robots", "cancelled"):
                raise  # nothing of the site may be read: the map's own error
            self.start_error = exc
        final = (record or {}).get("final_url") or self.start
        if final != self.start and scope_mod.Scope(final, self.mode).host == self.scope.host:
            self.scope = scope_mod.Scope(final, self.mode)
        if record is not None and not record.get("nofollow"):
            # a contents page in one folder for the pages of another (CMake's manual/ lists command/)
            self.scope = self.scope.listed([u for u, _, _ in resolved_links(record, final)])
        entry = self.add(final, "start", nav=True) or self.add(self.start, "start", nav=True)
        if entry is None:  # a start URL that is no page (an image...): still the map's first entry
            key = scope_mod.key(self.start)
            entry = self.entries[key] = Entry(self.start, key, 0)
            entry.found.append("start")
            self.nav.append(entry)
            self.in_nav.add(key)
        if record is not None:
            self.take(entry, record)
        else:
            entry.failed = self.start_error.code if self.start_error is not None else "network"
        return entry

    def page_record(self, url: str) -> dict[str, Any]:
        """What ``url``'s HTML says (from the cache, else downloaded); WorkerError when it cannot be read."""
        record = self.cached("page", url)
        if record is not None:
            return record
        if self.readers is not None:
            self.readers.start()
        try:
            resp = self.get(url)
        except WorkerError as exc:
            self.problem(_problem(exc), url)
            raise
        record = self.read_page(resp)
        self.keep("page", url, record)
        self.keep_body(url, resp)
        return record

    def keep_body(self, url: str, resp: Response) -> None:
        """Keep a downloaded page for the crawl's reading, when its answer is the one the reading
        would get and the map's kept pages stay within KEEP_BYTES."""
        if not self.keep_bodies:
            return
        from ..pages.fetch import negotiate

        if not negotiate.reusable(resp):
            return
        with self.lock:
            if self.kept_bytes + len(resp.body) > KEEP_BYTES:
                return
            self.kept_bytes += len(resp.body)
            self.bodies[url] = resp
            self.bodies.setdefault(resp.final_url, resp)

    def read_page(self, resp: Response) -> dict[str, Any]:
        """The page's record (worker.site.record), read by a free child of the map's (readers) or here."""
        from .record import Unread, record_of

        try:
            answer = self.readers.record(resp, self.deadline) if self.readers is not None else None
        except WorkerError as exc:  # the map's deadline came while a child read it
            self.problem(_problem(exc), resp.final_url)
            raise
        if answer is None:
            try:
                return record_of(resp)
            except Unread as exc:
                self.problem(exc.problem, resp.final_url)
                raise exc.error from None
        if "problem" in answer:
            self.problem(answer["problem"], resp.final_url)
            e = answer["error"]
            raise WorkerError(e["code"], e["message"], e["hint"], e["retryable"], **e["extra"])
        record: dict[str, Any] = answer["record"]
        return record

    def take(self, entry: Entry, record: dict[str, Any]) -> None:
        """Fill ``entry`` from its page's record and add the pages it links to."""
        entry.fetched = True
        entry.record = record
        if record.get("title"):
            entry.title = str(record["title"])
        if record.get("nofollow"):
            return
        for url, href, text in resolved_links(record, entry.url):
            frag = scope_mod.fragment(href)
            self.add(url, "nav", text + (" #" + frag if frag else ""), nav=True)

    def walk(self, start: Entry) -> None:
        """Read pages for their links, breadth first, on a few threads, until none is left, the map is
        full or its time is up."""
        cursor = [0]
        busy = [0]
        done = threading.Condition(self.lock)
        reads = [1]  # the start page
        rest_queued = [False]

        def next_entry() -> Entry | None:
            with done:
                while True:
                    if self.out_of_time() or reads[0] >= self.fetch_limit:
                        return None
                    while cursor[0] < len(self.nav):
                        entry = self.nav[cursor[0]]
                        cursor[0] += 1
                        if not entry.fetched and entry.failed is None:
                            busy[0] += 1
                            reads[0] += 1
                            return entry
                    if busy[0] == 0:
                        if rest_queued[0]:
                            return None
                        # navigation is done: read what only the other sources named, in their order
                        rest_queued[0] = True
                        for entry in sorted(self.entries.values(), key=lambda e: e.order):
                            if entry.key not in self.in_nav:
                                self.in_nav.add(entry.key)
                                self.nav.append(entry)
                        continue
                    done.wait(0.05)

        def worker() -> None:
            while True:
                entry = next_entry()
                if entry is None:
                    return
                try:
                    record = self.page_record(entry.url)
                    final = record.get("final_url") or entry.url
                    if final != entry.url and not self.scope.contains(final):
                        self.problem("redirected out of %s" % self.scope.describe(), entry.url)
                        entry.failed = "redirect"
                    else:
                        self.take(entry, record)
                except WorkerError as exc:
                    entry.failed = exc.code
                except Exception as exc:  # one page's trouble is a warning, never the map's end
                    self.problem("not read (%s)" % type(exc).__name__, entry.url)
                    entry.failed = "failed"
                finally:
                    with done:
                        busy[0] -= 1
                        done.notify_all()

        threads = [threading.Thread(target=worker, name="map-%d" % i, daemon=True) for i in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            left = self.left()
            t.join(None if left is None else max(0.0, left) + 0.5)
        self.merge_redirects()

    def merge_redirects(self) -> None:
        """One entry a page: URLs that redirect to the same page, or that name the same canonical URL
        (``<link rel=canonical>``, when it is in the scope: a site's canonical on another host, as a
        mirror's often is, says nothing of this copy), are merged into the first."""
        by_final: dict[str, Entry] = {}
        with self.lock:
            for entry in sorted(self.entries.values(), key=lambda e: e.order):
                record = entry.record or {}
                final = record.get("final_url")
                if not final:
                    continue
                canonical = scope_mod.absolute(final, str(record.get("canonical") or ""))
                k = scope_mod.key(canonical if canonical and self.scope.contains(canonical) else final)
                first = by_final.get(k)
                if first is None:
                    by_final[k] = entry
                    if final != entry.url and self.scope.contains(final):
                        # listed where the page is, not where a link said it was: a folder linked
                        # without its slash ("../fields" -> "../fields/") is one page at one address
                        entry.url = final
                elif first is not entry:
                    for text in entry.texts:
                        first.add_text(text)
                    first.found.extend(s for s in entry.found if s not in first.found)
                    del self.entries[entry.key]
            for entry in list(self.entries.values()):
                if entry.failed == "redirect":
                    del self.entries[entry.key]

    # -- the other sources ----------------------------------------------------------
    def origin(self) -> str:
        from urllib.parse import urlsplit, urlunsplit

        parts = urlsplit(self.scope.start)
        return urlunsplit((parts.scheme, parts.netloc, "", "", ""))

    def read_robots(self) -> list[str]:
        """The sitemaps robots.txt names (read even when robots.txt is not respected: it is the site's own map)."""
        from . import sitemaps

        url = self.origin() + "/robots.txt"
        got = self.cached("robots", url)
        if got is None:
            try:
                resp = self.get(url, accept="text/plain, */*;q=0.5", max_bytes=512 * 1024)
                got = {"sitemaps": sitemaps.robots_sitemaps(resp.body.decode("utf-8", "replace"))}
            except WorkerError as exc:
                if exc.code != "http_error":
                    return []  # the site failing: asked again next time
                got = {"sitemaps": []}  # no robots.txt: kept as an answer
            self.keep("robots", url, got)
        out = []
        for loc in got.get("sitemaps") or ():
            if self.scope.same_site(loc):
                out.append(loc)
            else:
                self.problem("a sitemap on another host, not read", loc)
        return out

    def read_llms(self) -> None:
        from . import sitemaps

        folders = ["/"] + ([self.scope.prefix] if self.scope.prefix != "/" else [])
        for folder in folders:
            for name in ("llms.txt", "llms-full.txt"):
                if self.out_of_time():
                    return
                url = self.origin() + folder + name
                got = self.cached("llms", url)
                if got is None:
                    got = {"links": []}
                    try:
                        resp = self.get(url, accept="text/markdown, text/plain;q=0.9, */*;q=0.1")
                    except WorkerError:
                        resp = None
                    if resp is not None and _media(resp) in ("text/plain", "text/markdown", "text/x-markdown"):
                        text = resp.body.decode("utf-8", "replace")
                        got = {"links": sitemaps.llms_links(text)[:MAX_KNOWN]}
                    self.keep("llms", url, got)
                for href, title in got["links"]:
                    target = scope_mod.absolute(url, href)
                    if target is not None:
                        self.add(target, name, title)

    def read_sitemaps(self, named: list[str]) -> None:
        """Every sitemap ``named`` (else the usual places), index files followed, at most MAX_SITEMAPS."""
        queue: list[tuple[str, int, bool]] = [(u, 0, True) for u in named]
        if not queue:
            queue = [(self.origin() + "/sitemap.xml", 0, False)]
            if self.scope.prefix != "/":
                queue.append((self.origin() + self.scope.prefix + "sitemap.xml", 0, False))
        seen: set[str] = set()
        off_site = 0
        read = 0
        while queue and read < MAX_SITEMAPS and not self.out_of_time():
            url, depth, asked = queue.pop(0)
            if url in seen:
                continue
            seen.add(url)
            read += 1
            got = self.cached("sitemap", url)
            if got is None:
                got = self.read_sitemap(url, asked)
                if got is None:
                    continue
                self.keep("sitemap", url, got)
            if got["kind"] == "missing":
                continue
            if got["kind"] == "index":
                if depth + 1 > SITEMAP_DEPTH:
                    self.problem("sitemap index files nested too deep, not read", url)
                    continue
                children = [u for u in got["urls"] if self.scope.same_site(u)]
                off_site += len(got["urls"]) - len(children)
                # the section's own sitemaps first: a large site has hundreds
                children.sort(key=lambda u: not _path(u).startswith(self.scope.prefix))
                queue.extend((u, depth + 1, True) for u in children)
                continue
            for loc in got["urls"]:
                if self.add(loc, "sitemap") is None and not self.scope.same_site(loc):
                    off_site += 1
        if queue and read >= MAX_SITEMAPS:
            self.warnings.append("%d more sitemaps not read (the map reads at most %d)" % (len(queue), MAX_SITEMAPS))
        if off_site:
            self.warnings.append("%d sitemap entries on other hosts were left out" % off_site)

    def read_sitemap(self, url: str, asked: bool) -> dict[str, Any] | None:
        from . import sitemaps

        try:
            resp = self.get(url, accept="application/xml, text/xml;q=0.9, */*;q=0.5", max_bytes=SITEMAP_BYTES)
        except WorkerError as exc:
            if asked:
                self.problem("sitemap not read (%s)" % exc.code, url)
            # none there (an HTTP error) is kept as an answer; the site failing is asked again next time
            return {"kind": "missing", "urls": []} if exc.code == "http_error" else None
        if resp.truncated:
            self.problem("sitemap cut at %d bytes" % SITEMAP_BYTES, url)
        try:
            kind, urls = sitemaps.parse(sitemaps.inflate(resp.body, SITEMAP_BYTES))
        except sitemaps.Bomb:
            self.problem(
                "sitemap refused: its gzip body inflates past %d MB (a compression bomb)" % (SITEMAP_BYTES >> 20), url
            )
            return None
        except ValueError:
            if asked:
                self.problem("not a sitemap", url)
            return {"kind": "missing", "urls": []}
        return {"kind": kind, "urls": urls}


def _media(resp: Response) -> str:
    return (resp.content_type or "").split(";", 1)[0].strip().lower()


def _path(url: str) -> str:
    from urllib.parse import urlsplit

    try:
        return urlsplit(url).path or "/"
    except ValueError:
        return "/"


def _problem(exc: WorkerError) -> str:
    status = exc.extra.get("status")
    return "not read (%s%s)" % (exc.code, " %s" % status if status else "")
