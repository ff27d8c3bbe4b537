"""How a page is read: the decisions between extractors, each a pure function of the
texts and the tree, with the thresholds they use.

core.py runs the extractors; this module says which result to keep and when to ask
another. Each rule is written as a reader would check it (a text "holds" another when
it has most of its words; a page "marks its chrome" when it has landmarks), and
docs/PERFORMANCE.md gives each rule's effect on every shared set. The order they are
asked in is core.PATHS and core._second_look's:

1. ``page_type``: the page's kind and how sure (pagetype.py holds the evidence); on a
   page read as a forum, ``posts_follow_an_article`` (are the posts a blog post's
   comments?) sends it to the article path.
2. An article, with its readers' comments unless ``keeps_comments`` says no:
   ``doubtful`` (is trafilatura's precision text short or cut?) then
   ``cut_short`` (is balanced mode's text that text and much more?),
   ``tables_over_paragraphs`` and ``holds_a_layouts_article`` (a table layout read
   whole, and readability's article in it), ``choose``
   (trafilatura's or readability's) and ``buries`` (does balanced mode hide the article
   in other text?).
3. Then ``page_may_hold_more`` (could the region be long enough to matter?),
   ``region_can_matter`` with ``asking_again_can_change`` (could anything the region
   says change the result? asked before the region is built, and again with its
   words' bound, ``most_words``, before it is rendered), ``longer_than`` (is another extractor's text the article and more?),
   ``region_is_the_page`` with ``marks_landmarks`` and ``left_out_prose`` (is the page
   better read as its region?).

Importing this module costs nothing: the standard library and lxml are imported in
the functions that use them.
"""

from __future__ import annotations

from . import thresholds as th

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections import Counter
    from typing import Any

    from lxml.html import HtmlElement  # no stubs: Any to the checker


# Kinds read as a whole region rather than as an article (see region.py).
REGION_KINDS = frozenset(("documentation", "forum", "listing", "collection", "service"))


def page_may_hold_more(tree: HtmlElement, a_text: str, sure: str) -> bool:
    """Whether the page's region may be long enough, next to the article, for either rule
    below to apply. The body's text words are an upper bound of the region's (the
    region is part of the body, and its rendering splits no fewer words), counted at C
    speed; most article pages stop here, without building the region (~5-10 ms).

    On a page that says it is an article (weak or strong evidence), only the words
    outside links count: what precision mode leaves out of a cut-short article is
    prose, and a page's menus and lists of other stories are links. A page with no
    such evidence may be a list the classifier missed, whose content is links."""
    body = tree.find(".//body")
    if body is None:
        return True
    a_words = words(a_text)
    ratio = ask_again_ratio(sure)
    if sure == "none":
        return words(" ".join(_text_nodes(body))) > min(ratio, th.T.REGION_OVER_ARTICLE) * a_words
    # The page's words less its links' are the words of the text nodes in no link (the
    # joining space is no \w): one list from libxml2, not a Python walk and a second list
    # (~0.3 ms a page). A body inside a link (libxml2's parser never makes one) would
    # have no such node: there they are counted apart.
    if next(body.iterancestors("a"), None) is None:
        page = words(" ".join(_text_nodes(body, True)))
    else:
        page = words(" ".join(body.itertext())) - words(" ".join(body.xpath("descendant::a//text()")))
    return page > ratio * a_words


_TEXT_NODES: dict[bool, Any] = {}  # lxml XPaths, compiled on first use (extraction runs on one thread)


def _text_nodes(el: HtmlElement, out_of_links: bool = False) -> list[str]:
    """The text nodes below el, as el.itertext() gives them (not el's tail), or only those
    in no <a> (of el's ancestors too); plain strings, not lxml's smart ones."""
    xpath = _TEXT_NODES.get(out_of_links)
    if xpath is None:
        from lxml import etree

        expression = "descendant::text()[not(ancestor::a)]" if out_of_links else "descendant::text()"
        xpath = _TEXT_NODES[out_of_links] = etree.XPath(expression, smart_strings=False)
    return xpath(el)


