"""MCP host: web_search and web_fetch for every MCP client, over stdio.

    python3 bootstrap/run.py mcp [--allow-private] [--config PATH] [--venv DIR]

A host like hosts/pi, in Python: it never searches or fetches itself.  Every tool
call runs the worker as its own subprocess through worker.host_client, so each call
keeps the worker's isolation, temp directory, cache, rate limits and safety
rules, and a cancelled call is a SIGTERM to that one process.  The tools'
schemas and the argv they become come from worker.tool_schemas, which reads the CLI's
own option declarations.

Lifecycle: stdin closed -> every call in flight is cancelled (SIGTERM to its
worker, waited for) and the server exits 0; SIGTERM, SIGINT or SIGHUP -> the
same, exit 130.  Only this entry point imports the MCP SDK: worker/__main__.py
hands ``mcp`` over before loading anything of the worker's own.
"""

from __future__ import annotations

import os
import sys
import threading
import time

from hosts.mcp import parse_errors, terms, tools
from hosts.mcp.prepared import Prepared
from hosts.mcp.settings import HelpShown, Settings, UsageError, usage
from worker import host_client, protocol, tool_schemas
from worker.errors import WorkerError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

    from worker.host_client import Handle, Result

ROOT = host_client.ROOT
INSTALL_LIMIT_S = 20 * 60.0
# At most this many worker processes at once; further calls wait (and can be cancelled while waiting).
# A worker counts until the last process of its group is gone: its reading child, killed as the
# worker ends, can outlive it by a moment, and a cancelled call's slot, freed at its worker's exit,
# let a 17th worker start beside that child (issue 44; tests/test_hostile.py, test_mcp_workers.py).
MAX_WORKERS = 16
GRACE_S = 5.0
PROGRESS_INTERVAL_ENV = "WEBSEARCH_MCP_PROGRESS_INTERVAL"
PREPARE_AFTER_S = 0.1  # after a call, when the next prepared worker starts (hosts/mcp/prepared.py)


def _bootstrap_module() -> ModuleType:
    """bootstrap/run.py as a module: its own stamp check says whether a venv is ready."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("websearch_bootstrap", os.path.join(ROOT, "bootstrap", "run.py"))
    assert spec is not None and spec.loader is not None  # a .py path always has a spec and a loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Workers:
    """How calls reach the worker, and the processes in flight."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.live: set[Handle] = set()
        self.lock = threading.Lock()
        self._ready = settings.venv is None  # no --venv: this interpreter's venv, ready by construction
        self.prepared = Prepared()

    def interpreter(self) -> tuple[str | None, str | None]:
        """(python, why): a ready interpreter to run directly, else (None, why the bootstrap must install)."""
        if self.settings.venv is None:
            return sys.executable, None
        venv = self.settings.venv
        python = os.path.join(venv, "bin", "python")
        if self._ready:
            return python, None
        boot = _bootstrap_module()
        problem = boot.stamp_problem(venv, boot.read_inputs())
        if problem is None:
            self._ready = True
            return python, None
        return None, problem

    def spawn(self, argv: list[str], python: str | None) -> tuple[Handle, str | None]:
        """The call's worker: the prepared one when it can take the call (hosts/mcp/prepared.py),
        else a fresh process; and a warning when a prepared worker had failed."""
        handle, warning = self.prepared.take(argv, python)
        if handle is None:
            handle = host_client.spawn(argv, python=python, venv=self.settings.venv, own_group=True)
        with self.lock:
            self.live.add(handle)
        return handle, warning

    def prepare_next(self) -> None:
        """A prepared worker for the next call, once the venv is ready (hosts/mcp/prepared.py)."""
        self.prepared.prepare(self.interpreter()[0])

    def done(self, handle: Handle, installed: bool) -> None:
        with self.lock:
            self.live.discard(handle)
        if installed:
            self._ready = False  # checked again next call: the stamp says whether the install finished


RESTART_HINT = "the server's log has the worker's last lines; if its venv is broken, delete the venv: the next call installs it again"


def _log(message: str) -> None:
    """One line on stderr, which MCP clients keep as the server's log (never arguments or keys)."""
    try:
        sys.stderr.write("websearch-worker mcp: %s\n" % message)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _error_payload(code: str, message: str, hint: str | None = None) -> dict[str, Any]:
    """The SEARCH_ERROR payload a worker would print: the code from worker/errors.py's one list."""
    return {"ok": False, "v": protocol.VERSION, "error": WorkerError(code, message, hint=hint).to_dict()}


def _progress_message(tool: str, arguments: dict[str, Any], installing: tuple[str, str] | None) -> str:
    if installing:
        return "installing the worker's dependencies into %s (%s); the first call takes up to a minute" % installing
    if tool == tool_schemas.FETCH and arguments.get("map"):
        return "web_fetch: mapping the section's pages"
    if tool == tool_schemas.FETCH and arguments.get("crawl"):
        return "web_fetch: mapping the section, then reading up to %d of its pages" % arguments["crawl"]
    if tool == tool_schemas.FETCH:
        n = len(arguments.get("urls") or [])
        return "web_fetch: reading %d page%s" % (n, "" if n == 1 else "s")
    return "web_search: searching"


