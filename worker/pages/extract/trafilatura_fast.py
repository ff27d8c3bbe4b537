"""trafilatura's XPath expressions, with each regex test asked only of the elements that
carry the attribute it reads.

lxml runs EXSLT's ``re:test`` as a Python callback, once for every element an
expression visits, with the attribute's value, or "" where the element has none.
trafilatura's expressions test ``@id`` and ``@class`` this way: on large pages its
XPaths are about 30% of our extraction time, much of it in these callbacks.

``re:test(@a, P)`` holds of an element exactly when ``@a[re:test(., P)]`` is not
empty (``boolean()`` of it), as long as P cannot match "": an element without ``@a`` fails both. Given a
union (``@id|@class``), re:test reads the first node of the set, in document order,
which is what ``(@id|@class)[1]`` selects. So each such test is rewritten; a test
whose pattern can match "", or whose first argument is not attributes, is kept as
it is. Two more rewrites find the same elements sooner: an opening step by element
names (by_names), and ``[@*]`` before a predicate that no element without attributes
passes (attributes_first). The rewritten expressions select the same elements (tests/pages/
test_trafilatura_fast.py holds them to the originals on generated and real pages).
"""

from __future__ import annotations

import re

from ...regex_cache import code_patterns

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from types import ModuleType
    from typing import Any

REGEXP_NS = "http://exslt.org/regular-expressions"
_CALL = "re:test("
_ATTRIBUTES = re.compile(r"@[\w.-]+(?:\s*\|\s*@[\w.-]+)*")
_LITERALS = re.compile(r"'[^']*'|\"[^\"]*\"")
# a namespace prefix (not an axis's "::"): the rewritten expression knows only "re"
_PREFIX = re.compile(r"(?<![:\w.-])([A-Za-z_][\w.-]*):(?!:)")


def _unquoted(path: str, start: int) -> Iterator[tuple[int, str]]:
    """(index, character) of path from ``start`` on, outside its string literals (XPath 1.0
    has no escapes: a literal ends at its next quote)."""
    quote = ""
    for i in range(start, len(path)):
        c = path[i]
        if quote:
            if c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        else:
            yield i, c


def _arguments(path: str, start: int) -> tuple[list[str], int] | None:
    """The top-level arguments of the call whose "(" ends just before ``start``, and the
    index after its ")"; None when the call is not closed."""
    depth, args, begin = 0, [], start
    for i, c in _unquoted(path, start):
        if c in "([":
            depth += 1
        elif c in ")]":
            if depth == 0:
                args.append(path[begin:i])
                return args, i + 1
            depth -= 1
        elif c == "," and depth == 0:
            args.append(path[begin:i])
            begin = i + 1
    return None


def _literal(arg: str) -> str | None:
    """The value of an XPath string literal (XPath 1.0 has no escapes), else None."""
    arg = arg.strip()
    if len(arg) >= 2 and arg[0] == arg[-1] and arg[0] in "'\"":
        return arg[1:-1]
    return None


def _rewritable(args: list[str]) -> bool:
    if len(args) not in (2, 3) or not _ATTRIBUTES.fullmatch(args[0].strip()):
        return False
    literals = [_literal(a) for a in args[1:]]
    if any(lit is None for lit in literals):
        return False
    pattern, flags = literals[0], literals[1] if len(literals) > 1 else ""
    try:  # with the flags lxml compiles it with: re's cache hands lxml this compiled pattern
        return re.compile(pattern or "", re.U | (re.I if "i" in (flags or "") else 0)).search("") is None
    except re.error:
        return False


# ".//*[self::div or self::p]" at an expression's start (in a group or not)
_SELF_TEST = re.compile(r"\s*(\(\s*)?(\.?//)\*\[\s*(self::[\w-]+(?:\s+or\s+self::[\w-]+)*)\s*\]")
# a predicate is a boolean when, outside its literals, parentheses and brackets, it is an
# "or", an "and" or a comparison, or a call of one of these functions alone
_BOOLEAN = re.compile(r"\sor\s|\sand\s|[=<>]")
_BOOLEAN_CALLS = frozenset(("contains", "starts-with", "not", "boolean", "re:test"))


