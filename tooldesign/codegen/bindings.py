"""Views of a toolset's bindings: ``transforms.py`` and how ``executor.py`` calls bound code.

Conversion plans (``binding.plan``) become Python expressions here, application types become
annotations, and every module-level name comes from one :class:`NameScope` per module. What a
function does is data (the value it returns, the mapping it builds first), which the templates'
macros lay out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tooldesign.binding.plan import (
    AppEnd,
    AppGuard,
    BindingPlan,
    BuildRecord,
    Conv,
    Dispatch,
    DumpModel,
    EachItem,
    EachValue,
    EnumValue,
    FieldMove,
    Guard,
    Narrowed,
    OrNone,
    RecordMapping,
    Same,
    ScalarGuard,
    ToEnum,
    ToolEnd,
    ToolGuard,
    ValidateInto,
    plan_of,
)
from tooldesign.binding.pytypes import (
    PyClass,
    PyDict,
    PyEnum,
    PyEnumMember,
    PyList,
    PyLiteral,
    PyRecord,
    PyRef,
    PyScalar,
    PyType,
    PyUnion,
)
from tooldesign.codegen.literals import py_literal
from tooldesign.contract.naming import (
    EXECUTOR_MODULE_NAMES,
    TRANSFORMS_MODULE_NAMES,
    NameScope,
    snake_case,
    word_ident,
)
from tooldesign.ir.model import NO_VALUE, Message, Tool

_SCALAR_ANNOTATIONS = {
    "str": "str",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "None": "None",
    "Any": "Any",
    "datetime": "datetime.datetime",
    "date": "datetime.date",
    "time": "datetime.time",
    "timedelta": "datetime.timedelta",
    "UUID": "uuid.UUID",
    "IPv4Address": "ipaddress.IPv4Address",
    "IPv6Address": "ipaddress.IPv6Address",
}


@dataclass(frozen=True)
class OptionalKey:
    """``out[key] = value`` when ``source`` is not None (otherwise the key is left out)."""

    key: str
    source: str
    value: str


@dataclass(frozen=True)
class MappingView:
    """``out``: a typed mapping a function fills before it returns."""

    annotation: str
    entries: tuple[tuple[str, str], ...]
    """(key, value expression), always set."""
    optional: tuple[OptionalKey, ...] = ()


@dataclass(frozen=True)
class FunctionView:
    """A function of one parameter that returns ``value`` (having built ``mapping`` first)."""

    name: str
    param: str
    param_type: str
    returns: str
    value: str
    doc: str | None = None
    mapping: MappingView | None = None


@dataclass(frozen=True)
class TypedDictView:
    name: str
    fields: tuple[tuple[str, str, bool], ...]
    """(key, annotation, required)."""
    doc: str
    total: bool = True
    """Keys are required unless marked (``False``: optional unless marked)."""

    @property
    def class_syntax(self) -> bool:
        """Keys that are identifiers allow the class form (which linters prefer)."""
        return all(key.isidentifier() and not _is_keyword(key) for key, _, _ in self.fields)

    @property
    def items(self) -> tuple[tuple[str, str], ...]:
        """(key, annotation), marked ``NotRequired`` or ``Required`` where ``total`` says otherwise."""
        return tuple(
            (key, _marked(annotation, required, self.total))
            for key, annotation, required in self.fields
        )


def _marked(annotation: str, required: bool, total: bool) -> str:
    if total and not required:
        return f"NotRequired[{annotation}]"
    if not total and required:
        return f"Required[{annotation}]"
    return annotation


@dataclass(frozen=True)
class TransformsView:
    """``transforms.py``: what bound tools' values become on their way to the method and back."""

    imports: tuple[str, ...]
    typed_dicts: tuple[TypedDictView, ...]
    functions: tuple[FunctionView, ...]

    @property
    def needs_not_required(self) -> bool:
        return any(not required for td in self.typed_dicts for _, _, required in td.fields)


@dataclass(frozen=True)
class BoundCallView:
    """How ``executor.py`` calls a bound tool's function or method, through ``transforms``."""

    factory: str
    """The module-level function that builds the tool's invoke."""
    service_type: str | None
    """The service's class, when the tool calls one of its methods (``None``: a function)."""
    target: str
    """What is called: ``service.<method>``, or the function by its import alias."""
    is_async: bool
    spread_arguments: bool
    """The callable takes the payload as keyword arguments."""
    payload_transform: str
    result_transform: str
    method: str
    """The bound callable as the design names it (``module:qualname``), for the runtime's logs."""
    returns_value: bool
    """False when the callable returns nothing."""
    server_data: tuple[tuple[str, str], ...]
    """(kind, transform) for each server-data kind read from the callable's result."""


