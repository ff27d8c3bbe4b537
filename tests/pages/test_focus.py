"""Focused passages (worker.pages.answer.focus): pure functions on made-up pages."""

from hypothesis import given, settings
from hypothesis import strategies as st

from worker.pages.answer import blocks, focus


def page(paragraphs, headings=None):
    """Markdown: filler paragraphs, with the given ones at their indexes and headings above some."""
    parts = []
    for i in range(60):
        if headings and i in headings:
            parts.append(headings[i])
        parts.append(
            paragraphs.get(i, "Paragraph %d talks about the weather, the roads and the town hall at length." % i)
        )
    return "\n\n".join(parts)


def test_terms_fold_case_drop_glue_words_and_pair_cjk_characters():
    assert focus.terms("How do I INSTALL the Widgets?") == ["instal", "widget"]
    assert focus.terms("东京 天气") == ["东京", "天气"]
    assert focus.terms("東京の天気") == ["東京", "京の", "の天", "天気"]
    assert focus.terms("the of and") == []


def test_the_answer_deep_in_a_page_is_chosen_verbatim_with_its_offset():
    answer = "The reactor cooling pump runs at 1450 revolutions per minute during normal operation."
    text = page({52: answer})
    view = focus.focused(text, "what speed does the cooling pump run at", 600)
    assert view is not None
    assert answer in view["content"]
    assert len(view["content"]) <= 600
    for p, part in zip(view["passages"], focus.parts(view["content"], view["passages"], 0)):
        assert text[p["offset"] : p["offset"] + p["length"]] == part  # verbatim, and where it says
    offsets = [p["offset"] for p in view["passages"]]
    assert offsets == sorted(offsets)
    assert text.index(answer) in range(offsets[0], offsets[-1] + 1)


def test_offsets_are_the_whole_pages_when_the_text_starts_later():
    text = page({40: "Bolts are tightened to 35 newton metres."})
    view = focus.focused(text[1000:], "bolt torque newton", 300, base=1000)
    p = view["passages"][0]
    assert text[p["offset"] : p["offset"] + p["length"]].startswith("Bolts are tightened")


def test_the_section_heading_counts_for_the_paragraphs_under_it():
    text = page(
        {
            10: "You install the package with the installer and restart.",
            45: "Run the setup program as an administrator and accept the prompt.",
        },
        headings={45: "## Installing on Windows"},
    )
    view = focus.focused(text, "install on windows", 200)
    assert "administrator" in view["content"]
    assert "## Installing on Windows\n\nRun the setup" in view["content"]  # the heading right above comes along


def test_cjk_pages_are_searched_without_spaces():
    filler = "这一段讲的是城市的交通和天气，还有公园里的树木。"
    text = "\n\n".join([filler] * 30 + ["东京的樱花通常在三月下旬开放，四月初最为盛开。"] + [filler] * 30)
    view = focus.focused(text, "东京樱花什么时候开放", 100)
    assert "三月下旬" in view["content"]


def test_no_term_of_the_query_on_the_page_is_none():
    assert focus.focused(page({}), "quantum chromodynamics", 500) is None


def test_a_page_that_fits_is_given_whole():
    view = focus.focused("short text about pumps", "pumps", 500)
    assert view["content"] == "short text about pumps"
    assert view["next_start_index"] is None


def test_the_budget_holds_for_any_size():
    text = page({i: "Pump model P%d delivers %d litres of water per minute." % (i, i * 10) for i in range(0, 60, 3)})
    for budget in (60, 100, 250, 999, 3000):
        view = focus.focused(text, "pump litres per minute", budget)
        assert view is not None and len(view["content"]) <= budget, budget
        nxt = view["next_start_index"]
        last = view["passages"][-1]
        assert nxt is None or nxt >= last["offset"] + last["length"]


def test_a_block_longer_than_the_budget_is_cut_on_a_boundary():
    long = " ".join("The turbine blade number %d is inspected for cracks every year." % i for i in range(80))
    text = page({30: long})
    view = focus.focused(text, "turbine blade cracks", 500)
    assert 0 < len(view["content"]) <= 500
    assert "turbine blade" in view["content"]


