"""Regular expressions from a design, matched in linear time.

A design's ``pattern`` is checked against what a model sends. Python's ``re`` backtracks: a
pattern such as ``(a+)+$`` takes seconds on a value of 26 characters, doubling with each one,
and the event loop waits. Patterns are matched here with pydantic-core's regular-expression
engine (Rust's ``regex`` crate), whose time grows linearly with the value; the generated models
already use it. It searches the value, as JSON Schema's ``pattern`` does.

The engine has no look-around and no back-references. A pattern using them cannot be checked
in linear time: it is not checked at all (a warning says so, once per pattern) rather than
checked with an engine a value can stall.

:func:`linear_validator` gives a ``jsonschema`` validator class whose ``pattern``,
``patternProperties``, ``additionalProperties`` and ``unevaluatedProperties`` keywords match
this way (the parts of a schema kept verbatim are checked with ``jsonschema``).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterator, Mapping
from typing import Any

from pydantic_core import SchemaError, SchemaValidator, core_schema
from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.patterns import for_engine

log = logging.getLogger("tooldesign.runtime")


class LinearPattern:
    """One pattern compiled by pydantic-core's engine."""

    __slots__ = ("_validator", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        # As ECMA-262 reads it (\d is [0-9], . stops at \r): the schema's dialect.
        engine = for_engine(pattern)
        self._validator = SchemaValidator(core_schema.str_schema(pattern=engine, strict=True))

    def search(self, text: str) -> bool:
        """Whether the pattern matches somewhere in ``text``."""
        return self._validator.isinstance_python(text)


@functools.lru_cache(maxsize=1024)
def linear_pattern(pattern: str) -> LinearPattern | None:
    """``pattern`` compiled for linear-time matching; ``None`` when the engine cannot read it."""
    try:
        return LinearPattern(pattern)
    except SchemaError as exc:
        reason = str(exc).strip().splitlines()[-1]
        log.warning(
            "the pattern %r cannot be matched in linear time (%s): values are not checked "
            "against it",
            pattern,
            reason,
        )
        return None


def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text``; a pattern the engine cannot read
    matches everything (it is not checked, see the module's doc)."""
    compiled = linear_pattern(pattern)
    return compiled is None or compiled.search(text)


# ── jsonschema keywords that match patterns ──────────────────────────────────────────────────
# Each is jsonschema's own keyword with ``re.search`` replaced by :func:`search`.


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    string = isinstance(pattern, str) and validator.is_type(instance, "string")
    if string and not search(pattern, instance):
        yield ValidationError(f"does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object") or not isinstance(patterns, Mapping):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _extras(instance: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    """Keys neither ``properties`` nor ``patternProperties`` declare."""
    declared = schema.get(K.PROPERTIES) or {}
    patterns = schema.get(K.PATTERN_PROPERTIES) or {}
    return [
        key for key in instance if key not in declared and not any(search(p, key) for p in patterns)
    ]


def _additional_properties(
    validator: Any, additional: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    extras = _extras(instance, schema)
    if validator.is_type(additional, "object"):
        for key in extras:
            yield from validator.descend(instance[key], additional, path=key)
    elif additional is False and extras:
        yield ValidationError(f"unexpected properties {sorted(extras)!r}")


def _unevaluated_properties(
    validator: Any, unevaluated: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    evaluated = _evaluated_keys(validator, instance, schema)
    bad = [
        key
        for key in instance
        if key not in evaluated
        and next(iter(validator.descend(instance[key], unevaluated, path=key)), None) is not None
    ]
    if bad:
        yield ValidationError(f"unevaluated properties {sorted(bad)!r}")


def _evaluated_keys(validator: Any, instance: Mapping[str, Any], schema: Any) -> set[str]:
    """The keys of ``instance`` that ``schema`` evaluates (what ``unevaluatedProperties`` skips),
    as JSON Schema 2020-12 defines it: through ``$ref``, ``$dynamicRef``, the applicators that
    apply, ``properties``, ``patternProperties``, ``additionalProperties`` and
    ``unevaluatedProperties``."""
    if not isinstance(schema, Mapping):
        return set()
    keys: set[str] = set()
    for keyword in (K.REF, K.DYNAMIC_REF):
        ref = schema.get(keyword)
        if isinstance(ref, str):
            resolved = validator._resolver.lookup(ref)
            inner = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
            keys |= _evaluated_keys(inner, instance, resolved.contents)
    properties = schema.get(K.PROPERTIES)
    if isinstance(properties, Mapping):
        keys |= properties.keys() & instance.keys()
    patterns = schema.get(K.PATTERN_PROPERTIES)
    if isinstance(patterns, Mapping):
        keys |= {key for key in instance if any(search(p, key) for p in patterns)}
    for keyword in (K.ADDITIONAL_PROPERTIES, K.UNEVALUATED_PROPERTIES):
        if keyword in schema:
            keys |= {
                key
                for key, value in instance.items()
                if validator.evolve(schema=schema[keyword]).is_valid(value)
            }
    for name, subschema in (schema.get(K.DEPENDENT_SCHEMAS) or {}).items():
        if name in instance:
            keys |= _evaluated_keys(validator, instance, subschema)
    for keyword in (K.ALL_OF, K.ONE_OF, K.ANY_OF):
        for subschema in schema.get(keyword) or ():
            if validator.evolve(schema=subschema).is_valid(instance):
                keys |= _evaluated_keys(validator, instance, subschema)
    if K.IF in schema:
        if validator.evolve(schema=schema[K.IF]).is_valid(instance):
            keys |= _evaluated_keys(validator, instance, schema[K.IF])
            keys |= _evaluated_keys(validator, instance, schema.get(K.THEN))
        else:
            keys |= _evaluated_keys(validator, instance, schema.get(K.ELSE))
    return keys


@functools.cache
def linear_validator() -> Any:
    """A Draft 2020-12 ``jsonschema`` validator class that matches patterns in linear time."""
    from jsonschema import Draft202012Validator, validators

    return validators.extend(  # type: ignore[no-untyped-call]  # untyped in types-jsonschema
        Draft202012Validator,
        {
            K.PATTERN: _pattern,
            K.PATTERN_PROPERTIES: _pattern_properties,
            K.ADDITIONAL_PROPERTIES: _additional_properties,
            K.UNEVALUATED_PROPERTIES: _unevaluated_properties,
        },
    )


__all__ = ["LinearPattern", "linear_pattern", "linear_validator", "search"]
