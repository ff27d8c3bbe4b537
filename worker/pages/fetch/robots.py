"""robots.txt, when the user asks for it: fetched once per origin, kept 24 hours in the shared cache.

What a fetch of ``/robots.txt`` means (RFC 9309 2.3.1):

* 2xx: its rules (worker.pages.fetch.robots_rules);
* 4xx, or more than 5 redirects: "unavailable", no rules;
* 5xx, a network failure or a timeout: "unreachable", everything disallowed; that
  verdict is kept ``UNREACHABLE_TTL`` seconds, then the file is asked for again.

A URL the rules disallow is the item error ``robots`` naming the rule.  One
origin's file is fetched once per process even when a batch holds many of its URLs.
"""

from __future__ import annotations

import threading
import time

from ...errors import WorkerError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from ..net.client import Options

TTL = 24 * 3600.0
UNREACHABLE_TTL = 600.0  # RFC 9309 lets "disallow all" stand while the file is unreachable; we ask again after this
TIMEOUT_S = 5.0  # for robots.txt itself, within the page's own deadline
KEY_VERSION = 1
DEFAULT_AGENT = "websearch-worker"


def origin_of(url: str) -> tuple[str, str, str]:
    """(origin, robots.txt URL, the path and query to match) of an http(s) URL; ValueError when it has no host."""
    from urllib.parse import urlsplit

    from . import robots_rules as robots

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(url)
    port = parts.port
    default = 443 if parts.scheme == "https" else 80
    host = parts.hostname if ":" not in parts.hostname else "[%s]" % parts.hostname
    origin = "%s://%s%s" % (parts.scheme, host.lower(), "" if port in (None, default) else ":%d" % port)
    return origin, origin + "/robots.txt", robots.target(parts.path, parts.query)


def _read(robots_url: str, opts: Options) -> dict[str, Any]:
    """What fetching robots.txt said: {"state": "rules"|"unavailable"|"unreachable", "text"|"why"}."""
    import copy

    from ..net import client
    from . import robots_rules as robots

    one = copy.copy(opts)
    one.max_bytes = robots.MAX_BYTES
    one.max_redirects = 5
    one.keep_errors = True  # a 4xx or 5xx is an answer here, not an error
    one.refuse = None
    one.headers = None
    one.redirect_check = None  # robots.txt's own redirects are not pages: never checked against robots.txt
    one.accept = "text/plain, */*;q=0.5"
    soon = time.monotonic() + TIMEOUT_S
    one.deadline = soon if opts.deadline is None else min(opts.deadline, soon)
    try:
        resp = client.download(robots_url, one)
    except WorkerError as exc:
        if exc.code == "http_error" and exc.extra.get("status") in client.REDIRECTS:
            return {"state": "unavailable", "why": "more than 5 redirects"}
        return {"state": "unreachable", "why": "%s: %s" % (exc.code, exc.message)}
    if resp.status >= 500:
        return {"state": "unreachable", "why": "HTTP %d" % resp.status}
    if resp.status >= 300:
        return {"state": "unavailable", "why": "HTTP %d" % resp.status}
    # UTF-8 with or without a byte-order mark: a Windows editor's BOM is no part of the first
    # line's key (robots.parse drops one too, for a text cached before this was so)
    return {"state": "rules", "text": robots.decode(resp.body)}


class RobotsCheck:
    """Refuses the URLs robots.txt disallows for ``agent``; one per call."""

    def __init__(self, agent: str | None, directory: str | None, use_cache: bool, call: Any = None) -> None:
        self.agent = (agent or DEFAULT_AGENT).strip()
        self.directory = directory
        self.use_cache = use_cache and directory is not None
        self.call = call
        self._lock = threading.Lock()
        self._origins: dict[str, threading.Lock] = {}
        self._known: dict[str, dict[str, Any]] = {}
        self.fetched = 0  # robots.txt files downloaded in this call (the tests' and the meta's count)

    def _store(self, ttl: float) -> Any:
        from ...state import cache

        return cache.Store(cache.Policy(self.directory or "", ttl=ttl), self.call)

    def _verdict(self, origin: str, robots_url: str, opts: Options) -> dict[str, Any]:
        with self._lock:
            lock = self._origins.setdefault(origin, threading.Lock())
        with lock:  # a batch's URLs of one origin wait for one download of its robots.txt
            known = self._known.get(origin)
            if known is not None:
                return known
            key = "robots|%d|%s" % (KEY_VERSION, origin)
            if self.use_cache:
                store = self._store(TTL)
                hit = store.get(key)
                store.close()
                if hit is not None and isinstance(hit[0].get("robots"), dict):
                    self._known[origin] = hit[0]["robots"]
                    return hit[0]["robots"]
            verdict = _read(robots_url, opts)
            self.fetched += 1
            if self.use_cache:
                keep = UNREACHABLE_TTL if verdict["state"] == "unreachable" else TTL
                store = self._store(keep)
                store.put(key, "robots", "robots", {"robots": verdict})
                store.close()
            self._known[origin] = verdict
            return verdict

    def check(self, url: str, opts: Options) -> None:
        """Return when robots.txt allows ``url``; raise the ``robots`` WorkerError when it does not."""
        from . import robots_rules as robots

        try:
            origin, robots_url, path = origin_of(url)
        except ValueError:
            return  # not a URL we can fetch at all: the download words that error
        verdict = self._verdict(origin, robots_url, opts)
        if verdict["state"] == "unreachable":
            raise WorkerError(
                "robots",
                "%s: %s could not be read (%s); RFC 9309 says to assume everything is disallowed until it can"
                % (url, robots_url, verdict.get("why")),
                hint="try again later, or fetch without --respect-robots if the site allows it",
                retryable=True,
                agent=self.agent,
                robots_url=robots_url,
            )
        if verdict["state"] != "rules":
            return
        allowed, rule = robots.decide(robots.rules_for(robots.parse(verdict["text"]), self.agent), path)
        if allowed:
            return
        written = "Disallow: %s" % rule[1] if rule is not None else None
        raise WorkerError(
            "robots",
            "%s: %s disallows it for %s (%s)" % (url, robots_url, self.agent, written),
            hint="the site asks crawlers like this one not to read the page",
            rule=written,
            agent=self.agent,
            robots_url=robots_url,
        )
