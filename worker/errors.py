"""The worker's one exception tree.

Everything that can go wrong is raised as a WorkerError with a stable code;
``worker.main`` is the one place that turns it (or any other exception) into a
SEARCH_ERROR block.  ``error_object`` is the one place an error becomes the
protocol's error object, for the block, a fetch item, a search result's
``fetch_error`` and a search attempt alike.  Codes are documented in
docs/PROTOCOL.md.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any, Iterable

# code -> retryable by default
CODES = {
    "usage": False,
    "invalid_query": False,
    "invalid_url": False,
    "invalid_argument": False,
    "config": False,
    "auth": False,
    "quota": False,
    "rate_limited": True,
    "blocked": True,
    "blocked_address": False,
    "timeout": True,
    "network": True,
    "http_error": False,
    "payment_required": False,
    "robots": False,
    "too_large": False,
    "unsupported_content": False,
    "needs_javascript": False,
    "provider": True,
    "cancelled": False,
    "bootstrap_failed": True,
    # Hosts only (hosts/mcp, worker.host_client): the worker could not be started or gave no block.
    "protocol": True,
    "internal": False,
}


def error_object(
    code: str,
    message: str,
    retryable: bool = False,
    hint: str | None = None,
    extra: dict[str, Any] | None = None,
    fields: Iterable[str] | None = None,
) -> dict[str, Any]:
    """The protocol's error object: code, message, retryable, hint when there is one, then ``extra``.

    ``fields``: only these keys, in this order; a fetch item's error, a result's
    ``fetch_error`` and a search attempt each show a documented few.
    """
    d: dict[str, Any] = {"code": code, "message": message, "retryable": bool(retryable)}
    if hint:
        d["hint"] = hint
    d.update(extra or {})
    if fields is not None:
        d = {k: d[k] for k in fields if k in d}
    return d


class WorkerError(Exception):
    """An error with a stable machine-readable code and a one-line message."""

    def __init__(self, code: str, message: str, hint: str | None = None, retryable: bool | None = None, **extra: Any):
        if code not in CODES:
            raise ValueError("unknown error code %r" % code)
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint
        self.retryable = CODES[code] if retryable is None else bool(retryable)
        self.extra = extra

    def to_dict(self, fields: Iterable[str] | None = None) -> dict[str, Any]:
        return error_object(self.code, self.message, self.retryable, self.hint, self.extra, fields)


class UsageError(WorkerError):
    def __init__(self, message: str, hint: str | None = None):
        super().__init__("usage", message, hint=hint or "run with --help for the options and examples")
