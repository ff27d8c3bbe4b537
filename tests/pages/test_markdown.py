"""Markdown a model can copy from: escaped only where CommonMark would read markup.

The property: for real pages and generated ones, the markdown output parsed by a
real CommonMark parser (markdown-it-py) yields the same words, in the same order,
as the plain-text output. Over-escaping shows up as stray backslashes in the
parsed text; under-escaping as words eaten by emphasis, links, entities, raw
HTML or list numbering.
"""

import html as htmllib
import os
import re

import pytest
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from worker.pages.extract.core import extract
from worker.pages.extract.escape import escape_line_start, md_escape
from worker.pages.extract.render import render_fragment

PAGES = os.path.join(ROOT, "tests", "fixtures", "pages")
WORD = re.compile(r"\w+")
MD = MarkdownIt("commonmark")


def parsed_words(markdown):
    """\\w+ words of what a CommonMark reader sees (text and code; not URLs, not raw HTML)."""
    out = []
    for tok in MD.parse(markdown):
        if tok.type in ("fence", "code_block"):
            out.append(tok.content)
        elif tok.type == "inline":
            # inline pieces sit side by side: "[Home](/)[Desks](/d)" reads "HomeDesks"
            out.append(
                "".join(
                    c.content
                    if c.type in ("text", "code_inline")
                    else " "
                    if c.type in ("softbreak", "hardbreak")
                    else ""
                    for c in tok.children or ()
                )
            )
        out.append(" ")
    return WORD.findall("".join(out))


def text_words(text):
    return WORD.findall(text)


