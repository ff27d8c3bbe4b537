"""What a reader cannot see does not reach the model.

Pure functions:

* ``strip(tree)`` removes, before extraction, the elements a browser would not show:
  inline styles that hide (``display:none``, ``visibility:hidden``, zero size, off
  screen, transparent), ``<template>`` and comments, and elements hidden by the
  page's own simple stylesheet rules. The ``hidden`` attribute, ``aria-hidden`` and
  stylesheet classes are weaker evidence: collapsed tabs, accordions and ``<details>``
  panels carry them while being content a reader opens with one click, and
  ``aria-hidden`` marks decorative text that sighted readers *do* see. Those are
  removed only when they are not such a panel and their text reads like
  instructions to a model, or (for ``hidden`` and stylesheet rules) when they are
  not a panel at all. Segments a page streams hidden and its script then shows in
  place (React's Suspense) are put there first. ``drop_status_messages(body)``, run by
  extraction on pages within its work budget, removes a script's failure message
  ("Oops! Something went wrong. Please try again."): a page that worked never shows it.
* invisible characters in the output are invisible.py's (``clean_text``).

The counts and the "looked like instructions" flag go back to the caller, which
reports them on the item.
"""

from __future__ import annotations

import re
from itertools import islice

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from lxml.html import HtmlElement  # no stubs: Any to the checker


# --- inline styles that hide an element -------------------------------------------------
_DECL = re.compile(r"([a-z-]+)\s*:\s*([^;]+)", re.I)
_ZERO = re.compile(r"^\s*-?0+(?:\.0+)?(?:px|em|rem|%|pt|vw|vh)?\s*(?:!important)?\s*$", re.I)
_FAR = re.compile(r"^\s*-\s*(\d+(?:\.\d+)?)\s*(px|em|rem|pt|vw|vh|%)?", re.I)
_FAR_MIN = {"px": 500, "pt": 400, "em": 50, "rem": 50, "vw": 100, "vh": 100, "%": 100, None: 500}
_CLIP_NONE = re.compile(
    r"rect\(\s*0(?:px)?[\s,]+0(?:px)?[\s,]+0(?:px)?[\s,]+0(?:px)?\s*\)|inset\(\s*(?:50%|100%)", re.I
)


# Every hiding declaration below matches _HIDES (a property with the value that hides);
# most inline styles and nearly every stylesheet rule are settled before any
# declaration is parsed, first by substring tests (C speed), then by the regex over
# the lower-cased text (a case-insensitive regex costs several times more). Looser
# words ("none", "hidden") matched a third of a framework's rules, and made the
# page's stylesheets cost milliseconds. Each alternative starts with a letter of its
# own, not a group: the regex engine then skips, at C speed, the positions where no
# alternative can start (a third faster).
_HIDES = re.compile(
    r"display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)|opacity\s*:\s*[-0.]|"
    r"font-size\s*:\s*[-0.]|color\s*:\s*transparent|width\s*:\s*[-0.]|height\s*:\s*[-0.]|"
    r"rect\(|inset\(|left\s*:\s*-|top\s*:\s*-|right\s*:\s*-|text-indent\s*:\s*-|scale\("
)
_WORDS = (
    "none",
    "hidden",
    "collapse",
    "opacity",
    "font-size",
    "transparent",
    "rect(",
    "inset(",
    "scale(",
    "width",
    "height",
    ":-",
    ": -",
)


def _may_hide(low: str) -> bool:
    return any(w in low for w in _WORDS) and _HIDES.search(low) is not None


def _rule_may_hide(low: str) -> bool:
    """_may_hide for a stylesheet rule's body: the regex first, as most of a page's own
    rules that name a class it uses hold one of the words (a width, a height)."""
    return _HIDES.search(low) is not None and any(w in low for w in _WORDS)


def _far(value: str) -> bool:
    m = _FAR.match(value)
    return m is not None and float(m.group(1)) >= _FAR_MIN.get((m.group(2) or "").lower() or None, 500)


