"""Phase 3 of evaluation: design rules the IR must satisfy, each reported where it was broken."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import jsonschema
from tooldesign.contract.constraints import constraint_options
from tooldesign.contract.errors import did_you_mean
from tooldesign.contract.formats import FORMAT_NAMES
from tooldesign.eval import patterns
from tooldesign.eval.agents import check_agents
from tooldesign.eval.headers import check_headers
from tooldesign.eval.nesting import check_tools
from tooldesign.ir.errors import Issues, short_repr
from tooldesign.ir.fingerprint import toolset_key
from tooldesign.ir.model import (
    NO_CONSTRAINTS,
    NO_VALUE,
    ArrayType,
    Constraints,
    Design,
    Field,
    MapType,
    NamedType,
    ObjectShape,
    ObjectType,
    Primitive,
    PrimitiveType,
    Tool,
    TypeExpr,
    UnionType,
    describe,
)
from tooldesign.ir.schema import SchemaBuilder, value_schema
from tooldesign.ir.walk import inline_shapes, messages, used_user_types
from tooldesign.jsonschema import keywords as K
from tooldesign.runtime.spec.formats import format_checker

_STRING_ONLY = constraint_options(applies_to="string")
_NUMBER_ONLY = constraint_options(applies_to="number")
_ARRAY_ONLY = constraint_options(applies_to="array")
_ORDERED_PAIRS = (
    ("minimum", "maximum"),
    ("exclusive_minimum", "exclusive_maximum"),
    ("min_length", "max_length"),
    ("min_items", "max_items"),
)


def validate(design: Design, issues: Issues, *, trusted: frozenset[str] = frozenset()) -> None:
    """Check every rule; toolsets in ``trusted`` (keys of already-validated content) are skipped."""
    _Validator(design, issues).run(trusted)


def _innermost(t: TypeExpr) -> TypeExpr:
    while isinstance(t, ArrayType):
        t = t.items
    return t


class _Validator:
    def __init__(self, design: Design, issues: Issues) -> None:
        self.design = design
        self.issues = issues
        self.schemas = SchemaBuilder(design.types)
        self._formats: jsonschema.FormatChecker | None = None
        self._validators: dict[str, jsonschema.protocols.Validator] = {}

    def run(self, trusted: frozenset[str]) -> None:
        if not check_tools(self.design, self.issues):
            return  # every other rule walks the types
        check_agents(self.design, self.issues)
        check_headers(self.design, self.issues)
        checked_tools: list[Tool] = []
        trusted_types: set[str] = set()
        for service in self.design.services:
            for toolset in service.toolsets:
                if toolset_key(service, toolset) in trusted:
                    trusted_types.update(used_user_types(self.design, toolset.tools))
                else:
                    checked_tools.extend(toolset.tools)
        # A type reached by a changed toolset is checked even if a trusted one reaches it too.
        must_check = set(used_user_types(self.design, checked_tools))
        for name, user_type in self.design.types.items():
            if name in must_check or name not in trusted_types:
                self._shape(user_type.shape)
        for tool in checked_tools:
            self._tool(tool)
        for shape in self.design.rejected:
            self._shape(shape)

    def _tool(self, tool: Tool) -> None:
        for message in messages(tool):
            for shape in inline_shapes(message.type):
                self._shape(
                    shape, omit=frozenset(tool.injected) if message is tool.payload else frozenset()
                )
            self._union_rules(message.type, tool.location, tool.path)

    def _shape(self, shape: ObjectShape, *, omit: frozenset[str] = frozenset()) -> None:
        for f in shape.fields:
            self._field(f)
            for inner in inline_shapes(f.type):
                self._shape(inner)
            self._union_rules(f.type, f.location, f.path)
        for example in shape.examples:
            schema = self.schemas.object_schema(shape, omit=omit)
            # Every mismatch, so one run shows all that must change in the example.
            for problem in self._mismatches(example.value, schema):
                self.issues.add(
                    f"Example {short_repr(example.value)} does not match the design: {problem}",
                    example.location,
                    shape.path,
                )

    # ── attributes ────────────────────────────────────────────────────────────────────────

    def _field(self, f: Field) -> None:
        c = f.constraints
        if c is NO_CONSTRAINTS and isinstance(f.type, PrimitiveType):
            self._default_and_example(f)
            return
        base = _innermost(f.type)
        kind = base.kind if isinstance(base, PrimitiveType) else None
        wrong: list[str] = []
        if kind is not Primitive.STRING:
            wrong += [k for k in _STRING_ONLY if getattr(c, k) is not None]
        if kind not in (Primitive.INTEGER, Primitive.NUMBER):
            wrong += [k for k in _NUMBER_ONLY if getattr(c, k) is not None]
        if c.enum is not None and kind in (None, Primitive.ANY):
            wrong.append("enum")
        if not isinstance(f.type, ArrayType):
            wrong += [k for k in _ARRAY_ONLY if getattr(c, k) is not None]
        if wrong:
            self.issues.add(
                f"{', '.join(wrong)} cannot apply to {describe(f.type)}", f.location, f.path
            )
        out_of_order = False
        for lo, hi in _ORDERED_PAIRS:
            a, b = getattr(c, lo), getattr(c, hi)
            if a is not None and b is not None and a > b:
                self.issues.add(f"{lo}={a!r} is greater than {hi}={b!r}", f.location, f.path)
                out_of_order = True
        if kind in (Primitive.INTEGER, Primitive.NUMBER) and not out_of_order:
            empty = _empty_range(c, integers=kind is Primitive.INTEGER)
            if empty:
                self.issues.add(empty, f.location, f.path)
        if isinstance(f.type, ArrayType):
            for label in ("min_items", "max_items"):
                own, arr = getattr(c, label), getattr(f.type, label)
                if own is not None and arr is not None and own != arr:
                    self.issues.add(
                        f"{label} is given twice with different values ({own} and {arr})",
                        f.location,
                        f.path,
                    )
            fewest = c.min_items if c.min_items is not None else f.type.min_items
            most = c.max_items if c.max_items is not None else f.type.max_items
            both_options = c.min_items is not None and c.max_items is not None  # checked above
            if fewest is not None and most is not None and fewest > most and not both_options:
                self.issues.add(
                    f"min_items={fewest} is greater than max_items={most}", f.location, f.path
                )
        if c.enum is not None and kind is not None and self._enum(f, kind):
            self._enum_within_constraints(f)
        if c.pattern is not None and kind is Primitive.STRING:
            self._pattern(f, c.pattern)
        if c.format is not None and c.format not in FORMAT_NAMES:
            self.issues.add(
                f"unknown format {c.format!r}; supported: {', '.join(sorted(FORMAT_NAMES))}"
                + did_you_mean(c.format, FORMAT_NAMES),
                f.location,
                f.path,
            )
        self._default_and_example(f)

    def _enum(self, f: Field, kind: Primitive) -> bool:
        """Whether every enum value is of the attribute's type (reported otherwise)."""
        enum = f.constraints.enum or ()
        accepts = {
            Primitive.STRING: lambda v: isinstance(v, str),
            Primitive.INTEGER: lambda v: isinstance(v, int) and not isinstance(v, bool),
            Primitive.NUMBER: lambda v: isinstance(v, int | float) and not isinstance(v, bool),
            Primitive.BOOLEAN: lambda v: isinstance(v, bool),
        }.get(kind)
        if accepts is None:
            return True
        bad = [v for v in enum if not accepts(v)]
        if bad:
            self.issues.add(
                f"enum values {', '.join(short_repr(v) for v in bad)} are not {describe(PrimitiveType(kind))} values",
                f.location,
                f.path,
            )
        if len(set(map(repr, enum))) != len(enum):
            self.issues.add("enum lists a value more than once", f.location, f.path)
        return not bad

    def _enum_within_constraints(self, f: Field) -> None:
        """Each enum value meets the attribute's other constraints: the generated model holds
        the enum as a ``Literal``, which checks nothing else."""
        schema = self.schemas.field_schema(
            dataclasses.replace(f, default=NO_VALUE, example=NO_VALUE)
        )
        target = value_schema(schema)
        target.pop(K.ENUM, None)
        for value in f.constraints.enum or ():
            for problem in self._mismatches(value, target):
                self.issues.add(
                    f"enum value {short_repr(value)} does not satisfy the attribute's own constraints: {problem}",
                    f.location,
                    f.path,
                )

    def _pattern(self, f: Field, pattern: str) -> None:
        problem = patterns.problem(pattern)
        if problem is not None:
            self.issues.add(
                f"pattern {pattern!r} cannot be used: {problem}; {patterns.RULE}",
                f.location,
                f.path,
            )

    def _default_and_example(self, f: Field) -> None:
        if f.has_default and f.required:
            self.issues.add(
                f"attribute has a default ({short_repr(f.default)}) but is Required; a default only applies to optional attributes",
                f.location,
                f.path,
            )
        checks = (("default", f.default), ("example", f.example))
        for label, value in checks:
            if value is NO_VALUE:
                continue
            schema = self.schemas.field_schema(f)
            schema.pop(K.DEFAULT, None)
            schema.pop(K.EXAMPLES, None)
            for problem in self._mismatches(value, schema):
                self.issues.add(
                    f"{label} {short_repr(value)} does not satisfy the attribute's own type or constraints: {problem}",
                    f.location,
                    f.path,
                )

    def _mismatches(self, value: Any, schema: dict[str, Any]) -> list[str]:
        """Each way ``value`` breaks ``schema``, one line per mismatch, by path."""
        document = self.schemas.document(schema)
        # Designs repeat field shapes; one validator per distinct schema.
        key = json.dumps(document, sort_keys=True, default=repr)
        validator = self._validators.get(key)
        if validator is None:
            if self._formats is None:
                # Each format by its grammar, the one its model type reads values with.
                self._formats = format_checker()
            validator = patterns.LinearValidator(document, format_checker=self._formats)
            self._validators[key] = validator
        if validator.is_valid(value):
            return []
        problems: list[str] = []
        for error in sorted(validator.iter_errors(value), key=_error_order):
            # A union's own error says only "not valid under any of the given schemas":
            # best_match descends to the variant's mismatch that explains it.
            error = jsonschema.exceptions.best_match([error]) or error
            where = "".join(f"[{p!r}]" for p in error.absolute_path)
            problem = f"{where + ' ' if where else ''}{error.message}"
            if problem not in problems:
                problems.append(problem)
        return problems

    # ── unions ────────────────────────────────────────────────────────────────────────────

    def _union_rules(self, t: TypeExpr, location: Any, path: str) -> None:
        match t:
            case ArrayType(items=items):
                self._union_rules(items, location, path)
            case MapType(values=values):
                self._union_rules(values, location, path)
            case UnionType(variants=variants, discriminator=disc):
                for v in variants:
                    self._union_rules(v, location, path)
                if disc is not None:
                    self._discriminated(variants, disc, t.location or location, path)

    def _discriminated(
        self, variants: tuple[TypeExpr, ...], disc: str, location: Any, path: str
    ) -> None:
        tags: dict[Any, str] = {}
        for v in variants:
            label = describe(v)
            shape = v.shape if isinstance(v, ObjectType) else None
            if isinstance(v, NamedType):
                shape = self.design.types[v.name].shape
            if shape is None:
                self.issues.add(
                    f"OneOf with discriminator={disc!r}: variant {label} must be an object",
                    location,
                    path,
                )
                continue
            tag = shape.field(disc)
            if tag is None:
                self.issues.add(
                    f"OneOf with discriminator={disc!r}: variant {label} has no attribute {disc!r}",
                    location,
                    path,
                )
                continue
            enum = tag.constraints.enum
            if (
                tag.type != PrimitiveType(Primitive.STRING)
                or not tag.required
                or enum is None
                or len(enum) != 1
            ):
                self.issues.add(
                    f"OneOf with discriminator={disc!r}: in variant {label}, {disc!r} must be a required String "
                    f'with exactly one enum value (its tag), e.g. enum=["{label.lower()}"]',
                    tag.location,
                    tag.path,
                )
                continue
            value = enum[0]
            if value in tags:
                self.issues.add(
                    f"OneOf with discriminator={disc!r}: variants {tags[value]} and {label} share the tag {value!r}",
                    location,
                    path,
                )
            tags[value] = label


