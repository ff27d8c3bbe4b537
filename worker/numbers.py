"""The one strict reader for numbers that come from the network or the user.

Header values (Retry-After, Content-Length, X-RateLimit-Reset), options
(--timeout, --cache-ttl, ...), config values and environment variables all pass
through ``parse``: ASCII digits only (``str.isdigit`` accepts "²", which
``int`` refuses), finite, and inside the bounds the caller names, so no
infinity, NaN or 400-digit value reaches arithmetic, a timer or the JSON
encoder.  ``retry_after`` is the one reader of Retry-After, for the fetch
client and the keyed APIs alike.  Standard library only, no imports at module
level: it is on every call's path.

bootstrap/run.py keeps a twin of ``parse`` (it must run without this package);
tests/test_hostile.py checks the two agree.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Mapping

_DIGITS = frozenset("0123456789")
MAX_CHARS = 32  # no legitimate number we read is longer; longer text is refused before float() sees it


def parse(text: object, lo: float | None = None, hi: float | None = None, integer: bool = False) -> float:
    """``text`` (str, or an int/float from JSON) as a number in [lo, hi]; ValueError otherwise.

    Accepted text: optional sign, ASCII digits, at most one ".", and (not for
    integers) an exponent such as 1e3.  Never inf, nan, "1_000", Unicode digits.
    """
    if isinstance(text, bool):
        raise ValueError("expected a number, got a boolean")
    if isinstance(text, int):
        value: float = text
    elif isinstance(text, float):
        if integer and not text.is_integer():
            raise ValueError("expected a whole number, got %r" % text)
        value = int(text) if integer and _finite(text) else text
    elif isinstance(text, str):
        value = _from_text(text.strip(), integer)
    else:
        raise ValueError("expected a number, got %s" % type(text).__name__)
    if isinstance(value, float) and not _finite(value):
        raise ValueError("expected a finite number")
    if lo is not None and value < lo:
        raise ValueError("must be at least %s, got %s" % (_show(lo), _show(value)))
    if hi is not None and value > hi:
        raise ValueError("must be at most %s, got %s" % (_show(hi), _show(value)))
    return value


def _from_text(s: str, integer: bool) -> float:
    if not s or len(s) > MAX_CHARS:
        raise ValueError("expected a number, got %r" % _clip(s))
    body = s[1:] if s[0] in "+-" else s
    mantissa, e, exponent = body.lower().partition("e")
    digits = exponent[1:] if exponent[:1] in ("+", "-") else exponent
    if e and (integer or not digits or not set(digits) <= _DIGITS):
        raise ValueError("expected a %snumber, got %r" % ("whole " if integer else "", _clip(s)))
    whole, dot, frac = mantissa.partition(".")
    if (integer and dot) or not (whole or frac) or not set(whole + frac) <= _DIGITS:
        raise ValueError("expected a %snumber, got %r" % ("whole " if integer else "", _clip(s)))
    return int(s) if integer else float(s)


def _finite(x: float) -> bool:
    return x == x and x not in (float("inf"), float("-inf"))


def _show(x: float) -> str:
    return ("%d" % x) if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e15) else "%g" % x


def _clip(s: str) -> str:
    return s if len(s) <= 40 else s[:37] + "..."


def or_none(text: object, lo: float | None = None, hi: float | None = None, integer: bool = False) -> float | None:
    """``parse`` for values a server sent: None instead of an error."""
    try:
        return parse(text, lo, hi, integer)
    except ValueError:
        return None


MAX_RETRY_AFTER = 7 * 24 * 3600  # beyond a week a server's Retry-After is not a wait anyone holds a call for


def retry_after(value: object, cap: float = MAX_RETRY_AFTER, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header value, or None when it names no usable wait.

    RFC 9110 allows whole delta-seconds or an HTTP date.  A number that is not
    whole, not ASCII or beyond ``cap`` is no wait at all (a server that sends
    "1e9" or "\u00b2" is not telling us when to come back); a date is seconds from
    ``now`` (epoch seconds, default the clock), at least 0 and at most ``cap``.
    """
    if not isinstance(value, str) or not value.strip():
        return None
    value = value.strip()
    seconds = or_none(value, lo=0, hi=cap, integer=True)
    if seconds is not None:
        return float(seconds)
    if value[:1].isdigit():
        return None
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
        if when.tzinfo is None:  # "-0000": the RFC's "UTC, source unknown"
            from datetime import timezone

            when = when.replace(tzinfo=timezone.utc)
        if now is None:
            import time

            now = time.time()
        left = when.timestamp() - now
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return min(float(cap), max(0.0, left))


def env(
    name: str,
    default: float,
    lo: float | None = None,
    hi: float | None = None,
    integer: bool = False,
    environ: Mapping[str, str] | None = None,
) -> float:
    """An environment variable as a number: ``default`` when unset or empty, ValueError naming it when bad."""
    import os

    raw = (environ if environ is not None else os.environ).get(name)
    if raw is None or not raw.strip():
        return default
    try:
        return parse(raw, lo, hi, integer)
    except ValueError as exc:
        raise ValueError("%s=%s: %s" % (name, _clip(raw), exc)) from None
