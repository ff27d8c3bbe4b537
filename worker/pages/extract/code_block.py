"""Code blocks: a <pre>'s lines as a browser lays them out, fenced for markdown.

Pure functions over lxml elements (render.py renders the rest of a page).
"""

from __future__ import annotations

import re

from .elements import BLOCK, MAX_DEPTH, SKIP
from .elements import tag as _tag
from .elements import text as _text

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from lxml.html import HtmlElement  # no stubs: Any to the checker


def _pre_text(el: HtmlElement) -> str:
    """The text of a preformatted block as a browser lays it out: a <br> breaks the
    line, and a block inside it (editors' highlighters put each line in a <div>) starts
    and ends a line; white space the markup writes between such blocks is layout, not
    blank lines. A <span class="line"> (Shiki and its kin) is a line too when the markup
    writes no line break before it (a stylesheet then shows it as a block)."""
    out: list[str] = []
    pending = False  # a block just ended: the next text starts a new line
    said = ""  # the last text put: whether the markup breaks its own lines

    def put(s: str) -> None:
        nonlocal pending, said
        if not s:
            return
        if pending:
            if not s.strip():
                return  # the markup's indentation between line blocks
            pending = False
            if not s.startswith("\n") and out and not out[-1].endswith("\n"):
                out.append("\n")
        out.append(s)
        said = s

    def walk(node: HtmlElement, depth: int) -> None:
        nonlocal pending
        tag = _tag(node)
        block = node is not el and tag in BLOCK
        if block:
            if out and not out[-1].endswith("\n"):
                out.append("\n")
            pending = False  # what the new block holds is its line, indentation included
        elif "line" in (node.get("class") or "").split() and out and "\n" not in said:
            if not out[-1].endswith("\n"):
                out.append("\n")
            if not _text(node):
                out.append("\n")  # an empty line, kept open by the stylesheet
        if tag == "br":
            put("\n")
        elif tag not in SKIP and depth < MAX_DEPTH:
            put(node.text or "")
            for child in node:
                if isinstance(child.tag, str):
                    walk(child, depth + 1)
                put(child.tail or "")
        if block:
            pending = True

    walk(el, 0)
    return "".join(out)


def _variants(el: HtmlElement) -> list[HtmlElement]:
    """The <code> children of a <pre> that holds several and nothing else to read: one
    example in two flavours (Node.js's ES module and CommonJS), of which a stylesheet shows
    one. Each is a block of its own: run together, the first's last line and the second's
    first would be one line of code that is neither."""
    if (el.text or "").strip():
        return []
    codes = []
    for child in el:
        t = _tag(child)
        if (child.tail or "").strip() or (t not in ("code", "input", "button") and t not in SKIP):
            return []
        if t == "code":
            codes.append(child)
    return codes if len(codes) > 1 else []


def pre(el: HtmlElement, markdown: bool) -> str:
    """A <pre> as a fenced block (markdown) or its lines (text): one block per flavour."""
    codes = _variants(el)
    if codes:
        return "\n\n".join(b for b in (_pre_block(c, markdown) for c in codes) if b)
    return _pre_block(el, markdown)


def _pre_block(el: HtmlElement, markdown: bool) -> str:
    lang = ""
    if markdown:
        for c in [el] + list(el.iterchildren()):
            cls = (c.get("class") or "") + " " + (c.get("data-lang") or "")
            m = re.search(r"(?:language|lang)-([A-Za-z0-9_+#.-]+)", cls)
            if m:
                lang = m.group(1)
                break
    return block(_pre_text(el), markdown, lang)


def block(code: str, markdown: bool, lang: str = "") -> str:
    """A code block's text, fenced in markdown (naming ``lang`` when given); "" when it holds
    nothing. Blank lines at either end are the markup's layout (indented tags), not code."""
    lines = code.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    code = "\n".join(lines[start:])
    if not code.strip():
        return ""
    return fence(code, lang) if markdown else code


def fence(code: str, lang: str | None = None) -> str:
    """code in a markdown fence longer than any run of backticks inside it, so the code
    cannot close it; lang, when given, names its language."""
    ticks = "```"
    while ticks in code:
        ticks += "`"
    return "%s%s\n%s\n%s" % (ticks, lang or "", code.rstrip("\n"), ticks)
