"""JavaScript shells: pages whose HTML has no text but whose content rides along as data.

Frameworks that render in the browser still ship the page's data inside the HTML
so the script can build it: Next.js (``<script id="__NEXT_DATA__">``), Nuxt
(``__NUXT_DATA__`` JSON, or the ``window.__NUXT__`` script), Remix
(``window.__remixContext``), Gatsby and SvelteKit (inline JSON scripts), Astro
(``<astro-island props>``), and schema.org JSON-LD (``articleBody``/``text``); some
serve the whole text to non-script readers in ``<noscript>``. ``read`` collects the
prose from there, in the data's order. ``needs_javascript`` says whether a page
without such data is an application shell (so the caller reports it instead of an
empty success).

Pure functions over the decoded HTML; lxml is imported when a shell is read.
"""

from __future__ import annotations

import json
import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from lxml.html import HtmlElement  # no stubs: Any to the checker


SHELL_WORDS = 40  # extracted text below this many words: "almost no text"
MIN_DATA_WORDS = 30  # page data must hold at least this much prose to be the content
PROSE_WORDS = 6  # a string of at least this many words may be prose
MAX_STRINGS = 5000
MAX_DATA_CHARS = 4000000
NOSCRIPT_WORDS = 30

_HTMLISH = re.compile(r"<(?:p|h[1-6]|li|ul|ol|div|br|blockquote|pre|table)\b", re.I)
_CODEISH = re.compile(
    r"function\s*\(|=>|\{\s*\"|;\s*var |\bimport\s|\bexport\s|\\u00|^[\w.-]+\.(?:js|css|png|jpg|svg)$"
)
_SKIP_KEYS = re.compile(
    r"^(?:__typename|id|_id|key|slug|href|url|src|srcset|image|img|icon|className|class|css|style|"
    r"buildId|assetPrefix|scriptLoader|query|locale|locales|page|route|path|hash|token|nonce|"
    r"canonical|og[A-Z]\w*|meta\w*|seo\w*|schema)$"
)
_JS_STRING_BODY = re.compile(r'(?:[^"\\\n]|\\.)*')
_MOUNTS = re.compile(
    r"<(?:div|main|section|body)\b[^<>]{0,500}\bid\s*=\s*[\"'](?:root|app|__next|__nuxt|___gatsby|svelte|"
    r"q-app|main-app|application|react-root|ember-app|app-root)[\"'][^<>]{0,500}>\s*</(?:div|main|section)>|"
    r"<(?:app-root|ion-app)\b[^<>]{0,500}>\s*</",
    re.I,
)
_NEEDS_JS = re.compile(
    r"(?:enable|turn on|requires?|need|needs|without)\s+javascript|javascript\s+(?:is\s+)?(?:required|"
    r"disabled|must be enabled)",
    re.I,
)
_FRAMEWORK_MARKS = (
    ("Next.js", "__NEXT_DATA__"),
    ("Next.js", "/_next/static/"),
    ("Nuxt", "__NUXT"),
    ("Nuxt", "/_nuxt/"),
    ("Remix", "__remixContext"),
    ("Gatsby", "___gatsby"),
    ("Astro", "astro-island"),
    ("SvelteKit", "__sveltekit"),
    ("Angular", "ng-version"),
    ("Vue", "data-v-app"),
    ("React", "data-reactroot"),
    ("Ember", "ember-application"),
)


def _prose(s: str) -> bool:
    s = s.strip()
    if len(s) < 30 or s.startswith(("http://", "https://", "/", "data:", "#")):
        return False
    if _HTMLISH.search(s):
        return True
    if len(s.split()) < PROSE_WORDS or _CODEISH.search(s):
        return False
    letters = sum(c.isalpha() or c.isspace() for c in s)
    return letters >= 0.8 * len(s)


