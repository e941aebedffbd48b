"""Calling the tools of an ``MCPToolset`` on their MCP server, with the official ``mcp`` client.

A generated MCP executor hands each tool an :meth:`MCPClient.invoke`. The client connects
lazily on the first call, shares one session between the toolset's tools, bounds every call
by a timeout (a ``timeout`` retry hint), reconnects when the connection dropped (a stdio
server that died is started again; see :meth:`MCPClient.call` for when a call is resent), and
turns what the server says into what the runtime
expects: ``isError`` results become error results whose text reaches the model as the server
wrote it; other results are the structured content (or the JSON of the text content), which
the runtime then checks against the tool's result type (``malformed_response`` when the server
breaks its own schema).

A result may carry keys the design does not declare: models generated code-first leave their
objects open, so a server may add a field without breaking its own schema (the MCP client
checks results against that schema first). Those keys are dropped before the design's closed
types check the rest: the design says what the application and the model read.

Nothing the server or the client does makes a call raise: a protocol error the server answers
with, a result the client rejects, and any other failure of the client each become an error
result (see :meth:`MCPClient.invoke`).

Needs the ``mcp`` extra (``pip install 'tooldesign[mcp]'``); it is imported on first use.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from tooldesign.contract import WRAPPED_RESULT_KEY
from tooldesign.contract.content import ContentBlock, WithContent, block_from_mcp
from tooldesign.jsonschema import keywords as K
from tooldesign.runtime import answers
from tooldesign.runtime.registration import Invoke, Outcome
from tooldesign.runtime.request import ToolCallMeta
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.spec.specs import ToolSpec
from tooldesign.runtime.validation.schema import declared_only

if TYPE_CHECKING:
    from mcp import Client
    from mcp.types import CallToolResult, Tool

log = logging.getLogger("tooldesign.runtime.mcp.client")


@dataclass(frozen=True, slots=True)
class MCPServerParams:
    """Where an ``MCPToolset``'s tools live: a stdio ``command`` or a streamable-HTTP ``url``.

    ``env`` and ``cwd`` apply to a stdio server, ``headers`` to an HTTP one; ``timeout`` bounds
    one call (seconds). Generated ``specs.py`` modules declare one as ``MCP_SERVER``.
    """

    command: tuple[str, ...] = ()
    url: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout: float | None = None

    @classmethod
    def of(cls, server: MCPServerParams | str | Sequence[str]) -> MCPServerParams:
        """``server`` as params: a URL or a command line (a string), or a command's arguments."""
        if isinstance(server, MCPServerParams):
            return server
        if isinstance(server, str):
            if server.startswith(("http://", "https://")):
                return cls(url=server)
            return cls(command=tuple(shlex.split(server)))
        return cls(command=tuple(server))

    def describe(self) -> str:
        """For messages and logs (headers, which may hold credentials, are left out)."""
        return self.url if self.url else shlex.join(self.command)