class Host:
    def __init__(self, settings: Settings) -> None:
        import anyio

        self.settings = settings
        self.workers = Workers(settings)
        self.slots = anyio.CapacityLimiter(MAX_WORKERS)
        self.threads = anyio.CapacityLimiter(MAX_WORKERS)
        self.interval = self._interval()
        self.reach = tools.reach(settings.config)
        self._validators: dict[str, Any] = {}

    @staticmethod
    def _interval() -> float:
        raw = os.environ.get(PROGRESS_INTERVAL_ENV)
        try:
            value = float(raw) if raw else 2.0
        except ValueError:
            value = 2.0
        return value if 0.05 <= value <= 3600 else 2.0

    # -- tools ------------------------------------------------------------
    def tool_list(self) -> list[Any]:
        import mcp_types as types

        return [types.Tool.model_validate(tool) for tool in tools.tool_list(self.reach)]

    def invalid(self, tool: str, arguments: Any) -> str | None:
        """The first way ``arguments`` break the tool's input schema, as one line, or None."""
        from jsonschema import Draft202012Validator
        from jsonschema.exceptions import best_match

        validator = self._validators.get(tool)
        if validator is None:
            validator = self._validators[tool] = Draft202012Validator(tools.input_schema(tool, self.reach))
        error = best_match(validator.iter_errors(arguments))
        if error is None:
            return None
        where = ".".join(str(p) for p in error.absolute_path) or "arguments"
        return "%s: %s" % (where, " ".join(error.message.split())[:300])

    async def call_tool(self, ctx: Any, params: Any) -> Any:
        from mcp.shared.exceptions import MCPError
        from mcp_types import INVALID_PARAMS

        tool = params.name
        if tool not in tool_schemas.PARAMS:
            raise MCPError(
                code=INVALID_PARAMS, message="unknown tool %r: this server has web_search and web_fetch" % tool[:80]
            )
        arguments = tool_schemas.fold_arguments(tool, params.arguments or {})
        problem = self.invalid(tool, arguments) or tools.unsupported(tool, arguments, self.settings.config)
        if problem is None:
            arguments = tool_schemas.with_host_defaults(tool, arguments)
        if problem is None:
            try:
                argv = tool_schemas.argv(
                    tool,
                    arguments,
                    config=self.settings.config,
                    allow_private=self.settings.allow_private,
                    timeout=tools.call_timeout(arguments),
                )
            except tool_schemas.ArgumentError as exc:
                problem = str(exc)
        if problem is not None:
            return self.result(
                tool,
                _error_payload(
                    "usage", "%s: %s" % (tool, problem), "fix the arguments to match the tool's input schema"
                ),
            )
        async with self.slots:
            return self.result(tool, await self.run(ctx, tool, arguments, argv))

    async def run(self, ctx: Any, tool: str, arguments: dict[str, Any], argv: list[str]) -> dict[str, Any]:
        """One worker process for one call: its payload (ok or error); cancellation stops the process."""
        import anyio

        python, why = self.workers.interpreter()
        installing = (self.settings.venv or "", why or "") if python is None else None
        try:
            handle, warning = self.workers.spawn(argv, python)
        except OSError as exc:  # the venv's interpreter vanished, or no processes left: one clear error
            return _error_payload(
                "protocol",
                "%s: could not start the worker: %s" % (tool, exc.strerror or exc),
                RESTART_HINT,
            )
        cancel = threading.Event()
        box: dict[str, Result] = {}

        def collect() -> None:
            limit = tools.call_timeout(arguments) + tools.HANG_MARGIN_S
            box["result"] = handle.wait(
                timeout=limit + INSTALL_LIMIT_S if installing else limit, cancel=cancel, grace=GRACE_S
            )
            handle.end_group(GRACE_S)  # the slot is free once the worker's children are gone too

        started = time.monotonic()
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(
                    self.heartbeat, ctx, _progress_message(tool, arguments, installing), started, bool(installing)
                )
                await anyio.to_thread.run_sync(collect, abandon_on_cancel=True, limiter=self.threads)
                tg.cancel_scope.cancel()
        except anyio.get_cancelled_exc_class():
            cancel.set()
            with anyio.CancelScope(shield=True):
                await self.stop(handle)
            _log("%s cancelled: worker %d exited with %s" % (tool, handle.proc.pid, handle.proc.returncode))
            raise
        finally:
            self.workers.done(handle, bool(installing))
            # the next call's worker, prepared once this call's answer is out: its start and imports
            # never take the CPU this answer needs on its way to the client
            later = threading.Timer(PREPARE_AFTER_S, self.workers.prepare_next)
            later.daemon = True
            later.start()
        payload = self.payload(tool, box["result"], tools.call_timeout(arguments))
        if warning:
            payload.setdefault("warnings", []).append(warning)
        return payload

    async def stop(self, handle: Handle) -> None:
        """SIGTERM the worker and wait until it and its group are gone (it removes its temp dir
        first); kill it after the grace."""
        import anyio

        handle.cancel()
        deadline = time.monotonic() + GRACE_S
        while handle.proc.poll() is None:
            if time.monotonic() > deadline:
                handle.proc.kill()
                deadline = float("inf")
            await anyio.sleep(0.01)
        await anyio.to_thread.run_sync(handle.end_group, GRACE_S)  # and its children

    async def heartbeat(self, ctx: Any, message: str, started: float, installing: bool) -> None:
        """Progress notifications (when the client sent a progressToken) while a call runs long.

        The worker prints nothing until it is done, so this reports elapsed seconds, which
        always increase as the spec requires; an install is announced at once."""
        import anyio

        try:
            if installing:
                await ctx.session.report_progress(0, None, message)
            while True:
                await anyio.sleep(self.interval)
                elapsed = time.monotonic() - started
                await ctx.session.report_progress(round(elapsed, 2), None, "%s (%.0f s)" % (message, elapsed))
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            return  # the client is gone; the call itself decides what happens next

    @staticmethod
    def payload(tool: str, result: Result, timeout: float) -> dict[str, Any]:
        if result.payload is not None and not (result.timed_out or result.cancelled):
            return result.payload
        if result.timed_out:
            return _error_payload(
                "timeout",
                "%s: the worker hung past its %g s timeout and was stopped" % (tool, timeout),
                "ask for fewer results or URLs",
            )
        if result.cancelled:
            return _error_payload("cancelled", "%s was cancelled" % tool)
        tail = " ".join(result.stderr.strip().splitlines()[-3:])[-500:]
        return _error_payload(
            "protocol",
            "%s: the worker exited with code %s without a result (%s)%s"
            % (tool, result.returncode, result.protocol_error, ": " + tail if tail else ""),
            RESTART_HINT,
        )

    @staticmethod
    def result(tool: str, payload: dict[str, Any]) -> Any:
        import mcp_types as types

        payload = terms.payload(payload, tools.words(tool))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=tools.result_text(tool, payload))],
            structured_content=payload,
            is_error=not payload.get("ok"),
        )

    async def stop_all(self) -> None:
        import anyio

        self.workers.prepared.close()
        with self.workers.lock:
            live = list(self.workers.live)
        async with anyio.create_task_group() as tg:
            for handle in live:
                tg.start_soon(self.stop, handle)


