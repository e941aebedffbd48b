"""JSON Schema helpers shared by the provider transforms.

Every transform builds new dictionaries and never mutates its input: the schemas it reads are
the specs' (frozen) and the loaded catalogs', both shared. What it copies as it is, it copies
with :func:`~tooldesign.runtime.spec.frozen.copy_json`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from tooldesign.runtime.spec.frozen import FrozenDict, FrozenList
from tooldesign.runtime.text import json_type
from tooldesign.runtime.validation.schema import (
    JSON_ARRAYS,
    MAPS,
    ref_name,
    resolve,
    type_list,
)

Schema = dict[str, Any]
"""A JSON Schema a transform builds."""

NULL_SCHEMA: Mapping[str, Any] = {"type": "null"}

SCALAR_TYPES = frozenset({"string", "number", "integer", "boolean", "null"})

# Keywords that only constrain or annotate and that a model can read as words instead.
RESTATABLE = frozenset(
    {
        "default",
        "examples",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "discriminator",
        "deprecated",
        "readOnly",
        "writeOnly",
        "contentEncoding",
        "contentMediaType",
    }
)

# Keywords with no meaning for a model: dropped without a word.
IGNORED = frozenset({"$schema", "$comment"})


def json_text(value: Any) -> str:
    """One-line JSON for a value quoted inside a description."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def split_keywords(
    schema: Mapping[str, Any], keep: frozenset[str], skip: frozenset[str]
) -> tuple[Schema, Schema]:
    """``schema``'s keywords in one pass: those in ``keep``, and the rest not in ``skip``.

    Transforms keep what their dialect takes and restate the rest (``dropped``) in words.
    """
    kept: Schema = {}
    dropped: Schema = {}
    for key, value in schema.items():
        if key in keep:
            kept[key] = value
        elif key not in skip:
            dropped[key] = value
    return kept, dropped


# Keywords whose value is a schema, a list of schemas, or a map of names to schemas.
_SUBSCHEMA = ("items", "additionalProperties", "not", "if", "then", "else", "contains")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_MAPS = ("properties", "$defs", "patternProperties", "dependentSchemas")


def subschemas(schema: Mapping[str, Any]) -> Iterator[Any]:
    """The schemas directly inside ``schema`` (never the data of ``enum``, ``default``…)."""
    for key in _SUBSCHEMA:
        if key in schema:
            yield schema[key]
    for key in _SUBSCHEMA_LISTS:
        value = schema.get(key)
        if isinstance(value, list):
            yield from value
    for key in _SUBSCHEMA_MAPS:
        value = schema.get(key)
        if isinstance(value, MAPS):
            yield from value.values()


def complete_arrays(schema: Any) -> None:
    """Give every array schema without ``items`` an ``items: {}`` (any item), in place.

    ``{"type": "array"}`` alone is valid JSON Schema, but OpenAI rejects a tool that has one
    ("array schema missing items"); ``items: {}`` means the same and is accepted. Call it on a
    copy: it changes the schema it is given.
    """
    stack = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        if "items" not in node and "array" in type_list(node):
            node["items"] = {}
        stack.extend(subschemas(node))


def enum_values(schema: Mapping[str, Any]) -> list[Any] | None:
    """The values a schema's ``const`` or ``enum`` allows; ``None`` when it has neither."""
    if "const" in schema:
        return [schema["const"]]
    values = schema.get("enum")
    return values if type(values) in JSON_ARRAYS else None


def value_types(values: Iterable[Any]) -> list[str]:
    """The JSON types of ``values`` other than null, in the order met.

    For an enum without a ``type``: dialects that need a type beside an enum take these.
    ``integer`` is folded into ``number`` when both occur (a number covers both).
    """
    kinds = list(dict.fromkeys(json_type(value) for value in values if value is not None))
    if "integer" in kinds and "number" in kinds:
        kinds.remove("integer")
    return kinds


