"""Render an lxml HTML element as plain text or markdown.

Pure functions over lxml elements; used for the readability branch and the
fallback of worker.pages.extract.core (the trafilatura branch renders with trafilatura's
own converters), and by the site adapters for the HTML an API sends (render_fragment)
and their code blocks (fence). Iterative where depth could be hostile: deeply nested
pages must not blow the recursion limit.
"""

from __future__ import annotations

import re

from .code_block import pre
from .elements import BLOCK, HEADINGS, MAX_DEPTH, SKIP
from .elements import tag as _tag
from .elements import text as _text
from .escape import escape_line_start, md_escape, md_url
from .links import untracked

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from lxml.html import HtmlElement  # no stubs: Any to the checker


# Not U+200B: a browser shows a zero-width space as nothing, so it joins what it sits
# between ("ig\u200bnore" is "ignore"); worker.pages.extract.hidden removes it from the output.
_WS = re.compile(r"[ \t\r\n\f\v\u00a0]+")
# The runs _WS.sub(" ", s) changes: all but a lone " ", which it gives back as it is. The
# same string, with a match (and a piece of the new string) only where one differs: text
# is mostly words apart by single spaces (a third less time on a page's text).
_WS_CHANGED = re.compile(r"[\t\r\n\f\v\u00a0][ \t\r\n\f\v\u00a0]*| [ \t\r\n\f\v\u00a0]+")
# What _walk_inline writes for a <br>: a character no text node can hold (lxml refuses NUL)
_BR = "\x00"
# Emphasis marks as a stripping reader sees them: doubled, or at a word's edge
_MARKS_IN_CODE = re.compile(r"\*\*|__|(?<!\w)[*_]|[*_](?!\w)|<[A-Za-z/]")
# A link whose text holds brackets ("[1]", a footnote's number) is written as its text: the
# brackets would read as a link inside the link
_BRACKETED = re.compile(r"[\[\]]")
# A "*" with space on both sides: literal to CommonMark, emphasis to a reader that strips marks
_LONE_STAR = re.compile(r"(?:(?<=\s)|^)\*(?=\s|$)")


def _squash(s: str) -> str:
    return _WS_CHANGED.sub(" ", s)  # _WS.sub(" ", s)


class _Out:
    """Collects inline text into blocks separated by blank lines."""

    def __init__(self, markdown: bool = False):
        self.blocks: list[str] = []
        self.cur: list[str] = []
        self.markdown = markdown

    def text(self, s: str) -> None:
        if s:
            self.cur.append(s)

    def flush(self, prefix: str = "") -> None:
        line = _squash("".join(self.cur)).strip()
        self.cur = []
        if line and self.markdown:
            line = escape_line_start(line)
        if line:
            self.blocks.append(prefix + line)

    def block(self, s: str) -> None:
        self.flush()
        if s:
            self.blocks.append(s)

    def result(self, sep: str) -> str:
        self.flush()
        return sep.join(self.blocks)


_md_escape = md_escape


