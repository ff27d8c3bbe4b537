"""readability-lxml's ``clean``, the same string in less time.

readability-lxml measures every candidate block and every link by the length of its
cleaned text (``text_length``): three regex substitutions a call, tens of thousands of
calls on a large old page, and over a quarter of readability's time. Most of that goes
to ``\\s*\\n\\s*``, which the regex engine tries at every character. ``clean`` below
gives the same string: it skips a substitution that cannot match (no line break, no tab
or double space, fewer than 255 characters), and folds each run of whitespace holding a
line break into that one break with str.split and str.strip, which treat the same
characters as whitespace as the regex's ``\\s``. Readability 28% faster on classic
pages, 22% on WCXB, 18% on Zyte (docs/PERFORMANCE.md); the same text on every shared
page.

``install`` puts it in place of the library's own only when the library's gives the
same answers on PROBES, so an upgrade that changes readability's cleaning keeps its
own (and tests/pages/test_extract.py fails, which says so).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

_LONG_RUN = re.compile(r"\s{255,}")
_BLANKS = re.compile(r"\t|[ \t]{2,}")

# Strings whose cleaning shows each of readability's three substitutions and the strip.
PROBES = (
    "",
    "  a  b\t\tc  ",
    "a \n \n b",
    "\n\n",
    " \r\n x \u00a0\n\u2003y\n",
    "a" + " \n" * 200 + "b",
    "x" + " " * 300 + "\ny",
    "one\ttwo \t three\n\n\tfour",
    "\u00a0lead\u00a0 and \u2028 trail\u00a0",
)


def clean(text: str) -> str:
    """readability.readability.clean(text), the same string."""
    if len(text) >= 255:  # a run of 255 whitespace characters needs that many
        text = _LONG_RUN.sub(" " * 255, text)
    if "\n" in text:
        # every maximal run of whitespace that holds a line break becomes that one break
        parts = text.split("\n")
        inner = [q for q in (p.strip() for p in parts[1:-1]) if q]
        text = "\n".join([parts[0].rstrip(), *inner, parts[-1].lstrip()])
    if "\t" in text or "  " in text:
        text = _BLANKS.sub(" ", text)
    return text.strip()


def install(module: Any) -> bool:
    """Put ``clean`` in place of ``module.clean`` (readability.readability), when that
    gives the same answers on PROBES; whether ``clean`` is in place."""
    original = getattr(module, "clean", None)
    if original is clean:
        return True
    if original is None or any(original(p) != clean(p) for p in PROBES):
        return False
    module.clean = clean
    return True
