"""What every provider shares: the tool description, names, errors and call plumbing."""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import pydantic_core
from pydantic import BaseModel
from tooldesign.contract.annotations import ToolAnnotations
from tooldesign.contract.catalog import CatalogTool, ToolDefinition
from tooldesign.contract.errors import UserError
from tooldesign.contract.ident import ToolIdent
from tooldesign.contract.loading import Loading
from tooldesign.contract.providers import Provider
from tooldesign.contract.rules import ArgumentRule, split_rules
from tooldesign.jsonschema.text import shown
from tooldesign.runtime.providers._schema import IGNORED, Schema, object_root
from tooldesign.runtime.request import ToolCallMeta, ToolRequest
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.spec.frozen import copy_json
from tooldesign.runtime.validation.schema import strip_optional_nulls

log = logging.getLogger("tooldesign.runtime.providers")

ProblemKind = Literal[
    "duplicate_name",
    "invalid_name",
    "open_map",
    "untyped",
    "recursive",
    "unsupported",
    "root_not_object",
    "bad_ref",
]


@dataclass(frozen=True, slots=True)
class ToolDescription:
    """One tool as every exporter sees it, whatever it was read from.

    ``parameters`` is the model-facing payload schema (injected fields and server data are
    never in it); ``result`` the result schema; ``example`` the design's example arguments
    (``None`` when there is none).
    """

    id: ToolIdent
    name: str
    description: str
    parameters: Mapping[str, Any]
    result: Mapping[str, Any]
    title: str | None = None
    example: Any = None
    annotations: ToolAnnotations = field(default_factory=ToolAnnotations)
    tags: tuple[str, ...] = ()
    loading: Loading | None = None
    """The design's ``Loading(...)`` (``None``: it does not say)."""

    @property
    def service(self) -> str:
        return self.id.service

    @property
    def toolset(self) -> str:
        return self.id.toolset


ToolSource = ToolDescription | ToolDefinition | Mapping[str, Any]
"""Anything :func:`describe` accepts: a generated ``ToolSpec`` or a :class:`CatalogTool` (each a
``ToolDefinition``), a raw catalog entry, or a description already made."""


def describe(source: ToolSource) -> ToolDescription:
    """Normalise a generated ``ToolSpec``, a :class:`CatalogTool` or a raw catalog entry."""
    if isinstance(source, ToolDescription):
        return source
    tool = CatalogTool.from_entry(source) if isinstance(source, Mapping) else source
    return ToolDescription(
        id=tool.id if isinstance(tool.id, ToolIdent) else ToolIdent(tool.id),
        name=tool.name,
        description=tool.description,
        parameters=tool.payload.schema,
        result=tool.result.schema,
        title=tool.title,
        example=tool.payload.example,
        annotations=tool.annotations,
        tags=tuple(tool.tags),
        loading=tool.loading,
    )


@dataclass(frozen=True, slots=True)
class ExportProblem:
    """Why one tool cannot be exported as asked.

    ``path`` is the field, as people write it (``filter.op``, ``resources[].tags``,
    ``labels.*``; ``""`` for the arguments object itself), or ``None`` when the problem is the
    tool itself (its name).
    """

    tool: str
    name: str
    path: str | None
    message: str
    kind: ProblemKind

    def __str__(self) -> str:
        head = f"tool {self.name!r} ({self.tool})"
        if self.path is None:
            return f"{head}: {self.message}"
        where = f"field {self.path!r}" if self.path else "its arguments"
        return f"{head}, {where}: {self.message}"


class ExportError(UserError, ValueError):
    """Tools that cannot be exported as asked. Lists every problem found, not only the first."""

    def __init__(self, provider: str | None, problems: Sequence[ExportProblem]) -> None:
        self.provider = provider
        self.problems = tuple(problems)
        target = f"for {provider}" if provider else ""
        lines = "\n".join(f"  - {problem}" for problem in self.problems)
        head = " ".join(part for part in ("cannot export tools", target) if part)
        super().__init__(f"{head}:\n{lines}")