def _walk_inline(
    el: HtmlElement,
    markdown: bool,
    out: list[str],
    depth: int,
    authored: bool = False,
    cell: bool = False,
    linked: set[str] | None = None,
) -> None:
    """Inline rendering of el's content (not el's own tail), into out."""
    # explicit stack of (kind, payload): "node" elements to open, "str" literal strings
    stack = [("children", el, depth)]
    while stack:
        kind, payload, d = stack.pop()
        if kind == "str":
            out.append(payload)
            continue
        if kind == "close":
            # emphasis closes here: CommonMark reads "*class *" as text, so the space at the
            # emphasis' edges goes outside its marks ("*class* ")
            start, mark = payload
            inner = "".join(out[start:])
            del out[start:]
            core = inner.strip()
            lead = inner[: len(inner) - len(inner.lstrip())]
            trail = inner[len(inner.rstrip()) :]
            out.append("%s%s%s%s%s" % (lead, mark, core, mark, trail) if core else inner)
            continue
        if kind == "children":
            n = payload
            items = []
            if n.text:
                items.append(("str", _md_escape(n.text) if markdown else n.text, d))
            for child in n:
                items.append(("node", child, d + 1))
                if child.tail:
                    items.append(("str", _md_escape(child.tail) if markdown else child.tail, d))
            stack.extend(reversed(items))
            continue
        n = payload
        t = _tag(n)
        if t is None or t in SKIP or d > MAX_DEPTH:
            continue
        if t == "br":
            out.append(_BR)
            continue
        if t == "img":
            if authored:
                out.append(_image(n, markdown))
            continue
        if markdown:
            href = untracked(n.get("href") or "") if t == "a" else None
            if href and not href.startswith(("javascript:", "#")) and _links_anew(n, href, authored, linked):
                out.append("[")
                stack.append(("str", "](%s)" % md_url(href), d))
                stack.append(("children", n, d))
                continue
            if t in ("strong", "b"):
                txt = _squash(_text(n)).strip()
                if txt:
                    stack.append(("close", (len(out), "**"), d))
                    stack.append(("children", n, d))
                elif _text(n):
                    out.append(" ")  # an empty emphasis still spaces the words around it
                continue
            if t in ("em", "i"):
                txt = _squash(_text(n)).strip()
                if txt:
                    stack.append(("close", (len(out), "*"), d))
                    stack.append(("children", n, d))
                elif _text(n):
                    out.append(" ")  # an empty emphasis still spaces the words around it
                continue
            if t == "code":
                code = _squash(_text(n))
                if cell and _MARKS_IN_CODE.search(code):
                    # a table cell or a list item: its line is read by tools that strip the
                    # marks without parsing (a search, a diff, a scorer), and they would take
                    # "__init__" or "*args" inside a code span for emphasis; escaped text
                    # reads the same in any markdown reader
                    out.append(md_escape(code))
                    continue
                if code.strip():
                    tick = "``" if "`" in code else "`"
                    # space at the code's edges still separates it from the words around it
                    out.append(
                        "%s%s%s%s%s"
                        % (
                            " " if code[:1].isspace() else "",
                            tick,
                            code.strip(),
                            tick,
                            " " if code[-1:].isspace() else "",
                        )
                    )
                continue
        if t in BLOCK:
            out.append(" ")
            stack.append(("str", " ", d))
        stack.append(("children", n, d))


def _links_anew(a: HtmlElement, href: str, authored: bool, linked: set[str] | None) -> bool:
    """Whether a link is written as a markdown link, not as its text alone. Not when its text
    holds brackets ("[1]", a footnote's number: they would read as a link inside the link),
    nor when it shows nothing (an icon's link beside the entry's title, which links too), nor
    when its address was written before in the same text: a docs page links a function at
    every mention, and each copy of the address costs the reader a dozen tokens and tells it
    nothing new."""
    text = _text(a)
    if _BRACKETED.search(text) or not (text.strip() or (authored and a.find(".//img") is not None)):
        return False
    if linked is not None:
        if href in linked:
            return False
        linked.add(href)
    return True


def _image(el: HtmlElement, markdown: bool) -> str:
    """An <img> as markdown's image (its alt text and address), or its alt text in brackets."""
    alt = _squash(el.get("alt") or "").strip() or "image"
    if not markdown:
        return "[%s]" % alt
    # only brackets and backslashes can end or break an image's description
    alt = alt.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    return "![%s](%s)" % (alt, md_url(el.get("src")))


def _inline(
    el: HtmlElement, markdown: bool, authored: bool = False, cell: bool = False, linked: set[str] | None = None
) -> str:
    out: list[str] = []
    _walk_inline(el, markdown, out, 0, authored, cell, linked)
    s = "".join(out)
    if cell and markdown and "*" in s:
        s = _LONE_STAR.sub(r"\\*", s)  # a cell's or an item's line is read by stripping tools too
    # Only a <br> breaks the line: a line break in the markup's text is white space, as a
    # browser shows it (wrapped source lines are not the author's lines)
    if markdown:
        return "  \n".join(_squash(part).strip() for part in s.split(_BR) if part.strip())
    return ("\n" if authored else " ").join(_squash(part).strip() for part in s.split(_BR) if part.strip())


