"""The article extractor's choice, read back from the page's own markup.

trafilatura chooses well which parts of a page are its content, but the tree it hands back
loses their shape: a code block inside a quote becomes a quote, a <pre> a paragraph, a
layout it cannot read one paragraph of the whole page, and its precision rules drop the
headings and lists whose class names read like chrome even where they sit between two
paragraphs it kept. Here its text is mapped back onto the page's own elements, in the
page's order, and those elements are what is rendered:

1. The page's units, in document order: a heading, a <pre> or a table taken whole; a block
   with no blocks inside; the loose text of a block between its child blocks.
2. A unit is the extractor's when its text stands in the extractor's text where the last
   one ended (or a little after: the extractor leaves out what it did not keep), or, for a
   unit the extractor respaced, when most of its word pairs are in that text. A list item
   the page says again found further on, out of the page's order there (the next unit the
   text says once stands before it: a table of contents' entry found as its section's
   heading), is not the extractor's and does not carry the reading past the units between;
   a unit the page says once found so is the extractor's, but the reading stays where it was
   (a "Back to the list" link first in the page that the extractor kept only as its last line).
3. A heading, code block, table or list item the extractor left out is content when the
   unit just before it and the one just after it are both the extractor's: what stands
   between two kept paragraphs of an article is the article's, but a list of links to the
   site's own pages (a box of related stories) and what stands in a table cell (a table
   layout's column, whose lists are menus and headlines). So is a heading right before a
   kept unit, or alone in the wrappers right before it: it names what follows.
4. The page's body without the other units is rendered. Used only when it holds nearly
   all of the extractor's words (NEAR) and not many more (MORE), the lists of step 3 that
   are prose and the lists a kept sentence announces aside: otherwise the extractor's own
   tree is rendered, as before.

Pure functions over lxml trees; no I/O.
"""

from __future__ import annotations

import re

from . import thresholds as th
from .contents import heading_ids, is_contents
from .render import BLOCK, HEADINGS, SKIP
from .tree import names_code

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only
    from typing import Any

    from lxml.html import HtmlElement  # no stubs: Any to the checker

ATOMS = frozenset(("pre", "listing", "xmp", "plaintext")) | frozenset(HEADINGS)
SECTION_HEADINGS = frozenset(HEADINGS)  # h1 too: a docs page's title heads its text
LAYOUT = frozenset(("table", "tbody", "thead", "tfoot", "tr", "td", "th", "caption"))
STRUCTURE = ATOMS | {"table", "li", "dt", "dd"}
_WORD = re.compile(r"\w+")


def _norm(s: str) -> str:
    return " ".join(s.split())


def _tag(el: Any) -> str | None:
    t = el.tag
    return t if type(t) is str else None  # lxml's HTML parser gives tag names in lower case


def _text(el: HtmlElement) -> str:
    """All text below el, without its tail, serialised by libxml2 (scripts and styles are
    gone by now: core._drop_code)."""
    from lxml.etree import tostring

    return tostring(el, method="text", encoding="unicode", with_tail=False)


def _cells(table: HtmlElement) -> str:
    """A data table's text, its cells apart: libxml2's text of the whole table glues one
    cell's last word to the next cell's first ("MondayTuesday"), which no extractor's text
    holds."""
    return " ".join(_text(cell) for cell in table.iter("caption", "th", "td"))


def _holders(root: HtmlElement) -> set[Any]:
    """The elements below root that hold a block (each marked once, walking up)."""
    out: set[Any] = set()
    for el in root.iter(*BLOCK):  # libxml2 finds the blocks; Python walks up from each once
        if el is root:
            continue
        parent = el.getparent()
        while parent is not None and parent not in out:
            out.add(parent)
            if parent is root:
                break
            parent = parent.getparent()
    return out


