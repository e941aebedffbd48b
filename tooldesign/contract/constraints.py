"""Value constraints: the one table of the constraints a design may put on an attribute.

Each row names a constraint the four ways tooldesign meets it: the DSL option
(``Attribute(..., max_length=64)``, also the IR's ``Constraints`` attribute), the JSON Schema
keyword a model is shown (``maxLength``), the argument pydantic takes for it (``Field(max_length=
...)``, what code-first importers read) and the pydantic error types that report it broken (what
the runtime turns into issues a model can act on). The DSL, evaluation, the schema builder, the
runtime's issues and the importers derive what they need from it.

The order of the rows is the order keywords are written into a schema, which a model sees (and
the catalog's hash covers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias, TypedDict

from tooldesign.contract.formats import FormatName
from tooldesign.jsonschema import keywords as K

AppliesTo = Literal["any", "string", "number", "array"]
Takes = Literal["values", "number", "count", "text"]
Issue = Literal[
    "invalid_enum_value", "invalid_range", "invalid_length", "invalid_pattern", "invalid_format"
]


@dataclass(frozen=True, slots=True)
class ConstraintKeyword:
    """One constraint, as each stage spells it."""

    option: str
    """The DSL option and the IR ``Constraints`` attribute."""
    keyword: str
    """The JSON Schema keyword."""
    applies_to: AppliesTo
    """What an attribute must be for it to apply: any value with a type, a string, a number
    (integer or not), or an array (the count of its items)."""
    takes: Takes
    """What the option's value must be: a list of values, a finite number, a non-negative
    integer, or a string."""
    pydantic: str | None
    """The ``Field(...)`` argument pydantic takes for it (``None``: it has none)."""
    pydantic_errors: tuple[str, ...]
    """The pydantic error types that say a value breaks it."""
    issue: Issue
    """The kind of problem a broken one is, as the runtime's ``Constraint`` names it."""

    @property
    def on_values(self) -> bool:
        """It constrains a value, so on an array of values it applies to the innermost items
        (``ArrayOf(String)`` with ``max_length=64`` limits each string)."""
        return self.applies_to != "array"


CONSTRAINTS: tuple[ConstraintKeyword, ...] = (
    ConstraintKeyword(
        "enum", K.ENUM, "any", "values", None, ("literal_error", "enum"), "invalid_enum_value"
    ),
    ConstraintKeyword(
        "minimum", K.MINIMUM, "number", "number", "ge", ("greater_than_equal",), "invalid_range"
    ),
    ConstraintKeyword(
        "maximum", K.MAXIMUM, "number", "number", "le", ("less_than_equal",), "invalid_range"
    ),
    ConstraintKeyword(
        "exclusive_minimum",
        K.EXCLUSIVE_MINIMUM,
        "number",
        "number",
        "gt",
        ("greater_than",),
        "invalid_range",
    ),
    ConstraintKeyword(
        "exclusive_maximum",
        K.EXCLUSIVE_MAXIMUM,
        "number",
        "number",
        "lt",
        ("less_than",),
        "invalid_range",
    ),
    ConstraintKeyword(
        "min_length",
        K.MIN_LENGTH,
        "string",
        "count",
        "min_length",
        ("string_too_short",),
        "invalid_length",
    ),
    ConstraintKeyword(
        "max_length",
        K.MAX_LENGTH,
        "string",
        "count",
        "max_length",
        ("string_too_long",),
        "invalid_length",
    ),
    ConstraintKeyword(
        "pattern",
        K.PATTERN,
        "string",
        "text",
        "pattern",
        ("string_pattern_mismatch",),
        "invalid_pattern",
    ),
    # Which values a format takes, and what says one is wrong, is the format table's.
    ConstraintKeyword("format", K.FORMAT, "string", "text", None, (), "invalid_format"),
    ConstraintKeyword(
        "min_items", K.MIN_ITEMS, "array", "count", "min_length", ("too_short",), "invalid_length"
    ),
    ConstraintKeyword(
        "max_items", K.MAX_ITEMS, "array", "count", "max_length", ("too_long",), "invalid_length"
    ),
)
"""Every constraint a design may give an attribute."""

OPTIONS: tuple[str, ...] = tuple(c.option for c in CONSTRAINTS)

JsonValue: TypeAlias = (
    str | int | float | bool | None | Sequence["JsonValue"] | Mapping[str, "JsonValue"]
)
"""A design value: written both into JSON (schemas, catalogs) and into Python (specs)."""


class AttributeOptions(TypedDict, total=False):
    """The options of the DSL's ``Attribute``: each constraint of the table (by its option
    name), a default and an example. For type checkers and editors, which flag a misspelt option
    before ``gen`` runs: a new constraint's option goes here too (a test keeps them equal)."""

    enum: Sequence[JsonValue]
    default: JsonValue
    minimum: float
    maximum: float
    exclusive_minimum: float
    exclusive_maximum: float
    min_length: int
    max_length: int
    pattern: str
    format: FormatName
    min_items: int
    max_items: int
    example: JsonValue


BY_OPTION: Mapping[str, ConstraintKeyword] = {c.option: c for c in CONSTRAINTS}

BY_KEYWORD: Mapping[str, ConstraintKeyword] = {c.keyword: c for c in CONSTRAINTS}


def constraint_options(
    *, applies_to: AppliesTo | None = None, takes: Takes | None = None
) -> tuple[str, ...]:
    """The options (in table order) that apply to ``applies_to`` and take ``takes``."""
    return tuple(
        c.option
        for c in CONSTRAINTS
        if (applies_to is None or c.applies_to == applies_to)
        and (takes is None or c.takes == takes)
    )


def pydantic_errors(issue: Issue) -> frozenset[str]:
    """The pydantic error types of the constraints whose breaking is ``issue``."""
    return frozenset(e for c in CONSTRAINTS if c.issue == issue for e in c.pydantic_errors)
