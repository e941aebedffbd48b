"""The JSON Schema keywords: one table of what each one is, and a name for each.

Code reads and writes keywords by these names (``K.MIN_LENGTH``, with ``from
tooldesign.jsonschema import keywords as K``), never by their spelling; a test holds every
module outside this package and the provider dialects to it. Each row of :data:`TABLE` says,
for one keyword, what the stages that read schemas need to know of it:

- the JSON types of the values it applies to (none: it applies to every value);
- its kind: ``core`` (identifies a schema or holds definitions), ``reference``, ``applicator``
  (applies subschemas), ``type``, ``value`` (the values allowed), ``bound`` (a number's),
  ``size`` (a count: characters, items, properties), ``pattern``, ``format``, ``rule`` (another
  assertion), ``content`` (how a string's content is encoded) or ``annotation`` (changes
  nothing a schema accepts);
- its pair, for the two ends of a bound or size (``minLength`` ↔ ``maxLength``);
- the noun of what a size counts, singular and plural (``character``, ``characters``);
- which way its value narrows what the schema accepts (a higher ``minimum``, a lower
  ``maxItems``);
- what its value holds, for the walks that visit every schema inside a schema: one schema,
  a list of them, or a map of names to them;
- where it comes from: draft 2020-12 (the dialect designs use), an older draft whose spelling
  schemas in the wild still use (``definitions``), or OpenAPI (``discriminator``, ``nullable``,
  ``example``), whose keywords tool schemas meet too.

Provider dialects take their subsets from the table (:func:`applying_to`, :func:`of_kind`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

JsonType = Literal["null", "boolean", "object", "array", "number", "integer", "string"]
Kind = Literal[
    "core",
    "reference",
    "applicator",
    "type",
    "value",
    "bound",
    "size",
    "pattern",
    "format",
    "rule",
    "content",
    "annotation",
]
Holds = Literal["schema", "schemas", "named"]
"""What a keyword's value holds: one schema, a list of schemas, names mapped to schemas."""
Narrows = Literal["higher", "lower"]
"""Which value of a bound narrows what a schema accepts: a higher one, or a lower one."""
Source = Literal["2020-12", "older", "openapi", "mcp"]

DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"
"""The dialect designs are written in, as ``$schema`` names it: JSON Schema 2020-12."""

# ── the names ──────────────────────────────────────────────────────────────────────────────
# core
SCHEMA: Final = "$schema"
ID: Final = "$id"
ANCHOR: Final = "$anchor"
DYNAMIC_ANCHOR: Final = "$dynamicAnchor"
VOCABULARY: Final = "$vocabulary"
COMMENT: Final = "$comment"
DEFS: Final = "$defs"
DEFINITIONS: Final = "definitions"
REF: Final = "$ref"
DYNAMIC_REF: Final = "$dynamicRef"
# applicators
ALL_OF: Final = "allOf"
ANY_OF: Final = "anyOf"
ONE_OF: Final = "oneOf"
NOT: Final = "not"
IF: Final = "if"
THEN: Final = "then"
ELSE: Final = "else"
DEPENDENT_SCHEMAS: Final = "dependentSchemas"
PREFIX_ITEMS: Final = "prefixItems"
ITEMS: Final = "items"
ADDITIONAL_ITEMS: Final = "additionalItems"
CONTAINS: Final = "contains"
PROPERTIES: Final = "properties"
PATTERN_PROPERTIES: Final = "patternProperties"
ADDITIONAL_PROPERTIES: Final = "additionalProperties"
PROPERTY_NAMES: Final = "propertyNames"
UNEVALUATED_ITEMS: Final = "unevaluatedItems"
UNEVALUATED_PROPERTIES: Final = "unevaluatedProperties"
# validation
TYPE: Final = "type"
NULLABLE: Final = "nullable"
ENUM: Final = "enum"
CONST: Final = "const"
MULTIPLE_OF: Final = "multipleOf"
MINIMUM: Final = "minimum"
MAXIMUM: Final = "maximum"
EXCLUSIVE_MINIMUM: Final = "exclusiveMinimum"
EXCLUSIVE_MAXIMUM: Final = "exclusiveMaximum"
MIN_LENGTH: Final = "minLength"
MAX_LENGTH: Final = "maxLength"
PATTERN: Final = "pattern"
MIN_ITEMS: Final = "minItems"
MAX_ITEMS: Final = "maxItems"
UNIQUE_ITEMS: Final = "uniqueItems"
MIN_CONTAINS: Final = "minContains"
MAX_CONTAINS: Final = "maxContains"
MIN_PROPERTIES: Final = "minProperties"
MAX_PROPERTIES: Final = "maxProperties"
REQUIRED: Final = "required"
DEPENDENT_REQUIRED: Final = "dependentRequired"
DISCRIMINATOR: Final = "discriminator"
# format, content, annotations
FORMAT: Final = "format"
CONTENT_ENCODING: Final = "contentEncoding"
CONTENT_MEDIA_TYPE: Final = "contentMediaType"
CONTENT_SCHEMA: Final = "contentSchema"
TITLE: Final = "title"
DESCRIPTION: Final = "description"
DEFAULT: Final = "default"
DEPRECATED: Final = "deprecated"
READ_ONLY: Final = "readOnly"
WRITE_ONLY: Final = "writeOnly"
EXAMPLES: Final = "examples"
EXAMPLE: Final = "example"

