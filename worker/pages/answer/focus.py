"""Focused passages: the parts of a page's text that answer a question, verbatim, with offsets.

Pure functions.  The text is cut into blocks (paragraphs; a long one into
pieces of a sentence or two); each block is scored BM25-style for the
question's terms, in its context: the section headings it sits under, the
signature line of the API entry it describes (``os.rename(src, dst)``) and that
entry's first paragraph, the rest of its paragraph when it is a piece of one,
the block before it; a block in the entry of an API the question names counts
more.  The best
blocks are taken until the budget is spent and given back in page order, each
with its character offset, so ``--start-index`` reads on from any of them.

Any language, no model: words are lower-cased ``\\w`` runs, a plural's ``s`` off, cut to a
short prefix (a cheap stemmer: install/installing/installation meet), and CJK text,
which has no spaces, is matched as overlapping character pairs.  The page is
never tokenised as a whole: a few C-level passes find the blank lines, the
headings, the link addresses and each term's occurrences (``str.find``), and
Python works only where a term occurs, so a long page costs what its matches cost.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right

from .blocks import FENCE, HEADING, PIECE, Finder, Outline, signatures
from .shown_links import Links, inside, link_targets

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

GAP = "\n\n[...]\n\n"  # the visible marker between passages, in a focused page's content
PREFIX = 6  # letters of a word that make its term
TITLE_MAX = 120
MAX_TRIED = 300  # blocks tried for the budget: past these the rest score too low to matter
MIN_BLOCK = 20  # a block after a match shorter than this ("---", "30") is no answer
HEADING_WEIGHT = 0.6  # a term in the section's headings counts this much of one in the block
CARRY = 0.25  # a block keeps this much of the score of the block before it (an answer follows its lead-in)
# ... and as much as a heading gives when that block asks a question (_ASKS): a FAQ's question,
# in a table row or a bold line rather than a heading, is the heading of the answer after it
QUESTION_CARRY = HEADING_WEIGHT
PARAGRAPH_WEIGHT = 0.5  # a term elsewhere in a long paragraph counts this much for each of its pieces
SIGNATURE_WEIGHT = 0.6  # a term in the signature of the API entry a block describes (as in a heading)
# A block in the entry of an API the question names (``path.resolve``, ``max_workers``: a section whose
# heading, or a signature line whose entry, names it) counts this much more: the entry of the API
# asked about answers before the pages' other mentions of it
OWN_ENTRY_WEIGHT = 0.25
# An entry's first paragraph says what it is ("Determines the number of connection slots kept for
# superusers"); its later paragraphs (the default, the limits) rarely repeat those words: a term
# of the first counts this much for each of them
LEAD_WEIGHT = 0.3
SECTION_WEIGHT = 0.2  # a block gets this much of its section's own score (the section scored as one block)
CODE_WEIGHT = 0.8  # a code block counts this much of its score, unless the question asks how to do something
QUANTITY_WEIGHT = 0.5  # a block that states a number counts this much more when the question asks how many
K1, B = 1.2, 0.5

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK_RUN = re.compile("[%s]+" % _CJK)
_WORD = re.compile(r"[^\W_]+")

# Question words and glue that say nothing about where an answer is (the page's own
# statistics weigh the rest: a word on every paragraph scores next to nothing).
STOP = frozenset(
    """a an and are as at be been but by can could did do does for from had has have how i if in into is it its
    may me my of on or our should so than that the their them then there these they this those to was we were
    what when where which who whom whose why will with would you your about also any all more most much many
    der die das und ist ein eine le la les des est une el los las que un una il di che""".split()
)
_STOP = STOP  # the name bench/focus/run.py reads
# Code identifiers, matched whole: dunder names, dotted names (os.rename), snake_case, camelCase and
# PascalCase with an inner capital (ThreadPoolExecutor): their first letters alone meet every "thread".
_IDENT = re.compile(
    r"__[A-Za-z0-9]\w*?__|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+|[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+"
    r"|[a-z0-9]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*"
)


def identifiers(text: str) -> list[str]:
    """The code identifiers of ``text``, lower-cased (see _IDENT), each as often as it occurs."""
    out = []
    for m in _IDENT.finditer(text):
        ident = m.group().strip(".").lower()
        if len(ident) > 2 and max(len(p) for p in ident.split(".")) > 2 and not ident.replace(".", "").isdigit():
            out.append(ident)
    return out


def words(text: str) -> list[str]:
    """The terms of ``text``, each as often as it occurs: whole code identifiers (and a dotted one's
    parts), CJK character pairs, the first PREFIX letters of the other words."""
    out: list[str] = []
    for ident in identifiers(text):
        out.append(ident)
        if "." in ident:
            out.extend(p for p in ident.split(".") if len(p) > 2 and not p.isdigit())
    out.extend(m.group(1).lower() for m in _OPTION.finditer(text))
    low = text.lower()
    if "'" in low or "\u2019" in low or "cannot" in low:
        out.extend("not" for _ in _NEGATION.finditer(low))
        low = _CLITIC.sub(" ", _NEGATION.sub(" ", low))
    for run in _CJK_RUN.findall(low):
        out.extend(run[i : i + 2] for i in range(max(1, len(run) - 1)))
    for word in _WORD.findall(_CJK_RUN.sub(" ", low)):
        if word not in STOP and (len(word) > 1 or word.isdigit()):
            out.append(_stem(word))
    return out


# A question that asks how to do something may be answered by code; one that asks what, why or
# whether, in words, which an example naming the question's identifiers would crowd out
_ASKS_HOW = re.compile(r"\bhow (?:do|does|can|to|should|would|could)\b|\bexamples?\b")
# A question that asks for a quantity ("how many listeners", "how long ... by default") is
# answered by a block that states one ("a maximum of 10", "Default: 5000", "ten thousand hours").
_ASKS_QUANTITY = re.compile(r"\bhow (?:many|much|long|big|large|small|often|far|deep|old|fast)\b")
_STATES_QUANTITY = re.compile(
    r"\d|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty"
    r"|hundred|thousand|million|billion|dozen)s?\b"
)
# A negated auxiliary (doesn't, isn't, can't, cannot) is the word "not": its first part is glue like "does".
_NEGATION = re.compile(r"\b(?:[a-z]+n['\u2019]t|cannot)\b")
# The rest of a contraction (you're, I've, we'll, it's) is glue too: "re", "ve" and "ll" are no terms.
_CLITIC = re.compile(r"(?<=[a-z])['\u2019](?:re|ve|ll|d|m|s)\b")
# A command-line option, ``-O`` or ``--user``: a term of its own, matched whole (its letter alone is no word).
_OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][A-Za-z0-9-]*)(?![\w-])")
_CHUNK = re.compile(r"[\w.]+")


def counted(text: str) -> dict[str, int]:
    """``words(text)`` counted, {term: times}, at C speed for a whole page: the text's runs of word
    characters and dots are counted first, and each distinct run is cut into terms once."""
    from collections import Counter

    out: dict[str, int] = {}
    chunks = Counter(_CHUNK.findall(text))
    for chunk, n in chunks.items():
        # A dot at either end is a sentence's end or a hidden file's start: no term has it, and a
        # run without it is most often a plain word, which needs none of words' patterns. Nor does
        # a capitalised or upper-case word in ASCII (no lower-case letter before a capital: no
        # camelCase; "İ" lower-cases to two characters, which words() reads as two words).
        core = chunk.strip(".") if chunk[0] == "." or chunk[-1] == "." else chunk
        if core.isalpha() and (core.islower() or core.isascii() and (core.isupper() or core[1:].islower())):
            got = _plain_word(core.lower())
        else:
            got = words(core) if core else []
        for term in got:
            out[term] = out.get(term, 0) + n
    return out


def _plain_word(word: str) -> list[str]:
    """The term of one lower-case word of letters (the common case of ``words``)."""
    if _CJK_RUN.search(word) or word == "cannot":
        return words(word)
    return [_stem(word)] if word not in STOP and len(word) > 1 else []


def _stem(word: str) -> str:
    """A word's term: its plural's ``s`` off (Harman's S-stemmer: keys/key, entries/entry, uses/use;
    status, process and does stay), then its first PREFIX letters."""
    if len(word) > 3 and word[-1] == "s" and word[-2] not in "su":
        if word.endswith("ies") and word[-4] not in "ae":
            word = word[:-3] + "y"
        elif not word.endswith("es") or word[-3] not in "aeo":
            word = word[:-1]
    return word[:PREFIX]


# A question about what happens when nothing is set ("out of the box", "if I haven't changed
# anything", "without configuring it", "without saying which") asks for the default, in the page's word for it
_ASKS_DEFAULT = re.compile(
    r"\bout of the box\b|\b(?:don['\u2019]t|do not|haven['\u2019]t|have not|never|didn['\u2019]t|without)"
    r" (?:\w+ )?(?:configur|chang|set|touch|specif|pass|giv|say|choos|pick|put|provid|declar)\w*",
    re.IGNORECASE,
)


def terms(query: str) -> list[str]:
    """The distinct search terms of ``query`` (see ``words``), the operators it names, and
    "default" when it asks what holds when nothing is set, or a quantity: a reference page
    states a setting's number as its default ("how many loose objects before they are packed":
    "The default value is 6700")."""
    found = words(query) + symbols(query)
    if _ASKS_DEFAULT.search(query) or _ASKS_QUANTITY.search(query.lower()):
        found += words("default")
    return list(dict.fromkeys(found))


# An operator or a printed token the question names (==, ===, :=, ->, ???:???), written apart:
# a term of its own, matched whole. Not a dash, an ellipsis or a run of question marks.
_SYMBOLS = re.compile(r"[^\w\s]{2,12}")
_NOT_SYMBOLS = frozenset(".?!-~_,;")
_AROUND = "\"'`\u2018\u2019\u201c\u201d()[]{}"  # quotes and brackets around a token


def symbols(query: str) -> list[str]:
    """The operators of ``query``: a token between spaces (quotes and brackets around it off) made
    of symbols only; a sentence's closing mark after it is not part of it ("===?")."""
    out = []
    for token in query.split():
        token = token.strip(_AROUND)
        if len(token) > 2 and token[-1] in ".,;:!?" and token[-2] != token[-1]:
            token = token[:-1].strip(_AROUND)
        if _SYMBOLS.fullmatch(token) and not set(token) <= _NOT_SYMBOLS:
            out.append(token)
    return out


