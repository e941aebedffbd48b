"""Templates: a Jinja environment whose only way to emit design data is as Python literals."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from tooldesign.codegen.literals import py_literal

TEMPLATES_DIR = Path(__file__).parent / "templates"


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
