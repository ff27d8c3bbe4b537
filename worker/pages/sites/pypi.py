"""PyPI project pages through the index's JSON API (/pypi/NAME[/VERSION]/json).

The site's host is a package registry's, which this repository does not name:
"sites": {"pypi": {"hosts": [...]}} says which hosts' /project/ pages are read,
and the API is asked on the page's own host unless "apiBase" names another.
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

NAME = "pypi"


_s = checked.text


def package_text(info: dict[str, Any], released: str | None, md: bool) -> str:
    lines = [heading(1, "%s %s" % (_s(info.get("name")), _s(info.get("version"))), md), ""]
    if _s(info.get("summary")):
        lines += [_s(info["summary"]), ""]
    lic = _s(info.get("license_expression")) or _s(info.get("license"))
    facts = [
        "Latest version: %s" % _s(info.get("version")),
        "Released: %s" % (released or "?"),
        "License: %s" % (lic.splitlines()[0][:200] if lic else "?"),
        "Requires Python: %s" % (_s(info.get("requires_python")) or "any"),
    ]
    lines += [("- " if md else "") + f for f in facts]
    urls = checked.obj(info.get("project_urls"))
    if _s(info.get("home_page")) and "Homepage" not in urls:
        urls = dict(urls, Homepage=info["home_page"])
    if urls:
        lines += ["", heading(2, "Links", md), ""] + [
            "%s%s: %s" % ("- " if md else "", k, _s(v)) for k, v in urls.items()
        ]
    reqs = checked.texts(info.get("requires_dist"))
    lines += ["", heading(2, "Requirements", md), ""] + (["%s%s" % ("- " if md else "", r) for r in reqs] or ["(none)"])
    desc = _s(info.get("description")).strip()
    if desc:
        lines += ["", heading(2, "Description", md), "", desc]
    return "\n".join(lines).strip() + "\n"


def read(ctx: Context, url: str, parts: SplitResult) -> Doc:
    segs = [s for s in parts.path.split("/") if s]
    if len(segs) < 2 or segs[0] != "project":
        raise Fallback("pypi: %s is not a project page" % url)
    name, version = segs[1], (segs[2] if len(segs) > 2 else None)
    base = ctx.base("apiBase", "%s://%s" % (parts.scheme, parts.netloc))
    ctx.meta["api"] = base
    path = "/pypi/%s%s/json" % (quote(name, safe=""), "/" + quote(version, safe="") if version else "")
    resp, data = ctx.json(base + path, "project %s" % name)
    if resp.status >= 400:
        raise Fallback("pypi: the API answered HTTP %d for project %s" % (resp.status, name))
    if not isinstance(data, dict) or not isinstance(data.get("info"), dict):
        raise Fallback("pypi: the API's answer for %s has a shape this adapter does not know" % name)
    info = data["info"]
    files = checked.objs(data.get("urls"))
    released = min(
        (_s(f.get("upload_time_iso_8601")) for f in files if _s(f.get("upload_time_iso_8601"))), default=None
    )
    ctx.meta.update(
        kind="package",
        version=_s(info.get("version")),
        released=released,
        requirements=len(checked.texts(info.get("requires_dist"))),
    )
    return Doc(
        url,
        package_text(info, released, ctx.md),
        fmt=ctx.fmt,
        title=_s(info.get("name")),
        description=_s(info.get("summary")) or None,
        published=released,
        author=_s(info.get("author")) or None,
    )