def style_hides(style: str | None, rule: bool = False) -> bool:
    """Whether a CSS declaration list hides its element from a reader (rule: it is a
    stylesheet rule's body, which only changes the order of the first tests)."""
    if not style:
        return False
    low = style.lower()
    if not (_rule_may_hide(low) if rule else _may_hide(low)):
        return False
    decls: dict[str, str] = {}
    for name, value in _DECL.findall(low):
        decls[name.strip().lower()] = value.strip().lower()
    if not decls:
        return False
    if decls.get("display", "").startswith("none") or decls.get("visibility", "").startswith(("hidden", "collapse")):
        return True
    if "opacity" in decls and _ZERO.match(decls["opacity"]):
        return True
    if "font-size" in decls and _ZERO.match(decls["font-size"]):
        return True
    if decls.get("color", "").startswith("transparent"):
        return True
    clipped = decls.get("overflow", "").startswith(("hidden", "clip"))
    if clipped and any(k in decls and _ZERO.match(decls[k]) for k in ("width", "height", "max-height", "max-width")):
        return True
    if _CLIP_NONE.search(decls.get("clip", "") + " " + decls.get("clip-path", "")):
        return True
    if decls.get("position", "").startswith(("absolute", "fixed")):
        if any(k in decls and _far(decls[k]) for k in ("left", "top", "right")):
            return True
    if "text-indent" in decls and _far(decls["text-indent"]) and clipped:
        return True
    if "transform" in decls and re.search(r"scale\(\s*0(?:\.0+)?\s*[,)]", decls["transform"]):
        return True
    return False


# --- text that speaks to a model rather than a reader ----------------------------------
# Not "run the following command", "developer mode" or "we'll send you ... password":
# documentation and account pages say those to readers, in tabs and menus hidden until
# a click, and they were the only alarms on the 1,515 real pages of the shared sets.
_PAYLOAD = re.compile(
    r"""
    \b(?:ignore|disregard|forget|override)\b[^.\n]{0,40}\b(?:previous|prior|above|earlier|all|any|your)\b[^.\n]{0,30}
        \b(?:instructions?|prompts?|rules|directions|guidelines|context)\b
  | \b(?:new|updated|real|hidden|secret|important|additional)\s+instructions?\b[^.\n]{0,40}\b(?:for|to)\s+(?:the\s+)?
        (?:ai|assistant|model|llm|agent|chatbot|bot)\b
  | \b(?:ai|llm|language[ -]model|assistant|agent|chatgpt|claude|gpt|gemini|copilot)s?\b[^.\n]{0,20}
        (?:reading|processing|summari[sz]ing|browsing|visiting)\s+this\b
  | \b(?:note|message|instructions?)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+)?
        (?:ai|llm|language\s+models?|assistants?|agents?|chatbots?|crawlers?|scrapers?)\b
  | \byou\s+are\s+(?:now\s+)?(?:an?\s+)?(?:ai|assistant|language\s+model|llm|chatbot|helpful\s+assistant)\b
  | \b(?:system\s+prompt|system\s+message|jailbreak|dan\s+mode)\b
  | <\|im_start\|>|<\|system\|>|\[/?inst\]|<<sys>>|^\s*\#{2,3}\s*(?:system|instruction)
  | \b(?:do\s+not|don'?t|never)\s+(?:tell|mention|reveal|inform|show)\s+(?:this\s+to\s+)?the\s+user\b
  | \b(?:when|if)\s+(?:you\s+are\s+)?(?:asked|summari[sz]ing|answering)\b
        [^.\n]{0,60}\b(?:say|respond|reply|answer|recommend|state)\b
  | \b(?:send|post|upload|exfiltrate|forward)\b(?!\s+you\b)[^.\n]{0,60}
        \b(?:api[ _-]?keys?|credentials|passwords?|tokens?|secrets?|ssh\s+keys?|env(?:ironment)?\s+variables?)\b
  | \b(?:curl|wget)\s+[^\n]{0,80}\|\s*(?:ba)?sh\b
""",
    re.I | re.X | re.M,
)


