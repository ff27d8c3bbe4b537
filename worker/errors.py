"""The worker's one exception tree.

Everything that can go wrong is raised as a WorkerError with a stable code;
``worker.main`` is the one place that turns it (or any other exception) into a
SEARCH_ERROR block.  Codes are documented in docs/PROTOCOL.md.
"""

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
    "too_large": False,
    "unsupported_content": False,
    "needs_javascript": False,
    "provider": True,
    "cancelled": False,
    "bootstrap_failed": True,
    "internal": False,
}


class WorkerError(Exception):
    """An error with a stable machine-readable code and a one-line message."""

    def __init__(self, code, message, hint=None, retryable=None, **extra):
        if code not in CODES:
            raise ValueError("unknown error code %r" % code)
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint
        self.retryable = CODES[code] if retryable is None else bool(retryable)
        self.extra = extra

    def to_dict(self):
        d = {"code": self.code, "message": self.message, "retryable": self.retryable}
        if self.hint:
            d["hint"] = self.hint
        d.update(self.extra)
        return d


class UsageError(WorkerError):
    def __init__(self, message, hint=None):
        super().__init__("usage", message, hint=hint or "run with --help for the options and examples")
