"""What never shows as a character does not reach the model: ``clean_text(text)`` removes
invisible characters from output (zero-width and bidirectional controls, Unicode tag
characters) and replaces ``data:`` URIs with a short description (``[data: image/png,
41 KB]``). Pure functions over the output text, not the page (hidden.py reads the page).
"""

from __future__ import annotations

import re

# Zero-width spaces, word joiners, BOMs and the bidirectional controls (embeddings,
# overrides, isolates, marks) never show as a character, and the tag block
# (U+E0000-E007F) can spell whole hidden sentences ("ASCII smuggling").
_INVISIBLE = re.compile(
    "[\u200b\u2060-\u2064\ufeff\u180e\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]"
)
# ZWJ/ZWNJ are spelling in Persian, Indic scripts and emoji sequences; next to ASCII
# they only split words so that filters miss them ("ig\u200cnore").
_JOINER_ASCII = re.compile("[\u200c\u200d]+(?=[\x00-\x7f]|$)|(?:(?<=[\x00-\x7f])|^)[\u200c\u200d]+")
_DATA_URI = re.compile(r"data:([a-z]+/[a-z0-9.+-]+)?((?:;[a-z0-9-]+(?:=[^;,\s\"')<>]*)?)*),([^\s\"')<>\]]*)", re.I)


def _size(n: int) -> str:
    if n < 1024:
        return "%d B" % n
    if n < 1024 * 1024:
        return "%d KB" % round(n / 1024)
    return "%.1f MB" % (n / 1024 / 1024)


def _describe(m: re.Match[str]) -> str:
    mime = (m.group(1) or "text/plain").lower()
    payload = m.group(3)
    n = len(payload) * 3 // 4 - payload[-2:].count("=") if ";base64" in (m.group(2) or "").lower() else len(payload)
    return "[data: %s, %s]" % (mime, _size(max(0, n)))


def strip_invisible(text: str) -> str:
    """Text without invisible characters (zero-width, bidirectional controls, tag characters)."""
    if text.isascii():
        return text  # every invisible character is outside ASCII; this test costs nothing
    text = _INVISIBLE.sub("", text)
    if "\u200c" in text or "\u200d" in text:
        text = _JOINER_ASCII.sub("", text)
    return text


def clean_text(text: str) -> str:
    """Output text without invisible characters and with data: URIs described, not inlined."""
    if not text:
        return text
    if "data:" in text:
        text = _DATA_URI.sub(_describe, text)
    return strip_invisible(text)
