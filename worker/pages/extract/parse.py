"""HTML text -> an lxml tree, within a work budget, and the cheap paths for pages past it.

``parse`` copes with what real and hostile pages send: encoding declarations, broken
markup, end tags after the document's end, start tags of hundreds of thousands of
attributes. A page over the budget (``over_budget``) is read by budget_text.shaped_text, whose
cost grows only linearly; a page that gives no tree at all by ``plain_fallback_text``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from lxml.html import HtmlElement  # no stubs: Any to the checker


# Work budget: a page past these is read by the cheap path (no trafilatura, no
# readability, no Python walk of the tree), whose cost grows only linearly. Real pages
# stay far below them (the 1,334 WCXB pages: at most 16,000 elements, 39,000
# attributes).
MAX_NODES = 40000
MAX_ATTRIBUTES = 100000
MAX_TEXT_CHARS = 1000000  # visible text: a book, not a page

# A start tag longer than this is cut to its bare name before parsing: libxml2 checks
# each attribute against all earlier ones, so one tag with 200,000 attributes costs
# minutes of CPU. Real tags (long SVG paths, inline images) stay below it.
MAX_TAG_CHARS = 50000


def over_budget(tree: HtmlElement, source_chars: int | None = None) -> str | None:
    """Why the page is over the work budget, or None (counted by libxml2: no Python walk).

    source_chars, the length of the markup the tree was parsed from, skips the counts it
    bounds: the tree's text is never longer than the markup, and each attribute takes two
    of its characters at least (a space and a name)."""
    from lxml import etree

    if tree.xpath("count(//*)") > MAX_NODES:
        return "over %d elements" % MAX_NODES
    if source_chars is not None and source_chars <= MAX_TEXT_CHARS and source_chars <= 2 * MAX_ATTRIBUTES:
        return None
    if tree.xpath("count(//@*)") > MAX_ATTRIBUTES:
        return "over %d attributes" % MAX_ATTRIBUTES
    if source_chars is not None and source_chars <= MAX_TEXT_CHARS:
        return None
    text = len(etree.tostring(tree, method="text", encoding="unicode"))
    if text > MAX_TEXT_CHARS:  # scripts' text is not the page's: counted only then (~1.3 ms a page of large scripts)
        text -= sum(len(el.text or "") for el in tree.iter("script", "style"))
    if text > MAX_TEXT_CHARS:
        return "over %d characters of text" % MAX_TEXT_CHARS
    return None


def markup_over_budget(html: str) -> str | None:
    """Why the markup is over the attribute budget before it is parsed, or None.

    libxml2 checks each attribute of a tag against all earlier ones, so parsing a page of
    dense attributes costs seconds to minutes before over_budget can count them. The count
    here is of the markup's attribute assignments, at C speed: '=' bounds it from above."""
    if html.count("=") <= MAX_ATTRIBUTES:
        return None
    import re

    n = sum(1 for _ in re.finditer(_ATTRIBUTE_PATTERN, html))  # re keeps it compiled
    return "over %d attributes" % MAX_ATTRIBUTES if n > MAX_ATTRIBUTES else None


# An attribute assignment: white space, a name, '=' (what markup_over_budget counts)
_ATTRIBUTE_PATTERN = r"""\s[^\s"'<>/=]+\s*=\s*(?:"|'|[^\s"'<>=`]+)"""


def strip_attributes(html: str) -> str:
    """Every start tag reduced to its name, attribute values quoting '>' included (read by
    its grammar, linear): the markup of a page over the attribute budget."""
    import re

    out, pos = [], 0
    for m in re.finditer(r"<[A-Za-z]", html):
        if m.start() < pos:
            continue
        tag = start_tag(html, m.start())
        if tag is not None:
            out.append(html[pos : m.start()])
            out.append("<%s>" % tag[0])
            pos = tag[1]
    out.append(html[pos:])
    return "".join(out)


