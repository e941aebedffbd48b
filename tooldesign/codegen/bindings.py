"""Views of a toolset's bindings: the code of ``transforms.py`` and ``executor.py``, precomputed.

Conversion plans (``ir.plan``) become Python expressions here, application types become
annotations, and every module-level name comes from one :class:`NameScope` per module, so the
templates only lay the pieces out.
"""

from __future__ import annotations

import re
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
from tooldesign.codegen.naming import NameScope
from tooldesign.ir.model import NO_VALUE, Tool

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

# Names the generated transforms/executor modules import or define themselves.
MODULE_NAMES = frozenset(
    {
        "Any",
        "Awaitable",
        "Literal",
        "NotRequired",
        "Protocol",
        "Required",
        "Sequence",
        "TypedDict",
        "asyncio",
        "codecs",
        "datetime",
        "ipaddress",
        "rt",
        "specs",
        "t",
        "tr",
        "uuid",
        "new_registration",
        "overload",
        "Handlers",
        "HandlersWithoutService",
    }
)


@dataclass(frozen=True)
class FunctionView:
    name: str
    params: str
    returns: str
    body: tuple[str, ...]
    doc: str | None = None


@dataclass(frozen=True)
class TypedDictView:
    name: str
    fields: tuple[tuple[str, str, bool], ...]
    """(key, annotation, required)."""
    doc: str

    @property
    def class_syntax(self) -> bool:
        """Keys that are identifiers allow the class form (which linters prefer)."""
        return all(key.isidentifier() and not _is_keyword(key) for key, _, _ in self.fields)


@dataclass(frozen=True)
class TransformsView:
    imports: tuple[str, ...]
    typed_dicts: tuple[TypedDictView, ...]
    functions: tuple[FunctionView, ...]

    @property
    def needs_not_required(self) -> bool:
        return any(not required for td in self.typed_dicts for _, _, required in td.fields)


@dataclass(frozen=True)
class ToolExecutorView:
    name: str
    spec_const: str
    payload_codec: str
    result_codec: str
    payload_class: str
    result_class: str
    protocol: str
    bound_factory: FunctionView | None


@dataclass(frozen=True)
class ExecutorView:
    imports: tuple[str, ...]
    tools: tuple[ToolExecutorView, ...]
    handlers: TypedDictView
    service_annotation: str | None
    handlers_required: bool


@dataclass(frozen=True)
class BindingsView:
    transforms: TransformsView | None
    executor: ExecutorView
    first_party: frozenset[str]
    """Top-level packages of the application code the bindings import."""


def _is_keyword(name: str) -> bool:
    import keyword

    return keyword.iskeyword(name)


