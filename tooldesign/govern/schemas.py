"""Two versions of one schema, compared: every difference, and whom it breaks.

The comparison walks both schemas together (following local ``$ref``s, each pair of
definitions once, so recursive types end) and records each difference as *narrowing* (the new
schema rejects some value the old one accepted), *widening* (the new one accepts a value the
old one did not), both, or neither (annotations: descriptions, titles, defaults, examples).

What that means depends on who sends the values:

- ``input`` (a tool's arguments, sent by models): narrowing breaks models, widening is
  compatible. Each narrowing comes with a witness payload when one can be made (see
  :mod:`tooldesign.govern.witness`).
- ``output`` (results and server data, read by applications): widening breaks applications,
  narrowing is compatible — except that readers are expected to ignore what they do not know:
  a new result field and an object opened are compatible, while a field removed or made
  optional breaks them (they may rely on it being there).

Patterns and formats are compared as text: two different patterns are taken to accept
different strings (tooldesign does not compare regular expressions).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from jsonschema import Draft202012Validator
from tooldesign.govern.changes import ABSENT, Change, Impact, described
from tooldesign.govern.witness import (
    ANY_TYPE,
    ITEM,
    PROPERTY,
    VALUE,
    Leaf,
    NoSample,
    Step,
    find_witness,
    items_of,
    lower_bound,
    matches_pattern,
    number_in,
    numbers_in,
    sample,
    schema_types,
    upper_bound,
)
from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.refs import follow, pointer_token, ref_name
from tooldesign.jsonschema.text import FieldPath, shown
from tooldesign.jsonschema.words import quantity

Direction = Literal["input", "output"]

ANNOTATIONS = K.ANNOTATIONS
"""Keywords that never change what a schema accepts: what the model reads (prompt-only)."""

_NOT_COMPARED = frozenset({K.DEFS, K.DEFINITIONS, K.SCHEMA, K.ID, K.ANCHOR, K.REF})
_UNIONS = K.UNIONS
_LENGTHS = (K.MIN_LENGTH, K.MIN_ITEMS, K.MIN_PROPERTIES)  # each with its pair, the upper end
_HANDLED = frozenset(
    {
        K.TYPE,
        K.ENUM,
        K.CONST,
        *_UNIONS,
        K.PROPERTIES,
        K.REQUIRED,
        K.ADDITIONAL_PROPERTIES,
        K.ITEMS,
        K.MINIMUM,
        K.MAXIMUM,
        K.EXCLUSIVE_MINIMUM,
        K.EXCLUSIVE_MAXIMUM,
        K.MULTIPLE_OF,
        K.PATTERN,
        K.FORMAT,
        K.UNIQUE_ITEMS,
        *(key for low in _LENGTHS for key in (low, K.BY_NAME[low].pair)),
    }
)
_GUESSES: tuple[Any, ...] = (None, False, True, 0, 1, -1, 0.5, "", "a", "zz", [], {})
"""Values tried as witnesses where a keyword's meaning gives no better idea."""


@dataclass(frozen=True, slots=True)
class Place:
    """Where the walk is: a JSON Pointer (in the new entry), a field path, instance steps."""

    pointer: str
    field: str
    steps: tuple[Step, ...]

    def at(self, *tokens: str) -> str:
        return "".join([self.pointer, *(f"/{pointer_token(token)}" for token in tokens)])

    def property(self, pointer: str, name: str) -> Place:
        return Place(
            f"{pointer}/{K.PROPERTIES}/{pointer_token(name)}",
            FieldPath.prop(self.field, name),
            (*self.steps, (PROPERTY, name)),
        )

    def items(self, pointer: str) -> Place:
        return Place(f"{pointer}/{K.ITEMS}", FieldPath.items(self.field), (*self.steps, (ITEM,)))

    def values(self, pointer: str) -> Place:
        return Place(
            f"{pointer}/{K.ADDITIONAL_PROPERTIES}",
            FieldPath.values(self.field),
            (*self.steps, (VALUE,)),
        )


def compare_schemas(
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    *,
    pointer: str,
    direction: Direction,
    noun: str,
) -> list[Change]:
    """Every difference between ``old`` and ``new`` (two documents with their own ``$defs``).

    ``pointer`` locates the schema in the tool's catalog entry (``/payload/schema``); ``noun``
    names its top-level members in messages (``argument``, ``result field``).
    """
    if old == new:
        return []
    walk = _Walk(old, new, pointer, direction, noun)
    walk.compare(old, new, Place(pointer, "", ()))
    return walk.changes


