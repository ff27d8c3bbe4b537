"""The page's main region, kept whole: the extractor for pages that are not articles.

trafilatura is built for articles: it keeps the longest run of prose and drops what
looks like link lists, short lines and repeated blocks. On a listing, a forum thread,
a product or a documentation page those *are* the content (entry titles are links,
posts are short, specifications are short lines). This keeps everything in the
page's main region and removes only what a reader would call chrome:

1. what is never shown or never text (scripts, styles, forms' controls, hidden
   elements, comments);
2. the page's landmarks that are not the content (nav, header, footer, aside and
   their ARIA roles), and elements whose class or id says they are chrome (cookie
   banners, breadcrumbs, share bars, "related" blocks, pagination);
3. menus: lists whose entries are nothing but a short link;

then takes the main region (<main>, role=main, or the body) when it holds enough
of the page's text. Nothing is removed that holds most of the region's text: a
class name is a hint, not a verdict.

Pure functions over an lxml tree (which they copy); no I/O.
"""

import re

NEVER_TEXT = ("script", "style", "noscript", "template", "svg", "iframe", "object", "embed", "canvas",
              "button", "select", "option", "textarea", "input", "label", "dialog", "link", "meta", "head")
LANDMARKS = ("nav", "header", "footer", "aside")
LANDMARK_ROLES = {"navigation", "banner", "contentinfo", "complementary", "search", "dialog", "alertdialog",
                  "menu", "menubar", "toolbar"}
# Class names and ids that name page chrome, when the word starts or ends the name
# ("site-footer", "cookie-banner", "share-buttons"): a word in the middle of a
# framework's long class name ("ast-default-menu-enable") says nothing.
CHROME_WORDS = frozenset("""
nav navbar navigation menu menubar breadcrumb breadcrumbs cookie cookies consent gdpr share sharing
social newsletter subscribe signup related recommended suggested similar popular trending pagination
pager skip
advert advertisement ads sponsored promo toolbar sidebar masthead footer topbar modal popup overlay
toc login search searchbox
""".split())
_NAME_PARTS = re.compile(r"[-_]+")
_WORD = re.compile(r"\w+")
HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
# A chrome-looking element is kept when it holds this share of the region's text or more.
KEEP_SHARE = 0.35
# A <main> that holds less than this share of the body's text is a wrapper around a
# fragment (a hero, a search box): the body is the better region.
MAIN_SHARE = 0.25
NOSCRIPT_WORDS = 30
MENU_LINK_WORDS = 4
LINK_BAR_WORDS = 40  # entries of at most this many words, all link, make a menu


def word_count(el):
    """Whitespace-separated words of all the text below el."""
    try:
        return len("".join(el.itertext()).split())
    except ValueError:
        return 0


def chrome_named(el):
    """Whether a class name or the id of el names page chrome (see CHROME_WORDS)."""
    for name in ((el.get("class") or "") + " " + (el.get("id") or "")).split():
        parts = [p for p in _NAME_PARTS.split(name.lower()) if p]
        if parts and (parts[0] in CHROME_WORDS or parts[-1] in CHROME_WORDS):
            return True
    return False


