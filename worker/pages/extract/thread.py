"""A forum thread's posts: from their schema.org markup (``thread_root``), else found by
the page's structure (``thread_by_structure``).

Forum software builds a thread as a run of alike blocks, one per post: siblings with
the same tag and first class (phpBB's ``div.post``, XenForo's ``article.message``,
Invision's ``article.cPost``, FluxBB's ``div.blockpost``, a table row per message).
Everything else in the page's main region is chrome a reader skips: other threads of
the board, sidebars, guest banners, "reply" forms. So when one run of alike blocks

- holds most of the region's words (POST_SHARE),
- is made of long blocks (POST_MIN_AVG words on average), and
- in most of its blocks names an author or a date (a <time>, or a class such as
  "author", "username", "poster", "postprofile"),

the thread is the title plus that run, in the page's order; the rest of the region
goes. Pure functions over an lxml tree; no I/O.
"""

from __future__ import annotations

import re

from . import thresholds as th
from .tree import drop, word_count

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from lxml.html import HtmlElement  # no stubs: Any to the checker


# Tags a post is built as (a table row too: older boards lay each message out in one).
POST_TAGS = frozenset(("article", "div", "li", "section", "tr", "table"))
# Class names and ids that mark a post's author or date (a word inside the name, as
# in "message-userDetails" or "post_author").
_SIGNED = re.compile(
    r"author|user-?name|poster|byline|avatar|postprofile|userinfo|user-info|post-?date|timestamp", re.I
)


def _word_map(root: HtmlElement) -> dict[HtmlElement, int]:
    """Words below each element of root, counted in one walk (children before parents)."""
    words: dict[HtmlElement, int] = {}
    for el in reversed(list(root.iter())):
        n = len(el.text.split()) if isinstance(el.tag, str) and el.text else 0
        for child in el:
            n += words.get(child, 0) + (len(child.tail.split()) if child.tail else 0)
        words[el] = n
    return words


def _signed(el: HtmlElement) -> bool:
    """Whether el shows an author or a date: a <time>, a datetime, or a class naming them."""
    for d in el.iter():
        if not isinstance(d.tag, str):
            continue
        if d.tag == "time" or d.get("datetime") is not None:
            return True
        name = (d.get("class") or "") + " " + (d.get("id") or "")
        if name.strip() and _SIGNED.search(name):
            return True
    return False


def _runs(root: HtmlElement, words: dict[HtmlElement, int], least: int) -> list[list[HtmlElement]]:
    """Runs of alike siblings (same tag and first class) below root holding ``least``
    words or more, largest first."""
    out: list[list[HtmlElement]] = []
    for parent in root.iter():
        if not isinstance(parent.tag, str) or len(parent) < th.T.POST_MIN or words.get(parent, 0) < least:
            continue
        groups: dict[tuple[str, str], list[HtmlElement]] = {}
        for child in parent:
            if isinstance(child.tag, str) and child.tag in POST_TAGS:
                groups.setdefault(_signature(child), []).append(child)
        for members in groups.values():
            if len(members) >= th.T.POST_MIN and sum(words[m] for m in members) >= least:
                out.append(members)
    out.sort(key=lambda run: -sum(words[m] for m in run))
    return out


def _signature(el: HtmlElement) -> tuple[str, str]:
    """el's tag and first class, digits at its end dropped: boards colour every other
    post ("bg1", "bg2"; "windowbg", "windowbg2") and the posts are one run still."""
    cls = (el.get("class") or "").split()
    return el.tag, (cls[0].rstrip("0123456789") if cls else "")


def _is_posts(run: list[HtmlElement], words: dict[HtmlElement, int]) -> bool:
    texty = [m for m in run if words[m]]
    if len(texty) < th.T.POST_MIN or sum(words[m] for m in texty) < th.T.POST_MIN_AVG * len(texty):
        return False
    if sum(1 for m in texty if _titled(m)) >= th.T.TITLED_SHARE * len(texty):
        return False
    return sum(1 for m in texty if _signed(m)) >= th.T.SIGNED_SHARE * len(texty)


def _titled(el: HtmlElement) -> bool:
    """Whether el opens with a heading that is a link elsewhere of TITLE_WORDS or more: an
    entry of a list of news or results, which leads to its page (a post's heading is its
    author's name or a subject line that links, if at all, to the post itself)."""
    for h in el.iter("h1", "h2", "h3", "h4", "h5", "h6"):
        a = h.find(".//a[@href]")
        if a is None:
            a = next((p for p in h.iterancestors("a") if p.get("href")), None)
        # a link to a place in a page ("#p549") is a post's permalink, not an entry's page
        return a is not None and "#" not in a.get("href", "") and len(_text(a).split()) >= th.T.TITLE_WORDS
    return False


