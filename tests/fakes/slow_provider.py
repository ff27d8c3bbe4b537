"""A search provider of our own ("type": "tests.fakes.slow_provider:SlowProvider").

It asks the local count server (options.url) over real HTTP, so the server sees
exactly the requests the worker's cross-process limits let through.  Options:
``url`` (required), ``delay`` (seconds the server waits before answering),
``concurrency`` (the worker's per-provider slot limit).
"""

from worker.errors import WorkerError
from worker.providers.base import Provider


class SlowProvider(Provider):
    tools = frozenset({"search"})

    def search(self, args):
        import json
        import urllib.parse
        import urllib.request

        opts = self.spec.options
        url = "%s/search?%s" % (opts["url"], urllib.parse.urlencode({"q": args.query, "delay": opts.get("delay", 0)}))
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            # wait as long as the server is told to hold the answer (a slot-holding call
            # holds it for the whole of a long test), within the call's own --timeout
            wait = max(30, float(opts.get("delay", 0)) + 5)
            with opener.open(url, timeout=self.call.bounded(wait)) as resp:
                body = json.loads(resp.read())
        except OSError as exc:
            raise WorkerError("network", "fake search server: %s" % exc) from None
        limit = args.limit or 5
        return {"results": body["results"][:limit], "meta": {"serial": body["serial"]}}


class OtherSlowProvider(SlowProvider):
    """The same provider under another type: its own rate-limit slots (keyed by type)."""
