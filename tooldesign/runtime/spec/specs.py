"""Specs: what generated ``specs.py`` modules declare about each tool.

Specs are immutable data. They are what agents introspect, what the runtime dispatches on,
and what provider exports are built from. Their schemas, examples and field descriptions are
frozen when a spec is made (:mod:`tooldesign.runtime.spec.frozen`): what a model is shown cannot be
changed away from what the decoder checks. Copy one (``copy.deepcopy``) to change it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, Self, TypeVar

from pydantic import BaseModel
from tooldesign.contract.agents import AgentContract
from tooldesign.contract.annotations import ToolAnnotations
from tooldesign.contract.asks import Whom
from tooldesign.contract.code_access import CodeAccess
from tooldesign.contract.confirm import ConfirmSpec
from tooldesign.contract.content import ContentKind
from tooldesign.contract.ident import ToolIdent
from tooldesign.contract.limits import ToolLimits
from tooldesign.contract.loading import Loading
from tooldesign.contract.repairs import FieldRepair
from tooldesign.contract.tasks import TaskSupport
from tooldesign.runtime.spec.frozen import freeze
from tooldesign.runtime.spec.lazy_types import ModelRef

ModelT = TypeVar("ModelT", bound=BaseModel)
PayloadT = TypeVar("PayloadT", bound=BaseModel)
ResultT = TypeVar("ResultT", bound=BaseModel)

JsonSchema = Mapping[str, Any]


class _HoldsModel(Generic[ModelT]):
    """What both kinds of type spec do with their model: resolve it on first read, and stay
    themselves when copied."""

    __slots__ = ()
    _model: type[ModelT] | ModelRef[ModelT]

    @property
    def model(self) -> type[ModelT]:
        """The model class (its toolset's models imported on first use)."""
        return _resolved(self._model)

    @property
    def model_module(self) -> str:
        """The module that defines the model (``<package>.types`` for generated specs), read
        without importing it."""
        model = self._model
        return model.types._module_ if isinstance(model, ModelRef) else model.__module__

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self  # immutable: a copy could only be a spec whose JSON is not frozen


@dataclass(frozen=True, slots=True, init=False)
class TypeSpec(_HoldsModel[ModelT]):
    """A payload, result or server-data type: its generated model and model-facing schema.

    ``model`` is the model class; generated specs give a :class:`ModelRef` instead, so that
    their toolset's models are imported when one is first read, not with the specs.
    ``schema`` is what a model sees (JSON Schema 2020-12; injected fields removed).
    ``field_descriptions`` maps dotted field paths (``devices[].id``) to design descriptions.
    ``check_schema`` is set when parts of ``schema`` are kept verbatim (``Any(schema=...)``):
    the model type cannot check those, so the codecs also validate values against ``schema``.
    ``schema``, ``example`` and ``field_descriptions`` are frozen: read-only ``dict``s and
    ``list``s, all the way down.
    """

    name: str
    schema: JsonSchema
    example: Any
    field_descriptions: Mapping[str, str]
    check_schema: bool
    _model: type[ModelT] | ModelRef[ModelT]

    def __init__(
        self,
        name: str,
        model: type[ModelT] | ModelRef[ModelT],
        schema: JsonSchema,
        example: Any = None,
        field_descriptions: Mapping[str, str] | None = None,
        check_schema: bool = False,
    ) -> None:
        _set_fields(
            self,
            name=name,
            _model=model,
            schema=freeze(schema),
            example=freeze(example),
            field_descriptions=freeze(field_descriptions or {}),
            check_schema=check_schema,
        )


@dataclass(frozen=True, slots=True, init=False)
class ServerDataSpec(_HoldsModel[ModelT]):
    """Typed data a tool emits for observers (UIs, logs), never for the model."""

    kind: str
    schema: JsonSchema
    description: str | None
    default: Literal["on", "off"]
    _model: type[ModelT] | ModelRef[ModelT]

    def __init__(
        self,
        kind: str,
        model: type[ModelT] | ModelRef[ModelT],
        schema: JsonSchema,
        description: str | None,
        default: Literal["on", "off"],
    ) -> None:
        _set_fields(
            self,
            kind=kind,
            _model=model,
            schema=freeze(schema),
            description=description,
            default=default,
        )


@dataclass(frozen=True, slots=True)
class BoundsSpec:
    """How a bounded tool pages: the payload field that takes a cursor, the result field that returns one."""

    cursor_field: str | None = None
    next_cursor_field: str | None = None


@dataclass(frozen=True, slots=True)
class ToolSpec(Generic[PayloadT, ResultT]):
    """Everything the design says about one tool (a catalog ``ToolDefinition``: its catalog
    entry is ``tooldesign.contract.catalog.catalog_entry(spec)``)."""

    id: ToolIdent
    name: str
    service: str
    toolset: str
    title: str | None
    description: str
    tags: tuple[str, ...]
    payload: TypeSpec[PayloadT]
    result: TypeSpec[ResultT]
    bounded: bool = False
    bounds: BoundsSpec | None = None
    injected: tuple[str, ...] = ()
    server_data: tuple[ServerDataSpec[Any], ...] = ()
    annotations: ToolAnnotations = field(default_factory=ToolAnnotations)
    confirm: ConfirmSpec | None = None
    """``Confirm``: a person approves its calls (those ``confirm.when`` selects) before they run."""
    code_access: CodeAccess | None = None
    asks: tuple[Whom, ...] = ()
    """Whom the tool asks during a call, as its design's ``Asks`` says."""
    task: TaskSupport | None = None
    """``LongRunning``: it may (or must) run as a long-running task (MCP's tasks extension)."""
    """``CodeAccess``: whether code mode's code may call it (``None``: its side effects say)."""
    content: tuple[ContentKind, ...] = ()
    """``Content``: the content blocks its result may carry beside its data."""
    repairs: tuple[FieldRepair, ...] = ()
    """The payload fields whose slips the runtime repairs (``Repairs``, ``repair=``)."""
    limits: ToolLimits = field(default_factory=ToolLimits)
    """The design's own limits for this tool (``Limits(...)``): each set one replaces the
    runtime's."""
    loading: Loading | None = None
    """``Loading("deferred")``: exports load it through a tool search (``None``: eagerly)."""
    agent: AgentContract | None = None
    """``ImplementedByAgent``: the tool's implementation is an agent run (its contract)."""
    scopes: tuple[str, ...] = ()
    """``Scopes``: every scope a caller's verified principal must hold to call it (sorted)."""

    def server_data_spec(self, kind: str) -> ServerDataSpec[Any] | None:
        for spec in self.server_data:
            if spec.kind == kind:
                return spec
        return None


def _set_fields(spec: object, **values: Any) -> None:
    for name, value in values.items():
        # A frozen dataclass sets its fields through object's __setattr__, as its __init__ does.
        object.__setattr__(spec, name, value)


def _resolved(model: type[ModelT] | ModelRef[ModelT]) -> type[ModelT]:
    return model.resolve() if isinstance(model, ModelRef) else model
