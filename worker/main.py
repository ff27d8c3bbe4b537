"""Entry point: argv in, one protocol block out, a documented exit code.

This is the one place where exceptions become protocol errors.
"""

from __future__ import annotations

import os
import sys

from . import protocol
from .errors import WorkerError
from .runtime import Call

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Sequence
    from typing import Any

    from .request import FetchRequest, MapRequest, SearchRequest


def _error_block(exc: BaseException) -> str:
    if isinstance(exc, WorkerError):
        try:
            return protocol.render_error(exc.code, exc.message, exc.hint, exc.retryable, **exc.extra)
        except (TypeError, ValueError, RecursionError) as bad:  # an extra field the encoder refuses: keep the code
            return protocol.render_error(
                exc.code, exc.message, exc.hint, exc.retryable, detail="error fields dropped: %s" % _one_line(bad)
            )
    # Anything unexpected: a clear line, the detail on stderr, never a traceback on stdout.
    return protocol.render_error(
        "internal",
        "internal error: %s: %s" % (type(exc).__name__, _one_line(str(exc))),
        hint="this is a bug in websearch-worker; run again with WEBSEARCH_WORKER_DEBUG=1 for a traceback",
    )


def _debug_traceback(exc: BaseException) -> None:
    """WEBSEARCH_WORKER_DEBUG=1: the traceback on stderr, with API keys scrubbed from it."""
    if not os.environ.get("WEBSEARCH_WORKER_DEBUG"):
        return
    import traceback

    from . import redact

    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    try:
        sys.stderr.write(redact.scrub(text))
        sys.stderr.flush()
    except Exception:
        pass


def _one_line(text: object, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _exit_code(exc: BaseException) -> int:
    if isinstance(exc, WorkerError) and exc.code == "usage":
        return protocol.EXIT_USAGE
    return protocol.EXIT_ERROR


def _human_error(exc: BaseException) -> str:
    if isinstance(exc, WorkerError):
        lines = ["error (%s): %s" % (exc.code, exc.message)]
        if exc.hint:
            lines.append("hint: %s" % exc.hint)
    else:
        lines = ["internal error: %s: %s" % (type(exc).__name__, _one_line(str(exc)))]
    return "\n".join(lines) + "\n"


def dispatch(request: SearchRequest | FetchRequest | MapRequest, call: Call) -> dict[str, Any]:
    """Run the requested tool; returns the OK payload dict."""
    from .request import MapRequest, SearchRequest  # loaded already: cli.request_of built the request

    if isinstance(request, SearchRequest):
        if request.merged():  # several queries or sources: one list from many (worker/tools/multisearch.py)
            from .tools.multisearch import run_multi

            return run_multi(request, call)
        from .tools.search import run_search

        return run_search(request, call)
    if isinstance(request, MapRequest):
        from .tools.map import run_map

        return run_map(request, call)
    if request.crawl:
        from .tools.crawl import run_crawl

        return run_crawl(request, call)
    from .tools.fetch import run_fetch

    return run_fetch(request, call)


def answer(request: SearchRequest | FetchRequest | MapRequest, call: Call, human: bool) -> str:
    """What a successful call writes, rendered on the work thread: an answer the
    encoder refuses is that thread's error (a SEARCH_ERROR block), not a lost block."""
    payload = dispatch(request, call)
    if human:
        return payload.get("text") or ""
    return protocol.render_ok(payload)


def main(
    argv: list[str] | None = None,
    prog: str = "websearch-worker",
    early: Sequence[int] = (),
    started: float | None = None,
) -> None:
    """One call. ``started``: when the call began (time.monotonic()), for a process prepared before
    its call (worker/prepared.py); by default the process's own start."""
    argv = sys.argv[1:] if argv is None else argv
    call = Call()
    if started is None:
        call.count_from_process_start()
    else:
        call.started = started
    call.install_signal_handlers(early)
    if argv == ["--version"]:  # hosts probe with this: answer before argparse and json load
        from . import __version__

        os.write(1, ("websearch-worker %s\n" % __version__).encode())
        sys.exit(0)
    from . import redact

    redact.register_env(os.environ, ("EXA_API_KEY", "BRAVE_API_KEY", "GITHUB_TOKEN", "GH_TOKEN", "STACKEXCHANGE_KEY"))
    human = False
    try:
        from . import __version__
        from .cli import parse_args, request_of

        try:
            args = parse_args(argv, prog=prog)
        finally:
            call.claim_stdout()  # after parsing, so --help still reaches the real stdout
        if args.version:
            call.emit("websearch-worker %s\n" % __version__)
            call.finish(protocol.EXIT_OK)
        human = args.output == "text"
        call.deadline = call.started + args.timeout
        call.keep_temp = args.keep_temp
        call.make_tempdir()
        request = request_of(args)  # the last this process sees of the command line
        _regex_cache(args)
    except SystemExit as exc:  # --help
        call.finish(exc.code if isinstance(exc.code, int) else 0)
    except BaseException as exc:
        _debug_traceback(exc)
        call.emit(_human_error(exc) if human else _error_block(exc), human=human)
        call.finish(_exit_code(exc))

    status, value = call.run(lambda: answer(request, call, human))
    if status == "timeout":
        value = WorkerError(
            "timeout",
            "the call did not finish within --timeout %gs" % request.timeout,
            hint="raise --timeout, or ask for fewer results or URLs",
        )
        status = "error"
    if status == "ok":
        call.emit(value, human=human)
        _save_patterns()
        call.finish(protocol.EXIT_OK)
    _debug_traceback(value)
    call.emit(_human_error(value) if human else _error_block(value), human=human)
    _save_patterns()
    call.finish(_exit_code(value))


def _regex_cache(args: Any) -> None:
    """Compiled patterns from the last calls (worker/regex_cache.py), in the cache directory."""
    from . import regex_cache
    from .state.cache import default_dir

    explicit = getattr(args, "cache_dir", None)
    regex_cache.install(os.path.abspath(os.path.expanduser(explicit)) if explicit else default_dir())


def _save_patterns() -> None:
    """After the answer: the patterns this call compiled that the file did not hold."""
    regex_cache = sys.modules.get("worker.regex_cache")
    if regex_cache is not None:
        regex_cache.save()
