"""The default fetch provider: the worker downloads and extracts pages itself, no key."""

from ..pages import download
from ..pages.net import DEFAULT_MAX_BYTES
from .base import Provider


class LocalFetchProvider(Provider):
    tools = frozenset({"fetch"})

    def fetch(self, urls, args):
        spec = download.Spec(
            fmt=getattr(args, "fetch_format", None) or "markdown",
            max_chars=getattr(args, "max_chars", None) or download.DEFAULT_MAX_CHARS,
            start_index=getattr(args, "start_index", 0) or 0,
            allow_private=bool(getattr(args, "allow_private", False)),
            max_bytes=getattr(args, "max_bytes", None) or DEFAULT_MAX_BYTES,
            sites=getattr(args, "sites", None), adapters=not getattr(args, "no_adapters", False),
            llms_txt=bool(getattr(args, "llms_txt", False)),
        )
        concurrency = getattr(args, "concurrency", None) or download.DEFAULT_CONCURRENCY
        items = download.fetch_all(urls, self.call, spec, concurrency)
        meta = {"format": spec.fmt, "max_chars": spec.max_chars, "start_index": spec.start_index,
                "concurrency": min(concurrency, len(urls)), "max_bytes": spec.max_bytes}
        return {"results": items, "meta": meta}
