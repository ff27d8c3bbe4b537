"""The search tool: validate the request, pick the provider, shape the answer."""

from . import config as config_mod
from . import textview
from .errors import WorkerError
from .providers import load_class

MAX_QUERY_CHARS = 2000


def clean_query(query):
    """Fold whitespace and drop control characters; reject empty or oversized queries."""
    query = "".join(ch if ch.isprintable() else " " for ch in query or "")
    query = " ".join(query.split())
    if not query:
        raise WorkerError("invalid_query", "the search query is empty", hint='pass the query as text: search "your query"')
    if len(query) > MAX_QUERY_CHARS:
        raise WorkerError("invalid_query", "the search query is %d characters; the limit is %d" % (len(query), MAX_QUERY_CHARS),
                          hint="shorten the query")
    return query


def make_provider(call, args, tool):
    cfg = config_mod.load(args)
    spec = config_mod.select(cfg, tool, args.provider)
    cls = load_class(spec.type)
    provider = cls(spec, call)
    if tool not in provider.tools:
        raise WorkerError("invalid_argument", "provider %r (%s) cannot %s" % (spec.name, spec.type, tool),
                          hint="choose a provider that supports %s with --provider" % tool)
    return cfg, provider


def run_search(args, call):
    args.query = clean_query(args.query)
    cfg, provider = make_provider(call, args, "search")
    answer = provider.search(args)
    payload = {
        "tool": "search",
        "provider": provider.name,
        "provider_type": provider.spec.type,
        "query": args.query,
        "results": answer.get("results", []),
        "meta": answer.get("meta", {}),
        "warnings": list(call.warnings) + list(answer.get("warnings", [])),
    }
    for key in ("output", "raw"):
        if key in answer:
            payload[key] = answer[key]
    payload["text"] = textview.search_text(payload, max_chars=args.max_chars)
    return payload