# What any text _PAYLOAD matches must hold (lower-cased, spaces collapsed): for one of
# its alternatives, a word from each group. Testing them first costs microseconds
# where the regex costs a millisecond or more on a long hidden menu, and most hidden
# text on real pages (menus, tabs, icons) passes none of them.
_AI = ("ai", "assistant", "model", "llm", "agent", "bot", "gpt", "claude", "gemini", "copilot")
_PAYLOAD_NEEDS = (
    (
        ("ignore", "disregard", "forget", "override"),
        ("instruction", "prompt", "rule", "direction", "guideline", "context"),
    ),
    (("instruction",), _AI),
    (("reading", "processing", "summari", "browsing", "visiting"), ("this",), _AI),
    (
        (
            "note to",
            "note for",
            "message to",
            "message for",
            "instruction to",
            "instruction for",
            "instructions to",
            "instructions for",
        ),
    ),
    (("you are",),),
    (("system prompt", "system message", "jailbreak", "dan mode"),),
    (("<|", "[inst]", "[/inst]", "<<sys>>", "##"),),
    (("the user",), ("tell", "mention", "reveal", "inform", "show"), ("not", "don't", "dont", "never")),
    (("asked", "summari", "answering"), ("when", "if"), ("say", "respond", "reply", "answer", "recommend", "state")),
    (
        ("send", "post", "upload", "exfiltrate", "forward"),
        ("api key", "api_key", "api-key", "apikey", "credential", "password", "token", "secret", "ssh key", "env"),
    ),
    (("curl", "wget"), ("|",)),
)


def _may_be_payload(flat: str) -> bool:
    return any(all(any(w in flat for w in group) for group in needs) for needs in _PAYLOAD_NEEDS)


def looks_like_instructions(text: str | None) -> bool:
    """Whether hidden text reads like instructions to a model (prompt injection)."""
    if not text:
        return False
    # invisible characters (raw or from entities such as &#8203;) must not split "ig\u200bnore"
    from .invisible import strip_invisible

    text = strip_invisible(text[:20000])
    if not _may_be_payload(" ".join(text.lower().split())):
        return False
    return _PAYLOAD.search(text) is not None


# --- the page's own stylesheet ---------------------------------------------------------
_SIMPLE_SELECTOR = re.compile(r"^\s*([a-z][a-z0-9]*)?([.#][A-Za-z_][\w-]*)\s*$")
# Each simple selector in a sheet (with "}" put before the sheet): the character before
# it ("{", "}" or ","), the selector and its spaces, up to the "," or "{" after it. The
# quantifiers are possessive: nothing they give back could let a selector match, and
# backtracking through the tag name of every declaration ("color:") made it 60% slower.
# One regex for each character before: a regex that starts with one literal character
# skips to it at C speed, where a class of characters is tested at each position (one
# regex for the three took 40% longer).
_SIMPLE_SELECTOR_TAIL = r"\s*+(?:[a-z][a-z0-9]*+)?([.#][A-Za-z_][\w-]*+)\s*+(?=[,{])"
_SIMPLE_SELECTORS = tuple(re.compile(c + _SIMPLE_SELECTOR_TAIL) for c in (r"\}", r"\{", ","))
_RULE = re.compile(r"\{()[^}]*")  # a rule: its first "{" up to the "}" that ends it (the group: no copies)
MAX_RULES = 5000
MAX_CSS_CHARS = 500000


_USED_XPATHS: list[Any] = []  # compiled on first use