_ENDINGS = ("s", "es", "d", "ed")  # a short term's word: the term itself or with one of these (catch/catches)


def _hits(low: str, word: str) -> list[int]:
    """Where ``word`` occurs in ``low`` (the lower-cased text): a CJK pair anywhere, a word prefix at a word's start."""
    out = []
    find = low.find
    at = find(word)
    whole = bool(_CJK_RUN.fullmatch(word))
    # A term shorter than PREFIX is a whole word: a hit is a word whose own term it is ("str" is not in
    # "string", nor "int" in "into"; "key" is in "keys").
    short = not whole and len(word) < PREFIX and word.isalnum()
    if word[0] == "-":
        return [m.start() for m in re.finditer(r"(?<![\w-])%s(?![\w-])" % re.escape(word), low)]
    if not word[0].isalnum() and word[0] != "_" and not whole:
        # an operator, written apart: not part of a longer one ("==" is not in "==="); markdown
        # may escape its characters ("\\*\\*")
        pattern = "".join(r"\\?" + re.escape(c) for c in word)
        return [m.start() for m in re.finditer(r"(?<![^\w\s\"'`(\[])%s(?![^\w\s\"'`)\],.;:?!])" % pattern, low)]
    n = len(word)
    while at >= 0:
        if whole or at == 0 or not (low[at - 1].isalnum()):
            if not short or at + n >= len(low) or not low[at + n].isalnum():
                out.append(at)
            else:
                m = _WORD.match(low, at)
                if m and (m.end() - at - n <= 2 and low[at + n : m.end()] in _ENDINGS or _stem(m.group()) == word):
                    out.append(at)
        at = find(word, at + len(word))
    if word == "not":  # the word alone ("notes" is no "not"), and every "n't" and "cannot" (see words)
        out = sorted([at for at in out if not low[at + 3 : at + 4].isalnum()] + _negations(low))
    return out


