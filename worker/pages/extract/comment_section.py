"""Readers' comments under an article: trafilatura's comment section put after the
article under a heading of its own, and that section's furniture (counts, reply
buttons, the form's prompts) marked, then left out of the text given.
"""

from __future__ import annotations

from . import thresholds as th
from .decide import COMMENTS_MARK

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any


HEADING = "Comments"


# The comment section's own furniture, not anyone's comment: its count ("2 comments",
# "10 thoughts on ..."), the form's prompts and notices, reply and quote buttons,
# "comments are closed". Matched on a short element's whole text only.
CHROME = (
    r"(\W*(\d+|no|one)\s+(comments?|responses?|replies|thoughts?|trackbacks?)\b.*|comments?\W*|"
    r"(this (article|story|post|entry) has )?no comments( yet)?\W*|there are no comments( added)? yet\W*|"
    r"be the first to (post a |leave a |add a )?comment\b.*|"
    r"(leave|post|add|write|submit)( a| your| own| new)* (reply|comment|response)\b.*|"
    r".*comments (are|have (now )?been) closed.*|report (this comment |this )?(as )?(inappropriate|abuse)\W*|"
    r"vote on this comment\b.*|\d+ agree \| \d+ disagree|"
    r".*(must|need to) (be )?(log(ged)? ?in|sign(ed)? ?in|registered)\b.*|(log ?in|sign ?in|register) to (leave|post|add)\b.*|"
    r".*(want to join the discussion|feel free to contribute|join the conversation).*|"
    r".*your email( address)? will not be published.*|.*required fields are marked.*|\W*(reply|quote|share)\W*|"
    r"cancel reply|\W*(previous|older|newer|next) comments\W*|total comments \(\d+\)|no account\?.*)"
)


def append(doc: Any) -> None:
    """The readers' comments trafilatura found, after the article under a heading of their
    own, so that a reader (or a model) can tell the article from what others said of it.
    The section's furniture (COMMENT_CHROME) is marked here and left out of the text
    given (_drop_comment_chrome); the decisions between extractors see it as before."""
    import re

    from lxml import etree

    comments, body = getattr(doc, "commentsbody", None), doc.body
    if comments is None or body is None or not len(comments) or not "".join(comments.itertext()).strip():
        return
    chrome = re.compile(CHROME, re.I)
    head = etree.SubElement(body, "head", rend="h2")
    head.text = HEADING
    head.set(COMMENTS_MARK, "head")
    for child in list(comments):
        text = " ".join("".join(child.itertext()).split())
        if not text or (len(text.split()) <= th.T.COMMENT_CHROME_WORDS and chrome.fullmatch(text)):
            child.set(COMMENTS_MARK, "chrome")
        elif child.tail and chrome.fullmatch(" ".join(child.tail.split())):
            child.set(COMMENTS_MARK, "tail")  # a "Reply" button after the comment's text
        body.append(child)


def drop_chrome(doc: Any) -> bool:
    """Remove the comment section's marked furniture from doc, and the section's heading
    when no comment is left ("0 comments" and a reply form are not what the page says).
    Whether anything was removed."""
    body = getattr(doc, "body", None)
    if body is None:
        return False
    marked = body.xpath("*[@%s]" % COMMENTS_MARK)
    if not marked:
        return False
    dropped = False
    for el in marked:
        if el.get(COMMENTS_MARK) == "chrome":
            body.remove(el)  # its tail goes too: after furniture, what follows is furniture or space
            dropped = True
        elif el.get(COMMENTS_MARK) == "tail":
            el.tail = None
            dropped = True
    head = marked[0] if marked[0].get(COMMENTS_MARK) == "head" else None
    if head is not None and head.getnext() is None:
        body.remove(head)
        dropped = True
    for el in marked:  # the marks are notes between stages, not the page's: html output shows none
        el.attrib.pop(COMMENTS_MARK, None)
    return dropped
