"""Type expressions of the DSL: primitives, ``Object``, ``ArrayOf``, ``MapOf``, ``OneOf``."""

from __future__ import annotations

from dataclasses import dataclass

from tooldesign.dsl.records import Location, TypeLike


class TypeExpr:
    """Base of the DSL's type expressions."""


@dataclass(frozen=True, eq=False)
class PrimitiveExpr(TypeExpr):
    kind: str  # string | integer | number | boolean | any
    dsl_name: str

    def __repr__(self) -> str:
        return self.dsl_name


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


String = PrimitiveExpr("string", "String")
Int = PrimitiveExpr("integer", "Int")
Float = PrimitiveExpr("number", "Float")
Boolean = PrimitiveExpr("boolean", "Boolean")
Any = PrimitiveExpr("any", "Any")
Object = ObjectExpr()

BUILTIN_ALIASES: dict[type, PrimitiveExpr] = {str: String, int: Int, float: Float, bool: Boolean}