def _loose_text(el: HtmlElement, holders: set[Any]) -> str:
    """The text of el outside its child blocks (its own text, inline children, tails)."""
    parts = [el.text or ""]
    for child in el:
        t = child.tag
        if type(t) is str and t not in BLOCK and t not in SKIP and child not in holders:
            parts.append(_text(child))
        parts.append(child.tail or "")
    return _norm("".join(parts))


def units(root: HtmlElement) -> tuple[list[tuple[Any, str, str]], set[Any]]:
    """([(element, kind, text)] in document order, the elements that hold blocks); kind is
    "whole" (the element and all below it) or "loose" (its text between child blocks)."""
    holders = _holders(root)
    out: list[tuple[Any, str, str]] = []
    stack = [root]
    while stack:
        el = stack.pop()
        t = el.tag
        if type(t) is not str or t in SKIP:
            continue
        held = el in holders
        if el is not root and t in BLOCK and (not held or t in ATOMS or (t == "table" and not layout_table(el))):
            text = _norm(_cells(el) if t == "table" else _text(el))
            if text:
                out.append((el, "whole", text))
            continue
        if held or el is root:
            loose = _loose_text(el, holders)
            if loose:
                out.append((el, "loose", loose))
            stack.extend(c for c in reversed(el) if c in holders or c.tag in BLOCK)
    return out, holders


def layout_table(el: HtmlElement) -> bool:
    """Whether a table lays out the page (a table inside it, or a cell holding a heading and
    its section, or a column's worth of text) rather than holding data. A cell that holds a
    heading alone is a styled header cell (a review's table of platforms, ratings and summaries)."""
    if el.find(".//table") is not None:
        return True
    for cell in el.iter("td", "th"):
        heading = next(cell.iter("h1", "h2", "h3"), None)
        if heading is not None and _text(cell).split() != _text(heading).split():
            return True
        if len("".join(x for x in cell.itertext() if isinstance(x, str)).split()) > th.T.CELL_WORDS:
            return True
    return False


def _pairs(words: list[str]) -> set[tuple[str, str]]:
    return set(zip(words, words[1:]))


def _next(el: HtmlElement) -> HtmlElement | None:
    nxt = el.getnext()
    while nxt is not None and type(nxt.tag) is not str:
        nxt = nxt.getnext()
    return nxt


def _heads(heading: HtmlElement, el: HtmlElement) -> bool:
    """Whether heading is a section's and el the block right after it, beside it in the same
    container: the heading names what follows (a comment section's count or a card's name
    stand elsewhere). Wrappers that hold nothing but the heading are climbed (DocBook's
    title page: div > div > div > h1, then the chapter's first block), and el may open the
    block that follows."""
    if heading.tag not in SECTION_HEADINGS:
        return False
    node, title = heading, None
    while _next(node) is None:
        parent = node.getparent()
        if parent is None:
            return False
        if title is None:
            title = _norm(_text(heading))
        if _norm(_text(parent)) != title:
            return False
        node = parent
    nxt = _next(node)
    while nxt is not None:
        if nxt is el:
            return True
        if (nxt.text or "").strip():
            return False
        nxt = next((c for c in nxt if type(c.tag) is str), None)
    return False


def _in_cell(el: HtmlElement) -> bool:
    """Whether el stands in a table cell: a layout's column, whose lists are its menus."""
    return any(anc.tag in ("td", "th") for anc in el.iterancestors())


def site_links(el: HtmlElement, host: str | None) -> bool:
    """Whether el's text is links to the site's own pages (LINKED of its characters): a box
    of related stories or a menu, where a list of links elsewhere cites sources."""
    total = len("".join(x for x in el.itertext() if isinstance(x, str)).strip())
    if not total:
        return False
    inside = 0
    for a in el.iter("a"):
        if names_code(a):
            continue  # a reference to an API name the text speaks of, not a story's title
        href = (a.get("href") or "").strip().lower()
        if href.startswith(("http://", "https://", "//")):
            from urllib.parse import urlsplit

            try:
                other = (urlsplit(href).hostname or "").removeprefix("www.")
            except ValueError:
                continue
            if not host or other != host.removeprefix("www."):
                continue
        inside += len("".join(x for x in a.itertext() if isinstance(x, str)).strip())
    return inside >= th.T.LINKED * total