def post_run(root: HtmlElement, words: dict[HtmlElement, int] | None = None) -> list[HtmlElement] | None:
    """The thread's posts in root (elements, in order) found by structure, or None;
    words is root's _word_map when the caller has it."""
    words = words if words is not None else _word_map(root)
    total = words.get(root, 0)
    if not total:
        return None
    found = [run for run in _runs(root, words, int(th.T.POST_SHARE * total)) if _is_posts(run, words)]
    if not found:
        return None
    best = found[0]
    for run in found[1:]:
        inside = any(run[0] in set(m.iterdescendants()) for m in best)
        if (
            inside
            and len(run) > len(best)
            and sum(words[m] for m in run) >= th.T.NESTED_SHARE * sum(words[m] for m in best)
        ):
            best = run
    return best


# A post's own text sits in an element whose class names it (phpBB's "content", XenForo's
# "message-body", Invision's "ipsType_richText", SMF's "post", MyBB's "post_body").
CONTENT_PARTS = frozenset(("content", "body", "text", "message", "post", "postbody", "richtext", "msg"))
# Parts of a post that are about its author or are controls, not what the author wrote:
# profile panes ("Posts: 4,032", "Joined"), signatures, avatars, reply and like buttons,
# a quote's "Click to expand..." link.
POST_CHROME_PARTS = frozenset(
    """
signature sig user userinfo author poster profile postprofile avatar controls actions buttons reactions likes
share footer toolbar expand
""".split()
)
SIGNATURE_PARTS = frozenset(("signature", "sig"))
POST_CHROME_TAGS = frozenset(("div", "dl", "ul", "ol", "section", "aside", "footer", "header", "table", "p"))
# Where a post names its author: the first element whose class says so (or is "name").
AUTHOR_PARTS = ("username", "author", "poster")
DATE_PARTS = frozenset(("date", "time", "timestamp", "posted", "postdate", "datetime"))
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_PARTS = re.compile(r"[^a-z0-9]+")


def _names(el: HtmlElement) -> list[list[str]]:
    """The words of each of el's class names and its id, lower case ("message-userContent"
    -> [message, user, content])."""
    name = (el.get("class") or "") + " " + (el.get("id") or "")
    out = []
    for n in name.split():
        parts = [p for p in _PARTS.split(_CAMEL.sub("-", n).lower()) if p]
        if parts:
            out.append(parts)
    return out


def _parts(el: HtmlElement) -> set[str]:
    """All the words of el's class names and id."""
    return {p for parts in _names(el) for p in parts}


def _content_named(el: HtmlElement) -> bool:
    """Whether a class name of el ends in a word naming a post's text ("message-body",
    "postText"; not "message-userExtras": forum software prefixes every part of a post)."""
    return any(parts[-1] in CONTENT_PARTS for parts in _names(el))


def _text(el: HtmlElement) -> str:
    return " ".join("".join(el.itertext()).split())


def post_body(post: HtmlElement, words: dict[HtmlElement, int]) -> HtmlElement:
    """The element of post holding its own text: the deepest one whose class names a
    body (CONTENT_PARTS) and holds BODY_SHARE of the post's words outside its profile
    pane and signature (POST_CHROME_PARTS), never one inside those; else post."""
    chrome = [d for d in post.iterdescendants() if isinstance(d.tag, str) and _is_post_chrome(d)]
    skip: set[HtmlElement] = set()
    for d in chrome:
        if d not in skip:
            skip.update(d.iter())
    own = words.get(post, 0) - sum(words.get(d, 0) for d in chrome if d.getparent() not in skip)
    best, depth = post, -1
    for d in post.iterdescendants():
        if d in skip or not isinstance(d.tag, str) or words.get(d, 0) < th.T.BODY_SHARE * own:
            continue
        if _content_named(d):
            n = sum(1 for _ in d.iterancestors())
            if n > depth:
                best, depth = d, n
    return best


