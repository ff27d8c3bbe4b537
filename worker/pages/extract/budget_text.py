"""The text of a page over the work budget, at C speed, with its shape: headings, code
blocks, list items and data tables kept, the rest in paragraphs.

A page past the budget (parse.over_budget) is most often a whole manual on one page: Node's
``all.html``, a Sphinx ``singlehtml``, an mdBook ``print.html``. The pipeline's Python walk
of the tree is what the budget bounds, so lxml serialises the text here. What makes the
text a document and not a wall of paragraphs (the headings a reader and ``--focus`` find
sections by, code with its line breaks, items one per line) is marked in the tree first,
with characters no page writes (Unicode noncharacters, kept for a program's own use), and
written out after. Memory: the text once, plus the code blocks' and tables' own text.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from lxml.html import HtmlElement  # no stubs: Any to the checker

HEAD = "\ufdd0"  # + the heading's level, at its paragraph's start
ITEM = "\ufdd1"  # + "-" or the item's number and ".", then ITEM, at its paragraph's start
SHAPED = "\ufdd2"  # + the index of a code block or table, + SHAPED: its placeholder paragraph
MARKS = re.compile("[\ufdd0-\ufdd2]")
_ITEM_MARK = re.compile("\ufdd1(-|[0-9]{1,9}\\.)\ufdd1")
_PLACEHOLDER = re.compile("\ufdd2([0-9]+)\ufdd2")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
# A table is data, rendered as one, when each of its rows is a short line: a layout's table,
# whose cells hold paragraphs, stays paragraphs.
MAX_CELL_CHARS = 400
# A code block of more elements than this is read by lxml (C speed), not walked in Python:
# the budget bounds the Python work of any page, one of a million highlighted spans too.
MAX_CODE_ELEMENTS = 5000
MAX_SHAPED = 10000  # code blocks and tables written as such, at most (about a second of Python)
_OWN_MARKS = ".//text()[%s]" % " or ".join("contains(., '%s')" % c for c in "\ufdd0\ufdd1\ufdd2")
_HEADING_LINKS = " | ".join(".//h%d//a" % i for i in range(1, 7))
_LANG = re.compile(r"(?:language|lang)-([A-Za-z0-9_+#.-]+)")


def shaped_text(tree: HtmlElement, fmt: str) -> str:
    """The text of ``tree`` (a page over the work budget) in ``fmt`` (text, markdown or html):
    what is never text and the navigation landmarks dropped, headings, code blocks, list
    items and data tables kept as such, other blocks as paragraphs."""
    from lxml import etree

    from .chrome import PERMALINK_MARKS
    from .elements import BLOCK, HEADINGS
    from .names import LANDMARKS
    from .region import NEVER_TEXT
    from .tree import drop

    body = tree.find(".//body")
    if body is None:
        body = tree
    etree.strip_elements(body, *(NEVER_TEXT + LANDMARKS), etree.Comment, etree.ProcessingInstruction, with_tail=False)
    # the marks' characters in the page's own text (never in a real one) are dropped first
    for found in body.xpath(_OWN_MARKS):
        holder = found.getparent()
        if found.is_tail:
            holder.tail = MARKS.sub("", holder.tail)
        else:
            holder.text = MARKS.sub("", holder.text)
    # a heading's link to its own anchor that shows only a mark ("Buffer#", "Usage¶")
    for a in body.xpath(_HEADING_LINKS):
        href = a.get("href")
        if len(a) == 0 and (href is None or href.strip().startswith("#")) and (a.text or "").strip() in PERMALINK_MARKS:
            drop(a)
    # In page order, past MAX_SHAPED code blocks and tables the rest read as paragraphs: the
    # Python work stays bounded on any page. A code block in a data table's cell is read with it.
    shaped: list[str] = []  # code blocks and tables, written already
    for el, rows in _shaped_blocks(body, etree):
        _stand_in(el, _table(rows, fmt) if rows else _code(el, fmt, etree), shaped)
    numbers: dict[Any, int] = {}
    for el in body.iter(*BLOCK, "br"):
        tag = el.tag
        mark = ""
        if tag in HEADINGS:
            mark = HEAD + str(HEADINGS[tag])
        elif tag == "li":
            parent = el.getparent()
            if parent is not None and parent.tag == "ol":
                if parent not in numbers:
                    start = (parent.get("start") or "").strip()
                    numbers[parent] = int(start) - 1 if start.isdigit() and len(start) < 9 else 0
                numbers[parent] += 1
                mark = "%s%d.%s" % (ITEM, numbers[parent], ITEM)
            else:
                mark = ITEM + "-" + ITEM
        el.tail = "\n\n" + (el.tail or "")
        el.text = "\n\n" + mark + (el.text or "")
    text = etree.tostring(body, method="text", encoding="unicode")
    return written(_PARAGRAPH_BREAK.split(text), shaped, fmt)


def _shaped_blocks(body: HtmlElement, etree: Any) -> list[tuple[HtmlElement, list[list[str]] | None]]:
    """The first MAX_SHAPED data tables (innermost: a layout's tables stay paragraphs), with
    their rows, and outermost code blocks outside those tables, in page order."""
    out: list[tuple[HtmlElement, list[list[str]] | None]] = []
    taken = None  # the last data table: the code blocks inside it are read with its cells
    for el in body.iter("table", "pre"):
        rows = None
        if el.tag == "table":
            if next(el.iterdescendants("table"), None) is not None:
                continue
            rows = _rows(el, etree)
            if rows is None:
                continue
            taken = el
        elif next(el.iterancestors("pre"), None) is not None:
            continue
        elif taken is not None and next(el.iterancestors("table"), None) is taken:
            continue  # a data table holds no table: the nearest table around the code block is it
        out.append((el, rows))
        if len(out) >= MAX_SHAPED:
            break
    return out


def _stand_in(el: HtmlElement, block: str, shaped: list[str]) -> None:
    """Put a placeholder paragraph in ``el``'s place (its tail kept) and ``block`` in ``shaped``."""
    el.clear(keep_tail=True)
    el.text = "\n\n%s%d%s\n\n" % (SHAPED, len(shaped), SHAPED)
    shaped.append(block)


def _rows(table: HtmlElement, etree: Any) -> list[list[str]] | None:
    """The cells' texts of a data table, row by row, or None for a table that is not one
    (fewer than two rows of two cells, or a cell longer than MAX_CELL_CHARS)."""
    rows = []
    for tr in table.iter("tr"):
        cells = []
        for cell in tr:
            if cell.tag in ("td", "th"):
                txt = " ".join(etree.tostring(cell, method="text", encoding="unicode", with_tail=False).split())
                if len(txt) > MAX_CELL_CHARS:
                    return None
                cells.append(txt)
        if cells:
            rows.append(cells)
    if sum(len(r) >= 2 for r in rows) < 2:
        return None
    return rows


def written(paragraphs: list[str], shaped: list[str], fmt: str, entities: bool = False) -> str:
    """The paragraphs of the marked text, their marks read and written in ``fmt``; with
    ``entities``, their character references decoded (text cut from markup, linear.py)."""
    from html import escape, unescape

    from .escape import escape_line_start, md_escape

    def decoded(t: str) -> str:  # a reference may spell a mark's character: dropped like the page's own
        return " ".join(MARKS.sub("", unescape(t)).split()) if "&" in t else t.strip()

    md = fmt == "markdown"
    out: list[str] = []
    item_run: list[str] = []  # the list items in a row: one block, one item a line
    item = ""  # an item's mark whose text is in the next paragraph (<li><p>...)
    run_tag = "ul"  # in html, the list the items in a row make: "ol" for numbered ones

    def flush() -> None:
        if item_run:
            out.append("\n".join(item_run) if fmt != "html" else "<%s>%s</%s>" % (run_tag, "".join(item_run), run_tag))
            item_run.clear()

    for raw in paragraphs:
        p = " ".join(raw.split())
        if not p:
            continue
        if "\ufdd0" <= p[0] <= "\ufdd2":
            m = _PLACEHOLDER.fullmatch(p)
            if m:
                item = ""
                flush()
                block = shaped[int(m.group(1))]
                if block:
                    out.append(block)
                continue
            m = _ITEM_MARK.match(p)
            if m:
                item, p = m.group(1), p[m.end() :].strip()
                if not p:
                    continue  # the item's text is in the next paragraph
            if p[0] == HEAD and p[1:2] in ("1", "2", "3", "4", "5", "6"):
                level, p = int(p[1]), decoded(p[2:]) if entities else p[2:].strip()
                item = ""
                flush()
                if p:
                    out.append(
                        "%s %s" % ("#" * level, md_escape(p))
                        if md
                        else ("<h%d>%s</h%d>" % (level, escape(p), level) if fmt == "html" else p)
                    )
                continue
        if entities:
            p = decoded(p)
            if not p:
                continue
        if item:
            tag = "ul" if item == "-" else "ol"
            if tag != run_tag:
                flush()
                run_tag = tag
            item_run.append(
                "%s %s" % (item, escape_line_start(md_escape(p)))
                if md
                else ("<li>%s</li>" % escape(p) if fmt == "html" else p)
            )
            item = ""
            continue
        flush()
        out.append(escape_line_start(md_escape(p)) if md else ("<p>%s</p>" % escape(p) if fmt == "html" else p))
    flush()
    return "\n\n".join(out)


def _code(pre: HtmlElement, fmt: str, etree: Any) -> str:
    """A code block, its line breaks and indentation kept, as the pipeline writes one
    (code_block.pre: its lines as a browser lays them out, one block per flavour); read
    directly when it is plain text (``<pre>`` or ``<pre><code>``), and by lxml (C speed)
    when it has more than MAX_CODE_ELEMENTS elements."""
    inner = pre[0] if len(pre) == 1 else pre
    if len(inner) == 0 and (inner is pre or (pre[0].tag == "code" and not (pre.text or "").strip())):
        m = _LANG.search("%s %s" % (pre.get("class") or "", inner.get("class") or ""))
        return code_text(inner.text or "", fmt, m.group(1) if m else "")
    if pre.xpath("count(.//*)") > MAX_CODE_ELEMENTS:
        return code_text(etree.tostring(pre, method="text", encoding="unicode", with_tail=False), fmt)
    from .code_block import pre as written

    code = written(pre, fmt == "markdown")
    if fmt == "html" and code.strip():
        from html import escape

        return "<pre><code>%s</code></pre>" % escape(code)
    return code if code.strip() else ""


def code_text(code: str, fmt: str, lang: str = "") -> str:
    """A code block's text in ``fmt`` as code_block.block writes it, ``<pre><code>`` in html."""
    from .code_block import block

    code = block(code, fmt == "markdown", lang)
    if fmt == "html" and code:
        from html import escape

        return "<pre><code>%s</code></pre>" % escape(code)
    return code


def _table(rows: list[list[str]], fmt: str) -> str:
    """A data table: a markdown table (the first row its head), rows of cells joined by " | " in
    text, a table in html."""
    if fmt == "html":
        from html import escape

        return "<table>%s</table>" % "".join(
            "<tr>%s</tr>" % "".join("<td>%s</td>" % escape(c) for c in row) for row in rows
        )
    if fmt != "markdown":
        return "\n".join(" | ".join(row) for row in rows)
    from .escape import md_escape

    width = max(len(r) for r in rows)
    lines = []
    for row in rows:
        cells = [md_escape(c).replace("|", "\\|") for c in row] + [""] * (width - len(row))
        lines.append("| " + " | ".join(cells) + " |")
    lines.insert(1, "|" + "---|" * width)
    return "\n".join(lines)
