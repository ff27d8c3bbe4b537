"""The delimited stdout protocol: one emitter, one reference parser.

A call prints exactly one block::

    SEARCH_OK | SEARCH_ERROR
    <one line of ASCII JSON>
    SEARCH_DONE

The payload can never contain a marker string, so even a host that finds the
first ``SEARCH_OK`` and the first ``SEARCH_DONE`` by plain substring search and
parses what lies between gets the right answer.  See docs/PROTOCOL.md.

Standard library only: Python hosts import this module without the venv.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

VERSION = 1
OK = "SEARCH_OK"
ERROR = "SEARCH_ERROR"
DONE = "SEARCH_DONE"
_MARKER_STEM = "SEARCH_"
# Every marker starts with the stem, so escaping the stem's "_" removes them all.
_ESCAPED_STEM = "SEARCH\\u005f"

# Exit codes (documented in docs/PROTOCOL.md).
EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_CANCELLED = 130


def encode_payload(payload: Any) -> str:
    """One line of ASCII JSON in which no marker string can occur.

    ``ensure_ascii`` escapes every non-ASCII character (lone surrogates
    included) and every control character, so the line holds no newline and
    survives hosts that decode stdout in chunks.  The stem ``SEARCH_`` can then
    only occur inside JSON strings (our keys never contain it), where writing
    its underscore as ``\\u005f`` means the same string to every JSON parser.
    """
    from .jsonio import dumps_ascii  # the C encoder: no json package, no re, on the hot path

    line = dumps_ascii(payload)
    return line.replace(_MARKER_STEM, _ESCAPED_STEM)


def render_ok(payload: dict[str, Any]) -> str:
    body: dict[str, Any] = {"ok": True, "v": VERSION}
    body.update(payload)
    return "%s\n%s\n%s\n" % (OK, encode_payload(body), DONE)


def render_error(code: str, message: str, hint: str | None = None, retryable: bool = False, **extra: Any) -> str:
    from .errors import error_object  # here, not above: hosts import this module (worker.host_client) and nothing else

    error = error_object(code, message, retryable, hint, extra)
    return "%s\n%s\n%s\n" % (ERROR, encode_payload({"ok": False, "v": VERSION, "error": error}), DONE)


def render_cancelled(signal_name: str) -> str:
    """The block of a call cancelled by a signal, written without importing anything: the signal
    may come while the main thread is importing a module render_error needs (worker.jsonio),
    and that half-made module has none of its names yet."""
    name = "".join(c for c in signal_name if c.isascii() and (c.isalnum() or c == " "))  # SIGTERM, "signal 10"
    return (
        '%s\n{"ok":false,"v":%d,"error":{"code":"cancelled","message":"cancelled by %s","retryable":false}}\n%s\n'
        % (
            ERROR,
            VERSION,
            name,
            DONE,
        )
    )


class ProtocolError(ValueError):
    """The worker's output holds no well-formed block."""


def parse(output: str | bytes) -> dict[str, Any]:
    """Parse worker stdout into its payload dict.

    Tolerant of noise outside the block (a stray library print, a banner), strict
    inside it: the first marker line opens the block, the next line must be the
    JSON payload and the line after it ``SEARCH_DONE``.  Raises ProtocolError
    naming what is wrong, including a block cut short by a dying process.
    """
    import json

    if isinstance(output, bytes):
        output = output.decode("ascii", errors="replace")
    lines = output.split("\n")
    for i, raw in enumerate(lines):
        line = raw.rstrip("\r")
        if line not in (OK, ERROR):
            continue
        if i + 1 >= len(lines) or not lines[i + 1].strip():
            raise ProtocolError("truncated block: %s with no payload line" % line)
        body = lines[i + 1].rstrip("\r")
        try:
            payload = json.loads(body)
        except ValueError as exc:
            raise ProtocolError("malformed payload after %s: %s" % (line, exc)) from None
        if i + 2 >= len(lines) or lines[i + 2].rstrip("\r") != DONE:
            raise ProtocolError("truncated block: %s payload not followed by %s" % (line, DONE))
        if not isinstance(payload, dict) or "ok" not in payload:
            raise ProtocolError("payload is not a protocol object")
        if payload["ok"] is not (line == OK):
            raise ProtocolError("payload 'ok' disagrees with the %s marker" % line)
        return payload
    raise ProtocolError("no SEARCH_OK or SEARCH_ERROR block in the output")
