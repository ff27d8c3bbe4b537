"""Tell a page from a wall: bot challenges and blocks, login walls, paywalls.

Pure functions over what a download gives (status, lower-cased headers, decoded
body, extracted text). Signatures come from the vendors' public descriptions of
their challenge and block pages: a response header the vendor sets only on a
challenge, or a script/markup the vendor serves only on one. A captcha widget or a
generic "access denied" sentence is not enough on its own (contact forms carry
captchas, articles mention access): those count only on a page with almost no
other text.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from ...errors import WorkerError

    # {"reason": "challenge" | "login" | "paywall", "vendor": a challenge's vendor or None}
    Wall = dict[str, str | None]
    # (vendor, gate words, needles), the words as bytes: pages are scanned as lower-cased bytes
    Table = list[tuple[str, tuple[bytes, ...], tuple[bytes, ...]]]


# A challenge or block page is short: a real page with a vendor's name in it is not one.
WALL_WORDS = 150
MAX_WALL_CHARS = 200000  # challenge and block pages are far smaller (Cloudflare's, the largest, ~30 KB)
SCAN_CHARS = 100000  # challenge pages are a few KB (Cloudflare's, the largest, about 30 KB)

# (vendor, strings that only that vendor's challenge or block page carries), matched
# in the lower-cased start of the body: plain substring tests cost microseconds, so
# every page can be checked.
_STRONG = [
    (
        "cloudflare",
        (
            "window._cf_chl_opt",
            "challenge-platform/h/b/orchestrate",
            "challenge-platform/h/g/orchestrate",
            'id="challenge-running"',
            "id='challenge-running'",
            'id="challenge-form"',
            "id='challenge-form'",
            "cf-browser-verification",
            "attention required! | cloudflare",
            "cf-error-details",
            "cf_chl_prog",
        ),
    ),
    ("aws-waf", ("awswafintegration", ".awswaf.com/", "window.gokuprops")),
    ("datadome", ("captcha-delivery.com",)),
    # not _pxAppId or the sensor script: PerimeterX loads those on every page it protects
    ("perimeterx", ("captcha.px-cdn", "px-captcha", "_pxcaptcha")),
    ("imperva", ("_incapsula_resource", "incapsula incident id")),
    ("akamai", ("errors.edgesuite.net", "/_sec/cp_challenge/", "sec-if-cpt-container", "bm-verify", "ak-challenge")),
]
# Captcha widgets: on a page of almost nothing else they are the wall.
_WIDGETS = [
    ("turnstile", ("challenges.cloudflare.com/turnstile", "cf-turnstile")),
    ("hcaptcha", ("hcaptcha.com/1/api.js", "h-captcha")),
    ("recaptcha", ("google.com/recaptcha/", "recaptcha.net/recaptcha", "g-recaptcha")),
]
# Every needle above holds one of these words. The page is searched for these few
# first (in UTF-8 bytes, lower-cased: str.lower() of a non-ASCII page costs more than
# all the searches), and a vendor's needles only when one of its words is there.
_GATES = (
    "cf",
    "challenge",
    "cloudflare",
    "awswaf",
    "gokuprops",
    "captcha",
    "incapsula",
    "edgesuite",
    "sec-if-cpt",
    "bm-verify",
    "turnstile",
)


def _table(entries: list[tuple[str, tuple[str, ...]]]) -> Table:
    out: Table = []
    for vendor, needles in entries:
        gates = tuple(g.encode() for g in _GATES if any(g in n for n in needles))
        assert len(gates) and all(any(g.decode() in n for g in gates) for n in needles), vendor
        out.append((vendor, gates, tuple(n.encode() for n in needles)))
    return out


def _vendor(low: bytes, table: Table, present: set[bytes]) -> str | None:
    for vendor, gates, needles in table:
        if any(g in present for g in gates) and any(n in low for n in needles):
            return vendor
    return None


# What challenge and block pages say to a person.
_SAYS = re.compile(
    r"just a moment\.\.\.|checking (?:if the site connection is secure|your browser)|"
    r"verify(?:ing)? (?:that )?you are (?:a )?human|are you a (?:robot|human)|"
    r"press (?:&|&amp;|and) hold|security check|unusual traffic|access (?:to this page has been )?denied|"
    r"you have been blocked|request unsuccessful|enable javascript and cookies to continue|"
    r"bot (?:detection|protection)|automated (?:access|requests|queries)|pardon our interruption|"
    r"please complete the (?:captcha|security check)|human verification",
    re.I,
)
_STRONG_B, _WIDGETS_B = _table(_STRONG), _table(_WIDGETS)
_GATE_BYTES = tuple(g.encode() for g in _GATES)
_SERVER_VENDOR = (("cloudflare", "cloudflare"), ("akamaighost", "akamai"), ("akamai", "akamai"))
_RAW_OPEN = re.compile(r"<(script|style|noscript|template)\b|<!--", re.I)
_TAG = re.compile(r"<[^<>]*>")


def visible_text(html: str, limit: int = SCAN_CHARS) -> str:
    """The page's text outside scripts, styles and comments (rough; for counting and phrases).

    A scan with str.find rather than one lazy regex: a page of unclosed ``<script``
    or ``<!--`` would make the regex quadratic.
    """
    from html import unescape

    html = html[:limit]
    low = html.lower()
    out: list[str] = []
    pos = 0
    while True:
        m = _RAW_OPEN.search(low, pos)
        if m is None:
            out.append(html[pos:])
            break
        out.append(html[pos : m.start()])
        close = "-->" if m.group(0) == "<!--" else "</" + m.group(1).lower()
        end = low.find(close, m.end())
        if end < 0:
            break  # unclosed: the rest is not text
        pos = end + len(close)
    return unescape(_TAG.sub(" ", " ".join(out)))


def words_upto(text: str | None, cap: int) -> int:
    """len(text.split()), or any number >= cap once there are that many: a long text's
    first few thousand characters settle it without splitting the whole of it."""
    text = text or ""
    head = text[: cap * 16]
    n = len(head.split())
    return n if n >= cap or len(head) == len(text) else len(text.split())


def visible_words(html: str) -> int:
    return len(visible_text(html).split())


def challenge(status: int, headers: dict[str, str] | None, html: str | None) -> Wall | None:
    """{"reason": "challenge", "vendor": name or None} when the response is a bot wall, else None."""
    headers = headers or {}
    mitigated = (headers.get("cf-mitigated") or "").lower()
    if mitigated == "challenge":
        return _wall("cloudflare")
    waf = (headers.get("x-amzn-waf-action") or "").lower()
    if waf in ("captcha", "challenge"):
        return _wall("aws-waf")
    if html and len(html) > MAX_WALL_CHARS:
        return None  # a vendor's challenge page is a few KB; a page this long is the site's own
    head = html[:SCAN_CHARS] if html else ""
    if not head:
        if status in (403, 429, 503) and headers.get("x-datadome"):
            return _wall("datadome")
        return None
    low = head.encode("utf-8", "surrogatepass").lower()
    present = {g for g in _GATE_BYTES if g in low}
    strong = _vendor(low, _STRONG_B, present) if present else None
    widget = _vendor(low, _WIDGETS_B, present) if present else None
    if not strong and not widget and status < 400 and b"<title" in low and not _title_says(low):
        return None  # an ordinary page: no vendor markup, not an error, a title that says nothing of walls
    if visible_words(head) >= WALL_WORDS:
        return None
    if strong:
        return _wall(strong)
    says = _SAYS.search(visible_text(head, 20000))
    if widget and (says or status >= 400):
        return _wall(widget)
    if says and (status >= 400 or _title_says(low)):
        return _wall(_server_vendor(headers) or _header_vendor(headers))
    return None


def _title_says(low: bytes) -> bool:
    """Whether the <title> says what walls say (low: the page's lower-cased UTF-8 bytes)."""
    start = low.find(b"<title")
    end = low.find(b"</title", start)
    if start < 0 or end <= start:
        return False
    return bool(_SAYS.search(low[start : min(end, start + 2000)].decode("utf-8", "replace")))


def _server_vendor(headers: dict[str, str]) -> str | None:
    server = (headers.get("server") or "").lower()
    for needle, vendor in _SERVER_VENDOR:
        if needle in server:
            return vendor
    return None


def _header_vendor(headers: dict[str, str]) -> str | None:
    if headers.get("x-datadome") or "datadome=" in (headers.get("set-cookie") or ""):
        return "datadome"
    if headers.get("x-iinfo") or "incap_ses_" in (headers.get("set-cookie") or ""):
        return "imperva"
    if "_px" in (headers.get("set-cookie") or ""):
        return "perimeterx"
    return None


def _wall(vendor: str | None) -> Wall:
    return {"reason": "challenge", "vendor": vendor}


VENDOR_NAMES = {
    "cloudflare": "Cloudflare",
    "akamai": "Akamai",
    "datadome": "DataDome",
    "perimeterx": "PerimeterX/HUMAN",
    "imperva": "Imperva",
    "aws-waf": "AWS WAF",
    "hcaptcha": "hCaptcha",
    "recaptcha": "reCAPTCHA",
    "turnstile": "Cloudflare Turnstile",
}


def blocked_error(url: str, wall: Wall, status: int) -> WorkerError:
    """The WorkerError an item carries for a wall."""
    from ...errors import WorkerError

    vendor = wall.get("vendor")
    who = VENDOR_NAMES.get(vendor, vendor) if vendor is not None else None
    reason = wall["reason"]
    if reason == "challenge":
        message = "%s answered with a bot challenge or block page%s instead of the page (HTTP %s)" % (
            url,
            " (%s)" % who if who else "",
            status,
        )
        hint = (
            "the site checks for a browser; this worker runs none. Open the page in a browser, "
            "or use another source (a search provider's copy, the site's API or feed)"
        )
    elif reason == "login":
        message = "%s needs a login to show its content (HTTP %s)" % (url, status)
        hint = "the public part of the page, if any, is in the item's content"
    else:
        message = "%s is behind a paywall: only its public part was served (HTTP %s)" % (url, status)
        hint = "the public part of the page is in the item's content"
    extra: dict[str, Any] = {"reason": reason, "status": status}
    if vendor:
        extra["vendor"] = vendor
    return WorkerError("blocked", message, hint=hint, retryable=False, **extra)


# --- login walls and paywalls ----------------------------------------------------------
_LOGIN_PATH = re.compile(
    r"/(?:log[-_]?in|sign[-_]?in|signon|auth(?:enticate)?|sso|account/log[-_]?in|users?/log[-_]?in|"
    r"session/new|accounts/login|oauth2?/authorize)(?:[/.?#]|$)",
    re.I,
)
_LOGIN_SAYS = re.compile(
    r"(?:log|sign) ?in (?:to|for) (?:continue|view|see|read|access|keep reading)|"
    r"(?:you )?(?:must|need to) (?:be )?(?:logged|signed) in|please (?:log|sign) ?in\b|"
    r"login required|members only|create (?:a free|an) account to (?:continue|read|view)",
    re.I,
)
_PASSWORD = re.compile(r"<input\b[^<>]{0,500}type\s*=\s*[\"']?password", re.I)
_FREE_FALSE = re.compile(r"[\"']isAccessibleForFree[\"']\s*:\s*(?:false|[\"']false[\"'])", re.I)
_PAYWALL_SAYS = re.compile(
    r"subscribe (?:now )?to (?:continue|keep) reading|to continue reading|"
    r"(?:already a|become a) (?:subscriber|member)|subscribers? only|"
    r"this (?:article|story|content) is (?:for|available to|exclusive to) (?:paid )?(?:subscribers|members)|"
    r"unlock (?:this|the full) (?:article|story)|start your (?:free )?trial",
    re.I,
)
LOGIN_WORDS = 200  # a login wall shows a form and a line or two
PAYWALL_WORDS = 350  # a paywalled article shows its first paragraphs


def login_or_paywall(url: str, final_url: str | None, status: int, html: str, text: str | None) -> Wall | None:
    """{"reason": "login"|"paywall"} when the page hides its content behind one, else None.

    A page the user asked for that *is* a login page is not a wall: only a redirect
    to one, or a short page that says a login is needed, is.
    """
    words = words_upto(text, max(LOGIN_WORDS, PAYWALL_WORDS))
    asked_login = bool(_LOGIN_PATH.search(_path(url)))
    if not asked_login and words < LOGIN_WORDS:
        if status == 401 or (final_url and final_url != url and _LOGIN_PATH.search(_path(final_url))):
            return {"reason": "login"}
        head = html[:SCAN_CHARS]
        if _PASSWORD.search(head) and _LOGIN_SAYS.search(head):
            return {"reason": "login"}
    if words < PAYWALL_WORDS or _PAYWALL_SAYS.search((text or "")[-400:]):
        if "isAccessibleForFree" in html and _FREE_FALSE.search(html):
            return {"reason": "paywall"}
    return None


def _path(url: str | None) -> str:
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url or "")
    except ValueError:
        return ""
    return parts.path + ("?" + parts.query if parts.query else "")
