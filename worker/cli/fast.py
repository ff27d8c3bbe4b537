"""The fast parser: a plain, valid command line read from the declarations (options.py)
without argparse, which costs milliseconds to import and to build in a process that runs
one call.  Anything else (-h, abbreviations, a bad or missing value, a stray argument) is
declined, and argparse (parser.py) parses it, so errors and help read the same.
tests/test_cli.py checks that the two agree.
"""

from __future__ import annotations

from .options import SUBCOMMANDS, SUPPRESS, declared, valued

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from types import SimpleNamespace


def command_in(argv: list[str]) -> str | None:
    """The subcommand named in argv, found the way argparse will find it, or None."""
    skip = False
    options = valued()
    for token in argv:
        if skip:
            skip = False
        elif token in options:
            skip = True
        elif token == "--":
            return None
        elif not token.startswith("-"):
            return token if token in SUBCOMMANDS else None
    return None


class _Decline(Exception):
    """Not a plain, valid command line: argparse takes over (it words errors and help)."""


def _apply(ns, option, value):
    dest, kw = option
    action = kw.get("action")
    if action == "store_true":
        if value is not None:
            raise _Decline
        ns[dest] = True
        return
    if value is None or value.startswith("-"):
        raise _Decline  # a missing value, or one argparse might read as an option
    if kw.get("type") is not None:
        try:
            value = kw["type"](value)
        except Exception:
            raise _Decline from None
    if "choices" in kw and value not in kw["choices"]:
        raise _Decline
    if action == "append":
        ns[dest] = list(ns.get(dest) or []) + [value]
    else:
        ns[dest] = value


def _defaults(recorder):
    out = {}
    for dest, kw in recorder.options.values():
        default = kw.get("default")
        if default is not SUPPRESS:
            out[dest] = list(default) if isinstance(default, list) else default
    return out


def fast_parse(argv: list[str]) -> SimpleNamespace | None:
    """A Namespace for a plain, valid command line, else None.

    Every call is a fresh process and argparse costs milliseconds to import and to
    build; the common case (exact option names, valid values) is read here from
    the same declarations.  Anything else (-h, abbreviations, a bad or missing
    value, a stray argument) returns None and argparse parses it, so errors and
    help read exactly as before.  tests/test_cli.py checks the two agree.
    """
    try:
        return _fast_parse(list(argv))
    except _Decline:
        return None


def _fast_parse(argv):
    from types import SimpleNamespace

    command = command_in(argv)
    if command is None or argv.count("--") > 1:
        raise _Decline
    top, sub = declared(command)
    ns = _defaults(top)
    ns["command"] = None
    i = 0
    while argv[i] != command:  # options before the command
        token = argv[i]
        flag, eq, value = token.partition("=")
        option = top.options.get(flag)
        if option is None:
            raise _Decline
        if not eq and option[1].get("action") != "store_true":
            i += 1
            value = argv[i] if i < len(argv) else None
        _apply(ns, option, value if (eq or option[1].get("action") != "store_true") else None)
        i += 1
    ns["command"] = command
    ns.update(_defaults(sub))
    assert sub.positional is not None  # every command declares its positional argument
    dest, _kw = sub.positional
    positional: list[str] = []
    run_ended = False
    i += 1
    while i < len(argv):
        token = argv[i]
        if token == "--":
            if run_ended and positional:
                raise _Decline
            positional.extend(argv[i + 1 :])
            break
        if token.startswith("-") and token != "-":
            if positional:
                run_ended = True
            flag, eq, value = token.partition("=")
            option = sub.options.get(flag)
            if option is None:
                raise _Decline
            store_true = option[1].get("action") == "store_true"
            if not eq and not store_true:
                i += 1
                value = argv[i] if i < len(argv) else None
            _apply(ns, option, value if (eq or not store_true) else None)
        else:
            if run_ended:
                raise _Decline  # positionals split by options: argparse's call
            positional.append(token)
        i += 1
    if not positional:
        raise _Decline
    ns[dest] = positional
    return SimpleNamespace(**ns)
