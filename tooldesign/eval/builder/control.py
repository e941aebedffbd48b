"""What a design says about control over its tools: ``Confirm`` and designed repairs.

``Confirm``'s prompt may name only arguments the model sends (injected fields are left out of
an approval request), its condition only arguments, each compared with values of its own
kind; every repair an attribute names must apply to the attribute's type. ``Repairs`` set
defaults: the nearest declaration (tool, toolset, service) applies to every payload field it
fits, and an attribute's own ``repair=`` wins over it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooldesign.contract.agents import AgentContract, check_budget
from tooldesign.contract.conditions import ConditionError, parse_condition
from tooldesign.contract.confirm import DEFAULT_DENIED, ConfirmSpec, TemplateError, prompt_fields
from tooldesign.contract.errors import did_you_mean
from tooldesign.contract.repairs import (
    ITEMS,
    REPAIR_NAMES,
    REPAIRS,
    VALUES,
    FieldRepair,
    RepairKind,
    applies,
    repair_row,
)
from tooldesign.dsl.records import (
    AgentRecord,
    AttributeRecord,
    ConfirmRecord,
    Record,
    RepairsRecord,
)
from tooldesign.eval.builder import values
from tooldesign.ir.errors import Issues
from tooldesign.ir.model import (
    ArrayType,
    Constraints,
    MapType,
    Message,
    NamedType,
    ObjectShape,
    ObjectType,
    Primitive,
    PrimitiveType,
    TypeExpr,
    UserType,
)

# Repairs of the value itself come before those of its items: "5" becomes ["5"], then [5].
_CONTAINER_REPAIRS = (RepairKind.JSON_STRING, RepairKind.SINGLE_VALUE)

_DSL_TYPES = {
    "integer": "Int",
    "number": "Float",
    "boolean": "Boolean",
    "string": "String",
    "array": "ArrayOf(...)",
    "object": "an object",
}


def agent(rec: AgentRecord | None, issues: Issues) -> AgentContract | None:
    """``ImplementedByAgent``'s contract; each bad value is reported and left at its default
    (which toolsets ``uses`` names is checked once the whole service is built)."""
    if rec is None:
        return None
    names: dict[str, tuple[str, ...]] = {}
    for key in ("uses", "forward"):
        given = getattr(rec, key)
        if isinstance(given, str) or not isinstance(given, list | tuple):
            issues.add(
                f"ImplementedByAgent {key}= must be a list of names, got {given!r}",
                rec.location,
                rec.path,
            )
            given = ()
        bad = [name for name in given if not values.is_text(name) or not name.strip()]
        for name in bad:
            issues.add(
                f"ImplementedByAgent {key}= lists {name!r}, which is not a name",
                rec.location,
                rec.path,
            )
        names[key] = tuple(dict.fromkeys(name for name in given if name not in bad))
    budgets: dict[str, Any] = {}
    for key, value in rec.budgets.items():
        try:
            check_budget(key, value)
        except ValueError as exc:
            issues.add(f"ImplementedByAgent {key}=: {exc}", rec.location, rec.path)
            continue
        budgets[key] = value
    return AgentContract(uses=names["uses"], forward=names["forward"], **budgets)


def json_type(t: TypeExpr) -> str:
    """The JSON type of values of ``t`` (``"any"`` for Any, ``"union"`` for OneOf)."""
    match t:
        case PrimitiveType(kind=Primitive.ANY):
            return "any"
        case PrimitiveType():
            return str(t.kind)
        case ArrayType():
            return "array"
        case MapType() | NamedType() | ObjectType():
            return "object"
    return "union"


def _element(t: TypeExpr) -> TypeExpr | None:
    """The type of a list's items or a map's values, which item repairs apply to."""
    if isinstance(t, ArrayType):
        return t.items
    if isinstance(t, MapType):
        return t.values
    return None


# ── repairs ───────────────────────────────────────────────────────────────────────────────


def _kinds(value: Any, rec: Record, what: str, issues: Issues) -> tuple[str, ...] | None:
    """The repair names ``value`` lists, each known (unknown ones reported and dropped)."""
    if isinstance(value, str) or not isinstance(value, list | tuple):
        issues.add(
            f"{what} takes a list of repair names ({', '.join(sorted(REPAIR_NAMES))}), got {value!r}",
            rec.location,
            rec.path,
        )
        return None
    kinds: list[str] = []
    for kind in value:
        if not values.is_text(kind) or kind not in REPAIR_NAMES:
            issues.add(
                f"unknown repair {kind!r}; the repairs are: "
                + "; ".join(f"{row.kind} ({row.description})" for row in REPAIRS)
                + did_you_mean(kind, REPAIR_NAMES),
                rec.location,
                rec.path,
            )
        elif kind not in kinds:
            kinds.append(kind)
    return tuple(kinds)


def attribute_repairs(
    attr: AttributeRecord, t: TypeExpr, constraints: Constraints, issues: Issues
) -> tuple[str, ...] | None:
    """``repair=[...]`` of an attribute: known repairs, each one that fits its type."""
    if attr.repair is None:
        return None
    kinds = _kinds(attr.repair, attr, "repair=", issues)
    if kinds is None:
        return None
    for kind in kinds:
        if not _fits(kind, t, constraints):
            row = repair_row(kind)
            assert row is not None
            fits = " or ".join(_DSL_TYPES[j] for j in sorted(row.applies_to))
            if row.kind is RepairKind.ENUM_CASE:
                fits = "a String with enum= (or a list of them)"
            issues.add(
                f"repair {kind!r} does not fit attribute {attr.name!r} ({_described(t)}): it "
                f"repairs {fits}",
                attr.location,
                attr.path,
            )
    return kinds


def _fits(kind: str, t: TypeExpr, constraints: Constraints) -> bool:
    if applies(kind, json_type(t), constraints.enum):
        return True
    element = _element(t)
    return (
        element is not None
        and RepairKind(kind) not in _CONTAINER_REPAIRS
        and applies(kind, json_type(element), constraints.enum)
    )


def _described(t: TypeExpr) -> str:
    kind = json_type(t)
    return _DSL_TYPES.get(kind, "OneOf" if kind == "union" else "Any")


def repairs_default(rec: RepairsRecord | None, issues: Issues) -> tuple[str, ...] | None:
    """The repairs a ``Repairs(...)`` call names (``None`` when there is none)."""
    if rec is None:
        return None
    return _kinds(list(rec.kinds), rec, "Repairs", issues) or ()


def tool_repairs(
    payload: Message,
    types: Mapping[str, UserType],
    default: tuple[str, ...] | None,
    injected: tuple[str, ...],
) -> tuple[FieldRepair, ...]:
    """Every payload field with repairs, and how (the runtime's plan for the tool)."""
    shape = _shape(payload.type, types)
    if shape is None:
        return ()
    out: list[FieldRepair] = []
    _walk(shape, (), types, default or (), out, frozenset(), skip=frozenset(injected))
    return tuple(out)


def _shape(t: TypeExpr, types: Mapping[str, UserType]) -> ObjectShape | None:
    if isinstance(t, ObjectType):
        return t.shape
    if isinstance(t, NamedType) and t.name in types:
        return types[t.name].shape
    return None


def _walk(
    shape: ObjectShape,
    path: tuple[str, ...],
    types: Mapping[str, UserType],
    default: tuple[str, ...],
    out: list[FieldRepair],
    seen: frozenset[str],
    *,
    skip: frozenset[str] = frozenset(),
) -> None:
    for f in shape.fields:
        if f.name in skip:
            continue
        here = (*path, f.name)
        kinds = f.repair if f.repair is not None else default
        enum = f.constraints.enum
        # The value itself (an object or a list sent as JSON, one value for a list)…
        _add(out, here, f.type, kinds, enum, containers=True)
        element = _element(f.type)
        # …then its items or map values (numbers, booleans, enum values inside a list).
        if element is not None:
            inside = (*here, ITEMS if isinstance(f.type, ArrayType) else VALUES)
            _add(out, inside, element, kinds, enum, containers=False)
        _descend(f.type, here, types, default, out, seen)


def _add(
    out: list[FieldRepair],
    path: tuple[str, ...],
    t: TypeExpr,
    kinds: tuple[str, ...],
    enum: tuple[Any, ...] | None,
    *,
    containers: bool,
) -> None:
    kind_of = json_type(t)

    def wanted(kind: str) -> bool:
        if kind_of == "array" or not containers:
            # A list takes the repairs of its own shape; its items take the others.
            return (RepairKind(kind) in _CONTAINER_REPAIRS) == containers
        return True

    fitting = tuple(k for k in kinds if wanted(k) and applies(k, kind_of, enum))
    if fitting:
        out.append(FieldRepair(path, fitting, kind_of, enum if kind_of == "string" else None))


def _descend(
    t: TypeExpr,
    path: tuple[str, ...],
    types: Mapping[str, UserType],
    default: tuple[str, ...],
    out: list[FieldRepair],
    seen: frozenset[str],
) -> None:
    """Into the fields of objects the value holds (a recursive type is visited once per path)."""
    if isinstance(t, ArrayType):
        _descend(t.items, (*path, ITEMS), types, default, out, seen)
    elif isinstance(t, MapType):
        _descend(t.values, (*path, VALUES), types, default, out, seen)
    elif isinstance(t, ObjectType):
        _walk(t.shape, path, types, default, out, seen)
    elif isinstance(t, NamedType) and t.name in types and t.name not in seen:
        _walk(types[t.name].shape, path, types, default, out, seen | {t.name})


# ── Confirm ───────────────────────────────────────────────────────────────────────────────


def confirm(
    rec: ConfirmRecord | None,
    payload: Message,
    types: Mapping[str, UserType],
    injected: tuple[str, ...],
    issues: Issues,
) -> ConfirmSpec | None:
    """``Confirm(...)`` of a tool, its prompt and condition checked against the arguments."""
    if rec is None:
        return None
    shape = _shape(payload.type, types)

    def field_type(path: tuple[str, ...], *, visible_only: bool = False) -> str | None:
        current = shape
        kind: str | None = None
        for depth, part in enumerate(path):
            f = current.field(part) if current is not None else None
            if f is None or (visible_only and depth == 0 and part in injected):
                return None
            kind = json_type(f.type)
            current = _shape(f.type, types)
        return kind

    prompt = rec.prompt
    if not values.is_text(prompt) or not prompt.strip():
        issues.add(
            f"Confirm needs a prompt (a non-empty string), got {prompt!r}", rec.location, rec.path
        )
        prompt = None
    else:
        try:
            named = prompt_fields(prompt)
        except TemplateError as exc:
            issues.add(f"Confirm prompt: {exc}", rec.location, rec.path)
            named = ()
        for path in named:
            if field_type(path, visible_only=True) is None:
                where = ".".join(path)
                why = (
                    "an injected field, which approval requests leave out"
                    if path[0] in injected
                    else "not an argument of the tool"
                )
                issues.add(
                    f"Confirm prompt names {{{where}}}, {why} ({_arguments(shape, injected)})",
                    rec.location,
                    rec.path,
                )
    when = rec.when
    if when is not None:
        if not values.is_text(when):
            issues.add(
                f"Confirm when= must be a condition (a string), got {when!r}",
                rec.location,
                rec.path,
            )
            when = None
        else:
            try:
                condition = parse_condition(when)
            except ConditionError as exc:
                issues.add(f"Confirm when={when!r}: {exc}", rec.location, rec.path)
                when = None
            else:
                for problem in condition.problems(field_type):
                    issues.add(
                        f"Confirm when={when!r}: {problem} ({_arguments(shape, ())})",
                        rec.location,
                        rec.path,
                    )
    denied = rec.denied
    if denied is not None and (not values.is_text(denied) or not denied.strip()):
        issues.add(
            f"Confirm denied= must be a non-empty string (what the model is told), got {denied!r}",
            rec.location,
            rec.path,
        )
        denied = None
    if prompt is None:
        return None
    return ConfirmSpec(prompt, when, denied if denied is not None else DEFAULT_DENIED)


def _arguments(shape: ObjectShape | None, injected: tuple[str, ...]) -> str:
    names = [f.name for f in shape.fields if f.name not in injected] if shape else []
    return f"arguments: {', '.join(names) or 'none'}"
