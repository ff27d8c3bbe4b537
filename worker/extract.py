"""HTML -> clean main content (markdown, plain text or cleaned HTML) plus page metadata.

Pure functions, no I/O. Heavy libraries (lxml, trafilatura, readability) are imported
inside the functions: importing this module costs nothing.

The pipeline, chosen by measurement (bench/extraction/run.py, docs/PERFORMANCE.md):

1. Parse once with lxml (through trafilatura's loader, which copes with encoding
   declarations and broken markup).
2. trafilatura in precision mode, comments off, without its internal fallbacks
   ("fast"): the primary extraction.
3. readability-lxml on a copy of the same tree (with a cheaper pre-clean than its
   default lxml Cleaner): a second opinion.
4. Compare the two by 4-token shingle overlap and keep trafilatura's result unless:
   - it is (nearly) empty while readability found real text, or
   - readability's text contains nearly all of it and is more than twice as long
     (trafilatura stopped early on a long article), or
   - readability's text is nearly all inside trafilatura's and trafilatura's adds a
     moderate amount (20-40 %) of text readability judged boilerplate (related
     links, "about the company" blurbs, comment headers).
5. If both give nothing, a whole-body text fallback without navigation and scripts.
"""

EMPTY_KEYS = ("title", "author", "published", "site_name", "language", "canonical_url", "description")
FORMATS = ("markdown", "text", "html")

# Decision thresholds (see module docstring); measured in bench/extraction/run.py.
SHORT_SHINGLES = 100        # "nearly empty" primary result
TRUNCATED_COVER = 0.95      # share of primary's shingles found in readability's
TRUNCATED_RATIO = 0.5       # readability's share found in primary below this: primary truncated
SUBSET_COVER = 0.97         # share of readability's shingles found in primary
SUBSET_BAND = (0.6, 0.8)    # primary's share found in readability: extra boilerplate band



def extract(html, url=None, fmt="markdown"):
    """Main content and metadata of an HTML page. Never raises."""
    result = {"text": "", "extractor": "none"}
    for k in EMPTY_KEYS:
        result[k] = None
    if fmt not in FORMATS:
        fmt = "markdown"
    try:
        if isinstance(html, bytes):
            html = html.decode("utf-8", errors="replace")
        if not isinstance(html, str) or not html.strip():
            return result
        if url is not None and not isinstance(url, str):
            url = None
        _extract(html, url, fmt, result)
    except (Exception, RecursionError):  # hostile or broken input: return what we have
        pass
    return result


# ------------------------------------------------------------------ pipeline


def _extract(html, url, fmt, result):
    tree = _parse(html)
    if tree is None:
        text = _plain_fallback_text(html)
        result.update(text=text, extractor="fallback" if text else "none")
        return

    try:
        from .extract_meta import page_metadata
        result.update(page_metadata(tree, url))
    except (Exception, RecursionError):
        pass

    doc = None
    try:
        doc = _trafilatura(tree, url, formatting=fmt != "text")
    except (Exception, RecursionError):
        doc = None
    # plain text for fmt="text", trafilatura's markdown otherwise (re-rendered with links
    # below); either serves the comparison, which looks at \w+ tokens only
    t_text = (doc.text or "") if doc is not None and doc.body is not None else ""

    r_root = None
    try:
        r_root = _readability(tree, url)
    except (Exception, RecursionError):
        r_root = None
    r_text = ""
    if r_root is not None:
        from .extract_render import render
        r_text = render(r_root, markdown=False)

    choice = choose(t_text, r_text)
    if choice == "trafilatura":
        result["extractor"] = "trafilatura"
        if fmt != "text":
            try:
                _attach_links(doc.body, tree, url)
            except (Exception, RecursionError):
                pass
        result["text"] = _render_trafilatura(doc, fmt, t_text)
    elif choice == "readability":
        result["extractor"] = "readability"
        result["text"] = _render_html_root(r_root, fmt, r_text)
    else:
        root = _fallback_root(tree)
        text = _render_html_root(root, fmt, None) if root is not None else ""
        result["extractor"] = "fallback" if text else "none"
        result["text"] = text
    if not result["text"].strip():
        # e.g. nesting deeper than the HTML parser keeps: the words are still there
        text = _plain_fallback_text(html)
        if text:
            if fmt == "html":
                from html import escape
                text = "<p>%s</p>" % escape(text)
            result.update(text=text, extractor="fallback")


