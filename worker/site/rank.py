"""A map's pages ordered for a question: which to read first.

Pure functions.  Each page is a document of fields, scored BM25 over the map's pages
(BM25F's way: each field its own length norm, the field scores weighted and added):

* ``title``: the page's <title>, without the words every page's title ends with (the site's name);
* ``links``: the words of every link to the page (a contents page's entries, a general
  index's terms) and the ``#fragment`` they point at;
* ``url``: the words of its path below the scope's folder;
* ``headings``: its h1-h3 headings; ``ids``: the names it defines (``id`` attributes:
  ``os.rename``, ``sql-select-distinct``);
* ``body``: the count of its words, when the map read the page.

Words are worker.pages.answer.focus's terms (first letters, CJK pairs, whole code identifiers).
"""

from __future__ import annotations

import math
import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Iterable, Sequence
    from typing import Any

WEIGHTS = {"title": 2.0, "links": 1.0, "url": 1.0, "headings": 1.0, "ids": 1.0, "body": 2.0}
# The pages the start page links to count this much more: a crawl started from a chapter's contents
# page is asked about that chapter, also where every page of the site shares one folder (PostgreSQL's,
# Valgrind's) and the section alone does not say which pages are the chapter's
START_LINKS_WEIGHT = 1.0
DEFINES_WEIGHT = 3.0  # a page that defines a name the question calls (``zip()``, ``os.rename``) is about it
_CALL = re.compile(r"([A-Za-z_][\w.]*)\s*\(")
K1, B = 1.2, 0.75
NUMBER_WEIGHT = 0.2  # a number in a question ("round(2.5)", "Python 3") says little about which page
_SEPARATORS = (" \u2014 ", " | ", " - ", " \u00b7 ", " :: ", " \u2013 ")


def tokens(text: str) -> list[str]:
    """The terms of ``text`` as worker.pages.answer.focus makes them of a question, each as often as it occurs."""
    from ..pages.answer.focus import words

    return words(text)


def site_suffix(titles: Iterable[str | None]) -> str:
    """The ending most titles share after a separator (`` — Python 3.11 documentation``), or ""."""
    counts: dict[str, int] = {}
    n = 0
    for title in titles:
        if not title:
            continue
        n += 1
        for sep in _SEPARATORS:
            at = title.rfind(sep)
            if at > 0:
                suffix = title[at:]
                counts[suffix] = counts.get(suffix, 0) + 1
                break
    if not counts or n < 3:
        return ""
    suffix, count = max(counts.items(), key=lambda kv: kv[1])
    return suffix if count >= n * 0.6 else ""


def short_title(title: str | None, suffix: str) -> str | None:
    if title and suffix and title.endswith(suffix) and len(title) > len(suffix):
        return title[: -len(suffix)].strip()
    return title


def fields(page: dict[str, Any], prefix_path: str, suffix: str) -> dict[str, dict[str, int]]:
    """{field: {term: count}} of one page: ``page`` has url, title, texts and (when read) record."""
    from urllib.parse import unquote, urlsplit

    record = page.get("record") or {}
    try:
        path = unquote(urlsplit(page["url"]).path)
    except ValueError:
        path = ""
    if path.startswith(prefix_path):
        path = path[len(prefix_path) :]
    path = re.sub(r"\.(html?|php|aspx?|md)$", "", path)
    texts = {
        "title": short_title(page.get("title"), suffix) or "",
        "links": " ".join(str(t).replace("#", " ") for t in page.get("texts") or ()),
        "url": path.replace("/", " ").replace("-", " "),
        "headings": " ".join(str(h) for h in record.get("headings") or ()),
        "ids": " ".join(str(i).replace("-", " ") for i in record.get("ids") or ()),
    }
    out: dict[str, dict[str, int]] = {}
    for name, text in texts.items():
        counts: dict[str, int] = {}
        for t in tokens(text):
            counts[t] = counts.get(t, 0) + 1
        out[name] = counts
    bag = record.get("bag")
    out["body"] = dict(bag) if isinstance(bag, dict) else {}
    defines: dict[str, int] = {}
    for name in record.get("ids") or ():
        name = str(name).lower()
        defines[name] = 1
        if "." in name:
            defines[name.rsplit(".", 1)[1]] = 1
    out["defines"] = defines
    return out


def named(query: str) -> list[str]:
    """The code names a question calls or spells out: ``zip()``, ``os.rename``, ``max_workers``."""
    from ..pages.answer.focus import identifiers

    out = [m.group(1).strip(".").lower() for m in _CALL.finditer(query)]
    out += identifiers(query)
    return [n for n in dict.fromkeys(out) if len(n) > 1]


def _length(counts: dict[str, int], field: str, page: dict[str, Any]) -> int:
    if field == "body":
        words = (page.get("record") or {}).get("words")
        if isinstance(words, int):
            return words
    return sum(counts.values())


def scores(
    pages: Sequence[dict[str, Any]], query_terms: Sequence[str], prefix_path: str = "/", names: Sequence[str] = ()
) -> list[float]:
    """Each page's score for the question's terms (0 when it shares none); ``names``: the code names
    it calls (``named``), which a page that defines them (an ``id``) scores for."""
    suffix = site_suffix(p.get("title") for p in pages)
    docs = [fields(p, prefix_path, suffix) for p in pages]
    n = len(docs)
    total = [0.0] * n
    if not n or not query_terms:
        return total
    terms = list(dict.fromkeys(query_terms))
    for name in dict.fromkeys(names):
        defining = [i for i in range(n) if name in docs[i]["defines"]]
        if defining:
            idf = math.log(1 + (n - len(defining) + 0.5) / (len(defining) + 0.5))
            for i in defining:
                total[i] += DEFINES_WEIGHT * idf
    for field, weight in WEIGHTS.items():
        lengths = [_length(d[field], field, p) for d, p in zip(docs, pages)]
        present = [i for i in range(n) if lengths[i] > 0]
        if not present:
            continue
        avg = sum(lengths[i] for i in present) / len(present)
        for t in terms:
            df = sum(1 for i in present if t in docs[i][field])
            if not df:
                continue
            idf = math.log(1 + (len(present) - df + 0.5) / (df + 0.5))
            if t.isdigit():
                idf *= NUMBER_WEIGHT
            for i in present:
                f = docs[i][field].get(t)
                if f:
                    norm = K1 * (1 - B + B * lengths[i] / max(avg, 1e-9))
                    total[i] += weight * idf * f * (K1 + 1) / (f + norm)
    return total


def order(
    pages: Sequence[dict[str, Any]], query: str, prefix_path: str = "/", linked: Iterable[int] = ()
) -> list[tuple[int, float]]:
    """(index, score) of ``pages``, best first; pages that share no term keep map order at the end.
    ``linked``: the pages the start page links to, which count START_LINKS_WEIGHT more."""
    from ..pages.answer.focus import terms

    got = scores(pages, terms(query), prefix_path, named(query))
    for i in linked:
        got[i] *= 1 + START_LINKS_WEIGHT
    return sorted(enumerate(got), key=lambda kv: (-kv[1], kv[0]))
