"""Every threshold of the extraction decision, in one record a benchmark can sweep.

Each field is one rule's number, named for what it measures, with the rule's reason beside
it; the rules (decide.py, core.py, pagetype.py, region.py, thread.py, product.py,
project.py) read ``th.T.NAME`` when they are asked, never a copy taken at import, so a
sweep reaches every use:

    from worker.pages.extract import thresholds as th
    with th.using(REGION_COVER=0.7):
        extract(html, url)

Words are \\w+ tokens unless a comment says otherwise; shares are of words. The work
budgets (parse.py, hidden.py, linear.py, render.py: how much of a page is read at all)
are limits, not decisions, and stay with the code they bound (docs/limits.md).

Importing this module costs nothing: no imports.
"""

from __future__ import annotations


class Thresholds:
    """The decision's numbers; the class attributes are the defaults, measured on every
    shared set (docs/PERFORMANCE.md). Frozen: ``replace`` gives a changed copy."""

    # ------------------------------------------------------------------
    # Which extractor's text is kept, and when another is asked (decide.py, core.py)

    # Decision thresholds (see module docstring); measured in bench/extraction/run.py.
    SHORT_SHINGLES = 100  # choose: trafilatura's text under this many 4-shingles is "nearly empty"...
    READABILITY_OVER_SHORT = 2  # ... and readability's is taken when over this many times as many
    SUBSET_MIN_SHINGLES = 50  # choose's boilerplate band applies to a readability text of more shingles
    DOUBTFUL_WORDS = 100  # doubtful: trafilatura's text under this is asked about (readability, balanced mode)
    RETRY_WORDS = 100  # the text kept under this: balanced mode is asked (core._article)
    BURY_WORDS = 100  # buries: the short text is an article of its own from this length...
    BURY_COVER = 0.8  # ... and held nearly whole (over this share) by the longer one
    # holds_a_layouts_article: readability's text is a table layout's article from this length,
    # and this share of trafilatura's text, as trafilatura's defaults require
    LAYOUT_ARTICLE_WORDS = 100
    LAYOUT_ARTICLE_SHARE = 0.5
    TRUNCATED_COVER = 0.95  # share of primary's shingles found in readability's
    TRUNCATED_RATIO = 0.5  # readability's share found in primary below this: primary truncated
    SUBSET_COVER = 0.97  # share of readability's shingles found in primary
    SUBSET_BAND = (0.6, 0.8)  # primary's share found in readability: extra boilerplate band
    PARAGRAPHS_OVER_ARTICLE = 2.0  # the page's <p> words over trafilatura's: ask the second opinions too
    # balanced mode's text this many times readability's (a third longer, as REGION_OVER_ARTICLE),
    # holding it: where precision mode found next to nothing, the rest is the chrome it left out
    BURY_RATIO = 1.3
    BALANCED_RATIO = 0.4  # precision's share of balanced mode's text below this: precision stopped early
    # The region is "nearly empty" next to trafilatura's text below this share of its words.
    REGION_MIN_SHARE = 0.5
    REGION_ENOUGH = 150  # words: a region this long is taken without asking trafilatura
    # An "article" with no evidence of being one, whose region is this many times longer
    # and holds this share of the article's words, is read as a region (core._second_look): a
    # third more text around all of the article is a page's other content (a service
    # page's offers, a list's entries), not a stray sidebar. Pages that say they are
    # articles keep the article: their extra text is comments and teasers.
    REGION_OVER_ARTICLE = 1.3
    REGION_COVER = 0.8
    LONGER_COVER = 0.8  # longer_than: another extractor's text holds this share of the article's (prose)
    # An article with weak evidence (see page_type) is read as an index page's region when
    # that is this many times longer and the body's largest run of titled entries holds
    # this share of its words.
    INDEX_OVER_ARTICLE = 3.0
    INDEX_ENTRIES = 0.1
    # An "article" of fewer words than FRAGMENT_WORDS is a fragment of the page (a banner, a
    # footer's blurb, an intro) when the region is far longer: with no evidence of being an
    # article, FRAGMENT_OVER_ARTICLE times longer, whether or not the region holds it (the
    # region may have dropped it as chrome); with weak evidence, FRAGMENT_UNDER_REGION times
    # longer and holding it (the article extractor stopped at a break in the markup). Pages
    # with strong evidence keep their article: a news brief is short beside its sidebars.
    FRAGMENT_WORDS = 150
    FRAGMENT_OVER_ARTICLE = 2.0
    FRAGMENT_UNDER_REGION = 5.0
    # An article whose page region is this many times longer is asked for again, with
    # trafilatura's fallbacks; their text is taken when this many times longer (see _extract).
    ASK_AGAIN_RATIO = 2.0
    # ... and this many times, for a page that does not say clearly it is an article: its
    # extra text is more often article than comments, captions and teasers.
    ASK_AGAIN_UNSURE = 1.4
    LONGER_ARTICLE = 1.2
    TEASERS = 2
    PROSE_WORDS = 30  # a paragraph this long is prose: not a menu entry, a teaser's title or a one-line comment
    # An article's prose before the posts a page's structure shows (thread.py): this many
    # words of paragraphs of PROSE_WORDS and more. A blog post's comments follow its
    # article; a forum's first post is one of the run.
    ARTICLE_BEFORE_POSTS = 100

    # ------------------------------------------------------------------
    # Readers' comments (core.py)

    COMMENT_CHROME_WORDS = 25

    # ------------------------------------------------------------------
    # The page's kind (pagetype.py)

    PROSE_PARAGRAPH = 30  # words: a paragraph of running text, not a caption, a card or a label
    ARTICLE_PROSE_WORDS = 150  # words in such paragraphs: an article's body
    PROSE_SHARE = 0.4  # of the body's words: the page is that body, not a frame around it
    PRICED = 0.5  # share of a run's entries showing a price: a shop's cards
    GRID_SHARE = 0.25  # share of the body's words in a run of priced cards: a shop's category
    CARD_WORDS = 80  # mean words of an entry that is a card, not an article
    TITLED = 0.7  # share of a run's entries with a titled link: entries that each lead somewhere
    # the largest run of entries holds this share of the body's words: the page is a list of them
    RUN_SHARE = 0.4
    DATED = 0.7  # share of a run's entries that show a date: signed and dated posts (a forum)
    POST_WORDS = 15  # a run's entries this long on average are posts, not a listing's titles
    # Article evidence of this many points or fewer is one weak signal (its URL's shape, its
    # og:type, or a bare schema.org Article): publishing systems set those on every page.
    WEAK_ARTICLE = 3

    # ------------------------------------------------------------------
    # The page's main region (region.py)

    # A chrome-looking element is kept when it holds this share of the region's text or more.
    KEEP_SHARE = 0.35
    # A <main> that holds less than this share of the body's text is a wrapper around a
    # fragment (a hero, a search box): the body is the better region.
    MAIN_SHARE = 0.25
    NOSCRIPT_WORDS = 30
    MODAL_SHARE = 0.5
    MENU_LINK_WORDS = 4
    # An element named for links (a menu, a nav bar) with two paragraphs of this many words,
    # and less than this share of its words in links, is prose: content, whatever its name.
    PROSE_PARAGRAPH_WORDS = 12
    PROSE_LINK_SHARE = 0.2
    LINK_BAR_WORDS = 40  # entries of at most this many words, all link, make a menu
    # A landmark (nav, header, footer, aside, or their roles) this much link text is the
    # site's menus, however long (a documentation sidebar, a mega footer) ...
    NAV_LINK_SHARE = 0.8
    NAV_MOST = 0.8  # ... unless it is nearly the whole region (a sitemap, an index page)
    OTHER_HEADING_WORDS = 8
    # A paragraph of this many words or more that says word for word what an earlier one
    # said is a copy: the same text for another screen size, a carousel's clone, a quote of
    # a post the thread already shows. A reader reads it once. Only in a region: an article
    # repeats on purpose (the same question put to every interviewee, the same meal on
    # several days of a plan), and so does documentation (a parameter described for every
    # call).
    REPEAT_WORDS = 12
    # Documentation generators (DocBook, many static-site themes) put the page's text in an
    # element they name as the content ("docContent", "body-content") inside the site's
    # header, version picker and search, with no <main>. Such an element holding a
    # majority of the page's words is the region; the innermost of them, since wrappers
    # ("pgContentWrap") take the site's chrome in too. Only on documentation: on a forum
    # the innermost "content" is one post, on a shop a consent dialog's or a footer's.
    CONTENT_SHARE = 0.5
    PAGE_FOOTER_WORDS = 60
    POSTS_MIN_SHARE = 0.3  # the marked posts must hold this share of the region's words
    # Listings and collections: entries are runs of alike siblings (same tag and first
    # class), as in pagetype.repeated_group; each becomes one line: its title,
    # linked, then its other lines (description, price, date) once each. Lines that every
    # card repeats ("Select size", "Full-time") stay: telling a button's label from a job's
    # terms is guesswork, and the benchmark scores both ways the same.
    ENTRY_MIN = 4
    ENTRY_MAX_WORDS = 120  # longer blocks are sections, not entries
    ENTRY_SHARE = 0.8  # share of a group of alike blocks that must read as entries
    CARD_LINK_SHARE = 0.6  # a link holding this share of an entry's words is the whole card

    # ------------------------------------------------------------------
    # A forum's posts by the page's structure (thread.py)

    POST_MIN = 2  # a question and one answer is a thread
    POST_SHARE = 0.5  # the run holds this share of the region's words
    POST_MIN_AVG = 15  # words per post on average: shorter blocks are entries of a list
    SIGNED_SHARE = 0.6  # this share of the run's blocks names an author or a date
    TITLED_SHARE = 0.7  # this share of the blocks headed by a link elsewhere: a listing's entries
    TITLE_WORDS = 4  # a title, not a user's name
    # A run nested in a member of the best run, with more members and this share of its
    # words, is the posts; the outer run is the page's layout (a column pair, a wrapper).
    NESTED_SHARE = 0.7
    BODY_SHARE = 0.5  # the body holds this share of the post's words; else the post is kept whole
    # the run of posts found by structure holds this share of the posts the page marks, or is another run
    MARKED_HELD = 0.5
    NAME_WORDS = 6  # an author's name or a date is short

    # ------------------------------------------------------------------
    # Product pages (product.py)

    DROP_MAX = 0.9  # reviews can outweigh a description many times; all of it, never
    BLOCK_CHARS = 20  # shorter lines ("Reviews", "4.5") are as likely the product's own
    CHUNK_CHARS = 40  # a long block is compared in pieces of this many characters (no white space)
    CHUNK_SHARE = 0.75  # ... and is inside the text when this share of its pieces are
    GIBBERISH_CHARS = 60  # shorter blocks may be a list of part numbers
    GIBBERISH_SHARE = 0.6  # share of a block's word characters in letter-and-digit tokens
    DESCRIPTION_WORDS = 10  # a shorter "description" is a tagline or the name again
    DESCRIPTION_SAID = 0.5  # the text holds this share of the description's words: it says it already
    BARE_WORDS = 40  # a description; shorter bare text between line breaks is labels and notes
    SPEC_ROWS = (2, 200)  # fewer is a line, not a table; more is a size chart or a price list
    LIST_PAIRS_SHARE = 0.8  # share of a list's items that must read "name: value"
    SPEC_SAID = 0.5  # the text holds this share of a table's words: it has the table already
    CHROME_WORDS_MIN = 5  # a shorter "menu" is a button or a label, whose words the product may use too
    REPEAT_CHARS = 40  # a repeated block shorter than this ("Size", "Add to cart") may be a label
    LINE_REPEAT_WORDS = 3  # a line of this many words said again is a copy, not a label ("Free returns on all orders")
    BEFORE_NAME_WORDS = 40  # what stands before the product's name is chrome when it is this short
    EXTRA_WORDS = 15
    OTHER_PRODUCTS_HEADING_WORDS = 8  # longer is a sentence of the description that says such words

    # ------------------------------------------------------------------
    # trafilatura's text read back from the page's markup (project.py)

    NEAR = 0.9  # share of the extractor's words the page's units must hold
    MORE = 1.25  # at most this many times the extractor's words (the restored structure adds some)
    SLACK = 300  # characters of the extractor's text a unit may start after the last one's end
    LINKED = 0.8  # share of a list item's characters in links to the site: a related box or a menu
    PAIRS = 0.8  # share of a respaced unit's word pairs found in the extractor's text
    PAIR_WORDS = 6  # words a unit needs to be found by its pairs
    LONG = 40  # characters: a unit this long is found anywhere in the text, not only next
    LOOK_AHEAD = 20  # units after one found further on looked at for where the text goes on
    CELL_WORDS = 150  # a table cell this long is a page's column, not a value
    PROBE = 24  # characters of a line of the extractor's text looked for in the page's text nodes
    PROBE_LINE = 25  # a line this long, at least, is one to look for (short ones repeat in menus)
    PROBES = 3  # lines tried from either end

    # ------------------------------------------------------------------
    # Section headings put back into trafilatura's own tree (headings.py)

    HEAD_MIN = 2  # characters of a heading's text, at least...
    HEAD_MAX = 150  # ... and at most (a longer one is a paragraph styled as a heading)
    HEAD_PROBE = 40  # characters of the text after a heading that name the block it heads
    HEAD_PROBE_MIN = 8  # shorter text after a heading ("Price") may open any block: not looked for

    def __init__(self, **changes: object) -> None:
        for name, value in changes.items():
            if not name.isupper() or not hasattr(Thresholds, name):
                raise TypeError("no threshold named %r" % name)
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Thresholds is frozen: use replace()")

    def replace(self, **changes: object) -> Thresholds:
        return Thresholds(**{**vars(self), **changes})

    @staticmethod
    def names() -> list[str]:
        return [name for name in vars(Thresholds) if name.isupper()]


T = Thresholds()  # the record the rules read


class using:
    """``with using(NAME=value, ...):`` the rules read a changed record inside the block."""

    def __init__(self, **changes: object) -> None:
        self.changes = changes
        self.before: Thresholds | None = None

    def __enter__(self) -> Thresholds:
        global T
        self.before, T = T, T.replace(**self.changes)
        return T

    def __exit__(self, *exc: object) -> None:
        global T
        if self.before is not None:
            T = self.before