def _has_block_child(el: HtmlElement) -> bool:
    for d in el.iterdescendants():
        if _tag(d) in BLOCK:
            return True
    return False


def _indented(el: HtmlElement, authored: bool) -> bool:
    """Whether a blockquote is indentation, not a quotation: the wrapper docutils writes for
    indented text (blockquote > div, no text of its own) around a list, code, a table or a
    definition list (a section's body), or nothing but code blocks (an example set in). An
    author's quote has no div between, and a quote of prose stays a quote; in what a person
    wrote (``authored``: an answer quoting another's code) a quoted code block stays quoted."""
    kids = [c for c in el if type(c.tag) is str]
    if not kids or (el.text or "").strip() or any((c.tail or "").strip() for c in kids):
        return False
    if not authored and all(c.tag == "pre" for c in kids):
        return True  # an example set in (nginx's blockquote.example, SQLite's): code, not a quote
    if len(kids) != 1 or kids[0].tag != "div":
        return False
    return next(kids[0].iter("ul", "ol", "pre", "table", "dl"), None) is not None


_CELL_BREAK = re.compile(r" *\\?\n *")


def _lays_out(table: HtmlElement) -> bool:
    """Whether a table's cells hold code of several lines, which no markdown table cell can
    hold: DocBook's questions and answers, two programs side by side; or the table is one
    row of cells holding lists, which is columns, not data (Sphinx's index: two cells of
    280 entries each, which as a table would be one row of two very long cells). (A heading
    in a cell is not a sign: shops and recipes style a data table's cells as headings.)
    libxml2 looks."""
    return bool(
        table.xpath("boolean(.//pre[contains(., $nl)])", nl="\n")
        or table.xpath("count(.//tr) = 1 and boolean(.//td//li)")
    )


def _table(el: HtmlElement, markdown: bool, authored: bool = False, linked: set[str] | None = None) -> str:
    rows = []
    for tr in el.iter("tr"):
        cells = [c for c in tr if _tag(c) in ("td", "th")]
        if not cells:
            continue
        row = []
        for c in cells:
            # a cell is one line: a line break in it (a hard break's "  \n") is one space
            txt = _CELL_BREAK.sub(" ", _inline(c, markdown, authored, True, linked))
            row.append(txt.replace("|", "\\|") if markdown else txt)
        rows.append(row)
    if not rows:
        return ""
    if not markdown:
        return "\n".join(" | ".join(r) if len(r) > 1 else r[0] for r in rows if any(r))
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(lines)


def _list(el: HtmlElement, markdown: bool, depth: int, authored: bool = False, linked: set[str] | None = None) -> str:
    ordered = _tag(el) == "ol"
    lines: list[str] = []
    n = 0
    for li in el:
        if _tag(li) != "li":
            # a paragraph or a block put straight in the list (no <li>): a browser shows it
            # as a block among the items, without a marker; a list put straight in the list
            # (Squarespace's ul > ul) is indented as the previous item's
            if _tag(li) in ("ul", "ol"):
                sub = _list(li, markdown, depth + (1 if n else 0), authored, linked)
                if sub:
                    lines.append(sub)
            elif _tag(li) is not None and _tag(li) not in SKIP:
                block = render(li, markdown, authored=authored, linked=linked)
                if block:
                    if lines and lines[-1]:
                        lines.append("")
                    lines += [block, ""]
            continue
        n += 1
        marker = ("%d. " % n if ordered else "- ") if markdown or authored else ""
        # nested lists inside the item render below it, indented; taken out of the item
        # while it renders and put back after (the tree may be rendered again: a region's
        # text, then its markdown)
        nested = [c for c in li if _tag(c) in ("ul", "ol")]
        moved = [(li.index(c), c, c.tail) for c in nested]
        added = []
        for c in nested:
            tail = c.tail
            c.tail = None
            li.remove(c)
            if tail:
                added.append(_txt_el(li, tail))
                li.append(added[-1])
        if _has_block_child(li):
            # an item of paragraphs, code blocks or tables: its blocks as blocks, the lines
            # after the first indented under the marker, as CommonMark reads an item's content
            inner = render_children(li, markdown, authored, linked)
            if inner and markdown and inner.startswith("#"):
                # an item that opens with a heading is a card (a feature, a course, a
                # step): read as the section it shows, its heading a heading
                if lines and lines[-1]:
                    lines.append("")
                lines += [inner, ""]
            elif inner:
                pad = " " * (2 * depth + len(marker))
                first, *rest = inner.split("\n")
                lines.append("  " * depth + marker + first)
                lines.extend(pad + line if line.strip() else "" for line in rest)
        else:
            text = _inline(li, markdown, authored, True, linked)
            if text:
                text = text.replace("  \n", " ").replace("\n", " ")
                lines.append("  " * depth + marker + (escape_line_start(text) if markdown else text))
        for c in nested:
            sub = _list(c, markdown, depth + 1, authored, linked)
            if sub:
                lines.append(sub)
        for span in added:
            li.remove(span)
        for at, c, tail in moved:
            li.insert(at, c)
            c.tail = tail
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def _txt_el(parent: HtmlElement, text: str) -> HtmlElement:
    from lxml.html import Element

    span = Element("span")
    span.text = text
    return span