def _closing(path: str, start: int) -> int | None:
    """The index of the "]" that closes the "[" at ``start``; None when there is none."""
    depth = 0
    for i, c in _unquoted(path, start):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
            if depth == 0:
                return i if c == "]" else None
    return None


def by_names(path: str) -> tuple[str, int]:
    """``path`` with ``.//*[self::a or self::b][P]`` as ``(.//a|.//b)[P]``, and 1, where P is
    the step's last predicate and a boolean (_BOOLEAN): the same elements in the
    same order, found by libxml2's name test on each element instead of the predicate's
    evaluation (a fifth of these expressions' time). Else ``path`` and 0."""
    m = _SELF_TEST.match(path)
    if m is None or m.end() >= len(path) or path[m.end()] != "[":
        return path, 0
    end = _closing(path, m.end())
    if end is None:
        return path, 0
    rest = path[end + 1 :]
    if rest.strip() and not (m.group(1) and rest.lstrip().startswith(")")):
        return path, 0  # another predicate, a step or a union after it: positions would change
    predicate = path[m.end() + 1 : end]
    top = _LITERALS.sub("''", predicate)
    while True:  # what stands inside parentheses and brackets is not at the top
        shorter = re.sub(r"\([^()\[\]]*\)|\[[^()\[\]]*\]", "", top)
        if shorter == top:
            break
        top = shorter
    if not _BOOLEAN.search(top) and top.strip() not in _BOOLEAN_CALLS:
        return path, 0
    if "position()" in predicate or "last()" in predicate:
        return path, 0
    names = re.findall(r"self::([\w-]+)", m.group(3))
    axis = m.group(2)
    head = (m.group(1) or "") + "(" + "|".join(axis + n for n in names) + ")"
    return path[: m.start(2) - (len(m.group(1)) if m.group(1) else 0)].rstrip() + head + path[m.end() :], 1


def rewrite(path: str) -> tuple[str, int]:
    """``path`` with every rewritable ``re:test(@a, ...)`` as ``boolean(@a[re:test(., ...)])``
    (a union as ``(@a|@b)[1][...]``), its opening step by element names (by_names), and
    elements without attributes left out first where none could pass (attributes_first);
    how many were rewritten."""
    if any(prefix != "re" for prefix in _PREFIX.findall(_LITERALS.sub("", path))):
        return path, 0
    path, named = by_names(path)
    tested, count = _tests(path)
    tested, filtered = attributes_first(tested)
    return tested, count + named + filtered


# the opening step, before its predicates: ".//*" or "(.//a|.//b)" (by_names), in a group or not
_OPENING = re.compile(r"\s*(?:\(\s*)?(?:\(\.?//[\w-]+(?:\|\.?//[\w-]+)*\)|\.?//\*)(?=\[)")
_LIT = "(?:%s)" % _LITERALS.pattern
_FULL_LIT = r"(?:'[^']+'|\"[^\"]+\")"  # not empty: contains(x, '') holds of "" too
_ATTRS = r"@[\w.-]+(?:\s*\|\s*@[\w.-]+)*"
# a test that no element without attributes passes: an attribute named, compared, or searched
# for a non-empty string (translated first or not)
_NEEDS_ATTRIBUTE = re.compile(
    r"@[\w.-]+"
    r"|@[\w.-]+\s*=\s*"
    + _LIT
    + r"|(?:contains|starts-with)\(\s*(?:"
    + _ATTRS
    + r"|translate\(\s*@[\w.-]+\s*,\s*"
    + _LIT
    + r"\s*,\s*"
    + _LIT
    + r"\s*\))\s*,\s*"
    + _FULL_LIT
    + r"\s*\)"
)
_BOOLEAN_OF_ATTRIBUTES = re.compile(r"boolean\(\s*(?:@[\w.-]+|\(\s*" + _ATTRS + r"\s*\))(?=[\[\s)])")


_BRACKETS = re.compile(r"[()\[\]]")
_STRUCTURE = re.compile(r"[()\[\]]|\s(?:or|and)(?=\s)")


def _masked(path: str) -> str:
    """path with each string literal's characters (not its quotes) as "_": the same length
    and offsets, and no bracket, parenthesis or operator of a literal's left to read. The
    functions below read masked text, token by token (a few hundred an expression: a walk of
    each character cost several milliseconds a process, paid by every fetch)."""
    return _LITERALS.sub(lambda m: m.group()[0] + "_" * (len(m.group()) - 2) + m.group()[-1], path)


