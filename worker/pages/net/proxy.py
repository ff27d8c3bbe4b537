"""HTTPS_PROXY / HTTP_PROXY / NO_PROXY from the environment, the curl way.

Our own small reader instead of urllib.request's (which costs ~40 ms of
imports): lower-case names win over upper-case; NO_PROXY is a comma list of
host suffixes, ``*`` for all, and optional ``:port`` (an entry it cannot read
is passed over, as curl does).

``check_environment`` runs where a provider is built (providers/registry.py):
the keyed APIs (urllib), exa-py (requests) and ddgs (primp) read the same
variables with readers of their own, so a proxy URL that does not parse is the
call's one ``invalid_url`` error naming the variable, not some library's
exception later.  ``proxy_for`` says the same where our own client reads one.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from ... import numbers

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Mapping

# The variables some HTTP stack of ours reads a proxy URL from: urllib and requests read every
# *_proxy (ALL_PROXY included), primp HTTPS_PROXY and ALL_PROXY, ddgs its own DDGS_PROXY.
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "DDGS_PROXY")
SCHEMES = ("http", "https", "socks4", "socks4a", "socks5", "socks5h")


def _named(name: str) -> tuple[str, str]:
    """(the variable as set, its value stripped): the lower-case name wins over the upper-case one."""
    value = os.environ.get(name.lower())
    if value is not None:
        return name.lower(), value.strip()
    return name.upper(), (os.environ.get(name.upper()) or "").strip()


def _env(name: str) -> str:
    return _named(name)[1]


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
        if eport and numbers.or_none(eport, 1, 65535, integer=True) != port:
            continue  # another port, or one that cannot be read: the entry is passed over
        name = name.strip("[]").lstrip("*").lstrip(".")
        if host == name or host.endswith("." + name):
            return True
    return False


def proxy_for(scheme: str, host: str, port: int) -> tuple[str, int, str | None] | None:
    """(proxy_host, proxy_port, proxy_auth_header or None) for this target, or None for direct."""
    variable, raw = _named("%s_proxy" % scheme)
    if not raw or bypass(host, port):
        return None
    why = problem(raw)
    if why is not None:  # the check before the providers was skipped (an answer from the cache)
        raise unusable(variable, raw, why)
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


def problem(value: str) -> str | None:
    """Why ``value`` is not a proxy URL any of our HTTP stacks can use, or None when it is one."""
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in value):
        return "it holds spaces or control characters"
    url = value if "://" in value else "http://" + value
    try:
        parts = urlsplit(url)
        port = parts.port
        host = parts.hostname
    except ValueError as exc:  # "Invalid IPv6 URL", "Port out of range 0-65535", a port that is not a number
        return str(exc)[:100] or "it does not parse"
    if parts.scheme.lower() not in SCHEMES:
        return "its scheme %s:// is none of %s" % (parts.scheme[:20], ", ".join(s + "://" for s in SCHEMES))
    if not host:
        return "it names no host"
    if port == 0:
        return "port 0 is no port"
    return None


def shown(value: str) -> str:
    """``value`` for a message: what stands before an "@" (a user name and password) masked, clipped."""
    scheme, sep, rest = value.partition("://")
    if not sep:
        scheme, rest = "", value
    if "@" in rest:
        rest = "***@" + rest.rpartition("@")[2]
    text = (scheme + sep + rest) if sep else rest
    return text if len(text) <= 80 else text[:77] + "..."


def check_environment(environ: Mapping[str, str] | None = None) -> None:
    """Raise invalid_url naming the first proxy variable whose value is set but no usable proxy URL."""
    environ = os.environ if environ is None else environ
    for name in PROXY_VARIABLES:
        value = (environ.get(name) or "").strip()
        if not value or (name == "DDGS_PROXY" and value == "tb"):
            continue
        why = problem(value)
        if why is not None:
            raise unusable(name, value, why)


def unusable(name: str, value: str, why: str) -> Exception:
    """The invalid_url error for proxy variable ``name``, its value shown with the password masked."""
    from ...errors import WorkerError

    return WorkerError(
        "invalid_url",
        "the proxy variable %s=%s is not a usable proxy URL: %s" % (name, shown(value), why),
        hint="fix or unset %s (a proxy URL looks like http://proxy.example:3128)" % name,
    )