X_MCP_HEADER: Final = "x-mcp-header"
"""MCP's extension keyword (2026-07-28, SEP-2243): the property of a tool's input schema that
calls mirror in an ``Mcp-Param-<value>`` HTTP header."""

DISCRIMINATOR_PROPERTY: Final = "propertyName"
"""The member of a ``discriminator`` that names the tag field (not a keyword of its own)."""

# ── the table ──────────────────────────────────────────────────────────────────────────────

ANY: frozenset[JsonType] = frozenset()
"""The types of a keyword that applies to every value."""
_STRING: frozenset[JsonType] = frozenset({"string"})
_NUMBER: frozenset[JsonType] = frozenset({"number", "integer"})
_ARRAY: frozenset[JsonType] = frozenset({"array"})
_OBJECT: frozenset[JsonType] = frozenset({"object"})
_FORMATTED: frozenset[JsonType] = frozenset({"string", "number", "integer"})
"""``format`` names a string's form, and (OpenAPI's ``int32``, ``double``) a number's."""

Noun = tuple[str, str]
"""A noun, singular then plural: ``("item", "items")``."""


@dataclass(frozen=True, slots=True)
class Keyword:
    """One JSON Schema keyword, as the stages that read schemas need to know it."""

    name: str
    types: frozenset[JsonType]
    """The JSON types of the values it applies to; empty: every value."""
    kind: Kind
    pair: str | None = None
    """The other end of a bound or a size: ``maxLength`` for ``minLength``."""
    unit: Noun | None = None
    """What a size counts: ``("character", "characters")`` for ``minLength``."""
    narrows: Narrows | None = None
    """Which of its values narrows what a schema accepts: a higher ``minimum``, a lower
    ``maxItems``."""
    holds: Holds | None = None
    """What its value holds, for walks that visit every schema in a schema (``contentSchema``
    describes decoded content, not a value: no walk enters it)."""
    source: Source = "2020-12"


def _size(low: str, high: str, types: frozenset[JsonType], unit: Noun) -> tuple[Keyword, ...]:
    return (
        Keyword(low, types, "size", pair=high, unit=unit, narrows="higher"),
        Keyword(high, types, "size", pair=low, unit=unit, narrows="lower"),
    )


def _bound(low: str, high: str) -> tuple[Keyword, ...]:
    return (
        Keyword(low, _NUMBER, "bound", pair=high, narrows="higher"),
        Keyword(high, _NUMBER, "bound", pair=low, narrows="lower"),
    )


