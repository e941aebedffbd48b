"""Serve a :class:`Runtime`'s tools over MCP (the official ``mcp`` SDK, stdio or streamable HTTP).

``tools/list`` comes from the runtime's specs through the MCP export (model-facing schemas: no
injected fields, no server data); ``tools/call`` runs :meth:`Runtime.execute`. A result answers
with ``structuredContent`` and a text block of what a model reads; invalid arguments and tool
errors answer ``isError: true`` with the retry-hint text, so the model can correct itself; an
unknown tool is a JSON-RPC error. Registering or removing toolsets at run time tells connected clients
(``notifications/tools/list_changed``, or a ``subscriptions/listen`` event on 2026-07-28
connections).

Injected fields are filled from the MCP request: ``tool_call_id`` is the JSON-RPC request id,
``session_id`` the ``Mcp-Session-Id`` of a streamable-HTTP session, or an id minted for each
stdio (or in-memory) connection. The 2026-07-28 HTTP wire has no sessions (nor anything a
session could be taken from: each request stands alone), so a stateful HTTP app serving a
tool that injects ``session_id`` answers ``server/discover`` with the handshake versions only:
clients that negotiate (the SDK's default) open a handshake session, and such tools work with
them out of the box (other apps offer 2026-07-28). A stateless app serves the 2026-07-28 wire and leaves ``session_id`` unset, as does a
client that forces that wire; ``meta_for`` lets the application decide instead (from headers,
an authenticated user, ``_meta``…), and a call that lacks an injected value is logged once per
tool with what to do.

Needs the ``mcp`` extra: ``pip install 'tooldesign[mcp]'``.
"""

from __future__ import annotations

import contextvars
import dataclasses
import inspect
import json
import logging
import threading
import uuid
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp import types
from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.connection import Connection
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.server.streamable_http import EventStore
from mcp.server.subscriptions import ListenHandler
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE
from mcp.shared.exceptions import MCPError
from mcp.types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from tooldesign.contract.catalog import toolset_version
from tooldesign.jsonschema.text import clipped, shown
from tooldesign.runtime.control.logs import LogLevel
from tooldesign.runtime.mcp import callers, control, exchanges, http, stdio
from tooldesign.runtime.mcp.access import access_token_of
from tooldesign.runtime.mcp.callbacks import MissingExplained, check_callback
from tooldesign.runtime.mcp.callers import Connection as _Connection
from tooldesign.runtime.mcp.changes import ChangeBus, Listeners
from tooldesign.runtime.mcp.sessions import SessionLimits
from tooldesign.runtime.providers import ExportError, ProviderAdapter, adapter
from tooldesign.runtime.reasons import RetryReason
from tooldesign.runtime.request import ToolCallMeta, ToolRequest
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.runtime import Runtime
from tooldesign.runtime.spec.specs import ToolSpec

log = logging.getLogger("tooldesign.runtime.mcp")


@dataclass(frozen=True, slots=True)
class McpCallContext:
    """What the MCP request says about one ``tools/call``: the input of ``meta_for``.

    ``meta`` is the default :class:`ToolCallMeta` (``tool_call_id`` = the JSON-RPC request id,
    ``session_id`` as described in the module docstring); ``request_meta`` is the request's
    ``_meta`` (set by the client application, never by the model); ``http_request`` and
    ``headers`` are there on HTTP transports; ``access_token`` is the verified bearer token of
    an HTTP app with authentication (``.client_id``, ``.subject``, ``.scopes``, ``.claims``:
    who is calling, for an injected user id); ``request_context`` is the SDK's own context.
    """

    tool: str
    meta: ToolCallMeta
    request_id: str | None
    session_id: str | None
    protocol_version: str
    client_name: str | None = None
    request_meta: Mapping[str, Any] = field(default_factory=dict)
    headers: Mapping[str, str] | None = None
    http_request: Request | None = None
    access_token: AccessToken | None = None
    request_context: ServerRequestContext[Any, Any] | None = None