def test_a_link_address_is_not_the_pages_words():
    link = "See [the guide](https://docs.example.org/pump/cooling/speed-rpm-settings) for more."
    answer = "Our cooling pump turns at 1450 rpm."
    text = page({20: link, 50: answer})
    view = focus.focused(text, "cooling pump speed rpm settings", 120)
    assert answer in view["content"] and link not in view["content"]


def test_paragraphs_inside_a_quote_are_blocks_of_their_own():
    quoted = "\n>\n".join("> Quoted paragraph %d about the harbour and its boats." % i for i in range(40))
    quoted = quoted.replace("paragraph 33 about the harbour", "paragraph 33: the lighthouse was built in 1871,")
    view = focus.focused(page({30: quoted}), "when was the lighthouse built", 200)
    assert "the lighthouse was built in 1871" in view["content"] and "paragraph 32" not in view["content"]


def test_offsets_hold_after_a_character_that_lower_cases_to_two():
    text = page({5: "İstanbul " * 20, 44: "The ferry to Kadıköy leaves every 20 minutes."})
    view = focus.focused(text, "ferry Kadıköy", 200)
    p = next(p for p in view["passages"] if p["offset"] > 1000)
    assert text[p["offset"] : p["offset"] + p["length"]].startswith("The ferry to Kadıköy leaves every 20 minutes.")


def test_a_plural_meets_its_singular():
    assert focus.terms("keys entries uses status") == ["key", "entry", "use", "status"]
    text = page({47: "Each key of a dictionary must be hashable."})
    view = focus.focused(text, "which dictionary keys are allowed", 200)
    assert "must be hashable" in view["content"]


def test_a_description_reads_under_its_api_signature_and_comes_with_it():
    signature = "@cachetools.memo_cache(*maxsize=128*, *typed=False*)"
    described = "Wraps a function so that its most recent results are kept and handed back for the same arguments."
    text = page({30: signature, 31: described, 50: "Results of the census are kept in the town hall."})
    assert focus.signatures(text) == [(text.index(signature), text.index(signature) + len(signature))]
    view = focus.focused(text, "how many results does memo_cache keep", 300)
    assert signature + "\n\n" + described in view["content"]  # the entry's signature shows its default


def test_prose_lines_are_not_signatures():
    text = "Intro.\n\nSee the notes (below) for more.\n\nThe call returns (a, b)\n\nos.path.join(a, *paths)\n\n"
    assert [text[a:b] for a, b in focus.signatures(text)] == ["os.path.join(a, *paths)"]


def test_a_piece_of_a_long_paragraph_reads_in_its_paragraphs_context():
    # The paragraph names the widget once, far from the sentence that answers; the filler never names it.
    lead = "The widget controller keeps a queue of jobs. " + "It logs what it does to the journal every hour. " * 8
    answer = "A full queue makes it drop the oldest job first."
    text = page({20: lead + answer, 40: "A queue of cars waits at the bridge when the oldest ferry is full."})
    view = focus.focused(text, "what does the widget do when its queue is full", 400)
    assert answer in view["content"]


def test_a_link_is_shown_as_its_text_and_its_address_costs_no_budget():
    url = "https://docs.example.org/reference/pumps/cooling.html#cooling-pump-speed-settings"
    answer = "The [cooling pump](%s) turns at [1450 rpm](%s) in [normal use](%s)." % (url, url, url)
    shown = "The cooling pump turns at 1450 rpm in normal use."
    text = page({50: answer})
    view = focus.focused(text, "cooling pump speed rpm", 80)  # the passage with its addresses: 300 characters
    assert view is not None and len(view["content"]) <= 80
    assert shown in view["content"] and url not in view["content"]
    (p,) = view["passages"]
    assert text[p["offset"] : p["offset"] + p["length"]] == answer  # offset and length stay the page's
    assert p["chars"] == len(shown)
    assert focus.parts(view["content"], view["passages"], 0) == [shown]