async def serve(settings: Settings, early: list[int] | tuple[int, ...]) -> int:
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    from worker import __version__

    host = Host(settings)
    host.workers.prepare_next()  # the first call's worker, ready before it comes

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=host.tool_list())

    async def call_tool(ctx: Any, params: Any) -> Any:
        return await host.call_tool(ctx, params)

    server = Server(
        "websearch-worker",
        version=__version__,
        title="websearch-worker",
        instructions=tools.INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )

    async def on_signals(scope: Any) -> None:
        import signal

        with anyio.open_signal_receiver(*(signal.Signals(s) for s in SIGNALS)) as received:
            _unblock()
            if not early:
                async for _sig in received:
                    break
        # stdin's reader thread cannot be interrupted, so the server does not wait for it:
        # it stops the workers (each removes its temp dir) and leaves.
        with anyio.CancelScope(shield=True):
            await host.stop_all()
        os._exit(130)

    async with anyio.create_task_group() as tg:
        tg.start_soon(on_signals, tg.cancel_scope)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(
                parse_errors.Answering(read_stream, write_stream), write_stream, server.create_initialization_options()
            )
        # stdin closed: the dispatcher has cancelled every call (each handler stopped its worker).
        await host.stop_all()
        tg.cancel_scope.cancel()
    return 0


def _signals() -> tuple[int, int, int]:
    import _signal

    return (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP)


SIGNALS = _signals()


def _unblock() -> None:
    import _signal

    # bootstrap/run.py holds these blocked across exec until a handler is in (see its end).
    _signal.pthread_sigmask(_signal.SIG_UNBLOCK, SIGNALS)


def main(argv: list[str], early: list[int] | tuple[int, ...] = ()) -> int:
    try:
        settings = Settings(argv)
    except HelpShown:
        return 0
    except UsageError as exc:
        sys.stderr.write("websearch-worker mcp: %s\n%s" % (exc, usage()))
        return 2
    try:
        import anyio

        return anyio.run(serve, settings, early)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a broken SDK install or a bug: one line, never a traceback
        if os.environ.get("WEBSEARCH_WORKER_DEBUG"):
            import traceback

            traceback.print_exc()
        sys.stderr.write("websearch-worker mcp: %s: %s\n" % (type(exc).__name__, " ".join(str(exc).split())[:300]))
        return 1
