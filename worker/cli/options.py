"""The command line's options, declared once: what ``--help`` shows, what both parsers read
(the fast one, fast.py; argparse, parser.py), and what the MCP tools' JSON Schemas
(worker/tool_schemas.py) and docs/usage.md's tables (worker/docs_options.py) are written from.

Options that belong to one provider (Exa, Brave) are declared here too so that ``--help``
shows everything a user can say, in one place.  ``declared(command)`` reads the
declarations as data, without argparse.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any, Callable


EXAMPLES = """\
examples:
  %(prog)s search "rust async runtime comparison"
  %(prog)s search "typescript 5.7 release notes" --recency week --limit 8 --output text
  %(prog)s search "state of WebGPU" --provider exa --type deep --category "research paper"
  %(prog)s search "rust foundation" --news --recency week
  %(prog)s search "tokio spawn panics" --query "tokio task panic" --sources web,github,stackexchange
  %(prog)s fetch https://example.org/article
  %(prog)s fetch URL1 URL2 --max-chars 12000 --format markdown
  %(prog)s fetch URL --focus "how is the cache invalidated" --max-chars 3000
  %(prog)s fetch URL --find "max_connections" --find "pool size"
  %(prog)s fetch https://docs.python.org/3/library/ --crawl 30 --focus "why does round(2.5) give 2"
  %(prog)s map https://docs.python.org/3/library/ --max-pages 1000
  %(prog)s mcp [--allow-private] [--config PATH] [--venv DIR]   (an MCP server on stdio; mcp --help)

Output: one SEARCH_OK or SEARCH_ERROR block on stdout (docs/PROTOCOL.md).
Exit codes: 0 ok, 1 error, 2 usage error, 130 cancelled.
"""


def sub_examples(prog: str, command: str) -> str:
    """The epilog of ``PROG COMMAND --help``: that command's examples, written with the top-level prog.

    A subparser's %(prog)s already ends in the command, which would print
    ``run.py search search ...``; this text is formatted here, so argparse leaves it alone.
    """
    lines = []
    for line in EXAMPLES.splitlines():
        if line.startswith("  %(prog)s ") and not line.startswith("  %%(prog)s %s " % command):
            continue
        lines.append(line.replace("%(prog)s", prog))
    return "\n".join(lines) + "\n"


RECENCY = ("day", "week", "month", "year")
SAFESEARCH = ("on", "moderate", "off")
FETCH_FORMATS = ("markdown", "text", "html", "raw")
RENDER_MODES = ("auto", "never", "always")  # worker.pages.render.MODES: the option's choices, without importing it
OUTPUTS = ("protocol", "text")
VERTICALS = ("web", "news")
VERSION_HELP = "print the version and exit"


def _bad_value(message: str) -> Exception:
    """argparse shows an ArgumentTypeError's own message; the fast parser only needs it to be an error."""
    import argparse  # loaded already where argparse parses; the fast parser declines on any error

    return argparse.ArgumentTypeError(message)


MAX_SECONDS = 24 * 3600.0  # --timeout / --source-timeout: a day is beyond any call; more overflows timers
MAX_CACHE_TTL = 365 * 24 * 3600


def _positive_float(value: str, hi: float = MAX_SECONDS) -> float:
    from .. import numbers

    try:
        f = numbers.parse(value, hi=hi)
    except ValueError as exc:
        if numbers.or_none(value) is None:
            raise _bad_value("expected a number of seconds, got %r" % value[:40]) from None
        raise _bad_value(str(exc)) from None
    if not f > 0:
        raise _bad_value("must be greater than 0, got %r" % value[:40])
    return f


def _int(lo: int | None = None, hi: int | None = None) -> Callable[[str], int]:
    def parse(value: str) -> int:
        from .. import numbers

        try:
            return int(numbers.parse(value, lo, hi, integer=True))  # already whole: integer=True
        except ValueError as exc:
            if numbers.or_none(value, integer=True) is None:
                raise _bad_value("expected a whole number, got %r" % value[:40]) from None
            raise _bad_value(str(exc)) from None

    # Read by worker.tool_schemas: the tools' JSON Schemas carry the same range.
    parse.bounds = (lo, hi)  # type: ignore[attr-defined]  # an attribute set on a function
    return parse


SEARCH_SOURCES = ("web", "github", "stackexchange")  # worker.request.SOURCES, without importing it here


def _source_list(value: str) -> str:
    """--sources: names from SEARCH_SOURCES, comma-separated; the folded list, or a usage error."""
    names = [n.strip().lower() for n in value.split(",") if n.strip()]
    unknown = [n for n in names if n not in SEARCH_SOURCES]
    if unknown or not names:
        raise _bad_value("expected sources from %s, got %r" % (", ".join(SEARCH_SOURCES), value[:40]))
    return ",".join(names)


