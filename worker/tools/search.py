"""The search tool: validate the request, pick the providers, shape the answer.

A search tries a chain of providers (``config.search_chain``): ``--provider X``
is X alone; otherwise the default provider, then the config's ``fallback``
list or the auto order.  A provider that fails for a reason another provider
would not share (rate limited, blocked, out of credit, timeout, network, a
provider error) hands the call to the next one within the same ``--timeout``;
auth and config failures do so only when the user wrote a ``fallback`` list.
The circuit breaker (worker/state/breaker.py) lets later calls skip a provider that
keeps refusing.  Every attempt is in ``meta.attempts``.  The answer's results
are de-duplicated by canonical URL (worker/tools/canonical.py) before it is cached.
"""

from __future__ import annotations

import time

from .. import config as config_mod
from ..errors import WorkerError
from ..providers import registry
from ..state import backend, cache
from . import textview

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from ..config import Config
    from ..providers.base import ProviderSpec
    from ..request import SearchRequest
    from ..runtime import Call

    # The providers to try, each with the config error that rules it out (None: usable).
    Chain = list[tuple[ProviderSpec, WorkerError | None]]
    Failures = list[tuple[ProviderSpec, WorkerError]]

# The text field is rebuilt from the results on every call, cached or not;
# enrichment (--fetch-top) runs after the cache, on cached and fresh answers alike.
SEARCH_NOT_IN_KEY = (
    "max_chars",
    "fetch_top",
    "excerpt_chars",
    "source_timeout",
    "allow_private",
    "max_total_chars",
)

# Failures another provider would not share: the next one gets the call.
FALL_THROUGH = frozenset({"rate_limited", "blocked", "quota", "timeout", "network", "provider"})
# The user's own setup is wrong: said out loud; the next provider only when they wrote a fallback list.
REPORTED = frozenset({"auth", "config"})
OUTCOME_WORDS = {
    "rate_limited": "rate limited",
    "blocked": "blocked",
    "quota": "out of credit",
    "timeout": "timed out",
    "network": "unreachable",
    "provider": "failed",
    "auth": "refused the API key",
    "config": "not usable",
}
# A provider that is not the last one gets at most this share of what is left of --timeout.
ATTEMPT_SHARE = 0.5
MIN_ATTEMPT_S = 1.0


def fresh_answer(spec: ProviderSpec, call: Call, request: SearchRequest, tool: str = "search") -> dict[str, Any]:
    """Ask the provider (the miss path: provider libraries load only here), within the provider's slot."""
    from ..state import ratelimit

    provider = registry.build(spec, call, tool)
    # One upstream, one limit: keyed by provider type, across every worker process of the user.
    with ratelimit.slot(call, "search-" + spec.type, limit=registry.search_concurrency(spec)):
        return provider.search(request)


def chain_key_spec(chain: Chain) -> ProviderSpec:
    """A stand-in spec naming the whole chain: its answer is cached apart from any one provider's."""
    from ..providers.base import ProviderSpec

    names = [spec.name for spec, _ in chain]
    return ProviderSpec(
        "auto:" + ",".join(names),
        "chain",
        options={"chain": [[spec.name, cache.spec_fingerprint(spec)] for spec, _ in chain]},
    )


def describe(exc: WorkerError) -> str:
    """'rate limited (retry after 30 s)': one failure in a few words."""
    words = OUTCOME_WORDS.get(exc.code, exc.code)
    retry = exc.extra.get("retry_after")
    if isinstance(retry, (int, float)) and not isinstance(retry, bool):
        words += " (retry after %g s)" % retry
    return words


def _attempt(spec: ProviderSpec, outcome: str, ms: float, exc: WorkerError | None = None) -> dict[str, Any]:
    entry = {"provider": spec.name, "type": spec.type, "outcome": outcome, "ms": int(round(ms))}
    if exc is not None:  # the outcome is the code; of the error, the message and the wait
        entry.update(exc.to_dict(("message", "retry_after")))
        entry["message"] = textview.one_line(entry["message"], 300)
    return entry


def _attempt_deadline(call: Call, more: bool) -> float | None:
    """The deadline of one attempt: all that is left for the last provider, a share of it otherwise."""
    left = call.remaining()
    if not more or left is None:
        return None
    return time.monotonic() + max(min(left, MIN_ATTEMPT_S), left * ATTEMPT_SHARE)


def _out_of_time(call: Call) -> bool:
    return call.deadline is not None and time.monotonic() >= call.deadline