def shingles(text, n=4):
    """Multiset of n-token shingles over \\w+ tokens (the benchmark's unit of text)."""
    import re
    from collections import Counter
    tokens = re.findall(r"\w+", text or "")
    if len(tokens) < n:
        return Counter([tuple(tokens)]) if tokens else Counter()
    return Counter(zip(*(tokens[i:] for i in range(n))))


def choose(t_text, r_text):
    """Which extraction to keep: "trafilatura", "readability" or "fallback"."""
    st, sr = shingles(t_text), shingles(r_text)
    nt, nr = sum(st.values()), sum(sr.values())
    if not nt and not nr:
        return "fallback"
    if not nr:
        return "trafilatura"
    if not nt:
        return "readability"
    common = sum((st & sr).values())
    t_in_r = common / nt
    r_in_t = common / nr
    if nt < SHORT_SHINGLES and nr > 2 * nt:
        return "readability"
    if t_in_r > TRUNCATED_COVER and r_in_t < TRUNCATED_RATIO:
        return "readability"
    if r_in_t > SUBSET_COVER and SUBSET_BAND[0] < t_in_r < SUBSET_BAND[1] and nr > 50:
        return "readability"
    return "trafilatura"


def _parse(html):
    try:
        from .extract_imports import core
        core()
        from trafilatura.utils import load_html
        tree = load_html(html)
    except (Exception, RecursionError):
        tree = None
    if tree is None:
        try:
            import lxml.html
            tree = lxml.html.document_fromstring(html)
        except (Exception, RecursionError):
            tree = None
    return tree


def _trafilatura(tree, url, formatting):
    from .extract_imports import core
    bare_extraction = core().bare_extraction

    # Links off: with include_links trafilatura keeps link-dense blocks and loses ~0.06 F1
    # on the benchmark; links are put back afterwards for markdown/html (_attach_links).
    # Metadata off: extract_meta does it in ~1 ms instead of ~7 ms, and states no guesses.
    return bare_extraction(
        tree,
        url=url,
        fast=True,
        favor_precision=True,
        include_comments=False,
        include_tables=True,
        include_formatting=formatting,
        include_links=False,
        with_metadata=False,
    )


def _readability(tree, url):
    """readability-lxml on a copy of the tree; returns the summary's root element or None."""
    import copy

    import lxml.html
    from lxml import etree

    from .extract_imports import readability
    rd = readability()

    class _Doc(rd.Document):
        # readability's default _parse runs lxml's html Cleaner (~7 ms a page) and, on
        # its retry pass, re-uses a tree it already mutated. This does the cleaning that
        # matters for scoring on a fresh copy every pass, and drops page chrome that is
        # never the article (nav, aside, footer, ...): ~6 ms a page less, same F1.
        # Not <form>: ASP.NET pages wrap the whole body in one.
        def _parse(self, input):
            doc = copy.deepcopy(input)
            for elem in doc.xpath("//*[@hidden]"):
                elem.drop_tree()
            display_none = rd.REGEXES["displayNoneRe"]
            for elem in doc.xpath("//*[@style]"):
                if display_none.search(elem.get("style") or ""):
                    elem.drop_tree()
            etree.strip_elements(doc, "script", "style", "link", "noscript", "svg", "nav", "aside",
                                 "footer", "iframe", "select", "button", etree.Comment,
                                 etree.ProcessingInstruction, with_tail=False)
            return doc

    html = _Doc(tree).summary(html_partial=True)
    if not html or not html.strip():
        return None
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    for a in root.iter("a"):
        href = (a.get("href") or "").strip()
        if not href or href.startswith(("#", "javascript:", "data:")):
            a.attrib.pop("href", None)  # in-page and script links are not links for a reader
    if url:
        try:  # on the small summary only: on the whole page this costs ~4 ms
            root.make_links_absolute(url, handle_failures="discard")
        except Exception:
            pass
    return root


# ------------------------------------------------------------------ rendering


def _render_trafilatura(doc, fmt, plain):
    if fmt == "text":
        return plain.strip()
    if fmt == "markdown":
        from trafilatura.xml import xmltotxt
        return (xmltotxt(doc.body, True) or "").strip()
    from lxml.etree import tostring
    from trafilatura.htmlprocessing import convert_to_html
    root = convert_to_html(doc.body)
    for el in root.iter("pre"):  # trafilatura's <code> becomes <pre> even inline
        parent = el.getparent()
        if parent is not None and parent.tag not in ("body", "div", "blockquote", "li") and "\n" not in (el.text or ""):
            el.tag = "code"
    html = tostring(root, encoding="unicode", method="html")
    return _strip_html_wrapper(html)