class UsedNames:
    """The classes and ids that the elements of body carry, read on first use (an XPath
    over every element: up to a few ms on a large page)."""

    def __init__(self, body: HtmlElement) -> None:
        self.body = body
        self._sets: tuple[set[str], set[str]] | None = None
        self._selectors: set[str] | None = None

    def of(self, kind: str) -> set[str]:
        """The classes (kind ".") or ids (kind "#")."""
        self._read()
        return self._sets[kind == "#"]  # type: ignore[index]

    def selectors(self) -> set[str]:
        """ ".class" and "#id" for each."""
        if self._selectors is None:
            self._selectors = {"." + n for n in self.of(".")} | {"#" + n for n in self.of("#")}
        return self._selectors

    def _read(self) -> None:
        if self._sets is None:
            if not _USED_XPATHS:
                from lxml import etree

                # plain strings: lxml's default strings each keep their element, at twice the cost
                _USED_XPATHS.extend(etree.XPath("descendant::*/@" + a, smart_strings=False) for a in ("class", "id"))
            classes, ids = (xp(self.body) for xp in _USED_XPATHS)
            self._sets = (set(" ".join(classes).split()), set(ids))


# A sheet with more simple selectors than this is read only for the names the page uses
# (the candidates' search reads those names anyway once a rule hides: 10, 50 and 300
# measured the same). Either way the names given back for the page's elements are the same.
READ_ALL_SELECTORS = 10


def sheet_hiders(tree: HtmlElement, used: UsedNames | None = None) -> set[tuple[str, str]]:
    """{("." or "#", name)} that the page's <style> blocks hide with a simple rule; with
    used, the result may leave out names the page does not use.

    Only single-class or single-id selectors (optionally after a tag name): a class
    hidden by a rule with a state (``:not(.show)``, ``.open >``) is hidden only
    until the reader clicks, which is a panel, not a payload.
    """
    texts = []
    for st in tree.iter("style"):
        css = st.text or ""
        if "/*" in css:
            css = re.sub(r"/\*.*?\*/", " ", css[:MAX_CSS_CHARS], flags=re.S)
        texts.append(css[:MAX_CSS_CHARS])
    if sum(css.count("{") for css in texts) > MAX_RULES:  # a rule holds one "{" or more
        texts = _first_rules(texts, MAX_RULES)
    # A framework's sheet has thousands of rules: one regex finds the simple selectors (a
    # Python step a rule cost 8-20 ms on such pages), and only the rules holding one are
    # read, as a whole; on a large sheet, only those holding one that the page uses.
    found: list[tuple[str, Any]] = []
    for css in texts:
        marked = "}" + css
        found.extend((css, m) for rx in _SIMPLE_SELECTORS for m in rx.finditer(marked))
    if used is not None and len(found) > READ_ALL_SELECTORS:
        names = used.selectors()
        found = [(css, m) for css, m in found if m.group(1) in names]
    out: set[tuple[str, str]] = set()
    read: set[tuple[int, int]] = set()
    for css, m in found:
        start = css.rfind("}", 0, m.start()) + 1  # m.start() is its "{", "}" or "," in css, less one
        if (id(css), start) in read:
            continue
        read.add((id(css), start))
        end = css.find("}", start)
        out.update(_hidden_by_rule(css[start:] if end < 0 else css[start:end]))
    return out


def _hidden_by_rule(rule: str) -> list[tuple[str, str]]:
    """The simple selectors of a rule ("selectors { body", no closing brace) whose body hides."""
    selectors, brace, body = rule.rpartition("{")
    if not brace:
        return []
    names = [m.group(2) for m in map(_SIMPLE_SELECTOR.match, selectors.rsplit("{", 1)[-1].split(",")) if m]
    if names and style_hides(body, rule=True):
        return [(n[0], n[1:]) for n in names]
    return []


def _first_rules(texts: list[str], n: int) -> list[str]:
    """texts cut after their first n rules (the pieces between "}" that hold a "{")."""
    out = []
    for css in texts:
        rules = len(_RULE.findall(css))
        if rules > n:
            nth = next(islice(_RULE.finditer(css), n, None))  # the first rule past n
            out.append(css[: css.rfind("}", 0, nth.start()) + 1])
            return out
        n -= rules
        out.append(css)
    return out