def test_links_in_code_and_images_are_shown_as_they_are():
    text = "Call `f[x](y)` or read [the docs](http://e.example/x).\n\n```\n[a](b)\n```\n\n![a pump](pump.png)"
    links = focus.Links(text)
    assert links.shown(text, 0, len(text)) == text.replace("[the docs](http://e.example/x)", "the docs")
    assert links.cost(0, len(text)) == len(links.shown(text, 0, len(text)))
    start = text.index("read")
    assert links.cost(start, start + 12) == 12  # a link cut by the span's end is shown as it is


def test_a_term_shorter_than_a_prefix_is_a_whole_word():
    text = page({20: "The string type has many methods for text.", 40: "It catches the errors of the call."})
    found = [text[a:b] for a, b in focus.score(text, "str")[0]]
    assert not any("string" in block for block in found)  # "str" is not "string"'s first letters
    assert any("It catches" in text[a:b] for a, b in focus.score(text, "catch")[0])


def test_a_long_lists_items_are_pieces_of_their_own():
    items = [
        "- The %s valve is checked by the night crew every single week of the year, rain or shine." % colour
        for colour in ("red", "blue", "green", "amber", "white", "black")
    ]
    text = page({30: "\n".join(items)})
    scores, _ = focus.score(text, "blue valve")
    best = max(scores, key=scores.get)
    assert text[best[0] : best[1]] == items[1]  # not the item before it too


def test_a_command_line_option_is_a_term_matched_whole():
    assert focus.terms("does it still run with -O or --user-site?") == [
        "-o",
        "--user-site",
        "still",
        "run",
        "user",
        "site",
    ]
    text = page(
        {12: "The non-optimised build keeps it.", 44: "With [`-O`](http://e.example/cmdline#O) the asserts are gone."}
    )
    scores, _ = focus.score(text, "-O")
    best = max(scores, key=scores.get)
    assert text[best[0] : best[1]].startswith("With [`-O`]")
    assert not any("non-optimised" in text[a:b] for a, b in scores)  # "-o" inside a word is no option


def test_a_negated_auxiliary_is_the_word_not():
    assert focus.terms("Why doesn't the pump start, and why can't it stop?") == ["not", "pump", "start", "stop"]
    assert focus.terms("it cannot stop") == ["not", "stop"]
    assert focus.counted("It cannot stop.") == {"not": 1, "stop": 1}
    assert focus.terms("I've seen you're sure we'll use the re module") == ["seen", "sure", "use", "re", "module"]
    text = page(
        {
            20: "The pump isn\u2019t started by the timer.",
            30: "The crew keeps notes of every start.",
            40: "The valve does not open in winter.",
        }
    )
    found = {text[a:b] for a, b in focus.score(text, "doesn't")[0]}
    assert "The pump isn\u2019t started by the timer." in found  # "n't" meets "not" on the page too
    assert "The valve does not open in winter." in found
    assert "The crew keeps notes of every start." not in found  # "notes" is not "not" with an ending


def test_a_passage_the_page_says_again_is_shown_once():
    # pathlib's is_dir, is_file, is_mount... each end with the same sentence: shown twice, it
    # spent the budget that the next best passage needed
    note = "False is also returned if the path does not exist or is a broken symlink."
    answer = "If missing_ok is true, a missing file is ignored when the path is removed."
    text = page({10: note, 20: note, 30: note, 45: answer})
    view = focus.focused(text, "path does not exist missing file removed", 420)
    assert view is not None
    assert view["content"].count(note) == 1, view["content"]
    assert answer in view["content"], view["content"]