# Read by worker.tool_schemas: each item of the tools' list is one of these.
_source_list.items = SEARCH_SOURCES  # type: ignore[attr-defined]  # an attribute set on a function


def _config_help() -> str:
    from ..config.path import help_text  # argparse is loaded already: this is --help's (or a rare argv's) path

    return help_text().replace("%", "%%")  # argparse formats help with %


def common(p: Any, *, top: bool, suppress: Any) -> None:
    """Options accepted both before and after the subcommand.

    Subparser copies use SUPPRESS defaults so an option given before the
    subcommand is not reset by the subparser.
    """
    d = (lambda v: v) if top else (lambda v: suppress)
    g = p.add_argument_group("common options")
    g.add_argument(
        "--config",
        metavar="PATH",
        default=d(None),
        help=_config_help(),
    )
    g.add_argument(
        "--provider",
        metavar="NAME",
        default=d(None),
        help="provider name from the config, or a type: ddgs, exa, brave, local, auto",
    )
    g.add_argument(
        "--timeout",
        type=_positive_float,
        metavar="SECONDS",
        default=d(60.0),
        help="bound for the whole call (default 60)",
    )
    g.add_argument(
        "--output", choices=OUTPUTS, default=d("protocol"), help="protocol block (default) or readable text for people"
    )
    g.add_argument(
        "--keep-temp", action="store_true", default=d(False), help="keep the call's temp directory for debugging"
    )
    g.add_argument(
        "--allow-private",
        action="store_true",
        default=d(False),
        help="allow private, loopback and link-local addresses (local docs servers, tests)",
    )
    g.add_argument("--no-cache", action="store_true", default=d(False), help="neither read nor write the cache")
    g.add_argument("--refresh", action="store_true", default=d(False), help="skip reading the cache, still write it")
    g.add_argument(
        "--cache-ttl",
        type=_int(0, MAX_CACHE_TTL),
        metavar="SECONDS",
        default=d(None),
        help="cache lifetime (default 300)",
    )
    g.add_argument("--cache-dir", metavar="DIR", default=d(None), help="cache directory")


