"""A prepared worker: one call's process, started before its call, imports done, waiting for its
arguments (issue 45).

    python -I -m worker.prepared        then, on stdin, one line: the call's argv as a JSON list

Long-lived hosts (the MCP server, hosts/mcp/prepared.py) keep one ready so a call pays only its
own work, not the interpreter's start and the imports; a fresh one is prepared after each use.
It is still one process per call: the process serves the one call whose argv it reads, exactly
as ``python -I -m worker ARGV`` would (the same main, the same stdout block, exit codes, temp
directory and signals), then exits; nothing of a call is in it before that line arrives.

- ``--timeout`` counts from the moment the argv line is read (a fresh process counts from its
  own start, which here was earlier and belongs to no call);
- a SIGTERM, SIGINT or SIGHUP before the line is recorded (worker/early.py) and answered as the
  call's ``cancelled`` block once the line comes, as a fresh worker answers one that came while
  it started; one while idle with no line on the way ends the process at once (exit 130, no
  block: there is no call to answer);
- end of file on stdin (the host went away or discarded it) ends it quietly (exit 0);
- when one of the worker's own modules it loaded has changed on disk since (the checkout was
  updated while it waited), it runs the call as a fresh worker instead: it execs
  ``python -m worker ARGV`` in the same process (so ``--timeout`` counts from the process's
  start, at most 1 s of it: worker.runtime).

``WEBSEARCH_WORKER_PREPARED_IMPORTS=0`` prepares nothing (the imports are paid in the call, as
in a fresh process): for measuring what the preparation saves.
"""

from __future__ import annotations

import os  # noqa: E402
import sys  # noqa: E402

from .early import received as _early

IMPORTS_ENV = "WEBSEARCH_WORKER_PREPARED_IMPORTS"
MAX_LINE = 4 << 20  # an argv line longer than this is no host's (argv itself is bounded by the OS)


# The page the preparation reads (a rehearsal: extraction imports some of its modules and
# compiles most of its expressions on first use). Built in, never a call's: nothing of it
# reaches a call but warm caches of code, and tests/test_mcp_prepared.py checks that a prepared
# worker's items are a fresh worker's, byte for byte.
REHEARSAL = (
    "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>A rehearsal | Site</title>"
    '<meta name="author" content="A. Writer"><meta property="og:site_name" content="Site">'
    '<meta property="article:published_time" content="2024-01-02T03:04:05Z">'
    '<link rel="canonical" href="https://prepared.invalid/a"></head><body>'
    '<header><nav><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li></ul></nav></header>'
    '<div class="cookie-banner">We use cookies. <button>Accept</button></div>'
    "<main><article><h1>A rehearsal</h1><p class=byline>By A. Writer</p>"
    + "<p>The worker reads this page once before its call comes, so that the call does not pay for"
    " the first use of its code. It has <a href='/x'>a link</a>, <em>emphasis</em> and <code>code</code>.</p>"
    * 4
    + "<h2>A section</h2><ul><li>one item</li><li>another item</li></ul>"
    "<pre><code>print('hello')</code></pre><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>"
    "<blockquote>A quotation.</blockquote></article></main>"
    '<aside class="sidebar"><h3>Most read</h3><ul><li><a href="/a">Other</a></li></ul></aside>'
    "<footer><p>Copyright 2024 Site. All rights reserved.</p></footer></body></html>"
)


# What a fetch imports past the modules above (its download, the cache, the answer); the fetch
# of a small page in a prepared worker then imports nothing (bench/startup/where.py lists it).
CALL_MODULES = (
    "_sqlite3",
    "encodings.idna",
    "fcntl",
    "queue",
    "worker.files",
    "worker.request",
    "worker.providers.local",
    "worker.pages.answer.find",
    "worker.pages.child.small",
    "worker.pages.child.spawn",
    "worker.pages.extract.project",
    "worker.pages.fetch.negotiate",
    "worker.pages.net.freshness",
    "worker.pages.read.doc",
    "worker.pages.render.decide",
    "worker.pages.render.hook",
    "worker.pages.sites",
    "worker.state.ratelimit",
    "worker.state.sqlite_backend",
    "worker.state.sqlite_file",
    # a search through the default provider (ddgs, its engines and primp; the breaker)
    "ddgs.engines",
    "worker.checked",
    "worker.providers.ddgs",
    "worker.state.breaker",
    "worker.tools.canonical",
)


