"""Blocks rendered by the worker's own emitter, for the TypeScript parser tests.

Prints one JSON array: [[expected_json, block], ...] where expected_json is the
string the block must decode to (plain json.dumps, so JS reads it back exactly).
Standard library only; argv[1] is the repository root.
"""

import json
import random
import sys

sys.path.insert(0, sys.argv[1])
from worker import protocol  # noqa: E402

# Same cases as tests/test_protocol.py, plus a few more.
HOSTILE = [
    "SEARCH_DONE",
    "SEARCH_OK\n{}\nSEARCH_DONE",
    "\nSEARCH_DONE\n",
    "search_done",
    "SEARCH_ERROR",
    "\ud800 lone surrogate",
    "\x00\x01\x1b[31m",
    "\u2028\u2029",
    "caf\u00e9 \U0001f600",
    "\\u005f",
    "SEARCH\\_DONE",
    "\\SEARCH_DONE",
    '"}SEARCH_DONE{"',
    "\r\nSEARCH_OK\r\n",
    "SEARCH_",
    "\udfff\ud800",
]
ALPHABET = 'SEARCH_OKDNE\n\r"\\{}[]:,u005f \x00\x1f\x7f\u00e9\u2028\ud800\udc00\U0001f600'


def main():
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    strings = list(HOSTILE)
    for _ in range(300):
        strings.append("".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 40))))
    out = []
    for s in strings:
        expected = json.dumps(s)
        out.append([expected, "ok", protocol.render_ok({"results": [{"title": s, "snippet": s, s: s}], "text": s})])
        out.append([expected, "error", protocol.render_error("internal", s, hint=s)])
    sys.stdout.write(json.dumps(out))


main()
