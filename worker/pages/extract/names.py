"""What an element's tag, role, class names and id say it is: the page's chrome (its landmarks,
and names such as "site-footer" or "cookie-banner"), or content whatever its name.

Pure functions over lxml elements; no I/O.
"""

from __future__ import annotations

import functools
import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from lxml.html import HtmlElement  # no stubs: Any to the checker

_WORD = re.compile(r"\w+")
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")

LANDMARKS = ("nav", "header", "footer", "aside")
LANDMARK_ROLES = {
    "navigation",
    "banner",
    "contentinfo",
    "complementary",
    "search",
    "dialog",
    "alertdialog",
    "menu",
    "menubar",
    "toolbar",
}
# Class names and ids that name page chrome, when the word starts or ends the name
# ("site-footer", "cookie-banner", "share-buttons"): a word in the middle of a
# framework's long class name ("ast-default-menu-enable") says nothing.
CHROME_WORDS = frozenset(
    """
nav navbar navigation menu menubar breadcrumb breadcrumbs cookie cookies consent gdpr share sharing
social newsletter subscribe signup related recommended suggested similar popular trending pagination
pager skip
advert advertisement ads sponsored promo toolbar sidebar masthead footer topbar modal popup overlay
toc login search searchbox
""".split()
)
NEGATIONS = frozenset(("no", "not", "hide", "exclude", "without"))
_NAME_PARTS = re.compile(r"[-_]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def class_parts(name: str, camel: bool = False) -> list[str]:
    """The lower-case words of one class name or id, split at "-" and "_" and, with
    camel, at camelCase humps ("newsletterSignup" -> [newsletter, signup])."""
    if camel:
        name = _CAMEL.sub("-", name)
    return [p for p in _NAME_PARTS.split(name.lower()) if p]


def chrome_named(el: HtmlElement) -> bool:
    """Whether a class name or the id of el names page chrome (see CHROME_WORDS); not
    an id made from el's own heading (documentation tools name each section after its
    title: a section headed "Cookies" is no cookie banner)."""
    ident = el.get("id") or ""
    names = el.get("class") or ""
    if not (names or ident):
        return False  # most elements: nothing to read
    for name in (names + " " + ident).split():
        parts = chrome_parts(name)
        if parts is not None:
            if name == ident and _named_by_heading(el, parts):
                continue
            return True
    return False


@functools.lru_cache(maxsize=4096)  # pages repeat their class names thousands of times
def chrome_parts(name: str) -> list[str] | None:
    """The words of name (class_parts) when they name chrome, else None. The list is
    shared between calls: not to be changed."""
    parts = class_parts(name)
    if not parts or parts[0] in NEGATIONS:
        return None  # "hide-from-toc", "no-toc": kept out of the chrome, not chrome
    return parts if parts[0] in CHROME_WORDS or parts[-1] in CHROME_WORDS else None


def _named_by_heading(el: HtmlElement, parts: list[str]) -> bool:
    """Whether el's first heading child reads as parts, the words of its id."""
    for child in el.iterchildren(*HEADINGS):
        return _WORD.findall(child.text_content().lower()) == parts
    return False


# Chrome words that say an element holds links: one so named that holds prose is content.
# Other chrome words (sidebar, footer) name prose that is chrome.
LINK_CHROME_WORDS = frozenset(
    "nav navbar navigation menu menubar toolbar pagination pager breadcrumb breadcrumbs".split()
)


def named_for_links(el: HtmlElement) -> bool:
    """Whether every chrome word in el's class names and id (chrome_parts) says it holds links."""
    for name in ((el.get("class") or "") + " " + (el.get("id") or "")).split():
        parts = chrome_parts(name)
        if parts is not None and parts[0] not in LINK_CHROME_WORDS and parts[-1] not in LINK_CHROME_WORDS:
            return False
    return True


def sections_header(el: HtmlElement, role: str) -> bool:
    """A <header> inside an article or a section that holds a heading (h2-h6): an entry's title
    (a listicle's products), not the site's banner, and HTML gives it no landmark role. One
    with the page's h1 is its title block, bylines and all: that one stays chrome."""
    if el.tag != "header" or role or next(el.iterdescendants(*HEADINGS[1:]), None) is None:
        return False
    return any(anc.tag in ("article", "section") for anc in el.iterancestors())
