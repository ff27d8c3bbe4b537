"""From a downloaded body to text: content types, charsets, PDF.

Pure functions over bytes and header values (the PDF reader and the charset
detector are imported only on the pages that need them).
"""

from __future__ import annotations

import codecs
import re

from ...errors import WorkerError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

HTML_TYPES = ("text/html", "application/xhtml+xml", "application/vnd.wap.xhtml+xml")
TEXT_TYPES = (
    "text/",
    "application/json",
    "application/ld+json",
    "application/xml",
    "application/javascript",
    "application/ecmascript",
    "application/x-javascript",
    "application/x-yaml",
    "application/yaml",
    "application/toml",
    "application/x-ndjson",
    "application/rss+xml",
    "application/atom+xml",
    "application/x-sh",
    "application/sql",
    "application/graphql",
)
PDF_TYPES = ("application/pdf", "application/x-pdf")
BINARY_PREFIXES = ("image/", "audio/", "video/", "font/", "model/")
BINARY_TYPES = (
    "application/zip",
    "application/gzip",
    "application/x-gzip",
    "application/x-tar",
    "application/x-7z-compressed",
    "application/x-rar-compressed",
    "application/vnd.rar",
    "application/x-bzip2",
    "application/x-xz",
    "application/x-msdownload",
    "application/x-executable",
    "application/wasm",
    "application/java-archive",
    "application/msword",
    "application/vnd.ms-excel",
    "application/vnd.ms-powerpoint",
    "application/x-shockwave-flash",
    "application/x-iso9660-image",
    "application/x-apple-diskimage",
)
BINARY_SUFFIXES = ("+zip",)
OPENXML = "application/vnd.openxmlformats-officedocument."

