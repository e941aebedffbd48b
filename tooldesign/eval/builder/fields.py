"""User types, object shapes, their fields and the type expressions fields declare."""

from __future__ import annotations

import difflib
from functools import cache
from typing import Any

from tooldesign.contract.errors import did_you_mean
from tooldesign.contract.location import Location
from tooldesign.contract.naming import pascal_case, python_identifier
from tooldesign.dsl.calls import block_record
from tooldesign.dsl.records import AttributeRecord, ShapeRecord, TypeRecord
from tooldesign.dsl.types import (
    BUILTIN_ALIASES,
    ArrayExpr,
    MapExpr,
    ObjectExpr,
    PrimitiveExpr,
    UnionExpr,
    VerbatimExpr,
)
from tooldesign.eval.builder import values
from tooldesign.eval.builder.control import attribute_repairs
from tooldesign.eval.builder.names import UniqueNames
from tooldesign.eval.builder.rules import build_rules
from tooldesign.eval.builder.values import MAX_NESTING
from tooldesign.eval.builder.verbatim import verbatim_type
from tooldesign.ir.errors import Issues
from tooldesign.ir.model import (
    ArrayType,
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

ANY = PrimitiveType(Primitive.ANY)
STRING = PrimitiveType(Primitive.STRING)


class TypeBuilder:
    """Builds user types and shapes, resolving type references by name.

    A part that cannot be resolved becomes ``Any``, so later checks go on without cascading
    errors. A type or attribute rejected for its name is still built, into :attr:`rejected`.
    """

    def __init__(self, issues: Issues) -> None:
        self.issues = issues
        self.type_names: dict[str, TypeRecord] = {}
        self.types: dict[str, UserType] = {}
        self.rejected_types: list[TypeRecord] = []
        self.rejected: list[ObjectShape] = []
        """Shapes kept out of the design for their names, still validated."""
        self._depth = 0

    def user_types(self, records: list[TypeRecord]) -> None:
        """Every ``Type``: names claimed first, so types may refer to each other in any order."""
        self._register(records)
        for name, rec in self.type_names.items():
            description = values.text(rec.description, rec, "description", self.issues)
            shape = self.shape(rec.shape, pascal_case(name), description)
            self.types[name] = UserType(
                name, pascal_case(name), shape.description, shape, rec.location, rec.path
            )
        for rec in self.rejected_types:
            hint = pascal_case(rec.name) if values.is_text(rec.name) else "Rejected"
            description = values.text(rec.description, rec, "description", self.issues)
            self.rejected.append(self.shape(rec.shape, hint, description))

    def _register(self, records: list[TypeRecord]) -> None:
        names = UniqueNames("type", self.issues)
        for rec in records:
            name = rec.name
            if not values.is_text(name) or not name:
                self.issues.add(
                    f"type name must be a non-empty string, got {name!r}", rec.location, rec.path
                )
                self.rejected_types.append(rec)
                continue
            class_name = pascal_case(name)
            valid = class_name.isidentifier() and not class_name[0].isdigit()
            if names.claim(name, class_name if valid else None, rec.location, rec.path):
                self.type_names[name] = rec
            else:
                self.rejected_types.append(rec)

    # ── shapes and attributes ─────────────────────────────────────────────────────────────

    def shape(
        self, rec: ShapeRecord, hint: str, description: str | None, *, rules: bool = False
    ) -> ObjectShape:
        """``rules``: the shape is a tool's ``Args`` block, where rules across arguments go."""
        fields: list[Field] = []
        required = {name for name, _ in rec.required}
        names = UniqueNames("attribute", self.issues)
        declared: list[str] = []  # valid or not: Required may name them without a second error
        for attr in rec.attributes:
            name = attr.name
            if not values.is_text(name):
                self.issues.add(
                    f"attribute name must be a string, got {name!r}", attr.location, attr.path
                )
                self._reject_field(attr, repr(name), hint)
                continue
            declared.append(name)
            ident = python_identifier(name)
            if names.claim(name, ident, attr.location, attr.path):
                assert ident is not None
                fields.append(self._field(attr, ident, hint, required=name in required))
            else:
                self._reject_field(attr, name, hint)
        for name, where in rec.required:
            if name not in declared:
                known = ", ".join(dict.fromkeys(declared)) or "none"
                self.issues.add(
                    f"Required names unknown attribute {name!r} (attributes: {known})"
                    + did_you_mean(name, declared),
                    where,
                    rec.path,
                )
        examples = values.examples(rec.examples, rec.path, self.issues)
        built = tuple(fields)
        if rec.rules and not rules:
            self.issues.add(
                "AtLeastOne, ExactlyOne and When go in a tool's Args block (rules across its "
                "arguments), not here",
                rec.rules[0].location,
                rec.path,
            )
        found = build_rules(rec.rules, built, rec.path, self.issues) if rules else ()
        return ObjectShape(hint, built, description, rec.location, rec.path, examples, found)

    def _reject_field(self, attr: AttributeRecord, name: str, parent_hint: str) -> None:
        """An attribute kept out of its object for its name: built alone, so it is still checked."""
        field = self._field(attr, python_identifier(name) or "rejected", parent_hint, name=name)
        self.rejected.append(ObjectShape(parent_hint, (field,), None, attr.location, attr.path))

    def _field(
        self,
        attr: AttributeRecord,
        ident: str,
        parent_hint: str,
        *,
        name: str | None = None,
        required: bool = False,
    ) -> Field:
        hint = parent_hint + pascal_case(ident)
        block = attr.shape
        t = self.type(attr.type, attr.location, attr.path, block, hint)
        if (
            block is not None
            and (block.attributes or block.required)
            and not _contains_object(attr.type)
        ):
            self.issues.add(
                f"attribute {attr.name!r} has a block of attributes but its type is {attr.type!r}; use Object (or ArrayOf(Object))",
                attr.location,
                attr.path,
            )
        options = attr.options
        constraints = values.constraints(options, attr, self.issues)
        return Field(
            name=attr.name if name is None else name,
            ident=ident,
            type=t,
            description=values.text(attr.description, attr, "description", self.issues),
            required=required,
            constraints=constraints,
            location=attr.location,
            path=attr.path,
            default=values.json_option(options, "default", attr, self.issues),
            example=values.json_option(options, "example", attr, self.issues),
            repair=attribute_repairs(attr, t, constraints, self.issues),
            header=values.text(attr.header, attr, "header=", self.issues),
        )

    # ── type expressions ──────────────────────────────────────────────────────────────────

    def type(
        self, value: Any, where: Location, path: str, block: ShapeRecord | None, hint: str
    ) -> TypeExpr:
        value = block_record(value)
        if not isinstance(value, ObjectExpr | ArrayExpr | MapExpr | UnionExpr):
            return self._type(value, where, path, block, hint)
        if self._depth == MAX_NESTING:
            self.issues.add(
                f"types nest more than {MAX_NESTING} levels deep here (Object, ArrayOf, MapOf "
                "and OneOf in one another); name a part with Type to break it up",
                where,
                path,
            )
            return ANY
        self._depth += 1
        try:
            return self._type(value, where, path, block, hint)
        finally:
            self._depth -= 1

    def _type(
        self, value: Any, where: Location, path: str, block: ShapeRecord | None, hint: str
    ) -> TypeExpr:
        if isinstance(value, PrimitiveExpr):
            return _primitive(value.kind)
        if isinstance(value, type) and value in BUILTIN_ALIASES:
            return _primitive(BUILTIN_ALIASES[value].kind)
        if isinstance(value, ObjectExpr):
            if block is None or not block.attributes:
                self.issues.add(
                    "Object needs a `with` block declaring its attributes (use MapOf(String, Any) for free-form objects)",
                    where,
                    path,
                )
                return ANY
            return ObjectType(self.shape(block, hint, None))
        if isinstance(value, TypeRecord):
            return self._named(value.name, where, path)
        if isinstance(value, str):
            return self._named(value, where, path)
        if isinstance(value, ArrayExpr):
            items = self.type(value.items, where, path, block, hint + "Item")
            bounds = {}
            for key in ("min_items", "max_items"):
                n = getattr(value, key)
                if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
                    self.issues.add(
                        f"ArrayOf {key}= must be a non-negative integer, got {n!r}",
                        value.location,
                        path,
                    )
                    n = None
                bounds[key] = n
            return ArrayType(items, **bounds)
        if isinstance(value, MapExpr):
            if self.type(value.key, where, path, None, hint) != STRING:
                self.issues.add(
                    f"MapOf keys must be String (JSON object keys are strings), got {value.key!r}",
                    value.location,
                    path,
                )
            return MapType(self.type(value.values, where, path, block, hint + "Value"))
        if isinstance(value, VerbatimExpr):
            return verbatim_type(value, path, self.issues) or ANY
        if isinstance(value, UnionExpr):
            if len(value.variants) < 2:
                self.issues.add("OneOf needs at least two types", value.location, path)
            disc = value.discriminator if isinstance(value.discriminator, str) else None
            if value.discriminator is not None and disc is None:
                self.issues.add(
                    f"OneOf discriminator= must be a field name, got {value.discriminator!r}",
                    value.location,
                    path,
                )
            variants = tuple(
                self.type(v, where, path, block, f"{hint}Option{i + 1}")
                for i, v in enumerate(value.variants)
            )
            return UnionType(variants, disc, value.location)
        self.issues.add(
            f"{value!r} is not a type; use String, Int, Float, Boolean, Any, Object, ArrayOf, MapOf, OneOf or a Type",
            where,
            path,
        )
        return ANY

    def _named(self, name: str, where: Location, path: str) -> TypeExpr:
        if name in self.type_names:
            return NamedType(name)
        close = difflib.get_close_matches(name, list(self.type_names), n=1)
        suggestion = f"; did you mean {close[0]!r}?" if close else ""
        self.issues.add(f"unknown type {name!r}{suggestion}", where, path)
        return ANY


@cache  # one frozen value per kind, shared by every field of that kind
def _primitive(kind: str) -> PrimitiveType:
    return PrimitiveType(Primitive(kind))


def _contains_object(value: Any) -> bool:
    pending = [value]
    for _ in range(MAX_NESTING * 8):  # a type nested deeper is reported as such
        if not pending:
            return False
        current = block_record(pending.pop())
        if isinstance(current, ObjectExpr):
            return True
        if isinstance(current, ArrayExpr):
            pending.append(current.items)
        elif isinstance(current, MapExpr):
            pending.append(current.values)
        elif isinstance(current, UnionExpr):
            pending.extend(current.variants)
    return False