def _search_options(s: Any, suppress: Any) -> None:
    s.add_argument("query", nargs="+", help="the search query")
    common(s, top=False, suppress=suppress)
    s.add_argument("--format", choices=OUTPUTS, dest="search_format", default=None, help="alias of --output for search")
    s.add_argument("--limit", type=_int(), metavar="N", default=None, help="number of results (default 5; ddgs 1-50)")
    s.add_argument("--page", type=_int(1, 100), metavar="N", default=1, help="result page (default 1)")
    s.add_argument("--region", default=None, help="region such as us-en, de-de (ddgs)")
    s.add_argument("--safesearch", choices=SAFESEARCH, default=None, help="safe search level (ddgs, Brave)")
    s.add_argument("--recency", choices=RECENCY, default=None, help="only results from the last day/week/month/year")
    s.add_argument(
        "--news",
        action="store_true",
        default=False,
        help="news articles (with published and source): ddgs news, Brave news, Exa category news",
    )
    s.add_argument("--vertical", choices=VERTICALS, default=None, help="web (default) or news (= --news)")
    s.add_argument(
        "--include-domain",
        action="append",
        default=[],
        metavar="DOMAIN",
        help="only results from this domain (repeatable)",
    )
    s.add_argument(
        "--exclude-domain",
        action="append",
        default=[],
        metavar="DOMAIN",
        help="no results from this domain (repeatable)",
    )
    s.add_argument(
        "--backend",
        default=None,
        metavar="ENGINES",
        help="ddgs engines, comma-separated, tried in order (default duckduckgo,brave,mojeek,yahoo)",
    )
    s.add_argument("--max-chars", type=_int(200), metavar="N", default=None, help="bound for the payload's text field")
    s.add_argument(
        "--query",
        dest="queries",
        action="append",
        default=[],
        metavar="QUERY",
        help="another phrasing, searched at once, the lists merged by rank (repeatable; 5 queries in all)",
    )
    s.add_argument(
        "--sources",
        type=_source_list,
        action="append",
        default=[],
        metavar="LIST",
        help="where to search, comma-separated: web (default), github (issues, pull requests), stackexchange",
    )
    ex = s.add_argument_group("exa options")
    ex.add_argument(
        "--type", dest="search_type", default=None, metavar="TYPE", help="auto, neural, keyword, fast, deep, ..."
    )
    ex.add_argument("--category", default=None, help='e.g. "research paper", news, company, pdf')
    ex.add_argument("--start-published", default=None, metavar="DATE", help="published on or after DATE (YYYY-MM-DD)")
    ex.add_argument("--end-published", default=None, metavar="DATE", help="published on or before DATE")
    ex.add_argument("--start-crawl", default=None, metavar="DATE", help="crawled by Exa on or after DATE")
    ex.add_argument("--end-crawl", default=None, metavar="DATE", help="crawled by Exa on or before DATE")
    ex.add_argument("--include-text", default=None, metavar="PHRASE", help="a phrase (at most 5 words) pages must hold")
    ex.add_argument(
        "--exclude-text", default=None, metavar="PHRASE", help="a phrase (at most 5 words) pages must not hold"
    )
    ex.add_argument("--user-location", default=None, metavar="CC", help="two-letter country of the user")
    ex.add_argument("--moderation", action="store_true", default=False, help="filter unsafe content")
    ex.add_argument(
        "--additional-query",
        action="append",
        default=[],
        metavar="QUERY",
        help="another phrasing for a deep search (repeatable, at most 5)",
    )
    ex.add_argument(
        "--system-prompt", default=None, metavar="TEXT", help="instructions for a deep search's synthesised output"
    )
    ex.add_argument("--output-schema", default=None, metavar="JSON", help="JSON schema, or @file")
    ex.add_argument("--text", dest="want_text", action="store_true", default=False, help="ask for page text")
    ex.add_argument("--highlights", action="store_true", default=False, help="ask for the most relevant passages")
    ex.add_argument("--summary", action="store_true", default=False, help="ask for a summary of each page")
    br = s.add_argument_group("brave options")
    br.add_argument("--country", default=None, metavar="CC", help="two-letter country of the results")
    br.add_argument("--search-lang", default=None, metavar="LANG", help="language of the results, e.g. en")
    en = s.add_argument_group("enrichment")
    en.add_argument("--fetch-top", type=_int(0, 5), metavar="N", default=0, help="fetch the top N results (0-5)")
    en.add_argument(
        "--excerpt-chars",
        type=_int(50, 20000),
        metavar="N",
        default=600,
        help="characters of each fetched excerpt (default 600)",
    )
    en.add_argument(
        "--source-timeout",
        type=_positive_float,
        default=6.0,
        metavar="SECONDS",
        help="bound for each fetched result (default 6)",
    )
    _budget_option(en)


def _fetch_options(f: Any, suppress: Any) -> None:
    f.add_argument("urls", nargs="+", metavar="URL", help="http(s) URLs, fetched in parallel, answered in order")
    common(f, top=False, suppress=suppress)
    f.add_argument(
        "--format",
        choices=FETCH_FORMATS,
        dest="fetch_format",
        default="markdown",
        help="content format (default markdown)",
    )
    f.add_argument("--max-chars", type=_int(1), metavar="N", default=None, help="characters per page (default 20000)")
    f.add_argument("--start-index", type=_int(0), metavar="N", default=0, help="continue a long page from here")
    f.add_argument("--concurrency", type=_int(1, 64), metavar="N", default=8, help="simultaneous downloads (default 8)")
    _focus_options(f)
    f.add_argument(
        "--find",
        action="append",
        default=[],
        metavar="TEXT",
        help="every occurrence of TEXT in the whole page (case and spacing ignored), each with its offset and context",
    )
    f.add_argument(
        "--crawl",
        type=_int(1, MAX_CRAWL),
        metavar="N",
        default=None,
        help="read up to N pages of the URL's section, the best for --focus first; passages ranked across them "
        "(docs/crawl.md)",
    )
    _scope_option(f, "with --crawl: ")
    f.add_argument(
        "--no-adapters",
        action="store_true",
        default=False,
        help="read GitHub, Stack Exchange, PyPI, npm and arXiv pages as HTML, not through their APIs",
    )
    f.add_argument(
        "--llms-txt",
        action="store_true",
        default=False,
        help="read the site's /llms.txt first (the page when it has none)",
    )
    f.add_argument(
        "--respect-robots",
        action="store_true",
        default=False,
        help='honour the sites\' robots.txt (RFC 9309): a disallowed URL is an item error (config: "robots": true)',
    )
    f.add_argument(
        "--render",
        choices=RENDER_MODES,
        default=None,
        help="render pages in Chromium: auto (default: only pages whose text is built by scripts), never, always",
    )
    fx = f.add_argument_group("exa options")
    fx.add_argument("--highlights", action="store_true", default=False, help="ask for the most relevant passages")
    fx.add_argument("--summary", action="store_true", default=False, help="ask for a summary of each page")
    fx.add_argument("--livecrawl", default=None, metavar="MODE", help="never, fallback, always, preferred")
    fx.add_argument(
        "--livecrawl-timeout", type=_int(1), default=None, metavar="MS", help="bound for a live crawl, in milliseconds"
    )
    fx.add_argument(
        "--max-age-hours", type=_int(), metavar="N", default=None, help="crawl again when Exa's copy is older"
    )
    fx.add_argument(
        "--subpages", type=_int(0, 100), metavar="N", default=None, help="also read up to N linked pages of the site"
    )
    fx.add_argument(
        "--subpage-target", action="append", default=[], metavar="TERM", help="prefer subpages about TERM (repeatable)"
    )
    fx.add_argument("--links", type=_int(0), default=None, metavar="N", help="return up to N links of each page")
    fx.add_argument(
        "--image-links", type=_int(0), default=None, metavar="N", help="return up to N image links of each page"
    )