def object_root(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """A tool's parameters with a ``$ref`` at the root replaced by the definition it names.

    Some schemas keep the arguments object in ``$defs`` and refer to it from the root; the
    providers want the object itself there. The root's ``$defs`` stay, for the references
    inside. A root whose own keywords would clash with the definition's (both declare
    ``properties``, say) is left as it is, and reported as not an object by the exports.
    """
    ref = schema.get("$ref")
    if type(ref) is not str or ref == "#":
        return schema
    target = resolve(schema, schema)
    if "$ref" in target:  # points nowhere, or round in a circle
        return schema
    siblings = {k: v for k, v in schema.items() if k != "$ref"}
    if not _ANNOTATIONS.issuperset(siblings.keys() & target.keys()):
        return schema
    return {**target, **siblings}


# Keywords that only annotate: the root's own win over the definition's.
_ANNOTATIONS = frozenset({"description", "title", "$comment", "examples", "$defs", "$schema"})


def takes_value(types: list[str], value: Any) -> bool:
    """Whether a value of these JSON types may be ``value`` (``integer`` is a whole ``number``)."""
    kind = json_type(value)
    if kind in types:
        return True
    if kind == "integer":
        return "number" in types
    return kind == "number" and "integer" in types and float(value).is_integer()


def _plural(n: Any, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _range(low: Any, high: Any, unit: str) -> str:
    if low is not None and high is not None:
        return f"{low} to {_plural(high, unit)}" if low != high else _plural(low, unit)
    if low is not None:
        return f"at least {_plural(low, unit)}"
    return f"at most {_plural(high, unit)}"


_PAIRS = {
    "minLength": ("maxLength", "character"),
    "minItems": ("maxItems", "item"),
    "minProperties": ("maxProperties", "entry"),
}
_SECOND_OF_PAIR = {high: low for low, (high, _) in _PAIRS.items()}
_UNITS = {**{low: unit for low, (_, unit) in _PAIRS.items()}}
_UNITS.update({high: unit for _, (high, unit) in _PAIRS.items()})


def phrases(constraints: Mapping[str, Any], root: Mapping[str, Any] | None = None) -> list[str]:
    """Words for keywords a provider cannot take, in the order they appear.

    ``{"minLength": 2, "maxLength": 200, "default": "x"}`` → ``["2 to 200 characters",
    'default: "x"']``.
    """
    out: list[str] = []
    for key, value in constraints.items():
        if key == "if":
            text = conditional(value, constraints.get("then"), constraints.get("else"))
            if text:
                out.append(text)
        elif key in ("then", "else"):
            continue  # said with their "if"; without one they mean nothing
        elif key in _PAIRS:
            high_key, unit = _PAIRS[key]
            out.append(_range(value, constraints.get(high_key), unit))
        elif key in _SECOND_OF_PAIR:
            if _SECOND_OF_PAIR[key] not in constraints:
                out.append(_range(None, value, _UNITS[key]))
        elif key == "minimum" and "maximum" in constraints:
            out.append(f"from {value} to {constraints['maximum']}")
        elif key == "maximum" and "minimum" in constraints:
            continue
        else:
            text = phrase(key, value, root)
            if text:
                out.append(text)
    return out


def phrase(key: str, value: Any, root: Mapping[str, Any] | None = None) -> str:
    """Words for one keyword; ``""`` when there is nothing worth saying."""
    match key:
        case "default":
            return f"default: {json_text(value)}"
        case "examples":
            values = value if isinstance(value, list) else [value]
            if not values:
                return ""
            label = "example" if len(values) == 1 else "examples"
            return f"{label}: {', '.join(json_text(v) for v in values)}"
        case "example":
            return f"example: {json_text(value)}"
        case "pattern":
            return f"must match the regular expression {value}"
        case "format":
            return f"format: {value}"
        case "minimum":
            return f"at least {value}"
        case "maximum":
            return f"at most {value}"
        case "exclusiveMinimum":
            return f"greater than {value}"
        case "exclusiveMaximum":
            return f"less than {value}"
        case "multipleOf":
            return f"a multiple of {value}"
        case "uniqueItems":
            return "items must be unique" if value else ""
        case "discriminator":
            name = value.get("propertyName") if isinstance(value, MAPS) else None
            return f'the variant is chosen by its "{name}" field' if name else ""
        case "deprecated":
            return "deprecated" if value else ""
        case "readOnly":
            return "read-only" if value else ""
        case "writeOnly":
            return "write-only" if value else ""
        case "enum":
            return f"one of: {', '.join(json_text(v) for v in value)}"
        case "const":
            return f"always {json_text(value)}"
        case "additionalProperties":
            if value is True or value == {}:
                return "an object with any keys"
            return f"an object with any keys; each value is {summary(value, root or {})}"
        case "contentEncoding":
            return f"encoded as {value}"
        case "contentMediaType":
            return f"media type {value}"
        case "not":
            return f"must not be {_value_words(value)}"
        case "dependentRequired" if isinstance(value, MAPS):
            return "; ".join(
                f"when {json_text(name)} is given, {_names(needed)} must be given too"
                for name, needed in value.items()
                if isinstance(needed, list) and needed
            )
        case "dependentSchemas" if isinstance(value, MAPS):
            return "; ".join(
                f"when {json_text(name)} is given, {_requirement_words(body)}"
                for name, body in value.items()
            )
    return f"{key}: {json_text(value)}"


def conditional(condition: Any, then: Any, otherwise: Any) -> str:
    """Words for ``if``/``then``/``else``: ``when "kind" is "disk", "size" must be given``."""
    parts = []
    if then is not None:
        parts.append(f"when {_condition_words(condition)}, {_requirement_words(then)}")
    if otherwise is not None:
        parts.append(f"unless {_condition_words(condition)}, {_requirement_words(otherwise)}")
    return "; ".join(parts)


def _names(names: Iterable[Any]) -> str:
    quoted = [json_text(name) for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


# Schemas that say only what a value is (its type, its allowed values): said in a few words.
_VALUE_KEYWORDS = frozenset({"type", "enum", "const", "description", "title"})


def _value_words(schema: Any) -> str:
    """``a string``, ``"x"``, ``one of "a", "b"``; the schema as JSON when it says more."""
    if isinstance(schema, MAPS) and schema and _VALUE_KEYWORDS.issuperset(schema):
        return summary(schema, {})
    return f"a value matching {json_text(schema)}"


def _condition_words(schema: Any) -> str:
    """``"kind" is "disk"`` for the usual tag test; ``it matches {...}`` for anything else."""
    if isinstance(schema, MAPS) and schema and {"properties", "required"}.issuperset(schema):
        properties = schema.get("properties") or {}
        tests = []
        for name, body in properties.items() if isinstance(properties, MAPS) else ():
            if not (isinstance(body, MAPS) and body and _VALUE_KEYWORDS.issuperset(body)):
                break
            tests.append(f"{json_text(name)} is {summary(body, {})}")
        else:
            required = schema.get("required") or []
            if isinstance(required, list):
                tests.extend(f"{json_text(name)} is given" for name in required)
                if tests:
                    return " and ".join(tests)
    return f"it matches {json_text(schema)}"


def _requirement_words(schema: Any) -> str:
    """``"size" must be given`` for a list of required fields; ``it must also match {...}``."""
    if isinstance(schema, MAPS) and list(schema) == ["required"]:
        required = schema["required"]
        if isinstance(required, list) and required:
            verb = "must" if len(required) == 1 else "must all"
            return f"{_names(required)} {verb} be given"
    return f"it must also match {json_text(schema)}"


def restate(description: Any, words: Iterable[str]) -> str | None:
    """``description`` with the restated constraints appended in parentheses."""
    extra = "; ".join(words)
    base = description if isinstance(description, str) and description else None
    if not extra:
        return base
    return f"{base} ({extra})" if base else extra


_ARTICLE_TYPES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "null": "null",
    "object": "an object",
    "array": "an array",
}


def summary(schema: Any, root: Mapping[str, Any], _depth: int = 0) -> str:
    """A few words for what a schema accepts: ``a string``, ``a string, an integer or a boolean``."""
    if not isinstance(schema, MAPS) or _depth > 3:
        return "any value"
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return f"a {ref_name(ref)} object" if ref != "#" else "the same shape as the whole"
    variants = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(variants, list) and variants:
        parts = [summary(v, root, _depth + 1) for v in variants]
        return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} or {parts[-1]}"
    if "const" in schema:
        return json_text(schema["const"])
    if "enum" in schema and isinstance(schema["enum"], list):
        values = schema["enum"]
        return json_text(values[0]) if len(values) == 1 else f"one of {_listed(values)}"
    types = type_list(schema)
    if not types:
        return "any value"
    parts = []
    for t in types:
        if t == "array":
            parts.append(f"an array of {_items_summary(schema.get('items'), root, _depth)}")
        else:
            parts.append(_ARTICLE_TYPES.get(t, t))
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} or {parts[-1]}"


