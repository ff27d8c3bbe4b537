"""readability-lxml's slowest steps, the same results in less time.

Its text cleaning
-----------------

readability-lxml measures every candidate block and every link by the length of its
cleaned text (``text_length``): three regex substitutions a call, tens of thousands of
calls on a large old page, and over a quarter of readability's time. Most of that goes
to ``\\s*\\n\\s*``, which the regex engine tries at every character. ``clean`` below
gives the same string: it skips a substitution that cannot match (no line break, no tab
or double space, fewer than 255 characters), and folds each run of whitespace holding a
line break into that one break with str.split and str.strip, which treat the same
characters as whitespace as the regex's ``\\s``. Readability 28% faster on classic
pages, 22% on WCXB, 18% on Zyte (docs/PERFORMANCE.md); the same text on every shared
page.

``install`` puts it in place of the library's own only when the library's gives the
same answers on PROBES, so an upgrade that changes readability's cleaning keeps its
own (and tests/pages/test_extract.py fails, which says so).

Its test of a <div> for blocks
------------------------------
``transform_misused_divs_into_paragraphs`` makes a <div> a <p> unless its children,
written out with lxml's ``tostring``, hold the start of a block tag (its regex
``divToPElementsRe``, DIV_TO_P here): every <div>'s whole subtree is written out, again
for each <div> above it, a fifth of readability's time on a large page. That test is the
module's one use of ``tostring``; ``install_block_test`` puts ``block_start`` in its
place, which gives the regex the same answer without writing the subtree out: the start
of the first block tag in it, found by walking it (text and attribute values are
escaped when written out, so only tags put "<" before a letter; comments are written as
they are). Installed only where the regex, and the module's use of ``tostring``, are
the ones this was checked against.

Its pass over unlikely candidates, and its debug messages
---------------------------------------------------------
``remove_unlikely_candidates`` reads every element's class and id in Python to test
them; ``install_quiet_steps`` puts ``unlikely_candidates_removed`` in its place, which
reads only the elements that have one (libxml2 finds them, in the same order), and has
the module's ``describe``, which writes an element's path for a debug message, called
only when debug messages are written: every candidate scored wrote one, whether the
message went anywhere or not.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

# only from a run's first character: tried at each character of a run, as the library's
# r"\s{255,}" is, a page indented by runs of 200 spaces cost it time quadratic in the runs
_LONG_RUN = re.compile(r"(?<!\s)\s{255,}")
_BLANKS = re.compile(r"\t|[ \t]{2,}")

# Strings whose cleaning shows each of readability's three substitutions and the strip.
PROBES = (
    "",
    "  a  b\t\tc  ",
    "a \n \n b",
    "\n\n",
    " \r\n x \u00a0\n\u2003y\n",
    "a" + " \n" * 200 + "b",
    "x" + " " * 300 + "\ny",
    "one\ttwo \t three\n\n\tfour",
    "\u00a0lead\u00a0 and \u2028 trail\u00a0",
)


def _may_hold_a_long_run(text: str) -> bool:
    """Whether text may hold a run of 255 whitespace characters: such a run covers one of
    the text's 128-character blocks (counted from its start) whole. str.isspace tests a
    block at C speed, where the regex tries each character of a container's long text
    (a quarter of readability's time on old pages)."""
    return any(text[i : i + 128].isspace() for i in range(0, len(text) - 127, 128))


def clean(text: str) -> str:
    """readability.readability.clean(text), the same string."""
    if len(text) >= 255 and _may_hold_a_long_run(text):
        text = _LONG_RUN.sub(" " * 255, text)
    if "\n" in text:
        # every maximal run of whitespace that holds a line break becomes that one break
        parts = text.split("\n")
        inner = [q for q in (p.strip() for p in parts[1:-1]) if q]
        text = "\n".join([parts[0].rstrip(), *inner, parts[-1].lstrip()])
    if "\t" in text or "  " in text:
        text = _BLANKS.sub(" ", text)
    return text.strip()


DIV_TO_P = "<(blockquote|dl|div|img|ol|p|pre|table|ul)"
_BLOCK_NAMES = tuple(DIV_TO_P[2:-1].split("|"))  # a tag DIV_TO_P matches starts with one


def block_start(el: Any, *args: Any, **kwargs: Any) -> bytes:
    """For readability's <div> test, lxml's tostring(el, ...) as far as DIV_TO_P reads it:
    "<" and the tag of the first element of el (el included) whose tag DIV_TO_P matches,
    after the comments and processing instructions written out before it; b"" when
    there is none of either."""
    from lxml.etree import tostring

    out = []
    for node in el.iter():
        tag = node.tag
        if isinstance(tag, str):
            if tag.lower().startswith(_BLOCK_NAMES):
                out.append(b"<" + tag.encode("utf-8", "replace"))
                break
        else:  # a comment or a processing instruction: its text is written as it is
            out.append(tostring(node, *args, **dict(kwargs, with_tail=False)))
    return b"".join(out)


def install_block_test(module: Any) -> bool:
    """Put ``block_start`` in place of ``module.tostring`` (readability.readability) when
    the module uses tostring in one function only, its <div> test, with the regex
    DIV_TO_P; whether it is in place."""
    from lxml import etree

    from ...startup import on
    from .versions import tested

    if not tested("readability-lxml") or not on("readability_fast"):
        return False
    current = getattr(module, "tostring", None)
    if current is block_start:
        return True
    regex = getattr(module, "REGEXES", {}).get("divToPElementsRe")
    if current is not etree.tostring or regex is None or (regex.pattern, regex.flags & re.I) != (DIV_TO_P, re.I):
        return False
    # the functions defined in the module, and the methods of its classes, that name it
    functions = [fn for fn in vars(module).values() if getattr(fn, "__module__", None) == module.__name__]
    functions += [fn for cls in functions if isinstance(cls, type) for fn in vars(cls).values()]
    users = [fn.__name__ for fn in functions if "tostring" in _names(getattr(fn, "__code__", None))]
    if users != ["transform_misused_divs_into_paragraphs"]:
        return False
    module.tostring = block_start
    return True


def _names(code: Any) -> set[str]:
    """The global names a code object and the code nested in it (generators, lambdas) use."""
    if code is None:
        return set()
    out = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            out |= _names(const)
    return out


def install(module: Any) -> bool:
    """Put ``clean`` in place of ``module.clean`` (readability.readability), when that
    gives the same answers on PROBES; whether ``clean`` is in place."""
    from ...startup import on  # WEBSEARCH_WORKER_PLAIN: readability as it ships
    from .versions import tested  # another readability-lxml than the tested one runs as it ships

    if not tested("readability-lxml") or not on("readability_fast"):
        return False
    original = getattr(module, "clean", None)
    if original is clean:
        return True
    if original is None or any(original(p) != clean(p) for p in PROBES):
        return False
    module.clean = clean
    return True


def install_quiet_steps(module: Any) -> bool:
    """Put ``unlikely_candidates_removed`` in place of the module's (readability.readability)
    ``Document.remove_unlikely_candidates``, and a ``describe`` that writes an element's path
    only when the module's logger writes debug messages; whether they are in place."""
    import logging

    from ...startup import on
    from .versions import tested

    if not tested("readability-lxml") or not on("readability_fast"):
        return False
    document, original = getattr(module, "Document", None), getattr(module, "describe", None)
    if document is None or original is None or not hasattr(document, "remove_unlikely_candidates"):
        return False
    if getattr(original, "__wrapped__", None) is None:
        log = module.log

        def describe(node: Any, depth: int = 1) -> str:
            return original(node, depth) if log.isEnabledFor(logging.DEBUG) else ""

        describe.__wrapped__ = original  # type: ignore[attr-defined]
        module.describe = describe
    if getattr(document.remove_unlikely_candidates, "__wrapped__", None) is None:
        fast = unlikely_candidates_removed(module)
        fast.__wrapped__ = document.remove_unlikely_candidates
        document.remove_unlikely_candidates = fast
    return True


def unlikely_candidates_removed(module: Any) -> Any:
    """readability's Document.remove_unlikely_candidates, the same elements dropped in the
    same order: an element with neither a class nor an id gives it a "class id" string
    shorter than 2, which it skips, so only those with one are read."""
    from lxml.etree import XPath

    unlikely = module.REGEXES["unlikelyCandidatesRe"]
    maybe = module.REGEXES["okMaybeItsACandidateRe"]
    # compiled once, not at each element's call
    in_code = XPath("ancestor-or-self::pre | ancestor-or-self::code")
    holds_main = XPath("descendant-or-self::main | descendant-or-self::article | descendant-or-self::math")

    def remove_unlikely_candidates(self: Any) -> None:
        for elem in self.html.xpath(".//*[@class or @id]"):
            s = "{} {}".format(elem.get("class", ""), elem.get("id", ""))
            if len(s) < 2:
                continue
            if (
                unlikely.search(s)
                and (not maybe.search(s))
                and elem.tag not in ["html", "body"]
                and not in_code(elem)
                and not holds_main(elem)
            ):
                module.log.debug("Removing unlikely candidate - %s" % module.describe(elem))
                elem.drop_tree()

    return remove_unlikely_candidates
