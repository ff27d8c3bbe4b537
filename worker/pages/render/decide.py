"""Which fetched items go to the browser (``--render auto|never|always``): pure functions over items."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

HTML_TYPES = ("text/html", "application/xhtml+xml")


def wants_render(item: dict[str, Any], mode: str) -> bool:
    """Does ``item`` (a fetch item) go to the browser under ``mode``?

    ``auto``: only a page the static read could not read, a JavaScript shell
    (``needs_javascript``) or a near-empty page that loads scripts
    (``script_built``).  ``always``: every HTML page and every shell.  A site
    adapter's answer (an API's, not a page) never goes.
    """
    if mode == "never":
        return False
    error = item.get("error") or {}
    if not item.get("ok"):
        return error.get("code") == "needs_javascript"
    if item.get("meta") is not None:  # a site adapter's answer
        return False
    if mode == "auto":
        return bool(item.get("script_built"))
    return (item.get("content_type") or "").split(";", 1)[0].strip().lower() in HTML_TYPES


def unrendered_hint(mode: str, browser_found: bool) -> str:
    """The hint a shell that was not rendered carries: how to get its text."""
    if mode == "never":
        return "fetch it again with --render auto (the text is built by the page's scripts)"
    if not browser_found:
        from .browser import INSTALL_HINT

        return INSTALL_HINT + "; then --render auto reads the page in it"
    return "the text is built in a browser; try the site's API, feed or a markdown/plain version"
