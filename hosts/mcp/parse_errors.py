"""A line from the client that is not a JSON-RPC message gets an error response, as JSON-RPC 2.0 requires.

The SDK's stdio transport hands such a line to the server as an exception, which the
server drops: a client that sent malformed JSON would wait forever.  ``Answering``
wraps the transport's read stream, answers each of those with -32700 (not JSON) or
-32600 (JSON, but no JSON-RPC message), ``id`` null, and passes every real message on.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any


def error_code(exc: Exception) -> tuple[int, str] | None:
    """(JSON-RPC code, message) for a line the transport could not read as a message; None for a blank line."""
    errors = getattr(exc, "errors", None)
    details = errors() if callable(errors) else []
    kinds = {e.get("type") for e in details}
    if kinds == {"json_invalid"} and all(isinstance(e.get("input"), str) and not e["input"].strip() for e in details):
        return None  # a stray newline between messages: nothing was asked
    if "json_invalid" in kinds:
        return -32700, "Parse error: the line is not JSON"
    return -32600, "Invalid Request: the line is JSON but not a JSON-RPC 2.0 message"


class Answering:
    """The read stream the server sees: the transport's, minus the lines that are not messages."""

    def __init__(self, inner: Any, write: Any) -> None:
        self._inner = inner
        self._write = write

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        import mcp_types as types
        from mcp.shared.message import SessionMessage

        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            answer = error_code(item)
            if answer is None:
                continue
            code, message = answer
            error = types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(code=code, message=message))
            await self._write.send(SessionMessage(error))

    async def aclose(self) -> None:
        await self._inner.aclose()

    def close(self) -> None:
        self._inner.close()

    def __aiter__(self) -> Answering:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Answering:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