def snake_case(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.replace(".", "_")).lower()


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
    """Renders the plans of one toolset's bound tools."""

    def __init__(
        self,
        tools: tuple[Tool, ...],
        class_of: Callable[[ToolEnd], str],
        payload_class: Callable[[Tool], str],
        result_class: Callable[[Tool], str],
        server_data_class: Callable[[Tool, str], str],
        tool_names: Callable[[Tool], Any],
        remote: bool = False,
    ) -> None:
        self.tools = tools
        self.remote = remote
        """An MCPToolset's tools: they call the server, so a handler only replaces that."""
        self.class_of = class_of
        self.payload_class = payload_class
        self.result_class = result_class
        self.server_data_class = server_data_class
        self.tool_names = tool_names
        self.entry_names: dict[str, dict[str, str]] = {}
        self.helper_names: dict[str, str] = {}

    def build(self) -> BindingsView:
        transforms = self._transforms() if any(t.binding for t in self.tools) else None
        first_party = frozenset(
            t.binding.module.split(".")[0]
            for t in self.tools
            if t.binding is not None and plan_of(t) is not None
        )
        return BindingsView(transforms, self._executor(), first_party)

    # ── transforms.py ─────────────────────────────────────────────────────────────────────

    def _transforms(self) -> TransformsView:
        scope = NameScope(MODULE_NAMES)
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
                    f"to_server_data_{tool.ident}_{snake_case(_ident(sd.kind))}"
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
                f"args: t.{self.payload_class(tool)}",
                payload_target,
                (f"return {self.helper_names[plan.payload_key]}(args)",),
                f"The arguments of {tool.name!r} as {plan.payload_type.ref.qualname} takes them.",
            )
        ]
        returned = (
            "None" if plan.result.app_type is None else self.py_annotation(plan.result.app_type)
        )
        result_class = f"t.{self.result_class(tool)}"
        if plan.result.app_type is None:
            body: tuple[str, ...] = (f"return {result_class}()",)
            params = "result: None"
        else:
            value = self.expr(plan.result.conv, "result", 0)
            body = (
                (f"return {result_class}({value})",) if plan.result.root else (f"return {value}",)
            )
            params = f"result: {returned}"
        out.append(
            FunctionView(
                names["result"],
                params,
                result_class,
                body,
                f"What {tool.name!r} returns, from the method's result.",
            )
        )
        for sd in plan.server_data:
            source = f'result["{sd.field}"]' if sd.access == "key" else f"result.{sd.field}"
            if sd.access == "key" and sd.may_be_none:
                source = f'result.get("{sd.field}")'
            target_class = f"t.{self.server_data_class(tool, sd.kind)}"
            value = self.expr(sd.conv, source, 0)
            if sd.root:
                value = f"{target_class}({value})"
            if sd.may_be_none:
                value = f"None if {source} is None else {value}"
            out.append(
                FunctionView(
                    names[f"sd:{sd.kind}"],
                    f"result: {returned}",
                    f"{target_class} | None" if sd.may_be_none else target_class,
                    (f"return {value}",),
                    f"Server data {sd.kind!r} of {tool.name!r}, from the method's result.",
                )
            )
        return out

    def _record_function(self, mapping: RecordMapping) -> FunctionView:
        source = self._end_annotation(mapping.source)
        target = self._end_annotation(mapping.target)
        name = self.helper_names[mapping.key]
        if mapping.construct == "mapping":
            body = (*self._dict_lines(mapping, target), "return out")
        elif mapping.construct == "validate":
            assert isinstance(mapping.target, AppEnd)
            fields = self.fields_names[mapping.target.ref]
            body = (*self._dict_lines(mapping, fields), f"return {target}.model_validate(out)")
        else:
            args = ", ".join(f"{m.target}={self._move(m, mapping)}" for m in mapping.moves)
            body = (f"return {target}({args})",)
        return FunctionView(name, f"value: {source}", target, body)

    def _dict_lines(self, mapping: RecordMapping, annotation: str) -> list[str]:
        """``out``, the target's keys as a typed mapping (keys left out when their source is None)."""
        always = [m for m in mapping.moves if not m.omit_when_none]
        optional = [m for m in mapping.moves if m.omit_when_none]
        entries = ", ".join(f"{py_literal(m.target)}: {self._move(m, mapping)}" for m in always)
        lines = [f"out: {annotation} = {{{entries}}}"]
        for m in optional:
            source = self._source(m, mapping)
            lines.append(f"if {source} is not None:")
            lines.append(f"    out[{py_literal(m.target)}] = {self.expr(m.conv, source, 0)}")
        return lines

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

    def _executor(self) -> ExecutorView:
        scope = NameScope(MODULE_NAMES)
        imports = _Imports(scope)
        owner: PyRef | None = None
        for tool in self.tools:
            plan = plan_of(tool)
            if plan is not None and plan.owner is not None:
                owner = plan.owner
        service_annotation = imports.app(owner) if owner else None
        tools: list[ToolExecutorView] = []
        handler_fields: list[tuple[str, str, bool]] = []
        for tool in self.tools:
            names = self.tool_names(tool)
            protocol = scope.unique(f"{tool.class_prefix}Handler")
            factory = self._bound_factory(tool, imports, scope, service_annotation)
            tools.append(
                ToolExecutorView(
                    name=tool.name,
                    spec_const=names.spec_const,
                    payload_codec=names.payload_codec,
                    result_codec=names.result_codec,
                    payload_class=self.payload_class(tool),
                    result_class=self.result_class(tool),
                    protocol=protocol,
                    bound_factory=factory,
                )
            )
            handler_fields.append((tool.name, protocol, factory is None and not self.remote))
        handlers = TypedDictView("Handlers", tuple(handler_fields), "Handlers by tool name.")
        return ExecutorView(
            imports=imports.lines(),
            tools=tuple(tools),
            handlers=handlers,
            service_annotation=service_annotation,
            handlers_required=any(required for _, _, required in handler_fields),
        )

    def _bound_factory(
        self, tool: Tool, imports: _Imports, scope: NameScope, service: str | None
    ) -> FunctionView | None:
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
        arguments = f"tr.{names['payload']}(args)"
        call_args = f"**{arguments}" if plan.payload_mode == "arguments" else arguments
        # A sync method may block: the runtime runs it on its worker threads, which keeps
        # the event loop free and tells a call that never started from a slow one.
        call = f"await {target}({call_args})" if plan.is_async else f"{target}({call_args})"
        # The runtime runs the result transform (``convert``): a value the tool's result type
        # rejects is then answered as the tool's malformed response, with the field named.
        convert = f"convert=tr.{names['result']}"
        if plan.result.app_type is None:
            lines = [call, f"return rt.Outcome(None, {convert})"]
        else:
            lines = [f"returned = {call}"]
            if plan.server_data:
                producers = ", ".join(
                    f"{sd.kind!r}: lambda: tr.{names['sd:' + sd.kind]}(returned)"
                    for sd in plan.server_data
                )
                lines.append(f"return rt.Outcome(returned, server_data={{{producers}}}, {convert})")
            else:
                lines.append(f"return rt.Outcome(returned, {convert})")
        params = f"service: {service}" if plan.owner is not None and service else ""
        signature = (
            f"def invoke(args: t.{self.payload_class(tool)}, meta: rt.ToolCallMeta) -> rt.Outcome:"
        )
        inner = (
            f"async {signature}" if plan.is_async else signature,
            *(f"    {line}" for line in lines),
            "",
            "return invoke" if plan.is_async else "return rt.in_worker_thread(invoke)",
        )
        return FunctionView(scope.unique(f"_bind_{tool.ident}"), params, "rt.Invoke", inner)


def default_literal(value: Any) -> str:
    return py_literal(value)


def _ident(kind: str) -> str:
    return re.sub(r"\W+", "_", kind).strip("_") or "data"
