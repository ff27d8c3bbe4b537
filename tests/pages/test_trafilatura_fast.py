"""trafilatura's XPaths with their regex tests asked only where the attribute is
(worker/pages/extract/trafilatura_fast.py): the same elements as the originals."""

import functools
import importlib
import random
import re

import pytest
from lxml import etree, html

from worker.pages.extract import trafilatura_fast as fast

NS = {"re": fast.REGEXP_NS}


def _expressions(module):
    """{name: XPath or the Lazy in its place} of a module's, bound by name or in lists ("LIST[n]")."""
    kinds = (etree.XPath, fast.Lazy)
    out = {}
    for name, value in vars(module).items():
        if isinstance(value, kinds):
            out[name] = value
        elif isinstance(value, list) and value and all(isinstance(x, kinds) for x in value):
            out.update(("%s[%d]" % (name, n), x) for n, x in enumerate(value))
    return out


# the trafilatura modules that define expressions with regex tests
DEFINING = ("xpaths", "settings")


@functools.lru_cache(maxsize=None)
def pristine(name):
    """trafilatura.<name> as its source defines it, loaded apart from the module that
    install() rewrites in place (an earlier test in this process may have run it)."""
    import importlib.util
    import types

    importlib.import_module("trafilatura." + name)  # what its relative imports need is loaded
    spec = importlib.util.find_spec("trafilatura." + name)
    module = types.ModuleType("pristine_trafilatura_" + name)
    module.__package__, module.__file__ = "trafilatura", spec.origin
    with open(spec.origin, encoding="utf-8") as f:
        exec(compile(f.read(), spec.origin, "exec"), module.__dict__)
    return module


def pairs():
    """(name, trafilatura's original expression, the rewritten one) for every rewritten one."""
    out = []
    for module in DEFINING:
        for name, original in sorted(_expressions(pristine(module)).items()):
            path, count = fast.rewrite(original.path)
            if count and fast.placed_for(original.path):
                # as install() compiles it
                new = etree.XPath(path, namespaces=NS, smart_strings=not fast.selects_elements(path))
                out.append(("%s.%s" % (module, name), original, new))
    return out


# ------------------------------------------------------------------ the rewriting


def test_a_test_of_one_attribute_is_asked_of_that_attribute():
    assert fast.rewrite(".//*[re:test(@class, 'a|b')]") == (".//*[@*][boolean(@class[re:test(., 'a|b')])]", 2)
    assert fast.rewrite(".//p/a[re:test(@class, 'a|b')]") == (".//p/a[boolean(@class[re:test(., 'a|b')])]", 1)


def test_a_union_is_read_as_re_test_reads_it_its_first_node():
    got = fast.rewrite(".//div[re:test(@id|@class, 'x')]")
    assert got == (".//div[boolean((@id|@class)[1][re:test(., 'x')])]", 1)


def test_flags_and_commas_inside_the_pattern_are_kept():
    got = fast.rewrite(".//*[re:test(@class, '(a,b)', 'i')]")
    assert got == (".//*[@*][boolean(@class[re:test(., '(a,b)', 'i')])]", 2)


def test_the_rewritten_test_is_a_boolean_in_any_context():
    # not only in a predicate: as a string or a number too, re:test gives a boolean's
    # ("true", 1), and so does the rewritten test, not the attribute's value
    tree = etree.fromstring('<r><e class="nav main"/><e id="nav" class="x"/><e/></r>')
    for path in (
        "string(re:test(@class, 'nav'))",
        "number(re:test(@id|@class, 'nav'))",
        "re:test(@class, 'nav') = true()",
        "concat(re:test(@id, 'nav'), '-', re:test(@class, 'x'))",
    ):
        new, n = fast.rewrite(path)
        assert n >= 1
        for e in tree:
            assert etree.XPath(new, namespaces=NS)(e) == etree.XPath(path, namespaces=NS)(e), (path, e.attrib)


