"""The guarded download: GET one URL with every rule of the fetch tool around the HTTP
client (worker.pages.net.client): robots.txt on every hop, one per-host slot across the
worker's processes, content negotiation (llms.txt, a page's markdown alternate), the
cache's revalidation headers, and an HTTP error whose page is a bot wall named ``blocked``.

The one per-URL network step, kept alone so a cache or per-host politeness slot can wrap
it in one place; the fetch (pipeline.py) and the site adapters (sites/) both call it.
"""

from __future__ import annotations

from ...errors import WorkerError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Callable

    from ...runtime import Call
    from ..net.client import Options, Response


def download(url: str, call: Call | None, opts: Options) -> Response:
    """GET one URL with every safety rule (``worker.pages.net.client``); the seam for cache/politeness wrappers."""
    from . import negotiate

    conditional = getattr(opts, "conditional", None)

    def get(target: str, accept: str | None) -> Response:
        one = opts if accept is None else _with_accept(opts, accept)
        if conditional and target == url:  # a revalidation: on every hop of the page's own request
            one = _with_headers(one, conditional)
        return fetch(target, call, one)

    return negotiate.fetch(url, get, llms_txt=getattr(opts, "llms_txt", False), first=_prefetched(opts))


def _prefetched(opts: Options) -> Response | None:
    """The page another request of this call already downloaded (``opts.prefetched``: a crawl's
    map), when this request would have taken it whole; told to ``opts.refuse`` as a download's
    head is (the reading child starts on it)."""
    resp = getattr(opts, "prefetched", None)
    if resp is None or resp.truncated or len(resp.body) > opts.max_bytes:
        return None
    if opts.refuse is not None:
        problem = opts.refuse(resp.content_type, len(resp.body))
        if problem is not None:
            raise problem
    return resp


def fetch(url: str, call: Call | None, opts: Options) -> Response:
    """One GET with the rules but content negotiation: robots.txt on every hop (``opts.robots``),
    the host's slot, a wall's HTTP error named ``blocked`` (a site map reads sitemaps and pages so)."""
    from urllib.parse import urlsplit

    # Politeness: at most ratelimit.HOST_CONCURRENCY requests to one host across all worker processes.
    from ...state import ratelimit
    from ..net import client

    robots = getattr(opts, "robots", None)
    try:
        hop = urlsplit(url).hostname
    except ValueError:  # "http://[::1:80/x": client.download words it as invalid_url
        hop = None
    one = opts
    if robots is not None:
        robots.check(url, opts)
        one = _with_redirect_check(one, lambda hop_url: robots.check(hop_url, opts))
    with ratelimit.host_slot(call, hop, deadline=opts.deadline):
        try:
            return client.download(url, one)
        except WorkerError as exc:
            raise _wall_or(exc, url) from None


def _with_accept(opts: Options, accept: str) -> Options:
    import copy

    one = copy.copy(opts)
    one.accept = accept
    return one


def _with_redirect_check(opts: Options, check: Callable[[str], None]) -> Options:
    import copy

    one = copy.copy(opts)
    one.redirect_check = check
    return one


def _with_headers(opts: Options, headers: dict[str, str]) -> Options:
    import copy

    one = copy.copy(opts)
    one.headers = lambda hop: dict(headers)
    return one


def _wall_or(exc: WorkerError, url: str) -> WorkerError:
    """A ``blocked`` error when an HTTP error's page is a bot challenge or a login wall, else exc."""
    page = getattr(exc, "response", None)
    if exc.code != "http_error" or page is None or not page.body:
        return exc
    from ..checks import walls
    from ..read import content

    try:
        html, _, _ = content.decode(page.body, page.content_type, "html")
        wall = walls.challenge(page.status, page.headers, html) or walls.login_or_paywall(
            url, page.final_url, page.status, html, " ".join(walls.visible_text(html).split())
        )
    except Exception:  # a page we cannot read leaves the HTTP error as it was
        return exc
    if not wall or wall["reason"] == "paywall":
        return exc
    return walls.blocked_error(page.final_url, wall, page.status)