def start_tag(html: str, pos: int) -> tuple[str, int] | None:
    """(name, end) of the start tag at ``pos`` read by its grammar, attribute values quoting
    '>' included, or None where the markup there is no start tag.

    Its attributes are matched ATTRIBUTES_AT_ONCE at a time: re keeps a frame for each
    repetition of a group it may give back, so one match of a tag's 200,000 attributes took
    159 MB (tracemalloc), over a reading child's share of memory (the grammar never needs to give one back,
    so reading in chunks finds the same end)."""
    import re

    head = re.compile(r"<([A-Za-z][A-Za-z0-9:-]{0,30})").match(html, pos)
    if head is None:
        return None
    attributes = re.compile(
        r"""(?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?){1,%d}""" % ATTRIBUTES_AT_ONCE
    )
    end = head.end()
    while (more := attributes.match(html, end)) is not None:
        end = more.end()
    close = re.compile(r"\s*/?>").match(html, end)
    return (head.group(1), close.end()) if close is not None else None


ATTRIBUTES_AT_ONCE = 64


def parse(html: str) -> HtmlElement | None:
    if len(html) > MAX_TAG_CHARS:
        html = cut_long_tags(html)
    html = late_end_tags(html)
    try:
        from .imports import core

        core()
        tree = load_html(html)
    except (Exception, RecursionError):
        tree = None
    if tree is None:
        try:
            import lxml.html

            tree = lxml.html.document_fromstring(html)
        except (Exception, RecursionError):
            tree = None
    return tree


_PARSERS = None


def html_parser() -> Any:
    """trafilatura's parser settings with a class lookup done in C, one parser per thread.

    lxml.html's own lookup is Python code called for every element object lxml hands
    out, some 20,000 calls a page and about a tenth of extraction time; every element
    is an HtmlElement all the same (the form-control subclasses it would pick are never
    used here), so the output is the same. Parsers are not shared across threads.
    """
    global _PARSERS
    import threading

    import lxml.html
    from lxml import etree

    if _PARSERS is None:
        _PARSERS = threading.local()
    parser = getattr(_PARSERS, "parser", None)
    if parser is None:
        parser = lxml.html.HTMLParser(
            collect_ids=False, default_doctype=False, encoding="utf-8", remove_comments=True, remove_pis=True
        )
        parser.set_element_class_lookup(
            etree.ElementDefaultClassLookup(
                element=lxml.html.HtmlElement,
                comment=lxml.html.HtmlComment,
                pi=lxml.html.HtmlProcessingInstruction,
                entity=lxml.html.HtmlEntity,
            )
        )
        _PARSERS.parser = parser
    return parser


def load_html(html: str) -> HtmlElement | None:
    """trafilatura.utils.load_html for a str, with our parser (see html_parser), given
    UTF-8 bytes (see repaired): libxml2 reads them in 60-80% of the time it takes over
    the str, whose characters it converts first."""
    import lxml.html

    parser = html_parser()
    beginning = html[:50].lower()
    html, data = repaired(html, beginning)
    try:
        tree = lxml.html.fromstring(data, parser=parser)
    except Exception:
        tree = None
    if tree is None or len(tree) < 1:
        # trafilatura's order from here: the str first, the bytes where it fails (a str
        # that declares its encoding is refused) or gives an empty tree
        as_bytes = False
        try:
            from_str = lxml.html.fromstring(html, parser=parser)
        except ValueError:
            as_bytes, from_str = True, None
        except Exception:
            from_str = None
        if not (as_bytes or from_str is None or len(from_str) < 1):
            tree = from_str
        elif tree is None and not as_bytes:
            tree = from_str
    if tree is not None and "html" not in beginning and len(tree) < 2:
        return None  # trafilatura's test: not (well-formed) HTML at all
    return tree


# The C0 control characters XML forbids (trafilatura.utils.INVALID_XML_CHARS less the two
# non-characters, looked for apart)
_XML_CONTROLS = bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20)])