def _anchors(items: list[tuple[Any, str, str]], flat: str, said: Any) -> list[tuple[int, int]]:
    """[(unit's index, its place in the text)] for the long units that the page and the text
    each say once, in the page's order."""
    out = []
    for i, (_, _, s) in enumerate(items):
        if len(s) >= th.T.LONG and said[s] == 1:
            at = flat.find(s)
            if at >= 0 and flat.find(s, at + len(s)) < 0:
                out.append((i, at))
    return out


def _out_of_place(anchors: list[tuple[int, int]], i: int, cursor: int, at: int) -> bool:
    """Whether unit i, found at ``at`` in the text past the cursor, stands there out of the
    page's order: the next unit after it that the page and the text say once stands in the
    text between the cursor and ``at`` (a table of contents' entry found as its section's
    heading)."""
    from bisect import bisect_right

    k = bisect_right(anchors, (i, 1 << 62))  # the first anchor after unit i
    for _, place in anchors[k : k + th.T.LOOK_AHEAD]:
        if place >= cursor:
            return place < at
    return False


def chosen(
    items: list[tuple[Any, str, str]], text: str, host: str | None = None, announced: set[int] | None = None
) -> list[bool]:
    """Which units are the extractor's (steps 2 and 3 of the module's doc); the indices of
    the list items kept because a kept sentence announces their list, or kept between two
    kept units and not links, go into announced."""
    from collections import Counter

    flat = _norm(text)
    pairs: set[tuple[str, str]] | None = None  # the text's word pairs, made when a unit needs them
    keep = [False] * len(items)
    cursor = 0
    # A long unit is looked for further on than next to the cursor too; where it stands there
    # out of the page's order (_out_of_place), the cursor does not move, or every unit between
    # would be looked for past it. A list item the page says again (a table of contents' entry,
    # found as its section's heading) is then not the extractor's; a unit the page says once is.
    said = Counter(s for _, _, s in items)
    anchors = None  # looked for once such an item is found further on
    ids: set[str] | None = None  # the page's heading ids (contents.heading_ids), made when needed
    lists: dict[Any, bool] = {}  # whether each outermost list met is a table of contents, asked once
    for i, (el, _, s) in enumerate(items):
        at = flat.find(s, cursor, cursor + th.T.SLACK + len(s))
        if at < 0 and len(s) >= th.T.LONG:
            at = flat.find(s, cursor)
            if at >= 0 and (said[s] == 1 or _tag(el) == "li"):
                if anchors is None:
                    anchors = _anchors(items, flat, said)
                if _out_of_place(anchors, i, cursor, at):
                    keep[i] = said[s] == 1  # the text's, out of the page's order: the reading stays
                    continue
        if at >= 0:
            keep[i] = True
            cursor = at + len(s)
            continue
        if s.count(" ") < th.T.PAIR_WORDS - 1:
            continue  # too short to be told from the same words elsewhere
        words = _WORD.findall(s.lower())
        if len(words) >= th.T.PAIR_WORDS:
            if pairs is None:
                pairs = _pairs(_WORD.findall(flat.lower()))
            mine = _pairs(words)
            keep[i] = len(mine & pairs) >= th.T.PAIRS * len(mine)
    # step 3: structure between two kept units
    i = 0
    while i < len(items):
        if keep[i] or _tag(items[i][0]) not in STRUCTURE:
            i += 1
            continue
        j = i
        while j < len(items) and not keep[j] and _tag(items[j][0]) in STRUCTURE:
            j += 1
        between = i > 0 and j < len(items) and keep[i - 1] and keep[j]
        entries = set()  # the units that are entries of the page's table of contents
        if j < len(items) and keep[j]:
            if ids is None:
                ids = heading_ids(items[i][0].getroottree().getroot())
            entries = {k for k in range(i, j) if _tag(items[k][0]) == "li" and _contents_entry(items[k][0], ids, lists)}
        if entries and not between and not _in_cell(items[i][0]):
            # the contents right before the text it maps (after its title, which is no part of the text)
            for k in entries:
                keep[k] = True
                if announced is not None:
                    announced.add(k)
        linked = between and any(
            _tag(items[k][0]) == "li" and k not in entries and site_links(items[k][0], host) for k in range(i, j)
        )
        if between and not linked and not _in_cell(items[i][0]):
            for k in range(i, j):
                keep[k] = True
                if announced is not None and _tag(items[k][0]) == "li" and (k in entries or not _links(items[k][0])):
                    announced.add(k)
        elif j < len(items) and keep[j] and (linked or not between):
            # a section's heading right before the section's kept text (after a list of links
            # to the site too: a table of contents), and the headings of the sections around it
            # that hold nothing but their heading ("General questions")
            k = j
            while k > i and _heads(items[k - 1][0], items[k][0]):
                keep[k - 1] = True
                k -= 1
        elif j < len(items) and j > i and not keep[j]:
            # a section's heading, a figure (its picture's caption left out), then the
            # section's kept text: the heading still names the text
            fig = _figure(items[j][0])
            f = j
            while fig is not None and f < len(items) and not keep[f] and _within(items[f][0], fig):
                f += 1
            if fig is not None and f > j and f < len(items) and keep[f] and _next(fig) is items[f][0]:
                k, target = j, fig
                while k > i and _heads(items[k - 1][0], target):
                    keep[k - 1] = True
                    k -= 1
                    target = items[k][0]
        if i > 0 and keep[i - 1] and not keep[i]:
            # a list the kept sentence before it announces ("Cons:", "You will need:") is that
            # sentence's, not a menu: the extractor keeps the line and may drop the list
            listed = _announced(items[i - 1], items[i][0])
            if listed is not None:
                k = i
                while k < j and listed in items[k][0].iterancestors():
                    k += 1
                linking = [m for m in range(i, k) if _links(items[m][0])]
                # links elsewhere after "Here's a selection:" are the text's; the site's own
                # pages, or any after "Related:", are a box of its stories
                if not linking or (
                    not _other_content(items[i - 1][2]) and not any(site_links(items[m][0], host) for m in linking)
                ):
                    for m in range(i, k):
                        keep[m] = True
                        if announced is not None:
                            announced.add(m)
        i = j
    return keep