def test_a_block_in_a_section_about_the_question_outranks_a_like_block_elsewhere():
    # both blocks say "winter" alone; the answer's section speaks of the island's ferry
    answer = "In winter only the small boat runs across, once a day at nine in the morning."
    text = page(
        {
            10: "In winter the harbour office shuts at four.",
            40: "The island ferry leaves from the harbour and crosses in forty minutes.",
            42: answer,
        },
        {i: "## Part %d" % i for i in range(0, 60, 4)},
    )
    view = focus.focused(text, "which ferry goes to the island in winter", 200)
    assert answer in view["content"] and "office shuts" not in view["content"]


def test_an_entry_of_the_pages_table_of_contents_is_not_the_answer():
    # the contents list says every section's title again: the section it names answers
    answer = "Use a mapping of cases to functions, or a chain of if and elif tests."
    titles = ["Why is the sky blue?", "Why is there no switch statement?", "Why are strings immutable?"]
    contents = "\n".join("- " + t for t in titles)
    text = page({1: contents, 30: answer}, {30: "## " + titles[1], 10: "## " + titles[0], 50: "## " + titles[2]})
    view = focus.focused(text, "why is there no switch statement", 300)
    assert answer in view["content"]
    assert "- Why is the sky blue?" not in view["content"]


def test_a_question_that_asks_how_many_prefers_the_block_that_states_a_number():
    # both blocks name the emitter's listeners, the shorter one more densely; the one that says
    # how many answers
    answer = "By default an emitter event takes a maximum of 10 listeners before it prints a warning."
    other = "An emitter event calls its listeners in order."
    for asked in ("How many listeners can an emitter event have?", "How much listeners can an emitter event have?"):
        text = page({20: other, 40: answer})
        view = focus.focused(text, asked, 120)
        assert answer in view["content"] and other not in view["content"], asked
    # a question that asks no quantity keeps the order the words give
    blocks, _ = focus.score(page({20: other, 40: answer}), "in which order are the emitter's listeners called")
    assert max(blocks, key=blocks.get)[0] < page({20: other, 40: answer}).find(answer)
    # numbers written as words state a quantity too
    words = "By default an emitter event takes a maximum of ten listeners before it prints a warning."
    view = focus.focused(page({20: other, 40: words}), "How many listeners can an emitter event have?", 120)
    assert words in view["content"]


def test_the_answer_after_a_question_the_page_asks_reads_under_it_as_under_a_heading():
    # a FAQ's question in a bold line or a table row, not a heading: the answer after it says
    # none of the question's words, and outranks the same line after a statement of them
    answer = "Only on weekdays, from the old pier by the market."

    def after(lead):
        text = page({40: lead, 41: answer})
        blocks, _ = focus.score(text, "does the island ferry run in winter")
        at = text.find(answer)
        return blocks[(at, at + len(answer))]

    for form in ("**%s**", "| **4.2.** | **%s** |", "%s"):
        asked, said = (
            after(form % "Does the island ferry run in winter?"),
            after(form % "The island ferry runs in winter."),
        )
        assert asked > 2 * said, form
    # a question mark that closes no sentence asks nothing: a ternary, a URL's query
    assert after("`island ? ferry : winter`") == after("`island + ferry : winter`")
    assert after("See http://island.example/ferry?winter=1 for more.") == after(
        "See http://island.example/ferry/winter=1 for more."
    )
    view = focus.focused(page({40: "**Does the island ferry run in winter?**", 41: answer}), "island ferry winter", 160)
    assert answer in view["content"]


def test_a_question_in_words_prefers_the_sentence_to_the_code_that_names_its_terms(monkeypatch):
    # both blocks name the emitter, its error event and a listener; the code block is the shorter
    answer = "An emitter with no listener for the error event throws the error and the process exits."
    code = "```js\nemitter.emit('error', err); // no listener\n```"
    text = page({20: code, 40: answer})
    a, c = text.find(answer), text.find(code)
    a, c = (a, a + len(answer)), (c, c + len(code))
    asked = "what happens when an emitter emits an error event with no listener"
    how = "how do I make an emitter emit an error event to a listener"

    def scores(query):
        return focus.score(text, query)[0]

    words, doing = scores(asked), scores(how)
    assert words[a] > words[c]
    monkeypatch.setattr(focus, "CODE_WEIGHT", 1.0)
    assert scores(asked)[c] > scores(asked)[a]  # without the rule the code would come first
    assert words[c] == scores(asked)[c] * 0.8
    assert doing[c] == scores(how)[c]  # asked how to do something, code keeps its whole score


