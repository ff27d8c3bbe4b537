"""Pathological HTML pages, generated: markup that costs a parser or an extractor dearly.

Served by FakeWeb at ``/pathological?kind=NAME`` (tests) and by bench/deadline/run.py.
Each page is at most the worker's 5 MB body cap.

    KINDS                  the catalogue (issue 27's cases), each a few MB
    SLOW                   the kind no extractor reads in time: the deadline's own test
    TEXT_KINDS             large text (not HTML) that takes seconds to clean and outline
    page(kind) -> bytes
"""

CAP = 5 * (1 << 20) - 4096  # just under the worker's body cap, so the whole page is read


def _fill(head, unit, tail, size=CAP):
    parts, n, i = [head], len(head) + len(tail), 0
    while n < size:
        piece = unit % i if "%d" in unit else unit
        parts.append(piece)
        n += len(piece)
        i += 1
    parts.append(tail)
    return "".join(parts)


def attrs():
    """200,000 attributes over 2,000 elements (100 each)."""
    tag = "<div " + " ".join('a%d="x"' % j for j in range(100)) + ">entry %d</div>"
    return "<html><body>" + "".join(tag % i for i in range(2000)) + "</body></html>"


def attrs_quoted(n=200000):
    """One start tag of ``n`` attributes whose values hold '>': no cheap scan finds its end, and
    libxml2 checks each attribute against all earlier ones (minutes of CPU)."""
    return (
        "<html><body><div "
        + " ".join('a%d="&gt;>"' % i for i in range(n))
        + ">text</div><p>"
        + "Some words of the page. " * 50
        + "</p></body></html>"
    )


def attrs_valueless(tags=110, n=8400):
    """Tags of ``n`` attributes without values, each tag under the worker's long-tag cut and no
    '=' to count: libxml2 checks each attribute against the tag's earlier ones (about 0.08 s a
    tag idle, 0.25 s under load: 9-27 s for the page). The slowest page left to the deadline
    (docs/limits.md)."""
    tag = "<div " + " ".join("a%x" % i for i in range(n)) + ">entry</div>"
    return "<html><body>" + tag * tags + "<p>" + "Some words of the page. " * 50 + "</p></body></html>"


def headings():
    return "<html><body>" + "".join("<h2>Heading %d</h2>" % i for i in range(100000)) + "</body></html>"


def nesting():
    """50,000 nested elements."""
    return "<html><body>" + "<div>" * 50000 + "deep text" + "</div>" * 50000 + "</body></html>"


def links():
    return (
        "<html><body><ul>"
        + "".join('<li><a href="/p/%d">link number %d</a></li>' % (i, i) for i in range(100000))
        + "</ul></body></html>"
    )


def line():
    """5 MB of words on one line, in one paragraph."""
    return _fill("<html><body><p>", "word%d ", "</p></body></html>")


def table():
    return (
        "<html><body><table>"
        + "".join("<tr><td>%d</td><td>cell</td></tr>" % i for i in range(100000))
        + "</table></body></html>"
    )


def br():
    """5 MB of <br>: 1.3 million elements."""
    return _fill("<html><body><p>Text before the breaks.</p>", "<br>", "</body></html>")


def markdown_headings():
    """A 4.6 MB markdown file of 200,000 headings (served as text/markdown: no HTML parser, a long outline)."""
    return "".join("# heading %d\n\ntext\n\n" % i for i in range(200000))


# Served as text/markdown, not HTML; not in KINDS (the HTML catalogue).
TEXT_KINDS = {"markdown-headings": markdown_headings}
KINDS = {
    "attrs": attrs,
    "headings": headings,
    "nesting": nesting,
    "links": links,
    "line": line,
    "table": table,
    "br": br,
    "attrs-quoted": attrs_quoted,  # read since issue 41: its attributes are counted before parsing
    "attrs-valueless": attrs_valueless,
}
SLOW = "attrs-valueless"
_made = {}


def page(kind):
    """The page's bytes (made once per process)."""
    if kind not in _made:
        _made[kind] = dict(KINDS, **TEXT_KINDS)[kind]().encode("utf-8")
    return _made[kind]