class _Walk:
    def __init__(
        self,
        old_root: Mapping[str, Any],
        new_root: Mapping[str, Any],
        pointer: str,
        direction: Direction,
        noun: str,
    ) -> None:
        self.old_root, self.new_root = old_root, new_root
        self.base = pointer
        self.direction = direction
        self.noun = noun
        self.changes: list[Change] = []
        self.seen: set[tuple[int, int]] = set()
        # With the same definitions on both sides, two equal subschemas mean the same.
        self.same_defs = old_root.get(K.DEFS) == new_root.get(K.DEFS)

    # ── reporting ──────────────────────────────────────────────────────────────────────────

    def impact(self, narrows: bool, widens: bool) -> Impact:
        if self.direction == "input":
            return "models" if narrows else "compatible"
        return "applications" if widens else "compatible"

    def report(
        self,
        place: Place,
        kind: str,
        message: str,
        old: Any = ABSENT,
        new: Any = ABSENT,
        *,
        narrows: bool = False,
        widens: bool = False,
        impact: Impact | None = None,
        leaves: Sequence[Leaf] = (),
        keyword: str | None = None,
        witness_at: Place | None = None,
    ) -> None:
        """Record a change at ``place`` (its ``keyword``, if given). A change breaking models
        gets a witness built from ``leaves`` at ``place`` (or at ``witness_at``: the object, for
        a member that must now be given)."""
        chosen = impact or self.impact(narrows, widens)
        witness = ABSENT
        if chosen == "models" and leaves:
            steps = (witness_at or place).steps
            found = find_witness(self.old_root, self.new_root, steps, leaves)
            if found is not None:
                witness = found.payload
        self.changes.append(
            Change(
                impact=chosen,
                kind=kind,
                message=message,
                path=place.at(keyword) if keyword else place.pointer,
                field=place.field,
                old=old,
                new=new,
                witness=witness,
            )
        )

    def member(self, place: Place) -> str:
        """What the member at ``place`` is (``argument``, ``field``); reports show its name."""
        return self.noun if len(place.steps) == 1 else "field"

    # ── the walk ───────────────────────────────────────────────────────────────────────────

    def resolve(self, schema: Any, root: Mapping[str, Any], pointer: str) -> tuple[Any, str]:
        """``schema`` with its ``$ref`` followed, and where what it reached is in the entry."""
        if not isinstance(schema, Mapping) or K.REF not in schema:
            return schema, pointer
        followed = follow(schema, root)
        if followed.pointer is None:
            return schema, pointer
        return followed.schema, self.base + followed.pointer

    def compare(self, old: Any, new: Any, place: Place) -> None:
        if old == new and (self.same_defs or not _has_ref(old)):
            return
        if isinstance(old, Mapping) and isinstance(new, Mapping):
            self.annotations(old, new, place)
        old_node, _ = self.resolve(old, self.old_root, place.pointer)
        new_node, pointer = self.resolve(new, self.new_root, place.pointer)
        if old_node is not old or new_node is not new:
            # Each pair once, so recursive types end; every empty schema is one (made afresh or not).
            key = (id(old_node) if old_node else 0, id(new_node) if new_node else 0)
            if key in self.seen:
                return
            self.seen.add(key)
            place = Place(pointer, place.field, place.steps)
            if isinstance(old_node, Mapping) and isinstance(new_node, Mapping):
                self.annotations(old_node, new_node, place)
        old_node = _as_schema(old_node)
        new_node = _as_schema(new_node)
        if old_node is None or new_node is None:
            return
        if any(k in old_node for k in _UNIONS) or any(k in new_node for k in _UNIONS):
            self.union(old_node, new_node, place)
            return
        self.validation(old_node, new_node, place)

    def annotations(self, old: Mapping[str, Any], new: Mapping[str, Any], place: Place) -> None:
        for key in _ordered_keys(old, new):
            before, after = old.get(key, ABSENT), new.get(key, ABSENT)
            if (key in ANNOTATIONS or key.startswith("x-")) and before != after:
                # An argument's Mcp-Param-* header: HTTP clients that listed the tool before
                # send the old one (or none), and the server refuses their calls.
                header = key == K.X_MCP_HEADER
                refused = ": calls from clients that listed the old one are refused"
                said = f"{key} {described(before, after)}{refused if header else ''}"
                impact: Impact = "applications" if header else "prompt"
                self.report(
                    place, f"{key}_changed", said, before, after, impact=impact, keyword=key
                )

    def validation(self, old: Mapping[str, Any], new: Mapping[str, Any], place: Place) -> None:
        found = len(self.changes)
        if self.types(old, new, place):  # else the rest would only repeat the type change
            self.enums(old, new, place)
            self.numbers(old, new, place)
            for low in _LENGTHS:
                self.counts(old, new, place, low)
            self.texts(old, new, place)
            self.arrays(old, new, place)
            self.objects(old, new, place)
            self.others(old, new, place)
        self.settle(old, new, place, found)

    def settle(
        self, old: Mapping[str, Any], new: Mapping[str, Any], place: Place, found: int
    ) -> None:
        """Changes are judged keyword by keyword, which can call a redundant one narrowing
        (``minLength: 1`` on an enum of non-empty strings), or miss the witness of a real one
        (an enum of ``"x"`` and ``"y"`` replaced by ``minLength: 2``). Where the old schema
        takes a few values only, each is checked against the new one instead."""
        values = finite_values(old)
        if values is None or self.direction != "input":
            return
        suspect = [
            i
            for i in range(found, len(self.changes))
            if self.changes[i].impact == "models" and self.changes[i].witness is ABSENT
        ]
        if not suspect:
            return
        old_check, new_check = _node_validator(old), _node_validator(new)
        lost = [v for v in values if old_check.is_valid(v) and not new_check.is_valid(v)]
        witness = find_witness(
            self.old_root, self.new_root, place.steps, [_constant(v) for v in lost]
        )
        for i in suspect:
            change = self.changes[i]
            if witness is not None:
                self.changes[i] = dataclasses.replace(change, witness=witness.payload)
            elif not lost:
                self.changes[i] = dataclasses.replace(
                    change,
                    impact="compatible",
                    message=f"{change.message} (narrows nothing: every value taken before still is)",
                )

    # ── types and values ───────────────────────────────────────────────────────────────────

    def types(self, old: Mapping[str, Any], new: Mapping[str, Any], place: Place) -> bool:
        old_types, new_types = schema_types(old), schema_types(new)
        lost = sorted(t for t in old_types if not _covers(new_types, t))
        gained = sorted(t for t in new_types if not _covers(old_types, t))
        if lost or gained:
            self.report(
                place,
                "type_changed",
                f"type changed: {_types_text(old_types)} → {_types_text(new_types)}",
                old.get(K.TYPE, ABSENT),
                new.get(K.TYPE, ABSENT),
                narrows=bool(lost),
                widens=bool(gained),
                leaves=self.type_leaves(old, lost),
                keyword=K.TYPE,
            )
        return any(_covers(new_types, t) for t in old_types)

    def type_leaves(self, old: Mapping[str, Any], lost: list[str]) -> list[Leaf]:
        leaves: list[Leaf] = []
        for value in old.get(K.ENUM, []) if isinstance(old.get(K.ENUM), list) else []:
            leaves.append(_constant(value))
        for kind in lost:
            narrowed = {k: v for k, v in old.items() if k not in (K.ENUM, K.CONST, K.TYPE)}
            if kind == "number":  # integers may still pass: try fractions first
                leaves.extend(_constant(v) for v in _fractions(old))
            leaves.append(self.sampled({**narrowed, K.TYPE: kind}))
        return leaves

    def enums(self, old: Mapping[str, Any], new: Mapping[str, Any], place: Place) -> None:
        old_values, new_values = _enum(old), _enum(new)
        if old_values is None and new_values is None:
            return
        keyword = K.CONST if K.CONST in new or (K.CONST in old and K.ENUM not in new) else K.ENUM
        if old_values is not None and new_values is not None:
            old_keys, new_keys = {_key(v) for v in old_values}, {_key(v) for v in new_values}
            removed = [v for v in old_values if _key(v) not in new_keys]
            added = [v for v in new_values if _key(v) not in old_keys]
            if removed:
                self.report(
                    place,
                    "enum_value_removed",
                    f"{_plural(removed, 'value')} removed from the enum: {_listed(removed)}",
                    removed,
                    ABSENT,
                    narrows=True,
                    leaves=[_constant(v) for v in removed],
                    keyword=keyword,
                )
            if added:
                self.report(
                    place,
                    "enum_value_added",
                    f"{_plural(added, 'value')} added to the enum: {_listed(added)}",
                    ABSENT,
                    added,
                    widens=True,
                    keyword=keyword,
                )
        elif new_values is not None:
            self.report(
                place,
                "enum_added",
                f"now only {_listed(new_values)}",
                ABSENT,
                new_values,
                narrows=True,
                leaves=[self.sampled(old), *(_constant(v) for v in _GUESSES)],
                keyword=keyword,
            )
        else:
            self.report(
                place,
                "enum_removed",
                f"no longer limited to {_listed(old_values or [])}",
                old_values,
                ABSENT,
                widens=True,
                keyword=keyword,
            )

    def numbers(self, old: Mapping[str, Any], new: Mapping[str, Any], place: Place) -> None:
        for side, find, keys in (
            ("lower", lower_bound, (K.MINIMUM, K.EXCLUSIVE_MINIMUM)),
            ("upper", upper_bound, (K.MAXIMUM, K.EXCLUSIVE_MAXIMUM)),
        ):
            before, after = find(old), find(new)
            if before == after:
                continue
            sign = 1 if side == "lower" else -1
            narrows = _stricter(after, before, sign)
            widens = _stricter(before, after, sign)
            verb = "narrowed" if narrows else "widened"
            shown_old = {k: old[k] for k in keys if k in old} or ABSENT
            shown_new = {k: new[k] for k in keys if k in new} or ABSENT
            self.report(
                place,
                f"bound_{'narrowed' if narrows else 'widened'}",
                f"{side} bound {verb}: {_bound_text(before, sign)} → {_bound_text(after, sign)}",
                shown_old,
                shown_new,
                narrows=narrows,
                widens=widens,
                leaves=[_constant(v) for v in _near_bounds(old, before, after)],
                keyword=next((k for k in keys if k in new), keys[0] if keys[0] in old else keys[1]),
            )
        self.multiple_of(old, new, place)

    def multiple_of(self, old: Mapping[str, Any], new: Mapping[str, Any], place: Place) -> None:
        before, after = _fraction(old.get(K.MULTIPLE_OF)), _fraction(new.get(K.MULTIPLE_OF))
        if before == after:
            return
        if schema_types(old) == schema_types(new) == {"integer"}:
            # The integers that are multiples of p/q are those of p: integers step by 1 anyway.
            before = Fraction(before.numerator) if before else Fraction(1)
            after = Fraction(after.numerator) if after else Fraction(1)
        # Every multiple of `before` is a multiple of `after` exactly when after divides before.
        narrows = after is not None and (before is None or (before / after).denominator != 1)
        widens = before is not None and (after is None or (after / before).denominator != 1)
        if not (narrows or widens):
            return
        self.report(
            place,
            "bound_narrowed" if narrows else "bound_widened",
            f"multipleOf {described(old.get('multipleOf', ABSENT), new.get('multipleOf', ABSENT))}",
            old.get(K.MULTIPLE_OF, ABSENT),
            new.get(K.MULTIPLE_OF, ABSENT),
            narrows=narrows,
            widens=widens,
            leaves=[_constant(v) for v in _off_grid(old, before)],
            keyword=K.MULTIPLE_OF,
        )

    def counts(
        self,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        place: Place,
        low: str,
    ) -> None:
        for key in (low, K.BY_NAME[low].pair or low):
            sign = 1 if K.BY_NAME[key].narrows == "higher" else -1
            before, after = old.get(key), new.get(key)
            # A missing minimum is 0, a missing maximum is none.
            b = Fraction(before) if isinstance(before, int) else Fraction(0) if sign == 1 else None
            a = Fraction(after) if isinstance(after, int) else Fraction(0) if sign == 1 else None
            if a == b:
                continue
            narrows = _stricter(_closed(a), _closed(b), sign)
            widens = _stricter(_closed(b), _closed(a), sign)
            sizes = sorted({int(n) for n in _around(_closed(b), _closed(a)) if n >= 0})
            bound = f"{'minimum' if sign == 1 else 'maximum'} {quantity(key)}"
            self.report(
                place,
                f"bound_{'narrowed' if narrows else 'widened'}",
                f"{bound} {'narrowed' if narrows else 'widened'}: "
                f"{'none' if before is None else before} → {'none' if after is None else after}",
                before if before is not None else ABSENT,
                after if after is not None else ABSENT,
                narrows=narrows,
                widens=widens,
                leaves=[self.sized(key, n) for n in sizes],
                keyword=key,
            )

    def texts(self, old: Mapping[str, Any], new: Mapping[str, Any], place: Place) -> None:
        for key in (K.PATTERN, K.FORMAT):
            before, after = old.get(key, ABSENT), new.get(key, ABSENT)
            if before == after:
                continue
            self.report(
                place,
                f"{key}_changed",
                f"{key} {described(before, after)}",
                before,
                after,
                narrows=after is not ABSENT,
                widens=before is not ABSENT,
                leaves=[self.sampled(old), *(_constant(v) for v in _string_guesses(old, key))],
                keyword=key,
            )

    def arrays(self, old: Mapping[str, Any], new: Mapping[str, Any], place: Place) -> None:
        if old.get(K.UNIQUE_ITEMS, False) != new.get(K.UNIQUE_ITEMS, False):
            # An array of at most one item is unique anyway.
            single = isinstance(old.get(K.MAX_ITEMS), int) and old[K.MAX_ITEMS] <= 1
            narrows = bool(new.get(K.UNIQUE_ITEMS)) and not single
            self.report(
                place,
                "unique_items_changed",
                "items must now be unique" if narrows else "items need no longer be unique",
                old.get(K.UNIQUE_ITEMS, ABSENT),
                new.get(K.UNIQUE_ITEMS, ABSENT),
                narrows=narrows,
                widens=not narrows,
                leaves=[self.repeated(old)],
                keyword=K.UNIQUE_ITEMS,
            )
        if K.ITEMS in old or K.ITEMS in new:
            self.compare(old.get(K.ITEMS, {}), new.get(K.ITEMS, {}), place.items(place.pointer))

    def objects(self, old: Mapping[str, Any], new: Mapping[str, Any], place: Place) -> None:
        old_props = _mapping(old.get(K.PROPERTIES))
        new_props = _mapping(new.get(K.PROPERTIES))
        old_required = _names(old.get(K.REQUIRED))
        new_required = _names(new.get(K.REQUIRED))
        old_extra, new_extra = _extra(old), _extra(new)
        output = self.direction == "output"
        for name in _ordered_keys(new_props, old_props):
            child = place.property(place.pointer, name)
            if name in old_props and name in new_props:
                self.compare(old_props[name], new_props[name], child)
                if name in new_required and name not in old_required:
                    self.report(
                        child,
                        "property_made_required",
                        f"{self.member(child)} is now required",
                        narrows=True,
                        impact="compatible" if output else None,
                        leaves=[self.sampled_without(name)],
                        witness_at=place,
                    )
                elif name in old_required and name not in new_required:
                    self.report(
                        child,
                        "property_made_optional",
                        f"{self.member(child)} is now optional",
                        widens=True,
                        impact="applications" if output else None,
                    )
            elif name in old_props:
                if output or new_extra is False:
                    self.report(
                        child,
                        "property_removed",
                        f"{self.member(child)} removed",
                        old_props[name],
                        ABSENT,
                        narrows=True,
                        impact="applications" if output else None,
                        leaves=[self.sampled(old_props[name])],
                    )
                else:
                    self.report(
                        child,
                        "property_removed",
                        f"{self.member(child)} no longer declared (the object still takes any key)",
                        old_props[name],
                        ABSENT,
                        impact="compatible",
                    )
                    self.compare(old_props[name], new_extra, child)
            else:
                required = name in new_required
                if output or required or old_extra is False:
                    self.report(
                        child,
                        "property_added",
                        f"new {'required' if required else 'optional'} {self.member(child)}",
                        ABSENT,
                        new_props[name],
                        narrows=required,
                        widens=not required,
                        impact="compatible" if output else None,
                        leaves=[self.sampled_at()],
                        witness_at=place,
                    )
                else:
                    self.compare(old_extra, new_props[name], child)
        self.required_only(old_required - old_props.keys(), new_required - new_props.keys(), place)
        self.extra(old_extra, new_extra, old, place)

    def required_only(self, before: set[str], after: set[str], place: Place) -> None:
        """Required names that no property declares (an open object requiring a key)."""
        for name in sorted(after - before):
            self.report(
                place,
                "property_made_required",
                f"key {shown(name)} is now required",
                narrows=True,
                leaves=[self.sampled_at()],
                keyword=K.REQUIRED,
            )
        for name in sorted(before - after):
            self.report(
                place,
                "property_made_optional",
                f"key {shown(name)} is no longer required",
                widens=True,
                keyword=K.REQUIRED,
            )

    def extra(self, before: Any, after: Any, old: Mapping[str, Any], place: Place) -> None:
        output = self.direction == "output"
        if before is False and after is not False:
            self.report(
                place,
                "object_opened",
                "now takes keys it does not declare",
                False,
                after if after != {} else True,
                widens=True,
                impact="compatible" if output else None,
                keyword=K.ADDITIONAL_PROPERTIES,
            )
        elif before is not False and after is False:
            self.report(
                place,
                "object_closed",
                "no longer takes keys it does not declare",
                before if before != {} else True,
                False,
                narrows=True,
                impact="compatible" if output else None,
                leaves=[self.with_extra_key(old, before)],
                keyword=K.ADDITIONAL_PROPERTIES,
            )
        elif before is not False and after is not False and before != after:
            self.compare(before, after, place.values(place.pointer))

    def others(self, old: Mapping[str, Any], new: Mapping[str, Any], place: Place) -> None:
        for key in _ordered_keys(new, old):
            if key in _HANDLED or key in ANNOTATIONS or key in _NOT_COMPARED:
                continue
            if key.startswith("x-"):
                continue
            before, after = old.get(key, ABSENT), new.get(key, ABSENT)
            if before == after:
                continue
            self.report(
                place,
                "keyword_changed",
                f"{key} {described(before, after)}",
                before,
                after,
                narrows=after is not ABSENT,
                widens=before is not ABSENT,
                leaves=[self.sampled(old), *(_constant(v) for v in _GUESSES)],
                keyword=key,
            )

    # ── unions ─────────────────────────────────────────────────────────────────────────────

    def union(self, old: Mapping[str, Any], new: Mapping[str, Any], place: Place) -> None:
        old_variants, new_variants = _variants(old), _variants(new)
        keyword = next((k for k in _UNIONS if k in new), None)
        pairs, removed, added = _pair_variants(
            old_variants,
            new_variants,
            [self.kinds(v, self.old_root) for v in old_variants],
            [self.kinds(v, self.new_root) for v in new_variants],
        )
        for i, j in pairs:
            pointer = place.at(keyword, str(j)) if keyword else place.pointer
            self.compare(old_variants[i], new_variants[j], Place(pointer, place.field, place.steps))
        for i in removed:
            self.report(
                place,
                "variant_removed",
                f"no longer takes {_describe(old_variants[i])}",
                old_variants[i],
                ABSENT,
                narrows=True,
                leaves=[self.sampled(old_variants[i])],
                keyword=keyword,
            )
        for j in added:
            self.report(
                place,
                "variant_added",
                f"now also takes {_describe(new_variants[j])}",
                ABSENT,
                new_variants[j],
                widens=True,
                keyword=keyword,
            )
        # Keywords beside the variants (rare) are compared as keywords.
        self.others(_outside_union(old), _outside_union(new), place)

    def kinds(self, variant: Any, root: Mapping[str, Any]) -> frozenset[str]:
        """The JSON types a variant takes, its ``$ref`` followed."""
        node, _ = self.resolve(variant, root, self.base)
        return schema_types(node) if isinstance(node, Mapping) else ANY_TYPE

    # ── witness leaves ─────────────────────────────────────────────────────────────────────

    def sampled(self, schema: Any) -> Leaf:
        root = self.old_root
        return lambda node: sample(root, schema)

    def sampled_at(self) -> Leaf:
        root = self.old_root
        return lambda node: sample(root, node)

    def sampled_without(self, name: str) -> Leaf:
        root = self.old_root

        def leaf(node: Any) -> Any:
            value = sample(root, node)
            if isinstance(value, dict):
                value.pop(name, None)
            return value

        return leaf

    def sized(self, key: str, size: int) -> Leaf:
        root = self.old_root

        def leaf(node: Any) -> Any:
            counted = K.BY_NAME[key].types
            if "string" in counted:
                return _string_of(node, size)
            if "array" in counted:
                return items_of(root, node, size)
            raise NoSample

        return leaf

    def repeated(self, old: Mapping[str, Any]) -> Leaf:
        root = self.old_root

        def leaf(node: Any) -> Any:
            item = sample(root, old.get(K.ITEMS, {}))
            return [item, item]

        return leaf

    def with_extra_key(self, old: Mapping[str, Any], extra: Any) -> Leaf:
        root = self.old_root
        declared = set(_mapping(old.get(K.PROPERTIES))) | set(
            _mapping(self.new_root.get(K.PROPERTIES))
        )
        name = next(n for n in ("extra", "extra_key", "x_extra", "unknown") if n not in declared)

        def leaf(node: Any) -> Any:
            value = sample(root, node)
            if not isinstance(value, dict):
                raise NoSample
            value[name] = sample(root, extra) if isinstance(extra, Mapping) else None
            return value

        return leaf