MAX_TOTAL_CHARS = 10_000_000
MAX_CRAWL = 200  # pages one crawl reads
MAX_MAP_PAGES = 20_000
SCOPES = ("section", "site")  # worker.site.scope.SCOPES, without importing it


def _scope_option(f: Any, lead: str = "") -> None:
    f.add_argument(
        "--scope",
        choices=SCOPES,
        default=None,
        help=lead
        + "section (default: the URL's folder and below, or the folder its contents page lists) or site (its whole host)",
    )


def _map_options(m: Any, suppress: Any) -> None:
    m.add_argument("urls", nargs="+", metavar="URL", help="the start page of the site or section")
    common(m, top=False, suppress=suppress)
    _scope_option(m)
    m.add_argument(
        "--max-pages",
        type=_int(1, MAX_MAP_PAGES),
        metavar="N",
        default=None,
        help="list at most N pages (default 1000)",
    )
    m.add_argument(
        "--respect-robots",
        action="store_true",
        default=False,
        help='honour the site\'s robots.txt (RFC 9309): disallowed pages are left out (config: "robots": true)',
    )


def _budget_option(g: Any) -> None:
    g.add_argument(
        "--max-total-chars",
        type=_int(200, MAX_TOTAL_CHARS),
        default=None,
        metavar="N",
        help="characters of page text for the whole call, shared fairly by the pages (docs/focus.md)",
    )


def _focus_options(f: Any) -> None:
    f.add_argument(
        "--focus",
        default=None,
        metavar="TEXT",
        help="the page's passages most relevant to TEXT, in page order, with their offsets (docs/focus.md)",
    )
    _budget_option(f)


SUBCOMMANDS = {
    "search": ("search the web", _search_options),
    "fetch": ("fetch pages as clean text", _fetch_options),
    "map": ("list the pages of a site or section", _map_options),
}


def valued() -> frozenset[str]:
    """The options before the subcommand that take a value (so that their value is not the
    command), from the declarations."""
    top = Recorder()
    common(top, top=True, suppress=SUPPRESS)
    return frozenset(flag for flag, (_dest, kw) in top.options.items() if kw.get("action") != "store_true")


class Recorder:
    """Stands in for an argparse parser to read the option declarations above as data."""

    def __init__(self, group: str | None = None, shared: Recorder | None = None) -> None:
        # flag -> (dest, kwargs)
        self.options: dict[str, tuple[str, dict[str, Any]]] = {} if shared is None else shared.options
        # flag -> its --help section (docs/usage.md's tables)
        self.groups: dict[str, str | None] = {} if shared is None else shared.groups
        self.positional: tuple[str, dict[str, Any]] | None = None
        self.group = group

    def add_argument(self, *flags: str, **kw: Any) -> None:
        if not flags[0].startswith("-"):
            self.positional = (flags[0], kw)
            return
        dest = kw.get("dest") or flags[0][2:].replace("-", "_")
        for flag in flags:
            self.options[flag] = (dest, kw)
            self.groups[flag] = self.group

    def add_argument_group(self, title: str | None = None, **kw: Any) -> Recorder:
        return Recorder(title, shared=self)


SUPPRESS = object()


def declared(command: str) -> tuple[Recorder, Recorder]:
    """The declarations of the options before ``command`` and of ``command``'s own, as data
    (read by fast.py, worker/tool_schemas.py and worker/docs_options.py)."""
    top = Recorder()
    top.add_argument("--version", action="store_true", default=False, help=VERSION_HELP)
    common(top, top=True, suppress=SUPPRESS)
    sub = Recorder()
    SUBCOMMANDS[command][1](sub, SUPPRESS)
    return top, sub
