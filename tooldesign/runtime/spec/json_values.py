"""The type generated models hold a design's ``Any`` as: any JSON value, which is finite.

JSON has no NaN and no infinity, and a number no double holds (``1e400``) is read by Python as
``inf``: such a value could not be written back as JSON (a result would carry ``null``, or
text no JSON reader takes), and a schema's ``multipleOf`` cannot even be checked against it.
A ``Float`` refuses them wherever it is (``allow_inf_nan=False``); :data:`JsonAny` refuses them
inside values typed ``Any`` too (``Any(schema=...)`` included), so that no number a tool takes
or returns is other than finite.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import AfterValidator
from pydantic_core import PydanticCustomError

FINITE_ERROR = "finite_number"
"""The pydantic error type of a number that is not finite (pydantic's own for a ``Float``)."""


def non_finite(value: Any) -> float | None:
    """The first number in ``value`` (a JSON value, walked without recursion) that is not
    finite, or ``None``."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is float:
            if not math.isfinite(item):
                return item  # type: ignore[no-any-return]
        elif kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif isinstance(item, float) and not math.isfinite(item):
            return float(item)
    return None


def _finite(value: Any) -> Any:
    if type(value) in (str, int, bool) or value is None:
        return value
    if non_finite(value) is not None:
        raise PydanticCustomError(FINITE_ERROR, "Input should be a finite number")
    return value


JsonAny = Annotated[Any, AfterValidator(_finite)]
"""Any JSON value: every number in it finite."""

__all__ = ["FINITE_ERROR", "JsonAny", "non_finite"]