_NAME_RULES: Mapping[str, tuple[re.Pattern[str], str]] = {
    "openai": (re.compile(r"[A-Za-z0-9_-]{1,64}"), "1-64 letters, digits, '_' or '-'"),
    "anthropic": (re.compile(r"[A-Za-z0-9_-]{1,128}"), "1-128 letters, digits, '_' or '-'"),
    # As google-genai's FunctionDeclaration.name documents it.
    "gemini": (
        re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,127}"),
        "a letter or '_' first, then letters, digits, '_', '.', ':' or '-', at most 128 in all",
    ),
    "mcp": (re.compile(r"[A-Za-z0-9_.-]{1,128}"), "1-128 letters, digits, '_', '.' or '-'"),
}


class ToolIndex:
    """The tools of one export: their provider-facing names and the way back to their ids.

    Provider-facing names are the tool names. Two tools with the same name (tools of two
    services, say) would be indistinguishable to a model, so they are an :class:`ExportError`
    naming both ids.
    """

    def __init__(self, tools: Iterable[ToolSource]) -> None:
        self._tools = tuple(describe(tool) for tool in tools)
        by_name: dict[str, ToolDescription] = {}
        by_id: dict[str, ToolDescription] = {}
        problems: list[ExportProblem] = []
        for tool in self._tools:
            if tool.id in by_id:
                problems.append(_problem(tool, None, "the tool is listed twice", "duplicate_name"))
                continue
            other = by_name.get(tool.name)
            if other is not None:
                message = (
                    f"{other.id!r} and {tool.id!r} would both be called {tool.name!r}; "
                    "export them separately or rename one"
                )
                problems.append(_problem(tool, None, message, "duplicate_name"))
                continue
            by_name[tool.name] = tool
            by_id[tool.id] = tool
        if problems:
            raise ExportError(None, problems)
        self._by_name = by_name
        self._by_id = by_id

    def __iter__(self) -> Iterator[ToolDescription]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    @property
    def names(self) -> Mapping[str, ToolIdent]:
        """Provider-facing name → tool id."""
        return {name: tool.id for name, tool in self._by_name.items()}

    def tool_id(self, name: str) -> ToolIdent | None:
        """The id of the tool a provider calls ``name``, or ``None`` if there is none."""
        tool = self._by_name.get(name)
        return tool.id if tool is not None else None

    def get(self, key: str) -> ToolDescription | None:
        """The tool with this provider-facing name or id."""
        return self._by_name.get(key) or self._by_id.get(key)

    def name_problems(self, provider: Provider) -> list[ExportProblem]:
        """The tools whose names break ``provider``'s naming rule."""
        pattern, rule = _NAME_RULES[provider]
        return [
            _problem(tool, None, f"{provider} tool names must be {rule}", "invalid_name")
            for tool in self._tools
            if not pattern.fullmatch(tool.name)
        ]

    def check_names(self, provider: Provider) -> None:
        """Raise :class:`ExportError` if a name breaks ``provider``'s naming rule."""
        problems = self.name_problems(provider)
        if problems:
            raise ExportError(provider, problems)


def _problem(
    tool: ToolDescription, path: str | None, message: str, kind: ProblemKind
) -> ExportProblem:
    return ExportProblem(tool=tool.id, name=tool.name, path=path, message=message, kind=kind)


