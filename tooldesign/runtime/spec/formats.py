"""Date and time types that read JSON strings as RFC 3339 says, for generated models.

Pydantic's own ``datetime``, ``date`` and ``time`` take more than a tool's schema promises,
even in strict JSON mode: ``"0"`` and ``"1700000000"`` as Unix time, a space for the ``T``, a
time without seconds. A model shown ``"format": "date-time"`` must send RFC 3339 (as JSON
Schema defines the format); these types hold it to that. Python values (a ``datetime`` a
service returns) pass untouched; only strings are checked (and parsed).

Generated ``types.py`` modules use them wherever the schema says ``date-time``, ``date`` or
``time`` (the ``runtime_type`` of those rows of :mod:`tooldesign.contract.formats`); for type
checkers they are plain ``datetime``, ``date`` and ``time``. :func:`model_types` gives the type
generated models hold each format as, read from that table.
"""

from __future__ import annotations

import datetime as dt
import importlib
import re
from functools import cache
from typing import Annotated, Any

from pydantic import AwareDatetime, BeforeValidator
from pydantic_core import PydanticCustomError
from tooldesign.contract.formats import BY_NAME, FORMATS

_HOUR, _MINUTE = r"(?:[01]\d|2[0-3])", r"[0-5]\d"
_FULL_DATE = r"\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
# Seconds stop at 59: Python's datetime cannot hold a leap second.
_FULL_TIME = rf"{_HOUR}:{_MINUTE}:{_MINUTE}(?:\.\d+)?(?:[Zz]|[+-]{_HOUR}:{_MINUTE})"

# ASCII: "²" and "٣" are digits to Python's \d, not to RFC 3339.
_PATTERNS = {
    "date-time": re.compile(f"{_FULL_DATE}[Tt]{_FULL_TIME}", re.ASCII),
    "date": re.compile(_FULL_DATE, re.ASCII),
    "time": re.compile(_FULL_TIME, re.ASCII),
}

EXAMPLES = {name: BY_NAME[name].examples[0] for name in _PATTERNS}
"""A valid value of each format, for messages."""

RFC3339_ERROR = "rfc3339_format"
"""The pydantic error type of a string that is not RFC 3339 (its context names the format)."""


def _reader(fmt: str, parse: Any) -> Any:
    """A before-validator: an RFC 3339 string becomes the Python value; other input passes."""
    pattern = _PATTERNS[fmt]

    def read(value: Any) -> Any:
        if not isinstance(value, str):
            return value
        if pattern.fullmatch(value) is None:
            raise PydanticCustomError(
                RFC3339_ERROR,
                "must be an RFC 3339 {format}, such as {example}",
                {"format": fmt, "example": EXAMPLES[fmt]},
            )
        # Parsed here: once a validator has run, strict pydantic takes only Python values.
        try:
            return parse(value.upper())
        except ValueError as exc:  # the right shape, an impossible value (February 30)
            raise PydanticCustomError(
                RFC3339_ERROR,
                "is not a valid {format}: {reason}",
                {"format": fmt, "reason": str(exc)},
            ) from None

    return read


Rfc3339DateTime = Annotated[
    AwareDatetime, BeforeValidator(_reader("date-time", dt.datetime.fromisoformat))
]
"""A date-time with a timezone offset: ``2026-01-31T09:30:00Z``, ``2026-01-31T10:30:00.5+01:00``."""

Rfc3339Date = Annotated[dt.date, BeforeValidator(_reader("date", dt.date.fromisoformat))]
"""A full date: ``2026-01-31``."""

Rfc3339Time = Annotated[dt.time, BeforeValidator(_reader("time", dt.time.fromisoformat))]
"""A full time with a timezone offset: ``09:30:00Z``, ``10:30:00+01:00``."""


@cache
def model_types() -> dict[str, Any]:
    """The type generated models hold a string of each format as, where it is not a plain ``str``.

    Design values (defaults, examples) are checked, and defaults written, as these types read
    them.
    """
    types: dict[str, Any] = {}
    for fmt in FORMATS:
        if fmt.runtime_type is not None:
            types[fmt.name] = globals()[fmt.runtime_type]
        elif fmt.python_type is not None:
            module, _, name = fmt.python_type.rpartition(".")
            types[fmt.name] = getattr(importlib.import_module(module), name)
    return types


__all__ = [
    "EXAMPLES",
    "RFC3339_ERROR",
    "Rfc3339Date",
    "Rfc3339DateTime",
    "Rfc3339Time",
    "model_types",
]