def _contents_entry(li: HtmlElement, ids: set[str], lists: dict[Any, bool]) -> bool:
    """Whether li is an entry of the page's table of contents: the list it stands in,
    nested lists and all, is one (contents.is_contents). lists: the answers so far, by
    outermost list (a list of thousands of entries is read once, not once an entry)."""
    top = li
    for anc in li.iterancestors():
        if anc.tag not in ("ul", "ol", "li"):
            break
        top = anc
    found = lists.get(top)
    if found is None:
        found = lists[top] = is_contents(top, ids)
    return found


def _figure(el: HtmlElement) -> HtmlElement | None:
    """The figure el stands in (el itself when it is one), with the wrappers that hold
    nothing but it (WordPress's div.wp-block-image)."""
    for anc in (el, *el.iterancestors()):
        if anc.tag == "figure":
            fig = anc
            parent = fig.getparent()
            while parent is not None and parent.tag == "div" and not (parent.text or "").strip():
                if [c for c in parent if type(c.tag) is str] != [fig] or (fig.tail or "").strip():
                    break
                fig, parent = parent, parent.getparent()
            return fig
        if anc.tag in ("body", "article", "main", "section"):
            return None
    return None


def _within(el: HtmlElement, anc: HtmlElement) -> bool:
    return el is anc or anc in el.iterancestors()


def _links(el: HtmlElement) -> bool:
    """Whether el's text is links (LINKED of its words), to any site: after "You may also
    like:" or "Related:", a list of stories, not the sentence's own list."""
    from .region import link_share

    return link_share(el) >= th.T.LINKED


