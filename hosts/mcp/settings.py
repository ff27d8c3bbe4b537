"""The MCP server's own flags, parsed by argparse; help and errors go to stderr (stdout is JSON-RPC)."""

from __future__ import annotations

import argparse
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, NoReturn

PROG = "bootstrap/run.py mcp"
DESCRIPTION = "Serve web_search and web_fetch to an MCP client over stdio (newline-delimited JSON-RPC)."


class UsageError(Exception):
    """A bad server flag: one line on stderr, exit 2."""


class HelpShown(Exception):
    """--help was given: the help went to stderr, exit 0."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)

    def print_help(self, file: object = None) -> None:
        super().print_help(sys.stderr)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            sys.stderr.write(message)
        raise HelpShown()


def _value(flag: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError("%s needs a value" % flag)
        return os.path.abspath(os.path.expanduser(text))

    return parse


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog=PROG, description=DESCRIPTION, allow_abbrev=False)
    p.add_argument(
        "--allow-private", action="store_true", help="let web_fetch read loopback, private and link-local addresses"
    )
    p.add_argument(
        "--config",
        metavar="PATH",
        type=_value("--config"),
        help="the worker's config file (default: the worker's own, see its --help)",
    )
    p.add_argument(
        "--venv",
        metavar="DIR",
        type=_value("--venv"),
        help="the worker's venv (bootstrap/run.py runs the server from it too; installed on first use)",
    )
    return p


def usage() -> str:
    return parser().format_usage()


class Settings:
    """What the server was started with."""

    def __init__(self, argv: list[str]) -> None:
        args = parser().parse_args(argv)
        self.allow_private: bool = args.allow_private
        self.config: str | None = args.config
        self.venv: str | None = args.venv
        if self.config and not os.path.isfile(self.config):
            raise UsageError("--config %s: no such file" % self.config)
        if self.venv and os.path.lexists(self.venv) and not os.path.isdir(self.venv):
            raise UsageError("--venv %s is not a directory" % self.venv)