def post_byline(post: HtmlElement, body: HtmlElement) -> tuple[str | None, str | None]:
    """(author, date) of a post as the page shows them outside its body, or None each."""
    author = date = None
    inside = set(body.iter()) if body is not post else set()
    for d in post.iter():
        if not isinstance(d.tag, str) or d in inside:
            continue
        if date is None and (d.tag == "time" or (_parts(d) & DATE_PARTS)):
            shown = _text(d)
            if shown and any(c.isdigit() for c in shown) and len(shown.split()) <= 2 * th.T.NAME_WORDS:
                date = shown
            elif d.get("datetime"):
                date = d.get("datetime")
        if author is None:
            parts = _parts(d)
            if "name" in parts or any(p.startswith(AUTHOR_PARTS) for p in parts):
                src = (
                    d if len(_text(d).split()) <= th.T.NAME_WORDS else next((a for a in d.iter("a") if _text(a)), None)
                )
                if src is not None and 0 < len(_text(src).split()) <= th.T.NAME_WORDS:
                    author = _text(src)
    return author, date


def _is_post_chrome(el: HtmlElement) -> bool:
    return el.tag in POST_CHROME_TAGS and bool(_parts(el) & POST_CHROME_PARTS) and not _content_named(el)


def clean_post(body: HtmlElement) -> None:
    """Remove, in place, the parts of a post's body that are not what its author wrote
    (profile panes, signatures, buttons: POST_CHROME_PARTS); never most of the body."""
    limit = th.T.BODY_SHARE * word_count(body)
    doomed = [d for d in body.iterdescendants() if isinstance(d.tag, str) and _is_post_chrome(d)]
    for d in doomed:
        # a signature is never the post, however long; other names are hints
        if d.getparent() is not None and (word_count(d) < limit or _parts(d) & SIGNATURE_PARTS):
            drop(d)


def unmarked_posts(
    root: HtmlElement, marked: list[HtmlElement]
) -> list[tuple[HtmlElement, HtmlElement, str | None, str | None]]:
    """The opening posts of root's thread that its schema.org markup leaves out, as
    (post, body, author, date): members of the thread's run of alike blocks (post_run)
    before the first that holds a marked post text. Boards mark the replies and leave
    the opening post to the page's main entity, elsewhere or nowhere; it is a post all
    the same. Only when the run holds half the marked posts or more: else it is
    another run."""
    words = _word_map(root)
    run = post_run(root, words)
    if run is None or not marked:
        return []
    wanted = set(marked)
    held = {m: sum(1 for d in m.iter() if d in wanted) for m in run}
    if sum(held.values()) < th.T.MARKED_HELD * len(marked):
        return []
    out = []
    for m in run:
        if held[m]:
            break  # after the first marked post, an unmarked block is not the opening post
        if not words.get(m):
            continue
        body = post_body(m, words)
        author, date = post_byline(m, body)
        out.append((m, body, author, date))
    return out


def post_copy(body: HtmlElement) -> HtmlElement:
    """A copy of a post's body, cleaned (clean_post), as a block to append to a thread."""
    import copy

    post = copy.deepcopy(body)
    post.tail = None
    if post.tag not in ("div", "article", "section", "blockquote"):
        post.tag = "div"
    clean_post(post)
    return post


def thread_by_structure(root: HtmlElement) -> HtmlElement | None:
    """A new element holding the thread: the page's title (its first <h1> outside the
    posts), then each post found by post_run under a line naming its author and date,
    as thread_root does for marked-up posts; None when none are found."""
    import copy

    from lxml import etree

    words = _word_map(root)
    run = post_run(root, words)
    if run is None:
        return None
    inside = set()
    for m in run:
        inside.update(m.iter())
    out = etree.Element("div")
    title = next((h for h in root.iter("h1") if h not in inside), None)
    if title is not None:
        out.append(copy.deepcopy(title))
        out[-1].tail = None
    for m in run:
        body = post_body(m, words)
        author, date = post_byline(m, body)
        meta = [x for x in (author, date) if x]
        if meta:
            p = etree.SubElement(out, "p")
            b = etree.SubElement(p, "strong")
            b.text = " · ".join(meta)
        out.append(post_copy(body))
    return out


def prose_before_posts(root: HtmlElement, prose_words: int) -> int:
    """Words of the paragraphs of prose_words and more that come before the first post of
    root's run of posts (post_run), outside it: a blog post's article, which its
    comments follow, and which a forum's thread (its first post one of the run) has not."""
    run = post_run(root, _word_map(root))
    if not run:
        return 0
    first = run[0]
    enclosing = set(first.iterancestors())
    total = 0
    for el in root.iter():
        if el is first:
            break
        if el.tag == "p" and el not in enclosing:
            n = word_count(el)
            if n >= prose_words:
                total += n
    return total


# schema.org properties that hold a post's own text (Discourse, XenForo, Stack Exchange,
# phpBB themes and most forum software mark their posts up this way)
POST_TEXT_PROPS = ("text", "articleBody", "commentText")


