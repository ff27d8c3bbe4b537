"""Site adapters: a few sites read through their own APIs instead of their HTML.

``match`` is all an ordinary fetch pays for: a host lookup in a small table, no
imports.  An adapter module (one per site) is imported only when a URL is its.

An adapter module has ``NAME`` and ``read(ctx, url, parts)``, which returns a
``Doc`` or raises ``Fallback`` (the site cannot answer this URL that way: an API
limit, a shape it does not know); a Fallback becomes an ordinary fetch of the
page with the reason as a warning.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from ..read.doc import Doc as Doc  # an adapter's answer; the adapters name it from here

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any, Iterable, overload
    from urllib.parse import SplitResult

    from ...runtime import Call
    from ..net.client import Options, Response
    from ..spec import Spec


# host -> adapter name.  PyPI is absent on purpose: its pages live on a package
# registry's own host, which the repository does not name; config "hosts" adds it.
HOSTS = {
    "github.com": "github",
    "www.github.com": "github",
    "gist.github.com": "github",
    "stackoverflow.com": "stackexchange",
    "superuser.com": "stackexchange",
    "serverfault.com": "stackexchange",
    "askubuntu.com": "stackexchange",
    "mathoverflow.net": "stackexchange",
    "npmjs.com": "npm",
    "www.npmjs.com": "npm",
    "arxiv.org": "arxiv",
    "www.arxiv.org": "arxiv",
    "export.arxiv.org": "arxiv",
}
SUFFIXES = ((".stackexchange.com", "stackexchange"), (".stackoverflow.com", "stackexchange"))
NAMES = ("github", "stackexchange", "pypi", "npm", "arxiv")
# formats the adapters answer; html and raw mean "the page as served", so they fetch it.
FORMATS = ("markdown", "text")


def _host_port(url: str) -> tuple[SplitResult, str, int | None] | tuple[None, None, None]:
    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").rstrip(".").lower()
        port = parts.port
    except (ValueError, AttributeError):
        return None, None, None
    if parts.scheme.lower() not in ("http", "https") or not host:
        return None, None, None
    return parts, host, port


def match(url: str, sites: dict[str, Any] | None = None) -> str | None:
    """The adapter name for ``url`` (or None), from the host table and the config's "hosts"."""
    parts, host, port = _host_port(url)
    if parts is None or host is None:
        return None
    name: str | None
    sites = sites or {}
    for name in NAMES:
        extra = [h.strip().lower() for h in (sites.get(name) or {}).get("hosts") or ()]
        if host in extra or (port and "%s:%d" % (host, port) in extra):
            return name
    name = HOSTS.get(host)
    if name is None:
        name = next((n for suffix, n in SUFFIXES if host.endswith(suffix)), None)
    if name is not None and (sites.get(name) or {}).get("enabled", True) is False:
        return None
    return name


class Fallback(Exception):
    """The adapter cannot answer; the message becomes the warning on the HTML fetch."""


class Context:
    """What an adapter may use: the guarded GET with the call's options, and its settings."""

    def __init__(self, name: str, call: Call | None, opts: Options, settings: dict[str, Any] | None, fmt: str):
        self.name = name
        self.call = call
        self.opts = opts
        self.settings = settings or {}
        self.md = fmt == "markdown"
        self.fmt = fmt
        self.meta: dict[str, Any] = {}  # facts for the item's "meta" (token used, API calls...)
        self.requests = 0
        self.warnings: list[str] = []  # fields of the API's answer left out, said on the item
        self._auth: tuple[dict[str, str], tuple[str, ...]] | None = None

    # With a default, a base is a str: check_config keeps a configured one a string. (self is
    # annotated because tests/test_quality.py's check sees a method under an "if" as a function.)
    if TYPE_CHECKING:

        @overload
        def base(self: Context, key: str) -> str | None: ...
        @overload
        def base(self: Context, key: str, default: str) -> str: ...

    def base(self, key: str, default: str | None = None) -> str | None:
        value = self.settings.get(key) or default
        return value.rstrip("/") if isinstance(value, str) else None

    def configured(self, key: str) -> bool:
        return isinstance(self.settings.get(key), str)

    def auth(self, header: dict[str, str], bases: Iterable[str | None]) -> None:
        """Send ``header`` (a dict) on requests to ``bases`` only (never to a redirect elsewhere)."""
        self._auth = (header, tuple(b.rstrip("/") + "/" for b in bases if b))

    def get(self, url: str, accept: str | None = None, max_bytes: int | None = None) -> Response:
        """A guarded GET; returns the client Response, 4xx/5xx included (the adapter reads them)."""
        from ..fetch.get import download
        from ..net import client

        trusted = tuple(
            self.settings[k].rstrip("/") + "/"
            for k in ("apiBase", "rawBase", "htmlBase", "pdfBase")
            if isinstance(self.settings.get(k), str)
        )
        auth = self._auth

        def headers(hop: str) -> dict[str, str]:
            out: dict[str, str] = {"Accept": accept} if accept else {}
            if auth is not None and hop.startswith(auth[1]):
                out.update(auth[0])
            return out

        opts = client.Options(
            allow_private=self.opts.allow_private,
            max_bytes=max_bytes or self.opts.max_bytes,
            deadline=self.opts.deadline,
            headers=headers,
            keep_errors=True,
            trusted=lambda hop: bool(trusted) and hop.startswith(trusted),
        )
        self.requests += 1
        return download(url, self.call, opts)

    def json(self, url: str, what: str) -> tuple[Response, Any]:
        """GET ``url`` and parse its JSON; a non-JSON body is a Fallback."""
        from ... import jsonio

        resp = self.get(url, accept="application/json")
        try:
            return resp, jsonio.loads(resp.body.decode("utf-8", "replace"))
        except Exception:  # any parse failure means "not the shape we know"
            if resp.status >= 400:  # an error page: the status says enough
                return resp, None
            raise Fallback("%s: %s did not answer JSON" % (self.name, what)) from None