def _other_content(sentence: str) -> bool:
    """Whether a sentence announces other pages ("You may also like:", "Related:"): a list
    of links after it is a box of stories; after "Here's a selection:" it is the text's."""
    from .region import OTHER_CONTENT_HEADING

    return OTHER_CONTENT_HEADING.search(" ".join(_WORD.findall(sentence))) is not None


def _announced(before: tuple[Any, str, str], el: HtmlElement) -> HtmlElement | None:
    """The list that el opens, when the unit before it ends with a colon and the list is
    the next element after it."""
    if _tag(el) != "li" or not before[2].rstrip().endswith(":"):
        return None
    listed = el.getparent()
    if listed is None or listed.tag not in ("ul", "ol") or _next(before[0]) is not listed:
        return None
    return listed


def _remove(el: HtmlElement, keep_tail: bool) -> None:
    parent = el.getparent()
    if parent is None:
        return
    if keep_tail and el.tail:
        prev = el.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)


def prune(root: HtmlElement, items: list[tuple[Any, str, str]], keep: list[bool], holders: set[Any]) -> None:
    """root without the units not kept (in place)."""
    whole = {id(el) for (el, kind, _), k in zip(items, keep) if k and kind == "whole"}
    loose = {id(el) for (el, kind, _), k in zip(items, keep) if k and kind == "loose"}
    needed: set[int] = set()
    for (el, _, _), k in zip(items, keep):
        if k:
            for anc in el.iterancestors():
                if id(anc) in needed:
                    break
                needed.add(id(anc))
            needed.add(id(el))
    stack = [root]
    while stack:
        el = stack.pop()
        own = id(el) in loose
        for child in list(el):
            cid = id(child)
            if cid in whole:
                continue
            t = _tag(child)
            inline = t is not None and t not in BLOCK and t not in ATOMS and child not in holders
            if cid in needed and not (inline and cid not in whole):
                stack.append(child)
            elif inline and own:
                continue  # part of el's loose text, which is kept
            else:
                _remove(child, keep_tail=own)
        if not own:
            el.text = None
            for child in el:
                child.tail = None
        t = _tag(el)
        if t in LAYOUT:
            el.tag = "div"  # a layout table's parts, read as the blocks they hold
        elif t in ("ul", "ol"):
            lis = [c for c in el if _tag(c) == "li"]
            if len(lis) == 1 and id(lis[0]) not in whole and _holds_heading(lis[0]):
                # one item left, holding the kept blocks and the page's headings: a menu's
                # unclosed item around the page, not a list (the markup is broken, not the
                # content); a list of one item (DocBook's one citation) is still a list
                el.tag = lis[0].tag = "div"


def _holds_heading(el: HtmlElement) -> bool:
    return next(el.iterdescendants(*HEADINGS), None) is not None


class _TextNodes:
    """body's text nodes (texts and tails, in document order), read once for all the lines
    looked for: each line is found by str.find in the nodes joined by a character no node
    holds, where an XPath of contains() read every node again for each line."""

    SEP = "\x00"  # libxml2 keeps no NUL in a text node

    def __init__(self, body: HtmlElement):
        from lxml.etree import XPath

        self.body = body
        self.joined = self.SEP.join(XPath("descendant::text()", smart_strings=False)(body))

    def only(self, probe: str) -> Any:
        """The element whose text or tail is the one text node that holds probe; None when
        none or several do."""
        if not probe or self.SEP in probe:
            hits = self.body.xpath("descendant::text()[contains(., $p)]", p=probe)
            return hits[0].getparent() if len(hits) == 1 else None
        joined = self.joined
        at = joined.find(probe)
        if at < 0:
            return None
        end = joined.find(self.SEP, at)  # the node's end: a probe never spans SEP
        if end >= 0 and joined.find(probe, end) >= 0:
            return None  # a later node holds it too
        n = joined.count(self.SEP, 0, at)  # the nodes before it
        return self.body.xpath("(descendant::text())[$n]", n=n + 1)[0].getparent()


