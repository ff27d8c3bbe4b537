"""The options tables of docs/usage.md, written from the CLI's own declarations (worker/cli/options.py).

    python -m worker.docs_options            # print the tables
    python -m worker.docs_options --write    # put them into docs/usage.md, between their markers
    python -m worker.docs_options --check    # exit 1 when docs/usage.md says otherwise

Each table sits between ``<!-- options:NAME -->`` and ``<!-- /options:NAME -->``
(NAME: common, search, fetch, map); the text around them is the manual's own.  The
tables are what ``--help`` prints, so the two cannot disagree once the tables are
rewritten, and tests/test_docs.py fails until they are.

Standard library only and never imported by a search or fetch call.
"""

from __future__ import annotations

import os
import re
import sys

from . import cli, config

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only
    from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
USAGE_MD = os.path.join(ROOT, "docs", "usage.md")
TABLES = ("common", "search", "fetch", "map")
REGENERATE = "python -m worker.docs_options --write"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _value(flag: str, kw: dict[str, Any]) -> str:
    """How the option is written: ``--flag``, ``--flag N``, ``--flag day|week``."""
    if kw.get("action") == "store_true":
        return "`%s`" % flag
    if kw.get("choices"):
        return "`%s %s`" % (flag, "|".join(kw["choices"]))
    dest = kw.get("dest") or flag[2:].replace("-", "_")
    return "`%s %s`" % (flag, kw.get("metavar") or dest.upper())  # the parser's own rule: --help says the same


def _range(kw: dict[str, Any]) -> str:
    bounds = getattr(kw.get("type"), "bounds", None)
    if bounds is None:
        return ""
    lo, hi = bounds
    if lo is not None and hi is not None:
        return "%d-%d" % (lo, hi)
    if lo is not None:
        return "at least %d" % lo
    return "at most %d" % hi if hi is not None else ""


def _rows(options: dict[str, tuple[str, dict[str, Any]]], flags: list[str]) -> list[str]:
    rows = ["| option | range | meaning |", "| --- | --- | --- |"]
    for flag in flags:
        _dest, kw = options[flag]
        if kw.get("action") == "append":
            meaning = kw.get("help") or ""
            meaning = meaning if "repeatable" in meaning else (meaning + " (repeatable)").strip()
        elif flag == "--config":
            # --help names the file this machine reads (config.help_text); the manual cannot
            meaning = config.help_text(here=False)
        else:
            meaning = kw.get("help") or ""
        rows.append("| %s | %s | %s |" % (_cell(_value(flag, kw)), _range(kw), _cell(meaning)))
    return rows


def table(name: str) -> str:
    """The markdown of one table: ``common`` (before or after the command), ``search``, ``fetch`` or ``map``."""
    if name == "common":
        top, _sub = cli.declared("search")
        return "\n".join(_rows(top.options, list(top.options))) + "\n"
    top, sub = cli.declared(name)
    own = [flag for flag in sub.options if flag not in top.options]
    groups: dict[str | None, list[str]] = {}
    for flag in own:
        groups.setdefault(sub.groups.get(flag), []).append(flag)
    parts = []
    for group, flags in groups.items():
        if group is not None:
            parts.append("%s%s:\n" % (group[:1].upper(), group[1:]))
        parts.append("\n".join(_rows(sub.options, flags)) + "\n")
    return "\n".join(parts)


def _marked(name: str) -> re.Pattern[str]:
    return re.compile(r"(<!-- options:%s -->\n)(.*?)(<!-- /options:%s -->)" % (name, name), re.S)


def rewrite(text: str) -> str:
    """``text`` with every marked table replaced by the CLI's; ValueError when a marker pair is missing."""
    for name in TABLES:
        m = _marked(name).search(text)
        if m is None:
            raise ValueError("no <!-- options:%s --> ... <!-- /options:%s --> block" % (name, name))
        text = text[: m.end(1)] + "\n" + table(name) + "\n" + text[m.start(3) :]
    return text


def main(argv: list[str]) -> int:
    mode = argv[0] if argv else None
    if mode not in (None, "--write", "--check") or len(argv) > 2:
        sys.stderr.write("usage: python -m worker.docs_options [--write|--check] [FILE]\n")
        return 2
    if mode is None:
        sys.stdout.write("\n".join("<!-- options:%s -->\n\n%s" % (n, table(n)) for n in TABLES))
        return 0
    path = argv[1] if len(argv) > 1 else USAGE_MD
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        new = rewrite(text)
    except ValueError as exc:
        sys.stderr.write("%s: %s\n" % (path, exc))
        return 1
    if mode == "--check":
        if new != text:
            sys.stderr.write("%s: the options tables differ from the CLI's; run: %s\n" % (path, REGENERATE))
            return 1
        return 0
    if new != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