class ProviderAdapter(ABC):
    """One provider's view of a set of tools: definitions out, calls in, results out.

    ``tools()`` builds the provider's tool definitions (fresh objects on every call, sharing
    nothing with the specs: change them freely). ``parse_calls()`` turns a provider response
    (or its tool-call items, as plain dicts or the provider SDK's own objects) into
    :class:`ToolRequest` objects for the runtime. ``result_message()`` turns a
    :class:`ToolResult` into the message the provider expects back.

    Each tool is exported in the form asked for (:meth:`convert`: strict, Gemini's OpenAPI
    parameters…). With ``fallback``, a tool that form cannot express is exported in the
    provider's plain form (:meth:`plain`: any JSON Schema) instead of failing the export;
    :attr:`fallbacks` says which tools, and why.
    """

    provider: ClassVar[Provider]
    call_id_prefix: ClassVar[str | None] = None
    """How ids this provider gives its calls begin, when it links each result to its call by id
    (``call_``); ``None`` when results need no id."""
    label: str = ""
    """How errors name this export (``openai (strict)``); the provider's name by default."""
    fallback_form: ClassVar[str] = ""
    """How notes name the plain form tools fall back to (``without strict mode``)."""

    takes_rules: bool = True
    """Whether the provider takes the keywords that state rules across arguments
    (``allOf`` of ``anyOf``/``oneOf``, ``if``/``then``/``else``). Where it does not, they are
    taken out of the schema and said in the tool's description (:attr:`restated_rules`), so the
    model still reads every rule the decoder checks: never a silently looser schema."""

    def __init__(self, index: ToolIndex, *, fallback: bool = False) -> None:
        self.index = index
        self.fallback = fallback
        self._fresh: dict[str, Schema] = {}
        self._fallbacks: dict[str, tuple[ExportProblem, ...]] = {}
        self._restated: dict[str, tuple[ArgumentRule, ...]] = {}

    def plain(self, tool: ToolDescription) -> tuple[Schema, list[ExportProblem]]:
        """``tool``'s parameters as the provider takes any JSON Schema, as new objects, and what
        could not be converted. The schema as it is, with a root ``$ref`` resolved: every
        provider wants the arguments object itself at the root."""
        # The whole root is copied, then trimmed: a spec's schema is copied from its image.
        schema = copy_json(object_root(tool.parameters))
        for key in IGNORED:
            schema.pop(key, None)
        if schema.get("type") == "object":
            return schema, []
        message = 'not an object schema ({"type": "object", ...}), as every provider needs'
        return schema, [_problem(tool, "", message, "root_not_object")]

    def convert(self, tool: ToolDescription) -> tuple[Schema, list[ExportProblem]]:
        """``tool``'s parameters in the form asked for, as new objects, and what that form
        cannot express (the plain form by default)."""
        return self.plain(tool)

    @property
    def fallbacks(self) -> Mapping[ToolIdent, tuple[ExportProblem, ...]]:
        """The tools exported in the plain form (with ``fallback``), each with what the form
        asked for could not express."""
        return {ToolIdent(ident): found for ident, found in self._fallbacks.items()}

    @property
    def restated_rules(self) -> Mapping[ToolIdent, tuple[ArgumentRule, ...]]:
        """The tools whose rules across arguments the provider cannot take: said in
        their descriptions instead, by the rules' own words (the decoder's retry hint uses
        them too)."""
        return {ToolIdent(ident): rules for ident, rules in self._restated.items()}

    def description(self, tool: ToolDescription) -> str:
        """``tool``'s description, with its rules across arguments when the provider cannot
        state them in the schema."""
        rules = self._restated.get(tool.id)
        if not rules:
            return tool.description
        said = "; ".join(rule.words() for rule in rules)
        return f"{tool.description.rstrip()}\n\nRules across the arguments: {said}."

    def _bare(self, tool: ToolDescription) -> ToolDescription:
        """``tool`` without its rules across arguments when the provider cannot take them
        (kept, to be said in its description), in whichever form it is exported."""
        if self.takes_rules:
            return tool
        bare, rules = split_rules(tool.parameters)
        if not rules:
            return tool
        self._restated[tool.id] = rules
        return dataclasses.replace(tool, parameters=bare)

    def in_asked_form(self, tool: ToolDescription) -> bool:
        """Whether ``tool`` is exported in the form asked for (not fallen back to plain)."""
        return tool.id not in self._fallbacks

    def _convert_all(self) -> None:
        """Convert every tool now, so what cannot be exported fails here, all of it at once.

        The conversions are kept for the first :meth:`tools` call (nobody else holds them);
        later calls convert again, so each caller gets objects of its own.
        """
        # Names and schemas are checked together: one error lists every problem of every tool.
        problems = self.index.name_problems(self.provider)
        for tool in map(self._bare, self.index):
            schema, found = self.convert(tool)
            if found and self.fallback:
                plain, plain_problems = self.plain(tool)
                if not plain_problems:
                    self._fallbacks[tool.id] = tuple(found)
                    schema, found = plain, []
            problems.extend(found)
            self._fresh[tool.id] = schema
        if problems:
            raise ExportError(self.label or self.provider, problems)

    def parameters(self, tool: ToolDescription) -> Schema:
        """``tool``'s converted parameters, for one definition (fresh objects)."""
        schema = self._fresh.pop(tool.id, None)
        if schema is not None:
            return schema
        tool = self._bare(tool)
        return (self.convert(tool) if self.in_asked_form(tool) else self.plain(tool))[0]

    @abstractmethod
    def tools(self) -> list[dict[str, Any]]:
        """The provider's tool definitions, one per tool, in catalog order."""

    def parse_calls(self, source: Any, *, meta: ToolCallMeta | None = None) -> list[ToolRequest]:
        """The tool calls in ``source``, in order. ``meta`` is the base of each call's meta.

        Every call the provider sent becomes a request, malformed ones included, so each gets
        the answer the provider waits for: a call without a usable name fails as an unknown
        tool (a name that is not a string is shown as JSON), arguments that are not an object
        fail as invalid arguments. A call without an id, for a provider that links results to
        calls by id, is given one (logged), so :meth:`result_message` can always answer it.
        """
        return [
            self._request(name, arguments, call_id, meta)
            for name, arguments, call_id in self.raw_calls(source)
        ]

    @abstractmethod
    def raw_calls(self, source: Any) -> Iterable[tuple[Any, Any, Any]]:
        """``(name, arguments, call id)`` of each tool call in ``source``, as the provider
        wrote them (SDK objects or plain dicts); :meth:`parse_calls` checks and decodes them."""

    @abstractmethod
    def result_message(self, result: ToolResult, *, call_id: str | None = None) -> dict[str, Any]:
        """What goes back to the provider for one result."""

    def result_messages(self, results: Iterable[ToolResult]) -> list[dict[str, Any]]:
        """:meth:`result_message` for each result."""
        return [self.result_message(result) for result in results]

    def tool_id(self, name: str) -> ToolIdent | None:
        """The id of the tool the provider calls ``name``."""
        return self.index.tool_id(name)

    def strict_tool_ids(self) -> frozenset[str]:
        """Tools whose exported schema is strict: their calls carry nulls for omitted fields."""
        return frozenset()

    # --- shared plumbing for subclasses ---

    def _request(
        self, name: Any, arguments: Any, call_id: Any, meta: ToolCallMeta | None
    ) -> ToolRequest:
        called = _called_name(name)
        tool = self.index.get(called) if isinstance(name, str) and name else None
        strict = tool is not None and tool.id in self.strict_tool_ids()
        payload = decode_arguments(arguments, tool.parameters if strict and tool else None)
        base = meta or ToolCallMeta()
        ident = self._request_id(call_id, called)
        return ToolRequest(
            name=tool.id if tool is not None else called,
            payload=payload,
            meta=dataclasses.replace(base, tool_call_id=ident) if ident else base,
        )

    def _request_id(self, call_id: Any, called: str) -> str | None:
        """The call's id as the provider wrote it; a new one if it has none and needs one."""
        if type(call_id) is int:
            return str(call_id)
        if isinstance(call_id, str) and call_id:
            return call_id
        if self.call_id_prefix is None:
            return None
        # The provider waits for an answer to this call, linked by an id it did not give:
        # a fresh id keeps the answer well-formed (and apart from other calls' answers).
        generated = f"{self.call_id_prefix}{uuid.uuid4().hex[:24]}"
        if call_id is None or call_id == "":
            sent = "no id" if call_id is None else "an empty id"
        else:
            sent = f"the id {shown(call_id)}, which is not a string"
        log.warning(
            "a %s tool call to %s came with %s; it is answered as %s",
            self.provider,
            shown(called),
            sent,
            generated,
        )
        return generated

    def _call_id(self, result: ToolResult, call_id: str | None) -> str:
        value = call_id or result.tool_call_id
        if not value:
            raise ValueError(
                f"the result of {result.name!r} has no tool_call_id; {self.provider} needs it to "
                "link the result to its call (set ToolRequest.meta.tool_call_id, or pass call_id=)"
            )
        return value

    def _provider_name(self, result: ToolResult) -> str:
        tool = self.index.get(result.name)
        return tool.name if tool is not None else result.name


