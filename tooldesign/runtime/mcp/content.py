"""Prompts and resources served beside a runtime's tools, typed like tools.

A :class:`Prompt` is a message template whose arguments are a pydantic model (each field an
argument: its alias the name, its description, whether it is required); a :class:`Resource` is a
fixed URI and what reading it gives (text or bytes); a :class:`ResourceTemplate` is a URI
template (``docs://{kind}/{doc_id}``) whose variables are a pydantic model's fields, read with
the validated model. :class:`ServerContent` serves them on a :class:`ToolServer`::

    content = ServerContent(prompts=[triage], resources=[status], templates=[runbook])
    content.serve_on(server)                    # prompts/*, resources/*, completion/complete
    await content.resource_updated("status://now")   # notifications/resources/updated

What each request gets:

- ``prompts/list``, ``resources/list``, ``resources/templates/list``: the declarations;
- ``prompts/get``: the arguments checked by the model (a value it rejects is a JSON-RPC
  invalid-params error naming the argument), then the messages ``render`` returns: a text (one
  user message) or :class:`Message` s whose content is a text or a content block
  (``ImageContent``, ``AudioContent``, ``EmbeddedResource``, ``ResourceLink``);
- ``resources/read``: a fixed resource, else the first template whose pattern matches, its
  variables percent-decoded (each one path segment: ``..`` or ``%2F`` is refused) and checked
  by the model; ``str`` is read as text, ``bytes`` as a blob. A URI nothing
  matches, or whose read raises ``LookupError`` (``KeyError``: no such document), is invalid
  params with the URI in the error's data (SEP-2164), never empty contents;
- ``completion/complete``: a prompt's or template's argument completed from the values its type
  allows (a ``Literal`` or an ``Enum``: those starting with what was typed, case ignored), else
  from the declaration's ``complete(argument, value, context)``; at most 100 values;
- ``resources/subscribe`` and ``unsubscribe`` (handshake connections): :meth:`resource_updated`
  notifies the connections subscribed to a URI, while they last (a URI the server serves, at
  most :data:`MAX_SUBSCRIPTIONS` per connection); on 2026-07-28,
  ``subscriptions/listen`` streams that asked for the URI hear of it, and of prompt-list changes
  (:meth:`add_prompt`, :meth:`remove_prompt`).

:func:`spilled_results` serves the results a runtime spilled past their budget as resources.
"""

from __future__ import annotations

import asyncio
import base64
import inspect
import re
import threading
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, get_args, get_origin
from urllib.parse import unquote

from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import ListenHandler
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import PromptsListChanged, ResourceUpdated, ServerEvent
from pydantic import BaseModel, Field, ValidationError
from tooldesign.contract.content import ContentBlock
from tooldesign.jsonschema.text import clipped, shown
from tooldesign.runtime.mcp.changes import ChangeBus

if TYPE_CHECKING:
    from mcp.server.connection import Connection
    from tooldesign.runtime.mcp.server import ToolServer
    from tooldesign.runtime.runtime import Runtime

ArgsT = TypeVar("ArgsT", bound=BaseModel)

MAX_COMPLETIONS = 100
MAX_SUBSCRIPTIONS = 1000
"""Resources one connection may be subscribed to at once (``resources/subscribe``)."""
"""Values one ``completion/complete`` answer carries (the protocol's limit)."""

MAX_ARGUMENT_CHARS = 65_536
"""The longest prompt argument ``prompts/get`` takes by default (``ServerContent(max_argument_chars=…)``):
a longer one is refused before the prompt renders, as invalid params naming it."""


@dataclass(frozen=True, slots=True)
class Message:
    """One message of a rendered prompt: a text or a content block, from the user (default) or
    the assistant."""

    content: str | ContentBlock
    role: Literal["user", "assistant"] = "user"


Rendered = str | Sequence[Message]
"""What a prompt's ``render`` returns: a text (one user message), or the messages."""

Body = str | bytes
"""What reading a resource gives: text, or bytes (sent base64 as a blob)."""

Completer = Callable[[str, str, Mapping[str, str]], Sequence[str] | Awaitable[Sequence[str]]]
"""``complete(argument, value, context)``: candidates for ``argument`` given what was typed
(``value``) and the arguments already resolved (``context``), sync or async."""


