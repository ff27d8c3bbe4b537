"""A forum thread without schema.org markup, found by the page's structure (worker.pages.extract.thread)."""

from lxml import html as lhtml

from worker.pages.extract import thread as T
from worker.pages.extract.core import extract

POST = """<div class="post bg%(bg)d" id="p%(n)d"><div class="inner">
  <dl class="postprofile"><dt><a class="username" href="/u/%(n)d">%(author)s</a></dt>
    <dd>Senior member</dd><dd><strong>Posts:</strong> 40%(n)d</dd><dd><strong>Joined:</strong> Dec 11, 2021</dd></dl>
  <div class="postbody"><ul class="profile-icons"><li><a href="#">Reply with quote</a></li></ul>
    <p class="author">by %(author)s &raquo; <time datetime="2024-03-0%(n)dT10:00:00">Mar %(n)d, 2024</time></p>
    <div class="content">%(text)s</div>
    <div class="signature">My workshop blog has moved, visit it for plans and photos of every build.</div>
  </div></div></div>"""

TEXTS = [
    "I want to build a workbench this winter from construction lumber. Is a laminated top worth the extra "
    "weeks of work, or does a solid core door do the job just as well for hand tool work?",
    "A laminated top is worth it if you plan to plane on it; a door flexes and sounds hollow under a mallet. "
    "Glue up in sections of four boards so your planer can take them.",
    "I built mine from a door twelve years ago and it still works, but I added a second layer of plywood "
    "and a hardwood edge so it stays flat and takes a vise.",
]
AUTHORS = ["oak_novice", "plane_fan", "door_bench"]

BOARD = """<html><head><title>Workbench top</title></head><body>
<div class="guest-notice">You are browsing as a guest. Sign up for free to post replies and get notifications.</div>
<h1>Laminated workbench top or a solid core door?</h1>
<div class="topic">%s</div>
<div class="board-topics"><h3>More topics from this board</h3>
<div class="topic-row">Which glue for outdoor furniture that stays in the rain all year long, 14 replies, Feb 2</div>
<div class="topic-row">Sharpening chisels on diamond plates versus water stones, a comparison, 33 replies, Jan 5</div>
</div></body></html>"""


def _board(posts=3):
    body = "".join(POST % {"bg": 1 + n % 2, "n": n + 1, "author": AUTHORS[n], "text": TEXTS[n]} for n in range(posts))
    return BOARD % body


def test_a_boards_posts_in_order_with_author_and_date_without_profiles_signatures_and_other_topics():
    page = _board().replace(
        "<head>", "<head><link rel='canonical' href='https://woodboard.example.com/viewtopic.php?t=77'>"
    )
    r = extract(page, url="https://woodboard.example.com/viewtopic.php?t=77", fmt="text")
    text = r["text"]
    assert r["page_type"] == "forum"
    assert text.startswith("Laminated workbench top or a solid core door?")
    where = [text.index(t[:40]) for t in TEXTS]
    assert where == sorted(where)
    for n, author in enumerate(AUTHORS):
        assert "%s · Mar %d, 2024" % (author, n + 1) in text
    for chrome in ("Posts:", "Joined", "Senior member", "workshop blog", "Reply with quote", "More topics", "glue"):
        assert chrome not in text, chrome
    assert "browsing as a guest" not in text


def test_alternating_row_classes_are_one_run():
    root = lhtml.fromstring(_board())
    run = T.post_run(root.find(".//body"))
    assert run is not None and [m.get("id") for m in run] == ["p1", "p2", "p3"]


def test_blocks_that_name_no_author_or_date_are_not_posts():
    page = lhtml.fromstring(
        "<html><body><h1>Notes</h1>%s</body></html>" % "".join("<div class='note'><p>%s</p></div>" % t for t in TEXTS)
    )
    assert T.post_run(page.find(".//body")) is None
    assert T.thread_by_structure(page.find(".//body")) is None


def test_a_post_whose_signature_is_longer_than_its_text_keeps_its_text_only():
    root = lhtml.fromstring(
        "<div class='post'><div class='poster'><a href='/u/1'>short_poster</a></div>"
        "<div class='post_body'>Agreed, thanks.</div>"
        "<div class='post_signature'>%s</div></div>" % ("Long signature words here. " * 20)
    )
    words = T._word_map(root)
    body = T.post_body(root, words)
    assert body.get("class") == "post_body"
    assert T.post_byline(root, body) == ("short_poster", None)


