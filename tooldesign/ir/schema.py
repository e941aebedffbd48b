"""JSON Schema (2020-12) for IR types.

One builder serves three readers: the catalog and specs (what a model sees: inline objects,
injected fields left out), the model generator (every object hoisted into ``$defs`` under its
class name, through hooks code generation gives) and design validation (defaults and examples
checked against their own schema).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from tooldesign.contract.constraints import CONSTRAINTS
from tooldesign.contract.rules import rules_schema
from tooldesign.ir.model import (
    NO_VALUE,
    ArrayType,
    Constraints,
    Field,
    MapType,
    NamedType,
    ObjectShape,
    ObjectType,
    Primitive,
    PrimitiveType,
    TypeExpr,
    UnionType,
    UserType,
)
from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.refs import def_ref

Schema = dict[str, Any]

# Constraints that describe a value rather than a container: on an array of primitives they
# apply to its items (``ArrayOf(String)`` with ``max_length=64`` limits each string).
_VALUE_KEYWORDS = tuple((c.option, c.keyword) for c in CONSTRAINTS if c.on_values)
_ARRAY_KEYWORDS = tuple((c.option, c.keyword) for c in CONSTRAINTS if not c.on_values)


StatedConstraints = Callable[[Constraints], tuple[Constraints, Mapping[str, Any]]]
"""What of a field's constraints a schema states, and keywords to add beside them."""


def _every_constraint(c: Constraints) -> tuple[Constraints, Mapping[str, Any]]:
    return c, {}


def _no_hoisting(shape: ObjectShape) -> str | None:
    return None


def _no_extensions(shape: ObjectShape) -> Mapping[str, Any]:
    return {}


class SchemaBuilder:
    """Builds schemas for one document; referenced user types collect in :attr:`defs`.

    ``def_name`` names a user type in ``$defs``; ``hoist`` returns a ``$defs`` name for an inline
    object to move it there (``None`` keeps it inline); ``extensions`` adds keywords to an
    object's schema; ``constraints`` says what of a field's constraints the schema states (all
    of them unless a reader of the schema needs less); ``verbatim`` writes an
    ``Any(schema=...)`` schema as it is (``False``: as ``{}``, any value).
    """

    def __init__(
        self,
        types: Mapping[str, UserType],
        *,
        def_name: Callable[[UserType], str] | None = None,
        hoist: Callable[[ObjectShape], str | None] = _no_hoisting,
        extensions: Callable[[ObjectShape], Mapping[str, Any]] = _no_extensions,
        constraints: StatedConstraints = _every_constraint,
        verbatim: bool = True,
    ) -> None:
        self.types = types
        self.verbatim = verbatim
        self.defs: dict[str, Schema] = {}
        self._def_name = def_name or (lambda t: t.name)
        self._hoist = hoist
        self._extensions = extensions
        self._constraints = constraints

    def document(self, root: Schema) -> Schema:
        """``root`` with the ``$defs`` it needs (sorted, so output is stable)."""
        if not self.defs:
            return root
        return {**root, K.DEFS: {name: self.defs[name] for name in sorted(self.defs)}}

    def type_schema(self, t: TypeExpr) -> Schema:
        match t:
            case PrimitiveType(kind=Primitive.ANY, schema=str() as verbatim) if self.verbatim:
                loaded: Schema = json.loads(verbatim)
                return loaded
            case PrimitiveType(kind=Primitive.ANY):
                return {}
            case PrimitiveType(kind=kind):
                return {K.TYPE: str(kind)}
            case ArrayType(items=items, min_items=lo, max_items=hi):
                out: Schema = {K.TYPE: "array", K.ITEMS: self.type_schema(items)}
                if lo is not None:
                    out[K.MIN_ITEMS] = lo
                if hi is not None:
                    out[K.MAX_ITEMS] = hi
                return out
            case MapType(values=values):
                return {K.TYPE: "object", K.ADDITIONAL_PROPERTIES: self.type_schema(values)}
            case NamedType(name=name):
                return {K.REF: def_ref(self._define(self.types[name]))}
            case ObjectType(shape=shape):
                hoisted = self._hoist(shape)
                if hoisted is None:
                    return self.object_schema(shape)
                if hoisted not in self.defs:
                    self.defs[hoisted] = {}
                    self.defs[hoisted] = self.object_schema(shape)
                return {K.REF: def_ref(hoisted)}
            case UnionType(variants=variants, discriminator=None):
                return {K.ANY_OF: [self.type_schema(v) for v in variants]}
            case UnionType(variants=variants, discriminator=disc):
                return {
                    K.ONE_OF: [self.type_schema(v) for v in variants],
                    K.DISCRIMINATOR: {K.DISCRIMINATOR_PROPERTY: disc},
                }
        raise TypeError(f"not an IR type: {t!r}")

    def _define(self, user_type: UserType) -> str:
        name = self._def_name(user_type)
        if name not in self.defs:
            self.defs[name] = {}  # placeholder first: a recursive type refers to itself
            self.defs[name] = self.object_schema(user_type.shape)
        return name

    def object_schema(self, shape: ObjectShape, *, omit: frozenset[str] = frozenset()) -> Schema:
        out: Schema = {K.TYPE: "object"}
        if shape.description:
            out[K.DESCRIPTION] = shape.description
        fields = [f for f in shape.fields if f.name not in omit]
        out[K.PROPERTIES] = {f.name: self.field_schema(f) for f in fields}
        required = [f.name for f in fields if f.required]
        if required:
            out[K.REQUIRED] = required
        # The decoder rejects unknown keys, so the schema says so.
        out[K.ADDITIONAL_PROPERTIES] = False
        if shape.rules:
            out.update(rules_schema(shape.rules))
        out.update(self._extensions(shape))
        return out

    def field_schema(self, f: Field) -> Schema:
        out = self.type_schema(f.type)
        if f.description:
            out = _with_description(out, f.description)
        stated, keywords = self._constraints(f.constraints)
        apply_constraints(out, stated)
        if keywords:
            value_schema(out).update(keywords)
        if f.has_default:
            out[K.DEFAULT] = f.default
        if f.example is not NO_VALUE:
            out[K.EXAMPLES] = [f.example]
        if f.header is not None:
            out[K.X_MCP_HEADER] = f.header
        return out


def _with_description(schema: Schema, description: str) -> Schema:
    """``schema`` with ``description`` right after its ``type`` (or ``$ref``), for readability."""
    head: Schema = {k: schema[k] for k in (K.REF, K.TYPE) if k in schema}
    return {
        **head,
        K.DESCRIPTION: description,
        **{k: v for k, v in schema.items() if k not in head},
    }


def value_schema(schema: Schema) -> Schema:
    """Where value constraints go: ``schema`` itself, or the innermost items of an array."""
    target = schema
    while target.get(K.TYPE) == "array" and isinstance(target.get(K.ITEMS), dict):
        target = target[K.ITEMS]
    return target


def apply_constraints(schema: Schema, constraints: Constraints) -> None:
    """Put ``constraints`` on ``schema`` (value constraints on the items of an array)."""
    for attr, keyword in _ARRAY_KEYWORDS:
        value = getattr(constraints, attr)
        if value is not None:
            schema[keyword] = value
    target = value_schema(schema)
    for attr, keyword in _VALUE_KEYWORDS:
        value = getattr(constraints, attr)
        if value is not None:
            target[keyword] = list(value) if keyword == K.ENUM else value