def test_links_are_found_as_a_scan_of_the_whole_text_finds_them():
    # shown_links tries its link pattern only where a link or a code span can start: the same
    # matches as the pattern's own scan, on made-up texts of the characters that matter
    import random

    from worker.pages.answer import shown_links

    rng = random.Random(42)
    alphabet = ["[", "]", "(", ")", "`", "``", "!", "a", "b", " ", "\n", '"', "](x)", "[t](u)", "![i](p)"]
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 60))) for _ in range(3000)]
    texts += ['see `[a](b)` and [c](d) and ![e](f) and [g [h] i](j "t") ``[k](l)`` [m](n)']
    for text in texts:
        want = [(m.start(), m.end(), m.group(2)) for m in shown_links._LINK.finditer(text)]
        assert [(m.start(), m.end(), m.group(2)) for m in shown_links._matches(text)] == want, text


def test_an_operator_or_printed_token_the_question_names_is_a_term_matched_whole():
    assert focus.symbols("Why not just ===? And is ... or -- or ?? one?") == ["==="]
    assert focus.symbols('What does ":=" do, and (->)?') == [":=", "->"]
    assert focus.terms("cg_annotate shows ???:??? for each function")[-1] == "???:???"
    assert focus._hits("a === b", "==") == [] and focus._hits("a == b", "==") == [2]
    assert focus._hits("f(\\*\\*kw), 2**3, a***b", "**") == [2, 12]  # escaped in markdown, or in code
    # the one paragraph that prints the token answers, though it shares no word with the question
    answer = "If most entries have the form ???:??? the program was probably not compiled with -g."
    text = page({41: answer, 12: "The report shows the totals for each function.", 30: "Every function is listed."})
    view = focus.focused(text, "Why does the report show ???:??? for every function?", 400)
    assert view is not None and answer in view["content"]


def test_a_link_address_is_no_number_the_text_states():
    """A question that asks how many lifts the blocks that state a number; digits in a link's
    address (a local site's http://127.0.0.1:8080/...) are not one."""
    linked = "The pool keeps its connections open: see [pool connections](http://127.0.0.1:8080/pool/2) for the pool."
    answer = "The pool keeps 10 connections."
    text = page({20: linked, 40: answer})
    view = focus.focused(text, "How many connections does the pool keep?", 60)
    assert view is not None and answer in view["content"], view


_PIECES = [
    "The",
    "the",
    "XMLHttp",
    "fs.readFile",
    "returns",
    ".bashrc",
    "HTTP",
    "İstanbul",
    "Été",
    "été",
    "can't",
    "cannot",
    "Cannot",
    "__init__",
    "snake_case",
    "camelCase",
    "A",
    "a",
    "e.g.",
    "v1.2",
    "漢字",
    "--user",
    "x",
    " ",
    " ",
    ".",
    "..",
    "\n",
    "-",
    "'",
    "_",
    "0",
    "Keys",
    "entries",
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=14).map("".join))
def test_counted_is_each_runs_words_counted(text):
    # the map's word counts take shortcuts for plain and capitalised words and for a run's end
    # dots: the same counts as words() of each run of word characters and dots
    from collections import Counter

    expected = Counter(t for chunk in focus._CHUNK.findall(text) for t in focus.words(chunk))
    assert focus.counted(text) == dict(expected)