def test_a_found_thread_is_kept_even_when_short():
    # two short posts: fewer words than the page's other text, still the whole thread
    posts = "".join(
        "<article class='message'><div class='message-user'><a class='username'>%s</a></div>"
        "<time datetime='2024-07-1%dT00:00:00'>Jul 1%d, 2024</time>"
        "<div class='message-body'>%s</div></article>" % (a, n, n, t)
        for n, (a, t) in enumerate(zip(AUTHORS[:2], TEXTS[:2]))
    )
    page = "<html><body><h1>Workbench</h1><div class='messages'>%s</div></body></html>" % posts
    text = extract(page, url="https://forum.example.com/threads/workbench.12/", fmt="text")["text"]
    assert "oak_novice · Jul 10, 2024" in text and "plane_fan · Jul 11, 2024" in text
    assert TEXTS[1][:40] in text


def test_an_opening_post_the_markup_leaves_out_comes_from_the_structure():
    # the board marks its replies (itemprop=text) but not the opening post
    def message(n, inner):
        return (
            "<article class='message'><div class='message-user'><a class='username'>%s</a></div>"
            "<time datetime='2024-06-1%dT00:00:00'>Jun 1%d, 2024</time>%s</article>" % (AUTHORS[n], n, n, inner)
        )

    opening = message(0, "<div class='message-body'>%s</div>" % TEXTS[0])
    replies = "".join(
        message(
            n,
            "<div itemscope itemtype='https://schema.org/Comment'><div itemprop='text'>%s"
            "<div class='bbCodeBlock-expandLink'><a>Click to expand...</a></div></div></div>" % TEXTS[n],
        )
        for n in (1, 2)
    )
    page = "<html><body><h1>Workbench</h1><div class='messages'>%s%s</div></body></html>" % (opening, replies)
    text = extract(page, url="https://forum.example.com/threads/workbench.12/", fmt="text")["text"]
    where = [text.index(t[:40]) for t in TEXTS]
    assert where == sorted(where)
    assert "oak_novice · Jun 10, 2024" in text
    assert "Click to expand" not in text


def test_dated_news_entries_headed_by_links_to_their_pages_are_not_posts():
    entry = (
        "<div class='news-item'><h3><a href='/news/%d'>Lab wins a grant for work number %d</a></h3>"
        "<time datetime='2024-05-0%dT00:00:00'>May %d, 2024</time><p>%s</p></div>"
    )
    body = lhtml.fromstring(
        "<html><body><h1>News</h1><div class='news'>%s</div></body></html>"
        % "".join(entry % (n, n, n + 1, n + 1, t) for n, t in enumerate(TEXTS))
    ).find(".//body")
    assert T.post_run(body) is None


ARTICLE = [
    "Sitting in the airport again, I have had time to think about how this trip started. The storm closed in on "
    "the coast while I was still in Copenhagen, so I moved my flight up and rerouted through Atlanta instead.",
    "The hotel by the airport was full of people doing the same thing, and the desk staff handed out maps and "
    "coffee to everyone who asked. Nobody knew when the next flight north would leave or if it would leave at all.",
    "This morning the board finally showed a flight home. I boarded with a cup of bad coffee and a bag of film, "
    "and as the wheels left the runway I decided that next time I will stay where I am and wait it out.",
]


COMMENT = """<li class="comment" id="comment-%(n)d"><article class="comment-body">
  <div class="comment-meta"><div class="comment-author vcard"><b class="fn">%(author)s</b> says:</div>
  <div class="comment-metadata"><time datetime="2012-10-30T11:0%(n)d:00">October 30, 2012 at 11:0%(n)d am</time></div>
  </div><div class="comment-content"><p>%(text)s</p></div></article></li>"""


def test_posts_that_follow_an_articles_prose_are_its_comments_not_a_thread():
    # five signed, dated comments that outweigh the article: the markup says "forum"
    comments = "".join(
        COMMENT % {"n": n + 1, "author": AUTHORS[n % 3], "text": TEXTS[n % 3] + " " + TEXTS[(n + 1) % 3]}
        for n in range(5)
    )
    page = (
        "<html><head><title>Wheels up</title></head><body><h1>Wheels up</h1><div class='entry'>%s</div>"
        "<div id='comments'><ol class='commentlist'>%s</ol></div></body></html>"
        % ("".join("<p>%s</p>" % p for p in ARTICLE), comments)
    )
    body = lhtml.fromstring(page).find(".//body")
    assert T.thread_by_structure(body) is not None  # the structure shows a run of signed posts ...
    assert T.prose_before_posts(body, 30) >= 100  # ... after an article's prose
    for fmt in ("text", "markdown"):
        r = extract(page, url="https://photo.example.com/blog/2012/10/30/wheels-up/", fmt=fmt)
        text = r["text"]
        assert r["page_type"] == "article", r["page_type"]
        assert all(p[:40] in text for p in ARTICLE), text  # the article, which the thread alone left out
        assert text.index(ARTICLE[-1][:40]) < text.index("Comments") < text.index(TEXTS[0][:40])  # then its comments
    # a board's opening post is one of the run: no prose before it, read as the thread
    assert T.prose_before_posts(lhtml.fromstring(_board()).find(".//body"), 30) == 0
