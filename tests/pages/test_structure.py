"""The page's shape in the markdown: code, tables, headings and lists as a reader sees them.

Each test is a rule a person can check on the page: a line break in the markup's source is
white space, a permalink mark is not a heading's text, a docs generator's navigation is not
content (issue 41).
"""

from worker.pages.extract.core import extract
from worker.pages.extract.render import render_fragment

PROSE = " ".join(["The quick brown fox jumps over the lazy dog again and again."] * 12)
PROSE2 = " ".join(["A second paragraph says something else about the same dog, at length."] * 10)


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
        '<dl><dt id="f">f(x)<a class="headerlink" href="#f">¶</a></dt><dd><p>%s</p></dd></dl>'
        '<div class="highlight"><pre>import time</pre></div><div class="highlight"><pre>time.time()</pre></div></div></div>'
    ) % ("<p>%s</p>" % PROSE, PROSE2, PROSE.replace("fox", "cat"))
    md = extract(page(body), "https://docs.example.org/3/library/time.html", "markdown")["text"]
    lines = md.split("\n")
    assert "# Time zones" in lines and "## Naive objects" in lines
    assert "¶" not in md and "(#x)" not in md


def test_a_heading_whose_text_links_back_to_the_contents_keeps_its_words():
    # docutils' "contents" directive links each heading back to its entry: the link is the
    # heading's whole text, and its class names a table of contents (Python's FAQs)
    faq = "".join(
        '<section id="q%d"><h2><a class="toc-backref" href="#id%d" role="doc-backlink">Why is question %d asked?</a>'
        '<a class="headerlink" href="#q%d">¶</a></h2><p>%s</p><pre>x = %d\nprint(x)</pre></section>'
        % (i, i, i, i, PROSE, i)
        for i in range(4)
    )
    contents = '<nav class="contents" id="contents"><p class="topic-title">Contents</p><ul>%s</ul></nav>' % "".join(
        '<li><a class="reference internal" href="#q%d" id="id%d">Why is question %d asked?</a></li>' % (i, i, i)
        for i in range(4)
    )
    body = '<div role="main"><section id="faq"><h1>Design FAQ</h1>%s%s</section></div>' % (contents, faq)
    got = extract(page(body), "https://docs.example.org/3/faq/design.html", "markdown")
    md = got["text"]
    assert got["page_type"] == "documentation"  # read as its region, where the chrome is pruned
    assert "## Why is question 2 asked?" in md.split("\n")
    assert "¶" not in md
    # the contents list is the page's own map: its entries come back as list items, as text
    lines = md.split("\n")
    assert "- Why is question 2 asked?" in lines
    assert lines.index("- Why is question 2 asked?") < lines.index("## Why is question 0 asked?")


def test_an_articles_table_of_contents_is_kept_and_a_sidebar_of_other_pages_is_not():
    # the article path (trafilatura's choice read back from the page's markup): trafilatura
    # drops the contents list; it stands between the lede and the first section, so it is the
    # article's, while the sidebar's links go to other pages
    sections = "".join(
        '<h2 id="part-%d">Part %d of the trip</h2><p>%s %d</p><p>%s</p>' % (i, i, PROSE, i, PROSE2) for i in range(4)
    )
    toc = '<nav id="toc" class="toc"><p>In this article</p><ol>%s</ol></nav>' % "".join(
        '<li><a href="#part-%d">Part %d of the trip</a></li>' % (i, i) for i in range(4)
    )
    aside = '<aside class="sidebar"><ul>%s</ul></aside>' % "".join(
        '<li><a href="/blog/other-trip-%d">Another trip number %d</a></li>' % (i, i) for i in range(4)
    )
    body = "<main><article><h1>A long trip</h1><p>%s</p>%s%s</article>%s</main>" % (PROSE2, toc, sections, aside)
    got = extract(page(body), "https://blog.example.org/2025/a-long-trip", "markdown")
    lines = got["text"].split("\n")
    assert got["extractor"] == "trafilatura"
    assert "3. Part 2 of the trip" in lines and lines.index("1. Part 0 of the trip") < lines.index(
        "## Part 0 of the trip"
    )
    assert "Another trip" not in got["text"]


def test_a_table_of_contents_before_the_articles_first_words_is_kept():
    # WordPress's "Easy Table of Contents" box opens the article, with a title of its own and
    # a toggle link ("#"); nothing of the article's text comes before it
    sections = "".join(
        '<h3><span class="ez-toc-section" id="%d_Press"></span>%d. Press number %d</h3><p>%s %d</p><p>%s</p>'
        % (i, i, i, PROSE, i, PROSE2.replace("dog", "dog %d" % i))
        for i in range(1, 5)
    )
    toc = (
        '<div id="ez-toc-container"><div class="ez-toc-title-container"><p class="ez-toc-title">Table of Contents</p>'
        '<a href="#" class="ez-toc-toggle">Toggle</a></div><nav><ul class="ez-toc-list">%s</ul></nav></div>'
        % "".join('<li><a href="#%d_Press">%d. Press number %d</a></li>' % (i, i, i) for i in range(1, 5))
    )
    body = '<div class="blog-detail"><h1>Top presses</h1>%s%s</div>' % (toc, sections)
    got = extract(page(body), "https://www.example.com/blog/top-presses/", "markdown")
    lines = got["text"].split("\n")
    assert got["extractor"] == "trafilatura"
    entry = next(line for line in lines if line.endswith("Press number 3") and not line.startswith("#"))
    heading = next(line for line in lines if line.endswith("Press number 1") and line.startswith("### "))
    assert entry == "- 3\\. Press number 3"  # its number is text, not a list's
    assert lines.index(entry) < lines.index(heading)


def test_a_permalink_of_a_zero_width_space_is_not_part_of_the_heading():
    # Docusaurus's hash link holds a zero-width space, which str.strip keeps
    body = '<article><h2 id="f">Features<a class="hash-link" href="#f">\u200b</a></h2><p>%s</p></article>' % PROSE
    for fmt, heading in (("markdown", "## Features"), ("text", "Features")):
        text = extract(page(body), "https://docs.example.org/docs/intro", fmt)["text"]
        assert heading in text.split("\n") and "\u200b" not in text


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
        "<p>The <code>AND</code> operator returns true when both are true.</p>"
        '<pre class="programlisting">SELECT true AND false;</pre><pre class="programlisting">SELECT NOT true;</pre></div>%s'
    ) % (nav, PROSE, PROSE2, foot)
    md = extract(page(body), "https://www.postgresql.example/docs/17/functions-logical.html", "markdown")["text"]
    assert "Logical Operators" in md and "`AND` operator" in md
    assert "Prev" not in md and "Next" not in md and "Edit this page" not in md


