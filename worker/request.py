"""What a call asks for: SearchRequest and FetchRequest, built once from the command line.

The CLI turns what it parsed into one of these (cli.request_of) and hands it
down; config, the cache, the tools and the providers read its fields and never
see the parser's output.  A request is frozen: a tool that settles a value from
the config (fetch's --max-chars default, say) makes a new request with
``replace``.

A field is named after its command-line option (``--include-domain`` ->
``include_domain``), so a provider of the user's own reads ``request.query`` as
it read ``args.query``, and the cache key, made from the fields, is what it was.
"""

from .errors import WorkerError

MAX_QUERY_CHARS = 2000
MAX_QUERIES = 5  # queries in one search call (the first and its --query phrasings)
SOURCES = ("web", "github", "stackexchange")  # what --sources names; web is the configured provider chain

TYPE_CHECKING = False  # typing's own flag, without importing typing on every call
if TYPE_CHECKING:
    from typing import Any, ClassVar, TypeVar

    from typing_extensions import dataclass_transform

    C = TypeVar("C")
    R = TypeVar("R", bound="Request")

    @dataclass_transform(frozen_default=True, kw_only_default=True)
    def record(cls: type[C]) -> type[C]: ...
else:

    def record(cls: "type") -> "type":
        """``@dataclass(frozen=True, kw_only=True)``, for these classes, without the dataclasses module.

        dataclasses imports inspect, ast and re: ~10 ms here, where a whole cached
        call takes ~27 ms (the ``record`` trick of worker/startup.py; with it off, the
        classes are dataclasses).  Fields are the class's annotated names (its bases'
        first), each with the class attribute as its default; a list given for a field
        is kept as a tuple (Request.__post_init__), so nothing in a request changes
        after it is built.
        """
        from .startup import on

        if not on("record"):
            import dataclasses

            cls = dataclasses.dataclass(frozen=True, kw_only=True, eq=False, repr=False)(cls)
            cls.__record_fields__ = tuple(f.name for f in dataclasses.fields(cls))
            return cls
        names = []
        for klass in reversed(cls.__mro__):
            annotations = klass.__dict__.get("__annotations__")
            if annotations is None:
                annotations = getattr(klass, "__annotations__", None) or {}
            for name in annotations:
                if name not in names:
                    names.append(name)
        defaults = {name: getattr(cls, name) for name in names if hasattr(cls, name)}
        known = frozenset(names)
        cls.__record_fields__ = tuple(names)

        def __init__(self, **values):
            unknown = [name for name in values if name not in known]
            if unknown:
                raise TypeError("%s has no field %s" % (cls.__name__, ", ".join(sorted(unknown))))
            for name in names:
                if name in values:
                    value = values[name]
                elif name in defaults:
                    value = defaults[name]
                else:
                    raise TypeError("%s needs %s" % (cls.__name__, name))
                object.__setattr__(self, name, value)
            self.__post_init__()

        def __setattr__(self, name, value):
            raise AttributeError("a %s is frozen: make a new one with replace(%s=...)" % (type(self).__name__, name))

        def __delattr__(self, name):
            raise AttributeError("a %s is frozen" % type(self).__name__)

        cls.__init__ = __init__
        cls.__setattr__ = __setattr__
        cls.__delattr__ = __delattr__
        return cls


def clean_query(query: str) -> str:
    """Fold whitespace and drop control characters; reject empty or oversized queries."""
    query = "".join(ch if ch.isprintable() else " " for ch in query or "")
    query = " ".join(query.split())
    if not query:
        raise WorkerError(
            "invalid_query", "the search query is empty", hint='pass the query as text: search "your query"'
        )
    if len(query) > MAX_QUERY_CHARS:
        raise WorkerError(
            "invalid_query",
            "the search query is %d characters; the limit is %d" % (len(query), MAX_QUERY_CHARS),
            hint="shorten the query",
        )
    return query


@record
class Request:
    """The options both commands take: where the config and the cache are, and how the call runs."""

    command = ""  # "search" | "fetch": a class attribute, not a field
    if TYPE_CHECKING:  # set by @record; not an annotation at run time, where it would be a field
        __record_fields__: ClassVar[tuple[str, ...]] = ()

    config: "str | None" = None
    provider: "str | None" = None
    timeout: float = 60.0
    output: str = "protocol"
    keep_temp: bool = False
    allow_private: bool = False
    no_cache: bool = False
    refresh: bool = False
    cache_ttl: "int | None" = None
    cache_dir: "str | None" = None

    def __post_init__(self) -> None:
        for name in type(self).__record_fields__:
            value = getattr(self, name)
            if isinstance(value, list):
                object.__setattr__(self, name, tuple(value))

    # Defining __eq__ leaves __hash__ None, as a frozen dataclass with a dict field (sites) would need.
    def __eq__(self, other):
        return type(other) is type(self) and self.fields() == other.fields()

    def __repr__(self):
        shown = ", ".join("%s=%r" % kv for kv in self.fields().items())
        return "%s(%s)" % (type(self).__name__, shown)

    def fields(self) -> "dict[str, Any]":
        """Every field and its value, in declaration order."""
        return {name: getattr(self, name) for name in type(self).__record_fields__}

    def replace(self: "R", **changes: "Any") -> "R":
        """A copy with ``changes``; the request itself never changes."""
        return type(self)(**dict(self.fields(), **changes))