def assert_same_words(html, url="https://example.com/page"):
    md = extract(html, url=url, fmt="markdown")
    txt = extract(html, url=url, fmt="text")
    assert md["extractor"] == txt["extractor"]
    got, want = parsed_words(md["text"]), text_words(txt["text"])
    if got != want:
        i = next((k for k, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        raise AssertionError(
            "markdown reads differently from text at word %d: %r vs %r\n--- markdown:\n%s"
            % (i, got[max(0, i - 5) : i + 5], want[max(0, i - 5) : i + 5], md["text"][:3000])
        )


# ------------------------------------------------------------------ unit cases


@pytest.mark.parametrize(
    "raw,escaped",
    [
        ("snake_case_name and SEARCH_DONE", "snake_case_name and SEARCH_DONE"),
        ("__init__", "\\_\\_init\\_\\_"),
        ("_private", "\\_private"),
        ("2 * 3 = 6", "2 * 3 = 6"),
        ("a*b*c", "a\\*b\\*c"),
        ("arr[0] and [x](y)", "arr[0] and \\[x](y)"),
        ("<b> and a < b", "&lt;b> and a < b"),
        ("Option<T> and </div>", "Option&lt;T> and &lt;/div>"),
        ("&amp; and AT&T", "\\&amp; and AT&T"),
        ("C:\\path and \\*", "C:\\path and \\\\\\*"),
    ],
)
def test_md_escape(raw, escaped):
    assert md_escape(raw) == escaped


@pytest.mark.parametrize(
    "line,escaped",
    [
        ("# not a heading", "\\# not a heading"),
        ("1. not a list", "1\\. not a list"),
        ("2) not a list", "2\\) not a list"),
        ("- not a bullet", "\\- not a bullet"),
        ("> not a quote", "\\> not a quote"),
        ("#hashtag stays", "#hashtag stays"),
        ("1.5 million", "1.5 million"),
        ("---", "\\---"),
    ],
)
def test_escape_line_start(line, escaped):
    assert escape_line_start(line) == escaped


def test_identifiers_stay_readable_in_fetched_markdown():
    page = (
        "<html><head><meta property='og:type' content='article'></head><body><article><h1>API notes</h1>"
        + "<p>Call get_user_name() and wait for SEARCH_DONE before reading MAX_RETRY_COUNT; "
        "the payload_size_bytes field is optional. More words follow to make this an article.</p>"
        * 6
        + "</article></body></html>"
    )
    md = extract(page, fmt="markdown")["text"]
    assert "get_user_name()" in md and "SEARCH_DONE" in md and "payload_size_bytes" in md
    assert "\\_" not in md


# ------------------------------------------------------------------ real pages


def _fixture_pages():
    out = []
    for name in sorted(os.listdir(PAGES)):
        if name.endswith(".html"):
            with open(os.path.join(PAGES, name), encoding="utf-8") as f:
                out.append(pytest.param(f.read(), id=name[:-5]))
    return out


@pytest.mark.parametrize("html", _fixture_pages())
def test_fixture_pages_read_the_same_in_markdown_and_text(html):
    assert_same_words(html)


def _shared_pages():
    from conftest import shared_data_missing
    from fakes import corpus_server as cs

    why = shared_data_missing()  # a fresh clone has no ../shared: one line says what is skipped (CI fails)
    if why:
        return [pytest.param(None, None, id="shared-pages", marks=pytest.mark.skip(reason="real pages: %s" % why))]
    rows = cs.wcxb_rows()
    picked = []
    for kind in sorted({r["page_type"] for r in rows}):
        picked += [r for r in rows if r["page_type"] == kind][10:14]
    return [pytest.param(r["id"], r["url"], id="wcxb-%s-%s" % (r["page_type"], r["id"])) for r in picked]


@pytest.mark.slow
@pytest.mark.parametrize("page_id,url", _shared_pages())
def test_real_pages_read_the_same_in_markdown_and_text(page_id, url):
    from fakes import corpus_server as cs

    assert_same_words(cs.wcxb_page(page_id).decode("utf-8", "replace"), url)


# ------------------------------------------------------------------ generated pages

TRICKY = [
    "snake_case_name",
    "SEARCH_DONE",
    "__init__",
    "_x_",
    "*",
    "**",
    "a*b",
    "2 * 3",
    "[x](y)",
    "[ref]:",
    "arr[0]",
    "![img](src)",
    "<b>",
    "</i>",
    "<!--",
    "&amp;",
    "&#65;",
    "AT&T",
    "`code`",
    "``",
    "\\",
    "\\*",
    "1.",
    "2)",
    "#",
    "##",
    ">",
    "-",
    "+",
    "---",
    "===",
    "~~~",
    "```",
    "|",
    "http://x.example/a_b",
    "<http://y.example>",
    "_",
    "~",
    "^",
    "$",
    "%",
]
WORDS = ["alpha", "beta", "gamma", "delta", "words", "text", "value", "42", "item"]

piece = st.one_of(st.sampled_from(TRICKY), st.sampled_from(WORDS))
sentence = st.lists(piece, min_size=3, max_size=14).map(" ".join)


@st.composite
def page(draw):
    blocks = []
    for _ in range(draw(st.integers(3, 8))):
        kind = draw(st.sampled_from(["p", "p", "li", "h2", "td", "p-start"]))
        s = htmllib.escape(draw(sentence))
        if kind == "li":
            blocks.append("<ul><li>%s</li><li>%s</li></ul>" % (s, htmllib.escape(draw(sentence))))
        elif kind == "h2":
            blocks.append("<h2>%s</h2>" % s)
        elif kind == "td":
            blocks.append("<table><tr><td>%s</td><td>alpha</td></tr></table>" % s)
        elif kind == "p-start":
            blocks.append("<p>%s %s</p>" % (htmllib.escape(draw(st.sampled_from(TRICKY))), s))
        else:
            blocks.append("<p>%s</p>" % s)
    filler = "<p>%s</p>" % ("Plain words that make the page long enough to be read as content. " * 8)
    return "<html><body><article>%s%s%s</article></body></html>" % (filler, "".join(blocks), filler)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(page())
def test_generated_pages_read_the_same_in_markdown_and_text(html):
    assert_same_words(html)


def test_an_api_post_body_keeps_what_its_author_wrote():
    """render_fragment, as the Stack Exchange adapter reads a post (authored): images, line
    breaks, list numbers and quote marks kept, in text too; a link loose beside the
    paragraphs still a link; a control character dropped."""
    body = (
        '<a href="https://x.example/">A link</a> before <p>one<br>two</p>'
        '<p><a href="https://i.example/s.png"><img src="https://i.example/s.png" alt="shot [1]"></a></p>'
        '<pre class="lang-py s-code-block"><code>x = 1\n</code></pre>'
        "<ol><li>first</li><li>second</li></ol><blockquote><p>quoted</p></blockquote>\x01"
    )
    assert render_fragment(body, True, authored=True) == (
        "[A link](https://x.example/) before\n\none  \ntwo\n\n"
        "[![shot \\[1\\]](https://i.example/s.png)](https://i.example/s.png)\n\n```py\nx = 1\n```\n\n"
        "1. first\n2. second\n\n> quoted"
    )
    assert render_fragment(body, False, authored=True) == (
        "A link before\n\none\ntwo\n\n[shot [1]]\n\nx = 1\n\n1. first\n2. second\n\n> quoted"
    )
    # on a page they are layout: the image left out, the <br> a space, the list and quote bare lines
    assert render_fragment(body, False) == "A link before\n\none two\n\nx = 1\n\nfirst\nsecond\n\nquoted"
    assert render_fragment(" \x00 ", True) == ""


def test_space_at_an_emphasis_edge_goes_outside_its_marks():
    # Sphinx writes "<em class='property'>class </em>name": "*class *" is no emphasis to
    # CommonMark, and a reader sees the asterisks
    md = render_fragment("<p><em class='property'>class </em>concurrent.futures.Executor(<em>max_workers</em>)</p>")
    assert md == "*class* concurrent.futures.Executor(*max_workers*)"
    assert render_fragment("<p>a<b> bold </b>b and <b>c <i>d </i></b>e</p>") == "a **bold** b and **c *d*** e"


def test_an_address_is_linked_once_and_later_links_to_it_are_their_text():
    ref = "https://docs.example.org/library/logging.html#logging.Logger.debug"
    other = "https://docs.example.org/library/warnings.html"
    html = (
        "<p>Call <a href='%s'><code>debug()</code></a> for detail.</p>"
        "<ul><li>A list item names <a href='%s'>debug</a> again.</li><li><a href='%s'>warnings</a></li></ul>"
        "<table><tr><th>Task</th><th>Tool</th></tr><tr><td>Detail</td><td><a href='%s'>debug()</a></td></tr>"
        "<tr><td>Warn</td><td><a href='%s'>warn()</a></td></tr></table>"
    ) % (ref, ref, other, ref, other)
    md = render_fragment(html)
    assert md.count("](%s)" % ref) == 1 and md.count("](%s)" % other) == 1
    assert "[`debug()`](%s)" % ref in md  # the first mention keeps the address
    assert "- A list item names debug again." in md and "| Detail | debug() |" in md and "| Warn | warn() |" in md
    assert parsed_words(md) == WORD.findall(render_fragment(html, markdown=False))


def test_a_link_that_shows_nothing_or_points_into_the_page_is_no_link():
    url = "https://news.example.org/2026/11/harbour-opens"
    body = " ".join("The new harbour opened on Monday after four years of building work." for _ in range(6))
    page = (
        "<html><head><title>Harbour opens</title></head><body><article><h1>Harbour opens</h1>"
        "<p>%s <a href='%s#comments'>Read the comments</a> or <a href='#top'>go up</a>.</p>"
        "<p>%s The <a href='https://city.example.org/port'>port authority</a> runs it."
        " <a href='https://city.example.org/port/map'> </a></p><p>%s</p></article></body></html>"
    ) % (body, url, body, body)
    md = extract(page, url=url, fmt="markdown")["text"]
    assert "[port authority](https://city.example.org/port)" in md
    assert "Read the comments" in md and "#comments" not in md and "#top" not in md
    assert "/port/map" not in md and "[ ]" not in md


def test_a_links_tracking_parameters_are_left_out_and_the_rest_of_its_query_kept():
    html = (
        "<p><a href='https://shop.example.org/p?id=7&utm_source=news&utm_medium=email#specs'>the pump</a>,"
        " <a href='https://shop.example.org/list?fbclid=IwAR0&page=2&gclid=Cj0'>more pumps</a> and"
        " <a href='https://shop.example.org/p?id=7&utm_campaign=spring#specs'>the pump again</a></p>"
    )
    md = render_fragment(html)
    assert "[the pump](https://shop.example.org/p?id=7#specs)" in md
    assert "[more pumps](https://shop.example.org/list?page=2)" in md
    assert md.endswith("and the pump again")  # the same address once its tags are gone