def _walk(value: Any, out: list[str], key: str = "", depth: int = 0) -> None:
    if len(out) >= MAX_STRINGS or depth > 60:
        return
    if isinstance(value, str):
        if not (key and _SKIP_KEYS.match(key)) and _prose(value):
            out.append(value.strip())
    elif isinstance(value, dict):
        for k, v in value.items():
            _walk(v, out, str(k), depth + 1)
    elif isinstance(value, list):
        for v in value:
            _walk(v, out, key, depth + 1)


def _json(text: str) -> Any:
    try:
        return json.loads(text[:MAX_DATA_CHARS])
    except (ValueError, RecursionError):
        return None


def _js_strings(script: str) -> list[str]:
    """Prose string literals of a script (window.__NUXT__ is JavaScript, not JSON)."""
    out: list[str] = []
    script = script[:MAX_DATA_CHARS]
    pos = script.find('"')
    while pos >= 0 and len(out) < MAX_STRINGS:
        # one literal at a time, resuming after it: a linear scan whatever the quotes
        # the pattern matches the empty string: match() never fails
        end = _JS_STRING_BODY.match(script, pos + 1).end()  # type: ignore[union-attr]
        if end < len(script) and script[end] == '"' and end - pos > 20:
            try:
                s = json.loads(script[pos : end + 1])
            except ValueError:
                s = ""
            if _prose(s):
                out.append(s.strip())
        pos = script.find('"', end + 1)
    return out


def _sources(tree: HtmlElement) -> list[tuple[str, list[str]]]:
    """[(source name, [prose strings])] in the order they are tried."""
    found: list[tuple[str, list[str]]] = []
    scripts = list(tree.iter("script"))
    for sc in scripts:
        ident = sc.get("id") or ""
        body = sc.text or ""
        if ident == "__NEXT_DATA__":
            found.append(("Next.js page data (__NEXT_DATA__)", _strings_of(_json(body))))
        elif ident == "__NUXT_DATA__":
            found.append(("Nuxt page data (__NUXT_DATA__)", _strings_of(_json(body))))
        elif "window.__NUXT__" in body[:200]:
            found.append(("Nuxt page data (window.__NUXT__)", _js_strings(body)))
        elif "__remixContext" in body[:200]:
            found.append(("Remix page data (window.__remixContext)", _js_strings(body)))
        elif "__staticRouterHydrationData" in body[:300]:
            found.append(("React Router page data", _js_strings(body)))
    for island in tree.iter("astro-island"):
        props = _json(island.get("props") or "")
        if props is not None:
            found.append(("Astro island props", _strings_of(props)))
    for sc in scripts:
        if (sc.get("type") or "").lower() == "application/ld+json":
            found.append(("JSON-LD articleBody", _ld_bodies(_json(sc.text or ""))))
    for sc in scripts:
        ident = sc.get("id") or ""
        if (sc.get("type") or "").lower() == "application/json" and ident not in ("__NEXT_DATA__", "__NUXT_DATA__"):
            name = "Gatsby page data" if "gatsby" in ident.lower() else "inline JSON page data"
            found.append((name, _strings_of(_json(sc.text or ""))))
    return found


def _strings_of(data: Any) -> list[str]:
    out: list[str] = []
    if data is not None:
        _walk(data, out)
    return out


def _ld_bodies(data: Any) -> list[str]:
    out: list[str] = []

    def visit(v: Any, depth: int = 0) -> None:
        if depth > 20:
            return
        if isinstance(v, list):
            for x in v:
                visit(x, depth + 1)
        elif isinstance(v, dict):
            for k in ("articleBody", "text", "reviewBody"):
                if isinstance(v.get(k), str) and _prose(v[k]):
                    out.append(v[k].strip())
            for k in ("@graph", "mainEntity", "hasPart"):
                visit(v.get(k), depth + 1)

    visit(data)
    return out


