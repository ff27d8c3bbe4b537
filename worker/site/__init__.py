"""A site or a section of one: its map (``map URL``) and a bounded crawl that answers a question
(``fetch URL --crawl N``).

``scope`` says which URLs belong, ``links``, ``sitemaps`` and ``llms`` read the sources
(pure functions), ``mapper`` walks them through the fetch tool's guarded download, ``rank``
orders the map's pages for a question, ``passages`` ranks what the pages say across pages.
"""
