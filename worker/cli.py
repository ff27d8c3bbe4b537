"""Command-line surface: the two commands and all their options.

Pure argument handling: it turns argv into a Namespace or raises UsageError.
Options that belong to one provider (Exa, Brave) are declared here too so that
``--help`` shows everything a user can say, in one place.
"""

import sys


def _import_argparse():
    """argparse without gettext: argparse imports gettext (and with it locale) only to
    translate its own messages, which we never localise.  A stand-in is in
    sys.modules for the length of the import alone, so a later ``import gettext``
    anywhere in the process gets the real module."""
    if "argparse" in sys.modules or "gettext" in sys.modules:
        import argparse
        return argparse
    stub = type(sys)("gettext")
    stub.gettext = lambda message: message
    stub.ngettext = lambda singular, plural, n: singular if n == 1 else plural
    sys.modules["gettext"] = stub
    try:
        import argparse
    finally:
        del sys.modules["gettext"]
    return argparse


argparse = _import_argparse()

from . import __version__  # noqa: F401  (re-exported: providers read it from here)
from .errors import UsageError

EXAMPLES = """\
examples:
  %(prog)s search "rust async runtime comparison"
  %(prog)s search "typescript 5.7 release notes" --recency week --limit 8 --output text
  %(prog)s search "state of WebGPU" --provider exa --type deep --category "research paper"
  %(prog)s fetch https://example.org/article
  %(prog)s fetch URL1 URL2 --max-chars 12000 --format markdown

Output: one SEARCH_OK or SEARCH_ERROR block on stdout (docs/PROTOCOL.md).
Exit codes: 0 ok, 1 error, 2 usage error, 130 cancelled.
"""

RECENCY = ("day", "week", "month", "year")
SAFESEARCH = ("on", "moderate", "off")
FETCH_FORMATS = ("markdown", "text", "html", "raw")
OUTPUTS = ("protocol", "text")


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse builds a formatter on every add_argument, and the stock one asks
    the terminal for its width (importing shutil) each time: a fixed width keeps
    that off every call's start-up; help text is the only thing that uses it."""

    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
        super().__init__(prog, indent_increment, max_help_position, width or 100)


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse would print usage and exit 2 with no block
        raise UsageError(message)


def _positive_float(value):
    try:
        f = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError("expected a number of seconds, got %r" % value) from None
    if not f > 0:
        raise argparse.ArgumentTypeError("must be greater than 0, got %r" % value)
    return f


def _int(lo=None, hi=None):
    def parse(value):
        try:
            n = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError("expected a whole number, got %r" % value) from None
        if lo is not None and n < lo:
            raise argparse.ArgumentTypeError("must be at least %d, got %d" % (lo, n))
        if hi is not None and n > hi:
            raise argparse.ArgumentTypeError("must be at most %d, got %d" % (hi, n))
        return n

    return parse


def _common(p, *, top):
    """Options accepted both before and after the subcommand.

    Subparser copies use SUPPRESS defaults so an option given before the
    subcommand is not reset by the subparser.
    """
    d = (lambda v: v) if top else (lambda v: argparse.SUPPRESS)
    g = p.add_argument_group("common options")
    g.add_argument("--config", metavar="PATH", default=d(None),
                   help="config file (default $WEBSEARCH_CONFIG or ~/.pi/agent/web-search.json)")
    g.add_argument("--provider", metavar="NAME", default=d(None),
                   help="provider name from the config, or a type: ddgs, exa, brave, local, auto")
    g.add_argument("--timeout", type=_positive_float, metavar="SECONDS", default=d(60.0),
                   help="bound for the whole call (default 60)")
    g.add_argument("--output", choices=OUTPUTS, default=d("protocol"),
                   help="protocol block (default) or readable text for people")
    g.add_argument("--keep-temp", action="store_true", default=d(False),
                   help="keep the call's temp directory for debugging")
    g.add_argument("--allow-private", action="store_true", default=d(False),
                   help="allow private, loopback and link-local addresses (local docs servers, tests)")
    g.add_argument("--no-cache", action="store_true", default=d(False), help="neither read nor write the cache")
    g.add_argument("--refresh", action="store_true", default=d(False), help="skip reading the cache, still write it")
    g.add_argument("--cache-ttl", type=_int(0), metavar="SECONDS", default=d(None),
                   help="cache lifetime (default 300)")
    g.add_argument("--cache-dir", metavar="DIR", default=d(None), help="cache directory")


