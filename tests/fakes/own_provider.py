"""A provider of the user's own ("type": "tests.fakes.own_provider:Echo"): no network, echoes the query."""

from worker.providers.base import Provider


class Echo(Provider):
    tools = frozenset({"search"})

    def search(self, args):
        return {
            "results": [{"title": "echo", "url": "https://echo.example/", "snippet": args.query}],
            "meta": {"flavour": self.spec.options.get("flavour")},
        }


class NotAProvider:
    pass
