"""worker.pages.extract.product: a product page's text trimmed to the product, from small hand-written pages."""

import lxml.html

from worker.pages.extract import product
from worker.pages.extract.core import extract

URL = "https://shop.example.com/product/trail-pack-25"
DESCRIPTION = (
    "A day pack of 25 litres with a ripstop nylon body, a water repellent finish and two side pockets "
    "that hold a bottle each, sized for a full day on the trail."
)


def _body(markup: str):
    return lxml.html.fragment_fromstring(markup, create_parent="div")


def test_review_items_inside_a_list_are_dropped_and_the_rest_of_the_list_is_kept():
    review = "I used it on many hikes this summer and it held up well, number %d."
    body = _body(
        "<p>%s</p><list><item>%s</item><item>%s</item><item>Capacity: 25 litres of room</item></list>"
        % (DESCRIPTION, review % 1, review % 2)
    )
    product.drop_within(body, "Customer reviews\n" + "\n".join(review % i for i in range(3)))
    text = body.text_content()
    assert "many hikes" not in text and "Capacity: 25 litres" in text and "ripstop" in text


def test_a_review_trafilatura_shortened_is_still_recognised():
    said = (
        "Great pack. I used it on many hikes this summer and it held up well; the straps stay comfortable for hours "
        "and the side pockets hold a litre bottle each without it falling out on steep ground."
    )
    page = "Jane 5.0 out of 5 stars Verified Purchase " + said + " Helpful Report"
    body = _body("<p>%s</p><p>Jane 5.0 out of 5 stars %s</p>" % (DESCRIPTION, said))
    product.drop_within(body, page)
    assert "many hikes" not in body.text_content() and "ripstop" in body.text_content()


def test_a_repeated_description_is_given_once():
    body = _body("<p>%s</p><p>Size</p><p>%s</p><p>Size</p>" % (DESCRIPTION, DESCRIPTION))
    product.drop_repeats(body)
    assert body.text_content().count("ripstop") == 1
    assert body.text_content().count("Size") == 2  # short labels may repeat on purpose


def test_a_line_said_again_in_another_layout_is_given_once_and_short_labels_stay():
    text = _text_after(
        product.drop_repeats,
        "<p>%s</p><list><item>Free 90-day returns</item><item>In stock</item></list>"
        "<head>About this seller</head><p>Ships in two days</p>"
        "<list><item>Free 90-day returns</item><item>In stock</item></list><head>About this seller</head>"
        % DESCRIPTION,
    )
    assert text.count("Free 90-day returns") == 1 and text.count("About this seller") == 1
    assert text.count("In stock") == 2  # two words: a label, which may repeat on purpose
    assert "ripstop" in text and "Ships in two days" in text


def _xml_body(markup: str):
    """trafilatura's result as it is: XML, where <head> is a heading (an HTML parser drops it)."""
    from lxml import etree

    return etree.fromstring("<body>%s</body>" % markup)


def _text_after(rule, markup: str) -> str:
    """The text of a result body holding markup once rule has run on it."""
    body = _xml_body(markup)
    rule(body)
    return "".join(body.itertext())


def _page_with_h1(name: str):
    return lxml.html.fromstring("<html><body><h1>%s</h1><p>%s</p></body></html>" % (name, DESCRIPTION))


def test_the_text_starts_at_the_products_name_when_what_stands_before_it_is_short():
    body = _xml_body(
        "<p>People who viewed this item also viewed</p><p>Picture 1 of 4</p><p>Gallery</p>"
        "<head>Trail pack 25</head><p>%s</p>" % DESCRIPTION
    )
    product.start_at_name(_page_with_h1("Trail pack 25"), body)
    text = "".join(body.itertext())
    assert text.startswith("Trail pack 25") and "viewed" not in text and "Picture 1" not in text


def test_a_description_placed_above_the_name_is_kept():
    above = " ".join([DESCRIPTION] * 2)  # more than a banner's few words
    body = _xml_body("<p>%s</p><head>Trail pack 25</head><p>Capacity: 25 litres</p>" % above)
    product.start_at_name(_page_with_h1("Trail pack 25"), body)
    assert "ripstop" in "".join(body.itertext())
    # a sentence that names the product is not its name's line
    body = _xml_body("<p>Picture 1 of 4</p><p>The Trail pack 25 is our best seller for a whole day outdoors.</p>")
    product.start_at_name(_page_with_h1("Trail pack 25"), body)
    assert "Picture 1 of 4" in "".join(body.itertext())


