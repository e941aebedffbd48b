"""Templates: a Jinja environment whose only way to emit design data is as Python literals."""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

TEMPLATES_DIR = Path(__file__).parent / "templates"


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


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES_DIR),
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["py"] = py_literal
    return env


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)
