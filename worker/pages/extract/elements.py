"""What each HTML element is to a reader, for the renderers: a block, a heading, or not shown.

Pure; no imports at run time (lxml elements are passed in).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from lxml.html import HtmlElement  # no stubs: Any to the checker


BLOCK = {
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "caption",
    "center",
    "dd",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "html",
    "legend",
    "li",
    "listing",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "plaintext",
    "pre",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "ul",
    "xmp",
}
SKIP = {
    "script",
    "style",
    "noscript",
    "template",
    "head",
    "title",
    "meta",
    "link",
    "svg",
    "iframe",
    "object",
    "embed",
    "canvas",
    "button",
    "select",
    "option",
    "textarea",
    "input",
}
HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
MAX_DEPTH = 400


def tag(el: HtmlElement) -> str | None:
    t = el.tag
    if not isinstance(t, str):
        return None  # comment, processing instruction, entity
    if "}" in t:
        t = t.rsplit("}", 1)[1]
    return t.lower()


def text(el: HtmlElement) -> str:
    """All text below el (lxml.html's text_content, for any lxml element)."""
    return "".join(t for t in el.itertext() if isinstance(t, str))
