"""The frames between the worker and its page-reading child: a job (URL, page, spec) out, an item back;
or, for a map's reader (worker.site.readers), a page out and its record back (``record_job``).

A frame is 8 bytes of big-endian length, then the payload. A job's payload is its
fields as JSON (after 4 bytes of their length) followed by the page's body as it
came; an item's is the item as JSON. JSON, not pickle: both ends already load it,
and nothing read from a frame can run code.
"""

from __future__ import annotations

import json
import struct

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from ..net.client import Response
    from ..spec import Spec

HEADER = struct.Struct(">Q")
_FIELDS = struct.Struct(">I")


# What only the download asks (robots.txt is checked before a page is fetched, a crawl's map's
# pages are downloads): not the reading's, and no JSON value.
DOWNLOAD_ONLY = ("robots", "prefetched")


def job(url: str, resp: Response, spec: Spec) -> bytes:
    fields = dict(vars(resp))
    body = fields.pop("body")
    reading = {k: v for k, v in vars(spec).items() if k not in DOWNLOAD_ONLY}
    head = json.dumps({"url": url, "resp": fields, "spec": reading}).encode("ascii")
    return b"".join((HEADER.pack(_FIELDS.size + len(head) + len(body)), _FIELDS.pack(len(head)), head, body))


def record_job(resp: Response) -> bytes:
    """A map's page: the child answers its record (worker.site.record), not an item."""
    fields = dict(vars(resp))
    body = fields.pop("body")
    head = json.dumps({"url": resp.final_url, "resp": fields, "spec": None}).encode("ascii")
    return b"".join((HEADER.pack(_FIELDS.size + len(head) + len(body)), _FIELDS.pack(len(head)), head, body))


def read_job(payload: bytes) -> tuple[str, Response, Spec | None]:
    """(url, response, spec) of a job; spec None for a map's page (record_job)."""
    from ..net.client import Response
    from ..spec import Spec

    n = _FIELDS.unpack_from(payload)[0]
    fields = json.loads(payload[_FIELDS.size : _FIELDS.size + n])
    resp = Response.__new__(Response)
    resp.__dict__.update(fields["resp"])
    resp.body = payload[_FIELDS.size + n :]
    if fields["spec"] is None:
        return fields["url"], resp, None
    spec = Spec.__new__(Spec)
    spec.__dict__.update(dict.fromkeys(DOWNLOAD_ONLY), **fields["spec"])
    return fields["url"], resp, spec


def item(it: dict[str, Any]) -> bytes:
    data = json.dumps(it).encode("ascii")
    return HEADER.pack(len(data)) + data


def read_item(payload: bytes) -> dict[str, Any]:
    return json.loads(payload)