ARTICLE_P = [
    "Caching the package manager's store instead of the installed tree cut our pipeline time by two thirds, "
    "because unpacking hundreds of thousands of small files is dominated by metadata work on the runner disk.",
    "The cache key is the hash of the lock file alone, so that a change to any other file never throws the "
    "cache away, and jobs that only lint skip the install entirely and use a prebuilt image instead.",
    "Median pipeline time dropped from eleven minutes to under four, and the variance almost disappeared, "
    "since the slow restore step had also been the least predictable step of the whole pipeline run.",
    "If you cache dependencies in continuous integration, measure the restore step on its own: it is easy "
    "to assume a cache is free when it is in fact the slowest part of every single build you run.",
]


def _blog(middle):
    """An article whose second section the extractor's class rules would drop: a heading and a
    list with class names that read like chrome, between two of its paragraphs."""
    return page(
        "<nav><a href='/'>Home</a> <a href='/blog'>Blog</a></nav><main><article><h1>Faster CI</h1>"
        "<p>%s</p><p>%s</p>%s<p>%s</p><p>%s</p></article></main><footer>Copyright</footer>"
        % (ARTICLE_P[0], ARTICLE_P[1], middle, ARTICLE_P[2], ARTICLE_P[3]),
        "Faster CI",
    )


def test_a_code_block_comes_back_fenced_with_its_lines_whatever_wraps_it():
    code = "steps:\n  - uses: actions/cache@v4\n    with:\n      path: ~/.npm"
    lines = "".join("<span class='line'>%s</span>\n" % line for line in code.split("\n"))
    for block in ("<pre>%s</pre>" % code, "<div class='highlight'><pre><code>%s</code></pre></div>" % lines):
        md = extract(_blog(block), "https://example.org/2024/05/faster-ci", "markdown")["text"]
        assert "```\n" + code + "\n```" in md, (block, md)
        assert "Caching the package manager" in md and "Copyright" not in md


def test_one_example_in_two_flavours_comes_back_as_two_code_blocks():
    # Node.js's docs: one <pre> holds the ES-module and the CommonJS example, a toggle shows one
    mjs = "import { unlink } from 'node:fs/promises';\nawait unlink('/tmp/hello');"
    cjs = "const { unlink } = require('node:fs/promises');\nunlink('/tmp/hello');"
    block = (
        "<pre><input class='js-flavor-toggle' type='checkbox' checked><code class='language-js mjs'>%s</code>"
        "<code class='language-js cjs'>%s</code><button class='copy-button'>copy</button></pre>" % (mjs, cjs)
    )
    md = render_fragment(block, markdown=True)
    assert md.strip() == "```js\n%s\n```\n\n```js\n%s\n```" % (mjs, cjs), md
    # one <code> with text beside it stays one block
    md = render_fragment("<pre>$ <code>node app.js</code>\n<code>ok</code></pre>", markdown=True)
    assert md.strip() == "```\n$ node app.js\nok\n```", md


def test_a_list_and_a_heading_between_two_kept_paragraphs_are_the_articles():
    middle = (
        "<h2 class='widget-title'>What we changed</h2><ul class='share-links'>"
        "<li><a href='https://docs.npmjs.example/cache'>We cache the store</a></li><li>The key is the lock file</li>"
        "<li><a href='https://ci.example.net/lint'>Lint jobs skip the install</a></li></ul>"
    )
    md = extract(_blog(middle), "https://example.org/2024/05/faster-ci", "markdown")["text"]
    lines = md.split("\n")
    assert "## What we changed" in lines
    assert any(line.startswith("- ") and "We cache the store" in line for line in lines)
    # the same structure outside the article (the site's menu) is not
    assert "Home" not in md and "Copyright" not in md
    # nor a box of links to the site's own stories between the paragraphs
    related = "<h2>Related</h2><ul><li><a href='/2024/01/a'>Another story of ours</a></li><li><a href='/b'>And one more</a></li></ul>"
    md = extract(_blog(related), "https://example.org/2024/05/faster-ci", "markdown")["text"]
    assert "Another story" not in md and "And one more" not in md


def test_a_table_keeps_every_row_and_its_cells_blocks_joined():
    table = (
        "<table><tr><th>Step</th><th>Before</th><th>After</th></tr>"
        "<tr><td>restore</td><td><p>95 s</p><p>to 140 s</p></td><td>12 s</td></tr>"
        "<tr><td>install</td><td>38 s</td><td>38 s</td></tr><tr><td>test<br>(4 jobs)</td><td>7<br> min</td>"
        "<td>3 <br>min</td></tr></table>"
    )
    md = extract(_blog(table), "https://example.org/2024/05/faster-ci", "markdown")["text"]
    assert "| Step | Before | After |" in md
    assert "| restore | 95 s to 140 s | 12 s |" in md and "| install | 38 s | 38 s |" in md
    assert "| test (4 jobs) | 7 min | 3 min |" in md  # a line break in a cell is one space


def test_a_page_the_extractor_reads_as_one_paragraph_keeps_its_headings_and_lists():
    # the main content inside an unclosed menu item (broken markup): the extractor's own tree
    # is one paragraph of the whole page; the page's markup has the article's shape
    body = (
        "<ul class='menu'><li class='menu-item'><a href='/'>Home</a><div class='dropdown'><ul><li class='menu-item'>"
        "<main><article><h1>Faster CI</h1><p>%s</p><h2>Why</h2><p>%s</p><ul><li>one change</li>"
        "<li>another change</li></ul><h2>How</h2><p>%s</p><p>%s</p></article></main>"
    ) % tuple(ARTICLE_P)
    md = extract(page(body), "https://example.org/2024/05/faster-ci", "markdown")["text"]
    lines = md.split("\n")
    assert "## Why" in lines and "## How" in lines and "- one change" in lines