def _render_html_root(root, fmt, plain):
    from .extract_render import render
    if root is None:
        return ""
    if fmt == "text":
        return plain if plain is not None else render(root, markdown=False)
    if fmt == "markdown":
        return render(root, markdown=True)
    import lxml.html
    return lxml.html.tostring(root, encoding="unicode", method="html")


def _strip_html_wrapper(html):
    import re
    m = re.search(r"<body[^>]*>(.*)</body>", html or "", re.S)
    return (m.group(1) if m else (html or "")).strip()


def _fallback_root(tree):
    """The page body without obvious non-content (scripts, navigation, forms)."""
    import copy

    from lxml import etree
    body = tree.find(".//body")
    root = copy.deepcopy(body if body is not None else tree)
    etree.strip_elements(root, "script", "style", "noscript", "template", "nav", "header", "footer",
                         "aside", "form", "iframe", "svg", etree.Comment, with_tail=False)
    return root


def _plain_fallback_text(html):
    import re
    from html import unescape
    html = html[:2000000]  # last resort only; bounded work on hostile input
    text = re.sub(r"(?is)<(script|style|noscript|template)\b[^>]*>.*?</\1\s*>", " ", html)
    text = re.sub(r"(?s)<!--.*?-->|<[^>]*>", " ", text)
    return " ".join(unescape(text).split())


# ------------------------------------------------------------------ links


def _anchors(tree, url, limit=2000):
    import re
    """{anchor text: absolute href} for the page's links, first occurrence wins."""
    from urllib.parse import urljoin
    out = {}
    for i, a in enumerate(tree.iter("a")):
        if i >= limit:
            break
        href = (a.get("href") or "").strip()
        if not href or href.startswith(("#", "javascript:", "data:")):
            continue
        text = " ".join(a.text_content().split())
        if not (2 <= len(text) <= 150) or text in out:
            continue
        if url:
            try:
                href = urljoin(url, href)
            except ValueError:
                continue
        if re.match(r"^(https?:|mailto:|/)", href) or not url:
            out[text] = href
    return out


def _attach_links(body, tree, url):
    """Turn occurrences of the page's link texts in trafilatura's body back into links.

    trafilatura extracts better without links (see _trafilatura); for markdown and html
    each link text found in the extracted text becomes a <ref target> again, first
    occurrence only, never inside code.
    """
    import re

    from lxml.etree import Element
    anchors = _anchors(tree, url)
    if not anchors:
        return
    keys = sorted(anchors, key=len, reverse=True)[:1000]
    pattern = re.compile(r"(?<!\w)(?:%s)(?!\w)" % "|".join(re.escape(k) for k in keys))
    used = set()

    def split(text):
        """[(before, match or None)] pieces of text; each anchor used once."""
        pieces, pos = [], 0
        for m in pattern.finditer(text):
            k = m.group(0)
            if k in used:
                continue
            used.add(k)
            pieces.append((text[pos:m.start()], k))
            pos = m.end()
        if not pieces:
            return None
        pieces.append((text[pos:], None))
        return pieces

    def make_refs(pieces):
        refs = []
        for i in range(len(pieces) - 1):
            ref = Element("ref")
            ref.text = pieces[i][1]
            ref.set("target", anchors[pieces[i][1]])
            ref.tail = pieces[i + 1][0]
            refs.append(ref)
        return refs

    slots = []
    for el in body.iter():
        if not isinstance(el.tag, str) or el.tag in ("code", "ref", "graphic"):
            continue
        if any(anc.tag in ("code", "ref") for anc in el.iterancestors()):
            continue
        slots.append(el)
    for el in slots:
        if el.text:
            pieces = split(el.text)
            if pieces:
                el.text = pieces[0][0]
                for i, ref in enumerate(make_refs(pieces)):
                    el.insert(i, ref)
        parent = el.getparent()
        if el.tail and parent is not None and parent.tag not in ("code", "ref") and el is not body:
            pieces = split(el.tail)
            if pieces:
                el.tail = pieces[0][0]
                anchor = el
                for ref in make_refs(pieces):
                    anchor.addnext(ref)
                    anchor = ref