def _long_lines(raw: list[str]) -> list[str]:
    """The first PROBES of raw's lines that are long enough to look for, white space folded
    (only those are looked for: a long text's other lines are not folded)."""
    out = []
    for x in raw:
        line = " ".join(x.split())
        if len(line) >= th.T.PROBE_LINE:
            out.append(line)
            if len(out) == th.T.PROBES:
                break
    return out


def _found(nodes: _TextNodes, lines: list[str]) -> Any:
    """The element whose own text holds the first of lines that one text node holds."""
    for line in lines[: th.T.PROBES]:
        el = nodes.only(line[: th.T.PROBE])
        if el is not None:
            return el
    return None


def span(body: HtmlElement, text: str) -> HtmlElement:
    """The element of body that holds all of the extractor's text: the deepest that holds
    both its first and its last long line (found by libxml2 in the text nodes), or body.
    Everything the extractor kept lies between the two, so the units outside are not read."""
    raw = text.split("\n")
    firsts = _long_lines(raw)
    if not firsts:
        return body
    nodes = _TextNodes(body)
    first = _found(nodes, firsts)
    last = _found(nodes, _long_lines(raw[::-1])) if first is not None else None
    if first is None or last is None:
        return body
    above = {id(a) for a in first.iterancestors()}
    above.add(id(first))
    node = last
    while node is not None and id(node) not in above:
        node = node.getparent()
    if node is None:
        return body
    # a step up: a heading or list at the span's edge sits beside its first or last block
    up = node.getparent()
    node = up if up is not None and node is not body else node
    # the two lines may both stand in a summary or a table of contents as well: the span
    # must hold (nearly) as much text as the extractor's
    if len("".join(_text(node).split())) < th.T.NEAR * len("".join(text.split())):
        return body
    return node


def project(body: HtmlElement, text: str, url: str | None) -> HtmlElement | None:
    """A copy of body holding only what text (the extractor's plain text) took from it,
    with the structure between, or None when the page's units do not give that text."""
    part = span(body, text)
    found = _project(part, text, url)
    if found is None and part is not body:
        found = _project(body, text, url)  # the extractor took short lines outside the span
    return found


def _project(body: HtmlElement, text: str, url: str | None) -> HtmlElement | None:
    import copy

    root = copy.deepcopy(body)
    # A line break is white space in the extractor's text, but libxml2's text of "a<br>b" is
    # "ab": a paragraph of links one per line was never found. Spaced for the units only.
    breaks = [(br, br.tail) for br in root.iter("br")]
    for br, tail in breaks:
        br.tail = " " + tail if tail else " "
    items, holders = units(root)
    for br, tail in breaks:
        br.tail = tail
    if not items:
        return None
    host = None
    if url:
        from urllib.parse import urlsplit

        try:
            host = urlsplit(url).hostname
        except ValueError:
            host = None
    announced: set[int] = set()
    keep = chosen(items, text, host, announced)
    # the kept units' words against the extractor's, before any rendering (a unit's text is
    # what render gives of it, up to white space); a list a kept sentence announces is the
    # sentence's, however long, and so is a list of prose between two kept paragraphs (the
    # extractor's precision rules drop such lists whole): neither counts against MORE
    have = _WORD.findall(" ".join(s for n, ((_, _, s), k) in enumerate(zip(items, keep)) if k and n not in announced))
    want = _WORD.findall(text)
    if not want or len(have) > th.T.MORE * len(want) or len(have) < th.T.NEAR * len(want):
        return None  # too many words, or too few to hold NEAR of want's (counted below)
    from collections import Counter

    if sum((Counter(have) & Counter(want)).values()) < th.T.NEAR * len(want):
        return None
    prune(root, items, keep, holders)
    from .region import absolute_links

    absolute_links(root, url)
    return root