def test_a_question_that_names_an_api_prefers_the_blocks_of_that_apis_own_entry(monkeypatch):
    # the other block, in another entry, says more of the question's words; the answer sits in the
    # named API's own entry: a section whose heading names it, or (as Sphinx pages flatten their
    # entries) the paragraphs under its signature line
    answer = "When no absolute path was made from the relative segments, the working directory is used."
    asked = "what does path.resolve resolve relative segments against"
    near = "path.relative gives the relative path from one path to another, resolved first."
    sectioned = page({20: near, 40: answer}, {19: "## `path.relative(from, to)`", 39: "## `path.resolve([...paths])`"})
    far = "path.relative gives the relative path from one path to another: both segments are resolved first."
    signed = page({19: "path.relative(from, to)", 20: far, 39: "path.resolve(*paths)", 40: answer})

    def answer_first(text, other, query=asked):
        blocks, _ = focus.score(text, query)
        a, o = text.find(answer), text.find(other)
        return blocks[(a, a + len(answer))] > blocks[(o, o + len(other))]

    assert answer_first(sectioned, near) and answer_first(signed, far)
    monkeypatch.setattr(focus, "OWN_ENTRY_WEIGHT", 0.0)
    assert not answer_first(sectioned, near) and not answer_first(signed, far)  # without the rule
    # a question that names no API (a plain word, a CamelCase name) scores as before
    for query in ("what does resolve resolve relative segments against", "what does PathResolve resolve"):
        before = focus.score(sectioned, query)[0]
        monkeypatch.setattr(focus, "OWN_ENTRY_WEIGHT", 0.25)
        assert focus.score(sectioned, query)[0] == before
        monkeypatch.setattr(focus, "OWN_ENTRY_WEIGHT", 0.0)


def ranks_first(text, question, answer, rivals):
    """Whether the block ``answer`` scores above each of the ``rivals`` spans for ``question``."""
    scores, _ = focus.score(text, question)
    a = text.find(answer)
    return all(scores[(a, a + len(answer))] > scores.get(k, 0.0) for k in rivals)


def test_a_definition_lists_term_line_heads_its_entry(monkeypatch):
    # PostgreSQL's settings and a command's options are definition lists, flattened to a line of
    # code spans above the paragraphs that describe it: the entry of the setting a question names
    terms = ["`maintenance_work_mem` (`integer`)", "`autovacuum_work_mem` (`integer`)", "`CONCURRENTLY`"]
    answer = "For the collection of dead rows, the cleaner uses at most 1GB of memory."
    other = "Sets the memory each cleaner worker uses; by default maintenance_work_mem applies."
    text = page(
        {
            20: terms[0],
            21: "Sets the memory for upkeep jobs such as building indexes.",
            22: answer,
            40: terms[1],
            41: other,
        }
        | {50: terms[2]}
    )
    assert [text[a:b] for a, b in focus.signatures(text)] == terms
    asked = "is there a ceiling on the memory maintenance_work_mem gives the cleaner for dead rows"

    o = text.find(other)
    assert ranks_first(text, asked, answer, [(o, o + len(other))])
    monkeypatch.setattr(blocks, "TERM_MAX", 0)
    assert not ranks_first(text, asked, answer, [(o, o + len(other))])  # without the term lines


def test_an_entrys_later_paragraphs_read_in_the_words_of_its_first(monkeypatch):
    # A setting's first paragraph says what it is; its default and limits follow in paragraphs
    # of their own that repeat none of those words: they are read as that entry's
    terms = ["`reserved_slots` (`integer`)", "`idle_timeout` (`integer`)", "`keepalive_count` (`integer`)"]
    answer = "The default value is three."
    text = page(
        {
            20: terms[0],
            21: "Determines the number of connection slots kept back for administrators when the server is full.",
            22: answer,
            40: terms[1],
            41: "Ends a session that has been idle for longer than this.",
            42: "Administrators are kept to the same limit, counted back from their last query. The default is one minute.",
            60: terms[2],
            61: "The number of keepalive messages that can be lost before a client is dropped.",
            62: "The default is nine, and a server that is full keeps its count.",
        }
    )
    asked = "How many connection slots are kept back by default for administrators?"

    others = [k for k in focus.score(text, asked)[0] if k[0] > text.find(terms[1])]  # the other entries' blocks
    assert ranks_first(text, asked, answer, others)
    monkeypatch.setattr(focus, "LEAD_WEIGHT", 0.0)
    assert not ranks_first(text, asked, answer, others)