class MCPClient:
    """One MCP server's session, shared by the tools of a toolset.

    ``server`` is where it lives (:class:`MCPServerParams`, a URL, a command line) or, for
    tests, an in-process ``mcp`` server object. ``timeout`` bounds each call (the server's
    own ``timeout`` wins when it sets one); ``connect_timeout`` bounds connecting. A stdio
    server's standard error goes to ``errlog`` (a file with a descriptor; by default this
    process's standard error, where the server's logs belong).
    """

    def __init__(
        self,
        server: MCPServerParams | str | Sequence[str] | Any,
        *,
        timeout: float = 60.0,
        connect_timeout: float = 30.0,
        errlog: TextIO | None = None,
    ) -> None:
        self.server: Any = (
            MCPServerParams.of(server) if isinstance(server, str | list | tuple) else server
        )
        params = self.server if isinstance(self.server, MCPServerParams) else None
        self.timeout = params.timeout if params and params.timeout else timeout
        self.connect_timeout = connect_timeout
        self.errlog = errlog
        self._naive_times: set[tuple[str, str]] = set()  # (tool, where) already reported
        self._connections: dict[asyncio.AbstractEventLoop, _Connection] = {}
        self._locks: dict[asyncio.AbstractEventLoop, asyncio.Lock] = {}

    def describe(self) -> str:
        if isinstance(self.server, MCPServerParams):
            return self.server.describe()
        return type(self.server).__name__

    # ── calls ─────────────────────────────────────────────────────────────────────────────

    async def call(
        self, name: str, arguments: Mapping[str, Any], *, retry_safe: bool = False
    ) -> CallToolResult:
        """Call a tool on the server.

        A connection known to be closed (a stdio server that exited) is opened again first.
        When the connection turns out to be dropped, the call is sent once more on a new one
        if that is safe: the request was never written, or the tool is ``retry_safe`` (the
        design says it is read-only or idempotent). Otherwise the call fails (the tool may
        have acted) and the next call reconnects.

        Raises :class:`MCPUnavailable` when the server cannot be reached, ``TimeoutError``
        when the call takes longer than the timeout, :class:`MCPMalformedResult` when the
        client rejects the result (it breaks the server's own output schema, that schema is
        not valid, or the result breaks the protocol), and the SDK's ``MCPError`` for a
        protocol error the server answered with.
        """
        for attempt in (1, 2):
            connection = await self._connection(fresh=attempt == 2)
            try:
                answer: CallToolResult = await connection.client.call_tool(
                    name, dict(arguments), read_timeout_seconds=self.timeout
                )
                return answer
            except Exception as exc:  # sorted below: unsent, dropped, timed out, or refused
                problem = _rejected_result(exc)
                if problem is not None:
                    raise MCPMalformedResult(problem) from exc
                if _is_timeout(exc):
                    raise TimeoutError(
                        f"the MCP server took longer than {self.timeout:g} s"
                    ) from exc
                if not _is_disconnect(exc):
                    raise
                connection.closed = True  # whatever happens now, the next call reconnects
                if attempt == 1 and (retry_safe or _not_sent(exc)):
                    log.warning("MCP server %s: connection lost; reconnecting", self.describe())
                    continue
                raise MCPUnavailable(self.describe(), exc) from exc
        raise AssertionError("unreachable")

    async def list_tools(self) -> list[Tool]:
        """Every tool the server lists (all pages)."""
        connection = await self._connection()
        result = await connection.client.list_tools()
        tools = list(result.tools)
        cursor = result.next_cursor
        while cursor:
            page = await connection.client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
        return tools

    async def server_info(self) -> tuple[str | None, str | None]:
        """The server's name and its instructions, as it introduced itself (either may be absent)."""
        connection = await self._connection()
        info = connection.client.server_info
        name = getattr(info, "name", None)
        instructions = connection.client.instructions
        return (name if isinstance(name, str) else None), (
            instructions if isinstance(instructions, str) else None
        )

    def invoke(self, name: str, spec: ToolSpec[Any, Any]) -> Invoke:
        """What a generated executor runs for the tool the server calls ``name``.

        Every failure is an error result: ``timeout`` and ``malformed_response`` retry hints
        for a slow server and a result the client rejects, ``tool_unavailable`` when the
        server cannot be reached or does not know the tool, ``invalid_arguments`` when it
        refuses the arguments, the server's own words for its errors, and a generic answer
        (with the failure logged) for anything else that goes wrong in the client.
        """
        from mcp.shared.exceptions import MCPError

        result_schema = spec.result.schema
        unwrap = result_schema.get(K.TYPE) != "object"
        retry_safe = bool(spec.annotations.read_only or spec.annotations.idempotent)

        async def invoke(args: Any, meta: ToolCallMeta) -> Outcome:
            arguments = args.model_dump(mode="json", by_alias=True, exclude_none=True)
            try:
                answer = await self.call(name, arguments, retry_safe=retry_safe)
            except TimeoutError as exc:
                return Outcome(answers.server_timed_out(name, str(exc)))
            except MCPMalformedResult as exc:
                log.error("tool %s: the MCP server broke its own output schema: %s", name, exc)
                return Outcome(answers.malformed_response(name, name, str(exc)))
            except MCPUnavailable as exc:
                log.error("MCP server %s is unavailable: %s", exc.server, exc.cause)
                return Outcome(
                    answers.server_unavailable(name, "its server cannot be reached", exc)
                )
            except MCPError as exc:
                log.error("MCP server %s refused %s: %s", self.describe(), name, exc.message)
                return Outcome(_refused(name, exc))
            except Exception as exc:  # the client's own failure: still an answer
                log.exception("MCP client failed calling %s on %s", name, self.describe())
                return Outcome(answers.client_failed(name, exc))
            if answer.is_error:
                text = _without_error_prefix(_text_of(answer)) or "the tool failed"
                return Outcome(answers.server_failed(name, text))
            value = self._read_result(name, _value_of(answer, unwrap), result_schema)
            if not spec.content:
                return Outcome(value)
            # A tool whose design declares Content: the server's blocks of those kinds come
            # with its data (the text block is the data's own; others are left out, logged).
            return Outcome(WithContent(value, *_blocks(name, answer.content, spec.content)))

        return invoke

    def _read_result(self, name: str, value: Any, schema: Mapping[str, Any]) -> Any:
        """``value`` as the design reads it, in one pass: without the keys its closed objects do
        not declare, and with its date-times and times that lack a UTC offset read as UTC.

        RFC 3339 (and so a design's ``date-time``) needs the offset, but servers written with
        the MCP SDK send Python's naive ``datetime.now()`` without one. Rather than refuse
        every such result, the time is read as UTC (``Z`` appended) and the first time a tool
        does it, a warning says where: the server's operator should send offsets.
        """
        paths: list[str] = []

        def with_offset(text: Any, schemas: Sequence[Mapping[str, Any]], path: str) -> Any:
            if isinstance(text, str):
                for node in schemas:
                    pattern = _NAIVE_TIMES.get(str(node.get(K.FORMAT)))
                    if pattern is not None and pattern.fullmatch(text):
                        paths.append(path or "the result")
                        return f"{text}Z"
            return text

        value = declared_only(value, schema, leaf=with_offset)
        fresh = [p for p in dict.fromkeys(paths) if (name, p) not in self._naive_times]
        if fresh:
            self._naive_times.update((name, p) for p in fresh)
            log.warning(
                "MCP server %s: tool %s sent date-times without a UTC offset (at %s); read "
                "as UTC: RFC 3339 needs an offset",
                self.describe(),
                name,
                ", ".join(fresh),
            )
        return value

    # ── connections ───────────────────────────────────────────────────────────────────────

    async def _connection(self, *, fresh: bool = False) -> _Connection:
        # One connection per event loop: a session belongs to the loop that opened it.
        loop = asyncio.get_running_loop()
        lock = self._locks.setdefault(loop, asyncio.Lock())
        async with lock:
            connection = self._connections.get(loop)
            if connection is not None and (fresh or connection.closed):
                await connection.close()
                connection = None
            if connection is None:
                connection = _Connection(self._new_client)
                try:
                    await connection.open(self.connect_timeout)
                except Exception as exc:  # any failure to connect is the same to a caller
                    raise MCPUnavailable(self.describe(), exc) from exc
                self._connections[loop] = connection
            return connection

    def _new_client(self) -> Client:
        from mcp import Client, StdioServerParameters

        server = self.server
        if not isinstance(server, MCPServerParams):
            return Client(server)
        if server.url is not None:
            if server.headers:
                import httpx2
                from mcp.client.streamable_http import streamable_http_client

                http = httpx2.AsyncClient(headers=dict(server.headers))
                return Client(streamable_http_client(server.url, http_client=http))
            return Client(server.url)
        from mcp.client.stdio import stdio_client

        command, *args = server.command
        parameters = StdioServerParameters(
            command=command, args=args, env=dict(server.env) or None, cwd=server.cwd
        )
        errlog = self.errlog if self.errlog is not None else _standard_error()
        return Client(stdio_client(parameters, errlog=errlog))

    async def aclose(self) -> None:
        """Close this event loop's connection (a stdio server is stopped)."""
        connection = self._connections.pop(asyncio.get_running_loop(), None)
        if connection is not None:
            await connection.close()


