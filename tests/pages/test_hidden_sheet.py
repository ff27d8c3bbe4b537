"""The page's own stylesheet, read for the classes and ids it hides: the one-regex reading
(hidden.sheet_hiders) against the plain reading it replaced, one rule at a time, on
generated sheets with every shape that could part them (comments, @media blocks, commas
inside values, selectors with states, sheets past the rule and character budgets)."""

import random
import re

import lxml.html

from worker.pages.extract import hidden


def reference(tree):
    """The reading before the regex: every rule, in order, split by hand."""
    out, seen = set(), 0
    for st in tree.iter("style"):
        css = st.text or ""
        if "/*" in css:
            css = re.sub(r"/\*.*?\*/", " ", css[: hidden.MAX_CSS_CHARS], flags=re.S)
        for chunk in css[: hidden.MAX_CSS_CHARS].split("}"):
            selectors, brace, body = chunk.rpartition("{")
            if not brace:
                continue
            seen += 1
            if seen > hidden.MAX_RULES:
                return out
            sels = selectors.rsplit("{", 1)[-1].split(",")
            names = [m.group(2) for m in map(hidden._SIMPLE_SELECTOR.match, sels) if m]
            if names and hidden.style_hides(body):
                out.update((n[0], n[1:]) for n in names)
    return out


NAMES = ["ad", "note-x", "Nav_2", "sr-only", "tip", "x9", "menu", "promo", "é-card"]
HIDING = [
    "display:none",
    "visibility: hidden",
    "opacity:0",
    "position:absolute;left:-9999px",
    "width:0;overflow:hidden",
]
SHOWING = ["color:red", "display:block", "font-family: a, .b, #c", "margin:0 auto", "opacity:.5", "left:-2px"]


def selector(rng):
    name = rng.choice(NAMES)
    return rng.choice(
        [
            "." + name,
            "#" + name,
            "div." + name,
            " \n." + name + " ",
            ".%s:hover" % name,
            ".open > .%s" % name,
            ".a .%s" % name,
            "[data-x='.%s']" % name,
            "%s" % name,
            "#%s::after" % name,
        ]
    )


def sheet(rng, rules):
    parts = []
    for _ in range(rules):
        sels = ", ".join(selector(rng) for _ in range(rng.randint(1, 4)))
        body = "; ".join(rng.choice(HIDING + SHOWING * 2) for _ in range(rng.randint(1, 3)))
        if rng.random() < 0.3:
            body = body.upper() if rng.random() < 0.2 else body
        rule = "%s{%s}" % (sels, body)
        r = rng.random()
        if r < 0.1:
            rule = "@media (max-width: 600px){%s}" % rule
        elif r < 0.15:
            rule = "/* %s */ %s" % (rng.choice(NAMES), rule)
        elif r < 0.18:
            rule = rule.replace("{", "/*{*/{", 1)
        parts.append(rule)
    css = "\n".join(parts)
    if rng.random() < 0.2:
        css += " .%s, .dangling{display:none" % rng.choice(NAMES)  # a sheet cut short
    return css


def page(rng, styles):
    used = rng.sample(NAMES, rng.randint(0, len(NAMES)))
    body = "".join("<div class='%s other'>x</div><p id='%s'>y</p>" % (n, n) for n in used) or "<p>nothing named</p>"
    head = "".join("<style>%s</style>" % css for css in styles)
    return lxml.html.fromstring("<html><head>%s</head><body>%s</body></html>" % (head, body))


def test_the_regex_reads_what_a_rule_by_rule_reading_reads():
    rng = random.Random(7)
    for _ in range(400):
        styles = [sheet(rng, rng.randint(0, 40)) for _ in range(rng.randint(1, 3))]
        tree = page(rng, styles)
        want = reference(tree)
        assert hidden.sheet_hiders(tree) == want, styles
        used = hidden.UsedNames(tree.find("body"))
        got = hidden.sheet_hiders(tree, used)
        # with the page's names, names it does not use may be left out, and nothing else
        assert {(k, n) for k, n in got if n in used.of(k)} == {(k, n) for k, n in want if n in used.of(k)}
        assert got <= want


def test_large_sheets_and_the_budgets():
    rng = random.Random(11)
    # more simple selectors than READ_ALL_SELECTORS: only the used names' rules are read
    big = sheet(rng, hidden.READ_ALL_SELECTORS * 2)
    # past the rule budget: the rules after the first MAX_RULES are not read, in any sheet
    many = "\n".join(".r%d{color:red}" % i for i in range(hidden.MAX_RULES - 3))
    late = ".late1{display:none} .late2{display:none} .late3{display:none} .late4{display:none}"
    for styles in ([big], [many + late], [many, late], [big, many + late]):
        tree = page(rng, styles)
        tree.find("body").append(lxml.html.fromstring("<div class='late3 late4'>z</div>"))
        want = reference(tree)
        assert hidden.sheet_hiders(tree) == want
        used = hidden.UsedNames(tree.find("body"))
        got = hidden.sheet_hiders(tree, used)
        assert {(k, n) for k, n in got if n in used.of(k)} == {(k, n) for k, n in want if n in used.of(k)}
    tree = page(rng, [many + late])
    assert {(".", "late1"), (".", "late2"), (".", "late3")} <= hidden.sheet_hiders(tree)
    assert (".", "late4") not in hidden.sheet_hiders(tree)  # the rule after the budget
    # past the character budget: a sheet is read up to MAX_CSS_CHARS
    long = "p{color:red}" * (hidden.MAX_CSS_CHARS // 12) + ".tail{display:none}"
    assert hidden.sheet_hiders(page(rng, [long])) == reference(page(rng, [long])) == set()


def test_a_hidden_class_the_page_uses_is_removed_past_thirty_unused_ids():
    # ids the page does not carry no longer take the places of the names it does
    unused = "".join("#gone%02d{display:none}" % i for i in range(40))
    html = (
        "<html><head><style>%s .zz-note{display:none}</style></head><body>"
        "<p>Visible words of the article stay where they are.</p><div class='zz-note'>Ad</div></body></html>" % unused
    )
    tree = lxml.html.fromstring(html)
    report = hidden.strip(tree)
    assert report.by_rule.get("sheet") == 2 and "Ad" not in tree.text_content()
    assert "Visible words" in tree.text_content()


def test_a_rules_body_is_judged_as_an_inline_style_is():
    # style_hides(rule=True) only tests the regex before the words: the same answers
    rng = random.Random(3)
    parts = HIDING + SHOWING + ["left:  -900px", "position:fixed", "top:-1px", "TEXT-INDENT:-999em", "overflow:clip"]
    parts += ["transform: scale(0)", "clip: rect(0 0 0 0)", "color:transparent", "height:0", "font-size: 0px"]
    for _ in range(5000):
        style = rng.choice([";", "; ", ";\n"]).join(rng.sample(parts, rng.randint(1, 4)))
        assert hidden.style_hides(style, rule=True) == hidden.style_hides(style), style
