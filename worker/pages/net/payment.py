"""HTTP 402 Payment Required as the ``payment_required`` error, carrying what the site asked.

Sites that charge AI agents answer 402 with the price in headers (Cloudflare's
pay per crawl: ``crawler-price``), a challenge (``WWW-Authenticate: L402 ...``) or a
JSON body of payment requirements (x402: ``accepts``).  A host can show or act on
them; the worker pays nothing.  Pure: the client hands in the status, headers and
the start of the body.
"""

from __future__ import annotations

from ...errors import WorkerError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Mapping
    from typing import Any

MAX_HEADER_CHARS = 2000
MAX_DETAILS_BYTES = 16 * 1024
# Header names (lower case) that say what a payment would be; plus any name with "payment" or "price" in it.
NAMED = ("www-authenticate", "crawler-price", "crawler-max-price", "crawler-charged", "link")


def payment_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The response headers that describe the payment asked for, values cut to a bound."""
    out = {}
    for name, value in headers.items():
        name = name.lower()
        if name in NAMED or "payment" in name or "price" in name or name.startswith("x-402"):
            if name == "link" and "payment" not in value.lower():
                continue  # an ordinary Link header says nothing of payment
            out[name] = " ".join(str(value).split())[:MAX_HEADER_CHARS]
    return out


def details(body: bytes | None, content_type: str) -> object | None:
    """A JSON body (x402's payment requirements) as data, when it is small and parses."""
    if not body or len(body) > MAX_DETAILS_BYTES or "json" not in (content_type or "").lower():
        return None
    from ... import jsonio

    try:
        return jsonio.loads(body.decode("utf-8"), allow_nan=False)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None


def payment_error(url: str, headers: Mapping[str, str], body: bytes | None) -> WorkerError:
    extra: dict[str, Any] = {"status": 402}
    asked = payment_headers(headers)
    if asked:
        extra["payment_headers"] = asked
    data = details(body, headers.get("content-type", ""))
    if data is not None:
        extra["payment_details"] = data
    return WorkerError(
        "payment_required",
        "%s answered HTTP 402 Payment Required%s"
        % (url, ": " + ", ".join(sorted(asked)) if asked else " (the site charges for this page)"),
        hint="the site asks for payment before it serves this page; payment_headers and payment_details say what it asked",
        **extra,
    )