def posts(
    root: HtmlElement,
) -> tuple[HtmlElement | None, list[tuple[HtmlElement, str | None, str | None, bool]]] | None:
    """The thread in root as (title element or None, [(post element, author, date, accepted)]),
    from the posts' schema.org markup, or None when the page does not mark its posts."""
    marked = [el for el in root.iter() if isinstance(el.tag, str) and el.get("itemprop") in POST_TEXT_PROPS]
    top = [el for el in marked if not any(a in marked for a in el.iterancestors())]
    if len(top) < 2:
        return None
    words = sum(word_count(el) for el in top)
    if words < th.T.POSTS_MIN_SHARE * max(1, word_count(root)):
        return None
    out: list[tuple[HtmlElement, str | None, str | None, bool]] = []
    for el in top:
        scopes = [a for a in el.iterancestors() if a.get("itemscope") is not None]
        scope = scopes[0] if scopes else None
        if len(scopes) > 1 and _is_qa_comment(scopes[0], scopes[1]):
            continue
        author = date = None
        accepted = False
        if scope is not None:
            accepted = scope.get("itemprop") == "acceptedAnswer"
            for node in scope.iter():
                if not isinstance(node.tag, str) or node is el or any(a is el for a in node.iterancestors()):
                    continue
                prop = node.get("itemprop")
                if prop == "author" and author is None:
                    # its name, else its first link (a Q&A site's author block also
                    # holds reputation and badges)
                    name = node.find(".//*[@itemprop='name']")
                    if name is None:
                        name = node.find(".//a")
                    src = name if name is not None and word_count(name) else node
                    author = src.get("content") or " ".join("".join(src.itertext()).split())[:80] or None
                elif prop in ("datePublished", "dateCreated") and date is None:
                    # as the page shows it ("Mar 4, 2021"), else the machine-readable form
                    shown = " ".join("".join(node.itertext()).split())
                    if not any(c.isdigit() for c in shown):
                        shown = ""
                    date = shown or node.get("datetime") or node.get("content")
        out.append((el, author, date or None, accepted))
    # the thread's title, not a heading inside a post
    title = next((h for h in root.iter("h1") if not any(a in top for a in h.iterancestors())), None)
    return title, out


def _itemtype(el: HtmlElement) -> str:
    return (el.get("itemtype") or "").rstrip("/").rsplit("/", 1)[-1]


def _is_qa_comment(scope: HtmlElement, outer: HtmlElement) -> bool:
    """Whether scope is a comment on a question or an answer (a Q&A site's side remark,
    not a post of the thread). A forum's replies are comments on the thread's first
    post (DiscussionForumPosting): those are posts."""
    return (scope.get("itemprop") == "comment" or _itemtype(scope) == "Comment") and _itemtype(outer) in (
        "Question",
        "Answer",
    )


def thread_root(root: HtmlElement) -> HtmlElement | None:
    """A new element holding the thread: its title, then each post under a line naming its
    author and date (and "accepted answer"), or None (see posts). Posts the markup leaves
    out (an opening post not marked up as the replies are) come from the page's
    structure (thread.unmarked_posts), in the page's order."""
    import copy

    from lxml import etree

    found = posts(root)
    if found is None:
        return None
    title, items = found
    marked = [el for el in root.iter() if isinstance(el.tag, str) and el.get("itemprop") in POST_TEXT_PROPS]
    extra = unmarked_posts(root, marked)
    order = {el: i for i, el in enumerate(root.iter())} if extra else {}
    entries: list[tuple[int, HtmlElement, list[str], bool]] = []
    for el, author, date, accepted in items:
        meta = [x for x in (author, date[:10] if date and len(date) >= 10 and date[4:5] == "-" else date) if x]
        if accepted:
            meta.append("accepted answer")
        entries.append((order.get(el, 0), el, meta, False))
    for member, body, author, date in extra:
        entries.append((order[member], body, [x for x in (author, date) if x], True))
    entries.sort(key=lambda e: e[0])  # stable: without extra posts, the markup's order
    out = etree.Element("div")
    if title is not None:
        out.append(copy.deepcopy(title))
        out[-1].tail = None
    for _, el, meta, by_structure in entries:  # each post's copy without its signature and buttons
        if meta:
            p = etree.SubElement(out, "p")
            b = etree.SubElement(p, "strong")
            b.text = " · ".join(meta)
        post = post_copy(el)
        if not by_structure:
            post.tag = "div"
        out.append(post)
    return out