def _dedupe(strings: list[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for s in strings:
        k = " ".join(s.split())
        if k not in seen:
            seen.add(k)
            out.append(s)
    return out


def _render(strings: list[str], fmt: str) -> str:
    from ..extract.core import extract

    parts: list[str] = []
    for s in strings:
        if _HTMLISH.search(s):
            piece = extract("<html><body><article>%s</article></body></html>" % s, fmt=fmt).get("text") or ""
        elif fmt == "html":
            from html import escape

            piece = "\n".join("<p>%s</p>" % escape(p.strip()) for p in s.split("\n\n") if p.strip())
        elif fmt == "markdown" and not re.search(r"(?m)^(?:#{1,6} |[-*] |\d+\. |```)", s):
            from ..extract.escape import escape_line_start, md_escape

            piece = "\n\n".join(escape_line_start(md_escape(" ".join(p.split()))) for p in s.split("\n\n") if p.strip())
        else:
            piece = s.strip()
        if piece.strip():
            parts.append(piece.strip())
    return "\n\n".join(parts)


def read(html: str, fmt: str = "markdown") -> tuple[str, str] | None:
    """(text, source name) from a shell's page data or <noscript>, or None when it holds no prose."""
    import lxml.html

    from ..extract import linear

    if linear.too_many_elements(html):  # no tree for such a page (linear.py); an app shell is small
        return None
    try:
        tree = lxml.html.document_fromstring(html)
    except (ValueError, TypeError, RecursionError, Exception):
        return None
    for name, strings in _sources(tree):
        strings = _dedupe(strings)
        if sum(len(s.split()) for s in strings) >= MIN_DATA_WORDS:
            text = _render(strings, fmt)
            if len(text.split()) >= MIN_DATA_WORDS:
                return text, name
    for ns in tree.iter("noscript"):
        inner = "".join(lxml.html.tostring(c, encoding="unicode") for c in ns) or (ns.text or "")
        if len(" ".join(ns.itertext()).split()) >= NOSCRIPT_WORDS or len(inner.split()) >= NOSCRIPT_WORDS:
            from ..extract.core import extract

            text = extract("<html><body><article>%s</article></body></html>" % inner, fmt=fmt).get("text") or ""
            if len(text.split()) >= NOSCRIPT_WORDS and not _NEEDS_JS.search(text[:300]):
                return text, "<noscript> content"
    return None


def _noscripts(html: str) -> list[str]:
    """The text of the page's <noscript> blocks (visible_text leaves them out)."""
    low = html.lower()
    out: list[str] = []
    pos = 0
    while len(out) < 20:
        start = low.find("<noscript", pos)
        if start < 0:
            break
        end = low.find("</noscript", start)
        if end < 0:
            break
        out.append(re.sub(r"<[^<>]*>", " ", html[start + 9 : end])[:2000])
        pos = end
    return out


_SCRIPT_TAG = re.compile(r"<script\b([^<>]*)>", re.I)
_DATA_TYPES = re.compile(r"""\btype\s*=\s*["']?(?:application/(?:ld\+)?json|text/template|importmap)""", re.I)


def script_built(html: str) -> bool:
    """Does the page run scripts that could build its text (not only carry data)?

    For a page with almost no text that ``needs_javascript`` does not name: no
    framework mark, no mount point it knows, yet a script (loaded, or inline code)
    that a browser would run.
    """
    for m in _SCRIPT_TAG.finditer(html[:2000000]):
        if not _DATA_TYPES.search(m.group(1)):
            return True
    return False


def needs_javascript(html: str, text: str) -> str | None:
    """The framework's name (or "JavaScript") when a page with almost no text is an application shell, else None."""
    head = html[:2000000]
    mount = _MOUNTS.search(head)
    from .walls import visible_text

    says = _NEEDS_JS.search(visible_text(head, 200000)) or _NEEDS_JS.search(" ".join(_noscripts(head)))
    framework = next((name for name, mark in _FRAMEWORK_MARKS if mark in head), None)
    if framework and (mount or says or not text.strip()):
        return framework
    if mount or says:
        return "JavaScript"
    return None