MetaFor = Callable[[McpCallContext], ToolCallMeta | Awaitable[ToolCallMeta]]
"""``meta_for(context)``: builds the metadata of one call from its :class:`McpCallContext`
(sync or async). Raise ``MCPError`` to refuse the call."""

OnResult = Callable[[ToolResult, McpCallContext], None | Awaitable[None]]
"""``on_result(result, context)``: sees every call's full :class:`ToolResult` (server data,
telemetry) and its :class:`McpCallContext` (sync or async): for observers, not models."""

_UNSET: Any = object()
_arguments_as_sent: contextvars.ContextVar[Any] = contextvars.ContextVar(
    "tooldesign_mcp_arguments_as_sent", default=_UNSET
)
"""A ``tools/call``'s arguments when they are not an object, kept from the SDK's validation
(which would refuse them bare) so the runtime can tell the model what is wrong with them."""


@dataclass(frozen=True, slots=True)
class _Catalog:
    """The MCP view of the registered tools, rebuilt after each registration change."""

    tools: tuple[types.Tool, ...]
    by_name: Mapping[str, types.Tool]
    specs: Mapping[str, ToolSpec[Any, Any]]
    adapter: ProviderAdapter
    version: str
    """The catalog's version: a digest of what models see of every tool."""
    needs_sessions: bool
    """Whether a tool injects ``session_id`` (only handshake-era HTTP has sessions)."""


class _RuntimeServer(Server[_Connection]):
    """The low-level server, advertising ``tools.listChanged`` on handshake connections too.

    The SDK's transports call ``create_initialization_options()`` without arguments, so the
    default must say that tool-list changes are notified. Its ``version`` (``serverInfo``'s) is
    the one given, else that of the catalog it serves when it is asked.
    """

    catalog_version: Callable[[], str] | None = None

    @property
    def version(self) -> str:
        if not self._given_version and self.catalog_version is not None:
            return self.catalog_version()
        return self._given_version

    @version.setter
    def version(self, value: str) -> None:
        self._given_version = value

    def catalog_changed(self) -> None:
        """The catalog's version may have changed: 2026-07-28 responses carry ``serverInfo``
        from a dump the SDK keeps (a cached property), dropped here."""
        self.__dict__.pop("_server_info_stamp_source", None)

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities,
            extensions,
        )


@asynccontextmanager
async def _connection_scope(_: Server[_Connection]) -> AsyncIterator[_Connection]:
    # The SDK enters the lifespan once per stream connection (stdio, in-memory) and once per
    # streamable-HTTP app; HTTP calls take their session from the request instead.
    yield _Connection(id=uuid.uuid4().hex)


