"""``Confirm(when=...)``: a small, safe condition over a tool's arguments.

A condition is written as a Python expression and read with :func:`ast.parse` — parsed, never
evaluated by Python — into the few nodes below, which :meth:`Condition.holds` interprets::

    duration_minutes > 120 or notify_users == False
    site_id in ["hq", "nyc"] and not dry_run
    len(device_ids) > 3 or "core" in tags
    window.kind == "emergency"

Allowed: argument names (``a.b`` reaches a field of an object argument), string, number,
``True``/``False``/``None`` literals and lists of them, ``==``, ``!=``, ``<``, ``<=``, ``>``,
``>=``, ``in``, ``not in``, ``and``, ``or``, ``not``, parentheses and ``len(...)``. Anything else
(calls, attribute access on literals, subscripts, arithmetic, lambdas) is refused when the
design is evaluated, with what is allowed.

Why a condition rather than a Python predicate bound like ``BindTo``: the design, not the
application's code, says which calls need a person. A condition is part of the contract: it is
in the catalog (``tooldesign diff`` sees it change, ``tooldesign docs`` shows it), it is checked
against the tool's arguments when the design is evaluated, and every process that runs the tool
(an MCP server, a worker) evaluates it from the spec alone, without importing application code.

Evaluation never raises: an argument that is absent reads as ``None``, and a comparison of
values of different kinds (a number with a string, ``None`` with anything but ``==``) is false.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

MAX_CONDITION_LENGTH = 1000
"""Characters a condition may have."""

_MAX_NODES = 200


class ConditionError(ValueError):
    """A condition that cannot be read: the message says what and where."""


Value = Any


@dataclass(frozen=True, slots=True)
class Field:
    """An argument, or a field of one (``window.kind``)."""

    path: tuple[str, ...]

    def value(self, arguments: Mapping[str, Any]) -> Value:
        current: Any = arguments
        for part in self.path:
            if not isinstance(current, Mapping):
                return None
            current = current.get(part)
        return current


@dataclass(frozen=True, slots=True)
class Literal:
    value: Value

    def value_of(self, arguments: Mapping[str, Any]) -> Value:
        return self.value


@dataclass(frozen=True, slots=True)
class Length:
    """``len(operand)``: the length of a string, list or object; ``None`` for anything else."""

    operand: Operand


Operand = Field | Literal | Length


@dataclass(frozen=True, slots=True)
class Compare:
    """``left op right [op right …]``: every comparison in the chain holds."""

    left: Operand
    ops: tuple[str, ...]
    rights: tuple[Operand, ...]


@dataclass(frozen=True, slots=True)
class AllOf:
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class AnyOf:
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Negation:
    item: Node


@dataclass(frozen=True, slots=True)
class Truthy:
    """A bare operand used as a condition (``dry_run``, ``not force``)."""

    operand: Operand


Node = Compare | AllOf | AnyOf | Negation | Truthy


@dataclass(frozen=True, slots=True)
class Condition:
    """A parsed condition: its text, and the tree :meth:`holds` interprets."""

    text: str
    root: Node

    def holds(self, arguments: Mapping[str, Any]) -> bool:
        """Whether the condition holds for ``arguments`` (never raises)."""
        return _holds(self.root, arguments)

    def fields(self) -> tuple[tuple[str, ...], ...]:
        """The argument paths the condition reads, in order of appearance, each once."""
        found: dict[tuple[str, ...], None] = {}
        _collect_fields(self.root, found)
        return tuple(found)

    def problems(self, field_type: Callable[[tuple[str, ...]], str | None]) -> list[str]:
        """What is wrong with the condition for a tool whose arguments ``field_type`` knows.

        ``field_type(path)`` is the JSON type of the argument at ``path`` (``"string"``,
        ``"integer"``, ``"number"``, ``"boolean"``, ``"array"``, ``"object"``, or ``"any"`` when
        it may be anything), or ``None`` when there is no such argument.
        """
        out: list[str] = []
        _check(self.root, field_type, out)
        return out


@lru_cache(maxsize=1024)
def parse_condition(text: str) -> Condition:
    """The condition ``text`` states; raises :class:`ConditionError` saying what is wrong."""
    if not isinstance(text, str) or not text.strip():
        raise ConditionError("a condition must be a non-empty string")
    if len(text) > MAX_CONDITION_LENGTH:
        raise ConditionError(
            f"a condition may have at most {MAX_CONDITION_LENGTH} characters, this one has "
            f"{len(text)}"
        )
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ConditionError(f"not a valid condition: {exc.msg}") from None
    if sum(1 for _ in ast.walk(tree)) > _MAX_NODES:
        raise ConditionError(f"a condition may have at most {_MAX_NODES} parts")
    return Condition(text, _node(tree.body))


# ── reading ───────────────────────────────────────────────────────────────────────────────

_COMPARISONS: dict[type[ast.cmpop], str] = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.In: "in",
    ast.NotIn: "not in",
}

_ALLOWED = (
    "argument names, literals (strings, numbers, True, False, None, lists of them), "
    "==, !=, <, <=, >, >=, in, not in, and, or, not, parentheses and len(...)"
)


def _refuse(node: ast.AST, what: str) -> ConditionError:
    column = getattr(node, "col_offset", None)
    at = f" (at column {column + 1})" if isinstance(column, int) else ""
    return ConditionError(f"{what} is not allowed in a condition{at}; allowed: {_ALLOWED}")


def _node(node: ast.expr) -> Node:
    if isinstance(node, ast.BoolOp):
        items = tuple(_node(value) for value in node.values)
        return AllOf(items) if isinstance(node.op, ast.And) else AnyOf(items)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return Negation(_node(node.operand))
    if isinstance(node, ast.Compare):
        ops = []
        for op in node.ops:
            name = _COMPARISONS.get(type(op))
            if name is None:
                raise _refuse(node, f"the comparison {type(op).__name__}")
            ops.append(name)
        rights = tuple(
            _operand(value, container=op in ("in", "not in"))
            for op, value in zip(ops, node.comparators, strict=True)
        )
        return Compare(_operand(node.left), tuple(ops), rights)
    return Truthy(_operand(node))


def _operand(node: ast.expr, *, container: bool = False) -> Operand:
    if isinstance(node, ast.Constant):
        if node.value is None or isinstance(node.value, bool | int | float | str):
            if isinstance(node.value, float) and not math.isfinite(node.value):
                raise _refuse(node, "a number that is not finite")
            return Literal(node.value)
        raise _refuse(node, f"the literal {node.value!r}")
    if isinstance(node, ast.List | ast.Tuple):
        if not container:
            raise _refuse(node, "a list outside 'in'")
        values = []
        for item in node.elts:
            literal = _operand(item)
            if not isinstance(literal, Literal):
                raise _refuse(item, "a list item that is not a literal")
            values.append(literal.value)
        return Literal(tuple(values))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = _operand(node.operand)
        if (
            isinstance(inner, Literal)
            and isinstance(inner.value, int | float)
            and not isinstance(inner.value, bool)
        ):
            return Literal(-inner.value if isinstance(node.op, ast.USub) else inner.value)
        raise _refuse(node, "a sign before something that is not a number")
    if isinstance(node, ast.Name | ast.Attribute):
        return Field(_path(node))
    if isinstance(node, ast.Call):
        if (
            isinstance(node.func, ast.Name)
            and node.func.id == "len"
            and len(node.args) == 1
            and not node.keywords
        ):
            return Length(_operand(node.args[0]))
        raise _refuse(node, "a call other than len(argument)")
    raise _refuse(node, f"{type(node).__name__}")


def _path(node: ast.expr) -> tuple[str, ...]:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        raise _refuse(node, "attribute access on something that is not an argument")
    if node.id in ("True", "False", "None"):  # only reachable through attributes
        raise _refuse(node, f"attribute access on {node.id}")
    parts.append(node.id)
    return tuple(reversed(parts))


# ── interpreting ──────────────────────────────────────────────────────────────────────────


def _value(operand: Operand, arguments: Mapping[str, Any]) -> Value:
    if isinstance(operand, Literal):
        return operand.value
    if isinstance(operand, Field):
        return operand.value(arguments)
    inner = _value(operand.operand, arguments)
    return len(inner) if isinstance(inner, str | list | tuple | Mapping) else None


def _number(value: Value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _compares(op: str, left: Value, right: Value) -> bool:
    if op in ("in", "not in"):
        if isinstance(right, str):
            inside = isinstance(left, str) and left in right
        elif isinstance(right, list | tuple):
            inside = any(_equal(left, item) for item in right)
        else:
            return False
        return inside if op == "in" else not inside
    if op == "==":
        return _equal(left, right)
    if op == "!=":
        return not _equal(left, right)
    # Ordering: numbers with numbers, strings with strings; anything else is false.
    if not (
        (_number(left) and _number(right)) or (isinstance(left, str) and isinstance(right, str))
    ):
        return False
    if op == "<":
        return bool(left < right)
    if op == "<=":
        return bool(left <= right)
    if op == ">":
        return bool(left > right)
    return bool(left >= right)


def _equal(left: Value, right: Value) -> bool:
    # True is not 1 here: JSON tells booleans and numbers apart, and so does a condition.
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if _number(left) and _number(right):
        return bool(left == right)
    return type(left) is type(right) and bool(left == right)


def _holds(node: Node, arguments: Mapping[str, Any]) -> bool:
    if isinstance(node, AllOf):
        return all(_holds(item, arguments) for item in node.items)
    if isinstance(node, AnyOf):
        return any(_holds(item, arguments) for item in node.items)
    if isinstance(node, Negation):
        return not _holds(node.item, arguments)
    if isinstance(node, Truthy):
        return bool(_value(node.operand, arguments))
    left = _value(node.left, arguments)
    for op, right_operand in zip(node.ops, node.rights, strict=True):
        right = _value(right_operand, arguments)
        if not _compares(op, left, right):
            return False
        left = right
    return True


# ── checking against a tool's arguments ───────────────────────────────────────────────────


def _collect_fields(node: Node | Operand, found: dict[tuple[str, ...], None]) -> None:
    if isinstance(node, Field):
        found[node.path] = None
    elif isinstance(node, Length):
        _collect_fields(node.operand, found)
    elif isinstance(node, AllOf | AnyOf):
        for item in node.items:
            _collect_fields(item, found)
    elif isinstance(node, Negation):
        _collect_fields(node.item, found)
    elif isinstance(node, Truthy):
        _collect_fields(node.operand, found)
    elif isinstance(node, Compare):
        _collect_fields(node.left, found)
        for right in node.rights:
            _collect_fields(right, found)


_LITERAL_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string"}


def _kind(operand: Operand, field_type: Callable[[tuple[str, ...]], str | None]) -> str | None:
    """The JSON type an operand has, when it is known (``None``: unknown or null)."""
    if isinstance(operand, Length):
        return "integer"
    if isinstance(operand, Field):
        kind = field_type(operand.path)
        return None if kind in (None, "any") else kind
    value = operand.value
    if isinstance(value, tuple):
        return "array"
    return _LITERAL_TYPES.get(type(value))


def _comparable(a: str, b: str) -> bool:
    numbers = {"integer", "number"}
    return a == b or (a in numbers and b in numbers)


def _check(
    node: Node | Operand, field_type: Callable[[tuple[str, ...]], str | None], out: list[str]
) -> None:
    if isinstance(node, Field):
        if field_type(node.path) is None:
            out.append(f"{'.'.join(node.path)!r} is not an argument of the tool")
        return
    if isinstance(node, Literal):
        return
    if isinstance(node, Length):
        _check(node.operand, field_type, out)
        kind = _kind(node.operand, field_type)
        if kind is not None and kind not in ("string", "array", "object"):
            out.append(f"len() of {_shown(node.operand)} ({kind}) is always None")
        return
    if isinstance(node, AllOf | AnyOf):
        for item in node.items:
            _check(item, field_type, out)
        return
    if isinstance(node, Negation):
        _check(node.item, field_type, out)
        return
    if isinstance(node, Truthy):
        _check(node.operand, field_type, out)
        return
    operands: Sequence[Operand] = (node.left, *node.rights)
    for operand in operands:
        _check(operand, field_type, out)
    for op, left, right in zip(node.ops, operands, operands[1:], strict=False):
        left_kind, right_kind = _kind(left, field_type), _kind(right, field_type)
        if op in ("in", "not in"):
            if right_kind is not None and right_kind not in ("array", "string"):
                out.append(
                    f"{_shown(right)} ({right_kind}) cannot hold anything: 'in' needs a list or a string"
                )
            continue
        if (
            left_kind is not None
            and right_kind is not None
            and not _comparable(left_kind, right_kind)
        ):
            out.append(
                f"{_shown(left)} ({left_kind}) is compared with {_shown(right)} ({right_kind}): "
                "the comparison is always false"
            )
        elif op in ("<", "<=", ">", ">=") and "boolean" in (left_kind, right_kind):
            out.append(f"{_shown(left)} {op} {_shown(right)} orders booleans: always false")


def _shown(operand: Operand) -> str:
    if isinstance(operand, Field):
        return ".".join(operand.path)
    if isinstance(operand, Length):
        return f"len({_shown(operand.operand)})"
    value = operand.value
    return repr(list(value)) if isinstance(value, tuple) else repr(value)


__all__ = [
    "MAX_CONDITION_LENGTH",
    "Condition",
    "ConditionError",
    "parse_condition",
]
