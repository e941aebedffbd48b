"""Plan a bound tool's transforms: tool payload → method payload, method result → tool result.

Fields map by name (the field's Python name, then its wire name, then the application field's
alias), recursing into nested records, lists, maps and unions. Everything that cannot be mapped
is a design error naming both sides and the field — never a transform left out, and never one
that can only fail at run time (values typed ``Any`` or ``dict`` are the one exception: they are
validated when the call returns, since no type says more about them). That includes
constraints: the method must accept every value the tool's constraints let through, and enums:
a tool enum maps to an Enum (or a ``Literal``) with a member for each of its values, and an
Enum the method returns maps to a tool enum that lists each member's value.

Binding is the last phase of evaluation (:func:`bind`): every bound tool whose own design is
sound is planned, and all its problems — payload, result and server data — are reported.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from tooldesign.binding.constraints import constraint_gaps
from tooldesign.binding.plan import (
    AppEnd,
    AppGuard,
    BindingPlan,
    BuildRecord,
    Case,
    Conv,
    Dispatch,
    DumpModel,
    EachItem,
    EachValue,
    EnumValue,
    FieldMove,
    Narrowed,
    OrNone,
    RecordMapping,
    ResultPlan,
    Same,
    ScalarGuard,
    ServerDataPlan,
    ToEnum,
    ToolEnd,
    ToolGuard,
    ValidateInto,
    plan_of,
)
from tooldesign.binding.pytypes import (
    ANY,
    NONE,
    SCALAR_NAMES,
    PyClass,
    PyDict,
    PyEnum,
    PyField,
    PyList,
    PyLiteral,
    PyRecord,
    PyRef,
    PyScalar,
    PyType,
    PyUnion,
    Registry,
    UnsupportedType,
    accepts_none,
    describe_py,
    ref_of,
    without_none,
)
from tooldesign.contract.formats import FORMATS
from tooldesign.contract.location import Location
from tooldesign.ir.errors import Issues
from tooldesign.ir.model import (
    NO_CONSTRAINTS,
    NO_VALUE,
    ArrayType,
    Binding,
    Constraints,
    Design,
    Field,
    MapType,
    Message,
    NamedType,
    ObjectShape,
    ObjectType,
    Primitive,
    PrimitiveType,
    Service,
    Tool,
    Toolset,
    TypeExpr,
    UnionType,
    UserType,
    describe,
)
from tooldesign.ir.walk import used_user_types

Direction = Literal["in", "out"]

# The Python class a generated model uses for a string of each format, where it is one the
# transforms describe (a format held as another class, AnyUrl, binds as its string).
_FORMAT_CLASSES = {
    fmt.name: class_name
    for fmt in FORMATS
    if fmt.python_type is not None
    and (class_name := fmt.python_type.rpartition(".")[2]) in SCALAR_NAMES
}


@dataclass(frozen=True, slots=True)
class BindingProblem:
    """One thing about a bound tool that cannot be mapped.

    ``location`` and ``path`` are the DSL call it is about (a ``ServerData``); ``None`` means the
    ``BindTo`` call.
    """

    message: str
    location: Location | None = None
    path: str | None = None


class BindingError(Exception):
    """A bound tool that cannot be mapped: every problem found, each naming both sides and the field."""

    def __init__(self, problems: Iterable[BindingProblem]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(problem.message for problem in self.problems))


def resolve_target(binding: Binding) -> Any:
    obj: Any = importlib.import_module(binding.module)
    for part in binding.qualname.split("."):
        obj = getattr(obj, part)
    return obj


def plan_binding(types: Mapping[str, UserType], tool: Tool, binding: Binding) -> BindingPlan:
    """The transform plan of a bound tool, or :class:`BindingError` naming what cannot be mapped."""
    return _Planner(types, tool, binding).plan()


# ── the binding phase ───────────────────────────────────────────────────────────────────────


def bind(design: Design, issues: Issues) -> Design:
    """Phase 4 of evaluation: plan the transforms of every bound tool whose own design is sound.

    A tool is planned whatever is wrong elsewhere in the design, so its binding problems are
    reported with everything else; only a tool with issues of its own (or in the user types it
    reaches) is left out, since mismatches against a design that is itself wrong would mislead.
    Call it after validation, where the design's application code is importable.
    """
    unsound = {issue.path for issue in issues.items if issue.path}
    services: list[Service] = []
    for service in design.services:
        toolsets: list[Toolset] = []
        for toolset in service.toolsets:
            tools = tuple(
                _bind_tool(design, tool, issues)
                if tool.binding is not None and _is_sound(design, tool, unsound)
                else tool
                for tool in toolset.tools
            )
            _one_service_class(tools, issues)
            toolsets.append(dataclasses.replace(toolset, tools=tools))
        services.append(dataclasses.replace(service, toolsets=tuple(toolsets)))
    return dataclasses.replace(design, services=tuple(services))


def _is_sound(design: Design, tool: Tool, unsound: set[str]) -> bool:
    if not unsound:
        return True  # the usual case: no issues anywhere, no types to walk
    elements = [tool.path, *(design.types[name].path for name in used_user_types(design, [tool]))]
    return not any(
        path == element or path.startswith(f"{element} › ")
        for path in unsound
        for element in elements
    )


def _bind_tool(design: Design, tool: Tool, issues: Issues) -> Tool:
    binding = tool.binding
    assert binding is not None
    try:
        plan = plan_binding(design.types, tool, binding)
    except BindingError as exc:
        for problem in exc.problems:
            issues.add(
                problem.message,
                problem.location or binding.location,
                problem.path if problem.path is not None else binding.path,
            )
        return tool
    return dataclasses.replace(tool, binding=dataclasses.replace(binding, plan=plan))


def _one_service_class(tools: tuple[Tool, ...], issues: Issues) -> None:
    """A toolset's registration takes one service instance, so its methods share a class."""
    owners: dict[str, Tool] = {}
    for tool in tools:
        plan = plan_of(tool)
        if plan is None or plan.owner is None:
            continue
        owner = str(plan.owner)
        if owners and owner not in owners:
            first_owner, first = next(iter(owners.items()))
            assert tool.binding is not None
            issues.add(
                f"tool {tool.name!r} binds a method of {owner}, but tool {first.name!r} binds one of {first_owner}: "
                "the bound methods of a toolset belong to one class (its registration takes one service "
                "instance); use one class, module-level functions, or separate toolsets",
                tool.binding.location,
                tool.binding.path,
            )
        owners.setdefault(owner, tool)


