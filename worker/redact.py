"""API keys never leave the process: one registry of secrets, one scrubber.

Config loading registers every key it resolves (from the file or the
environment); everything the worker writes for a reader (the protocol block,
``--output text``, debug tracebacks on stderr) passes through ``scrub``.
Providers also scrub what they build, so no key reaches the cache either; this
is the last line, for whatever a server echoes back in a place nobody thought of.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Iterable, Iterator, Mapping, TypeVar

    T = TypeVar("T")

MIN_LEN = 6  # shorter "keys" are not keys, and scrubbing them would mangle ordinary text
MASK = "***"
_secrets: set[str] = set()


def register(value: T) -> T:
    """Remember ``value`` (an API key) so ``scrub`` removes it; returns it."""
    if isinstance(value, str) and len(value.strip()) >= MIN_LEN:
        _secrets.add(value.strip())
    return value


def register_env(environ: Mapping[str, str], names: Iterable[str]) -> None:
    for name in names:
        register(environ.get(name))


def _forms(secret: str) -> Iterator[str]:
    """The key as it may appear: itself, JSON-escaped (the protocol line), and percent-encoded."""
    yield secret
    from .jsonio import dumps

    yield dumps(secret)[1:-1]
    from urllib.parse import quote

    yield quote(secret, safe="")


def scrub(text: T) -> T:
    """``text`` with every registered secret replaced by ***."""
    if not _secrets or not isinstance(text, str):
        return text
    out: str = text
    for secret in sorted(_secrets, key=len, reverse=True):
        if secret in out:
            out = out.replace(secret, MASK)
        for form in _forms(secret):
            if form in out:
                out = out.replace(form, MASK)
    return out  # type: ignore[return-value]  # T is str on this path: a str comes back for a str