def finite_values(schema: Mapping[str, Any]) -> list[Any] | None:
    """Every value ``schema`` can take, when they are few and easy to list; else ``None``."""
    if K.CONST in schema:
        return [schema[K.CONST]]
    if isinstance(schema.get(K.ENUM), list):
        return list(schema[K.ENUM])
    kinds = schema_types(schema)
    if kinds == {"boolean"}:
        return [False, True]
    if kinds == {"null"}:
        return [None]
    if kinds == {"string"} and schema.get(K.MAX_LENGTH) == 0:
        return [""]
    if kinds <= {"integer"}:
        low, high = lower_bound(schema), upper_bound(schema)
        if low is not None and high is not None and high[0] - low[0] <= 64:
            return list(range(math.ceil(low[0]), math.floor(high[0]) + 1))
    return None


def _node_validator(schema: Mapping[str, Any]) -> Draft202012Validator:
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


# ── helpers ────────────────────────────────────────────────────────────────────────────────


def _as_schema(value: Any) -> Mapping[str, Any] | None:
    if value is True:
        return {}
    if isinstance(value, Mapping):
        return value
    return None


def _has_ref(schema: Any) -> bool:
    if isinstance(schema, Mapping):
        return K.REF in schema or any(_has_ref(v) for v in schema.values())
    if isinstance(schema, list):
        return any(_has_ref(v) for v in schema)
    return False


