"""Design patterns (``pattern=``), read as generated models read them: by the Rust ``regex``
crate that pydantic-core validates with. It runs in time linear in the text; Python's ``re``
backtracks, and ``(a+)+$`` takes exponential time on ``"aaaa…!"``. So a design value is never
matched with ``re``, and a pattern the linear engine cannot read (a backreference, a lookaround)
is a design error rather than something the runtime would have to match with ``re``.

A pattern is JSON Schema's, an ECMA-262 regular expression: one that ECMA-262, the engine and
Python's ``re`` would read differently is a design error too, naming the construct
(:mod:`tooldesign.jsonschema.patterns`, the dialect); the engine matches the pattern as
:func:`~tooldesign.jsonschema.patterns.for_engine` writes it, which matches what ECMA-262 does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError
from pydantic_core import SchemaError, SchemaValidator, core_schema
from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.patterns import DIALECT, for_engine
from tooldesign.jsonschema.patterns import problem as dialect_problem


@cache
def _engine(pattern: str) -> SchemaValidator | str:
    """A validator that accepts the strings ``pattern`` finds a match in, or why there is none."""
    try:
        return SchemaValidator(core_schema.str_schema(pattern=for_engine(pattern)))
    except SchemaError as exc:
        # "Error building … regex parse error: <pattern> <caret> error: <what>": the last line
        # says what is wrong.
        return str(exc).strip().splitlines()[-1].removeprefix("error: ")


RULE = DIALECT
"""What a design pattern must be, for messages."""


def problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be used in a design, or ``None`` when it can.

    It must be in the dialect; values are matched by the linear engine, which must read it;
    Python's ``re`` must read it too, for the readers that still do (``jsonschema``'s own
    ``pattern``, a test's generator).
    """
    outside = dialect_problem(pattern)
    if outside is not None:
        return outside
    engine = _engine(pattern)
    if isinstance(engine, str):
        return engine
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"{exc} (Python's re)"
    return None


def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` finds a match in ``text`` (anywhere, as JSON Schema's ``pattern``).

    A pattern the engine cannot read matches everything: it is reported on its own.
    """
    engine = _engine(pattern)
    if isinstance(engine, str):
        return True
    return engine.isinstance_python(text)


def _pattern(
    validator: Any, pattern: str, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


# (jsonschema's stub leaves ``extend`` untyped.)
LinearValidator: type[jsonschema.Draft202012Validator] = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    jsonschema.Draft202012Validator,
    {K.PATTERN: _pattern, K.PATTERN_PROPERTIES: _pattern_properties},
)
"""JSON Schema 2020-12 validation whose patterns are matched in linear time."""