def _listed(values: Iterable[Any]) -> str:
    return ", ".join(json_text(v) for v in values)


def _items_summary(items: Any, root: Mapping[str, Any], depth: int) -> str:
    text = summary(items, root, depth + 1)
    for article in ("an ", "a "):
        if text.startswith(article):
            word = text[len(article) :]
            return f"{word}s" if " " not in word else word
    return text


class FieldPath:
    """Field paths as people write them: ``filter.op``, ``resources[].tags``, ``labels.*``."""

    @staticmethod
    def prop(path: str, name: str) -> str:
        return f"{path}.{name}" if path else name

    @staticmethod
    def items(path: str) -> str:
        return f"{path}[]"

    @staticmethod
    def values(path: str) -> str:
        return f"{path}.*" if path else "*"


def recursive_defs(root: Mapping[str, Any]) -> frozenset[str]:
    """Names of the ``$defs`` entries that refer back to themselves, directly or not."""
    defs = root.get("$defs")
    if not isinstance(defs, MAPS):
        return frozenset()
    return cyclic({name: _refs_in(body) for name, body in defs.items()})


def cyclic(edges: Mapping[str, Iterable[str]]) -> frozenset[str]:
    """The names in a graph of references (name → names it refers to) that reach themselves."""
    recursive: set[str] = set()
    for start, targets in edges.items():
        stack, seen = list(targets), set()
        while stack:
            name = stack.pop()
            if name == start:
                recursive.add(start)
                break
            if name in seen or name not in edges:
                continue
            seen.add(name)
            stack.extend(edges[name])
    return frozenset(recursive)


def _refs_in(schema: Any) -> set[str]:
    """The ``$defs`` names referred to anywhere inside ``schema``."""
    found: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if type(node) in _JSON_OBJECTS:
            ref = node.get("$ref")
            if type(ref) is str and ref.startswith("#/$defs/"):
                found.add(ref[8:])
            stack.extend(v for v in node.values() if type(v) in _JSON_CONTAINERS)
        else:
            stack.extend(v for v in node if type(v) in _JSON_CONTAINERS)
    return found


# By exact type: the fastest check, run on every value of every schema an export reads.
_JSON_OBJECTS = frozenset({dict, FrozenDict})
_JSON_CONTAINERS = frozenset({dict, list, FrozenDict, FrozenList})
