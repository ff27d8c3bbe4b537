"""The checks a downloaded HTML page goes through around extraction.

``before``: a bot challenge is an error, whatever the status (worker.pages.checks.walls).
``after``: a page with almost no text is read from its page data, reported as
needing JavaScript, or marked ``script_built`` when it runs scripts (worker.pages.checks.shells); a login wall or paywall marks the item as
``blocked`` while keeping the public text (worker.pages.checks.walls).
"""

from __future__ import annotations

from ...errors import WorkerError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from ..net.client import Response


def before(resp: Response, html: str) -> None:
    from . import walls

    wall = walls.challenge(resp.status, resp.headers, html)
    if wall:
        raise walls.blocked_error(resp.final_url, wall, resp.status)


def after(
    resp: Response,
    html: str,
    fmt: str,
    text: str,
    extractor: str | None,
    meta: dict[str, Any],
    warnings: list[str],
) -> tuple[str, str | None]:
    """(text, extractor) after the shell and wall checks; may add ``meta["wall"]``."""
    from . import shells, walls

    if walls.words_upto(text, shells.SHELL_WORDS) < shells.SHELL_WORDS:
        try:
            got = shells.read(html, fmt)
        except (Exception, RecursionError) as exc:  # page data of any shape must not fail the page
            warnings.append(
                "reading the page's embedded data failed (%s); the HTML's text is kept" % type(exc).__name__
            )
            got = None
        if got is not None:
            text, source = got
            extractor = "page-data"
            meta["page_data"] = source
            warnings.append(
                "the page's HTML has almost no text (it is built by JavaScript); "
                "the content was read from its %s" % source
            )
        else:
            framework = shells.needs_javascript(html, text)
            if framework:
                raise WorkerError(
                    "needs_javascript",
                    "%s is a JavaScript application shell (%s): its HTML holds no text "
                    "and no page data to read it from" % (resp.final_url, framework),
                    hint="the text is built in a browser: fetch with --render auto (needs Chromium), or try "
                    "the site's API, feed or a markdown/plain version",
                )
            if shells.script_built(html):
                # --render auto renders such a page (worker.pages.render.decide)
                meta["script_built"] = True
    wall = walls.login_or_paywall(resp.url, resp.final_url, resp.status, html, text)
    if wall:
        meta["wall"] = walls.blocked_error(resp.final_url, wall, resp.status)
    return text, extractor