# ── planning one tool ───────────────────────────────────────────────────────────────────────


class _Mismatch(Exception):
    """What cannot be mapped at one place: one or more messages (a record reports each field)."""

    def __init__(self, *messages: str) -> None:
        self.messages = messages
        super().__init__("; ".join(messages))


class _Planner:
    def __init__(self, types: Mapping[str, UserType], tool: Tool, binding: Binding) -> None:
        self.types = types
        self.tool = tool
        self.binding = binding
        self.registry = Registry()
        self.records: dict[str, RecordMapping | None] = {}
        self.failed: dict[str, tuple[str, ...]] = {}
        """Record mappings found impossible, by key: met again, the same problems (once)."""
        self.target = binding.target

    # ── the callable ──────────────────────────────────────────────────────────────────────

    def plan(self) -> BindingPlan:
        """The plan, or :class:`BindingError` with every problem of the payload, the result and
        the server data (each part is planned whatever is wrong with the others)."""
        function = resolve_target(self.binding)
        owner, skip_first = self._owner(function)
        try:
            hints = typing.get_type_hints(function, include_extras=True)
        except Exception as exc:  # noqa: BLE001 - unresolvable annotations are the application's to fix
            raise BindingError(
                [BindingProblem(f"{self.target}: its type annotations cannot be resolved: {exc}")]
            ) from None
        problems: list[BindingProblem] = []

        def report(*messages: str) -> None:
            problems.extend(BindingProblem(m) for m in messages)

        payload: tuple[Literal["record", "arguments"], PyRecord, str] | None = None
        try:
            payload_mode, payload_type = self._payload_type(function, skip_first, hints)
            payload = (payload_mode, payload_type, self._payload(payload_type))
        except UnsupportedType as exc:
            report(f"{self.target}: unsupported type {exc}")
        except _Mismatch as exc:
            report(*exc.messages)

        returned: PyType | None = None
        result: ResultPlan | None = None
        if "return" not in hints:
            report(f"{self.target}: annotate its return type (transforms map the result by type)")
        else:
            try:
                returned = self.registry.describe_result(hints["return"])
                result = self._result(returned)
            except UnsupportedType as exc:
                report(f"{self.target}: unsupported return type {exc}")
            except _Mismatch as exc:
                report(*exc.messages)

        server_data: list[ServerDataPlan] = []
        for kind in self.tool.server_data:
            try:
                if not kind.source_field:
                    raise _Mismatch(
                        f"server data {kind.kind!r} of a bound tool needs from_field= naming the field of "
                        f"the result of {self.target} that holds it"
                    )
                if returned is not None:
                    server_data.append(
                        self._server_data(kind.kind, kind.message, kind.source_field, returned)
                    )
            except _Mismatch as exc:
                problems.extend(BindingProblem(m, kind.location, kind.path) for m in exc.messages)

        if problems or payload is None or result is None:
            # The same record met at several places fails the same way: each problem once.
            raise BindingError(dict.fromkeys(problems))
        payload_mode, payload_type, payload_key = payload
        return BindingPlan(
            owner=owner,
            method=self.binding.qualname.rsplit(".", 1)[-1],
            is_async=inspect.iscoroutinefunction(function),
            payload_mode=payload_mode,
            payload_key=payload_key,
            payload_type=payload_type,
            result=result,
            server_data=tuple(server_data),
            records=tuple(r for r in self.records.values() if r is not None),
            app_records=tuple(self.registry.records.values()),
        )

    def _owner(self, function: Any) -> tuple[PyRef | None, bool]:
        parts = self.binding.qualname.split(".")
        if len(parts) == 1:
            return None, False
        cls: Any = importlib.import_module(self.binding.module)
        for part in parts[:-1]:
            cls = getattr(cls, part)
        if not isinstance(cls, type):
            raise BindingError(
                [
                    BindingProblem(
                        f"{self.target}: bind a module-level function or a method of a module-level class"
                    )
                ]
            )
        # Whatever kind of method it is, it is called on the service instance. Its signature
        # starts with ``self`` only when it is a plain function of the class: a classmethod
        # resolves bound to the class (``cls`` already taken) and a staticmethod has neither.
        static = inspect.getattr_static(cls, parts[-1])
        takes_self = not (isinstance(static, staticmethod) or inspect.ismethod(function))
        return ref_of(cls), takes_self

    def _payload_type(
        self, function: Callable[..., Any], skip_first: bool, hints: dict[str, Any]
    ) -> tuple[Literal["record", "arguments"], PyRecord]:
        params = [
            p
            for i, p in enumerate(inspect.signature(function).parameters.values())
            if not (skip_first and i == 0)
        ]
        payload = self._tool_shape(self.tool.payload)
        assert payload is not None, "payloads are objects"
        if len(params) == 1 and params[0].name in hints and payload.field(params[0].name) is None:
            described = self.registry.describe(hints[params[0].name])
            if isinstance(described, PyClass):
                return "record", self.registry.records[described.ref]
        ref = PyRef(self.binding.module, self.binding.qualname)
        return "arguments", self.registry.arguments(function, ref, skip_first)

    # ── payload: tool → method ────────────────────────────────────────────────────────────

    def _payload(self, payload_type: PyRecord) -> str:
        shape = self._tool_shape(self.tool.payload)
        assert shape is not None, "payloads are objects"
        source = self._tool_end(self.tool.payload.type, shape)
        return self._record_in(shape, source, payload_type, "payload")

    def _record_in(self, shape: ObjectShape, source: ToolEnd, target: PyRecord, path: str) -> str:
        key = f"in:{_end_key(source)}->{target.ref}"
        if key in self.records:
            return key
        if target.unbuildable is not None:
            raise _Mismatch(
                f"{target.unbuildable} (tool {self.tool.name!r} builds it at {path} to call {self.target})"
            )
        return self._record(key, lambda: self._plan_record_in(shape, source, target, path, key))

    def _plan_record_in(
        self, shape: ObjectShape, source: ToolEnd, target: PyRecord, path: str, key: str
    ) -> RecordMapping:
        moves: list[FieldMove] = []
        used: set[str] = set()
        rejected: list[str] = []
        problems: list[str] = []  # every field's, not just the first
        for app_field in target.fields:
            tool_field = _source_field(shape, app_field)
            where = f"{path}.{app_field.name}"
            if tool_field is None:
                if app_field.required:
                    problems.append(
                        f"{self._app_label(target)} needs {app_field.name!r} ({describe_py(app_field.type)}), "
                        f"but tool {self.tool.name!r} has no such field at {path}"
                    )
                continue
            used.add(tool_field.name)
            try:
                moves.append(self._move_in(tool_field, app_field, target, where))
            except _Mismatch as exc:
                problems.extend(exc.messages)
            gaps = constraint_gaps(tool_field.type, tool_field.constraints, app_field.constraints)
            if gaps:
                rejected.append(
                    f"{path}.{tool_field.name} accepts values that {self._app_label(target)} field "
                    f"{app_field.name!r} rejects: {'; '.join(gaps)}"
                )
        if rejected:
            problems.append(
                f"tool {self.tool.name!r} {'; '.join(rejected)}. Any value the tool allows may reach "
                "the method: give the tool field the method's constraints, or relax the method's"
            )
        unused = [f.name for f in shape.fields if f.name not in used]
        if unused:
            problems.append(
                f"tool {self.tool.name!r} field(s) {', '.join(map(repr, unused))} at {path} have no counterpart in "
                f"{self._app_label(target)} (fields: {', '.join(f.name for f in target.fields) or 'none'}); "
                "every argument the model gives must reach the method"
            )
        if problems:
            raise _Mismatch(*problems)
        construct: Literal["call", "mapping", "validate"] = (
            "mapping"
            if target.kind in ("typeddict", "arguments")
            else "validate"
            if target.has_aliases
            else "call"
        )
        return RecordMapping(
            key, source, AppEnd(target.ref, target.kind), tuple(moves), construct=construct
        )

    def _move_in(
        self, tool_field: Field, app_field: PyField, target: PyRecord, where: str
    ) -> FieldMove:
        conv = self._conv(
            "in", tool_field.type, tool_field.constraints, without_none(app_field.type), where
        )
        target_name = app_field.build_key
        may_be_none = not tool_field.required and not tool_field.has_default
        if not may_be_none:
            return FieldMove(target_name, tool_field.ident, conv)
        if accepts_none(app_field.type):
            return FieldMove(target_name, tool_field.ident, _or_none(conv), source_may_be_none=True)
        # A target built from a mapping can leave the key out and keep its own default.
        built_from_mapping = target.kind in ("typeddict", "arguments") or target.has_aliases
        if built_from_mapping and not app_field.required:
            return FieldMove(
                target_name, tool_field.ident, conv, source_may_be_none=True, omit_when_none=True
            )
        if app_field.default is not NO_VALUE:
            return FieldMove(
                target_name,
                tool_field.ident,
                conv,
                source_may_be_none=True,
                default=app_field.default,
            )
        raise _Mismatch(
            f"tool field {where} is optional, but {self._app_label(target)} field {app_field.name!r} "
            f"({describe_py(app_field.type)}) accepts no None and has no plain default: make the tool field "
            "required or give it a default, or make the method field Optional"
        )

    def _record(self, key: str, plan: Callable[[], RecordMapping]) -> str:
        """The record mapping ``key``, planned by ``plan`` when first met.

        On a mismatch every record this attempt began is forgotten (a union may try its next
        member, and no mapping may refer to one that was never finished), and why it failed is
        remembered: met again, it fails the same way.
        """
        if key in self.records:
            return key
        if key in self.failed:
            raise _Mismatch(*self.failed[key])
        known = set(self.records)
        self.records[key] = None  # in progress: a recursive type refers to it
        try:
            self.records[key] = plan()
        except _Mismatch as exc:
            for begun in [k for k in self.records if k not in known]:
                del self.records[begun]
            self.failed[key] = exc.messages
            raise
        return key

    # ── result: method → tool ─────────────────────────────────────────────────────────────

    def _result(self, returned: PyType) -> ResultPlan:
        message = self.tool.result
        shape = self._tool_shape(message)
        if shape is not None:
            end = self._tool_end(message.type, shape)
            if returned == NONE:
                required = [f.name for f in shape.fields if f.required]
                if required:
                    raise _Mismatch(
                        f"{self.target} returns None, but tool {self.tool.name!r} result requires {', '.join(required)}"
                    )
                return ResultPlan(Same(), None)
            return ResultPlan(self._object_out(shape, end, returned, "result"), returned)
        return ResultPlan(
            self._conv("out", message.type, NO_CONSTRAINTS, returned, "result"),
            returned,
            root=True,
        )

    def _object_out(self, shape: ObjectShape, end: ToolEnd, app: PyType, path: str) -> Conv:
        app = without_none(app)
        if isinstance(app, PyClass):
            return BuildRecord(self._record_out(self.registry.records[app.ref], shape, end, path))
        if app == ANY or isinstance(app, PyDict):
            return ValidateInto(end)
        raise _Mismatch(
            f"{self.target} gives {describe_py(app)} at {path}, but tool {self.tool.name!r} expects an object "
            f"({', '.join(f.name for f in shape.fields) or 'no fields'})"
        )

    def _record_out(self, source: PyRecord, shape: ObjectShape, target: ToolEnd, path: str) -> str:
        key = f"out:{source.ref}->{_end_key(target)}"
        return self._record(key, lambda: self._plan_record_out(source, shape, target, path, key))

    def _plan_record_out(
        self, source: PyRecord, shape: ObjectShape, target: ToolEnd, path: str, key: str
    ) -> RecordMapping:
        moves: list[FieldMove] = []
        problems: list[str] = []  # every field's, not just the first
        for tool_field in shape.fields:
            where = f"{path}.{tool_field.name}"
            app_field = (
                source.field(tool_field.ident)
                or source.field(tool_field.name)
                or source.field_by_key(tool_field.name)
            )
            if app_field is None:
                if tool_field.required:
                    problems.append(
                        f"tool {self.tool.name!r} {where} is required, but {self._app_label(source)} has no field "
                        f"{tool_field.name!r} (fields: {', '.join(f.name for f in source.fields) or 'none'})"
                    )
                continue
            try:
                moves.append(self._move_out(app_field, source, tool_field, where))
            except _Mismatch as exc:
                problems.extend(exc.messages)
        if problems:
            raise _Mismatch(*problems)
        access: Literal["attribute", "key"] = "key" if source.kind == "typeddict" else "attribute"
        return RecordMapping(key, AppEnd(source.ref, source.kind), target, tuple(moves), access)

    def _move_out(
        self, app_field: PyField, source: PyRecord, tool_field: Field, where: str
    ) -> FieldMove:
        conv = self._conv(
            "out", tool_field.type, tool_field.constraints, without_none(app_field.type), where
        )
        may_be_none = accepts_none(app_field.type) or (
            source.kind == "typeddict" and not app_field.required
        )
        if not may_be_none:
            return FieldMove(tool_field.ident, app_field.name, conv)
        if tool_field.required:
            raise _Mismatch(
                f"{self._app_label(source)} field {app_field.name!r} may be None, but tool {self.tool.name!r} "
                f"{where} is required"
            )
        if tool_field.has_default:
            return FieldMove(
                tool_field.ident,
                app_field.name,
                conv,
                source_may_be_none=True,
                default=tool_field.default,
            )
        return FieldMove(tool_field.ident, app_field.name, _or_none(conv), source_may_be_none=True)

    def _server_data(
        self, kind: str, message: Message, field_name: str, returned: PyType
    ) -> ServerDataPlan:
        record = self.registry.records.get(returned.ref) if isinstance(returned, PyClass) else None
        if record is None:
            raise _Mismatch(
                f"server data {kind!r} comes from field {field_name!r} of the result of {self.target}, "
                f"but it returns {describe_py(returned)}, not a record"
            )
        app_field = record.field(field_name)
        if app_field is None:
            raise _Mismatch(
                f"server data {kind!r}: {self._app_label(record)} has no field {field_name!r} "
                f"(fields: {', '.join(f.name for f in record.fields) or 'none'})"
            )
        shape = self._tool_shape(message)
        where = f"server_data[{kind!r}]"
        if shape is not None:
            conv = self._object_out(
                shape, self._tool_end(message.type, shape), app_field.type, where
            )
        else:
            conv = self._conv(
                "out", message.type, NO_CONSTRAINTS, without_none(app_field.type), where
            )
        access: Literal["attribute", "key"] = "key" if record.kind == "typeddict" else "attribute"
        may_be_none = accepts_none(app_field.type) or (
            record.kind == "typeddict" and not app_field.required
        )
        return ServerDataPlan(kind, field_name, access, conv, may_be_none, root=shape is None)

    # ── values ────────────────────────────────────────────────────────────────────────────

    def _conv(
        self,
        direction: Direction,
        tool: TypeExpr,
        constraints: Constraints,
        app: PyType,
        where: str,
    ) -> Conv:
        """Convert a non-None value between ``tool`` and ``app`` (``app`` without ``None``)."""
        if app == ANY:
            if direction == "in":
                return DumpModel() if self._is_object(tool) else Same()
            return self._validate_into(tool, where)
        match tool:
            case PrimitiveType(kind=Primitive.ANY):
                if direction == "in":
                    raise _Mismatch(
                        self._mismatch(direction, tool, app, where, "the tool value is Any")
                    )
                return Same()
            case PrimitiveType():
                return self._scalar(direction, tool, constraints, app, where)
            case ArrayType(items=items):
                if not isinstance(app, PyList):
                    raise _Mismatch(self._mismatch(direction, tool, app, where))
                return EachItem(
                    self._conv(direction, items, constraints, without_none(app.item), f"{where}[]")
                )
            case MapType(values=values):
                if not isinstance(app, PyDict):
                    raise _Mismatch(self._mismatch(direction, tool, app, where))
                return EachValue(
                    self._conv(
                        direction, values, NO_CONSTRAINTS, without_none(app.value), f"{where}{{}}"
                    )
                )
            case NamedType() | ObjectType():
                shape = self._shape_of(tool)
                end = self._tool_end(tool, shape)
                if direction == "out":
                    return self._object_out(shape, end, app, where)
                if isinstance(app, PyClass):
                    return BuildRecord(
                        self._record_in(shape, end, self.registry.records[app.ref], where)
                    )
                if isinstance(app, PyDict) and app.value == ANY:
                    return DumpModel()
                if isinstance(app, PyUnion):
                    return self._union(direction, (tool,), app.options, where)
                raise _Mismatch(self._mismatch(direction, tool, app, where))
            case UnionType(variants=variants):
                options = app.options if isinstance(app, PyUnion) else (app,)
                return self._union(direction, variants, options, where)
        raise _Mismatch(self._mismatch(direction, tool, app, where))

    def _union(
        self,
        direction: Direction,
        variants: tuple[TypeExpr, ...],
        options: tuple[PyType, ...],
        where: str,
    ) -> Conv:
        """Each value the source side can hold must convert to some member of the target side."""
        cases: list[Case] = []
        if direction == "in":
            for variant in variants:
                conv = self._first_fit(direction, variant, options, where)
                cases.append(Case(self._tool_guard(variant), conv))
        else:
            for option in options:
                if option == NONE:
                    continue
                conv = self._first_fit_tool(option, variants, where)
                cases.append(Case(self._app_guard(option, where), conv))
        if len(cases) == 1:
            return cases[0].conv
        if all(isinstance(c.conv, Same) for c in cases):
            return Same()
        # A str or int mixin's member is a str or an int to isinstance, and a bool is an int:
        # test those first.
        cases.sort(key=lambda c: _guard_order(c.guard, options))
        return Dispatch(tuple(cases))

    def _first_fit(
        self, direction: Direction, variant: TypeExpr, options: tuple[PyType, ...], where: str
    ) -> Conv:
        for option in options:
            if option == NONE:
                continue
            try:
                return self._conv(direction, variant, NO_CONSTRAINTS, option, where)
            except _Mismatch:
                continue
        raise _Mismatch(
            f"tool {self.tool.name!r} {where} can be {describe(variant)}, which none of "
            f"{' | '.join(describe_py(o) for o in options)} in {self.target} accepts"
        )

    def _first_fit_tool(self, option: PyType, variants: tuple[TypeExpr, ...], where: str) -> Conv:
        for variant in variants:
            try:
                return self._conv("out", variant, NO_CONSTRAINTS, option, where)
            except _Mismatch:
                continue
        raise _Mismatch(
            f"{self.target} can give {describe_py(option)} at {where}, which none of the tool's "
            f"{' | '.join(describe(v) for v in variants)} accepts"
        )

    def _scalar(
        self,
        direction: Direction,
        tool: PrimitiveType,
        constraints: Constraints,
        app: PyType,
        where: str,
    ) -> Conv:
        kind = tool.kind
        fmt_class = (
            _FORMAT_CLASSES.get(constraints.format or "") if kind is Primitive.STRING else None
        )
        if fmt_class is not None:
            if app == PyScalar(fmt_class):
                return Same()
            if direction == "out" and app == PyScalar("str"):
                return Narrowed(Same())  # the result type reads the string, or refuses it
            raise _Mismatch(
                self._mismatch(
                    direction,
                    tool,
                    app,
                    where,
                    f"a {constraints.format} string is a {fmt_class} in Python",
                )
            )
        enum = constraints.enum
        if isinstance(app, PyEnum):
            return self._enum(direction, tool, enum, app, where)
        if isinstance(app, PyLiteral):
            values = set(app.values)
            if direction == "in":
                if enum is not None and set(enum) <= values:
                    return Same()
                detail = (
                    "the tool allows any value"
                    if enum is None
                    else f"the tool also allows {sorted(set(enum) - values)!r}"
                )
                raise _Mismatch(self._mismatch(direction, tool, app, where, detail))
            fitting = {v for v in values if _scalar_fits(kind, v)} & set(enum or values)
            if fitting == values:
                return Same()
            if fitting:  # some values the tool takes: the others are refused when returned
                return Narrowed(Same())
            raise _Mismatch(
                self._mismatch(
                    direction, tool, app, where, f"the tool allows none of {sorted(values)!r}"
                )
            )
        if not isinstance(app, PyScalar):
            raise _Mismatch(self._mismatch(direction, tool, app, where))
        ok = {
            Primitive.STRING: {"str"},
            Primitive.BOOLEAN: {"bool"},
            Primitive.INTEGER: {"int", "float"} if direction == "in" else {"int"},
            Primitive.NUMBER: {"float"} if direction == "in" else {"float", "int"},
        }[kind]
        if app.name not in ok:
            raise _Mismatch(self._mismatch(direction, tool, app, where))
        if direction == "out" and enum is not None:
            # A str where the tool lists its values: each result is checked when it returns.
            return Narrowed(Same())
        return Same()

    def _enum(
        self,
        direction: Direction,
        tool: PrimitiveType,
        enum: tuple[Any, ...] | None,
        app: PyEnum,
        where: str,
    ) -> Conv:
        """A tool value and an Enum (or a ``Literal`` of its members): each value the sending
        side may hold must have its counterpart on the other side."""

        def mismatch(detail: str) -> _Mismatch:
            return _Mismatch(self._mismatch(direction, tool, app, where, detail))

        name = app.ref.qualname
        values = ", ".join(repr(v) for v in app.values)
        if not all(_scalar_fits(tool.kind, value) for value in app.values):
            raise mismatch(f"{name}'s values are {values}, not {_KIND_PLURALS[tool.kind]}")
        if direction == "in":
            if enum is None:
                raise mismatch(
                    f"the tool allows any value, and {name} takes only {values}: "
                    f"list them with enum=[...] on the tool attribute"
                )
            unmapped = [value for value in enum if value not in app.values]
            if unmapped:
                raise mismatch(
                    f"the tool also allows {', '.join(map(repr, unmapped))}, which {name} has no "
                    f"member for ({'the Literal takes' if app.literal else 'its values are'} {values})"
                )
            return ToEnum(app)
        if enum is not None:
            listed = [value for _, value in app.members if value in enum]
            if not listed:
                raise mismatch(
                    f"the tool allows none of {name}'s values ({values}); its enum is "
                    f"{', '.join(map(repr, enum))}"
                )
            if len(listed) < len(app.members):
                # Members the tool does not list are refused when returned (run-time check).
                return Narrowed(EnumValue())
        return EnumValue()

    def _validate_into(self, tool: TypeExpr, where: str) -> Conv:
        if self._is_object(tool):
            shape = self._shape_of(tool)
            return ValidateInto(self._tool_end(tool, shape))
        return Same()

    # ── helpers ───────────────────────────────────────────────────────────────────────────

    def _tool_shape(self, message: Message) -> ObjectShape | None:
        """The message's object shape; ``None`` for a root message (``Return(String)``)."""
        t = message.type
        if isinstance(t, ObjectType):
            return t.shape
        if isinstance(t, NamedType):
            return self.types[t.name].shape
        return None

    def _shape_of(self, t: TypeExpr) -> ObjectShape:
        if isinstance(t, ObjectType):
            return t.shape
        assert isinstance(t, NamedType)
        return self.types[t.name].shape

    def _tool_end(self, t: TypeExpr, shape: ObjectShape) -> ToolEnd:
        if isinstance(t, NamedType):
            return ToolEnd(type_name=t.name)
        return ToolEnd(shape=shape)

    def _is_object(self, t: TypeExpr) -> bool:
        return isinstance(t, ObjectType | NamedType)

    def _tool_guard(self, t: TypeExpr) -> ToolGuard | ScalarGuard:
        if self._is_object(t):
            return ToolGuard(self._tool_end(t, self._shape_of(t)))
        if isinstance(t, PrimitiveType) and t.kind in _GUARD_NAMES:
            return ScalarGuard(_GUARD_NAMES[t.kind])
        if isinstance(t, ArrayType):
            return ScalarGuard("list")
        if isinstance(t, MapType):
            return ScalarGuard("dict")
        raise _Mismatch(
            f"tool {self.tool.name!r}: a union member {describe(t)} cannot be told apart at run time"
        )

    def _app_guard(self, t: PyType, where: str) -> AppGuard | ScalarGuard:
        if isinstance(t, PyClass | PyEnum):
            return AppGuard(t.ref)
        if isinstance(t, PyScalar) and t.name in ("str", "int", "float", "bool"):
            return ScalarGuard(t.name)
        if isinstance(t, PyLiteral):
            names = {type(v).__name__ for v in t.values}
            if len(names) == 1:
                return ScalarGuard(names.pop())
        if isinstance(t, PyList):
            return ScalarGuard("list")
        if isinstance(t, PyDict):
            return ScalarGuard("dict")
        raise _Mismatch(
            f"{self.target}: union member {describe_py(t)} at {where} cannot be told apart at run time"
        )

    def _app_label(self, record: PyRecord) -> str:
        if record.kind == "arguments":
            return f"the parameters of {self.target}"
        return f"{record.ref.qualname} (of {self.target})"

    def _mismatch(
        self, direction: Direction, tool: TypeExpr, app: PyType, where: str, detail: str = ""
    ) -> str:
        tool_side = f"tool {self.tool.name!r} {where} is {describe(tool)}"
        app_side = f"{self.target} {'expects' if direction == 'in' else 'gives'} {describe_py(app)}"
        return f"{tool_side}, but {app_side}" + (f" ({detail})" if detail else "")


