"""Design data as Python source: the one way generated code spells a value."""

from __future__ import annotations

import math
from typing import Any


def py_literal(value: Any) -> str:
    """``value`` (JSON-like data) as Python source that evaluates back to exactly ``value``.

    Strings go through ``repr``, so quotes, backslashes, braces, newlines and any Unicode
    round-trip. Mappings keep their order; tuples stay tuples.
    """
    if value is None or isinstance(value, bool | int | str):
        return repr(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot render non-finite number {value!r}")
        return repr(value)
    if isinstance(value, dict):
        items = ", ".join(f"{py_literal(k)}: {py_literal(v)}" for k, v in value.items())
        return "{" + items + "}"
    if isinstance(value, list):
        return "[" + ", ".join(py_literal(v) for v in value) + "]"
    if isinstance(value, tuple):
        if len(value) == 1:
            return f"({py_literal(value[0])},)"
        return "(" + ", ".join(py_literal(v) for v in value) + ")"
    raise TypeError(f"cannot render {type(value).__name__} as a Python literal")


def py_docstring(text: str) -> str:
    """Plain one-line ``text`` as a docstring, written as the formatter would write it.

    For text known to be plain (made of names that match ``[A-Za-z0-9_-]``): anything that a
    docstring would have to escape is refused, never pasted raw. Other text goes through
    :func:`py_literal` and the formatting run.
    """
    if not text.isprintable() or '"' in text or "\\" in text or text != text.strip() or not text:
        raise ValueError(f"not plain docstring text: {text!r}")
    return f'"""{text}"""'
