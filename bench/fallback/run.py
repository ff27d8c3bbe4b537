#!/usr/bin/env python
"""Fallback benchmark: ten consecutive searches while the first provider is blocked,
with the circuit breaker and without it (the baseline, measured in the same run).

Usage (from the repo root, with the dev venv's python):

    python bench/fallback/run.py [--rounds 3] [--calls 10] [--block-delay 0.5]

Two scenarios, each a fresh ``python -I -m worker search --no-cache`` process per
call, as hosts run it; distinct queries, so nothing is answered from the cache:

- ddgs:     the builtin ddgs provider with its default engine order; DuckDuckGo
            answers every request with a block page (HTTP 202) after
            ``--block-delay`` seconds (a blocked engine still costs a round trip),
            Mojeek answers.  Engines run through a local TLS-intercepting proxy
            (tests/fakes/tls_proxy.py), so ddgs' real engine code runs.
- exa→brave: a config ``fallback`` of a fake Exa API answering 429 after
            ``--block-delay`` seconds, then a fake Brave API that answers.

Baseline: the config says ``"breaker": false`` (every call asks the blocked
provider first).  Breaker: the default settings (3 refusals in 60 s open the
circuit for 120 s).  Each round runs the baseline's ten calls, then the
breaker's ten, each with its own empty state directory; we report the median
total over rounds and the ratio breaker / baseline.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests"))
sys.path.insert(0, REPO)

from worker import protocol  # noqa: E402

PY = os.environ.get("BENCH_PYTHON", sys.executable)


def base_env(tmp):
    env = dict(os.environ)
    env["WEBSEARCH_WORKER_TMPDIR"] = os.path.join(tmp, "calltmp")
    env["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
    env["HOME"] = os.path.join(tmp, "home")
    for k in ("EXA_API_KEY", "BRAVE_API_KEY", "HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
        env.pop(k, None)
    return env


def run_calls(env, argv_for, n):
    """Total wall seconds of ``n`` consecutive calls, and who answered each."""
    answered = []
    started = time.monotonic()
    for i in range(n):
        proc = subprocess.run(
            [PY, "-I", "-m", "worker", "search", "--no-cache"] + argv_for(i),
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=120,
        )
        payload = protocol.parse(proc.stdout.decode("ascii"))
        if not payload.get("ok"):
            raise SystemExit("call %d failed: %s" % (i, payload))
        skipped = [s.get("engine") or s["provider"] for s in payload["meta"].get("skipped_providers", [])]
        answered.append("%s%s" % (payload["meta"].get("engine") or payload["provider"], "*" if skipped else ""))
    return time.monotonic() - started, answered


def scenario_ddgs(tmp, delay):
    from fakes.tls_proxy import TlsProxy

    proxy = TlsProxy(tmp)
    proxy.route(
        "html.duckduckgo.com",
        status=202,
        delay=delay,
        body="<html><body>anomaly detected: please complete the challenge</body></html>",
    )
    with open(os.path.join(REPO, "tests", "fixtures", "ddgs", "mojeek.html"), "rb") as fh:
        proxy.route("www.mojeek.com", body=fh.read())

    def setup(breaker_on):
        d = tempfile.mkdtemp(dir=tmp)
        env = dict(base_env(d), **proxy.env())
        cfg = os.path.join(d, "cfg.json")
        with open(cfg, "w") as fh:
            json.dump({} if breaker_on else {"breaker": False}, fh)
        env["WEBSEARCH_CONFIG"] = cfg
        return env, lambda i: ["rust async runtime %d" % i]

    return setup, proxy.close


def scenario_exa_brave(tmp, delay):
    from fakes import brave_server, exa_server

    exa = exa_server.start()
    # 429s without Retry-After: a short one is now waited out within the call (keyed.py), and this
    # measures the breaker's skipping of a provider that refuses, not that wait
    exa.retry_after = None
    brave = brave_server.FakeBrave().__enter__()

    def setup(breaker_on):
        d = tempfile.mkdtemp(dir=tmp)
        env = base_env(d)
        exa.script[:] = ["429"] * 100
        cfg = {
            "fallback": ["exa-main", "brave"],
            "providers": [exa.provider_entry("exa-main"), brave.provider_entry()],
        }
        if not breaker_on:
            cfg["breaker"] = False
        path = os.path.join(d, "cfg.json")
        with open(path, "w") as fh:
            json.dump(cfg, fh)
        os.chmod(path, 0o600)
        env["WEBSEARCH_CONFIG"] = path
        return env, lambda i: ["full query %d" % i]

    # The fake Exa answers at once; the delay stands for the round trip of a real refusal.
    original = exa_server.Handler.do_POST

    def slow_post(handler):
        time.sleep(delay)
        return original(handler)

    exa_server.Handler.do_POST = slow_post

    def close():
        exa_server.Handler.do_POST = original
        exa.shutdown()
        brave.__exit__(None, None, None)

    return setup, close


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--block-delay", type=float, default=0.5, help="seconds a blocked provider takes to refuse")
    ap.add_argument("--scenario", choices=("ddgs", "exa-brave", "both"), default="both")
    opts = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-fallback-")
    scenarios = {"ddgs": scenario_ddgs, "exa-brave": scenario_exa_brave}
    names = list(scenarios) if opts.scenario == "both" else [opts.scenario]
    print(
        "%d consecutive calls while the first provider is blocked (refusal after %.2f s), %d rounds, python %s"
        % (opts.calls, opts.block_delay, opts.rounds, PY)
    )
    try:
        for name in names:
            setup, close = scenarios[name](tmp, opts.block_delay)
            totals = {False: [], True: []}
            answered = {}
            try:
                for _ in range(opts.rounds):
                    for breaker_on in (False, True):
                        env, argv_for = setup(breaker_on)
                        took, who = run_calls(env, argv_for, opts.calls)
                        totals[breaker_on].append(took)
                        answered[breaker_on] = who
            finally:
                close()
            base, with_breaker = statistics.median(totals[False]), statistics.median(totals[True])
            print("\n%s" % name)
            print(
                "  without the breaker (baseline): %6.2f s total, %4.0f ms per call  [%s]"
                % (base, base * 1000 / opts.calls, " ".join("%.2f" % t for t in totals[False]))
            )
            print(
                "  with the breaker:               %6.2f s total, %4.0f ms per call  [%s]"
                % (with_breaker, with_breaker * 1000 / opts.calls, " ".join("%.2f" % t for t in totals[True]))
            )
            print("  ratio breaker / baseline:       %.2fx" % (with_breaker / base))
            print("  answered by (last round, * = something skipped): %s" % " ".join(answered[True]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