def _ordered_keys(first: Mapping[str, Any], second: Mapping[str, Any]) -> list[str]:
    """The keys of ``first`` in its order, then those only ``second`` has, in its order."""
    return [*first, *(k for k in second if k not in first)]


def _covers(types: frozenset[str], kind: str) -> bool:
    return kind in types or (kind == "integer" and "number" in types)


def _types_text(types: frozenset[str]) -> str:
    if types == ANY_TYPE:
        return "any"
    return " or ".join(sorted(types))


def _enum(schema: Mapping[str, Any]) -> list[Any] | None:
    if K.CONST in schema:
        return [schema[K.CONST]]
    values = schema.get(K.ENUM)
    return list(values) if isinstance(values, list) else None


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _constant(value: Any) -> Leaf:
    return lambda node: value


def _listed(values: Sequence[Any]) -> str:
    shown_values = [shown(v) for v in values[:8]]
    if len(values) > 8:
        shown_values.append(f"… ({len(values) - 8} more)")
    return ", ".join(shown_values)


def _plural(values: Sequence[Any], word: str) -> str:
    return word if len(values) == 1 else f"{len(values)} {word}s"


def _stricter(a: tuple[Fraction, bool] | None, b: tuple[Fraction, bool] | None, sign: int) -> bool:
    """Whether bound ``a`` excludes some value bound ``b`` allows (``sign`` 1: lower bounds)."""
    if a is None:
        return False
    if b is None:
        return True
    if a[0] != b[0]:
        return (a[0] - b[0]) * sign > 0
    return a[1] and not b[1]