def ask_chain(
    chain: Chain, explicit: bool, listed: bool, request: SearchRequest, call: Call, settings: dict[str, Any]
) -> tuple[ProviderSpec, dict[str, Any], list[dict[str, Any]], list[dict[str, Any]], Failures]:
    """(spec, answer, attempts, skipped, failures) from the first provider that answers; raises when none does."""
    from ..state import breaker as breaker_mod

    # run_search set the state directory before asking; a caller that did not gets the default one
    br = breaker_mod.open_breaker(call.state_dir or cache.resolve_dir(request, settings), settings, call=call)
    attempts: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    failures: Failures = []
    try:
        ran_out = False
        for i, (spec, problem) in enumerate(chain):
            if i and _out_of_time(call):
                ran_out = True
                break
            if problem is not None:  # a listed provider without a key: reported in its turn
                attempts.append(_attempt(spec, problem.code, 0, problem))
                failures.append((spec, problem))
                continue
            guard = breaker_mod.Guard(br, enforce=not explicit)
            circuit = "provider:" + spec.name
            own_circuit = not registry.engine_circuits(spec)
            if own_circuit:
                decision = guard.check(circuit)
                if decision.state == "skip":
                    skipped.append(decision.skipped(guard.now(), provider=spec.name))
                    attempts.append(_attempt(spec, "skipped", 0))
                    continue
            more = any(err is None for _, err in chain[i + 1 :])
            started = time.monotonic()
            call.attempt_deadline = _attempt_deadline(call, more)
            call.breaker = guard
            try:
                answer = fresh_answer(spec, call, request)
            except WorkerError as exc:
                ms = (time.monotonic() - started) * 1000
                skipped.extend(guard.skipped)
                if getattr(exc, "circuit_open", False):  # every engine of it is cooling down
                    attempts.append(_attempt(spec, "skipped", ms))
                    continue
                if own_circuit:
                    guard.record(circuit, exc.code, exc.extra.get("retry_after"))
                attempts.append(_attempt(spec, exc.code, ms, exc))
                if not explicit and (exc.code in FALL_THROUGH or (exc.code in REPORTED and listed)):
                    failures.append((spec, exc))
                    continue
                if not explicit:
                    exc.extra.setdefault("attempts", attempts)
                    if skipped:
                        exc.extra.setdefault("skipped_providers", skipped)
                raise
            finally:
                call.attempt_deadline = None
                call.breaker = None
            if own_circuit:
                guard.record(circuit, None)
            skipped.extend(guard.skipped)
            attempts.append(_attempt(spec, "ok", (time.monotonic() - started) * 1000))
            return spec, answer, attempts, skipped, failures
    finally:
        br.close()
    raise none_answered(attempts, skipped, failures, ran_out)


def none_answered(
    attempts: list[dict[str, Any]], skipped: list[dict[str, Any]], failures: Failures, ran_out: bool = False
) -> WorkerError:
    """The error of a chain where no provider answered."""
    extra: dict[str, Any] = {"attempts": attempts, "skipped_providers": skipped}
    waits = [e.extra["retry_after"] for _, e in failures if isinstance(e.extra.get("retry_after"), (int, float))]
    waits += [s["retry_in_s"] for s in skipped]
    if waits:
        extra["retry_after"] = max(1, int(round(min(waits) + 0.49)))
    parts = ["%s: %s" % (spec.name, describe(exc)) for spec, exc in failures]
    parts += [
        "%s: skipped until %s (%s)" % (_where(s), s["until"], OUTCOME_WORDS.get(s["reason"], s["reason"]))
        for s in skipped
    ]
    if not failures:
        reason = skipped[0]["reason"] if skipped else "blocked"
        return WorkerError(
            reason if reason in ("blocked", "rate_limited") else "blocked",
            "every provider is cooling down after repeated refusals (%s)" % "; ".join(parts),
            hint="retry after %s s, or name one with --provider to try it anyway" % extra.get("retry_after", "a few"),
            **extra,
        )
    if len(failures) == 1 and not skipped and not ran_out:  # one provider was asked: its own words say it best
        exc = failures[0][1]
        exc.extra.setdefault("attempts", attempts)
        return exc
    codes = {exc.code for _, exc in failures}
    last = failures[-1][1]
    code = codes.pop() if len(codes) == 1 else last.code
    if ran_out:  # --timeout ended the chain before every provider had its turn
        code = "timeout"
    return WorkerError(
        code,
        "no provider could answer (%s)" % "; ".join(parts),
        hint=last.hint,
        retryable=any(exc.retryable for _, exc in failures) or bool(skipped),
        **extra,
    )


def _where(s: dict[str, Any]) -> str:
    return "%s/%s" % (s["provider"], s["engine"]) if s.get("engine") else s["provider"]


def fallback_warnings(spec: ProviderSpec, failures: Failures, skipped: list[dict[str, Any]]) -> list[str]:
    """'exa: rate limited (retry after 30 s); answered by brave' for each provider passed over."""
    out = ["%s: %s; answered by %s" % (s.name, describe(exc), spec.name) for s, exc in failures]
    for s in skipped:
        out.append(
            "%s: skipped until %s after %d %s answers; answered by %s"
            % (_where(s), s["until"], s["failures"], OUTCOME_WORDS.get(s["reason"], s["reason"]), spec.name)
        )
    return out


