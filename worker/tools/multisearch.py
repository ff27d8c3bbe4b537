"""Several queries and sources in one search call, merged into one ranked list.

``search Q1 --query Q2 --query Q3 --sources web,github,stackexchange`` asks every
(query, source) pair at once, each on its own thread, and merges what they found by
reciprocal rank fusion (worker/tools/fusion.py).  Each pair is an ordinary search of
one query: the web one goes through the configured provider chain exactly as a
single search would (fallback, circuit breaker, the provider's rate slots shared with
every other worker process or the fleet, its own cache entry, the same key a lone
search of that query has); a developer source (``github``: issues and pull requests,
``stackexchange``: Stack Overflow questions) is one provider of its own
(worker/providers/github_search.py, stackexchange_search.py), under the same slots,
breaker and cache.  A pair that fails (a 429, a wall, a timeout) becomes a warning
naming its query and source; the others stand.  Only when every pair fails is the
call an error.
"""

from __future__ import annotations

import os
import threading
import time

from .. import config as config_mod
from ..errors import WorkerError
from ..providers.base import ProviderSpec
from ..state import backend, cache
from . import search, textview

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from ..config import Config
    from ..request import SearchRequest
    from ..runtime import Call

GITHUB_TOKEN_ENV = ("GITHUB_TOKEN", "GH_TOKEN")  # worker/providers/github_search.py reads the same
STACKEXCHANGE_KEY_ENV = "STACKEXCHANGE_KEY"
DEV_SOURCES = ("github", "stackexchange")
DEFAULT_LIMIT = 5  # results per source in the merged list when --limit does not say
RESERVE_S = 0.5  # kept back from --timeout for merging and writing the answer (at most a quarter of it)
WHERE = {"web": "the web", "github": "GitHub", "stackexchange": "Stack Overflow"}


def source_spec(cfg: Config, name: str, environ: Any = None) -> ProviderSpec:
    """The provider of a developer source, from the config's ``sites`` settings and the environment.

    Its API base is the site adapter's (``sites.NAME.apiBase``).  Whether a token or key is
    set is in the spec's options, so the cache keeps those answers apart (never the secret)."""
    from .. import redact

    environ = os.environ if environ is None else environ
    site = dict(((cfg.settings.get("sites") or {}).get(name)) or {})
    key, where = None, None
    if name == "github":
        for var in GITHUB_TOKEN_ENV:
            if (environ.get(var) or "").strip():
                key, where = environ[var].strip(), "env:" + var
                break
    else:
        if isinstance(site.get("key"), str) and site["key"].strip():
            key, where = site["key"].strip(), "config"
        elif (environ.get(STACKEXCHANGE_KEY_ENV) or "").strip():
            key, where = environ[STACKEXCHANGE_KEY_ENV].strip(), "env:" + STACKEXCHANGE_KEY_ENV
    options = {"authenticated": True} if key else {}
    base = site.get("apiBase")
    return ProviderSpec(
        name,
        name,
        api_key=redact.register(key) if key else None,
        key_source=where,
        base_url=base.rstrip("/") if isinstance(base, str) else None,
        options=options,
    )


class Job:
    """One query on one source: its request, then its answer or its error."""

    def __init__(self, query: str, source: str, request: SearchRequest, spec: ProviderSpec | None) -> None:
        self.query = query
        self.source = source
        self.request = request
        self.spec = spec  # a developer source's provider; None: the configured chain (web)
        self.got: search.Answer | None = None
        self.error: WorkerError | None = None
        self.ms = 0
        self.started = time.monotonic()
        self.done = threading.Event()

    def label(self, several_queries: bool) -> str:
        return ('"%s" on %s' % (textview.one_line(self.query, 80), self.source)) if several_queries else self.source

    def run(self, call: Call, cfg: Config, store: Any) -> None:
        started = self.started = time.monotonic()
        try:
            self.got = search.answer_for(self.request, call, cfg, store, source=self.spec)
        except WorkerError as exc:
            self.error = exc
        except Exception as exc:  # a bug in one list must not cost the others
            self.error = WorkerError("internal", "%s: %s" % (type(exc).__name__, textview.one_line(exc, 200)))
            _debug(exc)
        finally:
            self.ms = int(round((time.monotonic() - started) * 1000))
            self.done.set()


def _debug(exc: BaseException) -> None:
    if os.environ.get("WEBSEARCH_WORKER_DEBUG"):
        import sys
        import traceback

        from .. import redact

        sys.stderr.write(redact.scrub("".join(traceback.format_exception(type(exc), exc, exc.__traceback__))))


def jobs_of(request: SearchRequest, cfg: Config) -> list[Job]:
    """Every (query, source) pair of the call, queries first: the order of the lists."""
    specs = {name: source_spec(cfg, name) for name in request.all_sources() if name in DEV_SOURCES}
    jobs = []
    for query in request.all_queries():
        one = request.replace(query=query, queries=(), sources=(), fetch_top=0)
        for source in request.all_sources():
            jobs.append(Job(query, source, one, specs.get(source)))
    return jobs


def _wait(jobs: list[Job], call: Call) -> None:
    """Until every job is done, or the moment that leaves time to answer with the ones that are."""
    end = None
    if call.deadline is not None:
        whole = call.deadline - call.started
        end = call.deadline - min(RESERVE_S, whole / 4)
    for job in jobs:
        left = None if end is None else end - time.monotonic()
        if not job.done.wait(None if left is None else max(0.0, left)):
            break
    for job in jobs:
        if not job.done.is_set():
            job.ms = int(round((time.monotonic() - job.started) * 1000))
            job.error = WorkerError(
                "timeout",
                "no answer within --timeout %gs" % (call.deadline - call.started if call.deadline else 0),
                hint="raise --timeout",
            )


