"""A page over the work budget (a whole manual on one page) keeps its shape: headings,
code blocks, list items and data tables, read at C speed (worker/pages/extract/budget_text.py)."""

import re

import pytest

from worker.pages.extract import budget_text
from worker.pages.extract.core import extract
from worker.pages.extract.parse import MAX_NODES

LONG_CELL = "A layout cell holds a paragraph of prose, not a value. " * 12


def manual(extra=""):
    """A manual page past MAX_NODES elements (empty inline elements: no text of their own)."""
    return (
        "<html><head><title>Manual</title></head><body>"
        '<nav><a href="/">Home</a> <a href="/other">Other pages</a></nav><main>'
        '<h1>Manual<a class="headerlink" href="#manual">\u00b6</a></h1>'
        "<p>Intro text with *stars* and a_b_c.</p>"
        '<h2>Install<span><a class="mark" href="#install">#</a></span></h2>'
        '<pre><code class="language-python">def f(x):\n    return x  # kept indented\n</code></pre>'
        '<ol start="3"><li>third</li><li><p>fourth</p></li></ol>'
        "<ul><li>apple</li><li>pear</li></ul>"
        "<table><tr><th>Option</th><th>Default</th></tr><tr><td>timeout</td><td>30 | s</td></tr></table>"
        "<table><tr><td>%s</td><td>x</td></tr><tr><td>a</td><td>b</td></tr></table>"
        "<h3>C#</h3>"
        "<p>Text with a noncharacter \ufdd0 inside.</p>%s"
        "<p>filler%s</p></main></body></html>" % (LONG_CELL, extra, "<i></i>" * (MAX_NODES + 1000))
    )


def test_a_page_over_the_budget_keeps_headings_code_lists_and_tables_in_markdown():
    r = extract(manual(), "http://docs.example/manual.html", fmt="markdown")
    text = r["text"]
    assert r["extractor"] == "budget", r["extractor"]
    assert any("too large to analyse" in w for w in r["warnings"])
    assert text.startswith("# Manual\n\n"), text[:200]  # the permalink's mark is gone
    assert "\n## Install\n" in text and "Install#" not in text
    assert "\n### C#\n" in text  # a '#' that is the heading's own text stays
    assert "```python\ndef f(x):\n    return x  # kept indented\n```" in text
    assert "3. third\n4. fourth" in text
    assert "- apple\n- pear" in text
    assert "| Option | Default |\n|---|---|\n| timeout | 30 \\| s |" in text
    assert "Intro text with \\*stars\\* and a_b_c." in text
    # the layout table's long cell stays a paragraph, not a table row
    assert LONG_CELL.split(".")[0] in text and "| " + LONG_CELL[:20] not in text
    assert "Home" not in text and "Other pages" not in text  # the navigation landmark
    assert "\ufdd0" not in text and "Text with a noncharacter inside." in text


def test_text_and_html_formats_keep_the_same_shape():
    text = extract(manual(), "http://docs.example/manual.html", fmt="text")["text"]
    assert "def f(x):\n    return x  # kept indented" in text
    assert "third\nfourth" in text and "apple\npear" in text
    assert "Option | Default\ntimeout | 30 | s" in text
    assert "```" not in text and "## " not in text
    html = extract(manual(), "http://docs.example/manual.html", fmt="html")["text"]
    assert "<h2>Install</h2>" in html
    assert "<pre><code>def f(x):\n    return x  # kept indented</code></pre>" in html
    assert "<ol><li>third</li><li>fourth</li></ol>" in html and "<ul><li>apple</li><li>pear</li></ul>" in html
    assert "<tr><td>timeout</td><td>30 | s</td></tr>" in html