def render(root: HtmlElement, markdown: bool = True, *, authored: bool = False, linked: set[str] | None = None) -> str:
    """Render an lxml element tree as markdown (or plain text when markdown=False).

    On a page, images and the <br>s inside paragraphs are mostly layout, and text is
    text alone: an <img> is left out, and in text a <br> is a space and lists and quotes
    lose their markers. In what a person wrote (``authored``: an API's post body) they
    are the author's: an <img> is its markdown image (or "[alt]" in text), and text
    keeps the lines of <br>s and the "- ", "1. " and "> " of lists and quotes.

    In markdown an address is written once: a later link to it is its text (linked holds the
    addresses written so far, shared by the parts of one rendering).
    """
    out = _Out(markdown)
    if linked is None:
        linked = set()
    # iterative walk: ("open", el, depth) and ("tail", text)
    stack = [("open", root, 0)]
    while stack:
        kind, payload, depth = stack.pop()
        if kind == "tail":
            out.text(_md_escape(payload) if markdown else payload)
            continue
        if kind == "end":
            out.flush()
            continue
        el = payload
        t = _tag(el)
        if t is None or t in SKIP:
            continue
        if depth > MAX_DEPTH:
            out.text(" " + _squash(_text(el)) + " ")
            continue
        if t in HEADINGS:
            out.flush()
            # a permalink's mark left by an extractor that drops links but keeps their text
            # (Docusaurus's is a zero-width space, which str.strip keeps)
            txt = _squash(_text(el)).strip().rstrip("¶§🔗⚓\u200b\u200c\u200d\u2060\ufeff").rstrip()
            if txt:
                out.block(("#" * HEADINGS[t] + " " + md_escape(txt)) if markdown else txt)
            continue
        if t in ("pre", "listing", "xmp", "plaintext"):
            out.block(pre(el, markdown))
            continue
        if t == "table" and el.find(".//table") is None and not _lays_out(el):
            out.block(_table(el, markdown, authored, linked))
            continue
        # a table holding tables or blocks of code is a page's layout, not data: its cells
        # read as blocks (as a data table, each outer cell would repeat the inner tables'
        # text, and a block of code would be one cell's run of words)
        if t in ("ul", "ol"):
            out.block(_list(el, markdown, 0, authored, linked))
            continue
        if t == "hr":
            out.block("---" if markdown else "")
            continue
        if t == "blockquote" and (markdown or authored):
            inner = render_children(el, markdown, authored, linked)
            if inner and (el.find(".//table") is not None or _indented(el, authored)):
                # docs generators (Sphinx, docutils) indent a table, a list or a section's
                # body with a blockquote: it is the text as it stands, and a table or a list
                # inside a quote is no table or list to most readers
                out.block(inner)
            elif inner:
                out.block("\n".join("> " + line if line else ">" for line in inner.split("\n")))
            continue
        if t in BLOCK and not _has_block_child(el):
            out.flush()
            txt = _inline(el, markdown, authored, linked=linked)
            if txt:
                out.block("  \n".join(escape_line_start(x) for x in txt.split("  \n")) if markdown else txt)
            continue
        if t in BLOCK:
            out.flush()
            stack.append(("end", None, depth))
        else:
            # inline element containing blocks (e.g. <a><div>..</div></a>): treat as container
            pass
        if t == "br":
            out.flush()
            continue
        if t == "img":
            if authored:
                out.text(_image(el, markdown))
            continue
        items = []
        if el.text:
            items.append(("tail", el.text, depth))
        for child in el:
            items.append(("open", child, depth + 1))
            if child.tail:
                items.append(("tail", child.tail, depth))
        stack.extend(reversed(items))
    return out.result("\n\n").strip()