def test_an_opening_step_by_element_names_is_a_union_of_name_tests():
    got = fast.rewrite(".//*[self::div or self::p][@id='x' or re:test(@class, 'a')]")
    assert got == ("(.//div|.//p)[@*][@id='x' or boolean(@class[re:test(., 'a')])]", 3)
    got = fast.rewrite("(.//*[self::div or self::p][@id or re:test(@class, 'a')])[1]")
    assert got == ("((.//div|.//p)[@*][@id or boolean(@class[re:test(., 'a')])])[1]", 3)
    assert fast.rewrite(".//*[self::div or self::p][starts-with(@id, 'a')]") == (
        "(.//div|.//p)[@*][starts-with(@id, 'a')]",
        2,
    )


@pytest.mark.parametrize(
    "path",
    [
        ".//*[self::div or self::p][@id or @class][1]",  # the first of each parent's, not of all
        ".//*[self::div or self::p][string-length(@class)]",  # a number: a position
        ".//*[self::div or self::p][@class]",  # not known to be a boolean here (a node-set is one: kept all the same)
        ".//*[self::div or self::p][@id or @class]/a",
        ".//*[self::div or self::p][@id or @class] | .//x",
        ".//*[self::div or self::p][(@id or @class)]",
        ".//*[self::div or self::p][@id or position() = 2]",
    ],
)
def test_an_opening_step_whose_positions_could_change_is_kept(path):
    assert fast.by_names(path) == (path, 0)
    tree = etree.fromstring("<r><div id='1'><p class='a'/><p/><div class='b'><p id='c'/></div></div><p/></r>")
    new, _ = fast.rewrite(path)
    assert etree.XPath(new, namespaces=NS)(tree) == etree.XPath(path, namespaces=NS)(tree)


@pytest.mark.parametrize(
    "path, want",
    [
        (".//*[@a or contains(@b|@c, 'x') or starts-with(@d, 'y')]", ".//*[@*][@a or"),
        (".//*[@a='' or contains(translate(@b, 'X', 'x'), 'x')]", ".//*[@*][@a=''"),
        (".//*[self::p][(self::p and @a) or (@b and not(@c))]", ".//*[self::p][@*][(self::p"),
        (".//*[self::p][(@a or @b)][1]", ".//*[self::p][@*][(@a"),  # the positions after it stay
        (".//*[boolean((@a|@b)[1][. = 'X'])]", ".//*[@*][boolean"),
    ],
)
def test_elements_without_attributes_are_left_out_first_where_none_could_pass(path, want):
    new, n = fast.attributes_first(path)
    assert n == 1 and new.startswith(want)
    tree = etree.fromstring(
        "<r><p a=''/><p b='X'/><p/><div><p c='1' b='2'/><p d='yes'>t</p></div><p>x</p><p c='x'/></r>"
    )
    assert etree.XPath(new)(tree) == etree.XPath(path)(tree) != []


@pytest.mark.parametrize(
    "path",
    [
        ".//*[not(@a)]",  # an element without attributes passes
        ".//*[@a or self::p]",
        ".//*[contains(@a, '')]",  # "" holds ""
        ".//*[contains(., 'x') or @a]",
        ".//*[boolean(@a | .//p)]",  # not only attributes
        ".//*[boolean(@a/..)]",
        ".//*[string-length(@a)]",  # a number: a position
        ".//*[position() = 1 or @b]",
        ".//x[@a]",  # not an opening step it knows
    ],
)
def test_a_predicate_an_element_without_attributes_could_pass_is_kept(path):
    assert fast.attributes_first(path) == (path, 0)
    tree = etree.fromstring("<r><p a=''/><p b='X'/><p/><div><p c='1' b='2'/><x a='1'/></div><p>x</p></r>")
    assert etree.XPath(fast.rewrite(path)[0], namespaces=NS)(tree) == etree.XPath(path)(tree)


