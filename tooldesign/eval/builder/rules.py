"""Rules across a tool's arguments (``AtLeastOne``, ``ExactlyOne``, ``When``): read from their
records and checked against the fields of the ``Args`` block they are in, each problem reported
at the rule's own line."""

from __future__ import annotations

import json
import math
from typing import Any

from tooldesign.contract.errors import did_you_mean
from tooldesign.contract.rules import ArgumentRule, RuleKind, same_json
from tooldesign.dsl.records import RuleRecord
from tooldesign.ir.errors import Issues
from tooldesign.ir.model import (
    Field,
    ObjectShape,
    Primitive,
    PrimitiveType,
    TypeExpr,
    UnionType,
    describe,
)
from tooldesign.jsonschema.navigate import accepts_null

_CALLS = {"at_least_one": "AtLeastOne", "exactly_one": "ExactlyOne", "when": "When"}

_SCALARS: dict[Primitive, tuple[type, ...]] = {
    Primitive.STRING: (str,),
    Primitive.INTEGER: (int,),
    Primitive.NUMBER: (int, float),
    Primitive.BOOLEAN: (bool,),
}


def build_rules(
    records: list[RuleRecord], fields: tuple[Field, ...], path: str, issues: Issues
) -> tuple[ArgumentRule, ...]:
    """The rules of one ``Args`` block; a rule with a problem is reported and left out."""
    by_name = {f.name: f for f in fields}
    out: list[ArgumentRule] = []
    seen: dict[ArgumentRule, RuleRecord] = {}
    for rec in records:
        rule = _rule(rec, by_name, path, issues)
        if rule is None:
            continue
        first = seen.get(rule)
        if first is not None:
            issues.add(
                f"{rule.dsl} repeats the rule on line {first.location.line}", rec.location, path
            )
            continue
        seen[rule] = rec
        out.append(rule)
    _contradictions(out, seen, path, issues)
    return tuple(out)


def injected_rules(shape: ObjectShape, injected: tuple[str, ...], issues: Issues) -> None:
    """A rule cannot test an injected argument: the model never sees it."""
    for rule in shape.rules:
        if rule.field is not None and rule.field in injected:
            issues.add(
                f"{rule.dsl} tests {rule.field!r}, which is injected: the model cannot see or set "
                "it, so it cannot keep the rule",
                shape.location,
                shape.path,
            )


def _rule(
    rec: RuleRecord, fields: dict[str, Field], path: str, issues: Issues
) -> ArgumentRule | None:
    call = _CALLS[rec.kind]
    ok = True

    def bad(message: str) -> None:
        nonlocal ok
        ok = False
        issues.add(f"{call}: {message}", rec.location, path)

    names = _names(rec.names, "requires" if rec.kind == "when" else "names", fields, bad)
    otherwise = _names(rec.otherwise, "otherwise", fields, bad) if rec.kind == "when" else ()
    if rec.kind != "when" and len(rec.names) < 2:
        bad("name at least two arguments (one alone would be Required)")
    if rec.kind == "when":
        if not names:
            bad("requires= names no argument")
        field = _condition(rec, fields, bad)
        both = sorted(set(names) & set(otherwise))
        if both:
            bad(
                f"{', '.join(repr(n) for n in both)} is in both requires= and otherwise=, so "
                "always required: make it Required instead"
            )
        if field is not None and field in (*names, *otherwise):
            bad(f"{field!r} is the argument the rule tests; it cannot also be one it requires")
    if not ok:
        return None
    kind: RuleKind = "when" if rec.kind == "when" else rec.kind  # type: ignore[assignment]
    if kind == "when":
        return ArgumentRule(kind, names, rec.field, rec.equals, otherwise)
    return ArgumentRule(kind, names)


