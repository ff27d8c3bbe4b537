"""The default fetch provider: the worker downloads and extracts pages itself, no key."""

from .. import fetch as fetch_mod
from .base import Provider


class LocalFetchProvider(Provider):
    tools = frozenset({"fetch"})

    def fetch(self, urls, args):
        spec = fetch_mod.Spec(
            fmt=getattr(args, "fetch_format", None) or "markdown",
            max_chars=getattr(args, "max_chars", None) or fetch_mod.DEFAULT_MAX_CHARS,
            start_index=getattr(args, "start_index", 0) or 0,
            allow_private=bool(getattr(args, "allow_private", False)),
            max_bytes=getattr(args, "max_bytes", None) or fetch_mod.client.DEFAULT_MAX_BYTES,
            sites=getattr(args, "sites", None), adapters=not getattr(args, "no_adapters", False),
            llms_txt=bool(getattr(args, "llms_txt", False)),
        )
        concurrency = getattr(args, "concurrency", None) or fetch_mod.DEFAULT_CONCURRENCY
        items = fetch_mod.fetch_all(urls, self.call, spec, concurrency)
        meta = {"format": spec.fmt, "max_chars": spec.max_chars, "start_index": spec.start_index,
                "concurrency": min(concurrency, len(urls)), "max_bytes": spec.max_bytes}
        return {"results": items, "meta": meta}