_KIND_PLURALS = {
    Primitive.STRING: "strings",
    Primitive.INTEGER: "integers",
    Primitive.NUMBER: "numbers",
    Primitive.BOOLEAN: "booleans",
    Primitive.ANY: "values",
}

_GUARD_NAMES = {
    Primitive.STRING: "str",
    Primitive.INTEGER: "int",
    Primitive.NUMBER: "float",
    Primitive.BOOLEAN: "bool",
}


def _guard_order(guard: AppGuard | ScalarGuard | ToolGuard, options: tuple[PyType, ...]) -> int:
    if isinstance(guard, AppGuard) and any(
        isinstance(o, PyEnum) and o.ref == guard.ref for o in options
    ):
        return 0
    return 1 if guard == ScalarGuard("bool") else 2


def _scalar_fits(kind: Primitive, value: Any) -> bool:
    if kind is Primitive.STRING:
        return isinstance(value, str)
    if kind is Primitive.BOOLEAN:
        return isinstance(value, bool)
    if kind is Primitive.INTEGER:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, int | float) and not isinstance(value, bool)


def _or_none(conv: Conv) -> Conv:
    return conv if isinstance(conv, Same) else OrNone(conv)


def _source_field(shape: ObjectShape, app_field: PyField) -> Field | None:
    """The tool field an application field takes its value from: by Python name, then wire name,
    then the application field's alias."""
    for f in shape.fields:
        if f.ident == app_field.name:
            return f
    found = shape.field(app_field.name)
    if found is None and app_field.key is not None:
        found = shape.field(app_field.key)
    return found


def _end_key(end: ToolEnd) -> str:
    if end.type_name is not None:
        return f"type:{end.type_name}"
    if end.shape is not None:
        return f"shape:{end.shape.name_hint}"
    return "message"
