"""The one checked reader for the values an API sends (GitHub, Stack Exchange, npm, Exa...).

An API's JSON is foreign input: a string where an object was documented, a list
where a string was, a score of "12abc", 1e400 or NaN, a README whose base64 is
badly padded.  Adapters and providers read every value through these functions,
which never raise on a wrong type: a value that is not what it should be reads
as absent (``""``, ``{}``, ``[]``, None), and ``Dropped`` collects a one-line
warning for each field a reader had to leave out.  Numbers go through
``numbers.or_none`` (ASCII, finite, in range).  Where an answer cannot do
without a value, the caller raises its own error (a site adapter's Fallback, a
provider's ``provider`` WorkerError).  Pure, standard library only.
"""

from __future__ import annotations

from . import numbers

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

MAX_B64_CHARS = 16 * 1024 * 1024  # a README or file the contents API sends inline is at most a few MB
MAX_EPOCH = 253402300799  # 9999-12-31T23:59:59Z: a Unix time beyond it is no date (gmtime overflows)


def text(value: Any, default: str = "") -> str:
    """``value`` if it is a string, else ``default``."""
    return value if isinstance(value, str) else default


def obj(value: Any) -> dict[str, Any]:
    """``value`` if it is an object, else an empty one."""
    return value if isinstance(value, dict) else {}


def objs(value: Any) -> list[dict[str, Any]]:
    """The objects of a list (anything else in it left out); not a list: none."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def texts(value: Any) -> list[str]:
    """The strings of a list (anything else in it left out); not a list: none."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def number(value: Any, lo: float | None = None, hi: float | None = None, integer: bool = False) -> float | None:
    """A JSON number (or numeric text) that is finite and in [lo, hi], else None."""
    return numbers.or_none(value, lo, hi, integer)


def whole(value: Any, lo: int | None = None, hi: int | None = None) -> int | None:
    """``number`` for whole numbers, as an int."""
    n = numbers.or_none(value, lo, hi, integer=True)
    return int(n) if n is not None else None


def flag(value: Any) -> bool:
    """True only for JSON true (a "false" string is not true)."""
    return value is True


def b64text(value: Any) -> str:
    """Base64 text (the GitHub contents API's, line-wrapped) decoded as UTF-8; ValueError when it is not base64.

    Missing padding is forgiven (some proxies strip it); characters outside the
    base64 alphabet, non-ASCII text and a length no padding can fix are not.
    """
    if not isinstance(value, str):
        raise ValueError("the content is not a string")
    if len(value) > MAX_B64_CHARS:
        raise ValueError("the content is larger than %d characters" % MAX_B64_CHARS)
    if not value.isascii():
        raise ValueError("the content's base64 holds non-ASCII characters")
    import base64
    import binascii

    packed = "".join(value.split()).rstrip("=")
    if len(packed) % 4 == 1:
        raise ValueError("the content's base64 has a length no padding can fix")
    try:
        raw = base64.b64decode(packed + "=" * (-len(packed) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("the content is not valid base64") from None
    return raw.decode("utf-8", "replace")


class Dropped:
    """The warnings of one answer's reading: one line per field left out, each said once."""

    def __init__(self, source: str):
        self.source = source
        self.warnings: list[str] = []

    def note(self, what: str) -> None:
        line = "%s: %s was left out (the API sent a value of the wrong type or out of range)" % (self.source, what)
        if line not in self.warnings:
            self.warnings.append(line)

    def whole(
        self, post: dict[str, Any], key: str, what: str, lo: int | None = None, hi: int | None = None
    ) -> int | None:
        """``post[key]`` as a whole number; absent is None silently, a bad value is None with a warning."""
        value = post.get(key)
        if value is None:
            return None
        n = whole(value, lo, hi)
        if n is None:
            self.note(what)
        return n