def _standard_error() -> TextIO:
    """Where a stdio server's standard error goes by default: this process's, as it is now
    (an application may have sent it to a log file), if it is a file the server can write to;
    else the one the process started with."""
    for stream in (sys.stderr, sys.__stderr__):
        try:
            if stream is not None and stream.fileno() >= 0:
                return stream
        except (AttributeError, OSError, ValueError):  # io.StringIO and the like, or closed
            continue
    return open(os.devnull, "w")  # no standard error at all: kept open for the server


class MCPUnavailable(Exception):
    """The MCP server could not be reached (it did not start, or the connection dropped)."""

    def __init__(self, server: str, cause: BaseException) -> None:
        super().__init__(f"cannot reach the MCP server {server}: {type(cause).__name__}: {cause}")
        self.server = server
        self.cause = cause


class MCPMalformedResult(Exception):
    """The server answered with a result that breaks its own output schema."""


# What the SDK's client raises when it checks a result against the tool's output schema.
_REJECTED_OUTPUT = re.compile(
    r"^(Invalid structured content returned by tool|Invalid schema for tool"
    r"|Tool .+ has an output schema but did not return structured content)"
)


def _rejected_result(exc: BaseException) -> str | None:
    """What is wrong with a result the client rejected, or ``None`` for another failure."""
    import pydantic
    from mcp.client.extension import UnexpectedClaimedResult

    if isinstance(exc, UnexpectedClaimedResult):
        return "the server answered with a kind of result this client does not take"
    if isinstance(exc, pydantic.ValidationError):
        return f"the result does not follow the MCP protocol: {exc.error_count()} problem(s): {exc}"
    if isinstance(exc, RuntimeError) and _REJECTED_OUTPUT.search(str(exc)):
        return str(exc)
    return None