def build_parser(prog="websearch-worker", only=None):
    parser = _Parser(
        prog=prog,
        description="Web search and web fetch for coding agents.",
        epilog=EXAMPLES,
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    _common(parser, top=True)
    sub = parser.add_subparsers(dest="command", metavar="{search,fetch}")

    build = _SUBCOMMANDS if only is None else {only: _SUBCOMMANDS[only]}
    for name, (helptext, add_options) in _SUBCOMMANDS.items():
        p = sub.add_parser(name, help=helptext, epilog=EXAMPLES, formatter_class=_Formatter)
        if name in build:
            add_options(p)
        else:  # never parsed in this call; listed so --help still names it
            p.add_argument("rest", nargs=argparse.REMAINDER)
    return parser


def _search_options(s):
    s.add_argument("query", nargs="+", help="the search query")
    _common(s, top=False)
    s.add_argument("--format", choices=OUTPUTS, dest="search_format", default=None,
                   help="alias of --output for search")
    s.add_argument("--limit", type=int, default=None, help="number of results (default 5; ddgs 1-50)")
    s.add_argument("--page", type=_int(1, 100), default=1, help="result page (default 1)")
    s.add_argument("--region", default=None, help="region such as us-en, de-de (ddgs)")
    s.add_argument("--safesearch", choices=SAFESEARCH, default=None)
    s.add_argument("--recency", choices=RECENCY, default=None, help="only results from the last day/week/month/year")
    s.add_argument("--include-domain", action="append", default=[], metavar="DOMAIN",
                   help="only results from this domain (repeatable)")
    s.add_argument("--exclude-domain", action="append", default=[], metavar="DOMAIN",
                   help="no results from this domain (repeatable)")
    s.add_argument("--backend", default=None,
                   help="ddgs engines, comma-separated, tried in order (default duckduckgo,brave,mojeek,yahoo)")
    s.add_argument("--max-chars", type=_int(200), default=None, help="bound for the payload's text field")
    ex = s.add_argument_group("exa options")
    ex.add_argument("--type", dest="search_type", default=None, help="auto, neural, keyword, fast, deep, ...")
    ex.add_argument("--category", default=None, help='e.g. "research paper", news, company, pdf')
    ex.add_argument("--start-published", default=None, metavar="DATE")
    ex.add_argument("--end-published", default=None, metavar="DATE")
    ex.add_argument("--start-crawl", default=None, metavar="DATE")
    ex.add_argument("--end-crawl", default=None, metavar="DATE")
    ex.add_argument("--include-text", default=None, metavar="PHRASE")
    ex.add_argument("--exclude-text", default=None, metavar="PHRASE")
    ex.add_argument("--user-location", default=None, metavar="CC")
    ex.add_argument("--moderation", action="store_true", default=False)
    ex.add_argument("--additional-query", action="append", default=[], metavar="QUERY")
    ex.add_argument("--system-prompt", default=None)
    ex.add_argument("--output-schema", default=None, metavar="JSON", help="JSON schema, or @file")
    ex.add_argument("--text", dest="want_text", action="store_true", default=False, help="ask for page text")
    ex.add_argument("--highlights", action="store_true", default=False)
    ex.add_argument("--summary", action="store_true", default=False)
    br = s.add_argument_group("brave options")
    br.add_argument("--country", default=None, metavar="CC")
    br.add_argument("--search-lang", default=None, metavar="LANG")
    en = s.add_argument_group("enrichment")
    en.add_argument("--fetch-top", type=_int(0, 5), default=0, help="fetch the top N results (0-5)")
    en.add_argument("--excerpt-chars", type=_int(50, 20000), default=600)
    en.add_argument("--source-timeout", type=_positive_float, default=6.0)



def _fetch_options(f):
    f.add_argument("urls", nargs="+", metavar="URL")
    _common(f, top=False)
    f.add_argument("--format", choices=FETCH_FORMATS, dest="fetch_format", default="markdown",
                   help="content format (default markdown)")
    f.add_argument("--max-chars", type=_int(1), default=None, help="characters per page (default 20000)")
    f.add_argument("--start-index", type=_int(0), default=0, help="continue a long page from here")
    f.add_argument("--concurrency", type=_int(1, 64), default=8)
    fx = f.add_argument_group("exa options")
    fx.add_argument("--highlights", action="store_true", default=False)
    fx.add_argument("--summary", action="store_true", default=False)
    fx.add_argument("--livecrawl", default=None, help="never, fallback, always, preferred")
    fx.add_argument("--livecrawl-timeout", type=_int(1), default=None, metavar="MS")
    fx.add_argument("--max-age-hours", type=int, default=None)
    fx.add_argument("--subpages", type=_int(0, 100), default=None)
    fx.add_argument("--subpage-target", action="append", default=[], metavar="TERM")
    fx.add_argument("--links", type=_int(0), default=None, metavar="N")
    fx.add_argument("--image-links", type=_int(0), default=None, metavar="N")


_SUBCOMMANDS = {
    "search": ("search the web", _search_options),
    "fetch": ("fetch pages as clean text", _fetch_options),
}
# Options before the subcommand that take a value (so their value is not the command).
_VALUED = ("--config", "--provider", "--timeout", "--output", "--cache-ttl", "--cache-dir")


def _command_in(argv):
    """The subcommand named in argv, found the way argparse will find it, or None."""
    skip = False
    for token in argv:
        if skip:
            skip = False
        elif token in _VALUED:
            skip = True
        elif token == "--":
            return None
        elif not token.startswith("-"):
            return token if token in _SUBCOMMANDS else None
    return None


def parse_args(argv, prog="websearch-worker"):
    # Every call is a fresh process: build just the options of the command in use.
    parser = build_parser(prog, only=_command_in(argv))
    args = parser.parse_args(argv)
    if args.version:
        return args
    if not args.command:
        raise UsageError("a command is required: search or fetch")
    if args.command == "search":
        if args.search_format:
            args.output = args.search_format
        args.query = " ".join(args.query).strip()
    return args
