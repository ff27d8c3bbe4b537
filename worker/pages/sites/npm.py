"""npm package pages through the registry's JSON document (GET <apiBase>/NAME).

The registry's host is not written in this repository: without
"sites": {"npm": {"apiBase": ...}} the page is read as HTML, with a warning saying so.
"""

from __future__ import annotations

from urllib.parse import quote

from ... import checked
from . import Doc, Fallback
from .pieces import heading

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any
    from urllib.parse import SplitResult

    from . import Context

NAME = "npm"


_s = checked.text


def _url(value: Any) -> str:
    if isinstance(value, dict):
        value = value.get("url")
    value = _s(value)
    return value[4:] if value.startswith("git+") else value


def package_text(doc: dict[str, Any], md: bool) -> tuple[str, str, str | None]:
    latest = _s(checked.obj(doc.get("dist-tags")).get("latest"))
    version = checked.obj(checked.obj(doc.get("versions")).get(latest))
    released = _s(checked.obj(doc.get("time")).get(latest)) or None
    lines = [heading(1, "%s %s" % (_s(doc.get("name")), latest), md), ""]
    if _s(doc.get("description")):
        lines += [_s(doc["description"]), ""]
    lic = version.get("license") or doc.get("license")
    lic = _s(lic.get("type")) if isinstance(lic, dict) else _s(lic)
    lines += [
        ("- " if md else "") + f
        for f in ("Latest version: %s" % latest, "Released: %s" % (released or "?"), "License: %s" % (lic or "?"))
    ]
    links = [
        ("Homepage", _s(doc.get("homepage"))),
        ("Repository", _url(doc.get("repository"))),
        ("Issues", _url(doc.get("bugs"))),
    ]
    links = [(k, v) for k, v in links if v]
    if links:
        lines += ["", heading(2, "Links", md), ""] + ["%s%s: %s" % ("- " if md else "", k, v) for k, v in links]
    for key, label in (("dependencies", "Dependencies"), ("peerDependencies", "Peer dependencies")):
        deps = checked.obj(version.get(key))
        if deps or key == "dependencies":
            lines += ["", heading(2, label, md), ""] + (
                ["%s%s %s" % ("- " if md else "", k, _s(v)) for k, v in deps.items()] or ["(none)"]
            )
    if _s(doc.get("readme")).strip():
        lines += ["", heading(2, "README", md), "", _s(doc["readme"]).strip()]
    return "\n".join(lines).strip() + "\n", latest, released


def read(ctx: Context, url: str, parts: SplitResult) -> Doc:
    segs = [s for s in parts.path.split("/") if s]
    if len(segs) < 2 or segs[0] != "package":
        raise Fallback("npm: %s is not a package page" % url)
    name = "/".join(segs[1:3]) if segs[1].startswith("@") and len(segs) > 2 else segs[1]
    base = ctx.base("apiBase")
    if not base:
        raise Fallback(
            'npm: no registry configured (set "sites": {"npm": {"apiBase": "<registry URL>"}} '
            "in the config to read packages through the registry)"
        )
    ctx.meta["api"] = base
    resp, doc = ctx.json("%s/%s" % (base, quote(name, safe="@")), "package %s" % name)
    if resp.status >= 400:
        raise Fallback("npm: the registry answered HTTP %d for %s" % (resp.status, name))
    if not isinstance(doc, dict) or not isinstance(doc.get("dist-tags"), dict):
        raise Fallback("npm: the registry's answer for %s has a shape this adapter does not know" % name)
    text, latest, released = package_text(doc, ctx.md)
    ctx.meta.update(kind="package", version=latest, released=released)
    return Doc(
        url,
        text,
        fmt=ctx.fmt,
        title=_s(doc.get("name")),
        description=_s(doc.get("description")) or None,
        published=released,
    )