def plan(cfg: Config, request: SearchRequest) -> tuple[str, ProviderSpec, Chain, bool, bool]:
    """(cache key, key spec, chain, explicit, listed) of a search request."""
    chain, explicit, listed = config_mod.search_chain(cfg, request.provider, request.vertical or "web")
    key_spec = chain[0][0] if explicit else chain_key_spec(chain)
    key = cache.make_key("search", key_spec, cache.request_fields(request, exclude=SEARCH_NOT_IN_KEY))
    return key, key_spec, chain, explicit, listed


class Answer:
    """One query's answer from one provider chain, cached or fresh: what the payload is built from."""

    def __init__(
        self, spec: ProviderSpec, ptype: str | None, answer: dict[str, Any], meta: dict[str, Any], warnings: list[str]
    ) -> None:
        self.spec = spec
        self.ptype = ptype or spec.type
        self.answer = answer
        self.meta = meta
        self.warnings = warnings

    @property
    def results(self) -> list[dict[str, Any]]:
        return self.answer.get("results") or []


def answer_for(
    request: SearchRequest, call: Call, cfg: Config, store: Any, source: ProviderSpec | None = None
) -> Answer:
    """``request``'s answer (one query) from the cache, else from its provider chain, cached once asked.

    ``source``: a developer source (worker/tools/multisearch.py) asked alone, the breaker
    enforced, instead of the configured chain."""
    if source is None:
        key, key_spec, chain, explicit, listed = plan(cfg, request)
    else:
        key_spec, chain, explicit, listed = source, [(source, None)], False, False
        key = cache.make_key("search", source, cache.request_fields(request, exclude=SEARCH_NOT_IN_KEY))
    hit = store.get(key)
    if hit is not None:
        answer, age = hit
        meta = cache.annotate(answer.setdefault("meta", {}), age)
        meta["attempts"], meta["skipped_providers"] = [], []
        name = answer.pop("provider", None)
        ptype = answer.pop("provider_type", None)
        spec = (source if source is not None and name == source.name else None) or (
            cfg.providers.get(name) if isinstance(name, str) else None
        )
        if spec is None:  # an entry from before chains were cached: the key names its provider
            spec = key_spec
        return Answer(spec, ptype, answer, meta, [])
    from ..state import ratelimit
    from . import canonical  # urllib.parse: the miss path only

    spec, answer, attempts, skipped, failures = ask_chain(chain, explicit, listed, request, call, cfg.settings)
    results, dropped = canonical.dedupe(answer.get("results") or [])
    answer["results"] = results
    meta = dict(answer.get("meta") or {})
    if dropped:
        meta["duplicates_dropped"] = dropped
    answer["meta"] = meta
    answer["provider"], answer["provider_type"] = spec.name, spec.type
    store.put(key, "search", spec.name, answer)
    answer.pop("provider")
    ptype = answer.pop("provider_type")
    meta.update(cached=False, slot_wait_ms=ratelimit.waited_ms(), attempts=attempts, skipped_providers=skipped)
    return Answer(spec, ptype, answer, meta, fallback_warnings(spec, failures, skipped))


def run_search(request: SearchRequest, call: Call) -> dict[str, Any]:
    """The search payload for ``request`` (a worker.request.SearchRequest, its query already cleaned)."""
    vertical = request.vertical or "web"
    cfg = config_mod.load(request)
    backend.attach(call, cache.resolve_dir(request, cfg.settings), cfg.settings)
    # The cache is consulted before any provider exists: a hit imports no provider library.
    store = cache.open_store(request, cfg.settings, call)
    try:
        got = answer_for(request, call, cfg, store)
    finally:
        store.close()
    spec, answer, meta, warnings = got.spec, got.answer, got.meta, got.warnings
    results = answer.get("results", [])
    if request.fetch_top > 0:
        from . import canonical
        from .enrich import enrich

        call.warnings.extend(enrich(results, request, call, cfg.settings))
        results, dropped = canonical.dedupe(results)  # pages that state one canonical URL are one page
        if dropped:
            meta["duplicates_dropped"] = meta.get("duplicates_dropped", 0) + dropped
    payload = {
        "tool": "search",
        "provider": spec.name,
        "provider_type": got.ptype,
        "query": request.query,
        "results": results,
        "meta": meta,
        "warnings": warnings + list(call.warnings) + list(answer.get("warnings", [])),
    }
    if vertical != "web":
        payload["vertical"] = vertical
    for key in ("output", "raw"):
        if key in answer:
            payload[key] = answer[key]
    payload["text"] = textview.search_text(payload, max_chars=request.max_chars)
    return payload
