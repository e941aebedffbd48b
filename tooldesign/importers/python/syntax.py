"""Helpers over the syntax tree: names, literals and the shapes of classes, read without
running anything."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

NO_VALUE = object()
"""What reading a value gives when there is none to read: no default, or not a literal."""


def dotted(node: ast.expr) -> str | None:
    """``A.B`` for the expression ``A.B`` (names and attributes only)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


def literal_value(node: ast.expr, fallback: Any) -> Any:
    """The value ``node`` writes literally (a set sorted, a tuple as a list), or ``fallback``."""
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return fallback
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    if isinstance(value, tuple):
        return list(value)
    return value


def call_name(node: ast.expr) -> str | None:
    return last_name(node.func) if isinstance(node, ast.Call) else None


def last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):
        return last_name(node.value)
    return None


def flatten_or(node: ast.expr) -> Iterator[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        yield from flatten_or(node.left)
        yield from flatten_or(node.right)
    else:
        yield node


def is_none(node: ast.expr) -> bool:
    return (isinstance(node, ast.Constant) and node.value is None) or last_name(node) == "NoneType"


def is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def parse_expression(text: str) -> ast.expr | None:
    try:
        return ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None


def module_constants(module: ast.Module) -> dict[str, ast.expr]:
    """Module-level names bound once to an expression: ``NAME = expr``, ``NAME: T = expr``,
    ``type NAME = expr`` (Python 3.12). A name bound more than once is left out: which value
    it has depends on the run."""
    bound: dict[str, ast.expr | None] = {}
    type_alias = getattr(ast, "TypeAlias", None)  # the `type` statement, Python 3.12+
    for node in module.body:
        name: str | None = None
        value: ast.expr | None = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            name, value = (target.id if isinstance(target, ast.Name) else None), node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            name, value = node.target.id, node.value
        elif type_alias is not None and isinstance(node, type_alias):
            name, value = node.name.id, node.value
        if name is not None and value is not None:
            bound[name] = None if name in bound else value
    return {name: value for name, value in bound.items() if value is not None}


def is_enum(node: ast.ClassDef) -> bool:
    return any(last_name(b) in ("Enum", "StrEnum", "IntEnum") for b in node.bases)


def is_typed_dict(node: ast.ClassDef) -> bool:
    return any(last_name(b) == "TypedDict" for b in node.bases)


def is_dataclass(node: ast.ClassDef) -> bool:
    """Decorated ``@dataclass``, ``@dataclass(...)``, ``@dataclasses.dataclass`` or pydantic's
    ``@pydantic.dataclasses.dataclass``."""
    return any(
        last_name(d.func if isinstance(d, ast.Call) else d) == "dataclass"
        for d in node.decorator_list
    )


def enum_members(node: ast.ClassDef) -> dict[str, Any]:
    """An Enum's members and their values (``NO_VALUE`` for one that is not a literal)."""
    return {
        item.targets[0].id: literal_value(item.value, NO_VALUE)
        for item in node.body
        if isinstance(item, ast.Assign) and isinstance(item.targets[0], ast.Name)
    }
