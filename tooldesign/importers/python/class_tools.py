"""Tools declared as classes, by their class attributes.

A LangChain ``BaseTool`` subclass gives its ``name``, ``description`` and ``args_schema`` (a
model of the file, whose fields are the arguments; without one, ``_run``'s parameters are);
a smolagents ``Tool`` subclass its ``name``, ``description``, ``inputs`` (each argument's
``type``, ``description``, ``nullable`` and ``enum``) and ``output_type``. The class, or one of
the file's classes it derives from, sets each attribute.
"""

from __future__ import annotations

import ast
from typing import Any

from tooldesign.importers.draft import (
    ANY,
    BOOLEAN,
    FLOAT,
    INT,
    STRING,
    ArrayOf,
    DraftAttribute,
    DraftResult,
    DraftType,
    MapOf,
)
from tooldesign.importers.python.classes import ClassReader
from tooldesign.importers.python.discovery import Found, class_attribute
from tooldesign.importers.python.syntax import NO_VALUE
from tooldesign.importers.values import accepts

# smolagents' type names (its AUTHORIZED_TYPES) as design types; "image" and "audio" are
# objects the agent passes around, which a design cannot describe.
_SMOLAGENTS_TYPES: dict[str, DraftType] = {
    "string": STRING,
    "integer": INT,
    "number": FLOAT,
    "boolean": BOOLEAN,
    "array": ArrayOf(ANY),
    "object": MapOf(ANY),
    "any": ANY,
}
_INPUT_KEYS = frozenset({"type", "description", "nullable", "enum"})


class ClassToolReader(ClassReader):
    """Reads what a class-based tool's class attributes say."""

    def class_options(self, found: Found) -> dict[str, Any]:
        """The tool's ``name`` and ``description``, as a decorator's options would give them;
        one that cannot be read statically is reported."""
        options: dict[str, Any] = {}
        for key in ("name", "description"):
            node = class_attribute(found.tool_classes, key)
            if node is None:
                continue
            value = self.value(node)
            if isinstance(value, str):
                options[key] = value
            else:
                self.notice(self.unreadable(key, node))
        return options

    def class_node(self, found: Found, name: str) -> ast.expr | None:
        return class_attribute(found.tool_classes, name) if found.tool_classes else None

    def smolagents_inputs(self, node: ast.expr) -> list[DraftAttribute] | None:
        """A smolagents tool's arguments from its ``inputs``; ``None`` (reported) when they
        cannot be read statically."""
        inputs = self.value(node)
        if not isinstance(inputs, dict) or not all(isinstance(v, dict) for v in inputs.values()):
            self.notice(
                "its inputs cannot be read without running the code: the arguments are read "
                "from forward's signature"
            )
            return None
        return [self.smolagents_input(name, spec) for name, spec in inputs.items()]

    def smolagents_input(self, name: str, spec: dict[str, Any]) -> DraftAttribute:
        where = f"{self.where} › parameter {name!r}"
        nullable = spec.get("nullable") is True
        written = spec.get("type")
        kinds = written if isinstance(written, list) else [written]
        if "null" in kinds:
            nullable = True
            kinds = [k for k in kinds if k != "null"]
        t = self.smolagents_type(kinds[0] if len(kinds) == 1 else written, where)
        options: dict[str, Any] = {}
        enum = spec.get("enum")
        if isinstance(enum, list) and enum:
            if t in (STRING, INT, FLOAT) and all(accepts(t, {}, v, self.types) for v in enum):
                options["enum"] = enum
            else:
                self.notice(f"its enum {enum!r} does not fit its type; left out", where)
        for key in sorted(set(spec) - _INPUT_KEYS):
            self.notice(f"its {key!r} has no design equivalent; left out", where)
        description = spec.get("description")
        return DraftAttribute(
            name,
            t,
            description if isinstance(description, str) and description else None,
            not nullable,
            options,
        )

    def smolagents_type(self, written: Any, where: str) -> DraftType:
        if isinstance(written, str) and written in _SMOLAGENTS_TYPES:
            return _SMOLAGENTS_TYPES[written]
        self.notice(f"smolagents type {written!r} has no design equivalent: typed Any", where)
        return ANY

    def smolagents_result(self, node: ast.expr) -> DraftResult:
        """A smolagents tool's result, from its ``output_type``."""
        where = f"{self.where} › result"
        written = self.value(node)
        if written is NO_VALUE:
            self.notice(self.unreadable("output_type", node), where)
            return DraftResult(ANY)
        return DraftResult(self.smolagents_type(written, where))