class ToolServer:
    """A :class:`Runtime`'s tools as an MCP server.

    ``server`` is the SDK's low-level server: pass it to ``mcp.Client(server)`` to talk to it in
    memory. :meth:`serve_stdio` and :meth:`streamable_http_app` put it on a transport.
    ``meta_for`` builds each call's :class:`ToolCallMeta` from an :class:`McpCallContext`
    (default: the context's ``meta``); ``on_result`` observes every result, server data included.
    ``request_state`` protects the state of 2026-07-28 round trips (the SDK's
    ``RequestStateSecurity``: ``keys=[secret]`` shared by every instance behind a load
    balancer; default: a key of this process only). What tools ask mid-call, and how: see
    :mod:`tooldesign.runtime.mcp.exchanges`.

    Building the server exports every tool once, so a tool that cannot be served over MCP is an
    error here (an ``ExportError``), not at the first ``tools/list``.
    """

    def __init__(
        self,
        runtime: Runtime,
        *,
        name: str | None = None,
        version: str = "",
        instructions: str | None = None,
        meta_for: MetaFor | None = None,
        on_result: OnResult | None = None,
        request_state: RequestStateSecurity | None = None,
    ) -> None:
        check_callback("meta_for", meta_for, "meta_for(context)")
        check_callback("on_result", on_result, "on_result(result, context)")
        self.runtime = runtime
        self._meta_for = meta_for
        self._on_result = on_result
        self._lock = threading.Lock()
        self._catalog: _Catalog | None = None
        self._listeners = Listeners()
        self._http_sessions = False
        """Whether the HTTP app keeps sessions (stateful): then it offers the handshake wire."""
        self._explain_missing = MissingExplained(meta_for=meta_for)
        self._log_levels: weakref.WeakKeyDictionary[Connection, LogLevel] = (
            weakref.WeakKeyDictionary()
        )
        """The level each handshake-era connection set with ``logging/setLevel``."""
        self._catalog_now()  # fail fast on tools that cannot be exported
        server = _RuntimeServer(
            name or default_server_name(runtime),
            version=version,
            instructions=instructions,
            lifespan=_connection_scope,
            get_tool_input_schema=self._input_schema,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_subscriptions_listen=ListenHandler(ChangeBus(self._listeners)),
        )
        server.catalog_version = self._catalog_version
        self._identity_changed = server.catalog_changed
        self.server: Server[_Connection] = server
        # Handshake-era connections: from `initialized` until the connection closes (which
        # cancels the handler), forward each change as notifications/tools/list_changed.
        self.server.add_notification_handler(
            "notifications/initialized", types.NotificationParams, self._watch_connection
        )
        self.server.add_request_handler(
            "tools/call", types.CallToolRequestParams, self._answer_call
        )
        self.server.add_request_handler("server/discover", types.RequestParams, self._discover)
        self.server.add_request_handler(
            "logging/setLevel", types.SetLevelRequestParams, self._set_log_level
        )
        # Inside the SDK's own middleware (tracing), so it sees these calls as any other.
        self.server.middleware += [_internal_errors_untold, self._tool_call_shape]
        # 2026-07-28 round trips: requestState sealed, bound to the call, verified on return.
        self._request_state = security = request_state or RequestStateSecurity.ephemeral()
        self.server.middleware.append(RequestStateBoundary(security, default_audience=server.name))
        # Before it: trace context from HTTP headers reaches the SDK's server span.
        self.server.middleware.insert(0, control.trace_from_headers)
        self._unsubscribe = runtime.on_change(self._registrations_changed)

    # ── catalog ───────────────────────────────────────────────────────────────────────────

    def tools(self) -> list[types.Tool]:
        """What ``tools/list`` answers now."""
        return list(self._catalog_now().tools)

    def _catalog_now(self) -> _Catalog:
        catalog = self._catalog
        if catalog is not None:
            return catalog
        # Built under the lock that invalidation takes, so a catalog built from the tools
        # before a change can never outlive the change.
        with self._lock:
            if self._catalog is None:
                specs = self.runtime.specs()
                # One adapter lists the tools and later reads the calls: it converts each schema
                # once, and keeps none of them after listing (a second one would hold them all).
                mcp = adapter("mcp", specs)
                tools = tuple(types.Tool.model_validate(d) for d in mcp.tools())
                self._catalog = _Catalog(
                    tools,
                    {t.name: t for t in tools},
                    {s.name: s for s in specs},
                    mcp,
                    "",
                    any("session_id" in s.injected for s in specs),
                )
            return self._catalog

    def _served_catalog(self) -> _Catalog:
        """The catalog for a request: a tool that cannot be exported is the server's error."""
        try:
            return self._catalog_now()
        except ExportError as exc:
            log.error("the registered tools cannot be served over MCP: %s", exc)
            raise MCPError(types.INTERNAL_ERROR, str(exc)) from exc

    def _catalog_version(self) -> str:
        """The version of the catalog served, computed once per catalog ("" while its tools
        cannot be served: requests report that)."""
        try:
            catalog = self._catalog_now()
        except ExportError:
            return ""
        if not catalog.version:
            version = toolset_version(catalog.specs.values())
            object.__setattr__(catalog, "version", version)  # a digest of the frozen catalog
        return catalog.version

    @property
    def meta_for(self) -> MetaFor | None:
        """The ``meta_for`` the server was built with, if any."""
        return self._meta_for

    def _registrations_changed(self) -> None:
        with self._lock:
            self._catalog = None
        self._identity_changed()
        self._listeners.fire()

    def _input_schema(self, name: str) -> Mapping[str, Any] | None:
        tool = self._served_catalog().by_name.get(name)
        return tool.input_schema if tool is not None else None

    def close(self) -> None:
        """Stop following the runtime's registrations (connected clients are not told any more)."""
        self._unsubscribe()

    # ── handlers ──────────────────────────────────────────────────────────────────────────

    async def _list_tools(
        self, ctx: ServerRequestContext[_Connection], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=callers.shown(self._served_catalog(), ctx, self.runtime))

    async def _tool_call_shape(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """``tools/call`` requests the SDK would refuse with a bare "Invalid request parameters",
        answered in words the client can act on: arguments that are not an object reach the
        runtime (which answers ``isError`` with a retry hint); a name that is not a string is an
        unknown tool."""
        params = ctx.params
        if ctx.method != "tools/call" or not isinstance(params, Mapping):
            return await call_next(ctx)
        if "name" in params and not isinstance(params["name"], str):
            raise _unknown_tool(params["name"], self._served_catalog())
        arguments = params.get("arguments")
        if arguments is None or isinstance(arguments, Mapping):
            return await call_next(ctx)
        token = _arguments_as_sent.set(arguments)
        try:
            return await call_next(dataclasses.replace(ctx, params={**params, "arguments": {}}))
        finally:
            _arguments_as_sent.reset(token)

    async def _call_tool(
        self, ctx: ServerRequestContext[_Connection], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        """A ``tools/call``'s answer as the SDK's model (what a task keeps)."""
        answer = await self._answer_call(ctx, params)
        if isinstance(answer, types.InputRequiredResult):
            return answer
        return types.CallToolResult.model_validate(answer)

    async def _answer_call(
        self, ctx: ServerRequestContext[_Connection], params: types.CallToolRequestParams
    ) -> dict[str, Any] | types.InputRequiredResult:
        """A ``tools/call``'s answer: a ``CallToolResult`` as its wire dict (the SDK validates it
        for the connection's protocol as it sends it), or ``input_required``."""
        catalog = self._served_catalog()
        spec = catalog.specs.get(params.name)
        if spec is None:  # only the names tools/list shows are callable
            raise _unknown_tool(params.name, catalog)
        as_sent = _arguments_as_sent.get()
        # Arguments that are not an object go as their JSON text: the runtime names the problem.
        payload = (params.arguments or {}) if as_sent is _UNSET else _json_text(as_sent)
        # Server data is for observers: without one, the tool is not asked to produce it.
        server_data = (
            {} if self._on_result is not None else {k.kind: False for k in spec.server_data}
        )
        default, http_request = callers.default_meta(ctx, server_data)
        client = ctx.session.client_params
        client_name = client.client_info.name if client is not None else None
        context = None  # what meta_for and on_result read of the request: built for them only
        if self._meta_for is None and self._on_result is None:
            token = access_token_of(http_request.scope) if http_request is not None else None
            meta = callers.verified(default, token)
        else:
            http = http_request
            context = McpCallContext(
                tool=params.name,
                meta=default,
                request_id=default.tool_call_id,
                session_id=default.session_id,
                protocol_version=ctx.protocol_version,
                client_name=client_name,
                request_meta=dict(ctx.meta or {}),
                headers=dict(http.headers) if http is not None else None,
                http_request=http,
                access_token=access_token_of(http.scope) if http is not None else None,
                request_context=ctx,
            )
            meta = await self._call_meta(context)
            if not meta.trace and default.trace:  # a meta_for that did not carry it on
                meta = dataclasses.replace(meta, trace=default.trace)
        missing = tuple(name for name in spec.injected if meta.value_for(name) is None)
        if missing:
            self._explain_missing(
                spec.name,
                missing,
                http_without_session=default.session_id is None and http_request is not None,
            )
        request = ToolRequest(params.name, payload, meta)
        async with control.forwarded(ctx, spec.name, self._log_levels.get(_connection_of(ctx))):
            result = await exchanges.execute(
                self.runtime, ctx, params, request, client_name, spec.asks
            )
        if isinstance(result, types.InputRequiredResult):
            return result
        hint = result.retry_hint
        if hint is not None and hint.reason is RetryReason.TOOL_UNAVAILABLE:
            raise _unknown_tool(params.name, catalog)  # unregistered while the call started
        if context is not None:
            await self._observe(result, context)
        message = catalog.adapter.result_message(result)
        if result.awaiting_approval and result.approval is not None:
            message["_meta"] = {control.APPROVAL_META_KEY: result.approval.to_dict()}
        message["resultType"] = "complete"  # as the model dumps it (a handshake wire drops it)
        return message

    async def _call_meta(self, context: McpCallContext) -> ToolCallMeta:
        if self._meta_for is None:
            return callers.verified(context.meta, context.access_token)
        try:
            meta = self._meta_for(context)
            if inspect.isawaitable(meta):
                meta = await meta
        except MCPError:
            raise
        except Exception as exc:
            log.exception("meta_for failed for tool %s", context.tool)
            raise MCPError(types.INTERNAL_ERROR, "The server could not prepare this call.") from exc
        if not isinstance(meta, ToolCallMeta):
            log.error("meta_for returned %s, not a ToolCallMeta", type(meta).__name__)
            raise MCPError(types.INTERNAL_ERROR, "The server could not prepare this call.")
        return callers.verified(meta, context.access_token)

    async def _discover(
        self, ctx: ServerRequestContext[_Connection], params: types.RequestParams
    ) -> types.DiscoverResult:
        """``server/discover``: the versions :meth:`_offered_versions` names."""
        stateful_http = self._http_sessions and isinstance(ctx.request, Request)
        return types.DiscoverResult(
            supported_versions=self._offered_versions(stateful_http),
            capabilities=self.server.get_capabilities(protocol_version=ctx.protocol_version),
            instructions=self.server.instructions,
        )

    def _offered_versions(self, stateful_http: bool) -> list[str]:
        """The versions offered to clients that negotiate (``server/discover``, and the HTTP
        app's unsupported-version errors): the 2026-07-28 wire, served everywhere — except on
        a stateful HTTP app serving a tool that injects ``session_id``: sessions exist only on
        the handshake wire, and negotiating clients (the SDK's default) take 2026-07-28 when it
        is listed. Offered the handshake alone, they open a session (a client that forces
        2026-07-28 is still served)."""
        sessions = stateful_http and self._served_catalog().needs_sessions
        return list(HANDSHAKE_PROTOCOL_VERSIONS if sessions else MODERN_PROTOCOL_VERSIONS)

    async def _set_log_level(
        self, ctx: ServerRequestContext[_Connection], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        """``logging/setLevel`` (handshake protocol): what tools log below the level is not
        sent on this connection from now on."""
        self._log_levels[_connection_of(ctx)] = params.level
        return types.EmptyResult()

    async def _observe(self, result: ToolResult, context: McpCallContext) -> None:
        if self._on_result is None:
            return
        try:
            outcome = self._on_result(result, context)
            if inspect.isawaitable(outcome):
                await outcome
        except Exception:  # an observer's failure must not change what the model gets
            log.exception("on_result failed for tool %s", context.tool)

    async def _watch_connection(
        self, ctx: ServerRequestContext[_Connection], params: types.NotificationParams
    ) -> None:
        send, receive = anyio.create_memory_object_stream[None](1)

        def changed() -> None:
            try:
                send.send_nowait(None)
            except anyio.WouldBlock:  # one pending notice already covers this change
                pass

        remove = self._listeners.add(changed)
        try:
            async with receive:
                async for _ in receive:
                    await ctx.session.send_tool_list_changed()
        finally:
            remove()
            send.close()

    # ── transports ────────────────────────────────────────────────────────────────────────

    async def serve_stdio(self, *, drain_timeout: float | None = stdio.DRAIN_TIMEOUT) -> None:
        """Serve one client on standard input and output until its input ends.

        The calls it sent before are finished and answered first (for ``drain_timeout``
        seconds at most; ``None``: however long they take). While serving, what the
        application prints goes to standard error: standard output carries only the protocol.
        """
        await stdio.serve_stdio(self.server, drain_timeout=drain_timeout)

    def streamable_http_app(
        self,
        *,
        path: str = "/mcp",
        host: str = "127.0.0.1",
        stateless: bool = False,
        json_response: bool = False,
        token_verifier: TokenVerifier | None = None,
        auth: AuthSettings | None = None,
        allowed_hosts: Collection[str] | None = None,
        allowed_origins: Collection[str] | None = None,
        sessions: SessionLimits | None = None,
        event_store: EventStore | None = None,
        retry_interval: int | None = None,
        max_request_body_size: int = DEFAULT_MAX_REQUEST_BODY_SIZE,
        authentication: str | None = None,
    ) -> Starlette:
        """An ASGI app serving streamable HTTP at ``path`` (run it with uvicorn, once).

        A stateful app (the default) keeps an ``Mcp-Session-Id`` session per client, which
        injected ``session_id`` fields are filled from; clients that negotiate the protocol are
        offered the handshake wire, where sessions exist. ``stateless`` serves each request on
        its own and offers the 2026-07-28 wire (no sessions, so no ``session_id`` by default).

        Security (``tooldesign.runtime.mcp.http`` has the details):

        - ``token_verifier``: every request needs a bearer token it accepts, else 401
          (``BearerTokens({token: name})`` for fixed tokens, or the SDK's ``TokenVerifier``
          protocol); with ``auth=AuthSettings(issuer_url=..., resource_server_url=...)`` the
          app is an OAuth resource server (protected-resource metadata, ``required_scopes``,
          ``validate_token_resource``). The verified token reaches ``meta_for`` as
          ``context.access_token``.
        - ``host`` is where the app listens; ``Host`` must name it (or ``allowed_hosts``) and
          a browser's ``Origin`` must be a loopback one (or in ``allowed_origins``), whatever
          the host, else 421 and 403.
        - ``sessions``: :class:`SessionLimits` (1,000 sessions, 100 per authenticated client,
          idle ones end after 10 minutes by default).

        ``event_store``, ``retry_interval`` and ``max_request_body_size`` are the SDK's session
        manager options; ``authentication`` describes the verifier in ``app.state.mcp_policy``.
        """
        self._http_sessions = not stateless
        return http.streamable_http_app(
            self.server,
            path=path,
            host=host,
            stateless=stateless,
            json_response=json_response,
            token_verifier=token_verifier,
            auth=auth,
            allowed_hosts=allowed_hosts,
            allowed_origins=allowed_origins,
            sessions=sessions,
            event_store=event_store,
            retry_interval=retry_interval,
            max_request_body_size=max_request_body_size,
            offered=lambda: self._offered_versions(stateful_http=not stateless),
            authentication=authentication,
        )


async def _internal_errors_untold(
    ctx: ServerRequestContext[Any, Any], call_next: CallNext
) -> HandlerResult:
    """A handler's unexpected exception answers a short, stable error: the SDK would send its
    text, which may hold internals. Refusals (``MCPError``) and invalid parameters (the SDK's
    own "Invalid request parameters") pass as they are."""
    try:
        return await call_next(ctx)
    except (MCPError, ValidationError):
        raise
    except Exception as exc:
        log.exception("the MCP server failed answering %s", ctx.method)
        raise MCPError(types.INTERNAL_ERROR, "Internal error") from exc


def _connection_of(ctx: ServerRequestContext[Any, Any]) -> Connection:
    """The client connection of a request (an stdio or in-memory stream, an HTTP session): the
    SDK builds a session object per request, over the connection's one ``Connection``."""
    connection: Connection = ctx.session._connection  # no public accessor in 2.3
    return connection


def _unknown_tool(name: Any, catalog: _Catalog) -> MCPError:
    # JSON-RPC "invalid params", as the MCP specification answers an unknown tool. The name is
    # whatever the client sent: shown as JSON and cut short, as the runtime shows names.
    text = name if isinstance(name, str) else _json_text(name)
    return MCPError(
        types.INVALID_PARAMS,
        f"Unknown tool: {shown(name)}",
        data={"tool": clipped(text), "available": sorted(catalog.by_name)},
    )


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=repr)


def default_server_name(runtime: Runtime) -> str:
    """The services of ``runtime`` (``builtin`` left out when others exist), joined by ``-``:
    a name every MCP host takes (Claude Code refuses a server name with ``+`` or ``.``)."""
    services: list[str] = []
    for info in runtime.toolsets():
        if info.service not in services:
            services.append(info.service)
    own = [s for s in services if s != "builtin"]
    return "-".join(own or services) or "tooldesign"


def mcp_server(
    runtime: Runtime,
    *,
    name: str | None = None,
    version: str = "",
    instructions: str | None = None,
    meta_for: MetaFor | None = None,
    on_result: OnResult | None = None,
    request_state: RequestStateSecurity | None = None,
) -> ToolServer:
    """A :class:`ToolServer` for ``runtime`` (see there for the options)."""
    return ToolServer(
        runtime,
        name=name,
        version=version,
        instructions=instructions,
        meta_for=meta_for,
        on_result=on_result,
        request_state=request_state,
    )


async def serve_stdio(
    runtime: Runtime | ToolServer,
    *,
    drain_timeout: float | None = stdio.DRAIN_TIMEOUT,
    **options: Any,
) -> None:
    """Serve ``runtime``'s tools to one client on standard input/output until it disconnects
    (see :meth:`ToolServer.serve_stdio`).

    ``options`` are :class:`ToolServer`'s (``name``, ``meta_for``, …), for a ``Runtime``.
    """
    await _tool_server(runtime, options).serve_stdio(drain_timeout=drain_timeout)


def streamable_http_app(runtime: Runtime | ToolServer, **options: Any) -> Starlette:
    """An ASGI app serving ``runtime``'s tools over streamable HTTP.

    ``options`` are :meth:`ToolServer.streamable_http_app`'s (``path``, ``host``,
    ``token_verifier``, ``allowed_origins``, ``sessions``, …) and, for a ``Runtime``,
    :class:`ToolServer`'s (``name``, ``meta_for``, …).
    """
    server_options = {k: v for k, v in options.items() if k in _SERVER_OPTIONS}
    app_options = {k: v for k, v in options.items() if k not in _SERVER_OPTIONS}
    return _tool_server(runtime, server_options).streamable_http_app(**app_options)


_SERVER_OPTIONS = frozenset(inspect.signature(ToolServer).parameters) - {"runtime"}


def _tool_server(runtime: Runtime | ToolServer, options: Mapping[str, Any]) -> ToolServer:
    if isinstance(runtime, ToolServer):
        if options:
            raise TypeError(
                f"options {sorted(options)} apply when building a ToolServer; "
                "this one is built already"
            )
        return runtime
    return mcp_server(runtime, **options)


__all__ = [
    "McpCallContext",
    "MetaFor",
    "OnResult",
    "ToolServer",
    "default_server_name",
    "mcp_server",
    "serve_stdio",
    "streamable_http_app",
]
