"""The page's shape in the markdown: code, tables, headings and lists as a reader sees them.

Each test is a rule a person can check on the page: a line break in the markup's source is
white space, a permalink mark is not a heading's text, a docs generator's navigation is not
content (issue 41).
"""

from worker.pages.extract.core import extract
from worker.pages.extract.render import render_fragment

PROSE = " ".join(["The quick brown fox jumps over the lazy dog again and again."] * 12)


def page(body, title="A page"):
    return "<html><head><title>%s</title></head><body>%s</body></html>" % (title, body)


def test_a_wrapped_source_line_is_white_space_and_only_br_breaks_the_line():
    md = render_fragment("<p>stores datetime information in\nUTC and <b>keeps\nit</b><br>on a new line</p>")
    assert md == "stores datetime information in UTC and **keeps it**  \non a new line"
    # the same in a table cell and a list item: no break at all there
    assert render_fragment("<ul><li>one\ntwo</li></ul>") == "- one two"


def test_an_exact_phrase_across_a_source_line_survives_extraction():
    body = "<main><article><h1>Time zones</h1>%s</article></main>" % "".join(
        "<p>%s stores datetime\ninformation in\nUTC for paragraph %d.</p>" % (PROSE, i) for i in range(4)
    )
    md = extract(page(body), "https://example.org/time", "markdown")["text"]
    assert "stores datetime information in UTC for paragraph 2." in md
    assert "  \n" not in md


def test_sphinx_permalinks_are_not_part_of_the_heading():
    body = (
        '<div role="main"><div class="section"><h1>Time zones<a class="headerlink" href="#time-zones" '
        'title="Link to this heading">¶</a></h1>%s<h2 id="x">Naive objects<a href="#x">#</a></h2><p>%s</p>'
        '<dl><dt id="f">f(x)<a class="headerlink" href="#f">¶</a></dt><dd><p>%s</p></dd></dl></div></div>'
    ) % ("<p>%s</p>" % PROSE, PROSE, PROSE)
    md = extract(page(body), "https://docs.example.org/3/library/time.html", "markdown")["text"]
    lines = md.split("\n")
    assert "# Time zones" in lines and "## Naive objects" in lines
    assert "¶" not in md and "(#x)" not in md


def test_docbook_navigation_and_edit_links_are_not_content():
    nav = (
        '<div class="navheader"><table width="100%%"><tr><th colspan="3">Chapter 9. Functions</th></tr>'
        '<tr><td><a accesskey="p" href="a.html">Prev</a></td><td><a href="b.html">Up</a></td>'
        '<td><a accesskey="n" href="c.html">Next</a></td></tr></table><hr></div>'
    )
    foot = nav.replace("navheader", "navfooter")
    body = (
        '%s<div class="sect1"><h2 class="title">9.1. Logical Operators</h2><p>%s</p><p>%s</p>'
        '<p><a href="https://github.com/x/y/edit/main/f.md">Edit this page</a></p>'
        '<p>The <code>AND</code> operator returns true when both are true.</p></div>%s'
    ) % (nav, PROSE, PROSE, foot)
    md = extract(page(body), "https://www.postgresql.example/docs/17/functions-logical.html", "markdown")["text"]
    assert "Logical Operators" in md and "`AND` operator" in md
    assert "Prev" not in md and "Next" not in md and "Edit this page" not in md


def test_breadcrumbs_are_not_content():
    body = (
        '<nav aria-label="breadcrumb"><ol><li><a href="/">Home</a></li><li><a href="/docs">Docs</a></li></ol></nav>'
        '<main><h1>Install</h1><p>%s</p><p>%s</p></main>'
    ) % (PROSE, PROSE)
    md = extract(page(body), "https://example.org/docs/install", "markdown")["text"]
    assert "Home" not in md and "fox" in md
