"""argparse's reading of the declarations (options.py): the parser for the command lines the
fast one (fast.py) declines, and for ``--help``."""

from __future__ import annotations

from ..errors import UsageError
from .options import EXAMPLES, SUBCOMMANDS, VERSION_HELP, common, sub_examples

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    import argparse
    from types import ModuleType
    from typing import NoReturn


def _argparse_classes() -> tuple[ModuleType, type[argparse.ArgumentParser], type[argparse.HelpFormatter]]:
    import argparse  # here only: a plain command line never loads it (fast.py)

    class Formatter(argparse.RawDescriptionHelpFormatter):
        """argparse builds a formatter on every add_argument, and the stock one asks
        the terminal for its width (importing shutil) each time: a fixed width keeps
        that off start-up; help text is the only thing that uses it."""

        def __init__(
            self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None
        ) -> None:
            super().__init__(prog, indent_increment, max_help_position, width or 100)

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:  # argparse would print usage and exit 2 with no block
            raise UsageError(message)

    return argparse, Parser, Formatter


def build_parser(prog: str = "websearch-worker", only: str | None = None) -> argparse.ArgumentParser:
    argparse, _Parser, _Formatter = _argparse_classes()
    parser = _Parser(
        prog=prog,
        description="Web search and web fetch for coding agents.",
        epilog=EXAMPLES,
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="store_true", help=VERSION_HELP)
    common(parser, top=True, suppress=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", metavar="{search,fetch,map}")

    build = SUBCOMMANDS if only is None else {only: SUBCOMMANDS[only]}
    for name, (helptext, add_options) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=helptext, epilog=sub_examples(prog, name), formatter_class=_Formatter)
        if name in build:
            add_options(p, argparse.SUPPRESS)
        else:  # never parsed in this call; listed so --help still names it
            p.add_argument("rest", nargs=argparse.REMAINDER)
    return parser