def test_the_url_never_outvotes_a_page_that_reads_as_an_article():
    html = _blog("<p>%s</p>" % ARTICLE_P[0].replace("Caching", "Storing"))
    neutral = extract(html, "https://example.org/faster-ci", "text")
    assert neutral["page_type"] == "article"
    for path in ("/p/", "/c/", "/t/", "/category/news/", "/search/", "/tag/", "/docs/", "/product/"):
        r = extract(html, "https://example.org%sfaster-ci" % path, "text")
        assert r["page_type"] == "article" and r["text"] == neutral["text"], path


def test_the_pages_own_url_still_breaks_a_tie_and_names_a_page_that_does_not_read_as_an_article():
    from worker.pages.extract.decide import page_type
    from worker.pages.extract.parse import parse

    # short labelled lines, no running text: the page's own (canonical) URL names it; the
    # path it was fetched at does not, wherever that is
    specs = page(
        "<main><h1>Kettle K2</h1>%s</main>" % "".join("<div>Spec %d: value %d</div>" % (i, i) for i in range(12))
    )
    own = "https://shop.example.org/p/kettle-k2"
    assert page_type(parse(specs), "https://example.org/kettle-k2", None, own)[0] == "product"
    assert page_type(parse(specs), own, None, own)[0] == "product"
    assert page_type(parse(specs), "https://example.org/p/kettle-k2", None)[0] == "article"
    assert page_type(parse(specs), "https://example.org/kettle-k2", None)[0] == "article"


def test_a_data_table_the_extractor_kept_is_read_back_cell_by_cell():
    # libxml2's text of a table glues one cell's last word to the next cell's first
    # ("MondayTuesday"): read cell by cell, a table that ends the article is the extractor's
    from lxml import html as lhtml

    from worker.pages.extract.project import project

    days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
    rows = [["Week"] + days] + [[str(w)] + ["Run easy %d min" % (10 * w + d) for d in range(5)] for w in range(1, 9)]
    table = "<table>%s</table>" % "".join("<tr>%s</tr>" % "".join("<td>%s</td>" % c for c in row) for row in rows)
    body = lhtml.fromstring(
        "<html><body><nav><a href='/'>Home</a></nav><article><p>%s</p><h2>The plan</h2>%s</article>"
        "<footer>Copyright</footer></body></html>" % (ARTICLE_P[0], table)
    ).find("body")
    text = "\n".join([ARTICLE_P[0], "The plan"] + [" | ".join(row) for row in rows])
    root = project(body, text, "https://example.org/plan")
    assert root is not None
    assert root.find(".//table") is not None and root.find(".//h2") is not None
    assert "Copyright" not in root.text_content() and "Home" not in root.text_content()


def test_a_heading_alone_in_a_cell_is_a_header_cell_and_a_heading_with_its_section_a_layout():
    # a review's table of platforms styles its header cells as <h3>: a data table, read back
    # as a table; a cell that holds a heading and its section's text is a layout's column
    from lxml import html as lhtml

    from worker.pages.extract.project import layout_table, project

    head = "<tr><td><h3>Platform</h3></td><td><h3>Rating</h3></td><td><h3>Feedback summary</h3></td></tr>"
    rows = [["Brighterly", "4.4/5", "Parents appreciate the tutors"], ["Preply", "4.3/5", "Good for languages"]]
    table = "<table>%s%s</table>" % (head, "".join("<tr>%s</tr>" % "".join("<td>%s</td>" % c for c in r) for r in rows))
    body = lhtml.fromstring(
        "<html><body><article><p>%s</p><h2>Ratings</h2>%s<p>%s</p></article></body></html>"
        % (ARTICLE_P[0], table, ARTICLE_P[1])
    ).find("body")
    assert not layout_table(body.find(".//table"))
    text = "\n".join([ARTICLE_P[0], "Ratings", "Platform", "Rating", "Feedback summary"] + [" ".join(r) for r in rows])
    root = project(body, text + "\n" + ARTICLE_P[1], "https://example.org/ratings")
    assert root is not None and root.find(".//table") is not None
    assert "| Platform | Rating | Feedback summary |" in render_fragment(lhtml.tostring(root, encoding=str))
    column = lhtml.fromstring("<table><tr><td><h2>News</h2><p>%s</p></td><td>Menu</td></tr></table>" % ARTICLE_P[0])
    assert layout_table(column)


def test_a_paragraph_of_lines_broken_by_br_is_found_in_the_extractors_text():
    # libxml2's text of "a<br>b" is "ab"; the extractor's text breaks the line: a list of
    # sources one per line was never found, and the article's headings were lost with it
    from lxml import html as lhtml

    from worker.pages.extract.project import project

    sources = ["https://example.net/source-%d/report-on-the-matter-%d.html" % (i, i) for i in range(12)]
    body = lhtml.fromstring(
        "<html><body><nav><a href='/'>Home</a></nav><article><p>%s</p><h2 class='blog_h2'>The figures</h2>"
        "<p>%s</p><p>Sources:</p><p>%s</p></article><footer>Copyright</footer></body></html>"
        % (ARTICLE_P[0], ARTICLE_P[1], "<br>".join(sources))
    ).find("body")
    text = "\n".join([ARTICLE_P[0], ARTICLE_P[1], "Sources:"] + sources)  # the extractor left the heading out
    root = project(body, text, "https://example.org/figures")
    assert root is not None and root.find(".//h2") is not None
    assert root.find(".//br") is not None and "Copyright" not in root.text_content()
    assert all(br.tail in sources for br in root.iter("br"))  # the page's own text, unchanged