def _close(masked: str, start: int) -> int | None:
    """The index of what closes the bracket or parenthesis at ``start``; None when nothing does."""
    depth = 0
    for m in _BRACKETS.finditer(masked, start):
        depth += 1 if m.group() in "([" else -1
        if depth == 0:
            return m.start()
    return None


def _attribute_test(operand: str) -> bool:
    """Whether operand (masked) is a test _NEEDS_ATTRIBUTE knows, or ``boolean()`` of
    attributes with predicates only (as _tests writes re:test): empty where there are none."""
    if _NEEDS_ATTRIBUTE.fullmatch(operand):
        return True
    m = _BOOLEAN_OF_ATTRIBUTES.match(operand)
    if m is None:
        return False
    i = m.end()
    while i < len(operand) and operand[i] == "[":
        end = _close(operand, i)
        if end is None or operand[end] != "]":
            return False
        i = end + 1
    return operand[i:].strip() == ")"


def _split(expression: str, word: str) -> list[str]:
    """expression's (masked) operands of ``word`` ("or", "and") at its top level, outside its
    parentheses and brackets (one operand when it has none)."""
    parts, depth, begin = [], 0, 0
    for m in _STRUCTURE.finditer(expression):
        token = m.group()
        if token in "([":
            depth += 1
        elif token in ")]":
            depth -= 1
        elif depth == 0 and token[1:] == word:
            parts.append(expression[begin : m.start()])
            begin = m.end()
    parts.append(expression[begin:])
    return parts


def _bracketed(term: str) -> bool:
    """Whether term (masked) is one group in parentheses, "(...)", whole."""
    return term.startswith("(") and _close(term, 0) == len(term) - 1


def needs_attribute(predicate: str) -> bool:
    """Whether no element without attributes can pass predicate: each of its "or" operands
    has an "and" operand that is a test _attribute_test knows (what it does not know counts
    as passing)."""
    return _needs_attribute(_masked(predicate))


def _needs_attribute(masked: str) -> bool:
    for term in _split(masked.strip(), "or"):
        term = term.strip()
        while _bracketed(term):
            term = term[1:-1].strip()
        operands = [o.strip() for o in _split(term, "and")]
        if len(operands) == 1 and len(_split(term, "or")) > 1:
            if not _needs_attribute(term):
                return False
        elif not any(_attribute_test(o) or (_bracketed(o) and _needs_attribute(o[1:-1])) for o in operands):
            return False
    return True


def attributes_first(path: str) -> tuple[str, int]:
    """``path`` with ``[@*]`` before the first of its opening step's predicates that no
    element without attributes passes (needs_attribute) and that reads no position, and 1:
    that predicate and those after it see the same elements in the same order, and libxml2
    skips an element without attributes at once instead of evaluating each of the
    predicate's tests on it (most of a page's elements have none). Else ``path`` and 0."""
    masked = _masked(path)
    m = _OPENING.match(masked)
    if m is None:
        return path, 0
    i = m.end()
    while i < len(masked) and masked[i] == "[":
        end = _close(masked, i)
        if end is None or masked[end] != "]":
            return path, 0
        predicate = masked[i + 1 : end]
        if "position()" not in predicate and "last()" not in predicate and _needs_attribute(predicate):
            return path[:i] + "[@*]" + path[i:], 1
        i = end + 1
    return path, 0


def _tests(path: str) -> tuple[str, int]:
    out, i, count = [], 0, 0
    while True:
        j = path.find(_CALL, i)
        if j < 0:
            out.append(path[i:])
            return "".join(out), count
        found = _arguments(path, j + len(_CALL))
        if found is None:
            out.append(path[i:])
            return "".join(out), count
        args, end = found
        if not _rewritable(args):
            out.append(path[i:end])
            i = end
            continue
        first = args[0].strip()
        nodes = first if "|" not in first else "(%s)[1]" % first
        out.append(path[i:j])
        # boolean(): a boolean as re:test gives, in any context (a node-set would be read
        # as its string value by string(), say)
        out.append("boolean(%s[re:test(., %s)])" % (nodes, ",".join(args[1:]).strip()))
        i = end
        count += 1


