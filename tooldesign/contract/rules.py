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

from tooldesign.jsonschema import keywords as K

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
        the arguments the fix is about (those missing, or those given one too many).

        Plain loops: every call of a tool with rules runs this (a generator costs more than
        the check)."""
        kind = self.kind
        if kind == "at_least_one":
            for name in self.names:
                if name in given:
                    return None
            return self.names
        if kind == "exactly_one":
            sent = tuple([name for name in self.names if name in given])
            return None if len(sent) == 1 else (sent or self.names)
        needed = self.names if self.holds(given, values) else self.otherwise
        missing = tuple([name for name in needed if name not in given])
        return missing or None

    def holds(self, given: Container[str], values: Mapping[str, Any]) -> bool:
        """Whether a ``when`` rule's condition holds: its field given and equal to ``equals``
        as JSON compares (``true`` is not ``1``; ``1`` is ``1.0``)."""
        assert self.field is not None
        return self.field in given and same_json(values.get(self.field), self.equals)


def rules_schema(rules: tuple[ArgumentRule, ...]) -> dict[str, Any]:
    """The keywords that state rules across arguments, beside an object's own: each
    ``AtLeastOne`` an ``anyOf`` and each ``ExactlyOne`` a ``oneOf`` of ``required`` lists,
    under ``allOf``; a single ``When`` as the object's own ``if``/``then``/``else`` (several:
    each under ``allOf``). :func:`split_rules` reads them back."""
    out: dict[str, Any] = {}
    every: list[dict[str, Any]] = []
    whens = [r for r in rules if r.kind == "when"]
    for rule in rules:
        if rule.kind == "when":
            if len(whens) > 1:
                every.append(_when_schema(rule))
            continue
        keyword = K.ANY_OF if rule.kind == "at_least_one" else K.ONE_OF
        every.append({keyword: [{K.REQUIRED: [name]} for name in rule.names]})
    if every:
        out[K.ALL_OF] = every
    if len(whens) == 1:
        out.update(_when_schema(whens[0]))
    return out


def _when_schema(rule: ArgumentRule) -> dict[str, Any]:
    assert rule.field is not None
    out: dict[str, Any] = {
        K.IF: {K.PROPERTIES: {rule.field: {K.CONST: rule.equals}}, K.REQUIRED: [rule.field]},
        K.THEN: {K.REQUIRED: list(rule.names)},
    }
    if rule.otherwise:
        out[K.ELSE] = {K.REQUIRED: list(rule.otherwise)}
    return out


def split_rules(schema: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[ArgumentRule, ...]]:
    """An object schema without the keywords :func:`rules_schema` writes, and the rules they
    state (for a target that cannot take them: the rules are then said in words). A schema
    whose ``allOf`` or ``if`` is not a rule's is given back whole, with no rules."""
    rules: list[ArgumentRule] = []
    parts = schema.get(K.ALL_OF, [])
    if not isinstance(parts, list):
        return dict(schema), ()
    for part in parts:
        rule = _rule_of(part)
        if rule is None:
            return dict(schema), ()
        rules.append(rule)
    if K.IF in schema:
        rule = _rule_of({k: schema[k] for k in (K.IF, K.THEN, K.ELSE) if k in schema})
        if rule is None:
            return dict(schema), ()
        rules.append(rule)
    if not rules:
        return dict(schema), ()
    kept = {k: v for k, v in schema.items() if k not in (K.ALL_OF, K.IF, K.THEN, K.ELSE)}
    return kept, tuple(rules)


def _rule_of(part: Any) -> ArgumentRule | None:
    if not isinstance(part, Mapping):
        return None
    for keyword, kind in ((K.ANY_OF, "at_least_one"), (K.ONE_OF, "exactly_one")):
        if set(part) == {keyword}:
            names = [_required(v) for v in part[keyword]]
            if any(n is None or len(n) != 1 for n in names):
                return None
            return ArgumentRule(kind, tuple(n[0] for n in names if n))  # type: ignore[arg-type]
    if not set(part) <= {K.IF, K.THEN, K.ELSE} or K.IF not in part or K.THEN not in part:
        return None
    condition, then = part[K.IF], _required(part[K.THEN])
    otherwise = _required(part[K.ELSE]) if K.ELSE in part else ()
    if not isinstance(condition, Mapping) or then is None or otherwise is None:
        return None
    tested = condition.get(K.PROPERTIES)
    if not isinstance(tested, Mapping) or len(tested) != 1:
        return None
    ((field, const),) = tested.items()
    if not isinstance(const, Mapping) or set(const) != {K.CONST}:
        return None
    if condition.get(K.REQUIRED) != [field]:
        return None
    return ArgumentRule("when", then, field, const[K.CONST], otherwise)


def _required(part: Any) -> tuple[str, ...] | None:
    """The names of a ``{"required": [...]}`` schema (nothing else in it), or ``None``."""
    if not isinstance(part, Mapping) or set(part) != {K.REQUIRED}:
        return None
    names = part[K.REQUIRED]
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return None
    return tuple(names)


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