def ask_again_ratio(sure: str) -> float:
    return th.T.ASK_AGAIN_RATIO if sure == "strong" else th.T.ASK_AGAIN_UNSURE


def region_is_the_page(sure: str, facts: dict[str, Any], r_text: str, a_text: str) -> bool:
    """Whether a page read as an article is better read as its region.

    Not every page read as an article is one: a company's service page or a list the
    classifier missed reads far longer as a region that holds the article's words too.
    With no evidence of being an article, a third longer says so; with weak evidence
    (see page_type), three times longer and a body built of a run of titled entries
    (an index page). Pages that say clearly they are articles keep the article: their
    extra text is comments and teasers.
    """
    a_words = words(a_text)
    longer = words(r_text) / max(1, a_words)
    fragment = a_words < th.T.FRAGMENT_WORDS
    if sure == "none":
        if fragment and longer > th.T.FRAGMENT_OVER_ARTICLE:
            return True  # a banner or a footer's blurb, not the page's content: the region may well leave it out
        enough = longer > th.T.REGION_OVER_ARTICLE
    elif sure == "weak":
        enough = longer > th.T.INDEX_OVER_ARTICLE and facts.get("entries", 0) >= th.T.INDEX_ENTRIES
    else:
        enough = False
    if sure == "weak" and fragment and longer > th.T.FRAGMENT_UNDER_REGION:
        enough = True  # a few lines out of a long region are not its article (not for pages that say so clearly: news briefs)
    return enough and covers(r_text, a_text) >= th.T.REGION_COVER


def keeps_comments(facts: dict[str, Any]) -> bool:
    """Whether the readers' comments trafilatura finds under an article are given after it.

    Not on a page that describes itself in schema.org JSON-LD (pagetype's "json_ld"
    fact): its publishing system states what the page's own content is (the article's
    headline, body and author), and what readers add below is not part of it. A page
    that states nothing (most pages before JSON-LD came into use: a 2012 blog, a 2008
    news page) keeps them under their own heading, as trafilatura does by default:
    there a post's comments are often read as part of it (Dragnet's truth keeps them
    on a quarter of its pages; WCXB's and the Zyte benchmark's truths leave them out).
    """
    return not facts.get("json_ld")


def asking_again_can_change(landmarks: bool, extractor: str, readability: tuple[Any, str] | None, a_text: str) -> bool:
    """Whether asking again, where the region is far longer than the article (core._second_look),
    can change the result: trafilatura's fallbacks are asked only on a page that marks
    its chrome (``landmarks``); else readability, only when trafilatura's text was kept.
    Where readability was asked already (``readability``: its root and text, when the
    text looked short) its answer is known: it changes the result only when it is
    ``longer_than`` the article."""
    if landmarks:
        return True
    if extractor != "trafilatura":
        return False
    if readability is None:
        return True
    root, text = readability
    return root is not None and longer_than(text, a_text)


def region_can_matter(sure: str, facts: dict[str, Any], a_words: int, asks: bool, r_words: int | None = None) -> bool:
    """Whether a region of at most ``r_words`` words (None: not built yet, any length) can
    change the result of an article of ``a_words`` words; when not, core._second_look builds
    no region (~5 ms) or renders none (~1.5 ms). The two rules the region serves:

    - asking again (``asks``: asking_again_can_change) when the region is over
      ask_again_ratio(sure) times the article;
    - region_is_the_page, whose word thresholds are these: never on a page that says
      clearly it is an article; with weak evidence only on an index page
      (facts["entries"]) or beside a fragment; with no evidence a third longer.

    An article that asking again replaced is longer, which only makes region_is_the_page
    less likely: the article's words before asking again are the ones to judge."""
    if asks and (r_words is None or r_words > ask_again_ratio(sure) * a_words):
        return True
    longer = float("inf") if r_words is None else r_words / max(1, a_words)
    fragment = a_words < th.T.FRAGMENT_WORDS
    if sure == "none":
        return longer > th.T.REGION_OVER_ARTICLE or (fragment and longer > th.T.FRAGMENT_OVER_ARTICLE)
    if sure == "weak":
        index = longer > th.T.INDEX_OVER_ARTICLE and facts.get("entries", 0) >= th.T.INDEX_ENTRIES
        return index or (fragment and longer > th.T.FRAGMENT_UNDER_REGION)
    return False


