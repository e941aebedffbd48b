"""Input requests from a running tool: ask the user for typed input (elicitation), the host's
model for a completion (sampling), or the client for its roots.

A tool asks through the :class:`Exchanges` of its call (:func:`exchanges`)::

    answer = await exchanges().ask_user("Which maintenance window?", Window)
    if answer.accepted:
        window = answer.content          # a Window, validated against the form
    reply = await exchanges().ask_model("Summarise: ...", max_tokens=200)
    roots = await exchanges().roots()

A sync tool (run in a worker thread) calls ``ask_user_sync``, ``ask_model_sync`` and
``roots_sync``. The form of ``ask_user`` is a pydantic model (a design type's generated model,
say): its fields become an MCP elicitation form — flat, of strings, numbers, integers and
booleans, enums single and multiple, titled or not — with their titles, descriptions,
defaults and bounds (:func:`form_schema`); or a form schema given as it is.

Who answers is set per call by whoever runs it, with :func:`answering`, the way an approver is:
the MCP server asks its client (mid-call on the handshake protocol, through ``input_required``
results on 2026-07-28); in process, any function from an :class:`InputRequest` to the answer's
wire form (``ElicitResult``, ``CreateMessageResult`` or ``ListRootsResult`` as JSON) answers.
A call with nobody to ask fails with :class:`InputUnavailable`, in words the model can read.

An accepted answer that does not match the form is not a person's refusal, nor their consent:
the tool gets :class:`AnswerMismatch` (or, over round trips, the client is asked again).
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import itertools
import threading
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, NoReturn, TypeVar, overload

from pydantic import BaseModel, ValidationError
from tooldesign.jsonschema import keywords as K
from tooldesign.runtime.control.interceptors import deadlines_paused
from tooldesign.runtime.errors import ToolFailure

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

ELICIT = "elicitation/create"
SAMPLE = "sampling/createMessage"
ROOTS = "roots/list"

Action = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True, slots=True)
class InputRequest:
    """One request a tool makes of whoever runs it: the MCP ``method`` (``elicitation/create``,
    ``sampling/createMessage``, ``roots/list``), its wire ``params``, and ``key``, unique in
    the call (what a round trip's answer is keyed by)."""

    key: str
    method: str
    params: Mapping[str, Any] = field(default_factory=dict)


Exchanger = Callable[[InputRequest], Mapping[str, Any] | Awaitable[Mapping[str, Any]]]
"""Answers a tool's :class:`InputRequest` with the wire form of the MCP result (sync or async)."""


class InputUnavailable(ToolFailure):
    """The tool asked for input, and this call has nobody to ask (or the client cannot answer
    that kind of request)."""


class AnswerMismatch(ToolFailure):
    """The answer accepted does not match the form asked: it says nothing of what the person
    chose (neither a refusal nor consent)."""


@dataclass(frozen=True, slots=True)
class Answer(Generic[T]):
    """A person's answer to a form: ``accept`` with ``content`` (the form's type), ``decline``
    or ``cancel`` (dismissed) without it."""

    action: Action
    content: T | None = None

    @property
    def accepted(self) -> bool:
        return self.action == "accept" and self.content is not None


@dataclass(frozen=True, slots=True)
class Sampled:
    """The host model's completion: its ``text`` (``None`` for another kind of content), the
    ``model`` that wrote it, why it stopped, and the message as sent."""

    text: str | None
    model: str
    stop_reason: str | None
    message: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Root:
    """One of the client's roots: a ``uri`` (``file://…``) and an optional ``name``."""

    uri: str
    name: str | None = None


_METHODS = {"user": ELICIT, "model": SAMPLE, "roots": ROOTS}
_PRIMITIVES = frozenset({"string", "number", "integer", "boolean"})


def form_schema(form: type[BaseModel]) -> dict[str, Any]:
    """The MCP elicitation form of a pydantic model: a flat object of primitive fields (and
    arrays of enum values for multiple choice), ``$ref``s to enums inlined, optional fields
    not required; titles, descriptions, defaults, enums and bounds kept.

    Raises ``TypeError`` naming the field that a form cannot hold (an object, a list of free
    values, a union of types).
    """
    schema = form.model_json_schema()
    defs: Mapping[str, Any] = schema.get(K.DEFS, {})
    required = set(schema.get(K.REQUIRED, ()))
    properties: dict[str, Any] = {}
    for name, prop in schema.get(K.PROPERTIES, {}).items():
        field_schema = _inlined(prop, defs)
        options = field_schema.get(K.ANY_OF)
        if options is not None:  # Optional[X]: X, not required
            kept = [o for o in options if o.get(K.TYPE) != "null"]
            if len(kept) != 1:
                raise TypeError(f"field {name!r} of form {form.__name__}: a union of types")
            rest = {k: v for k, v in field_schema.items() if k != K.ANY_OF}
            field_schema = {**_inlined(kept[0], defs), **rest}
            required.discard(name)
        kind = field_schema.get(K.TYPE)
        if kind == "array":
            items = _inlined(field_schema.get(K.ITEMS, {}), defs)
            if K.ENUM not in items and K.ANY_OF not in items:
                raise TypeError(
                    f"field {name!r} of form {form.__name__}: a list must be of enum values"
                )
            field_schema = {**field_schema, K.ITEMS: items}
        elif kind not in _PRIMITIVES:
            raise TypeError(
                f"field {name!r} of form {form.__name__}: a form holds strings, numbers, "
                f"integers, booleans and enums, not {kind or 'this type'}"
            )
        properties[name] = field_schema
    out: dict[str, Any] = {K.TYPE: "object", K.PROPERTIES: properties}
    kept_required = [n for n in properties if n in required]
    if kept_required:
        out[K.REQUIRED] = kept_required
    return out


def _inlined(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> dict[str, Any]:
    ref = schema.get(K.REF)
    if not isinstance(ref, str):
        return dict(schema)
    target = dict(defs.get(ref.rsplit("/", 1)[-1], {}))
    target.pop(K.TITLE, None)  # the enum class's name, not the field's title
    return {**target, **{k: v for k, v in schema.items() if k != K.REF}}


class Exchanges:
    """The input requests of one call (:func:`exchanges` gives the running call's)."""

    __slots__ = ("_counter", "_exchanger", "_lock", "_loop")

    def __init__(
        self, exchanger: Exchanger | None, loop: asyncio.AbstractEventLoop | None = None
    ) -> None:
        self._exchanger = exchanger
        self._loop = loop
        self._lock = threading.Lock()
        self._counter = itertools.count(1)

    @property
    def available(self) -> bool:
        """Whether someone can answer this call's requests."""
        return self._exchanger is not None

    def can_ask(self, whom: Literal["user", "model", "roots"]) -> bool:
        """Whether whoever answers can answer that kind of request (an MCP client declares
        ``elicitation``, ``sampling`` and ``roots`` as capabilities): a tool can leave out a
        question it cannot ask rather than fail."""
        exchanger = self._exchanger
        if exchanger is None:
            return False
        can = getattr(exchanger, "can_answer", None)
        return True if can is None else bool(can(_METHODS[whom]))

    # ── asking ────────────────────────────────────────────────────────────────────────────

    @overload
    async def ask_user(
        self, message: str, form: type[M], *, key: str | None = None
    ) -> Answer[M]: ...
    @overload
    async def ask_user(
        self, message: str, form: Mapping[str, Any], *, key: str | None = None
    ) -> Answer[dict[str, Any]]: ...
    async def ask_user(
        self, message: str, form: type[BaseModel] | Mapping[str, Any], *, key: str | None = None
    ) -> Answer[Any]:
        """Ask the user to fill in ``form`` (a pydantic model, or a form schema as it is)."""
        schema = form_schema(form) if isinstance(form, type) else dict(form)
        request = InputRequest(
            self._key(key, "user"), ELICIT, {"message": message, "requestedSchema": schema}
        )
        wire = await self._ask(request)
        action = wire.get("action")
        if action not in ("accept", "decline", "cancel"):
            self._mismatch(request, f"an answer with action {action!r}")
        if action != "accept":
            return Answer(action)
        content = wire.get("content")
        if isinstance(form, type):
            try:
                return Answer("accept", form.model_validate(content or {}))
            except ValidationError as exc:
                self._mismatch(request, f"{exc.error_count()} field(s) wrong")
        problem = form_problem(schema, content)
        if problem is not None:
            self._mismatch(request, problem)
        return Answer("accept", dict(content or {}))

    async def ask_model(
        self,
        prompt: str | Sequence[Mapping[str, Any]],
        *,
        max_tokens: int = 1000,
        system: str | None = None,
        key: str | None = None,
        **params: Any,
    ) -> Sampled:
        """Ask the host's model: ``prompt`` is a user message's text, or the messages as MCP
        sends them; ``params`` are more of ``sampling/createMessage``'s (``temperature``,
        ``modelPreferences``, …)."""
        messages = (
            [{"role": "user", "content": _text_block(prompt)}]
            if isinstance(prompt, str)
            else [dict(m) for m in prompt]
        )
        wire_params: dict[str, Any] = {"messages": messages, "maxTokens": max_tokens, **params}
        if system is not None:
            wire_params["systemPrompt"] = system
        request = InputRequest(self._key(key, "model"), SAMPLE, wire_params)
        wire = await self._ask(request)
        content = wire.get("content")
        if not isinstance(content, Mapping) or not isinstance(wire.get("model"), str):
            self._mismatch(request, "not a sampled message")
        text = content.get("text")  # a text block's (an image or audio block has none)
        return Sampled(
            text if isinstance(text, str) else None, wire["model"], wire.get("stopReason"), wire
        )

    async def roots(self, *, key: str | None = None) -> tuple[Root, ...]:
        """The client's roots."""
        request = InputRequest(self._key(key, "roots"), ROOTS, {})
        wire = await self._ask(request)
        roots = wire.get("roots")
        if not isinstance(roots, list) or not all(
            isinstance(r, Mapping) and isinstance(r.get("uri"), str) for r in roots
        ):
            self._mismatch(request, "not a list of roots")
        return tuple(Root(str(r["uri"]), r.get("name")) for r in roots)

    # ── from sync tools (worker threads) ─────────────────────────────────────────────────

    def ask_user_sync(self, message: str, form: Any, *, key: str | None = None) -> Answer[Any]:
        """:meth:`ask_user` from a sync tool."""
        return self._sync(self.ask_user(message, form, key=key))

    def ask_model_sync(self, prompt: str | Sequence[Mapping[str, Any]], **options: Any) -> Sampled:
        """:meth:`ask_model` from a sync tool."""
        return self._sync(self.ask_model(prompt, **options))

    def roots_sync(self, *, key: str | None = None) -> tuple[Root, ...]:
        """:meth:`roots` from a sync tool."""
        return self._sync(self.roots(key=key))

    def _sync(self, coro: Coroutine[Any, Any, T]) -> T:
        """``coro`` run for a sync tool: on the event loop ``answering`` was entered on, or
        (entered outside one, as around ``execute_sync``) on this worker thread."""
        if asyncio._get_running_loop() is not None:
            coro.close()
            raise RuntimeError("an async tool awaits ask_user/ask_model/roots, not *_sync")
        loop = self._loop
        if loop is not None and loop.is_running():
            return asyncio.run_coroutine_threadsafe(coro, loop).result()
        return asyncio.run(coro)

    # ── plumbing ──────────────────────────────────────────────────────────────────────────

    def _key(self, key: str | None, kind: str) -> str:
        if key is not None:
            return key
        with self._lock:
            return f"{kind}-{next(self._counter)}"

    async def _ask(self, request: InputRequest) -> Mapping[str, Any]:
        exchanger = self._exchanger
        if exchanger is None:
            raise InputUnavailable(_NOBODY)
        answer = exchanger(request)
        if inspect.isawaitable(answer):
            if request.method == ELICIT:
                # A person's time is not the tool's, as for an approval: the call's Timeout
                # clocks stop while the user fills in the form (a task may wait hours).
                with deadlines_paused():
                    answer = await answer
            else:
                answer = await answer
        if not isinstance(answer, Mapping):
            return {}
        return answer

    def _mismatch(self, request: InputRequest, problem: str) -> NoReturn:
        ask_again = getattr(self._exchanger, "ask_again", None)
        if ask_again is not None:  # round trips: the client is asked again
            ask_again(request)
        raise AnswerMismatch(
            f"The answer to {request.key!r} ({request.method}) does not match what was asked: "
            f"{problem}. Nothing was decided; ask again or go on without it."
        )


def _text_block(text: str) -> dict[str, Any]:
    """An MCP text content block (its ``type`` is MCP's, not a JSON Schema keyword)."""
    return dict(type="text", text=text)  # noqa: C408


_NOBODY = (
    "This tool needs input from the user or the client during the call, and nobody can be "
    "asked here. Tell the user what is needed instead."
)


def form_problem(schema: Mapping[str, Any], content: Any) -> str | None:
    """What is wrong with ``content`` as an answer to the form ``schema`` (``None``: nothing)."""
    import jsonschema

    try:
        jsonschema.validate(content, schema)
    except jsonschema.ValidationError as exc:
        return exc.message[:200]
    except jsonschema.SchemaError:
        return "the form itself is not a schema"
    return None


_current: contextvars.ContextVar[Exchanges | None] = contextvars.ContextVar(
    "tooldesign_exchanges", default=None
)
_NONE = Exchanges(None)


def exchanges() -> Exchanges:
    """The running call's :class:`Exchanges` (one whose requests fail with
    :class:`InputUnavailable` when nobody can answer)."""
    return _current.get() or _NONE


class answering:
    """Within the block, the input requests of calls go to ``exchanger`` (around ``await
    execute(...)`` or ``execute_sync(...)``; a sync tool's requests are answered on the event
    loop the block was entered on, or, entered outside one, on the tool's worker thread).
    ``with answering(exchanger) as exchanges:``. A class, not a generator-based context
    manager: an MCP server enters one on every call."""

    __slots__ = ("_exchanger", "_token")

    def __init__(self, exchanger: Exchanger) -> None:
        self._exchanger = exchanger

    def __enter__(self) -> Exchanges:
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        current = Exchanges(self._exchanger, loop)
        self._token = _current.set(current)
        return current

    def __exit__(self, *_: object) -> None:
        _current.reset(self._token)


__all__ = [
    "ELICIT",
    "ROOTS",
    "SAMPLE",
    "Answer",
    "AnswerMismatch",
    "Exchanger",
    "Exchanges",
    "InputRequest",
    "InputUnavailable",
    "Root",
    "Sampled",
    "answering",
    "exchanges",
    "form_schema",
]
