"""A site adapter's answer (worker.pages.sites), shaped like a download so the item
builder takes it as it takes a page.

Here, not in sites/, because reading builds items of it and the adapters read pages
(sites/arxiv.py): the adapters depend on reading, never the other way.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any, Callable

    # (text or None to keep the Doc's, format, metadata, extractor, warnings)
    Rendered = tuple[str | None, str, dict[str, Any], str | None, list[str]]


class Doc:
    """An adapter's answer, shaped like a download so the item builder (item.py) can take it."""

    def __init__(
        self,
        url: str,
        text: str,
        fmt: str = "markdown",
        meta: dict[str, Any] | None = None,
        title: str | None = None,
        extractor: str | None = None,
        status: int = 200,
        content_type: str = "application/json",
        nbytes: int = 0,
        final_url: str | None = None,
        warnings: list[str] | None = None,
        render: Callable[[str], Rendered] | None = None,
        **fields: Any,
    ):
        self.url = url
        self.final_url = final_url or url
        self.status = status
        self.content_type = content_type
        self.body = b"\0" * 0
        self.nbytes = nbytes
        self.truncated = False
        self.redirects: list[str] = []
        self.text = text
        self.fmt = fmt
        self.title = title
        self.meta = dict(meta or {})
        self.fields = fields  # author, published, description...
        self.extractor = extractor
        self.warnings = list(warnings or [])
        # render() -> (text, fmt, meta, extractor, warnings): work that must run on the
        # calling thread (HTML extraction), done there by the item builder.
        self.render = render

    def document(self, fmt: str) -> tuple[str, str, dict[str, Any], str | None, list[str]]:
        if self.render is not None:
            text, fmt, meta, extractor, warnings = self.render(fmt)
            self.warnings.extend(warnings)
            if text is not None:
                self.text = text
                self.fmt = fmt
        meta = {"title": self.title}
        meta.update(self.fields)
        return self.text, self.fmt, meta, self.extractor, self.warnings
