"""Type expressions of the DSL: primitives, ``Object``, ``ArrayOf``, ``MapOf``, ``OneOf``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any as _Any

from tooldesign.contract.location import Location
from tooldesign.dsl.recorder import caller_location
from tooldesign.dsl.records import TypeLike


class TypeExpr:
    """Base of the DSL's type expressions."""


@dataclass(frozen=True, eq=False)
class PrimitiveExpr(TypeExpr):
    kind: str  # string | integer | number | boolean | any
    dsl_name: str

    def __repr__(self) -> str:
        return self.dsl_name

    def __call__(self, *, schema: _Any) -> VerbatimExpr:
        """``Any(schema={...})``: any value the JSON Schema ``schema`` accepts, shown verbatim."""
        if self.kind != "any":
            raise TypeError(f"{self.dsl_name} takes no schema; only Any(schema=...) does")
        return VerbatimExpr(schema, caller_location())


@dataclass(frozen=True, eq=False)
class VerbatimExpr(TypeExpr):
    """``Any(schema={...})``: a value described by a JSON Schema the DSL cannot spell.

    Importers keep such schemas as they found them; models see them as they are, and
    decoding checks values against them.
    """

    schema: _Any
    location: Location

    def __repr__(self) -> str:
        return "Any(schema=...)"


class ObjectExpr(TypeExpr):
    """``Object``: an inline object whose attributes are declared in the ``with`` block."""

    def __repr__(self) -> str:
        return "Object"


@dataclass(frozen=True, eq=False)
class ArrayExpr(TypeExpr):
    items: TypeLike
    min_items: object
    max_items: object
    location: Location

    def __repr__(self) -> str:
        return f"ArrayOf({self.items!r})"


@dataclass(frozen=True, eq=False)
class MapExpr(TypeExpr):
    key: TypeLike
    values: TypeLike
    location: Location

    def __repr__(self) -> str:
        return f"MapOf({self.key!r}, {self.values!r})"


@dataclass(frozen=True, eq=False)
class UnionExpr(TypeExpr):
    variants: tuple[TypeLike, ...]
    discriminator: object
    location: Location

    def __repr__(self) -> str:
        return f"OneOf({', '.join(repr(v) for v in self.variants)})"


@dataclass(frozen=True, eq=False)
class MCPServerExpr:
    """``MCPServer(...)``: where an ``MCPToolset``'s tools live (checked by the IR)."""

    command: _Any
    url: _Any
    env: _Any
    cwd: _Any
    headers: _Any
    timeout: _Any
    location: Location


String = PrimitiveExpr("string", "String")
Int = PrimitiveExpr("integer", "Int")
Float = PrimitiveExpr("number", "Float")
Boolean = PrimitiveExpr("boolean", "Boolean")
Any = PrimitiveExpr("any", "Any")
Object = ObjectExpr()

BUILTIN_ALIASES: dict[type, PrimitiveExpr] = {str: String, int: Int, float: Float, bool: Boolean}
