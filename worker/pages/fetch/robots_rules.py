"""robots.txt by RFC 9309: parse the groups, pick ours, match a path.

Pure functions; worker.pages.fetch.robots fetches and caches the file.

* The group is the one whose ``user-agent`` names our product token (case
  insensitive; every group naming it is merged), else the ``*`` groups merged,
  else none: no rules.
* The rule that matches the most octets wins; on a tie ``allow`` wins.  ``*`` is
  any run of characters, ``$`` at the end anchors; ``%2A`` and ``%24`` are a
  literal ``*`` and ``$``.
* Paths and patterns are compared percent-encoded: non-ASCII as UTF-8 ``%XX``,
  ``%XX`` of an unreserved character decoded (``%62`` is ``b``), hex in upper case.
* ``/robots.txt`` itself is always allowed; an empty ``disallow`` is no rule.
* A leading byte-order mark (U+FEFF) is no part of the file's text.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Iterable

MAX_BYTES = 500 * 1024  # RFC 9309 2.5: parse at least 500 KiB; what follows is ignored
_HEX = "0123456789ABCDEFabcdef"
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_TOKEN = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-")

# (allow, pattern as written, normalised pattern)
Rule = tuple[bool, str, str]


def _normalise(text: str, literal: str = "") -> str:
    """``text`` percent-encoded for comparison; characters in ``literal`` are encoded too (``*``/``$`` of a path)."""
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "%" and i + 2 < len(text) and text[i + 1] in _HEX and text[i + 2] in _HEX:
            code = int(text[i + 1 : i + 3], 16)
            out.append(chr(code) if chr(code) in _UNRESERVED else "%" + text[i + 1 : i + 3].upper())
            i += 3
            continue
        if ord(ch) > 0x7E or ord(ch) < 0x21 or ch in literal:
            out.extend("%%%02X" % b for b in ch.encode("utf-8", "surrogatepass"))
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def _pattern(value: str) -> str:
    """A rule's value normalised: ``*`` stays the wildcard, a final ``$`` the anchor, and a ``$``
    anywhere else is the character itself (``%24``, as a path's ``$`` is; Google's parser does the same)."""
    if value.endswith("$"):
        return _normalise(value[:-1], literal="$") + "$"
    return _normalise(value, literal="$")


def decode(body: bytes) -> str:
    """robots.txt's bytes as text: UTF-8 (RFC 9309 2.3), a leading byte-order mark dropped, an
    invalid byte one U+FFFD."""
    return body.decode("utf-8-sig", "replace")


def _token(value: str) -> str:
    """The product token a ``user-agent`` line names: its leading letters, ``_`` and ``-``, lower case."""
    value = value.strip()
    if value == "*":
        return "*"
    end = 0
    while end < len(value) and value[end] in _TOKEN:
        end += 1
    return value[:end].lower()


def parse(text: str) -> list[tuple[list[str], list[Rule]]]:
    """The groups of a robots.txt: [(product tokens, rules)], in file order."""
    groups: list[tuple[list[str], list[Rule]]] = []
    agents: list[str] | None = None  # the group being read
    rules: list[Rule] = []
    in_rules = False
    if text.startswith("\ufeff"):  # a UTF-8 byte-order mark decoded as text: not part of the first key
        text = text[1:]
    for raw in text[:MAX_BYTES].splitlines():
        line = raw.split("#", 1)[0].strip()
        key, colon, value = line.partition(":")
        if not colon:
            continue
        key, value = key.strip().lower(), value.strip()
        if key == "user-agent":
            if agents is None or in_rules:
                agents, rules, in_rules = [], [], False
                groups.append((agents, rules))
            agents.append(_token(value))
        elif key in ("allow", "disallow"):
            if agents is None:
                continue  # a rule before any user-agent line belongs to no group
            in_rules = True
            if value:
                rules.append((key == "allow", value, _pattern(value)))
    return groups


def rules_for(groups: Iterable[tuple[list[str], list[Rule]]], agent: str) -> list[Rule]:
    """The rules that apply to ``agent``: its own groups merged, else the ``*`` groups merged."""
    agent = agent.strip().lower()
    groups = list(groups)
    mine = [rule for agents, rules in groups if agent in agents for rule in rules]
    if mine or any(agent in agents for agents, _ in groups):
        return mine
    return [rule for agents, rules in groups if "*" in agents for rule in rules]


def _matches(pattern: str, path: str) -> bool:
    """Does ``pattern`` (``*`` any run, a final ``$`` the end) match the start of ``path``?"""
    anchored = pattern.endswith("$")
    if anchored:
        pattern = pattern[:-1]
    pieces = pattern.split("*")
    if not path.startswith(pieces[0]):
        return False
    at = len(pieces[0])
    if len(pieces) == 1:
        return not anchored or at == len(path)
    for piece in pieces[1:-1]:
        found = path.find(piece, at)
        if found < 0:
            return False
        at = found + len(piece)
    last = pieces[-1]
    if anchored:
        return len(path) - len(last) >= at and path.endswith(last)
    return path.find(last, at) >= 0


def target(url_path: str, query: str = "") -> str:
    """The URI part robots rules are matched against: the path (``/`` when empty) and the query."""
    path = url_path or "/"
    return _normalise(path + ("?" + query if query else ""), literal="*$")


def decide(rules: Iterable[Rule], path: str) -> tuple[bool, Rule | None]:
    """(allowed, the rule that decided or None) for a target path (see ``target``)."""
    if path == "/robots.txt":
        return True, None
    best: Rule | None = None
    for rule in rules:
        allow, _, pattern = rule
        if not _matches(pattern, path):
            continue
        size = len(pattern)
        if best is None or size > len(best[2]) or (size == len(best[2]) and allow and not best[0]):
            best = rule
    return (True, None) if best is None else (best[0], best)
