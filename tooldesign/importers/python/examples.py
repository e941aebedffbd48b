"""A tool's examples from its docstring: the argument sets they show, as JSON, a dict or a
call (``get_weather("Paris")``); an example that is not one stays in the description."""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from tooldesign.importers.docstrings import Docstring
from tooldesign.importers.draft import DraftAttribute
from tooldesign.importers.python.reader import FileReader
from tooldesign.importers.python.syntax import NO_VALUE, literal_value, parse_expression
from tooldesign.importers.values import accepts


def examples(
    reader: FileReader, doc: Docstring, args: list[DraftAttribute], order: list[str]
) -> tuple[list[dict[str, Any]], list[str]]:
    """Docstring examples that are argument sets, and the texts of those that are not.
    ``order`` names the parameters in the order a call passes them."""
    by_name = {a.name: a for a in args}
    found: list[dict[str, Any]] = []
    leftover: list[str] = []
    for text in doc.examples:
        values = [_example_arguments(line, order) for line in _example_lines(text)]
        parsed = [v for v in values if v is not None]
        if not parsed:
            leftover.append(text)
            continue
        for example in parsed:
            if (
                set(example) <= set(by_name)
                and all(
                    accepts(by_name[k].type, by_name[k].options, v, reader.types)
                    for k, v in example.items()
                )
                and all(k in example for k, a in by_name.items() if a.required)
            ):
                if example not in found:
                    found.append(example)
            else:
                reader.notice(
                    f"example {json.dumps(example)} does not fit the parameters; left out"
                )
    return found, leftover


def _example_lines(text: str) -> list[str]:
    """The candidate example values in an example's text: the whole text, or each line."""
    lines = [re.sub(r"^(>>>|\.\.\.)\s?", "", line).strip() for line in text.splitlines()]
    joined = " ".join(line for line in lines if line)
    candidates = [joined] if joined else []
    if len(lines) > 1:
        candidates.extend(line for line in lines if line)
    return candidates


def _example_arguments(text: str, order: list[str]) -> dict[str, Any] | None:
    """``{"city": "Paris"}`` from ``{"city": "Paris"}``, its JSON, or ``get_weather("Paris")``."""
    text = text.strip().rstrip(";")
    try:
        value = json.loads(text)
    except ValueError:
        node = parse_expression(text)
        if node is None:
            return None
        if isinstance(node, ast.Call):
            positional = [literal_value(a, NO_VALUE) for a in node.args]
            keywords = {k.arg: literal_value(k.value, NO_VALUE) for k in node.keywords if k.arg}
            if (
                NO_VALUE in positional
                or NO_VALUE in keywords.values()
                or len(positional) > len(order)
            ):
                return None
            return {**dict(zip(order, positional, strict=False)), **keywords}
        value = literal_value(node, NO_VALUE)
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return value
    return None
