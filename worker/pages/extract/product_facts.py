"""A product's name, price and availability from its schema.org data, put first in the
extracted text when the text does not already say them (price_said reads every usual
spelling of an amount).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from lxml.html import HtmlElement  # no stubs: Any to the checker


def add_facts(tree: HtmlElement, body: HtmlElement) -> None:
    """Put the product's name, price and availability from its schema.org data first,
    each only when the extracted text does not already say it."""
    from lxml import etree

    from .meta import product_facts

    facts = product_facts(tree)
    if not facts:
        return
    name, price, availability = facts
    have = " ".join(" ".join(body.itertext()).split())
    if name and name in have:
        name = None
    if price and price_said(price.split()[0], have):
        price = None
    if not name and not price:
        return  # availability alone is not worth a line before the description
    parts = [x for x in (name, price, availability) if x]
    p = etree.Element("p")
    p.text = " · ".join(parts)
    body.insert(0, p)


def price_said(amount: str, text: str) -> bool:
    """Whether text states the amount ("3665.00") in any usual spelling ("3,665.00",
    "3.665,00", "3665")."""
    from ... import numbers

    value = numbers.or_none(amount, 0, 1e15)  # a page's "1e400" or "NaN" is no amount to spell
    if value is None:
        return amount in text
    spellings = {"%.2f" % value, "{:,.2f}".format(value)}
    spellings |= {x.replace(",", " ").replace(".", ",") for x in list(spellings)}
    spellings |= {"{:,.2f}".format(value).replace(",", "X").replace(".", ",").replace("X", ".")}
    if value == int(value):
        spellings |= {"%d" % value, "{:,}".format(int(value)), "{:,}".format(int(value)).replace(",", ".")}
    return any(s in text for s in spellings)
