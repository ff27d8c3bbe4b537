"""HTTPS_PROXY / HTTP_PROXY / NO_PROXY from the environment, the curl way.

Our own small reader instead of urllib.request's (which costs ~40 ms of
imports): lower-case names win over upper-case; NO_PROXY is a comma list of
host suffixes, ``*`` for all, and optional ``:port``.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit


def _env(name: str) -> str:
    value = os.environ.get(name.lower())
    if value is None:
        value = os.environ.get(name.upper())
    return (value or "").strip()


def bypass(host: str, port: int) -> bool:
    """Does NO_PROXY say to connect to ``host`` directly?"""
    host = host.lower().rstrip(".")
    for entry in _env("no_proxy").split(","):
        entry = entry.strip().lower()
        if not entry:
            continue
        if entry == "*":
            return True
        name, _, eport = entry.rpartition(":") if entry.count(":") == 1 else (entry, "", "")
        if eport and eport.isdigit() and int(eport) != port:
            continue
        name = name.strip("[]").lstrip("*").lstrip(".")
        if host == name or host.endswith("." + name):
            return True
    return False


def proxy_for(scheme: str, host: str, port: int) -> tuple[str, int, str | None] | None:
    """(proxy_host, proxy_port, proxy_auth_header or None) for this target, or None for direct."""
    raw = _env("%s_proxy" % scheme)
    if not raw or bypass(host, port):
        return None
    if "://" not in raw:
        raw = "http://" + raw
    parts = urlsplit(raw)
    if parts.scheme != "http" or not parts.hostname:
        # Never fall back to a direct connection the user did not ask for.
        from ...errors import WorkerError

        raise WorkerError(
            "network",
            "unsupported proxy %s_PROXY=%s://...: only http:// proxies are supported" % (scheme.upper(), parts.scheme),
            hint="use an http:// proxy URL (CONNECT is used for https)",
        )
    auth = None
    if parts.username is not None:
        import base64
        from urllib.parse import unquote

        token = "%s:%s" % (unquote(parts.username), unquote(parts.password or ""))
        auth = "Basic " + base64.b64encode(token.encode("utf-8")).decode("ascii")
    return parts.hostname, parts.port or (443 if parts.scheme == "https" else 80), auth