def settings_of(sites: dict[str, Any] | None, name: str) -> dict[str, Any]:
    return dict((sites or {}).get(name) or {})


def fetch(name: str, url: str, call: Call | None, opts: Options, spec: Spec) -> Doc | Response:
    """A Doc for ``url`` from adapter ``name``, or the ordinary download with a warning."""
    from importlib import import_module

    from ...errors import WorkerError
    from ..fetch.get import download

    module = import_module(__name__ + "." + name)
    ctx = Context(name, call, opts, settings_of(spec.sites, name), spec.fmt)
    reason: str | None
    try:
        doc = module.read(ctx, url, urlsplit(url.strip()))
    except Fallback as exc:
        reason = str(exc)
    except WorkerError as exc:
        if exc.code in ("timeout", "cancelled"):
            raise
        reason = "%s: %s" % (name, exc.message)
    else:
        if doc is None:
            reason = None
        else:
            from ... import jsonio

            doc.extractor = "adapter:" + name
            doc.warnings.extend(ctx.warnings)
            doc.meta.update(ctx.meta, api_requests=ctx.requests)
            # The adapters read numbers through worker.checked (NaN and 1e400 are left out with a
            # warning); should one slip through, it is null here, not the call's encoder error.
            jsonio.tame(doc.meta)
            jsonio.tame(doc.fields)
            return doc
    try:
        resp = download(url, call, opts)
    except WorkerError as exc:
        if reason:  # both ways failed: say why the adapter did not answer either
            exc.message = "%s (before that, %s)" % (exc.message, reason)
        raise
    if reason:
        resp.adapter_warnings = ["%s; read the HTML page instead" % reason]
    return resp


def check_config(value: Any) -> str | None:
    """A problem with the "sites" setting, or None."""
    if not isinstance(value, dict):
        return '"sites" must be an object such as {"github": {"apiBase": "..."}}'
    for name, entry in value.items():
        if name.startswith(("$", "_")):
            continue
        if name not in NAMES:
            return '"sites" has unknown site "%s" (accepted: %s)' % (name, ", ".join(NAMES))
        if not isinstance(entry, dict):
            return '"sites": "%s" must be an object' % name
        for key, item in entry.items():
            if key.startswith(("$", "_")):
                continue
            if key in ("apiBase", "rawBase", "htmlBase", "pdfBase"):
                if (
                    not isinstance(item, str)
                    or not item.startswith(("http://", "https://"))
                    or any(ch.isspace() for ch in item)
                ):
                    return '"sites": "%s": "%s" must be an http(s) URL' % (name, key)
            elif key == "hosts":
                if not isinstance(item, list) or not all(isinstance(h, str) and h.strip() for h in item):
                    return '"sites": "%s": "hosts" must be a list of host names' % name
            elif key == "enabled":
                if not isinstance(item, bool):
                    return '"sites": "%s": "enabled" must be true or false' % name
            elif key == "key" and name == "stackexchange":  # the search source's API key (worker/tools/multisearch.py)
                if not isinstance(item, str) or not item.strip() or not item.isascii() or not item.isprintable():
                    return '"sites": "stackexchange": "key" must be the API key, a string'
            else:
                return (
                    '"sites": "%s" has unknown key "%s" (accepted: apiBase, rawBase, htmlBase, pdfBase, hosts, enabled%s)'
                    % (name, key, ", key" if name == "stackexchange" else "")
                )
    return None