def test_section_headings_trafilatura_dropped_are_put_back_before_what_they_head():
    from lxml import etree
    from lxml import html as lhtml

    from worker.pages.extract.headings import restore

    page = lhtml.fromstring(
        "<html><body><main><h1>Magnetic Mat</h1><p>A mat that holds screws while you work on a device.</p>"
        "<div class='tab'><h2 class='tab-title'>Specifications</h2><table><tr><td>Dimensions of the mat</td>"
        "<td>10 x 8 in</td></tr></table></div><h3>Magnetic Hold</h3><p>Nothing goes missing during a project.</p>"
        "<h2>Reviews</h2><p>Five stars from a reviewer whose text was left out.</p>"
        "<h2>Already there</h2><p>A heading trafilatura kept as a paragraph.</p></main></body></html>"
    )
    body = etree.fromstring(
        "<body><p>A mat that holds screws while you work on a device.</p>"
        "<table><row><cell>Dimensions of the mat</cell><cell>10 x 8 in</cell></row></table>"
        "<p>Nothing goes missing during a project.</p><p>Already there</p>"
        "<p>A heading trafilatura kept as a paragraph.</p></body>"
    )
    assert restore(page, body) == 4
    assert [(el.tag, el.get("rend"), "".join(el.itertext())[:20]) for el in body] == [
        ("head", "h1", "Magnetic Mat"),
        ("p", None, "A mat that holds scr"),
        ("head", "h2", "Specifications"),
        ("table", None, "Dimensions of the ma"),
        ("head", "h3", "Magnetic Hold"),
        ("p", None, "Nothing goes missing"),
        ("head", "h2", "Already there"),
        ("p", None, "A heading trafilatur"),
    ]  # "Reviews" heads text that is not there: left out
    assert restore(page, body) == 0  # each once


def test_a_docbook_title_alone_in_its_wrappers_heads_the_chapter():
    # DocBook XSL: div.titlepage > div > div > h1, then the chapter's first block; the
    # extractor kept the text, not the title
    from lxml import html as lhtml

    from worker.pages.extract.project import project

    body = lhtml.fromstring(
        "<html><body><div><table class='nav'><tr><td><a href='prev.html'>Prev</a></td></tr></table></div>"
        "<div class='chapter'><div class='titlepage'><div><div><h1 class='title'><a name='readme'></a>4. README"
        "</h1></div></div></div><div class='literallayout'><p>%s</p><p>%s</p></div></div>"
        "<div><table class='nav'><tr><td><a href='next.html'>Next</a></td></tr></table></div></body></html>"
        % (ARTICLE_P[0], ARTICLE_P[1])
    ).find("body")
    root = project(body, "\n".join(ARTICLE_P[:2]), "https://example.org/docs/dist.readme.html")
    assert root is not None and [h.text_content() for h in root.iter("h1")] == ["4. README"]
    assert "Prev" not in root.text_content() and "Next" not in root.text_content()
    # a title with more beside it in its wrapper (a byline) is not climbed
    body = lhtml.fromstring(
        "<html><body><header><div><h1>4. README</h1><span>by a writer</span></div></header>"
        "<main><p>%s</p><p>%s</p></main></body></html>" % (ARTICLE_P[0], ARTICLE_P[1])
    ).find("body")
    root = project(body, "\n".join(ARTICLE_P[:2]), "https://example.org/docs/dist.readme.html")
    assert root is not None and root.find(".//h1") is None


def test_a_table_holding_blocks_of_code_is_a_layout_its_code_fenced():
    # DocBook's questions and answers, or two programs side by side: no markdown cell holds a
    # block of code; a table whose cells are styled as headings stays a data table
    qa = (
        "<table summary='Q and A Div'><tr><td colspan='2'><h3>2. Compiling</h3></td></tr>"
        "<tr><td><b>2.1.</b></td><td><b>make dies with this:</b><pre>make[2]: *** [all] Error 1\n"
        "make: *** [all-recursive] Error 1</pre></td></tr></table>"
    )
    md = render_fragment(qa, markdown=True)
    assert "```\nmake[2]: *** [all] Error 1\nmake: *** [all-recursive] Error 1\n```" in md, md
    assert "### 2. Compiling" in md and "|" not in md.replace("\\|", ""), md
    prices = "<table><tr><td><h3>Undergraduate</h3></td><td><h3>$390</h3></td></tr><tr><td>Graduate</td><td>$580</td></tr></table>"
    md = render_fragment(prices, markdown=True)
    assert "| Undergraduate | $390 |" in md and "| Graduate | $580 |" in md, md


def test_a_table_of_one_row_of_lists_is_columns_its_lists_kept():
    # Sphinx's general index: one row, two cells, each a list of entries (a sub-list each)
    index = (
        "<table class='indextable genindextable'><tr>"
        "<td><ul><li>f-string</li><li>f_back<ul><li><a href='datamodel.html#i'>frame attribute</a></li></ul></li></ul></td>"
        "<td><ul><li>F_OK (in module os)</li><li>fabs() (in module math)</li></ul></td></tr></table>"
    )
    md = render_fragment(index, markdown=True)
    assert "- f-string\n- f_back\n  - [frame attribute](datamodel.html#i)\n" in md, md
    assert "- F_OK (in module os)\n- fabs() (in module math)" in md and "|" not in md, md
    # a data table with a list in a cell, over several rows, stays a table
    rows = "<table><tr><th>Plan</th><th>Has</th></tr><tr><td>Pro</td><td><ul><li>SSO</li></ul></td></tr></table>"
    md = render_fragment(rows, markdown=True)
    assert md.startswith("| Plan | Has |"), md


def test_a_list_docutils_indents_with_a_blockquote_is_the_list():
    # Sphinx: an indented list is blockquote > div > ul; an author's quoted list stays a quote
    md = render_fragment(
        "<p>Criteria:</p><blockquote><div><ul><li>numeric rows</li><li>longer strings</li></ul></div></blockquote>"
    )
    assert "Criteria:\n\n- numeric rows\n- longer strings" in md, md
    md = render_fragment("<blockquote><ul><li>numeric rows</li></ul></blockquote>")
    assert md.strip() == "> - numeric rows", md
    # a section's whole body indented (Python's howto/annotations.html): paragraphs, a list and
    # code, as they stand; "> - " lines were no list, and "> ```" no code block, to a reader
    md = render_fragment(
        "<blockquote><div><p>On an arbitrary object o:</p><ul><li>If o is a module, use its dict.</li></ul>"
        "<div class='highlight'><pre>ann = o.__dict__.get('__annotations__')</pre></div></div></blockquote>"
    )
    assert "On an arbitrary object o:\n\n- If o is a module, use its dict." in md, md
    assert "```\nann = o.__dict__.get('__annotations__')\n```" in md and ">" not in md, md
    # an example set in with a blockquote (nginx's blockquote.example, SQLite's) is the code block
    md = render_fragment(
        "<p>Example:</p><blockquote class='example'><pre>\nif ($slow) {\n    limit_rate 10k;\n}\n</pre></blockquote>"
    )
    assert "Example:\n\n```\nif ($slow) {\n    limit_rate 10k;\n}\n```" in md and ">" not in md.replace("$slow", ""), md
    # in what a person wrote (an answer quoting another's code), a quoted code block stays quoted
    md = render_fragment("<blockquote><pre>x = 1</pre></blockquote>", authored=True)
    assert md.strip() == "> ```\n> x = 1\n> ```", md
    # a docutils quote of prose stays a quote
    md = render_fragment("<blockquote><div><p>Beautiful is better than ugly.</p></div></blockquote>")
    assert md.strip() == "> Beautiful is better than ugly.", md


