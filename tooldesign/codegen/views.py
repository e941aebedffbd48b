"""IR → views: everything a toolset's templates and model generation need, precomputed.

A view is plain data (strings, dicts, tuples) so it can be hashed to decide whether a toolset
changed, sent to a worker process, and rendered by short templates.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tooldesign.binding.plan import ToolEnd
from tooldesign.codegen.bindings import (
    BindingsBuilder,
    BoundCallView,
    ExecutorView,
    ToolExecution,
    TransformsView,
)
from tooldesign.codegen.content_view import ContentView, content_view
from tooldesign.codegen.model_types import model_constraints, needs_schema_check
from tooldesign.contract import BOUNDS_CONFIG_KEY
from tooldesign.contract.agents import AgentContract
from tooldesign.contract.annotations import ToolAnnotations
from tooldesign.contract.code_access import CodeAccess
from tooldesign.contract.confirm import ConfirmSpec
from tooldesign.contract.content import ContentKind
from tooldesign.contract.limits import ToolLimits
from tooldesign.contract.loading import Loading
from tooldesign.contract.naming import (
    CODECS_MODULE_NAMES,
    RESERVED_CLASS_NAMES,
    SPECS_MODULE_NAMES,
    NameScope,
    constant_name,
)
from tooldesign.contract.repairs import FieldRepair
from tooldesign.contract.rules import ArgumentRule
from tooldesign.contract.tasks import TaskSupport
from tooldesign.ir.model import (
    ArrayType,
    Design,
    MapType,
    MCPServerSpec,
    Message,
    NamedType,
    ObjectShape,
    ObjectType,
    Service,
    Tool,
    Toolset,
    TypeExpr,
    UnionType,
    UserType,
)
from tooldesign.ir.schema import SchemaBuilder
from tooldesign.ir.walk import inline_shapes, messages, used_user_types
from tooldesign.jsonschema import keywords as K


@dataclass(frozen=True)
class TypeView:
    """A payload, result or server-data type as specs.py declares it."""

    class_name: str
    schema: dict[str, Any]
    example: Any
    field_descriptions: dict[str, str]
    check_schema: bool = False
    """The model alone is looser than ``schema`` (see ``needs_schema_check``): the codecs also
    check values against the schema."""

    @property
    def name(self) -> str:
        """The class name, as catalogs list it."""
        return self.class_name

    @property
    def carries_nothing(self) -> bool:
        """The empty result of a tool that returns nothing: its handler may return ``None``."""
        from tooldesign.runtime.result_check import carries_nothing

        return carries_nothing(self.schema)


@dataclass(frozen=True)
class ServerDataView:
    kind: str
    type: TypeView
    description: str | None
    default: str

    @property
    def schema(self) -> dict[str, Any]:
        return self.type.schema


@dataclass(frozen=True)
class ToolView:
    """One tool as specs.py, codecs.py and executor.py write it; a catalog entry is built from
    it as from a runtime spec (it is a ``ToolDefinition``)."""

    name: str
    id: str
    service: str
    toolset: str
    ident: str
    title: str | None
    description: str
    tags: tuple[str, ...]
    payload: TypeView
    result: TypeView
    bounded: bool
    cursor_field: str | None
    next_cursor_field: str | None
    injected: tuple[str, ...]
    server_data: tuple[ServerDataView, ...]
    annotations: ToolAnnotations
    confirm: ConfirmSpec | None
    code_access: CodeAccess | None
    content: tuple[ContentKind, ...]
    """``Content(...)``: the content blocks its result carries beside its data."""
    asks: tuple[str, ...]
    task: TaskSupport | None
    repairs: tuple[FieldRepair, ...]
    limits: ToolLimits
    """The design's own limits for the tool (``Limits(...)``); empty: the runtime's."""
    loading: Loading | None
    """``Loading(...)``: ``"deferred"`` when found through a tool search."""
    agent: AgentContract | None
    """``ImplementedByAgent``: its handler is the agent the application binds."""
    remote_name: str
    """The tool's name on its MCP server (an MCPToolset's tools), else its own name."""
    scopes: tuple[str, ...]
    """``Scopes(...)``: every scope a caller needs (its toolset's and its own, sorted)."""
    # Module-level names in specs.py and codecs.py (unique across both).
    id_const: str
    spec_const: str
    payload_codec: str
    result_codec: str
    decode_fn: str
    encode_fn: str
    # How executor.py runs it.
    protocol: str
    """Its handler's Protocol class."""
    handler_required: bool
    """Registration needs a handler for it: it is neither bound to code nor on an MCP server."""
    bound: BoundCallView | None
    """How it calls the function or method it is bound to."""


@dataclass(frozen=True)
class MCPServerView:
    """An MCPToolset's server as ``specs.MCP_SERVER`` declares it: only what the design set."""

    command: tuple[str, ...]
    url: str | None
    env: dict[str, str]
    cwd: str | None
    headers: dict[str, str]
    timeout: float | None

    @classmethod
    def of(cls, spec: MCPServerSpec) -> MCPServerView:
        return cls(
            command=spec.command,
            url=spec.url,
            env=dict(spec.env),
            cwd=spec.cwd,
            headers=dict(spec.headers),
            timeout=spec.timeout,
        )


@dataclass(frozen=True)
class ToolsetView:
    """One generated toolset package."""

    service: str
    service_ident: str
    name: str
    ident: str
    description: str | None
    tools: tuple[ToolView, ...]
    model_schema: dict[str, Any]
    """The document the model generator reads: every class under ``$defs``."""
    aliases: dict[str, str]
    """``"Class.wire_name": "python_name"`` for fields whose Python name differs."""
    bounded_classes: tuple[str, ...]
    root_classes: tuple[tuple[str, str], ...]
    """``(class, alias)`` per message that is not an object (``Return(String)``): a root model
    class over the type alias the model generator writes for its value."""
    executor: ExecutorView
    transforms: TransformsView | None
    """Set when tools are bound to application code."""
    first_party: frozenset[str]
    """Top-level packages of the application code ``executor.py`` and ``transforms.py`` import."""
    mcp: MCPServerView | None = None
    """For an MCPToolset: the server its tools run on."""
    content: ContentView | None = None
    """Its prompts and resources (``content.py``), when it declares any."""
    rule_classes: tuple[tuple[str, tuple[ArgumentRule, ...]], ...] = ()
    """``(class, rules)`` per payload class with rules across its arguments (``AtLeastOne``…)."""


def toolset_view(design: Design, service: Service, toolset: Toolset) -> ToolsetView:
    return _ToolsetViewBuilder(design, service, toolset).build()


def toolset_views(design: Design) -> Iterator[tuple[Service, ToolsetView]]:
    for service in design.services:
        for toolset in service.toolsets:
            yield service, toolset_view(design, service, toolset)


class _ToolsetViewBuilder:
    def __init__(self, design: Design, service: Service, toolset: Toolset) -> None:
        self.design = design
        self.service = service
        self.toolset = toolset
        self.classes = NameScope(RESERVED_CLASS_NAMES)
        self.user_class: dict[str, str] = {}
        self.shape_class: dict[int, str] = {}
        self.message_class: dict[int, str] = {}
        self.message_value: dict[int, str] = {}

    def build(self) -> ToolsetView:
        self._name_classes()
        bindings = BindingsBuilder(
            self.toolset.tools,
            class_of=self._class_of,
            message_class=self.message_class_name,
            remote=self.toolset.mcp is not None,
        )
        transforms = bindings.transforms()  # first: it names what the executor calls
        executor, executions = bindings.executor()
        module_names = NameScope(SPECS_MODULE_NAMES | CODECS_MODULE_NAMES)
        tools = tuple(
            self._tool(tool, module_names, run)
            for tool, run in zip(self.toolset.tools, executions, strict=True)
        )
        model_schema, aliases, bounded = self._model_document()
        roots = tuple(
            (self.message_class[key], self.message_value[key]) for key in self.message_value
        )
        return ToolsetView(
            service=self.service.name,
            service_ident=self.service.ident,
            name=self.toolset.name,
            ident=self.toolset.ident,
            description=self.toolset.description,
            tools=tools,
            model_schema=model_schema,
            aliases=aliases,
            bounded_classes=bounded,
            root_classes=roots,
            executor=executor,
            transforms=transforms,
            first_party=bindings.first_party,
            mcp=MCPServerView.of(self.toolset.mcp) if self.toolset.mcp is not None else None,
            content=content_view(self.service.name, self.toolset),
            rule_classes=tuple(
                (self.shape_class[id(tool.payload.type.shape)], tool.payload.type.shape.rules)
                for tool in self.toolset.tools
                if isinstance(tool.payload.type, ObjectType) and tool.payload.type.shape.rules
            ),
        )

    def _class_of(self, end: ToolEnd) -> str:
        if end.type_name is not None:
            return self.user_class[end.type_name]
        if end.shape is not None:
            return self.shape_class[id(end.shape)]
        assert end.message is not None
        return self.message_class_name(end.message)

    # ── class names ───────────────────────────────────────────────────────────────────────

    def _name_classes(self) -> None:
        # User types first, in declaration order, so they keep their own names when they can.
        for name in used_user_types(self.design, self.toolset.tools):
            self.user_class[name] = self.classes.unique(self.design.types[name].class_name)
        for tool in self.toolset.tools:
            for message in messages(tool):
                t = message.type
                if not isinstance(t, NamedType | ObjectType):
                    name = self.classes.unique(message.name_hint)
                    self.message_class[id(message)] = name
                    self.message_value[id(message)] = self.classes.unique(f"{name}Value")
                for shape in inline_shapes(t):
                    self._name_shape(shape)
        for name in self.user_class:
            for f in self.design.types[name].shape.fields:
                for shape in inline_shapes(f.type):
                    self._name_shape(shape)

    def _name_shape(self, shape: ObjectShape) -> None:
        if id(shape) in self.shape_class:
            return
        self.shape_class[id(shape)] = self.classes.unique(shape.name_hint)
        for f in shape.fields:
            for inner in inline_shapes(f.type):
                self._name_shape(inner)

    def message_class_name(self, message: Message) -> str:
        t = message.type
        if isinstance(t, NamedType):
            return self.user_class[t.name]
        if isinstance(t, ObjectType):
            return self.shape_class[id(t.shape)]
        return self.message_class[id(message)]

    # ── tools ─────────────────────────────────────────────────────────────────────────────

    def _tool(self, tool: Tool, names: NameScope, run: ToolExecution) -> ToolView:
        const = constant_name(tool.ident)
        bounds = tool.bounds
        next_cursor = None
        if bounds is not None and bounds.next_cursor is not None:
            shape = _object_shape(tool.result, self.design)
            f = shape.field(bounds.next_cursor) if shape else None
            next_cursor = f.ident if f else None
        cursor = None
        if bounds is not None and bounds.cursor is not None:
            shape = _object_shape(tool.payload, self.design)
            f = shape.field(bounds.cursor) if shape else None
            cursor = f.ident if f else None
        return ToolView(
            name=tool.name,
            id=tool.id,
            service=tool.service,
            toolset=tool.toolset,
            ident=tool.ident,
            title=tool.title,
            description=tool.description,
            tags=tool.tags,
            payload=self._type_view(tool.payload, omit=frozenset(tool.injected)),
            result=self._type_view(tool.result),
            bounded=bounds is not None,
            cursor_field=cursor,
            next_cursor_field=next_cursor,
            injected=tool.injected,
            server_data=tuple(
                ServerDataView(sd.kind, self._type_view(sd.message), sd.description, sd.default)
                for sd in tool.server_data
            ),
            annotations=tool.annotations,
            confirm=tool.confirm,
            code_access=tool.code_access,
            content=tool.content,
            asks=tool.asks,
            task=tool.task,
            repairs=tool.repairs,
            limits=tool.limits,
            loading=tool.loading,
            agent=tool.agent,
            remote_name=tool.remote_name or tool.name,
            scopes=tool.scopes,
            id_const=names.unique(const),
            spec_const=names.unique(f"{const}_SPEC"),
            payload_codec=names.unique(f"{const}_PAYLOAD"),
            result_codec=names.unique(f"{const}_RESULT"),
            decode_fn=names.unique(f"decode_{tool.ident}_payload"),
            encode_fn=names.unique(f"encode_{tool.ident}_result"),
            protocol=run.protocol,
            handler_required=run.handler_required,
            bound=run.bound,
        )

    def _type_view(self, message: Message, omit: frozenset[str] = frozenset()) -> TypeView:
        # A design's types keep their names in the schemas models and exports see (``$defs``);
        # the generated classes take Python's names apart (the model generator's document).
        builder = SchemaBuilder(self.design.types)
        shape = _object_shape(message, self.design)
        if shape is not None:
            # Providers want an object at the root, so a user type is inlined there, not a $ref.
            root = builder.object_schema(shape, omit=omit)
            if message.description and K.DESCRIPTION not in root:
                root = {K.DESCRIPTION: message.description, **root}
        else:
            root = builder.type_schema(message.type)
            if message.description:
                root = {**root, K.DESCRIPTION: message.description}
        descriptions: dict[str, str] = {}
        if shape is not None:
            _collect_descriptions(self.design, shape, "", descriptions, frozenset(), omit)
        return TypeView(
            class_name=self.message_class_name(message),
            schema=builder.document(root),
            example=message.examples[0].value if message.examples else None,
            field_descriptions=descriptions,
            check_schema=needs_schema_check(message.type, self.design),
        )

    # ── the model generator's document ────────────────────────────────────────────────────

    def _model_document(self) -> tuple[dict[str, Any], dict[str, str], tuple[str, ...]]:
        bounded_shapes: dict[int, str | None] = {}
        for tool in self.toolset.tools:
            if tool.bounds is not None and isinstance(tool.result.type, ObjectType):
                shape = tool.result.type.shape
                f = shape.field(tool.bounds.next_cursor) if tool.bounds.next_cursor else None
                bounded_shapes[id(shape)] = f.ident if f else None

        def extensions(shape: ObjectShape) -> dict[str, Any]:
            if id(shape) not in bounded_shapes:
                return {}
            return {BOUNDS_CONFIG_KEY: {"next_cursor": bounded_shapes[id(shape)]}}

        builder = SchemaBuilder(
            self.design.types,
            def_name=lambda ut: self.user_class[ut.name],
            hoist=lambda shape: self.shape_class[id(shape)],
            extensions=extensions,
            # What the model cannot hold is checked against the spec's schema by the codecs.
            constraints=model_constraints,
            verbatim=False,
        )
        for name in self.user_class:
            builder.type_schema(NamedType(name))
        for tool in self.toolset.tools:
            for message in messages(tool):
                schema = builder.type_schema(message.type)
                if K.REF not in schema:
                    # A non-object message (``Return(String)``): its value is a type alias, and
                    # the root model over it is written beside the generated models.
                    if message.description:
                        schema[K.DESCRIPTION] = message.description
                    builder.defs[self.message_value[id(message)]] = schema
        aliases: dict[str, str] = {}
        shapes: list[tuple[str, ObjectShape]] = [
            (self.user_class[name], self.design.types[name].shape) for name in self.user_class
        ]
        shapes.extend(self._all_inline_shapes())
        for class_name, shape in shapes:
            for f in shape.fields:
                if f.ident != f.name:
                    aliases[f"{class_name}.{f.name}"] = f.ident
        bounded = tuple(sorted(self.shape_class[i] for i in bounded_shapes))
        return builder.document({}), aliases, bounded

    def _all_inline_shapes(self) -> Iterator[tuple[str, ObjectShape]]:
        seen: set[int] = set()
        stack: list[ObjectShape] = []
        for tool in self.toolset.tools:
            for message in messages(tool):
                stack.extend(inline_shapes(message.type))
        for name in self.user_class:
            for f in self.design.types[name].shape.fields:
                stack.extend(inline_shapes(f.type))
        while stack:
            shape = stack.pop(0)
            if id(shape) in seen:
                continue
            seen.add(id(shape))
            yield self.shape_class[id(shape)], shape
            for f in shape.fields:
                stack.extend(inline_shapes(f.type))


def _object_shape(message: Message, design: Design) -> ObjectShape | None:
    t = message.type
    if isinstance(t, ObjectType):
        return t.shape
    if isinstance(t, NamedType):
        user: UserType = design.types[t.name]
        return user.shape
    return None


def _collect_descriptions(
    design: Design,
    shape: ObjectShape,
    prefix: str,
    out: dict[str, str],
    visiting: frozenset[str],
    omit: frozenset[str] = frozenset(),
) -> None:
    """Design descriptions by field path (``devices[].id``); recursion stops at a repeated type."""
    for f in shape.fields:
        if f.name in omit:
            continue
        path = f"{prefix}.{f.name}" if prefix else f.name
        if f.description:
            out[path] = f.description
        _descend(design, f.type, path, out, visiting)


def _descend(
    design: Design, t: TypeExpr, path: str, out: dict[str, str], visiting: frozenset[str]
) -> None:
    match t:
        case ObjectType(shape=shape):
            _collect_descriptions(design, shape, path, out, visiting)
        case NamedType(name=name):
            if name not in visiting:
                _collect_descriptions(
                    design, design.types[name].shape, path, out, visiting | {name}
                )
        case ArrayType(items=items):
            _descend(design, items, f"{path}[]", out, visiting)
        case MapType(values=values):
            _descend(design, values, f"{path}{{}}", out, visiting)
        case UnionType(variants=variants):
            for v in variants:
                _descend(design, v, path, out, visiting)