class _Connection:
    """A connected ``mcp.Client``, owned by a task of its own.

    The SDK's client must be entered and left by one task (its transports hold task groups),
    while calls come from many: the owning task opens it, then waits until it is closed.
    """

    def __init__(self, make: Any) -> None:
        self._make = make
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._error: BaseException | None = None
        self.client: Any = None
        self.closed = False

    async def open(self, timeout: float) -> None:
        self._task = asyncio.create_task(self._own())
        try:
            async with asyncio.timeout(timeout):
                await self._ready.wait()
        except TimeoutError:
            await self.close()
            raise TimeoutError(f"no answer from the server within {timeout:g} s") from None
        if self.client is None:
            raise self._error or ConnectionError("the server closed the connection")

    async def _own(self) -> None:
        try:
            async with self._make() as client:
                self.client = client
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:  # recorded; the caller decides what it means
            self._error = exc
            if not isinstance(exc, Exception):
                raise
        finally:
            self.closed = True
            self._ready.set()

    async def close(self) -> None:
        self._stop.set()
        task = self._task
        if task is not None and not task.done():
            try:
                async with asyncio.timeout(5):
                    await asyncio.shield(task)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()
        self.closed = True


def _is_timeout(exc: BaseException) -> bool:
    from mcp.shared.exceptions import MCPError
    from mcp_types import REQUEST_TIMEOUT

    return isinstance(exc, TimeoutError) or (
        isinstance(exc, MCPError) and exc.code == REQUEST_TIMEOUT
    )


def _is_disconnect(exc: BaseException) -> bool:
    import anyio
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED

    if isinstance(exc, BaseExceptionGroup):
        return any(_is_disconnect(inner) for inner in exc.exceptions)
    return isinstance(
        exc,
        anyio.ClosedResourceError
        | anyio.BrokenResourceError
        | anyio.EndOfStream
        | ConnectionError
        | EOFError
        | OSError,
    ) or (isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED)


def _not_sent(exc: BaseException) -> bool:
    """The request could not be written: the server never saw it, so sending again is safe."""
    import anyio

    if isinstance(exc, BaseExceptionGroup):
        return all(_not_sent(inner) for inner in exc.exceptions)
    return isinstance(exc, anyio.BrokenResourceError | anyio.ClosedResourceError | BrokenPipeError)


def _text_of(result: CallToolResult) -> str:
    from mcp.types import TextContent

    return "\n".join(b.text for b in result.content if isinstance(b, TextContent)).strip()


def _value_of(result: CallToolResult, unwrap: bool) -> Any:
    """The tool's result value: structured content, else the JSON (or the text) it sent."""
    value: Any = result.structured_content
    if value is None:
        text = _text_of(result)
        try:
            value = json.loads(text)
        except ValueError:
            return text
    if unwrap and isinstance(value, dict) and set(value) == {WRAPPED_RESULT_KEY}:
        return value[WRAPPED_RESULT_KEY]
    return value


def _without_error_prefix(text: str) -> str:
    """The server's error text without its own ``Error:`` (the runtime says it once)."""
    return re.sub(r"^error:\s*", "", text, flags=re.IGNORECASE) or text


# A date-time or time in RFC 3339's shape but for the offset: what Python's naive values give.
_NAIVE_TIMES = {
    "date-time": re.compile(r"\d{4}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d(?:\.\d+)?", re.ASCII),
    "time": re.compile(r"\d\d:\d\d:\d\d(?:\.\d+)?", re.ASCII),
}


def _refused(name: str, exc: Any) -> ToolResult:
    """The server answered the call with a protocol error (``exc``, the SDK's ``MCPError``)."""
    from mcp_types import INVALID_PARAMS, METHOD_NOT_FOUND

    if exc.code == METHOD_NOT_FOUND:
        return answers.server_unavailable(name, "its server does not offer it", exc)
    if exc.code == INVALID_PARAMS:
        return answers.server_refused_arguments(name, exc.message, exc, exc.code)
    return answers.server_failed(name, exc.message, cause=exc, code=exc.code)


def _blocks(name: str, content: Sequence[Any], declared: Sequence[str]) -> list[ContentBlock]:
    """The content blocks of a tool's answer of the kinds its design declares."""
    blocks: list[ContentBlock] = []
    for item in content:
        data = item.model_dump(mode="json", by_alias=True, exclude_none=True)
        if data.get(K.TYPE) in declared:
            blocks.append(block_from_mcp(data))
        elif data.get(K.TYPE) != "text":
            log.warning(
                "tool %s sent %s content, which its design does not declare: left out",
                name,
                data.get(K.TYPE),
            )
    return blocks


__all__ = ["MCPClient", "MCPMalformedResult", "MCPServerParams", "MCPUnavailable"]