def render_children(el: HtmlElement, markdown: bool, authored: bool = False, linked: set[str] | None = None) -> str:
    from lxml.html import Element

    wrapper = Element("div")
    wrapper.text = el.text
    for c in list(el):
        wrapper.append(_copy(c))
    return render(wrapper, markdown, authored=authored, linked=linked)


def _copy(el: HtmlElement) -> HtmlElement:
    import copy

    return copy.deepcopy(el)


# Characters lxml refuses to set as an element's text (XML's: C0 controls but tab and
# line breaks, lone surrogates, which JSON can spell, U+FFFE and U+FFFF). Its parser
# takes them, raw or as character references, but moving such text raises.
_UNHELD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _held(s: str) -> str:
    return _UNHELD.sub(lambda m: " " if m.group(0) == "\x0c" else "", s)  # a form feed is white space


def render_fragment(html: str, markdown: bool = True, *, authored: bool = False) -> str:
    """Render a fragment of HTML (elements and text with no page around them, as an API
    sends a post's body) as render renders an element."""
    html = _held(html)
    if not html.strip():
        return ""
    root = _fragment(html)
    _wrap_loose_text(root)
    return render(root, markdown, authored=authored)


def _fragment(html: str) -> HtmlElement:
    """A <div> holding what html parses to as a page's body.

    lxml.html.fragment_fromstring, but whatever the fragment holds: that one asserts a
    single <body>, and "</body><body>" in the fragment makes two."""
    from lxml.html import Element, document_fromstring

    doc = document_fromstring("<html><body>%s</body></html>" % html)
    for node in doc.iter():
        if node.text and _UNHELD.search(node.text):
            node.text = _held(node.text)
        if node.tail and _UNHELD.search(node.tail):
            node.tail = _held(node.tail)
    root = Element("div")
    for body in doc.findall("body"):
        if body.text:  # text between two bodies follows what came before it
            if len(root):
                root[-1].tail = (root[-1].tail or "") + body.text
            else:
                root.text = (root.text or "") + body.text
        root.extend(list(body))
    return root


def _wrap_loose_text(root: HtmlElement) -> None:
    """Put each run of text and inline elements between root's blocks in a <p> of its own,
    in place, as a browser boxes it: render keeps links, emphasis and code only inside a
    block, and a fragment's top level may hold them loose beside its paragraphs."""
    from lxml.html import Element

    if not any(_tag(c) in BLOCK for c in root):
        return  # one run: root itself is the block
    kept: list[HtmlElement] = []
    run: HtmlElement | None = None
    if root.text and root.text.strip():
        run = Element("p")
        run.text = root.text
    root.text = None
    for child in list(root):
        tail, child.tail = child.tail, None
        if _tag(child) in BLOCK:
            if run is not None:
                kept.append(run)
                run = None
            kept.append(child)
        else:
            if run is None:
                run = Element("p")
            run.append(child)
        if tail and (tail.strip() or run is not None):
            if run is None:
                run = Element("p")
            if len(run):
                run[-1].tail = (run[-1].tail or "") + tail
            else:
                run.text = (run.text or "") + tail
    if run is not None:
        kept.append(run)
    root[:] = kept
