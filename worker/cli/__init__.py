"""Command-line surface: the commands and all their options, argv to a typed request.

Pure argument handling: argv becomes a Namespace (or a UsageError), then the request
(worker.request) that the rest of the worker reads.  The parts:

    options.py  the option declarations, public: --help, both parsers, the MCP tools'
                schemas and docs/usage.md are written from them
    fast.py     the fast parser, for plain command lines (no argparse import)
    parser.py   argparse, for the rest and for --help
"""

from __future__ import annotations

from ..errors import UsageError
from ..startup import on
from .fast import command_in, fast_parse
from .options import (  # noqa: F401  -- the public names, read as cli.NAME
    FETCH_FORMATS,
    MAX_SECONDS,
    OUTPUTS,
    RECENCY,
    RENDER_MODES,
    SAFESEARCH,
    SEARCH_SOURCES,
    VERTICALS,
    declared,
)
from .parser import build_parser

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    import argparse
    from types import SimpleNamespace

    from ..request import FetchRequest, MapRequest, SearchRequest


def parse_args(argv: list[str], prog: str = "websearch-worker") -> argparse.Namespace | SimpleNamespace:
    args: argparse.Namespace | SimpleNamespace | None = fast_parse(argv) if on("fast_parser") else None
    if args is None:
        # Every call is a fresh process: build just the options of the command in use.
        args = build_parser(prog, only=command_in(argv)).parse_args(argv)
    if args.version:
        return args
    if not args.command:
        raise UsageError("a command is required: search, fetch or map")
    if args.command == "search":
        if args.search_format:
            args.output = args.search_format
        args.query = " ".join(args.query).strip()
        if args.news:
            if args.vertical not in (None, "news"):
                raise UsageError(
                    "--news and --vertical %s contradict each other" % args.vertical,
                    hint="give one of them: --news, or --vertical web|news",
                )
            args.vertical = "news"
        if args.vertical == "web":
            args.vertical = None  # the default: one cache key for "--vertical web" and nothing
        args.sources = [name for value in args.sources for name in value.split(",") if name]
    return args


# Read here only, to shape the request: --format is search's --output, --news is --vertical news.
CLI_ONLY = frozenset({"command", "version", "search_format", "news"})


def request_of(args: argparse.Namespace | SimpleNamespace) -> SearchRequest | FetchRequest | MapRequest:
    """The typed request (worker.request) for what ``parse_args`` returned: built once, handed down.

    Every option becomes the field of its name; one the request does not know is a
    TypeError, never an option quietly lost.  A search request cleans its query as
    it is built, so an empty or oversized query is an ``invalid_query`` error here.
    """
    from ..request import COMMANDS

    return COMMANDS[args.command](**{name: value for name, value in vars(args).items() if name not in CLI_ONLY})