_PREDICATE = re.compile(r"\[[^\[\]]*\]")
_FUNCTION_CALL = re.compile(r"[\w-]\s*\(")


def selects_elements(path: str) -> bool:
    """Whether an expression can only give elements (no attribute, text or other string):
    with its literals and predicates taken out, it names no attribute, axis of one, nor
    function (text(), node(), string()...); "( ... )[n]" groups and unions are fine."""
    bare = _LITERALS.sub("''", path)
    while True:
        shorter = _PREDICATE.sub("", bare)
        if shorter == bare:
            break
        bare = shorter
    return "@" not in bare and "attribute::" not in bare and "[" not in bare and not _FUNCTION_CALL.search(bare)


class Lazy:
    """Stands in for one of trafilatura's XPaths: on its first call, compiles the rewritten
    expression (or keeps the original, where nothing in it is rewritten), and from then on
    calls that. Lazily, as every call is a fresh process: compiling the patterns of all of
    trafilatura's expressions costs 5-9 ms, most of them never asked on a page (its
    metadata's), and the patterns of those asked are compiled once, for lxml too (re's
    cache, same flags)."""

    __slots__ = ("original", "_compiled")

    def __init__(self, original: Any) -> None:
        self.original = original
        self._compiled: Any = None

    def compiled(self) -> Any:
        if self._compiled is None:
            with code_patterns():  # trafilatura's literals: kept for the next call (worker/regex_cache.py)
                self._compiled = _rewritten(self.original) if _lxml_checked() else self.original
        return self._compiled

    @property
    def path(self) -> str:
        return str(self.compiled().path)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self.compiled()
        return compiled(*args, **kwargs)


def placed_for(path: str) -> bool:
    """Whether install puts a Lazy in place of the expression: one with a regex test, or
    whose opening step by_names rewrites (those where the time goes; attributes_first alone
    would add trafilatura's metadata's, not asked, at the cost of reading each at every start)."""
    return _CALL in path or bool(by_names(path)[1])


def install(modules: Iterable[ModuleType]) -> int:
    """Put a ``Lazy`` in place of each of ``modules``' (trafilatura's) XPaths that holds a
    regex test or opens with a step by_names rewrites: in its lists of XPaths, which its other modules hold as the same list
    objects, and wherever a module binds one by name (one expression can be bound in
    several, as ``from .settings import BASIC_CLEAN_XPATH`` binds it in baseline).
    Returns how many places now hold one. Each compiles its rewritten expression on its
    first call, where a probe shows that this lxml's re:test reads a node-set as the
    rewriting assumes; else it calls the original."""
    from lxml.etree import XPath

    memo: dict[int, Lazy] = {}

    def lazy(expression: Any) -> Lazy | None:
        if not placed_for(expression.path):
            return None
        if id(expression) not in memo:
            memo[id(expression)] = Lazy(expression)  # it keeps the original alive: its id stays its own
        return memo[id(expression)]

    count = 0
    for module in modules:
        done = getattr(module, "__worker_rewritten__", None)
        if done is None:
            done = 0
            for name, value in list(vars(module).items()):
                if isinstance(value, XPath):
                    new = lazy(value)
                    if new is not None:
                        setattr(module, name, new)
                        _PLACED.append((module, name, value, new))
                        done += 1
                elif isinstance(value, list) and value and all(isinstance(x, XPath) for x in value):
                    for n, expression in enumerate(value):
                        new = lazy(expression)
                        if new is not None:
                            value[n] = new
                            _PLACED.append((value, n, expression, new))
                            done += 1
            module.__worker_rewritten__ = done  # type: ignore[attr-defined]
        count += int(done)
    return count


_PROBE = '<r><e id="x" class="hidden"/><e class="hidden" id="x"/><e/><e class=""/></r>'
_PROBE_TEST = "//e[re:test(@id|@class, 'hidden') or re:test(@style, 'q')]"