def none_answered(jobs: list[Job], several: bool) -> WorkerError:
    """The error of a call where no list answered: the one list's own, else one naming each."""
    if len(jobs) == 1:
        assert jobs[0].error is not None
        return jobs[0].error
    errors = [j.error for j in jobs if j.error is not None]
    codes = {e.code for e in errors}
    code = codes.pop() if len(codes) == 1 else errors[0].code
    extra: dict[str, Any] = {"searches": _searches(jobs)}
    waits = [e.extra["retry_after"] for e in errors if isinstance(e.extra.get("retry_after"), (int, float))]
    if waits:
        extra["retry_after"] = min(waits)
    return WorkerError(
        code,
        "no list could be answered (%s)"
        % "; ".join("%s: %s" % (j.label(several), search.describe(j.error)) for j in jobs if j.error is not None),
        hint=errors[0].hint,
        retryable=any(e.retryable for e in errors),
        **extra,
    )


def _searches(jobs: list[Job]) -> list[dict[str, Any]]:
    """meta.searches: each list asked, how it went."""
    out = []
    for j in jobs:
        entry: dict[str, Any] = {"query": j.query, "source": j.source, "ms": j.ms}
        if j.got is not None:
            entry.update(
                provider=j.got.spec.name,
                outcome="ok",
                results=len(j.got.results),
                cached=bool(j.got.meta.get("cached")),
            )
        elif j.error is not None:
            entry.update(outcome=j.error.code, message=textview.one_line(j.error.message, 300))
            if isinstance(j.error.extra.get("retry_after"), (int, float)):
                entry["retry_after"] = j.error.extra["retry_after"]
        out.append(entry)
    return out


def _names(values: list[str]) -> str:
    return "+".join(dict.fromkeys(values))


def run_multi(request: SearchRequest, call: Call) -> dict[str, Any]:
    """The search payload of a call with several queries or sources (``request.merged()``)."""
    from ..state import ratelimit
    from . import fusion

    vertical = request.vertical or "web"
    dev = [s for s in request.all_sources() if s in DEV_SOURCES]
    if vertical != "web" and dev:
        raise WorkerError(
            "invalid_argument",
            "--news searches the web only; %s has no news" % " and ".join(dev),
            hint="drop --news, or search the web alone",
        )
    cfg = config_mod.load(request)
    jobs = jobs_of(request, cfg)
    web = next((j for j in jobs if j.spec is None), None)
    if web is not None:
        search.plan(cfg, web.request)  # the chain's config errors are the call's, said before anything is asked
    backend.attach(call, cache.resolve_dir(request, cfg.settings), cfg.settings)
    store = cache.open_store(request, cfg.settings, call)
    for job in jobs:
        threading.Thread(target=job.run, args=(call, cfg, store), name="websearch-query", daemon=True).start()
    _wait(jobs, call)
    if all(j.done.is_set() for j in jobs):
        store.close()  # a list still running may yet write its answer: the process's exit closes it then
    several = len(request.all_queries()) > 1
    answered = [j for j in jobs if j.got is not None]
    if not answered:
        raise none_answered(jobs, several)

    lists = [(j.source, j.query, j.got.results) for j in answered if j.got is not None]
    # --limit results from each source (5 unless said, or as many as its longest list): the best of
    # every phrasing, not all of them.
    per_source: dict[str, int] = {}
    for source, _query, results in lists:
        per_source[source] = max(per_source.get(source, request.limit or DEFAULT_LIMIT), len(results))
    results, facts = fusion.fuse(lists, cap=sum(per_source.values()), mark_source=vertical == "web")

    warnings: list[str] = []
    attempts: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    dropped = 0
    for j in jobs:
        if j.got is not None:
            for w in j.got.warnings + list(j.got.answer.get("warnings") or []):
                warnings.append("%s: %s" % (j.label(several), w) if len(jobs) > 1 else w)
            attempts += [dict(a, query=j.query, source=j.source) for a in j.got.meta.get("attempts") or []]
            skipped += [s for s in j.got.meta.get("skipped_providers") or [] if s not in skipped]
            dropped += j.got.meta.get("duplicates_dropped") or 0
        elif j.error is not None:
            warnings.append(
                "%s: %s; %s; the other lists answered"
                % (j.label(several), search.describe(j.error), textview.one_line(j.error.message, 160))
            )
    meta: dict[str, Any] = {
        "cached": all(bool(j.got.meta.get("cached")) for j in answered if j.got is not None),
        "slot_wait_ms": ratelimit.waited_ms(),
        "attempts": attempts,
        "skipped_providers": skipped,
        "searches": _searches(jobs),
        "fusion": facts,
    }
    if dropped:
        meta["duplicates_dropped"] = dropped
    if request.fetch_top > 0:
        from . import canonical
        from .enrich import enrich

        joined = " ".join(request.all_queries())[:2000]  # what the excerpts are chosen for
        focus = request.replace(query=joined, queries=())
        call.warnings.extend(enrich(results, focus, call, cfg.settings, adapters=True))
        results, more = canonical.dedupe(results)
        if more:
            meta["duplicates_dropped"] = meta.get("duplicates_dropped", 0) + more
    specs = [j.got.spec for j in answered if j.got is not None]
    payload: dict[str, Any] = {
        "tool": "search",
        "provider": _names([s.name for s in specs]),
        "provider_type": _names([j.got.ptype for j in answered if j.got is not None]),
        "query": request.query,
        "queries": list(request.all_queries()),
        "sources": list(request.all_sources()),
        "results": results,
        "meta": meta,
        "warnings": warnings + list(call.warnings),
    }
    if vertical != "web":
        payload["vertical"] = vertical
    payload["text"] = textview.search_text(payload, max_chars=request.max_chars)
    return payload
