"""Start tags read by their grammar (worker.pages.extract.parse.start_tag): the attributes of
a page over the attribute budget are stripped, and over-long tags cut, in linear time and
with memory that does not grow with a tag's attributes."""

import tracemalloc

import pytest
from fakes import pathological

from worker.pages.extract import parse as P


@pytest.mark.parametrize(
    "markup, stripped",
    [
        ('<div class="a" id=b>x</div>', "<div>x</div>"),
        ("<a b='x>y' c=d/>z", "<a>z"),  # a value quoting '>'
        ("<div\n a\n=\n'1'\n>t", "<div>t"),
        ("<br/><img src=/a/b.png alt>", "<br><img>"),
        ('<a b=c"d" e>x', '<a b=c"d" e>x'),  # no start tag by the grammar: left as it is
        ("<a b= >x", "<a b= >x"),
        ("1 < 2 and <3", "1 < 2 and <3"),
        ("<x" + " a=1" * 200 + ">y", "<x>y"),  # more attributes than one match takes
        ("<x" + " a=1" * 200, "<x" + " a=1" * 200),  # ... and never closed
    ],
)
def test_attributes_are_stripped_by_the_tags_grammar(markup, stripped):
    assert P.strip_attributes(markup) == stripped


def _peak(fn, text):
    """(fn(text), the most memory Python allocated meanwhile, in bytes)."""
    tracemalloc.start()
    try:
        out = fn(text)
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_tag_of_200000_attributes_is_stripped_in_little_memory():
    # one match of the whole tag kept a frame for each attribute: 159 MB, over a reading
    # child's share of memory when two read a batch (CI: the page came back too_large)
    out, peak = _peak(P.strip_attributes, pathological.attrs_quoted())
    assert out.startswith("<html><body><div>text</div><p>Some words"), out[:80]
    assert peak < 10 * len(out) + 5_000_000, "peak %.0f MB" % (peak / 1e6)


def test_a_long_tag_is_cut_to_its_name_in_little_memory():
    html = pathological.attrs_quoted()
    assert len(html) > P.MAX_TAG_CHARS
    out, peak = _peak(P.cut_long_tags, html)
    assert out.startswith("<html><body><div>text</div>"), out[:80]
    assert peak < 2 * len(html) + 5_000_000, "peak %.0f MB" % (peak / 1e6)