def test_a_sphinx_toctree_in_the_text_is_the_chapters_contents():
    # a chapter's page says one paragraph, then "documented in this chapter:" and its pages;
    # the sidebar's tree of the same links stays out
    mods = [("numbers", "Numeric abstract base classes"), ("math", "Mathematical functions"), ("cmath", "Complex math")]
    sub = "<ul><li><a href='%s.html#a'>Number</a></li><li><a href='%s.html#b'>Complex</a></li><li><a href='%s.html#c'>Real</a></li></ul>"
    toc = "".join(
        "<li class='toctree-l1'><a href='%s.html'><code>%s</code> — %s</a>%s</li>" % (m, m, t, sub % (m, m, m))
        for m, t in mods
    )
    side = "".join("<li><a href='%s.html'>%s</a></li>" % (m, m) for m, _ in mods)
    html = page(
        "<div class='body' role='main'><section><h1>Numeric and Mathematical Modules</h1><p>%s</p>"
        "<p>The following modules are documented in this chapter:</p><div class='toctree-wrapper compound'>"
        "<ul>%s</ul></div></section></div><div class='sphinxsidebar' role='navigation'><h3>Navigation</h3>"
        "<ul>%s</ul></div>" % (ARTICLE_P[0], toc, side),
        "Numeric and Mathematical Modules",
    )
    md = extract(html, "https://docs.example.org/3/library/numeric.html", "markdown")["text"]
    assert "- [`math` — Mathematical functions](https://docs.example.org/3/library/math.html)" in md, md
    assert "  - [Real](https://docs.example.org/3/library/cmath.html#c)" in md, md
    assert "Navigation" not in md and md.count("/math.html)") == 1, md


def test_the_heading_of_a_section_that_holds_only_its_heading_comes_with_the_next():
    # Sphinx: <section><h2>General questions</h2></section><section><h2>Which toolkits?</h2><p>...
    from lxml import html as lhtml

    from worker.pages.extract.project import project

    body = lhtml.fromstring(
        "<html><body><nav><a href='/'>Home</a></nav><main><section><h2>General questions</h2></section>"
        "<section><h2>Which toolkits exist?</h2><p>%s</p></section><section><h2>Tkinter</h2><p>%s</p>"
        "</section></main><footer>Copyright</footer></body></html>" % (ARTICLE_P[0], ARTICLE_P[1])
    ).find("body")
    root = project(body, "\n".join(ARTICLE_P[:2]), "https://example.org/faq/gui.html")
    assert root is not None
    assert [h.text_content() for h in root.iter("h2")] == ["General questions", "Which toolkits exist?", "Tkinter"]


def test_a_nested_list_survives_a_second_rendering_of_the_same_tree():
    # a region is rendered as text, then as markdown: the first rendering took the nested
    # lists out of their items and the markdown had none
    from lxml import html as lhtml

    from worker.pages.extract.render import render

    root = lhtml.fromstring(
        "<div><ul><li>Built with <b>React</b>:<ul><li>Extend it</li><li>Customize it</li></ul> and more</li>"
        "<li>Pluggable<ol><li>Bootstrap</li></ol></li></ul></div>"
    )
    before = lhtml.tostring(root)
    want = "- Built with **React**: and more\n  - Extend it\n  - Customize it\n- Pluggable\n  1. Bootstrap"
    assert render(root, markdown=True) == want
    assert render(root, markdown=False) and lhtml.tostring(root) == before
    assert render(root, markdown=True) == want


def test_a_table_of_contents_does_not_carry_the_reading_past_the_short_lines_after_it():
    # the extractor left the table of contents out; its entries repeat the sections' headings
    # further on in its text: found there, the reading went on past every short line between
    # (a "Pros:" line and its short items were lost)
    from lxml import html as lhtml

    from worker.pages.extract.project import project

    titles = ["How the cache key is computed from the lock file", "What the pipeline time was before and after"]
    toc = "<h2>Contents</h2><ul>%s</ul>" % "".join(
        "<li><a href='#s%d'>%s</a></li>" % (i, t) for i, t in enumerate(titles)
    )
    body = lhtml.fromstring(
        "<html><body><nav><a href='/'>Home</a></nav><article>%s<p>%s</p><p>%s</p><p><b>Pros:</b></p>"
        "<ul><li>Fewer files to unpack</li><li>One key for all jobs</li></ul>"
        "<h2 id='s0'>%s</h2><p>%s</p><h2 id='s1'>%s</h2><p>%s</p></article><footer>Copyright</footer></body></html>"
        % (toc, ARTICLE_P[0], ARTICLE_P[3], titles[0], ARTICLE_P[1], titles[1], ARTICLE_P[2])
    ).find("body")
    text = "\n".join(
        [ARTICLE_P[0], ARTICLE_P[3], "Pros:", "Fewer files to unpack", "One key for all jobs", titles[0], ARTICLE_P[1]]
        + [titles[1], ARTICLE_P[2]]
    )
    root = project(body, text, "https://example.org/cache")
    assert root is not None
    items = [li.text_content() for li in root.iter("li")]
    # the contents, right before the text, is kept as the page's map (contents.py); the reading
    # past it is not carried to the headings its entries repeat
    assert items == [*titles, "Fewer files to unpack", "One key for all jobs"], items
    assert "Pros:" in root.text_content() and len(root.findall(".//h2")) == 2