# --- collapsed panels: hidden now, content one click away ------------------------------
_PANEL_WORDS = re.compile(
    r"tab|panel|accordion|collaps|expand|toggle|drawer|disclosure|more|spoiler|reveal|"
    r"dropdown|answer|faq|content|body|step|slide|carousel|section",
    re.I,
)


def is_panel(el: HtmlElement, controlled: set[str]) -> bool:
    """Whether el looks like a collapsed tab, accordion or disclosure panel."""
    if (el.get("role") or "").lower() in ("tabpanel", "region", "dialog"):
        return True
    if el.get("id") and el.get("id") in controlled:
        return True
    if el.get("aria-labelledby") or el.get("aria-expanded") is not None:
        return True
    if _PANEL_WORDS.search((el.get("class") or "") + " " + (el.get("id") or "")):
        return True
    for anc in el.iterancestors():
        if anc.tag == "details":
            return True
    return False


def _text(el: HtmlElement) -> str:
    try:
        return " ".join("".join(el.itertext()).split())
    except ValueError:
        return ""


def _remove(el: HtmlElement) -> None:
    parent = el.getparent()
    if parent is None:
        return
    tail = el.tail
    prev = el.getprevious()
    parent.remove(el)
    if tail:
        if prev is not None:
            prev.tail = (prev.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail


# Hidden text that does not read like instructions is dropped only up to this many
# characters: longer hidden blocks are mostly content that a script or a click shows
# (product tabs, accordions, fade-ins, anti-flicker wrappers), and dropping them cost
# up to 0.03 F1 on the WCXB product pages (docs/PERFORMANCE.md).
SMALL_HIDDEN = 200


# Which removals run (every one; a benchmark may switch some off to measure them).
RULES = frozenset(("style", "template", "attr", "sheet", "payload"))


class Report:
    """What ``strip`` removed."""

    def __init__(self) -> None:
        self.chars = 0
        self.elements = 0
        self.instructions = False
        self.by_rule: dict[str, int] = {}  # rule -> characters (for the benchmarks' diagnostics)

    def add(self, text: str, rule: str = "other") -> None:
        self.by_rule[rule] = self.by_rule.get(rule, 0) + len(text)
        self.chars += len(text)
        self.elements += 1
        if not self.instructions and looks_like_instructions(text):
            self.instructions = True


def strip(tree: Any) -> Report:
    """Remove what a reader cannot see from an lxml tree, in place; returns a Report."""
    from lxml import etree

    report = Report()
    root = tree.getroot() if hasattr(tree, "getroot") else tree
    body = root.find(".//body")
    if body is None:
        body = root
    for c in list(root.iter(etree.Comment)):
        text = " ".join((c.text or "").split())
        if looks_like_instructions(text):
            report.add(text)  # ordinary comments (build stamps, tag-manager markers) are not counted
        _remove(c)

    place_streamed_segments(body)
    controlled: set[str] | None = None
    dropped: set[HtmlElement] = set()
    used = UsedNames(body)
    sheet = sheet_hiders(root, used)
    for el in _candidates(body, sheet, used):
        if not isinstance(el.tag, str) or el.getparent() is None:
            continue
        if el in dropped:
            continue  # inside an element already removed
        if el.tag == "template":
            _drop(report, el, _text(el), "template", dropped)
            continue
        hard = style_hides(el.get("style"))
        aria = (el.get("aria-hidden") or "").strip().lower() == "true"
        by_sheet = not hard and bool(sheet) and _sheet_hit(el, sheet)
        if not (hard or aria or by_sheet or el.get("hidden") is not None):
            continue
        text = _text(el)
        if looks_like_instructions(text):
            _drop(report, el, text, "payload", dropped)
            continue
        if aria and not hard:
            continue  # aria-hidden hides from screen readers only: sighted readers see it
        if len(text) > SMALL_HIDDEN:
            continue  # a hidden block this long is content a script or a click reveals (tabs, accordions, fades)
        if controlled is None:
            controlled = {x for v in body.xpath(".//@aria-controls") for x in str(v).split()}
        if is_panel(el, controlled):
            continue
        _drop(report, el, text, "style" if hard else "sheet" if by_sheet else "attr", dropped)
    return report


# A Suspense boundary's fallback that says the content is on its way: a reader sees
# the content instead once it has streamed in.
_LOADING = re.compile(r"\s*(loading|please wait)\b[^.!\n]{0,40}(\.\.\.|…)?\s*", re.I)


def place_streamed_segments(body: HtmlElement) -> None:
    """Put each streamed segment where the page's script shows it.

    React streams what a Suspense boundary waited for as a hidden <div id="S:n"> near
    the end of the body; its script ($RC, $RS) moves the segment's children in place
    of the boundary's <template id="B:n"> (or "P:n"), instead of the fallback. A reader
    sees them there: they are neither hidden nor at the page's end. A fallback that
    reads "Loading..." goes, as the script removes it. A segment whose text reads like
    instructions to a model stays hidden, and is removed as any such hidden text is:
    pages captured without their scripts leave no proof that a browser would show it.
    """
    segments = body.xpath("descendant::div[@hidden][starts-with(@id, 'S:')]")
    if not segments:
        return
    places = {t.get("id"): t for t in body.iter("template") if (t.get("id") or "")[:2] in ("B:", "P:")}
    for seg in segments:
        n = seg.get("id")[2:]
        place = places.get("B:" + n)
        if place is None:
            place = places.get("P:" + n)
        if place is None or place.getparent() is None or any(a is seg for a in place.iterancestors()):
            continue
        if looks_like_instructions(_text(seg)):
            continue
        fallback = place.getnext()
        if fallback is not None and isinstance(fallback.tag, str) and _LOADING.fullmatch(fallback.text_content()):
            _remove(fallback)
        if seg.text and seg.text.strip():
            place.tail = seg.text + (place.tail or "")  # stays before the children moved in below
        seg.text = None
        parent = place.getparent()
        at = parent.index(place) + 1
        for i, child in enumerate(list(seg)):
            parent.insert(at + i, child)
        _remove(seg)
        _remove(place)


# What a page's script says when it fails: "Oops! Something went wrong. Please try
# again." The page carries it for its script to show, and a reader of a page that
# worked never sees it. Only an element that says this and nothing else goes. Not
# "Loading...": a placeholder that a grid of results keeps in one of its cells, and
# removing it moved trafilatura's reading of a whole listing.
_STATUS = re.compile(
    r"(?:(?:oops|opps|whoops|uh[- ]oh|sorry)\W*)?"
    r"(?:something went wrong|there was an? (?:problem|error)[^.!]{0,40}|an error (?:has )?occurred)[.!]*"
    r"(?:\s*(?:please )?try (?:that )?again(?: later)?[.!]*)?(?:\s*(?:refresh|reload)[^.!]{0,40}[.!]?)?"
    r"|(?:please )?try again(?: later)?[.!]*",
    re.I,
)
STATUS_CHARS = 120  # a longer element says more than a status
_STATUS_HINTS = ("wrong", "again", "roblem", "rror")  # a status message holds one of these, as written

# lxml XPaths of the text nodes holding any of a set of hints, by that set; compiled on
# first use (extraction runs on one thread), at most 15 sets
_STATUS_HINTS_XPATHS: dict[tuple[str, ...], Any] = {}


def drop_status_messages(body: HtmlElement) -> int:
    """Remove the elements of body whose whole text is a script's status message
    (_STATUS), the outermost of them ("Oops!" and "Something went wrong" are often
    two paragraphs of one box); the number removed."""
    # libxml2 tests each text node once for each hint (~0.7 ms a page): only the hints
    # found in the body's whole text are looked for, and none when none is (a third of
    # pages); a text node holds a hint only if the text it is part of does
    whole = body.xpath("string()")
    hints = tuple(h for h in _STATUS_HINTS if h in whole)
    if not hints:
        return 0
    xpath = _STATUS_HINTS_XPATHS.get(hints)
    if xpath is None:
        from lxml import etree

        test = " or ".join("contains(., '%s')" % h for h in hints)
        xpath = _STATUS_HINTS_XPATHS[hints] = etree.XPath("descendant::text()[%s]" % test)
    gone = 0
    for node in xpath(body):
        # An element's own text of more than STATUS_CHARS (spaces collapsed) makes all of
        # it, and every element above, longer than a status: the walk up would stop at
        # once. (Not a tail: that is text after its element, not in it.)
        if node.is_text and len(node) > STATUS_CHARS and len(" ".join(node.split())) > STATUS_CHARS:
            continue
        el, found = node.getparent(), None
        while el is not None and el is not body and isinstance(el.tag, str):
            said = " ".join(el.text_content().split())
            if len(said) > STATUS_CHARS:
                break
            if _STATUS.fullmatch(said):
                found = el
            el = el.getparent()
        if found is not None and found.getparent() is not None:
            _remove(found)
            gone += 1
    return gone


MAX_SHEET_NAMES = 30
# Candidates in document order, found by libxml2 rather than a Python walk: the
# attributes that may hide, each handed back with its element. Selecting attributes
# costs half of testing every element with a predicate, and string functions such as
# translate() over every style cost several ms a page; whether a style hides, and
# whether a class is really one the sheet hides, is decided in Python, for the few
# elements that carry one.
_BASE = ("descendant::template", "descendant::*/@style", "descendant::*/@hidden", "descendant::*/@aria-hidden")
_XPATHS: dict[str, Any] = {}  # expression -> compiled lxml.etree.XPath


def _candidates(body: HtmlElement, sheet: set[tuple[str, str]], used: UsedNames) -> list[HtmlElement]:
    parts = list(_BASE)
    classes: set[str] = set()
    ids: set[str] = set()
    if sheet:
        # only the sheet's names the page uses (a framework's stylesheet hides dozens), at
        # most MAX_SHEET_NAMES of them. The class and id attributes are all selected and
        # tested here: testing each name in the XPath (contains()) cost libxml2 a string
        # copy of the attribute a name, up to 5 ms a page.
        names = [(k, n) for k, n in sorted(sheet) if n in used.of(k) and re.match(r"^[\w-]+$", n)]
        names = names[:MAX_SHEET_NAMES]
        classes = {n for k, n in names if k == "."}
        ids = {n for k, n in names if k == "#"}
        if classes:
            parts.append("descendant::*/@class")
        if ids:
            parts.append("descendant::*/@id")
    key = " | ".join(parts)
    xp = _XPATHS.get(key)
    if xp is None:
        from lxml import etree

        if len(_XPATHS) > 256:
            _XPATHS.clear()
        xp = _XPATHS[key] = etree.XPath(key)
    out, last = [], None
    for hit in xp(body):
        # an attribute hit is lxml's _ElementUnicodeResult: a str that knows its element
        if isinstance(hit, str):
            name = hit.attrname  # type: ignore[attr-defined]
            if name == "class" and classes.isdisjoint(hit.split()):
                continue
            if name == "id" and hit not in ids:
                continue
            el = hit.getparent()  # type: ignore[attr-defined]
        else:
            el = hit
        if el is not last and el is not None:
            out.append(el)
            last = el
    return out


def _sheet_hit(el: HtmlElement, sheet: set[tuple[str, str]]) -> bool:
    for cls in (el.get("class") or "").split():
        if (".", cls) in sheet:
            return True
    ident = el.get("id")
    return bool(ident) and ("#", ident) in sheet


def _drop(report: Report, el: HtmlElement, text: str, rule: str, dropped: set[HtmlElement] | None = None) -> None:
    if rule in RULES:
        report.add(text, rule)
        _remove(el)
        if dropped is not None:
            dropped.update(el.iter())  # what it held is gone with it
