"""What one downloaded page tells the map: its title, links, headings, ids and word counts.

A pure function of the response (worker.site.mapper reads it in its own process, or in a
second process on a machine with more than one core: worker.site.readers), so its answer and
its refusals are the same wherever it runs. Regular expressions only (worker.site.links): no
parser, every list capped, so a page costs time in proportion to its bytes.
"""

from __future__ import annotations

from ..errors import WorkerError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from ..pages.net.client import Response

BAG_MAX = 4000  # distinct words counted for one page


class Unread(Exception):
    """A page the map cannot read: what to tell (``problem``, grouped with the pages it happened to)
    and the page's error."""

    def __init__(self, problem: str, error: WorkerError) -> None:
        super().__init__(problem)
        self.problem, self.error = problem, error


def prepare() -> None:
    """Import what record_of needs (a map's reader does it while the first pages download)."""
    from ..pages.answer import focus  # noqa: F401
    from ..pages.checks import walls  # noqa: F401
    from ..pages.read import content  # noqa: F401
    from . import links  # noqa: F401


def record_of(resp: Response) -> dict[str, Any]:
    """The page's record (links.summary, ``final_url``, ``bag``, ``words``); Unread when it is no page
    (an image, a PDF) or a bot wall's."""
    from ..pages.checks import walls
    from ..pages.read import content
    from . import links

    kind = content.kind_of(resp.content_type) or content.kind_of(content.sniff(resp.body))
    if kind not in ("html", "text"):
        what = content.media_type(resp.content_type) or "unknown type"
        raise Unread(
            "not a page (%s)" % what,
            WorkerError("unsupported_content", "%s is not a page (%s)" % (resp.final_url, what)),
        )
    html, _, _ = content.decode(resp.body, resp.content_type, kind)
    if kind == "html":
        wall = walls.challenge(resp.status, resp.headers, html)
        if wall is not None:
            raise Unread(
                "a bot wall (%s)" % (wall.get("vendor") or wall["reason"]),
                walls.blocked_error(resp.final_url, wall, resp.status),
            )
        record = links.summary(links.read(html))
        text = links.plain_text(html)
    else:  # markdown or text: its links are markdown links
        from .sitemaps import llms_links

        record = {"title": None, "links": llms_links(html)[: links.MAX_LINKS], "headings": [], "ids": []}
        text = html
    record["final_url"] = resp.final_url
    record["bag"], record["words"] = bag(text)
    return record


def bag(text: str) -> tuple[dict[str, int], int]:
    """({term: count}, number of terms) of a page's text, the BAG_MAX most frequent terms
    (worker.pages.answer.focus.words: the terms a question is matched by)."""
    from ..pages.answer.focus import counted

    counts = counted(text)
    total = sum(counts.values())
    if len(counts) > BAG_MAX:
        counts = dict(sorted(counts.items(), key=lambda kv: -kv[1])[:BAG_MAX])
    return counts, total
