"""Extraction's imports made on a thread of their own while the page downloads (issue 45).

A small page is read in the worker's own process (worker/pages/child/small.py), and its first
reading pays for lxml, trafilatura and our extractor: about 70 ms of imports, on a 2-core
machine, after the download. The download is mostly waiting (DNS, the TLS handshake, the
server's answer), so a fetch that may read here starts ``prepare()`` on a thread as its
download begins, and the reading waits for that thread before it starts: the imports cost what
the download does not hide. core.prepare() asks that no other thread import while trafilatura's
stand-ins are in sys.modules: the download's own modules are imported before the thread starts,
and its later imports are none of the stood-in ones (tests/pages/test_ahead.py).

Off with ``WEBSEARCH_WORKER_PLAIN=import_ahead`` (worker/startup.py). A failure on the thread
is not the page's: the reading imports again on its own thread (where a real failure is the
page's error) and the item says so in a warning naming this stage.
"""

from __future__ import annotations

import sys
import threading

from ...startup import on
from .imports import AHEAD

_state: dict[str, object] = {}


def start() -> bool:
    """Start the imports on a daemon thread, unless done, started, or turned off."""
    if "thread" in AHEAD or not on("import_ahead") or "trafilatura.core" in sys.modules:
        return False
    thread = AHEAD["thread"] = threading.Thread(target=_run, name="import-ahead", daemon=True)
    thread.start()
    return True


def _run() -> None:
    try:
        from .core import prepare

        prepare()
    except BaseException as exc:  # the reading imports again and says so: not this thread's to report
        _state["error"] = exc


def wait(timeout: float | None) -> str | None:
    """Wait up to ``timeout`` seconds for the imports; a warning when they failed or are not done."""
    thread = AHEAD.get("thread")
    if thread is None:
        return None
    thread.join(timeout)
    if thread.is_alive():
        return "import_ahead: extraction's imports still running after %.1f s; the reading goes on" % (timeout or 0)
    exc = _state.get("error")
    if exc is not None:
        return "import_ahead: extraction's imports failed on their thread (%s: %s); imported again to read" % (
            type(exc).__name__,
            " ".join(str(exc).split())[:160],
        )
    return None