@pytest.mark.parametrize(
    "path",
    [
        ".//*[re:test(@class, '^|x')]",  # matches "": an element without @class passes re:test
        ".//*[re:test(@class, 'X*', 'i')]",
        ".//*[re:test(., 'x')]",  # not an attribute
        ".//*[re:test(text(), 'x')]",
        ".//*[re:test(@class, $pattern)]",  # not a literal
        ".//x:div[re:test(@class, 'x')]",  # a prefix the rewritten expression would not know
        ".//*[re:test(@class, 'x'",  # not closed
    ],
)
def test_what_cannot_be_rewritten_safely_is_kept(path):
    assert fast.rewrite(path) == (path, 0)


@pytest.mark.tricks("xpath_rewrite")
def test_the_installed_trafilatura_has_its_tests_rewritten():
    from worker.pages.extract.core import extract

    extract("<html><body><p>Loads trafilatura and puts the expressions in place.</p></body></html>")
    got = pairs()
    # BODY_XPATH, OVERALL_DISCARD_XPATH and the comments' are where the time goes (docs/PERFORMANCE.md)
    names = {name.split("[")[0] for name, _, _ in got}
    wanted = {
        "xpaths.BODY_XPATH",
        "xpaths.OVERALL_DISCARD_XPATH",
        "xpaths.COMMENTS_XPATH",
        "settings.BASIC_CLEAN_XPATH",
    }
    assert wanted <= names, names
    modules = fast.trafilatura_modules()
    in_place = {x.path for m in modules for x in _expressions(m).values()}
    assert all(new.path in in_place for _, _, new in got)
    assert not any(original.path in in_place for _, original, _ in got)
    # bound by name elsewhere too: baseline's is settings' rewritten one
    baseline = importlib.import_module("trafilatura.baseline")
    assert baseline.BASIC_CLEAN_XPATH is importlib.import_module("trafilatura.settings").BASIC_CLEAN_XPATH
    # every expression with a regex test or a step by_names rewrites is a Lazy (those not rewritten call the original),
    # bound by name in baseline too; installing again changes nothing
    places = {}  # a list that several modules import is one place a member
    for m in modules:
        for name, value in vars(m).items():
            if isinstance(value, fast.Lazy):
                places[id(m), name] = value
            elif isinstance(value, list):
                places.update(((id(value), n), x) for n, x in enumerate(value) if isinstance(x, fast.Lazy))
    assert len(places) >= len(got) + 1
    assert all("re:test(" in x.original.path or fast.by_names(x.original.path)[1] for x in places.values())
    assert fast.install(modules) == fast.install(modules) == len(places)
    # a benchmark's baseline is trafilatura as it ships: the originals go back, and return
    try:
        fast.placed(False)
        shipped = {x.path for m in modules for x in _expressions(m).values()}
        assert all(original.path in shipped for _, original, _ in got)
        assert not any(new.path in shipped for _, _, new in got)
    finally:
        fast.placed(True)
    assert {x.path for m in modules for x in _expressions(m).values()} == in_place


# ------------------------------------------------------------------ the same elements

TAGS = ["div", "section", "span", "p", "article", "main", "aside", "header", "footer", "a", "ul", "li", "list", "item"]
ATTRIBUTES = ["id", "class", "style", "role", "aria-hidden", "itemprop", "data-component", "title"]


def _vocabulary():
    words = {"hidden", "nav", "true", "display:none", "display: none", "comments-title", "reply-x", "main", "article"}
    for _, original, _ in pairs():
        for literal in re.findall(r"'([^']*)'", original.path):
            words.update(w for w in re.split(r"[^A-Za-z_-]+", literal) if len(w) > 2)
    return sorted(words)


def _tree(rng, words):
    def value():
        parts = [rng.choice(words) for _ in range(rng.randint(0, 3))]
        text = rng.choice([" ", "-", "_", ""]).join(parts)
        return text.upper() if rng.random() < 0.1 else (text.title() if rng.random() < 0.1 else text)

    def element(depth):
        el = etree.Element(rng.choice(TAGS))
        for name in rng.sample(ATTRIBUTES, rng.randint(0, 4)):  # in random order: the union reads the first
            el.set(name, value())
        el.text = "text %d" % rng.randint(0, 9)
        if depth < 4:
            for _ in range(rng.randint(0, 4)):
                el.append(element(depth + 1))
        return el

    root = etree.Element("html")
    body = etree.SubElement(root, "body")
    for _ in range(6):
        body.append(element(0))
    return html.fromstring(etree.tostring(root))