def test_a_line_the_text_says_only_at_its_end_does_not_carry_the_reading_there():
    # iRunFar: a "Back to our picks" link stands first in the page and again in the last
    # line; the extractor kept only the last. Found at the end of its text, the reading jumped
    # there, and every short line of the page ("Pros:" and its items) went unfound
    from lxml import html as lhtml

    from worker.pages.extract.project import project

    back = "Back to Our Best Trail Running Shoe Picks"
    body = lhtml.fromstring(
        "<html><body><div class='sticky'><a href='#picks'>%s</a></div><article><p>%s</p><p>%s</p>"
        "<p><b>Pros:</b></p><ul><li>Great traction</li><li>Improved fit</li></ul><p>%s</p>"
        "<p><a href='#picks'>%s</a> or share this guide</p></article></body></html>"
        % (back, ARTICLE_P[0], ARTICLE_P[1], ARTICLE_P[2], back)
    ).find("body")
    text = "\n".join(
        [
            ARTICLE_P[0],
            ARTICLE_P[1],
            "Pros:",
            "Great traction",
            "Improved fit",
            ARTICLE_P[2],
            back + " or share this guide",
        ]
    )
    root = project(body, text, "https://example.org/best-shoes")
    assert root is not None
    assert [li.text_content() for li in root.iter("li")] == ["Great traction", "Improved fit"]
    assert "Pros:" in root.text_content()


def test_a_section_heading_after_a_list_of_links_heads_the_kept_text_after_it():
    # the extractor left out the table of contents and the heading after it: the list stays out
    # (links to the page's own parts), the heading names the kept paragraph it stands before
    from lxml import html as lhtml

    from worker.pages.extract.project import project

    body = lhtml.fromstring(
        "<html><body><article><p>%s</p><ul><li><a href='#rates'>Rates</a></li><li><a href='#tips'>Tips</a></li>"
        "</ul><h2 id='rates'>Average hourly rates</h2><p>%s</p></article></body></html>" % (ARTICLE_P[0], ARTICLE_P[1])
    ).find("body")
    root = project(body, "\n".join(ARTICLE_P[:2]), "https://example.org/rates")
    assert root is not None
    assert [h.text_content() for h in root.iter("h2")] == ["Average hourly rates"]
    assert root.find(".//li") is None


def _projected(main, text):
    from lxml import html as lhtml

    from worker.pages.extract.project import project
    from worker.pages.extract.render import render

    body = lhtml.fromstring(
        "<html><body><nav><a href='/'>Home</a></nav><main><article>%s</article></main>"
        "<footer>Copyright</footer></body></html>" % main
    ).find("body")
    root = project(body, text, "https://example.org/2024/05/rentals")
    return None if root is None else render(root, markdown=True)


def test_a_list_a_kept_sentence_announces_is_the_sentences():
    # trafilatura keeps "Cons:" and drops the two items after it, the sentence's own list (a
    # box the extractor dropped too stands between them and the next kept paragraph)
    main = (
        "<p>%s</p><p>Cons:</p><ul><li>Higher fees for extras</li><li>Few offices abroad</li></ul>"
        "<div class='related'>Related: how to save on rentals</div><p>%s</p>"
    )
    md = _projected(main % (ARTICLE_P[0], ARTICLE_P[1]), "\n".join((ARTICLE_P[0], "Cons:", ARTICLE_P[1])))
    assert md is not None and "- Higher fees for extras\n- Few offices abroad" in md, md
    # a list of links after "You may also like:" is a box of stories, not the sentence's
    stories = "<li><a href='https://news.example.net/a'>Another story</a></li><li><a href='/b'>One more</a></li>"
    main = "<p>%s</p><p>%s</p><p>You may also like:</p><ul>%s</ul>" % (ARTICLE_P[0], ARTICLE_P[1], stories)
    md = _projected(main, "\n".join((ARTICLE_P[0], ARTICLE_P[1], "You may also like:")))
    assert md is not None and "Another story" not in md and "One more" not in md, md
    # links elsewhere after "Here's a selection:" are the text's; links to the site's own
    # pages after it are its box of stories
    courses = "<li><a href='https://learn.example.net/seo'>Become an SEO Expert</a></li>"
    courses += "<li><a href='https://learn.example.net/ppc'>Paid Search Basics</a></li>"
    main = "<p>%s</p><p>%s</p><p>Here's a selection:</p><ul>%s</ul>"
    said = "\n".join((ARTICLE_P[0], ARTICLE_P[1], "Here's a selection:"))
    md = _projected(main % (ARTICLE_P[0], ARTICLE_P[1], courses), said)
    assert md is not None and "Become an SEO Expert" in md and "Paid Search Basics" in md, md
    own = courses.replace("https://learn.example.net/", "/2024/05/")
    md = _projected(main % (ARTICLE_P[0], ARTICLE_P[1], own), said)
    assert md is not None and "Become an SEO Expert" not in md, md
    # nor a list that no colon announces
    main = "<p>%s</p><p>Our picks.</p><ul><li>Higher fees for extras</li></ul>" % ARTICLE_P[0]
    md = _projected(main, "\n".join((ARTICLE_P[0], "Our picks.")))
    assert md is not None and "Higher fees" not in md, md


def test_a_long_list_of_prose_the_extractor_dropped_between_kept_paragraphs_is_read():
    # trafilatura's precision rules drop a post's lists of prose whole ("Fixed Switches: ...");
    # restored between the kept paragraphs, they outweighed the extractor's words and the
    # page's markup was refused (MORE): its tree came back without them. A menu of links so
    # placed still counts against MORE.
    item = "<li><span></span>Point %d: a hot-swappable board lets you pull a switch and push in another one in seconds.</li>"
    items = "".join(item % n for n in range(12))
    main = "<p>%s</p><p>This meant:</p><ul>%s</ul><p>%s</p><ul>%s</ul><p>%s</p>" % (
        ARTICLE_P[0],
        items,
        ARTICLE_P[1],
        items.replace("Point", "Reason"),
        ARTICLE_P[0],
    )
    md = _projected(main, "\n".join((ARTICLE_P[0], "This meant:", ARTICLE_P[1], ARTICLE_P[0])))
    assert md is not None and "- Point 11: a hot-swappable" in md and "- Reason 11: a hot-swappable" in md, md
    links = "".join(
        "<li><a href='https://blog%d.example.net/'>Favorite creativity blog number %d</a></li>" % (n, n)
        for n in range(40)
    )
    main = "<p>%s</p><ul>%s</ul><p>%s</p>" % (ARTICLE_P[0], links, ARTICLE_P[1])
    assert _projected(main, "\n".join((ARTICLE_P[0], ARTICLE_P[1]))) is None