def prepare() -> None:
    """Import what a call would import, before it comes: the command line, the fetch and search
    tools, the download path and the extraction libraries (on this, the only thread); then read
    the built-in rehearsal page, in every format a fetch asks."""
    if os.environ.get(IMPORTS_ENV, "1") == "0":
        return
    from . import regex_cache
    from .state.cache import default_dir

    regex_cache.install(default_dir())  # the call's --cache-dir is not known yet: the default
    from . import main, protocol  # noqa: F401
    from .cli import parse_args
    from .pages import pipeline  # noqa: F401
    from .pages.extract.core import prepare as extraction
    from .pages.net import client
    from .pages.read.item import item_of
    from .pages.spec import Spec
    from .tools import fetch, search  # noqa: F401

    extraction()
    import importlib

    for name in CALL_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:  # renamed or gone: the call imports what it needs itself
            pass
    parse_args(["fetch", "--", "https://prepared.invalid/a"])
    body = REHEARSAL.encode()
    page = client.Response(
        "https://prepared.invalid/a",
        "https://prepared.invalid/a",
        200,
        {"content-type": "text/html; charset=utf-8"},
        body,
        False,
        len(body),
        [],
    )
    for fmt in ("markdown", "text"):
        item_of("https://prepared.invalid/a", page, Spec(fmt=fmt))
    regex_cache.save()
    import gc

    gc.collect()
    gc.freeze()  # what preparation made stays: the call's collections never walk it


def _read_line() -> bytes | None:
    """The argv line from stdin; None at end of file. A signal while nothing is on the way ends
    the process (exit 130): see the module's docstring."""
    import select

    data = b""
    while not data.endswith(b"\n"):
        try:
            ready, _, _ = select.select([0], [], [], 0.1)
        except InterruptedError:
            ready = []
        if not ready:
            if _early and not data:
                os._exit(130)
            continue
        chunk = os.read(0, 65536)
        if not chunk:
            return data or None
        data += chunk
        if len(data) > MAX_LINE:
            return None
    return data


def _argv(line: bytes) -> list[str] | None:
    import json

    try:
        argv = json.loads(line)
    except ValueError:
        return None
    if isinstance(argv, list) and all(isinstance(a, str) for a in argv):
        return argv
    return None


def _sources() -> dict[str, int]:
    """{path: mtime} of the worker's own modules loaded so far."""
    root = os.path.dirname(os.path.abspath(__file__)) + os.sep
    out = {}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path.startswith(root):
            try:
                out[path] = os.stat(path).st_mtime_ns
            except OSError:
                pass
    return out


def _changed(sources: dict[str, int]) -> bool:
    for path, mtime in sources.items():
        try:
            if os.stat(path).st_mtime_ns != mtime:
                return True
        except OSError:
            return True
    return False


def _as_fresh_worker(argv: list[str]) -> None:
    """The worker's code changed while this process waited (an update of the checkout): run the
    call as a fresh worker would, in this same process (its host's handle stays valid), with the
    call's signals held across the exec as bootstrap/run.py holds them (worker.runtime unblocks
    them once its handlers are in)."""
    import signal

    signal.pthread_sigmask(signal.SIG_BLOCK, (signal.SIGTERM, signal.SIGINT, signal.SIGHUP))
    if _early:  # a signal came before the call: the fresh worker answers it as its own
        signal.pthread_sigmask(signal.SIG_UNBLOCK, (signal.SIGTERM, signal.SIGINT, signal.SIGHUP))
        return
    flags = ["-I"] if sys.flags.isolated else []
    os.execv(sys.executable, [sys.executable] + flags + ["-m", "worker"] + argv)


def serve() -> None:
    from .startup import tune_gc

    tune_gc()
    prepare()
    sources = _sources()
    line = _read_line()
    if line is None:
        os._exit(0)  # the host went away or discarded this process: no call came
    import time

    started = time.monotonic()
    # the call's stdin is a fresh worker's: nothing (hosts start workers with /dev/null)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    from .main import main

    argv = _argv(line)
    if argv is None:
        from . import protocol

        os.write(1, protocol.render_error("internal", "the prepared worker got no argv list from its host").encode())
        os._exit(protocol.EXIT_ERROR)
    if _changed(sources):
        _as_fresh_worker(argv)
    main(argv, prog=os.environ.get("WEBSEARCH_WORKER_PROG") or "python -m worker", early=_early, started=started)


if __name__ == "__main__":
    serve()
    sys.exit(0)  # main() always exits; this is for the checker