def test_chrome_text_is_the_shops_notices_not_the_product():
    page = lxml.html.fromstring(
        "<html><body><div class='cookie-banner'>We use cookies to give you the best experience on our site.</div>"
        "<header class='site-header'><h1>Trail pack 25</h1><p>The pack for a whole day outdoors.</p></header>"
        "<main><p>%s</p></main><nav>Home Packs Tents Stoves Sale Gifts</nav>"
        "<div id='newsletterSignup'>Get our news and offers by email every week</div></body></html>" % DESCRIPTION
    )
    chrome = product.chrome_text(page)
    assert "We use cookies" in chrome and "Home Packs" in chrome and "offers by email" in chrome  # camelCase names too
    assert "ripstop" not in chrome and "whole day outdoors" not in chrome  # a header holding the <h1> is no chrome


def test_the_description_comes_from_the_products_data_when_the_text_leaves_it_out():
    ld = (
        '<script type="application/ld+json">{"@type": "Product", "name": "Trail pack 25", "description": "%s"}</script>'
    )
    page = lxml.html.fromstring("<html><head>%s</head><body><p>Buy now</p></body></html>" % (ld % DESCRIPTION))
    body = _body("<p>Trail pack 25 · 89.00 USD</p><p>Add to cart and choose a colour below.</p>")
    product.add_description(page, body)
    assert body.text_content().startswith(DESCRIPTION)
    body = _body("<p>%s</p>" % DESCRIPTION)
    product.add_description(page, body)
    assert body.text_content().count("ripstop") == 1  # said already: not again
    encoded = lxml.html.fromstring("<html><head>%s</head><body></body></html>" % (ld % DESCRIPTION.replace(" ", "%20")))
    assert product.ld_description(encoded) == DESCRIPTION


def test_a_product_page_whose_description_is_only_in_its_data_still_says_it():
    ld = (
        '<script type="application/ld+json">{"@type": "Product", "name": "Trail pack 25", "description": "%s", '
        '"offers": {"@type": "Offer", "price": "89.00", "priceCurrency": "USD"}}</script>' % DESCRIPTION
    )
    page = (
        "<html><head><title>Trail pack 25</title>%s</head><body><main><h1>Trail pack 25</h1>"
        "<p class='price'>$89.00</p><p>Free delivery on orders over $50 and free returns within 30 days of purchase."
        "</p><table><tr><th>Capacity</th><td>25 litres</td></tr><tr><th>Weight</th><td>820 g</td></tr></table>"
        "<button class='add-to-cart'>Add to cart</button></main></body></html>" % ld
    )
    r = extract(page, url=URL, fmt="text")
    assert r["page_type"] == "product"
    assert "ripstop nylon body" in r["text"] and r["text"].count("ripstop") == 1


def test_blocks_of_identifiers_are_dropped_and_sizes_and_part_numbers_kept():
    uuids = (  # a shop's scrambled "Sponsored" labels
        "9e3779b9-7f4a-7c15-f39c-c0605cedc835X3c6ef372-fe94-f82b-e739-80c0b9db906aXdaa66d2c-7ddf-7441-dad6-412116c9589f "
        "78dde6e5-fd29-f057-ce73-018173b720d4S1715609f-7c74-6c6d-c20f-c1e1d0a4e909Sb54cda58-fbbe-e883-b5ac-82422d92b13e"
    )
    body = _body(
        "<p>%s</p><p>%s</p><p>Sizes: Twin 64x90 39x75x16 71x98, Queen 90x90 60x80x16 90x102 and King too</p>"
        "<p>Part number MTJV3LL/A, model B0D1XD1ZV3</p>" % (DESCRIPTION, uuids)
    )
    product.drop_identifiers(body)
    text = body.text_content()
    assert "9303097ac" not in text and "ripstop" in text and "39x75x16" in text and "B0D1XD1ZV3" in text


