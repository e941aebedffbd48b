"""Constraints in words: what a schema asks of a value, said the one way tooldesign says it.

What a size counts has one noun per keyword, the table's (``minLength`` counts characters,
``minItems`` items, ``minProperties`` properties), singular for one. Two frames use them: a
noun phrase for descriptions (:func:`size_range`: ``2 to 20 characters``, ``at least 1
item``) and a rule for messages about a value (:func:`size_rule`: ``between 2 and 20
characters``, ``exactly 1 item``). :func:`phrases` says the keywords a reader cannot take in
words (the providers' descriptions, the reference pages), and :func:`summary` what a schema
accepts (``a string or an integer``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.navigate import MAPS, type_list
from tooldesign.jsonschema.refs import ref_name
from tooldesign.jsonschema.text import compact_json, shown


def noun(keyword: str, count: Any = None) -> str:
    """What ``keyword`` (a size) counts, singular for a count of one: ``characters``."""
    unit = K.BY_NAME[keyword].unit
    assert unit is not None, f"{keyword} counts nothing"
    return unit[0] if count == 1 else unit[1]


def counted(count: Any, keyword: str) -> str:
    """``count`` of what ``keyword`` counts: ``3 characters``, ``1 item``."""
    return f"{shown(count)} {noun(keyword, count)}"


def quantity(keyword: str) -> str:
    """The quantity a size bounds: ``number of characters``."""
    return f"number of {noun(keyword)}"


def _ends(keyword: str) -> tuple[str, str]:
    """The lower and the upper end of the size pair ``keyword`` is one end of."""
    known = K.BY_NAME[keyword]
    assert known.pair is not None, f"{keyword} is no bound"
    return (keyword, known.pair) if known.narrows == "higher" else (known.pair, keyword)


def size_range(low: Any, high: Any, keyword: str) -> str:
    """A size's bounds as a noun phrase (either may be ``None``): ``2 to 20 characters``,
    ``at least 1 item``, ``at most 5 properties``."""
    if low is not None and high is not None:
        if low == high:
            return counted(low, keyword)
        return f"{shown(low)} to {counted(high, keyword)}"
    if low is not None:
        return f"at least {counted(low, keyword)}"
    return f"at most {counted(high, keyword)}"


def size_rule(low: Any, high: Any, keyword: str) -> str:
    """What a value must have, by a size's bounds (either may be ``None``): ``exactly 2
    characters``, ``between 2 and 20 characters``, ``at least 1 item``."""
    if low is not None and low == high:
        return f"exactly {counted(low, keyword)}"
    if low is not None and high is not None:
        return f"between {shown(low)} and {counted(high, keyword)}"
    if low is not None:
        return f"at least {counted(low, keyword)}"
    return f"at most {counted(high, keyword)}"


def phrases(constraints: Mapping[str, Any], root: Mapping[str, Any] | None = None) -> list[str]:
    """Words for keywords a reader cannot take, in the order they appear.

    ``{"minLength": 2, "maxLength": 200, "default": "x"}`` → ``["2 to 200 characters",
    'default: "x"']``.
    """
    out: list[str] = []
    for key, value in constraints.items():
        if key == K.IF:
            text = conditional(value, constraints.get(K.THEN), constraints.get(K.ELSE))
            if text:
                out.append(text)
        elif key in (K.THEN, K.ELSE):
            continue  # said with their "if"; without one they mean nothing
        elif key in K.SIZES:
            low, high = _ends(key)
            if key == low:
                out.append(size_range(value, constraints.get(high), key))
            elif low not in constraints:
                out.append(size_range(None, value, key))
        elif key == K.MINIMUM and K.MAXIMUM in constraints:
            out.append(f"from {value} to {constraints[K.MAXIMUM]}")
        elif key == K.MAXIMUM and K.MINIMUM in constraints:
            continue
        else:
            text = phrase(key, value, root)
            if text:
                out.append(text)
    return out


def phrase(key: str, value: Any, root: Mapping[str, Any] | None = None) -> str:
    """Words for one keyword; ``""`` when there is nothing worth saying."""
    match key:
        case K.DEFAULT:
            return f"default: {compact_json(value)}"
        case K.EXAMPLES:
            values = value if isinstance(value, list) else [value]
            if not values:
                return ""
            label = "example" if len(values) == 1 else "examples"
            return f"{label}: {', '.join(compact_json(v) for v in values)}"
        case K.EXAMPLE:
            return f"example: {compact_json(value)}"
        case K.PATTERN:
            return f"must match the regular expression {value}"
        case K.FORMAT:
            return f"format: {value}"
        case K.MINIMUM:
            return f"at least {value}"
        case K.MAXIMUM:
            return f"at most {value}"
        case K.EXCLUSIVE_MINIMUM:
            return f"greater than {value}"
        case K.EXCLUSIVE_MAXIMUM:
            return f"less than {value}"
        case K.MULTIPLE_OF:
            return f"a multiple of {value}"
        case K.UNIQUE_ITEMS:
            return "items must be unique" if value else ""
        case K.DISCRIMINATOR:
            name = value.get(K.DISCRIMINATOR_PROPERTY) if isinstance(value, MAPS) else None
            return f'the variant is chosen by its "{name}" field' if name else ""
        case K.DEPRECATED:
            return "deprecated" if value else ""
        case K.READ_ONLY:
            return "read-only" if value else ""
        case K.WRITE_ONLY:
            return "write-only" if value else ""
        case K.ENUM:
            return f"one of: {', '.join(compact_json(v) for v in value)}"
        case K.CONST:
            return f"always {compact_json(value)}"
        case K.ADDITIONAL_PROPERTIES:
            if value is True or value == {}:
                return "an object with any keys"
            return f"an object with any keys; each value is {summary(value, root or {})}"
        case K.CONTENT_ENCODING:
            return f"encoded as {value}"
        case K.CONTENT_MEDIA_TYPE:
            return f"media type {value}"
        case K.NOT:
            return f"must not be {_value_words(value)}"
        case K.DEPENDENT_REQUIRED if isinstance(value, MAPS):
            return "; ".join(
                f"when {compact_json(name)} is given, {_names(needed)} must be given too"
                for name, needed in value.items()
                if isinstance(needed, list) and needed
            )
        case K.DEPENDENT_SCHEMAS if isinstance(value, MAPS):
            return "; ".join(
                f"when {compact_json(name)} is given, {_requirement_words(body)}"
                for name, body in value.items()
            )
    return f"{key}: {compact_json(value)}"


def conditional(condition: Any, then: Any, otherwise: Any) -> str:
    """Words for ``if``/``then``/``else``: ``when "kind" is "disk", "size" must be given``."""
    parts = []
    if then is not None:
        parts.append(f"when {_condition_words(condition)}, {_requirement_words(then)}")
    if otherwise is not None:
        parts.append(f"unless {_condition_words(condition)}, {_requirement_words(otherwise)}")
    return "; ".join(parts)


def _names(names: Iterable[Any]) -> str:
    quoted = [compact_json(name) for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


# Schemas that say only what a value is (its type, its allowed values): said in a few words.
_VALUE_KEYWORDS = frozenset({K.TYPE, K.ENUM, K.CONST, K.DESCRIPTION, K.TITLE})


def _value_words(schema: Any) -> str:
    """``a string``, ``"x"``, ``one of "a", "b"``; the schema as JSON when it says more."""
    if isinstance(schema, MAPS) and schema and _VALUE_KEYWORDS.issuperset(schema):
        return summary(schema, {})
    return f"a value matching {compact_json(schema)}"


def _condition_words(schema: Any) -> str:
    """``"kind" is "disk"`` for the usual tag test; ``it matches {...}`` for anything else."""
    if isinstance(schema, MAPS) and schema and {K.PROPERTIES, K.REQUIRED}.issuperset(schema):
        properties = schema.get(K.PROPERTIES) or {}
        tests = []
        for name, body in properties.items() if isinstance(properties, MAPS) else ():
            if not (isinstance(body, MAPS) and body and _VALUE_KEYWORDS.issuperset(body)):
                break
            tests.append(f"{compact_json(name)} is {summary(body, {})}")
        else:
            required = schema.get(K.REQUIRED) or []
            if isinstance(required, list):
                tests.extend(f"{compact_json(name)} is given" for name in required)
                if tests:
                    return " and ".join(tests)
    return f"it matches {compact_json(schema)}"


def _requirement_words(schema: Any) -> str:
    """``"size" must be given`` for a list of required fields; ``it must also match {...}``."""
    if isinstance(schema, MAPS) and list(schema) == [K.REQUIRED]:
        required = schema[K.REQUIRED]
        if isinstance(required, list) and required:
            verb = "must" if len(required) == 1 else "must all"
            return f"{_names(required)} {verb} be given"
    return f"it must also match {compact_json(schema)}"


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
    ref = schema.get(K.REF)
    if isinstance(ref, str):
        return f"a {ref_name(ref)} object" if ref != "#" else "the same shape as the whole"
    variants = schema.get(K.ANY_OF) or schema.get(K.ONE_OF)
    if isinstance(variants, list) and variants:
        parts = [summary(v, root, _depth + 1) for v in variants]
        return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} or {parts[-1]}"
    if K.CONST in schema:
        return compact_json(schema[K.CONST])
    if K.ENUM in schema and isinstance(schema[K.ENUM], list):
        values = schema[K.ENUM]
        return compact_json(values[0]) if len(values) == 1 else f"one of {_listed(values)}"
    types = type_list(schema)
    if not types:
        return "any value"
    parts = []
    for t in types:
        if t == "array":
            parts.append(f"an array of {_items_summary(schema.get(K.ITEMS), root, _depth)}")
        else:
            parts.append(_ARTICLE_TYPES.get(t, t))
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} or {parts[-1]}"


def _listed(values: Iterable[Any]) -> str:
    return ", ".join(compact_json(v) for v in values)


def _items_summary(items: Any, root: Mapping[str, Any], depth: int) -> str:
    text = summary(items, root, depth + 1)
    for article in ("an ", "a "):
        if text.startswith(article):
            word = text[len(article) :]
            return f"{word}s" if " " not in word else word
    return text