TABLE: tuple[Keyword, ...] = (
    Keyword(SCHEMA, ANY, "core"),
    Keyword(ID, ANY, "core"),
    Keyword(ANCHOR, ANY, "core"),
    Keyword(DYNAMIC_ANCHOR, ANY, "core"),
    Keyword(VOCABULARY, ANY, "core"),
    Keyword(DEFS, ANY, "core", holds="named"),
    Keyword(DEFINITIONS, ANY, "core", holds="named", source="older"),
    Keyword(REF, ANY, "reference"),
    Keyword(DYNAMIC_REF, ANY, "reference"),
    Keyword(ALL_OF, ANY, "applicator", holds="schemas"),
    Keyword(ANY_OF, ANY, "applicator", holds="schemas"),
    Keyword(ONE_OF, ANY, "applicator", holds="schemas"),
    Keyword(NOT, ANY, "applicator", holds="schema"),
    Keyword(IF, ANY, "applicator", holds="schema"),
    Keyword(THEN, ANY, "applicator", holds="schema"),
    Keyword(ELSE, ANY, "applicator", holds="schema"),
    Keyword(DEPENDENT_SCHEMAS, _OBJECT, "applicator", holds="named"),
    Keyword(PREFIX_ITEMS, _ARRAY, "applicator", holds="schemas"),
    Keyword(ITEMS, _ARRAY, "applicator", holds="schema"),
    Keyword(ADDITIONAL_ITEMS, _ARRAY, "applicator", holds="schema", source="older"),
    Keyword(CONTAINS, _ARRAY, "applicator", holds="schema"),
    Keyword(PROPERTIES, _OBJECT, "applicator", holds="named"),
    Keyword(PATTERN_PROPERTIES, _OBJECT, "applicator", holds="named"),
    Keyword(ADDITIONAL_PROPERTIES, _OBJECT, "applicator", holds="schema"),
    Keyword(PROPERTY_NAMES, _OBJECT, "applicator", holds="schema"),
    Keyword(UNEVALUATED_ITEMS, _ARRAY, "applicator", holds="schema"),
    Keyword(UNEVALUATED_PROPERTIES, _OBJECT, "applicator", holds="schema"),
    Keyword(TYPE, ANY, "type"),
    Keyword(NULLABLE, ANY, "type", source="openapi"),
    Keyword(ENUM, ANY, "value"),
    Keyword(CONST, ANY, "value"),
    Keyword(MULTIPLE_OF, _NUMBER, "bound"),
    *_bound(MINIMUM, MAXIMUM),
    *_bound(EXCLUSIVE_MINIMUM, EXCLUSIVE_MAXIMUM),
    *_size(MIN_LENGTH, MAX_LENGTH, _STRING, ("character", "characters")),
    Keyword(PATTERN, _STRING, "pattern"),
    *_size(MIN_ITEMS, MAX_ITEMS, _ARRAY, ("item", "items")),
    Keyword(UNIQUE_ITEMS, _ARRAY, "rule"),
    *_size(MIN_CONTAINS, MAX_CONTAINS, _ARRAY, ("matching item", "matching items")),
    *_size(MIN_PROPERTIES, MAX_PROPERTIES, _OBJECT, ("property", "properties")),
    Keyword(REQUIRED, _OBJECT, "rule"),
    Keyword(DEPENDENT_REQUIRED, _OBJECT, "rule"),
    Keyword(DISCRIMINATOR, ANY, "rule", source="openapi"),
    Keyword(FORMAT, _FORMATTED, "format"),
    Keyword(CONTENT_ENCODING, _STRING, "content"),
    Keyword(CONTENT_MEDIA_TYPE, _STRING, "content"),
    Keyword(CONTENT_SCHEMA, _STRING, "content"),
    Keyword(TITLE, ANY, "annotation"),
    Keyword(DESCRIPTION, ANY, "annotation"),
    Keyword(DEFAULT, ANY, "annotation"),
    Keyword(DEPRECATED, ANY, "annotation"),
    Keyword(READ_ONLY, ANY, "annotation"),
    Keyword(WRITE_ONLY, ANY, "annotation"),
    Keyword(EXAMPLES, ANY, "annotation"),
    Keyword(EXAMPLE, ANY, "annotation", source="openapi"),
    Keyword(COMMENT, ANY, "annotation"),
    Keyword(X_MCP_HEADER, ANY, "annotation", source="mcp"),
)
"""Every keyword tooldesign knows, by vocabulary: core, applicators, validation, format,
content, annotations."""

BY_NAME: Mapping[str, Keyword] = {k.name: k for k in TABLE}


def of_kind(*kinds: Kind) -> frozenset[str]:
    """The names of the keywords of ``kinds``."""
    return frozenset(k.name for k in TABLE if k.kind in kinds)


def applying_to(json_type: str) -> frozenset[str]:
    """The keywords that apply to values of one JSON type only (or to a few types, that one
    among them): what the part of a schema of several types that is about that type takes."""
    return frozenset(k.name for k in TABLE if json_type in k.types)


def holding(holds: Holds) -> frozenset[str]:
    """The keywords whose value holds schemas in the way ``holds`` says."""
    return frozenset(k.name for k in TABLE if k.holds == holds)


ANNOTATIONS = of_kind("annotation")
"""Keywords that never change what a schema accepts: what a reader (a model) reads."""

SIZES = of_kind("size")
"""The keywords that bound a count (characters, items, properties)."""

UNIONS = (ANY_OF, ONE_OF)
"""The keywords whose value lists a union's variants, in the order they are looked for."""
