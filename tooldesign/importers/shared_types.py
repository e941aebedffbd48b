"""Named types from several sources in one design: the same type shared, a different one renamed.

An importer meets the same model more than once: every tool of an MCP server repeats its models
in its own ``$defs``, and several Python files may each define a ``Customer``. Two types are the
same when they have the same origin (the name their source gave them) and the same content,
where references to other types are compared the same way, recursively: a recursive ``Node``
and another ``Node`` whose ``children`` refer to itself are the same type although each refers
to its own name (:func:`same_type` assumes a pair equal while it compares it, which is what
makes cycles work).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from tooldesign.importers.draft import (
    ArrayOf,
    DraftAttribute,
    DraftNamedType,
    DraftResult,
    DraftTool,
    DraftType,
    InlineObject,
    MapOf,
    Named,
    OneOf,
)

Types = Mapping[str, DraftNamedType | None]


class _Comparison:
    """Compares types of two namespaces (possibly one), pairing references by origin."""

    def __init__(self, left: Types, right: Types, same_origin: Callable[[str, str], bool]) -> None:
        self.left = left
        self.right = right
        self.same_origin = same_origin
        self.assumed: set[tuple[str, str]] = set()

    def named(self, a: str, b: str) -> bool:
        if (a, b) in self.assumed:
            return True  # compared further up: a cycle agrees if everything else does
        first, second = self.left.get(a), self.right.get(b)
        if first is None or second is None:
            return a == b and first is second
        if not self.same_origin(a, b):
            return False
        self.assumed.add((a, b))
        same = (
            first.description == second.description
            and first.examples == second.examples
            and self.attributes(first.attributes, second.attributes)
        )
        if not same:
            self.assumed.discard((a, b))
        return same

    def attributes(
        self, first: tuple[DraftAttribute, ...], second: tuple[DraftAttribute, ...]
    ) -> bool:
        return len(first) == len(second) and all(
            (a.name, a.description, a.required, a.options)
            == (b.name, b.description, b.required, b.options)
            and self.type(a.type, b.type)
            for a, b in zip(first, second, strict=True)
        )

    def type(self, a: DraftType, b: DraftType) -> bool:
        match a, b:
            case Named(name=x), Named(name=y):
                return self.named(x, y)
            case ArrayOf(), ArrayOf():
                return (a.min_items, a.max_items) == (b.min_items, b.max_items) and self.type(
                    a.items, b.items
                )
            case MapOf(), MapOf():
                return self.type(a.values, b.values)
            case InlineObject(), InlineObject():
                return self.attributes(a.attributes, b.attributes)
            case OneOf(), OneOf():
                return (
                    a.discriminator == b.discriminator
                    and len(a.variants) == len(b.variants)
                    and all(self.type(x, y) for x, y in zip(a.variants, b.variants, strict=True))
                )
        return a == b


def same_type(
    a: str,
    b: str,
    left: Types,
    right: Types,
    same_origin: Callable[[str, str], bool],
) -> bool:
    """Whether type ``a`` of ``left`` is type ``b`` of ``right`` (both may be one mapping)."""
    return _Comparison(left, right, same_origin).named(a, b)


# ── renaming references ──────────────────────────────────────────────────────────────────


def renamed_type(t: DraftType, renamed: Mapping[str, str]) -> DraftType:
    """``t`` with its references to types renamed (``renamed``: old name → new name)."""
    match t:
        case Named(name=name):
            return Named(renamed.get(name, name))
        case ArrayOf(items=items):
            return replace(t, items=renamed_type(items, renamed))
        case MapOf(values=values):
            return MapOf(renamed_type(values, renamed))
        case InlineObject(attributes=attributes):
            return InlineObject(renamed_attributes(attributes, renamed))
        case OneOf(variants=variants):
            return replace(t, variants=tuple(renamed_type(v, renamed) for v in variants))
    return t


def renamed_attributes(
    attributes: tuple[DraftAttribute, ...], renamed: Mapping[str, str]
) -> tuple[DraftAttribute, ...]:
    return tuple(replace(a, type=renamed_type(a.type, renamed)) for a in attributes)


def renamed_named_type(named: DraftNamedType, renamed: Mapping[str, str]) -> DraftNamedType:
    """``named`` under its new name (if it has one), referring to the others by theirs."""
    return replace(
        named,
        name=renamed.get(named.name, named.name),
        attributes=renamed_attributes(named.attributes, renamed),
    )


def renamed_tool(tool: DraftTool, renamed: Mapping[str, str]) -> DraftTool:
    if not renamed:
        return tool
    result = tool.result
    if result is not None:
        result = DraftResult(
            None if result.type is None else renamed_type(result.type, renamed),
            result.description,
            renamed_attributes(result.attributes, renamed),
        )
    return replace(
        tool,
        args=renamed_attributes(tool.args, renamed),
        args_type=None if tool.args_type is None else renamed_type(tool.args_type, renamed),
        result=result,
    )