def test_specification_tables_the_text_leaves_out_are_added_once_and_not_hidden_or_review_ones():
    page = lxml.html.fromstring(
        "<html><body><main><p>%s</p>"
        "<div style='display:none' class='accordion-panel'><dl><dt>Frame</dt><dd>Aluminium</dd>"
        "<dt>Weight</dt><dd>820 g</dd><dt>Capacity</dt><dd>25 litres</dd></dl></div>"
        "<dl class='hidden'><dt>internal_code</dt><dd>X1</dd><dt>tier_price</dt><dd>20.00</dd></dl>"
        "<div class='reviews'><table><tr><td>Comfort</td><td>5 stars</td></tr><tr><td>Value</td><td>4 stars</td></tr>"
        "</table></div><table><tr><th>Colour</th><td>Green</td></tr><tr><th>Warranty</th><td>Two years</td></tr></table>"
        "</main></body></html>" % DESCRIPTION
    )
    rows = _added_rows(page, "<p>%s</p><p>Colour: Green. Warranty: Two years.</p>" % DESCRIPTION)
    assert rows == [["Frame", "Aluminium"], ["Weight", "820 g"], ["Capacity", "25 litres"]]  # a collapsed panel counts


def _added_rows(page, body_html):
    """The specification rows add_specifications adds to a result body holding body_html."""
    body = _body(body_html)
    product.add_specifications(page, body)
    return [[c.text for c in row] for row in body.iter("row")]


def test_a_page_whose_body_is_named_like_chrome_still_gives_its_specifications():
    # a shop's theme names the whole <body> "menu_background_overlap": the page is no menu
    page = lxml.html.fromstring(
        "<html><body class='menu_background_overlap app'><div><p>%s</p><table>"
        "<tr><td>Frame</td><td>Aluminium</td></tr><tr><td>Weight</td><td>820 g</td></tr></table></div>"
        "<nav><dl><dt>Packs</dt><dd>All packs</dd><dt>Tents</dt><dd>All tents</dd></dl></nav></body></html>"
        % DESCRIPTION
    )
    assert _added_rows(page, "<p>%s</p>" % DESCRIPTION) == [["Frame", "Aluminium"], ["Weight", "820 g"]]


def test_what_a_shop_hides_by_class_name_is_not_its_text_unless_it_also_shows_it():
    fields = (
        "We ship nationwide from our warehouse within two working days of your order, tracked all the way.",
        "Returns are accepted within thirty days of the invoice date with a completed returns form.",
    )
    page = (
        "<html><head><title>Trail pack 25</title></head><body><main><h1>Trail pack 25</h1>"
        "<div class='details'><p>%s</p><dl class='productView-info hide'><dt>shipping_chunk-1:</dt><dd>%s</dd>"
        "<dt>returns_chunk-1:</dt><dd>%s</dd></dl></div>"
        "<div class='d-none'><p>%s</p></div></main></body></html>"
    ) % (DESCRIPTION, fields[0], fields[1], DESCRIPTION)
    body = _xml_body("<p>%s</p><p>%s</p><p>%s</p>" % (DESCRIPTION, fields[0], fields[1]))
    tree = lxml.html.fromstring(page)
    product.drop_within(body, product.class_hidden_text(tree), page="".join(tree.find(".//body").itertext()))
    text = "".join(body.itertext())
    assert "nationwide" not in text and "thirty days" not in text
    assert "ripstop" in text  # hidden again in a "d-none" copy, but shown too: it stays


GAME_PAGE = """<html><head><title>Harbour Lights on Steam</title>
<script type="application/ld+json">{"@type": "Product", "name": "Harbour Lights",
"offers": {"price": "19.99", "priceCurrency": "USD"}}</script></head><body><main>
<h1>Harbour Lights</h1><div class="price">$19.99</div><p>A quiet game about keeping a lighthouse.</p>
<ul><li>Developer: Tidewater Games</li><li>Publisher: Tidewater Games</li><li>Released: 2025</li></ul>
<div id="game_area_description"><h2>About This Game</h2>
Keep the lamp of a lighthouse on a northern island burning through a whole winter of storms and ships.<br><br>
Trade with the fishing boats that call at the harbour, mend the lens and the stairs, and learn the stories
of the keepers who watched the same sea before you.<br><br>
Every night the weather changes, and every ship that passes safely is one more light in the log.</div>
<div class="cookie-note">We use cookies and similar technologies to analyse our traffic and personalise
ads; by browsing this site you consent to our cookie policy and the sharing of your data with third parties,<br>
as described in our privacy settings, which you can change at any time from the footer of every page.</div>
</main><footer><div>Valve and the Steam logo are trademarks of their owners in the US and other countries, all
other trademarks belong to their owners, and prices include VAT where it applies in your region of purchase.<br>
Privacy policy, legal, subscriber agreement, refunds and cookies, all on one page for you to read.</div></footer>
</body></html>"""


