"""The provider interface.

A provider is constructed from its config entry and answers ``search`` and/or
``fetch``.  It returns plain dicts (the protocol's result shapes) and raises
WorkerError with a stable code for anything that goes wrong; it never prints.
"""

from __future__ import annotations

from ..errors import WorkerError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Iterable
    from typing import Any

    from ..request import FetchRequest, SearchRequest
    from ..runtime import Call


def site_operators(query: str, include: Iterable[str], exclude: Iterable[str]) -> str:
    """Domain filters as ``site:`` / ``-site:`` query operators (ddgs engines, Brave)."""
    parts = [query]
    if include:
        sites = ["site:%s" % d for d in include]
        parts.append(sites[0] if len(sites) == 1 else "(%s)" % " OR ".join(sites))
    parts.extend("-site:%s" % d for d in exclude)
    return " ".join(parts)


class ProviderSpec:
    """One configured provider: what the config file (or the environment) says."""

    def __init__(
        self,
        name: str,
        type: str,
        api_key: str | None = None,
        key_source: str | None = None,
        base_url: str | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.type = type
        self.api_key = api_key
        self.key_source = key_source  # "config" | "env:NAME" | None; reported, the key never is
        self.base_url = base_url
        self.options = dict(options or {})

    def __repr__(self):  # never show the key
        return "ProviderSpec(name=%r, type=%r, key=%s)" % (self.name, self.type, "set" if self.api_key else "none")


class Provider:
    #: tools this provider answers: {"search"}, {"fetch"} or both
    tools: frozenset[str] = frozenset()
    #: does it need an API key?
    needs_key = False
    #: search verticals it answers ("web", "news"); request.vertical says which one a call asks for (None: web)
    verticals: frozenset[str] = frozenset({"web"})

    def __init__(self, spec: ProviderSpec, call: Call | None) -> None:
        self.spec = spec
        self.call = call

    @property
    def name(self) -> str:
        return self.spec.name

    def search(self, request: SearchRequest) -> dict[str, Any]:
        """Return {"results": [...], "meta": {...}} for ``request.query`` (a worker.request.SearchRequest)."""
        raise WorkerError("invalid_argument", "provider %r cannot search" % self.name)

    def fetch(self, urls: list[str], request: FetchRequest) -> dict[str, Any]:
        """Return {"results": [item per URL, in order], "meta": {...}} (``request``: a worker.request.FetchRequest)."""
        raise WorkerError("invalid_argument", "provider %r cannot fetch" % self.name)