def _called_name(name: Any) -> str:
    """The name a call asked for, as a ToolRequest name: a string as it is (``""`` when there
    is none); anything else as its JSON text cut short, so the answer shows what was sent."""
    if isinstance(name, str):
        return name
    return "" if name is None else shown(name)


def decode_arguments(
    raw: Any, strict_schema: Mapping[str, Any] | None
) -> str | bytes | dict[str, Any]:
    """A call's arguments as the runtime takes them.

    JSON text is parsed; text that is not a JSON object is passed through untouched, so the
    runtime reports it to the model (never raised here). With ``strict_schema`` (the tool's
    original schema, when it was exported strict), the nulls strict mode forced on optional
    fields are removed.
    """
    if raw is None:
        return {}
    value: Any = raw
    if isinstance(raw, str | bytes | bytearray):
        try:
            value = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            return bytes(raw) if isinstance(raw, bytearray) else raw
        if not isinstance(value, dict):
            return bytes(raw) if isinstance(raw, bytearray) else raw
    elif isinstance(raw, Mapping):
        value = dict(raw)
    else:
        return json.dumps(raw, default=str)
    if strict_schema is not None:
        value = strip_optional_nulls(value, strict_schema)
    return dict(value)


def field_of(obj: Any, *names: str) -> Any:
    """The first of ``names`` present on ``obj``, a dict or an SDK object; ``None`` if none is."""
    for name in names:
        if isinstance(obj, Mapping):
            if name in obj and obj[name] is not None:
                return obj[name]
        else:
            value = getattr(obj, name, None)
            if value is not None:
                return value
    return None