def _drop(el):
    """Remove el and its content, keeping the text that followed it."""
    if el.getparent() is None:
        return
    if hasattr(el, "drop_tree"):  # lxml.html elements join the tail to what came before
        el.drop_tree()
        return
    parent, prev = el.getparent(), el.getprevious()
    tail = el.tail or ""
    parent.remove(el)
    if tail:
        if prev is not None:
            prev.tail = (prev.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail


def hidden(el):
    """Whether el's own inline style hides it from a reader.

    Only the inline style: the [hidden] attribute and aria-hidden also mark collapsed
    tabs and accordions whose text is part of the content.
    """
    style = el.get("style")
    return bool(style and HIDDEN_STYLE.search(style))


def strip_never_text(root):
    from lxml import etree
    # Some sites (Discourse, for one) serve their whole content to non-script readers
    # inside <noscript>: a large one is content; small ones are pixels and "enable JS".
    for el in list(root.iter("noscript")):
        if word_count(el) >= NOSCRIPT_WORDS:
            el.tag = "div"
    etree.strip_elements(root, *NEVER_TEXT, etree.Comment, etree.ProcessingInstruction, with_tail=False)
    # an anti-flicker style on a wrapper of the whole page is not "hidden from a reader"
    limit = KEEP_SHARE * word_count(root)
    for el in [e for e in root.iter() if isinstance(e.tag, str) and hidden(e)]:
        if el.getparent() is not None and word_count(el) < limit:
            _drop(el)


def _is_menu(el):
    """A list whose entries are nothing but short links (a sub-menu nested in an entry
    counts as links too: documentation sidebars are trees of them)."""
    items = [c for c in el if isinstance(c.tag, str)]
    if len(items) < 3:
        return False
    for li in items:
        words = word_count(li)
        if words == 0:
            continue
        links = li.findall(".//a")
        if not links:
            return False
        link_words = sum(word_count(a) for a in links)
        if link_words < words or link_words > MENU_LINK_WORDS * len(links):
            return False
    return True


def _is_link_bar(el):
    """A short block that is nothing but several short links (a repository's tabs, a
    tag cloud, "Home / Docs / Blog")."""
    words = word_count(el)
    if not words or words > LINK_BAR_WORDS:
        return False
    links = el.findall(".//a")
    if len(links) < 3:
        return False
    tokens = len(_WORD.findall(el.text_content()))  # separators ("/", "|", "·") are not words
    link_tokens = sum(len(_WORD.findall(a.text_content())) for a in links)
    return link_tokens >= tokens and link_tokens <= MENU_LINK_WORDS * len(links)


def prune_chrome(root, total=None):
    """Remove landmarks, chrome-named elements and menus below root (not root itself)."""
    total = total if total is not None else max(1, word_count(root))
    limit = KEEP_SHARE * total
    doomed = []
    for el in root.iter():
        if el is root or not isinstance(el.tag, str):
            continue
        tag = el.tag
        role = (el.get("role") or "").lower()
        if tag in LANDMARKS or role in LANDMARK_ROLES:
            if word_count(el) < limit:
                doomed.append(el)
            continue
        if tag not in ("body", "main", "article") and chrome_named(el):
            if word_count(el) < limit:
                doomed.append(el)
            continue
        if (tag in ("ul", "ol") and _is_menu(el)) or (tag in ("div", "p", "section") and _is_link_bar(el)):
            doomed.append(el)
    for el in doomed:
        _drop(el)


def main_region(tree, url=None):
    """A cleaned copy of the page's main region (an element), or None; links made
    absolute against url."""
    import copy
    body = tree.find(".//body")
    if body is None:
        body = tree
    body = copy.deepcopy(body)
    strip_never_text(body)
    total = word_count(body)
    if not total:
        return None
    root = body
    for cand in body.xpath(".//main | .//*[@role='main']"):
        if word_count(cand) >= MAIN_SHARE * total:
            root = cand
            break
    prune_chrome(root, word_count(root))
    absolute_links(root, url)
    return root


def absolute_links(root, url):
    """Make root's link targets absolute against url; drop in-page and script targets.

    lxml's make_links_absolute runs urljoin on every link (3 s on a page of 60,000
    links); most hrefs are already absolute or rooted, which string work settles.
    """
    from urllib.parse import urljoin, urlsplit
    origin = scheme = None
    if url:
        try:
            parts = urlsplit(url)
            scheme, origin = parts.scheme, "%s://%s" % (parts.scheme, parts.netloc)
        except ValueError:
            url = None
    for a in root.iter("a"):
        href = (a.get("href") or "").strip()
        if not href or href.startswith(("#", "javascript:", "data:")):
            a.attrib.pop("href", None)  # in-page and script links are not links for a reader
            continue
        if not url or href.startswith(("http://", "https://", "mailto:")):
            continue
        try:
            if href.startswith("//"):
                a.set("href", scheme + ":" + href)
            elif href.startswith("/"):
                a.set("href", origin + href)
            else:
                a.set("href", urljoin(url, href))
        except (ValueError, TypeError):
            a.attrib.pop("href", None)


# schema.org properties that hold a post's own text (Discourse, XenForo, Stack Exchange,
# phpBB themes and most forum software mark their posts up this way)
POST_TEXT_PROPS = ("text", "articleBody", "commentText")
POSTS_MIN_SHARE = 0.3  # the marked posts must hold this share of the region's words


def posts(root):
    """The thread in root as (title element or None, [(post element, author, date, accepted)]),
    from the posts' schema.org markup, or None when the page does not mark its posts."""
    marked = [el for el in root.iter() if isinstance(el.tag, str) and el.get("itemprop") in POST_TEXT_PROPS]
    top = [el for el in marked if not any(a in marked for a in el.iterancestors())]
    if len(top) < 2:
        return None
    words = sum(word_count(el) for el in top)
    if words < POSTS_MIN_SHARE * max(1, word_count(root)):
        return None
    out = []
    for el in top:
        scope = next((a for a in el.iterancestors() if a.get("itemscope") is not None), None)
        author = date = None
        accepted = False
        if scope is not None:
            accepted = scope.get("itemprop") == "acceptedAnswer"
            for node in scope.iter():
                if not isinstance(node.tag, str) or node is el or any(a is el for a in node.iterancestors()):
                    continue
                prop = node.get("itemprop")
                if prop == "author" and author is None:
                    name = node.find(".//*[@itemprop='name']")
                    src = name if name is not None else node
                    author = src.get("content") or " ".join("".join(src.itertext()).split())[:80] or None
                elif prop in ("datePublished", "dateCreated") and date is None:
                    date = node.get("datetime") or node.get("content") or " ".join("".join(node.itertext()).split())
        out.append((el, author, date or None, accepted))
    title = root.find(".//h1")
    return title, out


def thread_root(root):
    """A new element holding the thread: its title, then each post under a line naming its
    author and date (and "accepted answer"), or None (see posts)."""
    import copy

    from lxml import etree
    found = posts(root)
    if found is None:
        return None
    title, items = found
    out = etree.Element("div")
    if title is not None:
        out.append(copy.deepcopy(title))
        out[-1].tail = None
    for el, author, date, accepted in items:
        meta = [x for x in (author, date[:10] if date and len(date) >= 10 and date[4:5] == "-" else date) if x]
        if accepted:
            meta.append("accepted answer")
        if meta:
            p = etree.SubElement(out, "p")
            b = etree.SubElement(p, "strong")
            b.text = " · ".join(meta)
        post = copy.deepcopy(el)
        post.tail = None
        post.tag = "div"
        out.append(post)
    return out