def test_a_code_block_of_many_elements_is_read_by_lxml_and_the_shaped_blocks_are_bounded(monkeypatch):
    spans = (
        "<pre>" + "".join("<span>line %d</span>\n" % i for i in range(budget_text.MAX_CODE_ELEMENTS + 10)) + "</pre>"
    )
    text = extract(manual(spans), "http://docs.example/manual.html", fmt="markdown")["text"]
    assert "```\nline 0\nline 1\n" in text and "line %d\n```" % (budget_text.MAX_CODE_ELEMENTS + 9) in text
    # past MAX_SHAPED code blocks and tables, the rest read as paragraphs (as before)
    monkeypatch.setattr(budget_text, "MAX_SHAPED", 1)
    text = extract(manual(), "http://docs.example/manual.html", fmt="markdown")["text"]
    assert "```python\ndef f(x):" in text  # the first in page order
    assert "| Option | Default |" not in text and "\n\nOption\n\nDefault\n\ntimeout\n\n" in text


def test_a_code_block_in_a_data_tables_cell_is_read_with_its_cell():
    cell = "<table><tr><th>call</th><th>gives</th></tr><tr><td><pre>f(1)</pre></td><td>2</td></tr></table>"
    text = extract(manual(cell), "http://docs.example/manual.html", fmt="markdown")["text"]
    assert "| call | gives |\n|---|---|\n| f(1) | 2 |" in text
    assert "```\nf(1)\n```" not in text
    # in a layout's table, a code block is one of its own
    layout = "<table><tr><td>%s<pre>g(2)</pre></td><td>x</td></tr><tr><td>a</td><td>b</td></tr></table>" % LONG_CELL
    assert "```\ng(2)\n```" in extract(manual(layout), "http://docs.example/manual.html", fmt="markdown")["text"]


@pytest.mark.parametrize("fmt", ["markdown", "text", "html"])
def test_marks_in_a_pages_own_text_never_make_structure(fmt):
    """The marks are Unicode noncharacters; a page that writes them anyway gets plain text."""
    own = "<p>\ufdd0" + "2 not a heading</p><p>\ufdd1-\ufdd1 not an item</p><p>\ufdd20\ufdd2</p>"
    text = extract(manual(own), "http://docs.example/manual.html", fmt=fmt)["text"]
    assert "2 not a heading" in text and "not an item" in text
    if fmt == "markdown":  # the page's own "- " is escaped, as any paragraph's
        assert "\n\\- not an item" in text and not re.search(r"^(#+ 2 not|- not an item)", text, re.M)
    assert "<h2>2 not" not in text and "<li>not an item" not in text and "<li>- not" not in text
    assert not any(c in text for c in "\ufdd0\ufdd1\ufdd2")


def test_a_page_past_the_tree_bound_keeps_headings_code_and_items_by_regular_expressions():
    """Past linear.MAX_ELEMENTS start tags no tree is built (linear.py); the same marks make
    its headings, code blocks and list items, and its character references are decoded."""
    from worker.pages.extract import linear

    filler = "<b></b>" * (linear.MAX_ELEMENTS + 1000)
    spans = "".join('<span class="k">line</span> <span>%d</span><br>' % i for i in range(3))
    html = (
        "<html><head><title>Source &amp; docs</title></head><body><h2 id=x>Module &lt;io&gt;</h2>"
        "<p>Some &amp; text.</p><pre class=code>def f(x):\n    return x &lt; 1\n</pre>"
        "<pre>%s</pre><ul><li>one</li><li>two &amp; three</li></ul>"
        "<p>&#xfdd0;2 not a heading</p><pre>unclosed %s</body></html>" % (spans, filler)
    )
    assert linear.too_many_elements(html)
    r = linear.extract(html, "markdown")
    text = r["text"]
    assert r["extractor"] == "budget" and r["title"] == "Source & docs"
    assert "\n\n## Module &lt;io>\n\nSome & text.\n\n" in text, text[:200]  # markdown's own escape of "<"
    assert "```\ndef f(x):\n    return x < 1\n```" in text
    assert "```\nline 0\nline 1\nline 2\n```" in text
    assert "- one\n- two & three" in text
    assert "\n2 not a heading" in text and "\ufdd0" not in text
    assert "unclosed" in text  # a block without its end tag is text
    assert "def f(x):\n    return x < 1" in linear.extract(html, "text")["text"]