@dataclass(frozen=True)
class ToolExecution:
    """How ``executor.py`` runs one tool: its handler protocol, and its bound call if any."""

    protocol: str
    handler_required: bool
    """No default way to run it: neither bound to code nor on an MCP server."""
    bound: BoundCallView | None


@dataclass(frozen=True)
class ExecutorView:
    """``executor.py``'s module-level facts (each tool's are in its ``ToolView``)."""

    imports: tuple[str, ...]
    handlers: TypedDictView
    handlers_without_service: TypedDictView | None
    """When tools call a service's methods: the handlers registering without one needs."""
    service_type: str | None

    @property
    def handlers_required(self) -> bool:
        return any(required for _, _, required in self.handlers.fields)


def _is_keyword(name: str) -> bool:
    import keyword

    return keyword.iskeyword(name)


@dataclass
class _Imports:
    """Imports one generated module needs, collected while its code is produced."""

    scope: NameScope
    modules: dict[str, str] = field(default_factory=dict)  # module → alias
    stdlib: set[str] = field(default_factory=set)
    typing: set[str] = field(default_factory=set)

    def app(self, ref: PyRef) -> str:
        alias = self.modules.get(ref.module)
        if alias is None:
            alias = self.modules[ref.module] = self.scope.unique(
                f"app_{ref.module.rsplit('.', 1)[-1]}"
            )
        return f"{alias}.{ref.qualname}"

    def lines(self) -> tuple[str, ...]:
        out = [f"import {name}" for name in sorted(self.stdlib)]
        if self.typing:
            out.append(f"from typing import {', '.join(sorted(self.typing))}")
        out.extend(f"import {module} as {alias}" for module, alias in sorted(self.modules.items()))
        return tuple(out)