def _names(
    given: tuple[Any, ...], what: str, fields: dict[str, Field], bad: Any
) -> tuple[str, ...]:
    out: list[str] = []
    for name in given:
        if not isinstance(name, str):
            bad(f"{what} are argument names, got {name!r}")
            continue
        if name in out:
            bad(f"{name!r} is named twice")
            continue
        f = fields.get(name)
        if f is None:
            known = ", ".join(fields) or "none"
            bad(
                f"no argument {name!r} in this Args block (arguments: {known})"
                + did_you_mean(name, fields)
            )
        elif f.required:
            bad(f"{name!r} is Required, so it is always given: a rule over it says nothing")
        elif f.has_default:
            bad(
                f"{name!r} has a default, so the handler never misses it: a rule over whether the "
                "model gave it would refuse calls the handler could serve; drop the default"
            )
        elif _takes_null(f.type):
            bad(
                f"{name!r} is {describe(f.type)}, which takes null: JSON Schema's required counts "
                "a null sent for it as given, the decoder (and the handler) as not given; a rule "
                "can name only arguments that take no null"
            )
        out.append(name)
    return tuple(out)


def _takes_null(t: TypeExpr) -> bool:
    """Whether null is a value of ``t`` (``Any``, an ``Any`` schema taking it, a union with
    such a variant)."""
    if isinstance(t, UnionType):
        return any(_takes_null(v) for v in t.variants)
    if not isinstance(t, PrimitiveType) or t.kind is not Primitive.ANY:
        return False
    if t.schema is None:
        return True
    schema = json.loads(t.schema)
    return accepts_null(schema, schema if isinstance(schema, dict) else {})


def _condition(rec: RuleRecord, fields: dict[str, Field], bad: Any) -> str | None:
    name, value = rec.field, rec.equals
    if not isinstance(name, str):
        bad(f"the argument it tests is a name, got {name!r}")
        return None
    f = fields.get(name)
    if f is None:
        bad(f"no argument {name!r} in this Args block" + did_you_mean(name, fields))
        return None
    t = f.type
    kinds = _SCALARS.get(t.kind) if isinstance(t, PrimitiveType) and t.schema is None else None
    if kinds is None:
        bad(f"{name!r} is {describe(t)}: a rule can test a String, Int, Float or Boolean argument")
        return name
    boolean = kinds == (bool,)
    if isinstance(value, bool) != boolean or not isinstance(value, kinds):
        bad(f"equals={value!r} is not a value of {name!r}, which is {describe(t)}")
        return name
    if isinstance(value, float) and not math.isfinite(value):
        # JSON has no NaN or Infinity: the schema could not say it, and no call could send it.
        bad(f"equals={value!r} is not a JSON number: test a finite value")
        return name
    enum = f.constraints.enum
    if enum is not None and not any(same_json(value, v) for v in enum):
        bad(f"equals={value!r} is not one of {name!r}'s values ({', '.join(map(repr, enum))})")
    if f.has_default and same_json(f.default, value):
        bad(
            f"{name!r} defaults to {value!r}, the value the rule tests: the schema reads a call "
            "that leaves it out as another value; test another value or drop the default"
        )
    return name


def _contradictions(
    rules: list[ArgumentRule], where: dict[ArgumentRule, RuleRecord], path: str, issues: Issues
) -> None:
    """Rules no call can keep together, or two rules where one would do."""
    whens: dict[tuple[str, Any], ArgumentRule] = {}
    for rule in rules:
        if rule.kind != "when":
            continue
        assert rule.field is not None
        key = (rule.field, _json_key(rule.equals))
        first = whens.get(key)
        if first is not None:
            issues.add(
                f"{rule.dsl} tests what {first.dsl} (line {where[first].location.line}) tests: "
                "say it in one rule",
                where[rule].location,
                path,
            )
        whens[key] = rule
        for one in (r for r in rules if r.kind == "exactly_one"):
            for branch in (rule.names, rule.otherwise):
                clash = [n for n in branch if n in one.names]
                if len(clash) > 1:
                    issues.add(
                        f"{rule.dsl} requires {' and '.join(clash)} together, but {one.dsl} "
                        f"(line {where[one].location.line}) allows only one of them",
                        where[rule].location,
                        path,
                    )


def _json_key(value: Any) -> Any:
    """``value`` as JSON compares it (:func:`same_json`): ``1`` and ``1.0`` are one value,
    ``true`` and ``1`` two."""
    if isinstance(value, bool):
        return (bool, value)
    if isinstance(value, float) and value.is_integer():
        return (int, int(value))
    return (type(value) if not isinstance(value, int) else int, value)