def _closed(value: Fraction | None) -> tuple[Fraction, bool] | None:
    return None if value is None else (value, False)


def _bound_text(bound: tuple[Fraction, bool] | None, sign: int) -> str:
    if bound is None:
        return "none"
    value, exclusive = bound
    operator = (">" if sign == 1 else "<") + ("" if exclusive else "=")
    return f"{operator} {_number(value)}"


def _number(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


def _fraction(value: Any) -> Fraction | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return Fraction(str(value))
    return None


def _around(*bounds: tuple[Fraction, bool] | None) -> list[int | float]:
    """Values at and next to each bound: where a narrowed bound has its witnesses."""
    found: list[int | float] = []
    for bound in bounds:
        if bound is None:
            continue
        for delta in (0, 1, -1, Fraction(1, 2), Fraction(-1, 2)):
            value = _number(bound[0] + delta)
            if value not in found:
                found.append(value)
    return found


def _near_bounds(
    old: Mapping[str, Any], *bounds: tuple[Fraction, bool] | None
) -> list[int | float]:
    """Numbers at and next to each bound, on the old ``multipleOf`` grid where it has one,
    then a few the old schema takes: where a narrowed bound has its witnesses."""
    unit = _fraction(old.get(K.MULTIPLE_OF))
    found = _around(*bounds)
    if unit is not None:
        for bound in bounds:
            if bound is not None:
                base = (bound[0] // unit) * unit
                found += [_number(base + unit * k) for k in (0, 1, -1, 2)]
    integer = "number" not in schema_types(old)
    return list(dict.fromkeys([*found, *numbers_in(old, integer=integer)]))


def _off_grid(old: Mapping[str, Any], unit: Fraction | None) -> list[int | float]:
    """Numbers the old schema takes, stepping by its ``multipleOf`` (or by halves and ones):
    where one that a new ``multipleOf`` refuses is found."""
    steps = (
        [unit * k for k in (1, 2, 3, 5, 7)]
        if unit
        else [Fraction(1, 2), Fraction(1, 4), Fraction(1), Fraction(3)]
    )
    found: list[int | float] = []
    for base in numbers_in(old, integer="number" not in schema_types(old))[:3]:
        for step in steps:
            for value in (Fraction(str(base)) + step, Fraction(str(base)) - step):
                number = _number(value)
                if number not in found:
                    found.append(number)
    return found


def _fractions(schema: Mapping[str, Any]) -> list[float]:
    """Non-integer numbers inside ``schema``'s bounds, for an ``integer`` that was a ``number``."""
    base = number_in({k: v for k, v in schema.items() if k != K.MULTIPLE_OF}, integer=False)
    start = Fraction(str(base)) if base is not None else Fraction(0)
    return [float(start + d) for d in (Fraction(1, 2), Fraction(-1, 2), Fraction(1, 4))]


def _string_of(node: Any, size: int) -> str:
    """A string of ``size`` characters that ``node``'s pattern accepts, if a simple one does."""
    pattern = node.get(K.PATTERN) if isinstance(node, Mapping) else None
    for char in ("a", "0", "A", "z", "-", "_"):
        text = char * size
        if not isinstance(pattern, str) or matches_pattern(pattern, text):
            return text
    return "a" * size


def _string_guesses(old: Mapping[str, Any], key: str) -> list[str]:
    low = old.get(K.MIN_LENGTH, 0)
    bases = ["a", "0", "A", "-", "x y", "not-a-" + str(old.get(key) or "value"), "z", "_", "."]
    return [base * max(1, -(-low // len(base))) for base in bases]


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _names(value: Any) -> set[str]:
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


def _extra(schema: Mapping[str, Any]) -> Any:
    """``additionalProperties`` as a schema (``{}`` when open), or ``False`` when closed."""
    value = schema.get(K.ADDITIONAL_PROPERTIES, True)
    if value is False:
        return False
    return value if isinstance(value, Mapping) else {}


def _variants(schema: Mapping[str, Any]) -> list[Any]:
    for key in _UNIONS:
        if isinstance(schema.get(key), list):
            return list(schema[key])
    return [{k: v for k, v in schema.items() if k not in ANNOTATIONS}]


def _outside_union(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    if any(key in schema for key in _UNIONS):
        return {k: v for k, v in schema.items() if k not in _UNIONS}
    return {}


def _tag(variant: Any) -> frozenset[tuple[str, str]]:
    """A variant's discriminator tags: properties that hold a single constant value."""
    tags: set[tuple[str, str]] = set()
    if isinstance(variant, Mapping):
        for name, body in _mapping(variant.get(K.PROPERTIES)).items():
            if isinstance(body, Mapping):
                values = _enum(body)
                if values is not None and len(values) == 1:
                    tags.add((name, _key(values[0])))
    return frozenset(tags)


def _pair_variants(
    old: list[Any], new: list[Any], old_kinds: list[frozenset[str]], new_kinds: list[frozenset[str]]
) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """Which old variant became which new one; the old ones left over, the new ones left over.

    Variants pair when equal, then when they share a discriminator tag, then when they take
    the same types, then when their types overlap (``integer`` within ``number``).
    """
    left, right = list(range(len(old))), list(range(len(new)))
    pairs: list[tuple[int, int]] = []
    matchers: tuple[Callable[[int, int], bool], ...] = (
        lambda i, j: old[i] == new[j],
        lambda i, j: bool(_tag(old[i]) & _tag(new[j])),
        lambda i, j: old_kinds[i] == new_kinds[j],
        lambda i, j: _overlap(old_kinds[i], new_kinds[j]),
    )
    for matches in matchers:
        for i in list(left):
            j = next((j for j in right if matches(i, j)), None)
            if j is not None:
                pairs.append((i, j))
                left.remove(i)
                right.remove(j)
    return sorted(pairs, key=lambda p: p[1]), left, right


def _overlap(a: frozenset[str], b: frozenset[str]) -> bool:
    return any(_covers(b, t) for t in a) or any(_covers(a, t) for t in b)


def _describe(schema: Any) -> str:
    if isinstance(schema, Mapping):
        if K.REF in schema:
            return ref_name(str(schema[K.REF]))
        tags = sorted(_tag(schema))
        if tags:
            return " ".join(f"{name}={value}" for name, value in tags)
        return _types_text(schema_types(schema))
    return shown(schema)