def repaired(html: str, beginning: str) -> tuple[str, bytes]:
    """trafilatura.utils.repair_faulty_html(html, beginning) and its UTF-8 bytes.

    Its first repair, removing the characters XML forbids, is a regex over the whole
    page (3 ms a megabyte of non-Latin text); they are looked for in the bytes instead,
    at C speed, and removed only from a page that holds one. The other two are its own,
    on the first lines. tests/pages/test_extract.py checks the result against
    trafilatura's on pages that need each repair."""
    from trafilatura.utils import DOCTYPE_TAG, FAULTY_HTML, INVALID_XML_CHARS

    data = html.encode("utf-8", "surrogatepass")
    changed = False
    if (
        len(data.translate(None, _XML_CONTROLS)) != len(data)
        or b"\xef\xbf\xbe" in data  # U+FFFE
        or b"\xef\xbf\xbf" in data  # U+FFFF
    ):
        html, changed = INVALID_XML_CHARS.sub("", html), True
    if "doctype" in beginning:
        first, newline, rest = html.partition("\n")
        fixed = DOCTYPE_TAG.sub("", first, count=1)
        if fixed != first or not newline:  # trafilatura's rebuilt string ends with a line break
            html, changed = fixed + "\n" + rest, True
    for line in html[:4096].splitlines()[:4]:
        if "<html" in line and line.endswith("/>"):
            html, changed = FAULTY_HTML.sub(r"\1>", html, count=1), True
            break
    if changed:
        data = html.encode("utf-8", "surrogatepass")
    return html, data


_END_TAGS = None


def late_end_tags(html: str) -> str:
    """The markup without its </body> and </html> when markup follows them.

    A browser reads what comes after a stray </html> into the body (templates that
    print their footer's end tags before the article do this); libxml2 stops there and
    drops the rest, which was the whole article on such pages. Looked for with str.find
    (C speed); the regex runs only on such pages.
    """
    global _END_TAGS
    end = html.find("</html")
    if end < 0:
        end = html.find("</HTML")
    if end < 0:
        return html
    close = html.find(">", end)
    if close < 0 or "<" not in html[close:]:
        return html
    if _END_TAGS is None:
        import re

        _END_TAGS = re.compile(r"</(?:body|html)\s*>", re.I)
    return _END_TAGS.sub("", html)


def cut_long_tags(html: str) -> str:
    """Start tags longer than MAX_TAG_CHARS reduced to their bare name (see MAX_TAG_CHARS),
    also where attribute values quote '>' (no scan for the next '>' finds such a tag's end:
    a start tag followed by that many characters without '<' is read by its grammar)."""
    import re

    # every long tag starts a run of MAX_TAG_CHARS characters without '<': where there is no
    # such run (nearly every page), nothing to cut, found in a tenth of the cut's time
    if not re.search(r"<[A-Za-z][^<]{%d}" % MAX_TAG_CHARS, html):
        return html
    html = re.sub(r"<([A-Za-z][A-Za-z0-9:-]{0,30})\b[^<>]{%d,}>" % MAX_TAG_CHARS, r"<\1>", html)
    out, pos = [], 0
    for m in re.finditer(r"<[A-Za-z](?=[^<]{%d})" % MAX_TAG_CHARS, html):
        if m.start() < pos:
            continue
        tag = start_tag(html, m.start())
        if tag is not None and tag[1] - m.start() > MAX_TAG_CHARS:
            out.append(html[pos : m.start()])
            out.append("<%s>" % tag[0])
            pos = tag[1]
    out.append(html[pos:])
    return "".join(out)


def plain_fallback_text(html: str) -> str:
    import re
    from html import unescape

    html = html[:2000000]  # last resort only; bounded work on hostile input
    text = re.sub(r"(?is)<(script|style|noscript|template)\b[^>]*>.*?</\1\s*>", " ", html)
    text = re.sub(r"(?s)<!--.*?-->|<[^>]*>", " ", text)
    return " ".join(unescape(text).split())