@record
class SearchRequest(Request):
    """``search``: the query is cleaned when the request is built (invalid_query if it is empty or too long)."""

    command = "search"

    query: str = ""
    queries: "tuple[str, ...]" = ()  # --query: more phrasings, searched at once, results merged
    sources: "tuple[str, ...]" = ()  # --sources other than web alone (); see worker/tools/multisearch.py
    limit: "int | None" = None
    page: int = 1
    region: "str | None" = None
    safesearch: "str | None" = None
    recency: "str | None" = None
    vertical: "str | None" = None  # None: the web (one cache key for "--vertical web" and nothing); "news"
    include_domain: "tuple[str, ...]" = ()
    exclude_domain: "tuple[str, ...]" = ()
    backend: "str | None" = None
    max_chars: "int | None" = None  # bound of the payload's text field
    # Exa
    search_type: "str | None" = None
    category: "str | None" = None
    start_published: "str | None" = None
    end_published: "str | None" = None
    start_crawl: "str | None" = None
    end_crawl: "str | None" = None
    include_text: "str | None" = None
    exclude_text: "str | None" = None
    user_location: "str | None" = None
    moderation: bool = False
    additional_query: "tuple[str, ...]" = ()
    system_prompt: "str | None" = None
    output_schema: "str | None" = None
    want_text: bool = False
    highlights: bool = False
    summary: bool = False
    # Brave
    country: "str | None" = None
    search_lang: "str | None" = None
    # enrichment (--fetch-top)
    fetch_top: int = 0
    excerpt_chars: int = 600
    source_timeout: float = 6.0
    max_total_chars: "int | None" = None  # the excerpts' budget for the whole call

    def __post_init__(self) -> None:
        super().__post_init__()
        query = clean_query(self.query)
        object.__setattr__(self, "query", query)
        if self.queries:
            more: list[str] = []
            for text in self.queries:
                text = clean_query(text)
                if text != query and text not in more:  # a phrasing given twice is searched once
                    more.append(text)
            if 1 + len(more) > MAX_QUERIES:
                raise WorkerError(
                    "invalid_query",
                    "%d queries in one call; the limit is %d" % (1 + len(more), MAX_QUERIES),
                    hint="keep the %d best phrasings" % MAX_QUERIES,
                )
            object.__setattr__(self, "queries", tuple(more))
        if self.sources:
            unknown = [s for s in self.sources if s not in SOURCES]
            if unknown:
                raise WorkerError(
                    "invalid_argument",
                    "unknown source %r" % unknown[0],
                    hint="sources: %s" % ", ".join(SOURCES),
                )
            named = tuple(dict.fromkeys(self.sources))
            object.__setattr__(self, "sources", () if named == ("web",) else named)

    def all_queries(self) -> "tuple[str, ...]":
        """The call's queries: the first, then each --query."""
        return (self.query,) + tuple(self.queries)

    def all_sources(self) -> "tuple[str, ...]":
        """Where the call searches: web unless --sources said otherwise."""
        return tuple(self.sources) or ("web",)

    def merged(self) -> bool:
        """Several lists to merge (more than one query, or a source other than the web alone)."""
        return bool(self.queries or self.sources)


@record
class FetchRequest(Request):
    """``fetch``: the URLs and how to read them."""

    command = "fetch"

    urls: "tuple[str, ...]" = ()
    fetch_format: str = "markdown"
    max_chars: "int | None" = None  # characters per page; the fetch tool settles the default
    start_index: int = 0
    concurrency: int = 8
    focus: "str | None" = None  # the page's passages most relevant to this (worker.pages.answer.focus)
    find: "tuple[str, ...]" = ()  # --find: every occurrence of each text in the whole page (worker.pages.answer.find)
    crawl: "int | None" = None  # --crawl N: read up to N pages of the URL's section (worker.tools.crawl)
    scope: "str | None" = None  # with --crawl: section (None) or site (worker.site.scope)
    max_total_chars: "int | None" = None  # page text for the whole call, shared by the pages
    no_adapters: bool = False
    llms_txt: bool = False
    respect_robots: bool = False  # --respect-robots; the config's "robots" settles it too
    render: "str | None" = None  # auto | never | always; None: the config's, else auto (worker.pages.render)
    # Exa
    highlights: bool = False
    summary: bool = False
    livecrawl: "str | None" = None
    livecrawl_timeout: "int | None" = None
    max_age_hours: "int | None" = None
    subpages: "int | None" = None
    subpage_target: "tuple[str, ...]" = ()
    links: "int | None" = None
    image_links: "int | None" = None
    # Settled by the fetch tool from the config and the environment, not options; they
    # change the answer, so they are fields (and in the cache key) like the rest.
    max_chars_given: "bool | None" = None  # --max-chars was given (Exa keeps its own default otherwise)
    max_bytes: "int | None" = None
    sites: "dict[str, Any] | None" = None  # the config's "sites" settings
    github_auth: "bool | None" = None  # a GitHub token is set: private repositories answer otherwise
    robots_agent: "str | None" = None  # the config's "robotsAgent" (with respect_robots)
    user_agent: "str | None" = None  # the config's "userAgent"
    # Set by the fetch cache for the provider, never in the cache key: {url: stored validators}.
    revalidate: "dict[str, Any] | None" = None
    # Set by a crawl for the provider, never in the cache key: {url: the page its map downloaded}.
    prefetched: "dict[str, Any] | None" = None
    browser: "str | None" = None  # the config's "browser": the Chrome/Chromium that renders pages


@record
class MapRequest(Request):
    """``map``: the pages of a site or section (worker.tools.map)."""

    command = "map"

    urls: "tuple[str, ...]" = ()  # one: the start page
    scope: "str | None" = None  # section (None) or site
    max_pages: "int | None" = None  # the map tool settles the default
    respect_robots: bool = False  # --respect-robots (the config's "robots" too: worker.tools.map)


COMMANDS = {"search": SearchRequest, "fetch": FetchRequest, "map": MapRequest}