def test_a_description_written_as_bare_lines_between_breaks_is_read():
    # trafilatura reads paragraphs: here its result holds the list and not the description
    body = _xml_body(
        "<p>A quiet game about keeping a lighthouse.</p><list><item>Developer: Tidewater Games</item></list>"
    )
    product.add_bare_text(lxml.html.fromstring(GAME_PAGE), body)
    lines = [" ".join("".join(p.itertext()).split()) for p in body]
    assert lines[:2] == [
        "About This Game",
        "Keep the lamp of a lighthouse on a northern island burning through a whole winter of storms and ships.",
    ]
    text = "\n".join(lines)
    assert text.index("mend the lens") < text.index("one more light") < text.index("A quiet game")
    assert "consent to our cookie policy" not in text and "Valve and the Steam logo" not in text
    # said already: nothing is added again
    product.add_bare_text(lxml.html.fromstring(GAME_PAGE), body)
    assert "".join(body.itertext()).count("northern island") == 1
    assert "northern island" in extract(GAME_PAGE, url=URL, fmt="text")["text"]


SIDEBAR_PAGE = """<html><head><title>Trail pack 25</title>
<script type="application/ld+json">{"@type": "Product", "name": "Trail pack 25"}</script></head><body>
<header><nav><a href="/">Home</a> <a href="/packs">Packs</a> <a href="/tents">Tents</a></nav></header>
<main><div class="product-layout"><div class="gallery"><img src="a.jpg" alt="Trail pack 25, front"></div>
<div id="right_block" class="sidebar"><div class="sticky sidebar__inner"><h1>Trail pack 25</h1>
<p class="price">$89.00</p><p>%s</p>
<p>The padded back panel and shoulder straps carry a full load in comfort, and the hip belt stows away when
you do not need it, so the pack rides close on a scramble.</p></div></div></div>
<section class="brand-story"><h2>Our story</h2>%s</section>
<section class="newsletter"><p>Get our news and offers by email every week, with a discount on your first order.</p></section>
</main><footer><p>Trail Shop Ltd, 1 High Street. All rights reserved.</p></footer></body></html>"""


def test_trafilatura_still_discards_the_blocks_the_product_blocks_rule_keeps():
    from lxml import etree
    from trafilatura.xpaths import OVERALL_DISCARD_XPATH

    holder = etree.fromstring(
        "<div><div class='sidebar'/><div class='product-options'/><div class='product'/>"
        "<div class='rightcol game_meta_data'/><div class='product-expanders'/></div>"
    )
    assert [el.get("class") for el in OVERALL_DISCARD_XPATH[0](holder)] == [
        "sidebar",
        "product-options",
        "rightcol game_meta_data",
        "product-expanders",
    ]


def test_a_products_facts_in_a_block_named_meta_are_in_its_text():
    facts = (
        "<div class='product-meta'>Made in: Portugal<br>Frame: aluminium stays, removable<br>"
        "Warranty: lifetime repairs at our workshop</div>"
    )
    page = (SIDEBAR_PAGE % (DESCRIPTION, "")).replace(
        '<p class="price">$89.00</p>', '<p class="price">$89.00</p>' + facts
    )
    text = extract(page, url=URL, fmt="text")["text"]
    assert "Portugal" in text and "lifetime repairs" in text and "ripstop" in text


def test_a_products_facts_in_a_block_named_meta_are_read_and_a_review_widget_is_not():
    facts = (
        "<div class='rightcol game_meta_data'><div class='details_block'>Developer: Tidewater Games<br>"
        "Publisher: Tidewater Games<br>Franchise: Harbour Lights<br>Released: 4 March 2025</div></div>"
        "<div class='review-meta'><p>Jo from Leeds wrote a long review of this game and rated it five stars "
        "after playing it for sixty hours over the winter.</p></div>"
    )
    page = lxml.html.fromstring(GAME_PAGE.replace("</main>", facts + "</main>"))
    product.unmark_product_blocks(page, lambda el: True)
    assert page.find(".//div[@class='details_block']").getparent().get("class") is None
    assert page.find(".//div[@class='review-meta']") is not None  # a review: left to be discarded


