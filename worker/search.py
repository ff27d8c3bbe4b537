"""The search tool: validate the request, pick the provider, shape the answer."""

from . import cache
from . import config as config_mod
from . import textview
from .errors import WorkerError
from . import providers

MAX_QUERY_CHARS = 2000
# The text field is rebuilt from the results on every call, cached or not;
# enrichment (--fetch-top) runs after the cache, on cached and fresh answers alike.
SEARCH_NOT_IN_KEY = ("max_chars", "fetch_top", "excerpt_chars", "source_timeout", "allow_private")


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


def fresh_answer(spec, call, args, tool="search"):
    """Ask the provider (the miss path: provider libraries load only here), within the provider's slot."""
    from . import ratelimit

    provider = providers.build(spec, call, tool)
    with ratelimit.search_slot(call, spec):
        return provider.search(args)


def run_search(args, call):
    args.query = clean_query(args.query)
    cfg = config_mod.load(args)
    spec = config_mod.select(cfg, "search", args.provider)
    # The cache is consulted before any provider exists: a hit imports no provider library.
    store = cache.open_store(args, cfg.settings, call)
    key = cache.make_key("search", spec, cache.request_fields(args, exclude=SEARCH_NOT_IN_KEY))
    hit = store.get(key)
    if hit is not None:
        answer, age = hit
        cache.annotate(answer.setdefault("meta", {}), age)
    else:
        from . import ratelimit

        answer = fresh_answer(spec, call, args)
        store.put(key, "search", spec.name, answer)
        answer["meta"] = dict(answer.get("meta") or {}, cached=False, slot_wait_ms=ratelimit.waited_ms())
    store.close()
    if args.fetch_top > 0:
        from .enrich import enrich

        call.warnings.extend(enrich(answer.get("results", []), args, call, cfg.settings))
    payload = {
        "tool": "search",
        "provider": spec.name,
        "provider_type": spec.type,
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