def _empty_range(c: Constraints, *, integers: bool) -> str | None:
    """Why no number (or no integer) lies within the bounds, or ``None`` if some does."""
    given = [k for k in _NUMBER_ONLY if getattr(c, k) is not None]
    lows = [(c.minimum, False), (c.exclusive_minimum, True)]
    highs = [(c.maximum, False), (c.exclusive_maximum, True)]
    low = max(((v, x) for v, x in lows if v is not None), default=None, key=lambda b: (b[0], b[1]))
    high = min(
        ((v, x) for v, x in highs if v is not None), default=None, key=lambda b: (b[0], not b[1])
    )
    if low is None or high is None:
        return None
    if integers:
        first = math.floor(low[0]) + 1 if low[1] else math.ceil(low[0])
        last = math.ceil(high[0]) - 1 if high[1] else math.floor(high[0])
        empty = first > last
    else:
        empty = low[0] > high[0] or (low[0] == high[0] and (low[1] or high[1]))
    if not empty:
        return None
    bounds = " and ".join(f"{k}={getattr(c, k)!r}" for k in given)
    return f"no {'integer' if integers else 'number'} satisfies {bounds}"


def _error_order(error: jsonschema.exceptions.ValidationError) -> tuple[str, ...]:
    """Mismatches by where they are in the value (``required`` ones, at the object, first)."""
    return tuple(repr(p) for p in error.absolute_path)