def as_list(value: Any) -> list[Any]:
    """``value`` as a list of items: a list or tuple as is, anything else alone."""
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return list(value)
    return [value]


def result_value(result: ToolResult) -> tuple[bool, Any]:
    """A successful result as JSON data: ``(True, value)``, or ``(False, None)`` if it is none.

    Read from the runtime's encoding of the result (``result_json``), not from ``for_model()``,
    which sends a text result as the text itself; a result made without one (by an
    interceptor) is read from its value. A text result cut to its budget is the cut text.
    """
    if result.model_text is not None:  # a text result cut to the budget: what the model reads
        return True, result.model_text
    if result.result_json is not None:
        ok, value = parse_json_text(result.result_json)
        return (True, value) if ok else (False, None)
    value = result.result
    if isinstance(value, BaseModel):
        return True, value.model_dump(mode="json", by_alias=True, exclude_none=True)
    try:
        return True, json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError, RecursionError):
        return False, None


def parse_json_text(text: str) -> tuple[bool, Any]:
    """``(True, value)`` when ``text`` is JSON, else ``(False, text)``. Read by pydantic's JSON
    parser: every result's structured content is read from its text, at a quarter of
    ``json.loads``'s cost (which still reads what that parser refuses: an escaped lone
    surrogate)."""
    try:
        return True, pydantic_core.from_json(text)
    except ValueError:
        pass
    try:
        return True, json.loads(text)
    except ValueError:
        return False, text