def lxml_reads_as_assumed() -> bool:
    """Whether this lxml's re:test reads a node-set as the rewriting assumes (its first node,
    in document order; "" for none), on a probe whose answer the rewriting preserves."""
    from lxml import etree

    probe = etree.fromstring(_PROBE)
    try:
        got = etree.XPath(_PROBE_TEST, namespaces={"re": REGEXP_NS})(probe)
        rewritten = etree.XPath(rewrite(_PROBE_TEST)[0], namespaces={"re": REGEXP_NS})(probe)
    except etree.Error:
        return False
    return got == rewritten == [probe[1]]


_CHECKED: list[bool] = []


def _lxml_checked() -> bool:
    """lxml_reads_as_assumed(), asked once a process (by the first expression called)."""
    if not _CHECKED:
        _CHECKED.append(lxml_reads_as_assumed())
    return _CHECKED[0]


# (module or list, name or index, original, rewritten) of every expression put in place
_PLACED: list[tuple[Any, Any, Any, Any]] = []


def placed(rewritten: bool) -> None:
    """Put the originals back (False), or the rewritten expressions again (True): for a
    benchmark that times trafilatura as it ships in the process that runs ours."""
    for where, key, original, new in _PLACED:
        value = new if rewritten else original
        if isinstance(where, list):
            where[key] = value
        else:
            setattr(where, key, value)


def _rewritten(expression: Any) -> Any:
    """The rewritten XPath for ``expression``, or ``expression`` itself when nothing in it is
    rewritten or the rewriting does not compile."""
    from lxml.etree import XPath, XPathSyntaxError

    path, changed = rewrite(expression.path)
    if not changed:
        return expression
    try:
        # plain strings: lxml's default hands re:test each attribute as a string that
        # keeps its element, built for the call (a tenth of these expressions' time)
        return XPath(path, namespaces={"re": REGEXP_NS}, smart_strings=not selects_elements(path))
    except XPathSyntaxError:
        return expression


_ONCE: list[int] = []


def install_once() -> None:
    """``install`` on trafilatura's modules, the first time only (later calls cost nothing:
    the modules trafilatura loads afterwards bind the rewritten objects by name)."""
    if not _ONCE:
        from ...startup import on  # WEBSEARCH_WORKER_PLAIN: trafilatura as it ships
        from .versions import tested  # another trafilatura than the tested one runs as it ships

        if tested("trafilatura") and on("xpath_rewrite"):
            _ONCE.append(install(trafilatura_modules()))
            install_lazy_backup()
        else:
            _ONCE.append(0)


def trafilatura_modules() -> list[ModuleType]:
    """trafilatura's modules loaded so far (not the package, which worker.pages.extract.imports
    may hold as a stand-in)."""
    import sys

    return [m for name, m in list(sys.modules.items()) if name.startswith("trafilatura.") and m is not None]


class _Backup:
    """Stands in for trafilatura's copy of its cleaned tree, which it keeps before
    converting the tags (trafilatura.core._prepare_tree) for two readers only: its
    external extractors, not asked in fast mode, and a forum page's posts, which take a
    copy of it (``copy(backup)``). In fast mode the copy is made only then, by cleaning
    the same tree again: the same tree as the copy of the first cleaning (the input is
    trafilatura's own copy of the page, which nothing changes in between)."""

    __slots__ = ("tree", "options")

    def __init__(self, tree: Any, options: Any) -> None:
        self.tree, self.options = tree, options

    def __copy__(self) -> Any:
        from copy import copy

        from trafilatura.htmlprocessing import tree_cleaning

        return tree_cleaning(copy(self.tree), self.options)


def _prepare_tree(original: Any) -> Any:
    """trafilatura.core._prepare_tree without its backup copy in fast mode (_Backup)."""

    def prepare(tree: Any, options: Any, url: str | None) -> tuple[Any, Any]:
        if not options.fast:
            return original(tree, options, url)
        from copy import copy

        from trafilatura.htmlprocessing import convert_tags, tree_cleaning

        cleaned = tree_cleaning(copy(tree), options)
        return convert_tags(cleaned, options, url), _Backup(tree, options)

    return prepare


def install_lazy_backup() -> None:
    """Put _prepare_tree's stand-in in place (placed() puts the original back too)."""
    import trafilatura.core as traf_core

    original = traf_core._prepare_tree
    new = _prepare_tree(original)
    traf_core._prepare_tree = new
    _PLACED.append((traf_core, "_prepare_tree", original, new))
