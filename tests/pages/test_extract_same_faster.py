"""Speed-ups of the extraction that change no output (issue 45): each gives what the code
before it gave (bench/extraction/same.py holds every shared page to that too)."""

import copy
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import html

from worker.pages.extract import render
from worker.pages.extract import trafilatura_fast as fast

WHITE = " \t\r\n\f\v\u00a0\u2003x_-"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=WHITE, max_size=40))
def test_squash_changes_what_the_plain_pattern_changes(s):
    assert render._squash(s) == render._WS.sub(" ", s)


def test_squash_gives_back_text_with_single_spaces_as_it_is():
    s = "words apart by single spaces"
    assert render._squash(s) is s


class _Options:
    fast = True
    tables = True
    images = False
    focus = "balanced"


def test_the_fast_mode_backup_is_the_cleaned_tree_when_asked():
    from trafilatura.htmlprocessing import tree_cleaning

    page = html.fromstring(
        "<html><body><div><p>Text <b>bold</b></p><form><input/></form><aside>x</aside>"
        "<table role='presentation'><tr><td>cell</td></tr></table><p></p></div></body></html>"
    )
    backup = fast._Backup(page, _Options())
    made = html.tostring(copy.copy(backup))
    assert made == html.tostring(tree_cleaning(copy.copy(page), _Options()))
    assert html.tostring(copy.copy(backup)) == made  # and again: the page is not changed
    assert re.search(rb"<p>Text", made)


def test_the_stand_in_is_placed_and_taken_back_with_the_xpaths():
    import trafilatura.core as traf_core

    from worker.pages.extract import stages

    stages.trafilatura_doc(html.fromstring("<html><body><p>%s</p></body></html>" % ("word " * 50)), None)
    if not fast._ONCE or not fast._ONCE[0]:
        return  # trafilatura as it ships (another version, or WEBSEARCH_WORKER_PLAIN)
    shipped = [original for where, key, original, _ in fast._PLACED if key == "_prepare_tree"]
    assert shipped and traf_core._prepare_tree is not shipped[0]
    fast.placed(False)
    try:
        assert traf_core._prepare_tree is shipped[0]
    finally:
        fast.placed(True)