def test_prose_and_lead_ins_with_code_spans_are_no_term_lines():
    text = "Intro.\n\nUse `x` instead of `y`\n\n`a.js`:\n\n`x` and `y` differ\n\n`--clean` [`-c`]\n\n"
    assert [text[a:b] for a, b in focus.signatures(text)] == ["`--clean` [`-c`]"]


def test_a_boxs_title_heading_does_not_end_the_section_it_sits_in():
    # DocBook writes a note's label as a heading (<div class="note"><h3>Note</h3>): the settings
    # after the box are still the section's, in the label a passage carries and in the words that
    # the section's heading lends its blocks
    answer = "The pool keeps twelve spare slots for the harbour master."
    text = "\n\n".join(
        [
            "## 4.1. Ferry Reservations",
            "Bookings open a month before the crossing and close an hour before it.",
            "### Note",
            "On public holidays the office answers the telephone until noon only.",
            answer,
            "## 4.2. Cargo",
            "A van pays the fare of two cars; a lorry, that of four.",
        ]
    )
    view = focus.focused(text, "how many ferry reservations are spare", 120)
    assert answer in view["content"]
    shown = focus.parts(view["content"], view["passages"], 0)
    (held,) = [p for p, t in zip(view["passages"], shown) if answer in t]
    assert held.get("section") == "4.1. Ferry Reservations"
    outline = focus.Outline(text)
    titles = [text[a:b] for a, b in zip(outline.starts, outline.ends)]
    assert titles == ["## 4.1. Ferry Reservations", "## 4.2. Cargo"]
    # the plural is a reference page's own section, and a heading that says more is a heading
    for head in ("### Notes", "### Note on holidays"):
        outline = focus.Outline(text.replace("### Note", head))
        assert head in [text.replace("### Note", head)[a:b] for a, b in zip(outline.starts, outline.ends)]


def test_a_question_about_what_holds_when_nothing_is_set_asks_for_the_default():
    assert "defaul" in focus.terms("How long does the cache keep a password if I don't configure anything?")
    assert "defaul" in focus.terms("If I haven't changed anything, how big are the pages?")
    assert "defaul" not in focus.terms("How do I configure the cache?")
    assert "defaul" in focus.terms("If I define a column without saying whether it is stored, which kind is it?")
    assert "defaul" not in focus.terms("How do I stash files I haven't added to the index?")
    assert "defaul" in focus.terms("How many loose objects pile up before they are packed?")
    answer = "The timeout option sets the seconds a password is kept (default: 900)."
    text = page(
        {
            20: "The cache keeps a password in memory and never writes it to the disk.",
            30: "A password is kept in the cache for an hour when the timeout is 3600.",
            45: answer,
        }
    )
    view = focus.focused(text, "Out of the box, how long is a password kept in the cache?", 100)
    assert answer in view["content"]


def test_a_comment_line_in_a_fenced_example_is_no_heading():
    # a shell or Python example's "# comment" at the start of a line, inside a fence, is code: it
    # neither ends the section it sits in nor lends its words to the sections after it
    text = "\n\n".join(
        [
            "## Stashing",
            "```\n# ... hack hack hack ...\n$ git stash push\n```",
            "Untracked files are stashed too when the option says so.",
            "~~~\n# Error because the match returns None\n~~~",
            "## Cleaning",
            "The clean command removes files that nothing tracks.",
        ]
    )
    outline = focus.Outline(text)
    assert [text[a:b] for a, b in zip(outline.starts, outline.ends)] == ["## Stashing", "## Cleaning"]
    view = focus.focused(text, "are untracked files stashed", 70)
    shown = focus.parts(view["content"], view["passages"], 0)
    (held,) = [p for p, t in zip(view["passages"], shown) if "Untracked files" in t]
    assert held.get("section") == "Stashing"