def _negations(low: str) -> list[int]:
    """Where the lower-cased text has a negated auxiliary (_NEGATION), found by ``str.find``."""
    out = []
    for mark in ("n't", "n\u2019t", "cannot"):
        at = low.find(mark)
        while at >= 0:
            start = at
            while start > 0 and "a" <= low[start - 1] <= "z":
                start -= 1
            m = _NEGATION.match(low, start)
            if m and m.end() > at:
                out.append(start)
            at = low.find(mark, at + len(mark))
    return out


_ENTRY = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+([^\n]+)")


class _Entries:
    """The lines of the text's table of contents: list items that say a heading of the text."""

    def __init__(self, text: str, outline: Outline):
        self.text = text
        self.titles = {text[a:b].lstrip("#").strip() for a, b in zip(outline.starts, outline.ends)}
        self.lines: dict[int, bool] = {}

    def holds(self, pos: int) -> bool:
        """Whether the line around pos is an entry of the table of contents."""
        if not self.titles:
            return False
        text = self.text
        start = text.rfind("\n", 0, pos) + 1
        found = self.lines.get(start)
        if found is None:
            end = text.find("\n", pos)
            m = _ENTRY.fullmatch(text, start, len(text) if end < 0 else end)
            found = self.lines[start] = m is not None and m.group(1).strip() in self.titles
        return found