class BindingsBuilder:
    """Renders the plans of one toolset's bound tools: first :meth:`transforms`, which names the
    functions the executor calls, then :meth:`executor`."""

    def __init__(
        self,
        tools: tuple[Tool, ...],
        class_of: Callable[[ToolEnd], str],
        message_class: Callable[[Message], str],
        remote: bool = False,
    ) -> None:
        self.tools = tools
        self.remote = remote
        """An MCPToolset's tools: they call the server, so a handler only replaces that."""
        self.class_of = class_of
        self.message_class = message_class
        self.entry_names: dict[str, dict[str, str]] = {}
        self.helper_names: dict[str, str] = {}

    @property
    def first_party(self) -> frozenset[str]:
        """Top-level packages of the application code the bindings import."""
        return frozenset(
            t.binding.module.split(".")[0]
            for t in self.tools
            if t.binding is not None and plan_of(t) is not None
        )

    # ── transforms.py ─────────────────────────────────────────────────────────────────────

    def transforms(self) -> TransformsView | None:
        if not any(t.binding for t in self.tools):
            return None
        scope = NameScope(TRANSFORMS_MODULE_NAMES)
        self.imports = _Imports(scope)
        self.scope = scope
        self.arguments_names: dict[PyRef, str] = {}
        self.fields_names: dict[PyRef, str] = {}
        typed_dicts: list[TypedDictView] = []
        functions: list[FunctionView] = []
        helpers: list[FunctionView] = []
        rendered: set[str] = set()
        for tool in self.tools:
            plan = plan_of(tool)
            if plan is None:
                continue
            for mapping in plan.records:
                # Tools that share a record mapping (a user type) share its helper.
                if mapping.key not in self.helper_names:
                    self.helper_names[mapping.key] = scope.unique(self._helper_name(mapping))
            names = {
                "payload": scope.unique(f"to_method_payload_{tool.ident}"),
                "result": scope.unique(f"to_tool_return_{tool.ident}"),
            }
            for sd in plan.server_data:
                names[f"sd:{sd.kind}"] = scope.unique(
                    f"to_server_data_{tool.ident}_{snake_case(word_ident(sd.kind, 'data'))}"
                )
            self.entry_names[tool.name] = names
        for tool in self.tools:
            plan = plan_of(tool)
            if plan is None:
                continue
            if plan.payload_mode == "arguments":
                typed_dicts.append(self._arguments_dict(tool, plan.payload_type))
            functions.extend(self._entry_functions(tool, plan))
            app_records = {record.ref: record for record in plan.app_records}
            for mapping in plan.records:
                if mapping.key not in rendered:
                    rendered.add(mapping.key)
                    if mapping.construct == "validate":
                        assert isinstance(mapping.target, AppEnd)
                        if mapping.target.ref not in self.fields_names:
                            typed_dicts.append(self._fields_dict(app_records[mapping.target.ref]))
                    helpers.append(self._record_function(mapping))
        return TransformsView(self.imports.lines(), tuple(typed_dicts), tuple(functions + helpers))

    def _helper_name(self, mapping: RecordMapping) -> str:
        target = mapping.target
        if isinstance(target, AppEnd):
            return f"_to_app_{snake_case(target.ref.qualname)}"
        return f"_to_tool_{snake_case(self.class_of(target))}"

    def _arguments_dict(self, tool: Tool, record: PyRecord) -> TypedDictView:
        name = self.scope.unique(f"{tool.class_prefix}Arguments")
        self.arguments_names[record.ref] = name
        fields = tuple((f.name, self.py_annotation(f.type), f.required) for f in record.fields)
        return TypedDictView(
            name, fields, f"Keyword arguments of {record.ref.module}:{record.ref.qualname}."
        )

    def _fields_dict(self, record: PyRecord) -> TypedDictView:
        """The fields of a pydantic model with aliases, keyed as it validates them: the values
        are type-checked here, then the model validates the mapping."""
        name = self.scope.unique(f"{record.ref.qualname.replace('.', '')}Fields")
        self.fields_names[record.ref] = name
        fields = tuple((f.build_key, self.py_annotation(f.type), f.required) for f in record.fields)
        return TypedDictView(
            name,
            fields,
            f"The fields of {record.ref.module}:{record.ref.qualname}, keyed as it validates them.",
        )

    def _entry_functions(self, tool: Tool, plan: BindingPlan) -> list[FunctionView]:
        names = self.entry_names[tool.name]
        payload_target = (
            self.arguments_names[plan.payload_type.ref]
            if plan.payload_mode == "arguments"
            else self.imports.app(plan.payload_type.ref)
        )
        out = [
            FunctionView(
                names["payload"],
                "args",
                f"t.{self.message_class(tool.payload)}",
                payload_target,
                f"{self.helper_names[plan.payload_key]}(args)",
                f"The arguments of {tool.name!r} as {plan.payload_type.ref.qualname} takes them.",
            )
        ]
        returned = (
            "None" if plan.result.app_type is None else self.py_annotation(plan.result.app_type)
        )
        result_class = f"t.{self.message_class(tool.result)}"
        if plan.result.app_type is None:
            value = f"{result_class}()"
        else:
            value = self.expr(plan.result.conv, "result", 0)
            if plan.result.root:
                value = f"{result_class}({value})"
        out.append(
            FunctionView(
                names["result"],
                "result",
                returned,
                result_class,
                value,
                f"What {tool.name!r} returns, from the method's result.",
            )
        )
        for sd in plan.server_data:
            source = f'result["{sd.field}"]' if sd.access == "key" else f"result.{sd.field}"
            if sd.access == "key" and sd.may_be_none:
                source = f'result.get("{sd.field}")'
            message = next(kind.message for kind in tool.server_data if kind.kind == sd.kind)
            target_class = f"t.{self.message_class(message)}"
            value = self.expr(sd.conv, source, 0)
            if sd.root:
                value = f"{target_class}({value})"
            if sd.may_be_none:
                value = f"None if {source} is None else {value}"
            out.append(
                FunctionView(
                    names[f"sd:{sd.kind}"],
                    "result",
                    returned,
                    f"{target_class} | None" if sd.may_be_none else target_class,
                    value,
                    f"Server data {sd.kind!r} of {tool.name!r}, from the method's result.",
                )
            )
        return out

    def _record_function(self, mapping: RecordMapping) -> FunctionView:
        source = self._end_annotation(mapping.source)
        target = self._end_annotation(mapping.target)
        name = self.helper_names[mapping.key]
        if mapping.construct == "mapping":
            built = self._mapping(mapping, target)
            return FunctionView(name, "value", source, target, "out", mapping=built)
        if mapping.construct == "validate":
            assert isinstance(mapping.target, AppEnd)
            built = self._mapping(mapping, self.fields_names[mapping.target.ref])
            value = f"{target}.model_validate(out)"
            return FunctionView(name, "value", source, target, value, mapping=built)
        args = ", ".join(f"{m.target}={self._move(m, mapping)}" for m in mapping.moves)
        return FunctionView(name, "value", source, target, f"{target}({args})")

    def _mapping(self, mapping: RecordMapping, annotation: str) -> MappingView:
        """The target's keys as a typed mapping (keys left out when their source is None)."""
        entries = tuple(
            (m.target, self._move(m, mapping)) for m in mapping.moves if not m.omit_when_none
        )
        optional: list[OptionalKey] = []
        for m in mapping.moves:
            if m.omit_when_none:
                source = self._source(m, mapping)
                optional.append(OptionalKey(m.target, source, self.expr(m.conv, source, 0)))
        return MappingView(annotation, entries, tuple(optional))

    def _source(self, move: FieldMove, mapping: RecordMapping) -> str:
        if mapping.source_access == "key":
            return (
                f"value.get({move.source!r})"
                if move.source_may_be_none
                else f"value[{move.source!r}]"
            )
        return f"value.{move.source}"

    def _move(self, move: FieldMove, mapping: RecordMapping) -> str:
        source = self._source(move, mapping)
        value = self.expr(move.conv, source, 0)
        if move.source_may_be_none and move.default is not NO_VALUE:
            return f"{self.value_literal(move.default)} if {source} is None else {value}"
        return value

    def _end_annotation(self, end: ToolEnd | AppEnd) -> str:
        if isinstance(end, AppEnd):
            if end.kind == "arguments":
                return self.arguments_names[end.ref]
            return self.imports.app(end.ref)
        return f"t.{self.class_of(end)}"

    # ── expressions ───────────────────────────────────────────────────────────────────────

    def expr(self, conv: Conv, value: str, depth: int) -> str:
        match conv:
            case Same():
                return value
            case EachItem(item=Same()):
                return f"list({value})"
            case EachItem(item=item):
                var = f"item{depth}"
                return f"[{self.expr(item, var, depth + 1)} for {var} in {value}]"
            case EachValue(value=Same()):
                return f"dict({value})"
            case EachValue(value=inner):
                var = f"value{depth}"
                return f"{{key{depth}: {self.expr(inner, var, depth + 1)} for key{depth}, {var} in {value}.items()}}"
            case OrNone(inner=inner):
                return f"None if {value} is None else {self.expr(inner, value, depth)}"
            case BuildRecord(key=key):
                return f"{self.helper_names[key]}({value})"
            case DumpModel():
                return f'{value}.model_dump(mode="json", by_alias=True)'
            case ToEnum(enum=enum):
                return self._to_enum(enum, value)
            case EnumValue():
                return f"{value}.value"
            case Narrowed(inner=inner):
                # Wider than the tool's type by its constraints only: the tool's result type
                # checks it when the call returns (a value outside answers malformed_response).
                self.imports.typing.update(("Any", "cast"))
                return f"cast(Any, {self.expr(inner, value, depth)})"
            case ValidateInto(target=target):
                return f"t.{self.class_of(target)}.model_validate({value})"
            case Dispatch(cases=cases):
                parts = [
                    f"{self.expr(case.conv, value, depth)} if {self._guard(case.guard, value)}"
                    for case in cases[:-1]
                ]
                last = self.expr(cases[-1].conv, value, depth)
                return "(" + " else ".join([*parts, last]) + ")"
        raise TypeError(f"unknown conversion {conv!r}")

    def _to_enum(self, enum: PyEnum, value: str) -> str:
        cls = self.imports.app(enum.ref)
        if not enum.literal:
            return f"{cls}({value})"
        # A Literal of members: each member spelled out, so its Literal type is what mypy sees
        # (``Tier(value)`` is just a ``Tier``). The tool's values are the members' (planned so).
        *firsts, (last, _) = enum.members
        parts = [f"{cls}.{name} if {value} == {py_literal(v)} else " for name, v in firsts]
        return f"({''.join(parts)}{cls}.{last})"

    def value_literal(self, value: Any) -> str:
        """A default as Python source: a plain value, or an Enum member by name."""
        if isinstance(value, PyEnumMember):
            return f"{self.imports.app(value.ref)}.{value.name}"
        return default_literal(value)

    def _guard(self, guard: Guard, value: str) -> str:
        match guard:
            case ToolGuard(end=end):
                return f"isinstance({value}, t.{self.class_of(end)})"
            case AppGuard(ref=ref):
                return f"isinstance({value}, {self.imports.app(ref)})"
            case ScalarGuard(name=name):
                return f"isinstance({value}, {name})"
        raise TypeError(f"unknown guard {guard!r}")

    def py_annotation(self, t: PyType) -> str:
        match t:
            case PyScalar(name=name):
                annotation = _SCALAR_ANNOTATIONS[name]
                if "." in annotation:
                    self.imports.stdlib.add(annotation.split(".")[0])
                if name == "Any":
                    self.imports.typing.add("Any")
                return annotation
            case PyLiteral(values=values):
                self.imports.typing.add("Literal")
                return f"Literal[{', '.join(default_literal(v) for v in values)}]"
            case PyEnum(ref=ref, members=members, literal=True):
                self.imports.typing.add("Literal")
                cls = self.imports.app(ref)
                return f"Literal[{', '.join(f'{cls}.{name}' for name, _ in members)}]"
            case PyEnum(ref=ref):
                return self.imports.app(ref)
            case PyList(item=item):
                return f"list[{self.py_annotation(item)}]"
            case PyDict(value=value):
                return f"dict[str, {self.py_annotation(value)}]"
            case PyUnion(options=options):
                return " | ".join(self.py_annotation(o) for o in options)
            case PyClass(ref=ref):
                return self.imports.app(ref)
        raise TypeError(f"unknown Python type {t!r}")

    # ── executor.py ───────────────────────────────────────────────────────────────────────

    def executor(self) -> tuple[ExecutorView, tuple[ToolExecution, ...]]:
        """The executor module's facts, and how it runs each tool (in the toolset's order)."""
        scope = NameScope(EXECUTOR_MODULE_NAMES)
        imports = _Imports(scope)
        owner: PyRef | None = None
        for tool in self.tools:
            plan = plan_of(tool)
            if plan is not None and plan.owner is not None:
                owner = plan.owner
        service_type = imports.app(owner) if owner else None
        executions: list[ToolExecution] = []
        for tool in self.tools:
            protocol = scope.unique(f"{tool.class_prefix}Handler")
            bound = self._bound_call(tool, imports, scope, service_type)
            required = bound is None and not self.remote
            executions.append(ToolExecution(protocol, required, bound))
        handlers = TypedDictView(
            "Handlers",
            tuple(
                (tool.name, run.protocol, run.handler_required)
                for tool, run in zip(self.tools, executions, strict=True)
            ),
            "Handlers by tool name.",
            total=False,
        )
        # Registering without a service: every tool but those bound to a function needs one.
        without_service = (
            TypedDictView(
                "HandlersWithoutService",
                tuple(
                    (
                        tool.name,
                        run.protocol,
                        run.bound is None or run.bound.service_type is not None,
                    )
                    for tool, run in zip(self.tools, executions, strict=True)
                ),
                "Handlers by tool name when no service is given: every tool needs one except "
                "those bound to a function.",
                total=False,
            )
            if service_type
            else None
        )
        view = ExecutorView(imports.lines(), handlers, without_service, service_type)
        return view, tuple(executions)

    def _bound_call(
        self, tool: Tool, imports: _Imports, scope: NameScope, service_type: str | None
    ) -> BoundCallView | None:
        binding = tool.binding
        plan = plan_of(tool)
        if binding is None or plan is None:
            return None
        names = self.entry_names[tool.name]
        target = (
            f"service.{plan.method}"
            if plan.owner is not None
            else imports.app(PyRef(binding.module, binding.qualname))
        )
        return BoundCallView(
            factory=scope.unique(f"_bind_{tool.ident}"),
            service_type=service_type if plan.owner is not None else None,
            target=target,
            is_async=plan.is_async,
            spread_arguments=plan.payload_mode == "arguments",
            payload_transform=names["payload"],
            result_transform=names["result"],
            method=binding.target,
            returns_value=plan.result.app_type is not None,
            server_data=tuple((sd.kind, names[f"sd:{sd.kind}"]) for sd in plan.server_data),
        )


def default_literal(value: Any) -> str:
    return py_literal(value)