def most_words(root: HtmlElement | None) -> int:
    """An upper bound of the words of root's rendering (core._region_text): each text
    node counted apart, so no two words the rendering joins, and the repeated
    paragraphs and skipped elements the rendering leaves out counted too."""
    if root is None:
        return 0
    return words(" ".join(_text_nodes(root)))


def marks_landmarks(tree: HtmlElement) -> bool:
    """Whether the page marks its chrome as landmarks (nav, header, footer, aside, or their
    ARIA roles), as pages built since HTML5 do.

    The region is what remains of the body once those go (region.py). A page without
    them, as most pages before HTML5 (a table layout), gives a region that still holds
    its menus, teasers and comments: longer than the article, but not with more of it.
    """
    from .names import LANDMARK_ROLES, LANDMARKS

    if tree.xpath("boolean(//%s)" % " | //".join(LANDMARKS)):
        return True
    return any((el.get("role") or "").strip().lower() in LANDMARK_ROLES for el in tree.xpath("//*[@role]"))


def posts_follow_an_article(prose_before: int) -> bool:
    """Whether the posts found by the page's structure are an article's comments: the
    region holds ARTICLE_BEFORE_POSTS words of prose before the first of them. Such a
    page is read as an article with its comments, not as the thread alone (which left
    the article out: Dragnet's blog posts, read as threads of their comments)."""
    return prose_before >= th.T.ARTICLE_BEFORE_POSTS


def left_out_prose(r_text: str, a_text: str) -> int:
    """Words of the region's paragraphs of PROSE_WORDS and more that the article does not
    hold, where they go on from the article (next to one of its paragraphs, or to such a
    paragraph next to it).

    Where the markup names no chrome, the region is taken over the article only when it
    holds as much of that prose as the article itself: then the article extractor
    stopped at a break in the markup, and the region is the page's text. Prose set off
    from the article by shorter lines (a comment's author and date, a teaser's title) is
    not the article's.
    """
    have = {line.strip() for line in a_text.split("\n")}
    lines = [line.strip() for line in r_text.split("\n") if line.strip()]
    kinds = ["article" if line in have else "prose" if words(line) >= th.T.PROSE_WORDS else "other" for line in lines]
    goes_on: set[int] = set()
    for order in (range(len(lines)), range(len(lines) - 1, -1, -1)):  # after the article, and before it
        next_to_article = False
        for i in order:
            if kinds[i] == "article":
                next_to_article = True
            elif kinds[i] == "prose" and next_to_article:
                goes_on.add(i)
            else:
                next_to_article = False
    return sum(words(lines[i]) for i in goes_on)


def longer_than(text: str, a_text: str, prose: bool = True) -> bool:
    """Whether text is LONGER_ARTICLE times a_text, holds LONGER_COVER of a_text's prose
    (its lines of PROSE_WORDS and more, or all of it when it has none), and is not a
    list of excerpts (TEASERS paragraphs cut off with an ellipsis).

    Prose, not every line: where precision mode stopped early on an old page, what it
    kept besides a paragraph is the menus, breadcrumbs and link lists around it, which
    readability rightly leaves out. With ``prose`` False, all of a_text: trafilatura's
    own fallbacks (core._longer_article) keep what precision mode kept, menus included."""
    cut = sum(1 for line in text.split("\n") if line.rstrip().endswith(("…", "...")))
    held = a_text
    if prose:
        held = "\n".join(line for line in a_text.split("\n") if words(line) >= th.T.PROSE_WORDS) or a_text
    return (
        cut < th.T.TEASERS
        and words(text) > th.T.LONGER_ARTICLE * words(a_text)
        and covers(text, held) >= th.T.LONGER_COVER
    )