# A question the text asks: a question mark after a word, closing a sentence (not a ternary's
# "a ? b : c", nor a URL's query string)
_ASKS = re.compile(r"(?<=[^\s?])\?(?=[\s*|_)]|$)")


class Hits:
    """Where a question's terms occur in one text: the blocks that hold each term, and how many
    blocks the text has (score's first step; worker.site.passages reads every page's before it
    scores any, for one idf over the pages read)."""

    __slots__ = ("words", "outline", "low", "finder", "counts", "paragraphs", "df", "n", "links")

    def __init__(self, text: str, query: str):
        self.words = words = terms(query)
        self.outline = outline = Outline(text)
        # U+0130 is the one character that lower-cases to two: offsets must stay the text's.
        self.low = low = text.replace("\u0130", "i").lower() if words else ""
        self.finder = finder = Finder(text, outline)
        self.counts: dict[tuple[int, int], dict[int, int]] = {}
        # The terms of each long paragraph that is scored in pieces: a piece reads in its paragraph's context.
        self.paragraphs: dict[tuple[int, int], set[int]] = {}
        self.links = links = link_targets(text) if words else []
        entries = _Entries(text, outline)
        for t, word in enumerate(words if text else ()):
            for at in _hits(low, word):
                if links and inside(links, at):
                    continue  # a link's address is not what the page says: docs URLs repeat every term
                if entries.holds(at):
                    continue  # the section the entry names answers, not its line in the page's contents
                k = finder.block(at)
                c = self.counts.setdefault(k, {})
                c[t] = c.get(t, 0) + 1
                if k[1] - k[0] <= PIECE * 3 // 2:
                    para = finder.paragraph(at)
                    if para != k and para[1] - para[0] > PIECE * 3 // 2:
                        self.paragraphs.setdefault(para, set()).add(t)
        self.df = df = [0] * len(words)
        for c in self.counts.values():
            for t in c:
                df[t] += 1
        # The number of blocks, near enough for idf and the average length, without reading them all.
        self.n = max(len(finder.break_starts) + 1, len(text) // PIECE, max(df, default=0) + 1)


def idf(df: list[int], n: int) -> list[float]:
    """Each term's weight by how few of ``n`` blocks hold it (BM25's idf)."""
    return [math.log(1 + (n - d + 0.5) / (d + 0.5)) for d in df]


def score(
    text: str,
    query: str,
    weights: dict[str, float] | None = None,
    found: Hits | None = None,
    shared: list[float] | None = None,
) -> tuple[dict[tuple[int, int], float], Outline]:
    """{(start, end): score} of the blocks that hold a term of ``query`` (themselves, in their
    headings, or in the block before them), lifted by their section's score (_section_scores),
    and the text's outline.  ``weights``: a factor for some terms' weight (worker.site.passages:
    how rare the term is among the pages read); ``found``: the text's Hits when read already;
    ``shared``: the terms' idf over the blocks of all the pages read, instead of this text's own."""
    found = found or Hits(text, query)
    words, outline, low, finder = found.words, found.outline, found.low, found.finder
    counts, paragraphs, n = found.counts, found.paragraphs, found.n
    if not counts:
        return {}, outline
    idf_ = shared if shared is not None else idf(found.df, n)
    if weights:
        idf_ = [v * weights.get(w, 1.0) for v, w in zip(idf_, words)]
    avg = len(text) / n
    own: dict[tuple[int, int], float] = {}
    for k, c in counts.items():
        norm = K1 * (1 - B + B * (k[1] - k[0]) / avg)
        own[k] = sum(idf_[t] * f * (K1 + 1) / (f + norm) for t, f in c.items())
    heading_blocks = set(zip(outline.starts, outline.ends))
    candidates = dict.fromkeys(counts)
    for k in list(counts):
        nxt = finder.after(k[1])  # an answer often follows the paragraph that asks; a section follows its heading
        if nxt is not None and nxt[1] - nxt[0] >= MIN_BLOCK:
            candidates.setdefault(nxt)
    empty: dict[int, int] = {}
    scores: dict[tuple[int, int], float] = {}
    carried: dict[tuple[int, int], float] = {}  # what a block keeps of the block before it
    for k in counts:
        nxt = finder.after(k[1])
        if nxt is not None:
            carried[nxt] = (QUESTION_CARRY if _ASKS.search(text, k[0], k[1]) else CARRY) * own[k]
    sections = _section_scores(text, outline, counts, len(words)) if SECTION_WEIGHT else {}
    outline.signatures = sigs = signatures(text) if SIGNATURE_WEIGHT else []
    sig_starts = [a for a, _ in sigs]
    quantity = QUANTITY_WEIGHT if _ASKS_QUANTITY.search(query.lower()) else 0.0
    code = 1.0 if _ASKS_HOW.search(query.lower()) else CODE_WEIGHT
    fences = [m.start() for m in FENCE.finditer(text)] if code != 1.0 else []
    named = _named_entries(text, outline, query) if OWN_ENTRY_WEIGHT else None
    leads: dict[int, set[int]] = {}  # {signature index: the terms of its entry's first paragraph}
    if LEAD_WEIGHT and sigs:
        para_terms: dict[tuple[int, int], set[int]] = {}
        for k, c in counts.items():
            para_terms.setdefault(finder.paragraph(k[0]), set()).update(c)
        for g, sg in enumerate(sigs):
            nb = finder.after(sg[1])
            if nb is not None and _under(sig_starts, outline, nb[0]) == g:
                leads[g] = para_terms.get(finder.paragraph(nb[0]), set())
    for k in candidates:
        h = outline.at(k[0])
        context: dict[int, float] = {}
        for i in outline.chains[h] if h >= 0 else ():
            if outline.starts[i] == k[0]:
                continue
            for t in counts.get((outline.starts[i], outline.ends[i]), empty):
                context[t] = idf_[t]
        g = _under(sig_starts, outline, k[0])
        if g >= 0 and sigs[g] != k:
            for t in counts.get(sigs[g], empty):
                context.setdefault(t, SIGNATURE_WEIGHT / HEADING_WEIGHT * idf_[t])
        if g >= 0 and leads.get(g):
            for t in leads[g]:
                context.setdefault(t, LEAD_WEIGHT / HEADING_WEIGHT * idf_[t])
        if paragraphs:
            for t in paragraphs.get(finder.paragraph(k[0]), ()):
                if t not in context:
                    context[t] = PARAGRAPH_WEIGHT / HEADING_WEIGHT * idf_[t]
        c = counts.get(k, empty)
        # Distinct terms weigh most: a block that names every part of the question beats one that repeats a word.
        coverage = sum(idf_[t] for t in c)
        extra = sum(v for t, v in context.items() if t not in c)
        s = own.get(k, 0.0) + coverage + HEADING_WEIGHT * extra + carried.get(k, 0.0)
        s += SECTION_WEIGHT * sections.get(h, 0.0)
        if quantity and _states_quantity(low, k, found.links):
            s *= 1 + quantity
        if fences and bisect_right(fences, k[0]) % 2:
            s *= code  # the block is inside a fenced code block (or opens one)
        if named and (g in named[1] or (h >= 0 and not named[0].isdisjoint(outline.chains[h]))):
            s *= 1 + OWN_ENTRY_WEIGHT  # in the entry of the API the question names
        scores[k] = s * 0.5 if k in heading_blocks else s  # a heading alone answers little
    return scores, outline


def _named_entries(text: str, outline: Outline, query: str) -> tuple[set[int], set[int]] | None:
    """The headings and the signature lines (their indexes) that name an API the question names: a
    dotted, snake_case or dunder identifier of it (a plain word or a CamelCase name is no API's own);
    None when it names none, or none is named."""
    names = [i for i in identifiers(query) if "." in i or "_" in i]
    if not names:
        return None

    def naming(spans: Any) -> set[int]:
        return {n for n, (a, b) in enumerate(spans) if any(name in text[a:b].lower() for name in names)}

    headings = naming(zip(outline.starts, outline.ends))
    sigs = naming(outline.signatures)
    return (headings, sigs) if headings or sigs else None


def _states_quantity(low: str, block: tuple[int, int], links: list[tuple[int, int]]) -> bool:
    """Whether the block states a number (_STATES_QUANTITY) in what it says: a link's address
    ("127.0.0.1:8080", "/v2/") is no number the text states."""
    for m in _STATES_QUANTITY.finditer(low, block[0], block[1]):
        if not links or not inside(links, m.start()):
            return True
    return False


def _section_scores(
    text: str, outline: Outline, counts: dict[tuple[int, int], dict[int, int]], n_terms: int
) -> dict[int, float]:
    """{heading index: score} of the sections that hold a term: each section (a heading and the
    text up to the next heading) scored BM25-style as one block among the page's sections. A
    section about the question lifts each of its blocks, also one that does not repeat the
    question's words (the answer right under "Why isn't there a switch statement?")."""
    found: dict[int, dict[int, int]] = {}
    for k, c in counts.items():
        h = outline.at(k[0])
        if h >= 0:
            into = found.setdefault(h, {})
            for t, f in c.items():
                into[t] = into.get(t, 0) + f
    if not found:
        return {}
    n = len(outline.starts) + 1  # the text before the first heading is a section too
    df = [0] * n_terms
    for c in found.values():
        for t in c:
            df[t] += 1
    idf = [math.log(1 + (n - d + 0.5) / (d + 0.5)) for d in df]
    ends = outline.starts[1:] + [len(text)]
    avg = len(text) / n
    out = {}
    for h, c in found.items():
        norm = K1 * (1 - B + B * (ends[h] - outline.starts[h]) / avg)
        out[h] = sum(idf[t] * f * (K1 + 1) / (f + norm) for t, f in c.items())
    return out


def signature_above(text: str, outline: Outline, start: int, end: int) -> tuple[int, int] | None:
    """The span of the API signature line right above the block text[start:end] (blank lines between),
    the entry it describes, or None (also for the signature line itself)."""
    sigs = outline.signatures
    g = _under([a for a, _ in sigs], outline, start) if sigs else -1
    if g >= 0 and sigs[g] != (start, end) and _blank(text, sigs[g][1], start):
        return sigs[g]
    return None


def _under(sig_starts: list[int], outline: Outline, pos: int) -> int:
    """The index of the signature line whose entry holds ``pos`` (the last one above it, below the
    section's heading), or -1."""
    g = bisect_right(sig_starts, pos) - 1
    if g < 0:
        return -1
    h = outline.at(pos)
    return g if h < 0 or outline.starts[h] < sig_starts[g] else -1


def select(
    text: str, query: str, budget: int, links: Links | None = None
) -> tuple[list[tuple[int, int]], Outline | None]:
    """The (start, end) spans to show for ``query`` within ``budget`` characters, in page order.

    A span is a run of whole blocks (the one chosen and, when it fits, the
    heading of its section); spans that touch are merged.  The GAP markers
    between spans and at either end are counted in the budget, and a span costs
    what it is shown as: with ``links``, its links as their text alone.  Empty when no
    block holds a term of the query.  The outline comes along when it was read.
    """
    if len(text) <= budget:
        return ([(0, len(text))] if text else []), None
    scores, outline = score(text, query)
    ranked = sorted(scores, key=lambda k: (-scores[k], k[0]))
    chosen: list[tuple[int, int]] = []
    sigs = outline.signatures
    sig_starts = [a for a, _ in sigs]

    def cost(spans: list[tuple[int, int]]) -> int:
        spans = _merged(text, spans)
        gaps = len(spans) - 1 + (spans[0][0] > 0) + (spans[-1][1] < len(text))
        if links is None:
            return sum(e - s for s, e in spans) + gaps * len(GAP)
        return sum(links.cost(s, e) for s, e in spans) + gaps * len(GAP)

    used = 0
    said: set[str] = set()
    for k in ranked[:MAX_TRIED]:
        if chosen and (k[1] - k[0] if links is None else links.cost(*k)) > budget - used:
            continue  # cannot fit: skip the merge below
        words = " ".join(text[k[0] : k[1]].split())
        if words in said:
            continue  # the page says it again (the same note under several entries): shown once
        said.add(words)
        if budget - used < 2 * len(GAP):
            break
        want = [k]
        h = outline.at(k[0])
        if h >= 0 and outline.starts[h] != k[0] and _blank(text, outline.ends[h], k[0]):
            want.append((outline.starts[h], outline.ends[h]))  # the heading right above: it costs no marker
        g = _under(sig_starts, outline, k[0])
        if g >= 0 and sigs[g] != k and _blank(text, sigs[g][1], k[0]):
            want.append(sigs[g])  # so is the signature of the entry it describes
        for trial in (chosen + want, chosen + want[:1]) if len(want) > 1 else (chosen + want,):
            spent = cost(trial)
            if spent <= budget:
                chosen, used = trial, spent
                break
        else:
            if chosen:
                continue
            # the best block alone is too long: its start, cut on a clean boundary
            from .window import window

            piece, _, _ = window(text[want[0][0] : want[0][1]], 0, budget - 2 * len(GAP))
            if piece:
                chosen = [(want[0][0], want[0][0] + len(piece))]
                used = cost(chosen)
    return (_merged(text, chosen) if chosen else []), outline


def _blank(text: str, start: int, end: int) -> bool:
    """Only whitespace between ``start`` and ``end`` (a few blank lines at most: no long slice is made)."""
    return end - start <= 16 and not text[start:end].strip()


def _merged(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans in order, with spans that overlap or touch (whitespace between) made one."""
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and (s <= out[-1][1] or _blank(text, out[-1][1], s)):
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def _passage(text: str, outline: Outline, start: int, end: int, base: int, shown: int) -> dict[str, Any]:
    """One passage's place: offset and length in the page, the characters it is shown in (``chars``,
    when its links made it shorter), and the title of the section it starts in."""
    out: dict[str, Any] = {"offset": base + start, "length": end - start}
    if shown != end - start:
        out["chars"] = shown
    h = outline.at(start)
    if h >= 0 and outline.starts[h] < start:
        title = HEADING.match(text, outline.starts[h])
        if title:
            out["section"] = title.group().lstrip("#").strip()[:TITLE_MAX]
    return out


def parts(content: str, passages: list[dict[str, Any]], start_index: int) -> list[str]:
    """The passages' texts back out of a focused ``content`` (the inverse of the join in ``focused``)."""
    pos = len(GAP.lstrip("\n")) if passages and passages[0]["offset"] > start_index else 0
    out = []
    for p in passages:
        n = p.get("chars", p["length"])
        out.append(content[pos : pos + n])
        pos += n + len(GAP)
    return out


def focused(text: str, query: str, budget: int, base: int = 0) -> dict[str, Any] | None:
    """The focused view of ``text`` (which starts at offset ``base`` of the page), or None.

    ``{"content", "passages": [{"offset", "length"}], "next_start_index"}``:
    the passages joined by GAP (also at either end when text was left out there),
    offsets in the whole page; ``next_start_index`` is where reading on after the
    last passage starts (None when it reaches the end).  None when no passage of
    the text holds a term of the query: the caller shows the page's start instead.
    """
    links = Links(text) if len(text) > budget else None
    spans, outline = select(text, query, budget, links)
    if not spans:
        return None
    if outline is None:
        outline = Outline(text)
    parts = [links.shown(text, s, e) if links else text[s:e] for s, e in spans]
    content = GAP.join(parts)
    if spans[0][0] > 0:
        content = GAP.lstrip("\n") + content
    last = spans[-1][1]
    while last < len(text) and text[last].isspace():
        last += 1
    if last < len(text):
        content += GAP.rstrip("\n")
    return {
        "content": content,
        "passages": [_passage(text, outline, s, e, base, len(part)) for (s, e), part in zip(spans, parts)],
        "next_start_index": base + last if last < len(text) else None,
    }