# WHATWG label -> Python codec for the labels where Python's own name means
# something narrower than what browsers decode (latin-1 pages are really
# windows-1252, GB2312 pages are really GBK/GB18030, ...).
_CHARSET_ALIASES = {
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "l1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "windows-1252": "cp1252",
    "x-cp1252": "cp1252",
    "iso-8859-9": "cp1254",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "gb_2312-80": "gb18030",
    "shift_jis": "cp932",
    "shift-jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "windows-31j": "cp932",
    "ms_kanji": "cp932",
    "euc-kr": "cp949",
    "ks_c_5601-1987": "cp949",
    "big5": "big5hkscs",
    "tis-620": "cp874",
    "iso-8859-11": "cp874",
    "utf8": "utf-8",
    "unicode-1-1-utf-8": "utf-8",
}
_META_RE = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)""", re.I)
_XML_DECL_RE = re.compile(rb"""^\s*<\?xml[^>]+encoding\s*=\s*["']([A-Za-z0-9_.\-]+)""", re.I)
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def media_type(content_type: str | None) -> str:
    """'text/html; charset=x' -> 'text/html'."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def header_charset(content_type: str | None) -> str | None:
    m = re.search(r"""charset\s*=\s*["']?([^"';\s]+)""", content_type or "", re.I)
    return m.group(1) if m else None


# Text codecs Python knows that cannot decode a page's bytes: ``idna`` and
# ``punycode`` refuse errors="replace", ``undefined`` refuses everything, and the
# escape codecs read backslashes in the page as escapes.
_NOT_PAGE_CODECS = frozenset(
    {"idna", "punycode", "undefined", "unicode_escape", "raw_unicode_escape", "unicode_internal", "mbcs", "oem"}
)
_codec_cache: dict[str, str | None] = {}


def codec_for(label: str | None) -> str | None:
    """A Python codec name for a charset label, or None if unknown or not a text encoding.

    The one lookup every charset a page names goes through (header, <meta>, XML
    declaration, detection): Python's registry also holds bytes-to-bytes codecs
    (``rot13``, ``base64``, ``zlib``, ``hex``, ``uu``) that would crash
    ``bytes.decode``; only encodings that turn bytes into text, with replacement
    of bad bytes, are answered.
    """
    if not label or not isinstance(label, str) or len(label) > 64:
        return None
    label = label.strip().strip("\"'").lower()
    if label in _codec_cache:
        return _codec_cache[label]
    name = _CHARSET_ALIASES.get(label, label)
    try:
        info = codecs.lookup(name)
        name = info.name
        ok = getattr(info, "_is_text_encoding", True) and name.replace("-", "_") not in _NOT_PAGE_CODECS
        if ok:
            b"<p>x</p>".decode(name, errors="replace")  # the decode we will do must work
    except (LookupError, UnicodeError, TypeError, ValueError):
        ok = False
    # Encodings that cannot describe a byte stream we received as a page.
    if ok and name in ("utf-16", "utf-32") and label not in ("utf-16", "utf-32"):
        ok = False
    result = name if ok else None
    if len(_codec_cache) < 256:
        _codec_cache[label] = result
    return result


def sniff(body: bytes) -> str:
    """A media type guessed from the first bytes (for missing or generic Content-Type)."""
    head = body[:1024].lstrip()
    low = head[:256].lower()
    if head.startswith(b"%PDF-"):
        return "application/pdf"
    for magic in (
        b"\x89PNG",
        b"GIF8",
        b"\xff\xd8\xff",
        b"RIFF",
        b"PK\x03\x04",
        b"\x1f\x8b",
        b"BM",
        b"\x00\x00\x01\x00",
        b"OggS",
        b"ID3",
        b"fLaC",
        b"\x7fELF",
        b"MZ",
        b"wOFF",
        b"wOF2",
        b"\x00asm",
    ):
        if body.startswith(magic):
            return "application/x-binary"
    if low.startswith((b"<!doctype html", b"<html", b"<head", b"<body")) or b"<html" in low:
        return "text/html"
    if low.startswith(b"<?xml"):
        return "application/xml"
    if low.startswith((b"{", b"[")):
        return "application/json"
    if b"\x00" in body[:1024] and not body.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "application/x-binary"
    return "text/plain"


def kind_of(content_type: str | None) -> str | None:
    """'html' | 'text' | 'pdf' | 'binary' | None (unknown: sniff the body) from the header alone."""
    mt = media_type(content_type)
    if not mt or mt in ("application/octet-stream", "binary/octet-stream", "application/unknown", "unknown/unknown"):
        return None
    if mt in HTML_TYPES:
        return "html"
    if mt in PDF_TYPES:
        return "pdf"
    if mt.startswith(BINARY_PREFIXES) or mt in BINARY_TYPES or mt.endswith(BINARY_SUFFIXES) or mt.startswith(OPENXML):
        return "binary"
    if mt.startswith(TEXT_TYPES) or mt.endswith(("+json", "+xml")):
        return "text"
    return "binary"


def refuse_early(content_type: str | None, length: float | None, max_bytes: int) -> WorkerError | None:
    """Before reading the body: a WorkerError if the header alone settles it, else None."""
    kind = kind_of(content_type)
    if kind == "binary":
        return unsupported(content_type)
    if kind == "pdf" and length is not None and length > max_bytes:
        return WorkerError(
            "too_large",
            "the PDF is %d bytes; the cap is %d" % (length, max_bytes),
            hint="a PDF cannot be read in part; download it another way",
        )
    return None


def unsupported(content_type: str | None) -> WorkerError:
    return WorkerError(
        "unsupported_content",
        "%s is not text the worker can read" % (media_type(content_type) or "binary content"),
        hint="fetch HTML, text, JSON, XML or PDF URLs; images and other binaries are not converted",
    )


def decode(body: bytes, content_type: str | None, kind: str | None) -> tuple[str, str, str]:
    """Text from bytes: BOM, then the header charset, then <meta>/XML declaration, then detection.

    Returns (text, codec_name, source) with source one of bom/header/meta/utf-8/detected/fallback.
    """
    codec: str | None
    for bom, codec in _BOMS:
        if body.startswith(bom):
            return body.decode(codec, errors="replace"), codec.replace("-sig", ""), "bom"
    codec = codec_for(header_charset(content_type))
    if codec:
        return body.decode(codec, errors="replace"), codec, "header"
    if kind in ("html", "text"):
        head = body[:4096]
        m = _META_RE.search(head) if kind == "html" else None
        m = m or _XML_DECL_RE.search(head)
        codec = codec_for(m.group(1).decode("ascii", "replace")) if m else None
        if codec in ("utf-16", "utf-16-le", "utf-16-be"):  # an ASCII-compatible page cannot be UTF-16
            codec = "utf-8"
        if codec:
            return body.decode(codec, errors="replace"), codec, "meta"
    try:
        return body.decode("utf-8"), "utf-8", "utf-8"
    except UnicodeDecodeError as exc:
        if exc.start >= len(body) - 4:  # a body cut at the cap mid-character is still UTF-8
            try:
                return body[: exc.start].decode("utf-8"), "utf-8", "utf-8"
            except UnicodeDecodeError:
                pass
    detected = _detect(body)
    if detected:
        return body.decode(detected, errors="replace"), detected, "detected"
    return body.decode("cp1252", errors="replace"), "cp1252", "fallback"


def _detect(body: bytes) -> str | None:
    try:
        from charset_normalizer import from_bytes
    except ImportError:
        return None
    matches = list(from_bytes(body[:200000]))
    if not matches:
        return None
    best = codec_for(min(matches, key=lambda m: (m.chaos, -m.coherence)).encoding)
    if best is None:  # a name codec_for refuses (none seen in practice): decode's fallback, not a crash
        return None
    # Detection cannot tell the Latin single-byte code pages apart on short
    # text (it picks cp775 or cp1250 for French).  Browsers settle undeclared
    # Latin pages on windows-1252, the web's legacy default, and so do we;
    # non-Latin single-byte scripts and the multi-byte codecs are kept.
    if (
        best in _LATIN_SINGLE_BYTE
        or best.startswith(("iso8859_", "mac_", "cp8"))
        and best not in _NON_LATIN_SINGLE_BYTE
    ):
        return "cp1252"
    return best


_LATIN_SINGLE_BYTE = frozenset(
    {
        "cp1250",
        "cp1252",
        "cp1254",
        "cp1257",
        "cp1258",
        "latin_1",
        "cp437",
        "cp850",
        "cp775",
        "iso8859_2",
        "iso8859_3",
        "iso8859_4",
        "iso8859_9",
        "iso8859_10",
        "iso8859_13",
        "iso8859_14",
        "iso8859_15",
        "iso8859_16",
        "mac_roman",
        "mac_latin2",
        "hp_roman8",
    }
)
_NON_LATIN_SINGLE_BYTE = frozenset(
    {
        "iso8859_5",
        "iso8859_6",
        "iso8859_7",
        "iso8859_8",
        "iso8859_11",
        "mac_cyrillic",
        "mac_greek",
        "cp855",
        "cp866",
        "cp869",
        "cp862",
        "cp864",
        "cp857",
    }
)


def pdf_text(body: bytes) -> tuple[str, dict[str, Any]]:
    """(text, metadata dict) from PDF bytes."""
    import io

    try:
        from pypdf import PdfReader
    except ImportError:
        raise WorkerError(
            "unsupported_content",
            "PDF support is not installed (pypdf)",
            hint="reinstall the worker's environment: bootstrap/run.py --reinstall",
        ) from None
    try:
        reader = PdfReader(io.BytesIO(body))
        if reader.is_encrypted:
            try:
                reader.decrypt("")
            except Exception:
                raise WorkerError("unsupported_content", "the PDF is encrypted") from None
        pages = []
        for page in reader.pages:
            pages.append((page.extract_text() or "").strip())
        meta: dict[str, Any] = {}
        info: dict[Any, Any] = reader.metadata or {}
        for key, field in (("/Title", "title"), ("/Author", "author")):
            value = info.get(key)
            if value and str(value).strip():
                meta[field] = str(value).strip()
        meta["pages"] = len(pages)
    except WorkerError:
        raise
    except Exception as exc:
        raise WorkerError(
            "unsupported_content",
            "the PDF could not be read: %s: %s" % (type(exc).__name__, " ".join(str(exc).split())[:200]),
        ) from None
    text = "\n\n".join(p for p in pages if p)
    return text, meta


def text_title(text: str, kind: str | None) -> str | None:
    """A title for plain text / markdown: its first markdown heading, if any."""
    for line in text.splitlines()[:50]:
        s = line.strip()
        if s.startswith("# "):
            return s[2:].strip() or None
    return None