def buries(big: str, small: str) -> bool:
    """Whether ``small`` is an article of its own (BURY_WORDS words or more) that
    ``big`` holds nearly whole (over BURY_COVER), in a text BURY_RATIO times as long or longer. Asked when
    precision mode found next to nothing: balanced mode's longer text then holds the
    menus and teasers precision mode left out (L3S-GN1's news pages: +0.004)."""
    n = words(small)
    return n >= th.T.BURY_WORDS and words(big) > th.T.BURY_RATIO * n and covers(big, small) > th.T.BURY_COVER


def cut_short(short: str, full: str) -> bool:
    """Whether ``short`` is nearly all inside ``full`` and covers under BALANCED_RATIO of it."""
    st, sf = shingles(short), shingles(full)
    ns, nf = sum(st.values()), sum(sf.values())
    if not nf or not ns:  # an empty result is not "cut short": readability answers that case
        return False
    common = sum((st & sf).values())
    return common / ns > th.T.TRUNCATED_COVER and common / nf < th.T.BALANCED_RATIO


def doubtful(tree: HtmlElement, t_text: str) -> bool:
    """Whether trafilatura's article may be empty or cut short: then readability is asked.

    readability costs as much as trafilatura; on the article benchmark it changes the
    answer only where trafilatura kept little (under DOUBTFUL_WORDS words) or much
    less than the page's paragraphs hold.
    """
    n = words(t_text)
    if n < th.T.DOUBTFUL_WORDS:
        return True
    paragraphs = 0
    for p in tree.iter("p"):
        paragraphs += len(p.text_content().split())
        if paragraphs > th.T.PARAGRAPHS_OVER_ARTICLE * n:
            return True
    return False


# core's mark on the readers' comments it appends to trafilatura's article (its
# heading's value is "head"): what comes after it is not the article.
COMMENTS_MARK = "data-comments"


def tables_over_paragraphs(body: Any) -> bool:
    """Whether trafilatura's article (its XML body, readers' comments left aside) is a
    table layout read whole: no paragraph text, or more tables than paragraphs.
    trafilatura's own test of a structurally deficient extraction (its defaults then
    take readability's text); precision mode alone never asks."""
    paragraphs = tables = 0
    text = False
    for child in body:
        if child.get(COMMENTS_MARK) == "head":
            break
        for el in child.iter("p", "table"):
            if el.tag == "table":
                tables += 1
            else:
                paragraphs += 1
                text = text or bool("".join(el.itertext()).strip())
    return not text or tables > paragraphs


def holds_a_layouts_article(r_text: str, t_text: str) -> bool:
    """Whether readability's text is the article of a page whose trafilatura text is a
    table layout read whole (tables_over_paragraphs): an article of its own
    (LAYOUT_ARTICLE_WORDS words) and LAYOUT_ARTICLE_SHARE of trafilatura's text, as trafilatura's
    defaults require."""
    n = words(r_text)
    return n >= th.T.LAYOUT_ARTICLE_WORDS and n >= th.T.LAYOUT_ARTICLE_SHARE * words(t_text)


def covers(big: str, small: str) -> float:
    """Share of small's \\w+ tokens (as a multiset) found in big."""
    import re
    from collections import Counter

    b, s = Counter(re.findall(r"\w+", big)), Counter(re.findall(r"\w+", small))
    n = sum(s.values())
    return sum((b & s).values()) / n if n else 0.0