def test_generated_pages_give_the_same_elements():
    rng = random.Random(7)
    words = _vocabulary()
    checked = 0
    for _ in range(300):
        tree = _tree(rng, words)
        for name, original, new in pairs():
            assert original(tree) == new(tree), name
            checked += len(original(tree))
    assert checked > 1000  # the pages do hold elements the expressions select


def _shared_pages():
    from conftest import shared_data_missing

    why = shared_data_missing()  # a fresh clone has no ../shared: one line says what is skipped (CI fails)
    if why:
        return [pytest.param(None, id="shared-pages", marks=pytest.mark.skip(reason="real pages: %s" % why))]
    from fakes import corpus_server as cs

    pages = [("wcxb", r["id"]) for r in cs.wcxb_rows()[::12]]
    pages += [("classic", r["id"]) for r in cs.classic_rows()[::12]]
    pages += [("zyte", i) for i in cs.zyte_ids()[::6]]
    return [pytest.param(pages, id="shared-pages")]


@pytest.mark.slow
@pytest.mark.parametrize("pages", _shared_pages())
def test_real_pages_give_the_same_elements(pages):
    from fakes import corpus_server as cs

    from worker.pages.extract.parse import parse

    load = {"wcxb": cs.wcxb_page, "classic": cs.classic_page, "zyte": cs.zyte_page}
    expressions = pairs()
    selected = 0
    for kind, page_id in pages:
        tree = parse(load[kind](page_id).decode("utf-8", "replace"))
        if tree is None:
            continue
        for name, original, new in expressions:
            want = original(tree)
            assert new(tree) == want, (kind, page_id, name)
            selected += len(want)
    assert len(pages) > 250 and selected > 1000


def test_the_rewriting_is_used_only_where_lxml_reads_as_assumed(monkeypatch):
    import types

    def module():
        m = types.ModuleType("some_xpaths")
        m.LIST = [etree.XPath(".//*[re:test(@class, 'nav')]", namespaces=NS), etree.XPath(".//p")]
        m.ONE = etree.XPath(".//*[re:test(@id|@class, 'nav')]", namespaces=NS)
        return m

    page = etree.fromstring('<r><div class="nav"/><p/></r>')
    assert fast.lxml_reads_as_assumed()
    m = module()
    assert fast.install([m]) == 2 and isinstance(m.LIST[0], fast.Lazy) and isinstance(m.LIST[1], etree.XPath)
    monkeypatch.setattr(fast, "_CHECKED", [True])
    assert m.LIST[0].path == ".//*[@*][boolean(@class[re:test(., 'nav')])]" and m.LIST[0](page) == [page[0]]
    monkeypatch.setattr(fast, "_CHECKED", [False])  # an lxml that reads otherwise: the originals run
    m = module()
    assert fast.install([m]) == 2 and m.LIST[0].path == ".//*[re:test(@class, 'nav')]"
    assert m.LIST[0](page) == [page[0]] and m.ONE.path == ".//*[re:test(@id|@class, 'nav')]"


@pytest.mark.parametrize(
    "path,elements",
    [
        (".//*[re:test(@class, 'x')]", True),
        ("(.//div[@id='a'])[1]|(.//main)[1]", True),
        (".//*[p[span[@class]]]", True),
        (".//a/@href", False),
        (".//meta/attribute::content", False),
        (".//p/text()", False),
        (".//p/node()", False),
        ("string(.//title)", False),
        ("count(//*)", False),
    ],
)
def test_plain_strings_only_where_the_results_are_elements(path, elements):
    # lxml's smart_strings only changes string results (and what re:test is handed)
    assert fast.selects_elements(path) is elements