def test_a_sections_heading_heads_its_text_past_a_figure():
    # WordPress: <h2>, then div.wp-block-image > figure > img + figcaption, then the text
    figure = "<div class='wp-block-image'><figure><img src='/a.png'><figcaption>Image credit: Alamo</figcaption></figure></div>"
    main = "<p>%s</p><h2>Alamo Rent a Car</h2>%s<p>%s</p>" % (ARTICLE_P[0], figure, ARTICLE_P[1])
    md = _projected(main, "\n".join(ARTICLE_P[:2]))
    assert md is not None and "## Alamo Rent a Car" in md.split("\n"), md
    assert "Image credit" not in md  # the caption the extractor left out stays out
    # a heading whose next block is not its section's kept text still does not come back
    main = "<p>%s</p><h2>Alamo Rent a Car</h2>%s<p>Subscribe to our letter</p><p>%s</p>" % (
        ARTICLE_P[0],
        figure,
        ARTICLE_P[1],
    )
    md = _projected(main, "\n".join(ARTICLE_P[:2]))
    assert md is not None and "Alamo Rent a Car" not in md, md


def test_a_list_put_straight_in_a_list_is_not_lost():
    # Squarespace writes ul > ul (no <li> between): a browser shows the inner list indented
    md = render_fragment(
        "<ol><li><p>Edible art</p><ul><ul><li><p>Boards</p></li><li><p>Carved fruit</p></li></ul></ul></li></ol>"
    )
    assert md == "1. Edible art\n  - Boards\n  - Carved fruit", md
    assert render_fragment("<ul><ul><li>a</li><li>b</li></ul></ul>") == "- a\n- b"


def test_a_list_of_one_item_stays_a_list_when_the_page_is_read_back():
    # DocBook cites one paper in a list of one item; only a list pruned to one item that holds
    # the kept blocks (a menu's unclosed item around the page) is no list
    cite = "<div class='itemizedlist'><ul><li><p><strong>Valgrind: A Framework for Heavyweight Dynamic Binary Instrumentation.</strong></p></li></ul></div>"
    main = "<p>%s</p>%s<p>%s</p>" % (ARTICLE_P[0], cite, ARTICLE_P[1])
    text = "\n".join(
        (ARTICLE_P[0], "Valgrind: A Framework for Heavyweight Dynamic Binary Instrumentation.", ARTICLE_P[1])
    )
    md = _projected(main, text)
    assert md is not None and "- **Valgrind: A Framework for Heavyweight Dynamic Binary Instrumentation.**" in md.split(
        "\n"
    ), md
    # a menu's unclosed item around the whole article (one item from the start) is no list
    wrapped = "<ul class='menu'><li><a href='/'>Home</a><p>%s</p><h2>Why</h2><p>%s</p></li></ul>"
    md = _projected(wrapped % (ARTICLE_P[0], ARTICLE_P[1]), "\n".join((ARTICLE_P[0], "Why", ARTICLE_P[1])))
    assert md is not None and "## Why" in md.split("\n") and not md.startswith("-"), md


def test_a_list_of_links_to_api_names_is_the_texts_not_a_menu():
    # Python's c-api/init.html: "The following functions can be safely called before Python is
    # initialized:" and a list of links whose text is code; a menu's entries are words
    from lxml import html as lhtml

    from worker.pages.extract import region
    from worker.pages.extract.project import site_links

    code = "".join(
        "<li><p><a class='reference internal' href='/settings/#%s'><code><span class='pre'>%s</span></code></a></p></li>"
        % (n, n)
        for n in ("SECURE_CONTENT_TYPE_NOSNIFF", "SECURE_HSTS_SECONDS", "SECURE_REFERRER_POLICY")
    )
    menu = "".join("<li><a href='/%s/'>%s</a></li>" % (w.lower(), w) for w in ("Guides", "Reference", "Blog"))
    root = lhtml.fromstring(
        "<div><p>%s</p><p>The middleware reads these settings:</p><ul class='simple'>%s</ul><ul>%s</ul><p>%s</p></div>"
        % (ARTICLE_P[0], code, menu, ARTICLE_P[1])
    )
    region.prune_chrome(root)
    kept = [li.text_content() for li in root.iter("li")]
    assert kept == ["SECURE_CONTENT_TYPE_NOSNIFF", "SECURE_HSTS_SECONDS", "SECURE_REFERRER_POLICY"], kept
    # the article path: a list of code references is no box of the site's stories
    item = lhtml.fromstring("<li><a href='https://example.org/settings/#x'><code>SECURE_HSTS_SECONDS</code></a></li>")
    story = lhtml.fromstring("<li><a href='https://example.org/2024/05/other'>Another story of ours</a></li>")
    assert not site_links(item, "example.org") and site_links(story, "example.org")


def test_an_element_named_a_menu_that_holds_prose_is_content():
    # Webflow's tab component: an FAQ's questions and their answers inside "faq_tabs-menu"; a menu
    # holds links, and a sidebar or a footer named as such stays chrome whatever it holds
    from lxml import html as lhtml

    from worker.pages.extract import region

    faq = (
        "<div class='faq_tabs-menu'><div class='faq_tabs-menu-link'><h3>How does identity theft happen?</h3>"
        "<div class='faq_tabs-mobile'><p>Identity theft happens when someone misuses your personal or financial"
        " information to make purchases, obtain benefits or file taxes.</p><ol><li>Financial fraud</li>"
        "<li>Medical identity theft</li></ol></div></div><div class='faq_tabs-menu-link'><h3>How do you report it?"
        "</h3><p>Contact the fraud departments of the companies where you noticed charges you did not make, and"
        " place a fraud alert with a credit bureau.</p></div></div>"
    )
    menu = "<div class='site-menu'>%s</div>" % "".join(
        "<p><a href='/%d'>Section number %d of the site</a></p>" % (n, n) for n in range(3)
    )
    sidebar = "<div class='sidebar'><p>%s</p><p>%s</p></div>" % (ARTICLE_P[1], ARTICLE_P[1])
    article = "<p>%s</p>" % ARTICLE_P[0] * 4
    root = lhtml.fromstring("<div>%s%s%s%s%s</div>" % (article, faq, menu, sidebar, article))
    region.prune_chrome(root)
    text = root.text_content()
    assert "Financial fraud" in text and "place a fraud alert" in text, text
    assert "Section number" not in text and ARTICLE_P[1] not in text, text


