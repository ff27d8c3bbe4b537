"""Small pages, read in the worker's own process: no reading child to start (issue 45).

The reading child (spawn.py) exists because a page's reading can hold native code for
minutes or take gigabytes, and only a process can be stopped. That child costs a second
interpreter and a second set of imports (about 45 ms of a 170 ms fetch, idle), and most pages
an agent reads one at a time are far from those limits. A page is read here, without the
child, only when all of these hold:

- it is one URL's fetch (``pipeline.fetch_one``): a batch keeps every page in the child,
  where one page stopped at its share leaves the others' items in the block;
- it is HTML (not a PDF: a few KB of PDF can hold a compressed stream of any size);
- its body, as downloaded and decoded, is at most ``MAX_BYTES`` (64 KiB), and it holds at most
  ``MAX_MARKUP`` (1,500) ``<`` characters: every element, end tag and comment starts with one,
  and the extraction's cost grows with the elements, faster than linearly (8,000 ``<p>`` in
  32 KB take 0.9 s; the worst we found at this bound, 1,500 bare ``<p>``, 0.25 s at load 9:
  docs/limits.md);
- at least ``MIN_LEFT_S`` (2 s) are left before the page's deadline.

Why the deadline still holds for such a page: by the bound above its reading takes a few
hundred milliseconds at most on this machine, several times less than the time it must have
left; and whatever happens, the call's main thread keeps its own watch on ``--timeout``
(worker/runtime.py: it writes the block at the deadline and exits, the reading thread with it;
lxml parses with the GIL released). Memory: 64 KiB of markup cannot build a tree anywhere near
the 280 MB the child is allowed (the catalogue's worst at this bound adds under 40 MB).

``WEBSEARCH_WORKER_READ_CHILD=always`` sends every page to the child as before (measuring,
debugging).
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any

    from ..net.client import Response
    from ..read.doc import Doc
    from ..spec import Spec

MAX_BYTES = 64 << 10
MAX_MARKUP = 1500
MIN_LEFT_S = 2.0
ENV = "WEBSEARCH_WORKER_READ_CHILD"


def enabled() -> bool:
    """Whether small pages may be read here (not with ``WEBSEARCH_WORKER_READ_CHILD=always``)."""
    return os.environ.get(ENV, "").strip().lower() != "always"


def may_need_child(content_type: str, length: float | None) -> bool:
    """From a response's head: whether its page may need the child (start it now, so its start
    overlaps the body's download): markup or a PDF over the bound or of unknown length, or an
    unknown type (sniffed from the body later)."""
    from ..read import content

    kind = content.kind_of(content_type)
    if kind == "pdf":
        return True
    if kind not in ("html", None):
        return False  # text: read here unless large (pipeline._heavy), binary: refused
    return length is None or length > MAX_BYTES


def readable_here(resp: Response | Doc, deadline: float | None) -> bool:
    """Whether ``resp`` (a page the pipeline would give the child) is small enough to read here."""
    body = getattr(resp, "body", None)
    if not enabled() or not isinstance(body, bytes) or len(body) > MAX_BYTES:
        return False
    if deadline is not None and deadline - time.monotonic() < MIN_LEFT_S:
        return False
    from ..read import content

    kind = content.kind_of(resp.content_type) or content.kind_of(content.sniff(body))
    return kind == "html" and body.count(b"<") <= MAX_MARKUP


def import_ahead() -> None:
    """Extraction's imports on a thread while the page downloads (worker/pages/extract/ahead.py),
    the download's own imported first: none of theirs may run beside the thread's."""
    import copy  # noqa: F401  (the download's lazy imports, made now)

    from ..checks import walls  # noqa: F401
    from ..extract import ahead
    from ..fetch import get, negotiate, robots_rules  # noqa: F401
    from ..net import client, guard  # noqa: F401
    from ..read import content  # noqa: F401

    ahead.start()


def read(url: str, resp: Response | Doc, spec: Spec, deadline: float | None = None) -> dict[str, Any]:
    """The page's item, read here; an unexpected error is this page's item, as a crash of the
    child would be."""
    from ..extract import ahead
    from ..read.item import error_item, item_of

    late = ahead.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
    try:
        item = item_of(url, resp, spec)
    except Exception as exc:
        item = error_item(url, exc)
    if late:
        item.setdefault("warnings", []).append(late)
    return item
