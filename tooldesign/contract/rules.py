"""Rules across a tool's arguments, as a design states them (``AtLeastOne``, ``ExactlyOne``,
``When``) and as the IR, the generated models and the runtime carry them.

A rule speaks of arguments *given*: sent by the model, a null read as "not given" (the way the
decoder reads a null for an optional argument). Its arguments are optional ones without a
default (a required argument is always given, a defaulted one never missing to the handler),
so what the published schema says (``required`` inside ``anyOf``, ``oneOf``, ``if``/``then``/
``else``) and what the decoder checks are the same thing. The schema keywords are written by
:mod:`tooldesign.ir.schema`; this module holds the rules' meaning and their words.
"""

from __future__ import annotations

import json
from collections.abc import Container, Mapping
from dataclasses import dataclass
from typing import Any, Literal

RuleKind = Literal["at_least_one", "exactly_one", "when"]

RULE_ERROR = "argument_rule"
"""The pydantic error type a generated model raises for a broken rule."""


@dataclass(frozen=True, slots=True)
class ArgumentRule:
    """One rule. ``names`` are the arguments it is about: at least one (``at_least_one``) or
    exactly one (``exactly_one``) of them given; for ``when``, the arguments required when
    ``field`` is given and equals ``equals``, and ``otherwise`` those required when not."""

    kind: RuleKind
    names: tuple[str, ...]
    field: str | None = None
    equals: Any = None
    otherwise: tuple[str, ...] = ()

    @property
    def dsl(self) -> str:
        """The rule as the design writes it (for messages)."""
        if self.kind == "when":
            parts = [repr(self.field), f"equals={self.equals!r}", f"requires={list(self.names)!r}"]
            if self.otherwise:
                parts.append(f"otherwise={list(self.otherwise)!r}")
            return f"When({', '.join(parts)})"
        call = "AtLeastOne" if self.kind == "at_least_one" else "ExactlyOne"
        return f"{call}({', '.join(repr(n) for n in self.names)})"

    def words(self) -> str:
        """The rule in plain words, as a model reads it in a description or a retry hint."""
        if self.kind == "at_least_one":
            return f"give at least one of: {', '.join(self.names)}"
        if self.kind == "exactly_one":
            return f"give exactly one of: {', '.join(self.names)}"
        value = json.dumps(self.equals, ensure_ascii=False)
        said = f"{_listed(self.names)} required when {self.field} is {value}"
        if self.otherwise:
            said += f", else {_listed(self.otherwise)} required"
        return said

    def broken(self, given: Container[str], values: Mapping[str, Any]) -> tuple[str, ...] | None:
        """``None`` when the arguments ``given`` (with their ``values``) keep the rule; else
        the arguments the fix is about (those missing, or those given one too many)."""
        if self.kind == "at_least_one":
            return None if any(n in given for n in self.names) else self.names
        if self.kind == "exactly_one":
            sent = tuple(n for n in self.names if n in given)
            return None if len(sent) == 1 else (sent or self.names)
        assert self.field is not None
        needed = self.names if self.holds(given, values) else self.otherwise
        missing = tuple(n for n in needed if n not in given)
        return missing or None

    def holds(self, given: Container[str], values: Mapping[str, Any]) -> bool:
        """Whether a ``when`` rule's condition holds: its field given and equal to ``equals``
        as JSON compares (``true`` is not ``1``; ``1`` is ``1.0``)."""
        assert self.field is not None
        return self.field in given and same_json(values.get(self.field), self.equals)


def same_json(a: Any, b: Any) -> bool:
    """Whether two JSON scalars are equal as JSON Schema's ``const`` compares them."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and a == b


def _listed(names: tuple[str, ...]) -> str:
    """``a is``, ``a and b are``, ``a, b and c are``."""
    if len(names) == 1:
        return f"{names[0]} is"
    return f"{', '.join(names[:-1])} and {names[-1]} are"
