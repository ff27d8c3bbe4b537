"""What to do with each URL of a fetch (everything but the URL): the fetch tool's options
as the pages layer reads them.

Its own module because every stage of a fetch reads one (the download, the site
adapters, the reading child's frames, rendering) and none of them should have to
import the others to name it.
"""

from __future__ import annotations

from .net import DEFAULT_MAX_BYTES

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any, Protocol

    from .net.client import Options, Response

    class RobotsCheck(Protocol):  # worker.pages.fetch.robots.RobotsCheck, named here so spec imports no stage
        fetched: int

        def check(self, url: str, opts: Options) -> None: ...


DEFAULT_MAX_CHARS = 20000  # characters of text per URL unless --max-chars says


class Spec:
    """What to do with each URL (everything but the URL)."""

    def __init__(
        self,
        fmt: str = "markdown",
        max_chars: int = DEFAULT_MAX_CHARS,
        start_index: int = 0,
        per_url_timeout: float | None = None,
        allow_private: bool = False,
        max_bytes: int = DEFAULT_MAX_BYTES,
        sites: dict[str, Any] | None = None,
        adapters: bool = False,
        llms_txt: bool = False,
        revalidate: dict[str, dict[str, Any]] | None = None,
        robots: RobotsCheck | None = None,
        user_agent: str | None = None,
        prefetched: dict[str, Response] | None = None,
    ) -> None:
        self.llms_txt = llms_txt
        self.fmt = fmt
        self.max_chars = max_chars
        self.start_index = start_index
        self.per_url_timeout = per_url_timeout
        self.allow_private = allow_private
        self.max_bytes = max_bytes
        self.sites = sites  # the config's "sites" settings
        self.adapters = adapters  # read GitHub, Stack Exchange... through their APIs (worker.pages.sites)
        # The fetch cache's stored validators by URL (worker.tools.fetch_cache): those URLs are asked
        # conditionally, and every item keeps what its response said of reuse ("_http").  None: neither.
        self.revalidate = revalidate
        self.robots = robots  # worker.pages.fetch.robots.RobotsCheck when robots.txt is respected
        self.user_agent = user_agent
        # Pages this call already downloaded, by URL (a crawl's map: worker.site.mapper.keep_body),
        # read as they are instead of asked again (worker.pages.fetch.get)
        self.prefetched = prefetched