@dataclass(frozen=True, slots=True)
class Prompt(Generic[ArgsT]):
    """A prompt template: ``render(arguments)`` gives its messages (``render()`` when it takes no
    ``arguments`` model), sync or async."""

    name: str
    description: str
    render: Callable[..., Rendered | Awaitable[Rendered]]
    arguments: type[ArgsT] | None = None
    title: str | None = None
    complete: Completer | None = None
    asks: tuple[Literal["user", "model", "roots"], ...] = ()
    """Whom ``render`` may ask while it renders (``exchanges().ask_user(...)``…), as a tool's
    ``Asks`` says: answered mid-request, or in ``input_required`` rounds on 2026-07-28."""


@dataclass(frozen=True, slots=True)
class Resource:
    """A resource at a fixed URI: ``read()`` gives its text or bytes, sync or async."""

    uri: str
    name: str
    description: str
    read: Callable[[], Body | Awaitable[Body]]
    mime_type: str = "text/plain"
    title: str | None = None


@dataclass(frozen=True, slots=True)
class ResourceTemplate(Generic[ArgsT]):
    """Resources under a URI template (``docs://{kind}/{doc_id}``, each variable one path
    segment): ``read(parameters)`` gives one, the variables checked by the ``parameters``
    model (its fields are the template's variables)."""

    uri_template: str
    name: str
    description: str
    read: Callable[[ArgsT], Body | Awaitable[Body]]
    parameters: type[ArgsT]
    mime_type: str = "text/plain"
    title: str | None = None
    complete: Completer | None = None
    matcher: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = re.findall(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", self.uri_template)
        fields = set(_argument_names(self.parameters))
        if set(names) != fields or len(names) != len(set(names)):
            raise ValueError(
                f"resource template {self.uri_template!r}: its variables "
                f"({', '.join(names) or 'none'}) must be the fields of "
                f"{self.parameters.__name__} ({', '.join(sorted(fields)) or 'none'}), each once"
            )
        parts = re.split(r"\{[A-Za-z_][A-Za-z0-9_]*\}", self.uri_template)
        # A variable is one path segment: never a "/", nor a query or a fragment.
        regex = "".join(
            re.escape(part) + (f"(?P<{names[i]}>[^/?#]+)" if i < len(names) else "")
            for i, part in enumerate(parts)
        )
        object.__setattr__(self, "matcher", re.compile(regex))

    def variables(self, uri: str) -> dict[str, str] | None:
        """The template's variables in ``uri`` (``None``: the URI is not one of its
        resources), each percent-decoded as a client expanding the template encoded it
        (RFC 6570): a value completion offered reads back as that value. A value that decodes
        to what is not one segment (a ``/``, ``.`` or ``..``, a control character, bytes that
        are not UTF-8) is invalid params naming the variable: it would let a read escape the
        template (``..%2F..%2Fsecret``)."""
        found = self.matcher.fullmatch(uri)
        if found is None:
            return None
        values: dict[str, str] = {}
        for name, raw in found.groupdict().items():
            try:
                value = unquote(raw, errors="strict")
            except UnicodeDecodeError:
                value = None
            if value is None or value in (".", "..") or _NOT_IN_SEGMENT.search(value):
                raise MCPError(
                    types.INVALID_PARAMS,
                    f"Invalid arguments for resource {shown(uri)}: {name}: one path segment, "
                    "without '/', control characters or a '.' or '..' of its own",
                    data={"uri": uri},
                )
            values[name] = value
        return values


_NOT_IN_SEGMENT = re.compile(r"[/\x00-\x1f\x7f]")


class ServerContent:
    """The prompts, resources and resource templates a :class:`ToolServer` serves beside its
    tools (see the module's docstring). A name or URI given twice is a ``ValueError``."""

    def __init__(
        self,
        *,
        prompts: Sequence[Prompt[Any]] = (),
        resources: Sequence[Resource] = (),
        templates: Sequence[ResourceTemplate[Any]] = (),
        max_argument_chars: int = MAX_ARGUMENT_CHARS,
    ) -> None:
        if max_argument_chars < 1:
            raise ValueError(f"max_argument_chars must be at least 1, got {max_argument_chars}")
        self.max_argument_chars = max_argument_chars
        self.prompts = _unique(prompts, lambda p: p.name, "prompt")
        self.resources = _unique(resources, lambda r: r.uri, "resource")
        self.templates = _unique(templates, lambda t: t.uri_template, "resource template")
        self._subscribed: weakref.WeakKeyDictionary[Connection, set[str]] = (
            weakref.WeakKeyDictionary()
        )
        """The URIs each connection subscribed to: gone with the connection."""
        self._streams: dict[object, tuple[asyncio.AbstractEventLoop, Listener]] = {}
        self._lock = threading.Lock()

    def serve_on(self, server: ToolServer) -> None:
        """Answer ``prompts/*``, ``resources/*`` and ``completion/complete`` on ``server`` (the
        capabilities follow: ``prompts``, ``resources`` with ``subscribe``, ``completions``)."""
        low = server.server
        # Prompts are always answered: add_prompt may serve some later.
        low.add_request_handler("prompts/list", types.PaginatedRequestParams, self._prompts)
        low.add_request_handler("prompts/get", types.GetPromptRequestParams, self._get)
        if self.resources or self.templates:
            low.add_request_handler("resources/list", types.PaginatedRequestParams, self._list)
            low.add_request_handler(
                "resources/templates/list", types.PaginatedRequestParams, self._templates
            )
            low.add_request_handler("resources/read", types.ReadResourceRequestParams, self._read)
            low.add_request_handler(
                "resources/subscribe", types.SubscribeRequestParams, self._subscribe
            )
            low.add_request_handler(
                "resources/unsubscribe", types.UnsubscribeRequestParams, self._unsubscribe
            )
        low.add_request_handler("completion/complete", types.CompleteRequestParams, self._complete)
        # Listen streams hear of the server's tool changes, as before, and of this content's.
        tools = ChangeBus(server._listeners)
        listen = ListenHandler(_Bus(tools, self))
        low.add_request_handler(
            "subscriptions/listen", types.SubscriptionsListenRequestParams, listen
        )

    def add_prompt(self, prompt: Prompt[Any]) -> None:
        """Serve ``prompt`` from now on (replacing one of its name); listen streams are told."""
        self.prompts[prompt.name] = prompt
        self._emit(PromptsListChanged())

    def remove_prompt(self, name: str) -> None:
        """Stop serving the prompt ``name`` (if served); listen streams are told."""
        if self.prompts.pop(name, None) is not None:
            self._emit(PromptsListChanged())

    def _emit(self, event: ServerEvent) -> None:
        """Hand ``event`` to each listen stream, on its own event loop (any thread may call)."""
        with self._lock:
            streams = list(self._streams.items())
        for token, (loop, listener) in streams:
            try:
                loop.call_soon_threadsafe(listener, event)
            except RuntimeError:  # the loop is closed: its streams are gone
                with self._lock:
                    self._streams.pop(token, None)

    async def resource_updated(self, uri: str) -> None:
        """Tell the connections subscribed to ``uri`` that it changed (those gone are skipped)."""
        self._emit(ResourceUpdated(uri=uri))
        for connection, uris in list(self._subscribed.items()):
            if uri not in uris:
                continue
            try:
                await connection.send_resource_updated(uri)
            except Exception:  # noqa: BLE001 - a connection closing meanwhile is not an error
                self._subscribed.pop(connection, None)

    # ── prompts ───────────────────────────────────────────────────────────────────────────

    async def _prompts(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[_prompt(p) for p in self.prompts.values()])

    async def _get(
        self, ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult | types.InputRequiredResult:
        prompt = self.prompts.get(params.name)
        if prompt is None:
            raise MCPError(
                types.INVALID_PARAMS,
                f"Unknown prompt: {shown(params.name)}",
                data={"prompt": params.name, "available": sorted(self.prompts)},
            )
        given: tuple[Any, ...] = ()
        if prompt.arguments is not None:
            where = f"prompt {prompt.name}"
            values = self._bounded(params.arguments or {}, where)
            given = (_checked(prompt.arguments, values, where),)

        async def render() -> Rendered:
            if prompt.asks and not inspect.iscoroutinefunction(prompt.render):
                # A sync render that asks waits for the answer: on a worker thread.
                return await _awaited(await asyncio.to_thread(prompt.render, *given))
            return await _awaited(prompt.render(*given))

        if not prompt.asks:
            rendered = await render()
        else:
            from tooldesign.runtime.mcp.exchanges import asking

            answered = await asking(ctx, params, prompt.asks, render)
            if isinstance(answered, types.InputRequiredResult):
                return answered  # the client answers, then asks again
            rendered = answered
        messages = [Message(rendered)] if isinstance(rendered, str) else list(rendered)
        return types.GetPromptResult(
            description=prompt.description,
            messages=[_message(m) for m in messages],
        )

    def _bounded(self, values: Mapping[str, Any], where: str) -> Mapping[str, Any]:
        """``values``, each at most ``max_argument_chars`` long (refused before rendering)."""
        limit = self.max_argument_chars
        for name, value in values.items():
            if isinstance(value, str) and len(value) > limit:
                raise MCPError(
                    types.INVALID_PARAMS,
                    f"Invalid arguments for {where}: {shown(name)} is {len(value):,} characters "
                    f"long, more than the {limit:,} a prompt argument may be",
                    data={"argument": name, "length": len(value), "limit": limit},
                )
        return values

    # ── resources ─────────────────────────────────────────────────────────────────────────

    async def _list(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=r.uri,
                    name=r.name,
                    title=r.title,
                    description=r.description,
                    mime_type=r.mime_type,
                )
                for r in self.resources.values()
            ]
        )

    async def _templates(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=t.uri_template,
                    name=t.name,
                    title=t.title,
                    description=t.description,
                    mime_type=t.mime_type,
                )
                for t in self.templates.values()
            ]
        )

    async def _read(
        self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        fixed = self.resources.get(uri)
        if fixed is not None:
            return _contents(uri, fixed.mime_type, await _awaited(fixed.read()))
        for template in self.templates.values():
            variables = template.variables(uri)
            if variables is not None:
                where = f"resource {shown(uri)}"
                values = _checked(template.parameters, variables, where)
                try:
                    body: Body = await _awaited(template.read(values))
                except LookupError:  # the template's read knows no such resource
                    break
                return _contents(uri, template.mime_type, body)
        raise MCPError(types.INVALID_PARAMS, "Resource not found", data={"uri": uri})

    async def _subscribe(
        self, ctx: ServerRequestContext[Any], params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        uri = str(params.uri)
        if uri not in self.resources and not any(
            t.variables(uri) is not None for t in self.templates.values()
        ):  # only what is served: a table of any strings a client sends would only grow
            raise MCPError(types.INVALID_PARAMS, "Resource not found", data={"uri": clipped(uri)})
        uris = self._subscribed.setdefault(_connection(ctx), set())
        if uri not in uris and len(uris) >= MAX_SUBSCRIPTIONS:
            raise MCPError(
                types.INVALID_PARAMS,
                f"This connection is subscribed to {MAX_SUBSCRIPTIONS} resources already: "
                "unsubscribe from one first.",
            )
        uris.add(uri)
        return types.EmptyResult()

    async def _unsubscribe(
        self, ctx: ServerRequestContext[Any], params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        self._subscribed.get(_connection(ctx), set()).discard(str(params.uri))
        return types.EmptyResult()

    # ── completion ────────────────────────────────────────────────────────────────────────

    async def _complete(
        self, ctx: ServerRequestContext[Any], params: types.CompleteRequestParams
    ) -> types.CompleteResult:
        ref = params.ref
        model: type[BaseModel] | None = None
        completer: Completer | None = None
        # What the reference names must be served (the spec: invalid params), not completed empty.
        if isinstance(ref, types.PromptReference):
            if ref.name not in self.prompts:
                raise MCPError(
                    types.INVALID_PARAMS,
                    f"Unknown prompt: {shown(ref.name)}",
                    data={"prompt": ref.name, "available": sorted(self.prompts)},
                )
            model, completer = self.prompts[ref.name].arguments, self.prompts[ref.name].complete
        else:
            if ref.uri not in self.templates:
                raise MCPError(
                    types.INVALID_PARAMS,
                    f"Unknown resource template: {shown(ref.uri)}",
                    data={"uri": ref.uri, "available": sorted(self.templates)},
                )
            template = self.templates[ref.uri]
            model, completer = template.parameters, template.complete
        name, typed = params.argument.name, params.argument.value
        allowed = _allowed_values(model, name) if model is not None else None
        if allowed is not None:
            values = [v for v in allowed if v.lower().startswith(typed.lower())]
        elif completer is not None:
            context = dict(params.context.arguments or {}) if params.context else {}
            values = [str(v) for v in await _awaited(completer(name, typed, context))]
        else:
            values = []
        return types.CompleteResult(
            completion=types.Completion(
                values=values[:MAX_COMPLETIONS],
                total=len(values),
                has_more=len(values) > MAX_COMPLETIONS,
            )
        )


class SpilledHandle(BaseModel):
    handle: str = Field(description="The handle a result's preview names (read_result's)")


SPILLED_RESULTS = "tooldesign://results/{handle}"
"""Where :func:`spilled_results` serves the results spilled past their budget."""


def spilled_results(runtime: Runtime) -> ResourceTemplate[SpilledHandle]:
    """The results ``runtime`` spilled past their budget (``Limits(result_overflow="spill")``)
    as resources: ``tooldesign://results/<handle>`` reads the whole result's JSON, the handle
    being the one its preview names, while it lasts. A result spilled within a run
    (``meta.run_id``) stays that run's, as ``read_result`` keeps it: it is not served here."""

    async def read(address: SpilledHandle) -> str:
        entry = await runtime.result_store.get(address.handle)
        if entry is None or entry.run_id is not None:
            raise KeyError(address.handle)
        return entry.value_json

    return ResourceTemplate(
        SPILLED_RESULTS,
        "spilled-result",
        "A tool's whole result, spilled past what a model reads of it",
        read,
        SpilledHandle,
        "application/json",
    )


Listener = Callable[[ServerEvent], None]


class _Bus:
    """The ``SubscriptionBus`` of a server's listen streams: its tools' changes and its
    content's events (prompt-list changes, resource updates)."""

    def __init__(self, tools: ChangeBus, content: ServerContent) -> None:
        self._tools = tools
        self._content = content

    async def publish(self, event: ServerEvent) -> None:
        if isinstance(event, PromptsListChanged | ResourceUpdated):
            self._content._emit(event)
        else:
            await self._tools.publish(event)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        content = self._content
        token = object()
        with content._lock:
            content._streams[token] = (asyncio.get_running_loop(), listener)
        stop_tools = self._tools.subscribe(listener)

        def stop() -> None:
            stop_tools()
            with content._lock:
                content._streams.pop(token, None)

        return stop


T = TypeVar("T")


def _unique(items: Sequence[T], key: Callable[[T], str], what: str) -> dict[str, T]:
    out: dict[str, T] = {}
    for item in items:
        if key(item) in out:
            raise ValueError(f"{what} {key(item)!r} is given twice")
        out[key(item)] = item
    return out


async def _awaited(value: T | Awaitable[T]) -> T:
    if inspect.isawaitable(value):
        return await value
    return value


def _argument_names(model: type[BaseModel]) -> list[str]:
    return [f.alias or name for name, f in model.model_fields.items()]


def _prompt(prompt: Prompt[Any]) -> types.Prompt:
    arguments = None
    if prompt.arguments is not None:
        arguments = [
            types.PromptArgument(
                name=f.alias or name, description=f.description, required=f.is_required()
            )
            for name, f in prompt.arguments.model_fields.items()
        ]
    return types.Prompt(
        name=prompt.name, title=prompt.title, description=prompt.description, arguments=arguments
    )


def _checked(model: type[ArgsT], values: Mapping[str, Any], where: str) -> ArgsT:
    """``values`` as ``model``: a value it rejects is invalid params naming the argument."""
    try:
        return model.model_validate(dict(values))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        raise MCPError(types.INVALID_PARAMS, f"Invalid arguments for {where}: {problems}") from None


def _allowed_values(model: type[BaseModel], argument: str) -> list[str] | None:
    """The values ``argument``'s type allows (a ``Literal`` or an ``Enum``), else ``None``."""
    for name, info in model.model_fields.items():
        if argument in (name, info.alias):
            annotation = info.annotation
            if get_origin(annotation) is Literal:
                return [str(v) for v in get_args(annotation)]
            if isinstance(annotation, type) and issubclass(annotation, Enum):
                return [str(member.value) for member in annotation]
    return None


def _connection(ctx: ServerRequestContext[Any]) -> Connection:
    """The client connection of a request: the SDK makes a session object per request, over
    the connection's one ``Connection`` (which lasts as long as the client is connected)."""
    connection: Connection = ctx.session._connection  # no public accessor in 2.3
    return connection


def _message(message: Message) -> types.PromptMessage:
    content = message.content
    if isinstance(content, str):
        text = types.TextContent(type="text", text=content)
        return types.PromptMessage(role=message.role, content=text)
    return types.PromptMessage.model_validate({"role": message.role, "content": content.to_mcp()})


def _contents(uri: str, mime_type: str, body: Body) -> types.ReadResourceResult:
    if isinstance(body, bytes):
        blob = base64.b64encode(body).decode("ascii")
        return types.ReadResourceResult(
            contents=[types.BlobResourceContents(uri=uri, mime_type=mime_type, blob=blob)]
        )
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=uri, mime_type=mime_type, text=body)]
    )
