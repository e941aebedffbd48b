"""How deep a design's types nest, bounded before anything walks them.

A chain of types each holding the next (``T0`` › ``T1`` › … › ``T199``) nests its arguments or
results as deep as the chain is long. No model could send such arguments (the runtime reads
at most 200 levels, providers far fewer), and the code that writes schemas and models for them
walks them recursively: past :data:`MAX_NESTING` levels, the design is refused by name instead.
A type that contains itself is fine: it nests as deep as each value does, not as the design.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from tooldesign.ir.errors import Issues
from tooldesign.ir.model import (
    ArrayType,
    Design,
    MapType,
    NamedType,
    ObjectShape,
    ObjectType,
    TypeExpr,
    UnionType,
    UserType,
)
from tooldesign.ir.walk import messages, named_types

MAX_NESTING = 64
"""Levels of objects, arrays and maps a tool's arguments or result may nest in its design."""


def check_types(types: Mapping[str, UserType], issues: Issues) -> bool:
    """Report where a chain of named types gets past :data:`MAX_NESTING` (each type that nests
    too deep while the types it holds do not); whether every type is within it. Checked as
    soon as the types are built: past it, nothing may walk them."""
    depths = _Depths(types)
    too_deep = {name for name in types if len(depths.chain(NamedType(name))) > MAX_NESTING}
    for name in too_deep:
        if any(inner in too_deep for inner in _held(types[name].shape)):
            continue  # a longer chain: reported where it gets too deep
        chain = depths.chain(NamedType(name))
        shown = " › ".join([*chain[:3], "…", *chain[-2:]])
        user_type = types[name]
        issues.add(
            f"type {name!r} nests more than {MAX_NESTING} levels deep ({shown}); a design's "
            f"types may nest at most {MAX_NESTING} levels",
            user_type.location,
            user_type.path,
        )
    return not too_deep


def _held(shape: ObjectShape) -> Iterator[str]:
    """The named types a shape's fields hold, inline shapes' included."""
    for f in shape.fields:
        yield from named_types(f.type)


def check_tools(design: Design, issues: Issues) -> bool:
    """Report each tool whose arguments or result nest past :data:`MAX_NESTING`; whether the
    design is within it (when it is not, nothing else should walk its types)."""
    depths = _Depths(design.types)
    within = True
    for tool in design.tools():
        for message in messages(tool):
            chain = depths.chain(message.type)
            if len(chain) > MAX_NESTING:
                within = False
                shown = " › ".join([*chain[:3], "…", *chain[-2:]])
                what = (
                    "arguments"
                    if message is tool.payload
                    else "result"
                    if message is tool.result
                    else "server data"
                )
                issues.add(
                    f"its {what} nest more than {MAX_NESTING} levels deep ({shown}); a design's "
                    f"types may nest at most {MAX_NESTING} levels",
                    tool.location,
                    tool.path,
                )
    return within


class _Depths:
    """The longest chain of nested levels below each type, each named type's worked out once.

    The walk never goes deeper than one level past the limit: past it, a chain only has to
    show that the limit is passed (and is not remembered, being cut short)."""

    def __init__(self, types: Mapping[str, UserType]) -> None:
        self.types = types
        self.named: dict[str, tuple[str, ...]] = {}
        self.visiting: set[str] = set()

    def chain(self, t: TypeExpr, room: int = MAX_NESTING + 1) -> tuple[str, ...]:
        """The deepest path of levels below ``t``, at most ``room`` long."""
        if room <= 0:
            return ()
        match t:
            case ArrayType(items=items):
                return ("[]", *self.chain(items, room - 1))
            case MapType(values=values):
                return ("{}", *self.chain(values, room - 1))
            case ObjectType(shape=shape):
                below = max(
                    (self.chain(f.type, room - 1) for f in shape.fields), key=len, default=()
                )
                return (shape.name_hint or "object", *below)
            case NamedType(name=name):
                return self._named(name, room)
            case UnionType(variants=variants):
                return max((self.chain(v, room) for v in variants), key=len, default=())
        return ()  # a primitive

    def _named(self, name: str, room: int) -> tuple[str, ...]:
        known = self.named.get(name)
        if known is not None:
            return known[:room]
        if name in self.visiting or name not in self.types:  # recursion nests by value only
            return ()
        self.visiting.add(name)
        try:
            shape = self.types[name].shape
            below = max((self.chain(f.type, room - 1) for f in shape.fields), key=len, default=())
        finally:
            self.visiting.discard(name)
        found = (name, *below)
        if len(found) < room:  # complete, not cut short by the room left
            self.named[name] = found
        return found
