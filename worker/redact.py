"""API keys never leave the process: one registry of secrets, one scrubber.

Config loading registers every key it resolves (from the file or the
environment); everything the worker writes for a reader (the protocol block,
``--output text``, debug tracebacks on stderr) passes through ``scrub``.
Providers also scrub what they build, so no key reaches the cache either; this
is the last line, for whatever a server echoes back in a place nobody thought of.
"""

MIN_LEN = 6  # shorter "keys" are not keys, and scrubbing them would mangle ordinary text
MASK = "***"
_secrets = set()


def register(value):
    """Remember ``value`` (an API key) so ``scrub`` removes it; returns it."""
    if isinstance(value, str) and len(value.strip()) >= MIN_LEN:
        _secrets.add(value.strip())
    return value


def register_env(environ, names):
    for name in names:
        register(environ.get(name))


def _forms(secret):
    """The key as it may appear: itself, JSON-escaped (the protocol line), and percent-encoded."""
    yield secret
    from .jsonio import dumps

    yield dumps(secret)[1:-1]
    from urllib.parse import quote

    yield quote(secret, safe="")


def scrub(text):
    """``text`` with every registered secret replaced by ***."""
    if not _secrets or not isinstance(text, str):
        return text
    for secret in sorted(_secrets, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, MASK)
        for form in _forms(secret):
            if form in text:
                text = text.replace(form, MASK)
    return text