def test_an_entrys_header_in_an_article_is_its_title_not_the_sites_banner():
    # a listicle's products: <article><header><h3>Navee GT3</h3></header>...; HTML gives a header
    # inside an article or a section no banner role. The site's header, and an article's title
    # block (its h1, byline and date), are still chrome.
    from lxml import html as lhtml

    from worker.pages.extract import region

    entry = "<article class='listicle-item'><header><h3><a href='/p/%s'>%s</a></h3><span>Best value</span></header><p>%s</p></article>"
    root = lhtml.fromstring(
        "<div><header><a href='/'>Home</a> <a href='/shop'>Shop</a></header>"
        "<article><header><h1>Best scooters</h1><span>By Ann Lee, May 2025</span></header><p>%s</p>%s%s</article></div>"
        % (ARTICLE_P[0], entry % ("gt3", "Navee GT3", ARTICLE_P[1]), entry % ("kqi", "NIU KQi 100F", ARTICLE_P[1]))
    )
    region.prune_chrome(root)
    heads = [h.text_content() for h in root.iter("h3")]
    assert heads == ["Navee GT3", "NIU KQi 100F"], heads
    text = root.text_content()
    assert "Home" not in text and "By Ann Lee" not in text, text


def test_an_article_with_its_comments_is_an_article_on_a_tie_with_a_forum():
    # a blog post that says it is an article (og:type) with as many words again in signed, dated
    # comments: the comments' run makes it a forum as much as its og:type an article, and a page
    # of running prose is the article (its comments follow it), not a thread without posts
    from worker.pages.extract.decide import page_type
    from worker.pages.extract.parse import parse

    comment = (
        "<li class='comment'><div class='comment-author'>Reader %d</div><time>August %d, 2025 at 9:%02d am</time>"
        "<p>Thanks for the review of the calculators; I have used two of them for years and I agree"
        " with most of what you found about their limits and their prices.</p></li>"
    )
    comments = "<ol class='comment-list'>%s</ol>" % "".join(comment % (n, n + 1, n) for n in range(8))
    html = page(
        "<main><article><h1>Retirement calculators</h1>%s</article><section id='comments'>%s</section></main>"
        % ("".join("<p>%s</p>" % p for p in ARTICLE_P), comments)
    )
    kind, _, _ = page_type(parse(html), "https://example.org/best-retirement-calculators/", "article")
    assert kind == "article"
    # without the page's own word for it, the comments' run still names a forum
    assert page_type(parse(html), "https://example.org/best-retirement-calculators/", None)[0] == "forum"


def test_a_long_table_of_contents_is_read_once_not_once_an_entry(monkeypatch):
    # each entry asks whether its list is a table of contents: asked once per list, a list of
    # thousands of entries (a pathological page) costs one pass over its links, not one per entry
    from lxml import html as lhtml

    from worker.pages.extract import project

    calls = []
    real = project.is_contents
    monkeypatch.setattr(project, "is_contents", lambda el, ids: calls.append(el) or real(el, ids))
    n = 300
    toc = "<ul>%s</ul>" % "".join("<li><a href='#s%d'>Section number %d</a></li>" % (i, i) for i in range(n))
    sections = "".join("<h2 id='s%d'>Section number %d</h2>" % (i, i) for i in range(n))
    body = lhtml.fromstring(
        "<html><body><article><p>%s</p>%s<p>%s</p>%s</article></body></html>"
        % (ARTICLE_P[0], toc, ARTICLE_P[1], sections)
    ).find("body")
    items, _ = project.units(body)
    keep = project.chosen(items, ARTICLE_P[0] + "\n" + ARTICLE_P[1])
    entries = [k for (el, _, _), k in zip(items, keep) if el.tag == "li"]
    assert len(entries) == n and all(entries)  # kept: between two kept paragraphs
    assert len(calls) == 1


def test_a_line_is_found_in_the_text_node_the_xpath_of_contains_finds():
    # project.span finds the extractor's first and last lines in the page's text nodes,
    # read once and searched by str.find: the same element as libxml2's contains() on each
    # node, also where a line is in a tail, in several nodes, or across two
    import random

    from lxml import html as lh

    from worker.pages.extract import project

    def reference(body, probe):
        hits = body.xpath("descendant::text()[contains(., $p)]", p=probe)
        return hits[0].getparent() if len(hits) == 1 else None

    rng = random.Random(3)
    words = ["alpha", "beta", "gamma", "delta", "é", "日本", "x"]
    checked = found = 0
    for _ in range(60):
        parts = []
        for _ in range(rng.randint(3, 12)):
            tag = rng.choice(["p", "b", "span", "li", "div"])
            inner = " ".join(rng.choice(words) for _ in range(rng.randint(0, 5)))
            tail = " ".join(rng.choice(words) for _ in range(rng.randint(0, 3)))
            parts.append("<%s>%s</%s>%s" % (tag, inner, tag, tail))
        body = lh.fromstring("<html><body><div>%s</div></body></html>" % "".join(parts)).find(".//body")
        nodes = project._TextNodes(body)
        texts = body.xpath("descendant::text()")
        probes = {t[i : i + n] for t in texts for i in range(0, len(t), 3) for n in (1, 5, 11)}
        probes |= {a[-4:] + b[:4] for a, b in zip(texts, texts[1:])}  # across two nodes: in neither
        for probe in sorted(probes):
            want = reference(body, probe)
            assert nodes.only(probe) is want, probe
            checked += 1
            found += want is not None
    assert checked > 1000 and found > 200
