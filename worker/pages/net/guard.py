"""Which URLs and addresses a fetch may touch.

Two checks, both on every hop of every download (``worker.pages.net.client`` calls
them; no caller can skip them):

* ``check_url``: only http(s), a host, no credentials, a sane port;
* ``vet_addresses``: every address the host resolves to must be public.  One
  private answer refuses the host (an attacker's DNS may mix them), and the
  client then connects to the vetted address itself, so no second lookup can
  swap in another (DNS rebinding).
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from urllib.parse import urlsplit

from ...errors import WorkerError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any
    from urllib.parse import SplitResult

ALLOWED_SCHEMES = ("http", "https")

# Networks refused beyond what ipaddress flags as non-global.  Most are already
# non-global; listing them keeps the rule readable and independent of the
# Python version's ipaddress tables.
_EXTRA_BLOCKED = tuple(
    ipaddress.ip_network(n)
    for n in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",
        "240.0.0.0/4",
        "255.255.255.255/32",
        "::/128",
        "::1/128",
        "fc00::/7",
        "fe80::/10",
        "fec0::/10",
        "ff00::/8",
        "2001:db8::/32",
        "100::/64",
    )
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_V4_COMPAT = ipaddress.ip_network("::/96")
# Cloud metadata endpoints, named so the error message can say so.
METADATA = frozenset(
    {
        ipaddress.ip_address("169.254.169.254"),
        ipaddress.ip_address("fd00:ec2::254"),
        ipaddress.ip_address("100.100.100.200"),
    }
)


def _embedded_v4(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 form carries (mapped, 6to4, Teredo, NAT64, compatible)."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.ipv4_mapped:
        return ip.ipv4_mapped
    if ip.sixtofour:
        return ip.sixtofour
    if ip.teredo:
        return ip.teredo[1]
    if ip in _NAT64 or (ip in _V4_COMPAT and int(ip) > 1):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def blocked_reason(address: str | ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why ``address`` (str or ip_address) may not be fetched, or None if it is public."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0] if isinstance(address, str) else address)
    except ValueError:
        return "not an IP address"
    inner = _embedded_v4(ip)
    if inner is not None:
        reason = blocked_reason(inner)
        return reason and "%s (inside %s)" % (reason, ip)
    if ip in METADATA:
        return "a cloud metadata address"
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_multicast:
        return "a multicast address"
    if ip.is_unspecified:
        return "an unspecified address"
    if ip.is_private or any(ip in net for net in _EXTRA_BLOCKED) or ip.is_reserved or not ip.is_global:
        return "a private or reserved address"
    return None


def check_url(url: str) -> tuple[str, str, int, str]:
    """Validate ``url`` for fetching; return its parts (scheme, host, port, target).

    Raises WorkerError("invalid_url") with a message saying what is wrong.
    """
    if not isinstance(url, str) or not url.strip():
        raise WorkerError("invalid_url", "empty URL", hint="pass a full http(s) URL such as https://example.org/page")
    raw = url.strip()
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in raw):
        raise WorkerError("invalid_url", "the URL contains control characters: %r" % raw[:200])
    if any("\ud800" <= ch <= "\udfff" for ch in raw):
        # A byte that is not UTF-8 on the command line arrives as a lone surrogate.
        raise WorkerError(
            "invalid_url",
            "the URL is not valid UTF-8 text: %r" % raw[:200],
            hint="percent-encode bytes that are not UTF-8 (%XX)",
        )
    try:
        parts = urlsplit(raw)
    except ValueError as exc:  # e.g. "Invalid IPv6 URL" for http://[::1:80/x
        raise WorkerError("invalid_url", "not a valid URL (%s): %r" % (exc, raw[:200])) from None
    scheme = parts.scheme.lower()
    if not scheme or "://" not in raw:
        if scheme in ("javascript", "data", "mailto", "file", "about", "blob"):
            raise WorkerError("invalid_url", "%s: URLs cannot be fetched; only http and https" % scheme)
        raise WorkerError(
            "invalid_url",
            "not a URL: %r" % raw[:200],
            hint="pass a full URL with its scheme, e.g. https://%s" % raw.split()[0][:100],
        )
    if scheme not in ALLOWED_SCHEMES:
        raise WorkerError(
            "invalid_url",
            "%s: URLs cannot be fetched; only http and https" % scheme,
            hint="download the file another way, or give its http(s) address",
        )
    if "@" in parts.netloc:
        raise WorkerError(
            "invalid_url",
            "credentials in URLs are refused",
            hint="remove the user:password@ part; the worker never sends credentials",
        )
    host = parts.hostname
    if not host:
        raise WorkerError("invalid_url", "the URL has no host: %r" % raw[:200])
    try:
        port = parts.port
    except ValueError:
        raise WorkerError("invalid_url", "bad port in URL: %r" % raw[:200]) from None
    if port == 0:
        raise WorkerError("invalid_url", "bad port in URL: %r" % raw[:200])
    if any(ch.isspace() for ch in host) or not all(ch.isprintable() for ch in host):
        raise WorkerError("invalid_url", "bad host in URL: %r" % raw[:200])
    try:
        ipaddress.ip_address(host)
        ascii_host = host
    except ValueError:
        try:
            ascii_host = host.rstrip(".").encode("idna").decode("ascii") if not host.isascii() else host.rstrip(".")
        except UnicodeError:
            raise WorkerError("invalid_url", "bad host name in URL: %r" % host[:200]) from None
        if not ascii_host or ascii_host.startswith(".") or ".." in ascii_host:
            raise WorkerError("invalid_url", "bad host name in URL: %r" % host[:200]) from None
    port = port or (443 if scheme == "https" else 80)
    target = _request_target(parts)
    return scheme, ascii_host.lower(), port, target


def _request_target(parts: SplitResult) -> str:
    """Path and query as sent on the request line: percent-encoded, no fragment."""
    from urllib.parse import quote

    path = quote(parts.path or "/", safe="/%:@!$&'()*+,;=-._~")
    if not path.startswith("/"):
        path = "/" + path
    if parts.query:
        path += "?" + quote(parts.query, safe="/%:@!$&'()*+,;=-._~?[]")
    return path


def resolve(host: str, port: int, timeout: float) -> list[str]:
    """All addresses for ``host`` (getaddrinfo on a helper thread so it obeys ``timeout``)."""
    try:
        ipaddress.ip_address(host)
        literal = True
    except ValueError:
        literal = False
    if literal:
        return [host]
    box: dict[str, Any] = {}

    def lookup() -> None:
        try:
            box["infos"] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except Exception as exc:  # handed back to the caller
            box["error"] = exc

    t = threading.Thread(target=lookup, name="dns", daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        raise WorkerError("timeout", "DNS lookup for %s took longer than %.1fs" % (host, timeout))
    if "error" in box:
        raise WorkerError(
            "network", "DNS lookup failed for %s: %s" % (host, box["error"]), hint="check the host name and the network"
        )
    seen = []
    for info in box["infos"]:
        addr = info[4][0]
        if addr not in seen:
            seen.append(addr)
    return seen


def vet_addresses(host: str, addresses: list[str], allow_private: bool) -> list[str]:
    """Return the addresses to connect to, or raise blocked_address if any is not public."""
    if allow_private:
        return addresses
    for addr in addresses:
        reason = blocked_reason(addr)
        if reason:
            shown = host if host == addr else "%s (%s)" % (host, addr)
            raise WorkerError(
                "blocked_address",
                "refused to fetch %s: %s" % (shown, reason),
                hint="pass --allow-private (or set allowPrivate in the config) for local or intranet servers",
            )
    return addresses