# The same long texts are counted again and again (the article by doubtful, _article,
# page_may_hold_more and the second look), and a count costs ~2 ms per 100,000
# characters: the last few counts of long texts are kept (a string keeps its hash once
# computed: asking again for the same text costs a look-up). Not the short lines that
# left_out_prose and longer_than count one by one: they would push the long texts out.
_COUNTED: dict[str, int] = {}
_COUNTED_MAX = 8
_COUNTED_CHARS = 1000


_WORD: Any = None  # compiled on first use


def words(text: str | None) -> int:
    """\\w+ words: the same count for a text and its markdown."""
    global _WORD
    if _WORD is None:
        import re

        _WORD = re.compile(r"\w+")
    text = text or ""
    if len(text) < _COUNTED_CHARS:
        return _WORD.subn("", text)[1]  # counted without a string a word, as findall makes
    n = _COUNTED.get(text)
    if n is None:
        n = _WORD.subn("", text)[1]
        if len(_COUNTED) >= _COUNTED_MAX:
            _COUNTED.clear()
        _COUNTED[text] = n
    return n


def page_type(
    tree: HtmlElement, url: str | None, og_type: str | None, canonical: str | None = None
) -> tuple[str, str, dict[str, Any]]:
    """(kind, how sure: "strong", "weak" or "none", the markup's facts from pagetype.evidence).

    An article's evidence is weak when it is one signal of WEAK_ARTICLE points or fewer
    (its URL's shape, its og:type, or a bare schema.org Article): publishing systems
    set those on every page, index pages too. Other kinds' evidence counts as strong.
    """
    from .pagetype import add_markup, corroborate, evidence, pick, reads_as_article, settled, url_evidence

    facts: dict[str, Any] = {}
    score = evidence(tree, url, og_type, facts, canonical, markup=False)
    urls = url_evidence(url, canonical)
    urls.pop("article", None)  # evidence added it
    if settled(score, urls):
        return "article", "strong", facts
    add_markup(tree, score, facts)
    corroborate(score, urls, tree)
    kind = pick(score)
    if kind == "forum" and 0 < score["article"] == score["forum"] and reads_as_article(tree):
        kind = "article"
    if score[kind] <= 0:
        return kind, "none", facts
    if kind == "article" and score[kind] <= th.T.WEAK_ARTICLE:
        return kind, "weak", facts
    return kind, "strong", facts


def shingles(text: str | None, n: int = 4) -> Counter[tuple[str, ...]]:
    """Multiset of n-token shingles over \\w+ tokens (the benchmark's unit of text)."""
    import re
    from collections import Counter

    tokens = re.findall(r"\w+", text or "")
    if len(tokens) < n:
        return Counter([tuple(tokens)]) if tokens else Counter()
    return Counter(zip(*(tokens[i:] for i in range(n))))


def choose(t_text: str, r_text: str) -> str:
    """Which extraction to keep: "trafilatura", "readability" or "fallback"."""
    import re

    if not re.search(r"\w", r_text or ""):  # readability not asked, or said nothing: no shingles to count
        return "trafilatura" if re.search(r"\w", t_text or "") else "fallback"
    st, sr = shingles(t_text), shingles(r_text)
    nt, nr = sum(st.values()), sum(sr.values())
    if not nt:
        return "readability"
    common = sum((st & sr).values())
    t_in_r = common / nt
    r_in_t = common / nr
    if nt < th.T.SHORT_SHINGLES and nr > th.T.READABILITY_OVER_SHORT * nt:
        return "readability"
    if t_in_r > th.T.TRUNCATED_COVER and r_in_t < th.T.TRUNCATED_RATIO:
        return "readability"
    if (
        r_in_t > th.T.SUBSET_COVER
        and th.T.SUBSET_BAND[0] < t_in_r < th.T.SUBSET_BAND[1]
        and nr > th.T.SUBSET_MIN_SHINGLES
    ):
        return "readability"
    return "trafilatura"