def test_a_product_whose_name_and_description_sit_in_a_sidebar_is_read():
    story = "".join(
        "<p>Since 1998 our workshop in the hills has made packs by hand, testing each design on long walks in every "
        "season, number %d of many stories we tell.</p>" % i
        for i in range(6)
    )
    # the shop's story outweighs the description: trafilatura, which discards the
    # sidebar, would read the story alone
    result = extract(SIDEBAR_PAGE % (DESCRIPTION, story), url=URL, fmt="text")
    assert result["page_type"] == "product"
    assert "ripstop" in result["text"] and "padded back panel" in result["text"] and "89" in result["text"]
    assert "product-blocks" not in " ".join(result["warnings"])


def test_forms_and_dialogs_that_ask_the_reader_to_type_are_not_the_product():
    page = lxml.html.fromstring(
        "<html><body><main><h1>Trail pack 25</h1>"
        "<form action='/cart'><p>Choose how many packs you want in your basket today.</p>"
        "<input type='number' name='qty'><button>Add to cart</button></form>"
        "<div role='dialog' aria-hidden='true'><p>What is wrong with this listing? Tell us more about it.</p>"
        "<textarea name='why'></textarea></div>"
        "<form><p>Sign up to get our news and offers by email every single week.</p><input type='email'></form>"
        "<dialog><p>Found a lower price? Let us know where you saw it today.</p><input name='url'></dialog>"
        "</main></body></html>"
    )
    said = product.forms_text(page)
    assert "wrong with this listing" in said and "Sign up" in said and "lower price" in said
    assert "how many packs" not in said  # the quantity of the product's own "add to cart"
    # a form that wraps the page (ASP.NET's, a checkout's) is the page's layout, not a form
    wrapped = lxml.html.fromstring(
        "<html><body><form action='/checkout'><input type='text' name='search'><h2>Trail pack 25</h2>"
        "<p>%s</p><p>%s</p></form><footer>Trail Shop Ltd</footer></body></html>" % (DESCRIPTION, DESCRIPTION)
    )
    assert product.forms_text(wrapped) == ""
    text = extract(lxml.html.tostring(wrapped, encoding="unicode"), url=URL, fmt="text")["text"]
    assert "ripstop" in text


def test_a_section_headed_as_other_products_goes_and_the_text_after_it_stays():
    text = _text_after(
        product.drop_other_products,
        "<p>%s</p><head>You may also like</head><list><item>Trail pack 35</item><item>Summit pack 18</item></list>"
        "<head>Similar items</head><head>Care</head><p>Wipe clean with a damp cloth and let it dry in the shade.</p>"
        "<head>Why you will like it</head><p>It is light.</p>" % DESCRIPTION,
    )
    assert "also like" not in text and "Summit pack" not in text and "Similar items" not in text
    assert "ripstop" in text and "damp cloth" in text and "Why you will like it" in text


def test_a_sellers_initial_alone_on_a_line_is_not_the_products_text():
    body = _xml_body(
        "<p>About this seller</p><p>I</p><p>%s</p><list><item>S</item><item>Size: 8</item></list>" % DESCRIPTION
    )
    product.drop_initials(body)
    assert [" ".join(el.itertext()) for el in body.iter("p", "item")] == ["About this seller", DESCRIPTION, "Size: 8"]


def test_a_product_pages_specification_list_is_in_its_text_once():
    specs = "".join("<dt>Feature %d</dt><dd>Value %d</dd>" % (i, i) for i in range(12))
    text = extract(PRODUCT_PAGE_WITH_SPECS % (DESCRIPTION, specs), url=URL, fmt="text")["text"]
    assert "ripstop" in text and text.count("Feature 11") == 1 and "Value 11" in text


PRODUCT_PAGE_WITH_SPECS = """<html><head><title>Trail pack 25</title>
<script type="application/ld+json">{"@type": "Product", "name": "Trail pack 25"}</script></head><body>
<main><h1>Trail pack 25</h1><p class="price">$89.00</p><div class="description"><p>%s</p>
<p>The padded back panel and shoulder straps carry a full load in comfort, and the hip belt stows away.</p></div>
<div class="specs"><h2>Specifications</h2><dl>%s</dl></div></main></body></html>"""


def test_a_list_of_name_value_items_is_a_specification_and_a_track_list_is_not():
    page = lxml.html.fromstring(
        "<html><body><main><p>%s</p><ul><li><strong>OS:</strong> Windows 10</li><li><strong>Memory:</strong> 8 GB"
        "</li><li>Storage: 150 GB available space</li></ul><ul><li>Ballad dry 0:37</li><li>Blues wet 1:22</li>"
        "<li>Funk dry 2:05</li></ul></main></body></html>" % DESCRIPTION
    )
    rows = _added_rows(page, "<p>%s</p>" % DESCRIPTION)
    assert rows == [["OS", "Windows 10"], ["Memory", "8 GB"], ["Storage", "150 GB available space"]]


def test_a_cookie_notice_is_dropped_and_a_biscuits_description_kept():
    body = _body(
        "<p>Oat cookies baked with butter and a pinch of sea salt, twelve cookies to a tin.</p>"
        "<p>We use cookies to improve your browsing experience and, with your consent, for advertising.</p>"
    )
    product.drop_consent(body)
    assert "Oat cookies" in body.text_content() and "your consent" not in body.text_content()
    # a cookie settings dialog speaks of them in the plural, or of settings and preferences
    body = _body(
        "<p>Oat cookies baked with butter, twelve cookies to a tin.</p><p>Manage Cookie Preferences</p>"
        "<p>These cookies are strictly necessary. To disable all cookies please use your browsers settings.</p>"
    )
    product.drop_consent(body)
    assert body.text_content() == "Oat cookies baked with butter, twelve cookies to a tin."


def test_a_line_the_menu_repeats_stays_when_the_page_says_it_outside_the_menu_too():
    menu = "Build relationships with a single, shared view of every customer."
    body = _body("<p>%s</p><p>%s</p>" % (menu, DESCRIPTION))
    product.drop_within(body, menu, page="\n".join((menu, menu, DESCRIPTION)))  # the menu's, then the content's
    assert menu in body.text_content()
    product.drop_within(body, menu, page="\n".join((menu, DESCRIPTION)))  # the menu's only
    assert menu not in body.text_content() and "ripstop" in body.text_content()


def test_a_product_pages_fine_print_is_not_the_product():
    page = lxml.html.fromstring(
        "<html><body><main><h1>Trail pack 25</h1><p>%s</p>"
        "<div class='common-bottom-disclaimer'><ol><li>Results may vary with the load carried and the weather on the "
        "day, and capacity is measured with the lid pocket empty.</li></ol></div>"
        "<section class='product-footnotes'><p>Colours shown may differ from the product on your screen, as every "
        "display renders them in its own way.</p></section></main></body></html>" % DESCRIPTION
    )
    extras = product.extras_text(page)
    assert "Results may vary" in extras and "Colours shown" in extras and "ripstop" not in extras


def test_what_a_shop_prints_again_for_screen_readers_is_read_once():
    from worker.pages.extract.region import drop_screen_reader_copies

    body = _body(
        "<div><span aria-hidden='true'>Trail pack 25</span><span class='clipped'>Trail pack 25</span></div>"
        "<div><span>EUR 163.12<span class='visually-hidden'>EUR 163.12</span></span></div>"
        "<a href='#c'><span>See all details<span class='sr-only'>See all details on coverage</span></span></a>"
        "<a href='/share'><i class='icon'></i><span class='sr-only'>Share on a network</span></a>"
    )
    drop_screen_reader_copies(body)
    text = body.text_content()
    assert text.count("Trail pack 25") == 1 and text.count("EUR 163.12") == 1 and "on coverage" not in text
    assert "Share on a network" in text  # an icon link's only name stays
    page = (
        '<html><head><script type=\'application/ld+json\'>{"@type": "Product", "name": "Trail pack 25"}</script>'
        "</head><body><main><h1>Trail pack 25</h1><div><span>EUR 163.12<span class='sr-only'>EUR 163.12</span></span>"
        "</div><p>%s</p><button class='add-to-cart'>Add to cart</button></main></body></html>" % DESCRIPTION
    )
    r = extract(page, url=URL, fmt="text")
    assert r["page_type"] == "product" and "EUR 163.12EUR 163.12" not in r["text"] and "ripstop" in r["text"]
