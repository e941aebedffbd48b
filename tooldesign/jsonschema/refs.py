"""Local ``$ref``s: the one place they are followed, by one set of rules.

- A local reference is ``#`` (the whole document) or a JSON Pointer under it (``#/$defs/Site``,
  ``#/definitions/Site`` of older drafts, ``#/properties/site``, ``#/anyOf/0``). Each token is
  unescaped (``~1`` is ``/``, ``~0`` is ``~``, in that order), after the URI fragment's
  percent-escapes (``%25`` is ``%``); array indices are ``0`` or digits without a leading
  zero. Any other reference (another document, an anchor) points nowhere here.
- What a reference points to must be an object schema; a missing one, or a ``true``/``false``
  schema, is nowhere.
- Following goes through chains of references (a ``$ref`` to a ``$ref``) and stops where one
  points nowhere or where a reference comes round again: a circle is never followed twice.
  What is not followed is left as it was, its ``$ref`` in it, and :func:`follow` says why.
- Keywords beside a ``$ref`` (a field's description) are dropped by default: the target is
  the type. ``keep_siblings`` keeps them over the target's (they describe the field).

The name a reference gives its target is its last token (``#/$defs/Site`` → ``Site``);
references to definitions are written by :func:`def_ref` and read back by :func:`def_name`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import unquote

from tooldesign.jsonschema import keywords as K

_INDEX = re.compile(r"0|[1-9][0-9]*", re.ASCII)
_DEFS_PREFIX = f"#/{K.DEFS}/"

Broken = Literal["nowhere", "circle"]


def pointer_token(name: str) -> str:
    """``name`` as one JSON Pointer token: ``~`` → ``~0``, ``/`` → ``~1``."""
    return name.replace("~", "~0").replace("/", "~1")


def tokens(ref: str) -> list[str] | None:
    """The unescaped tokens of a local reference (``[]`` for ``#``); ``None`` if not local."""
    if ref == "#":
        return []
    if not ref.startswith("#/"):
        return None
    fragment = unquote(ref[1:]) if "%" in ref else ref[1:]
    return [t.replace("~1", "/").replace("~0", "~") for t in fragment[1:].split("/")]


def ref_target(root: Mapping[str, Any], ref: str) -> Mapping[str, Any] | None:
    """The object schema a local reference points to in ``root``; ``None`` if nowhere."""
    parts = tokens(ref)
    if parts is None:
        return None
    node: Any = root
    for token in parts:
        if isinstance(node, Mapping):
            if token not in node:
                return None
            node = node[token]
        elif isinstance(node, list) and _INDEX.fullmatch(token) and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node if isinstance(node, Mapping) else None


def ref_name(ref: str) -> str:
    """The name a ``$ref`` gives its target, its last token: ``#/$defs/Device`` → ``Device``."""
    parts = tokens(ref)
    if parts is None:
        return ref.rsplit("/", 1)[-1]
    return parts[-1] if parts else "#"


def def_ref(name: str) -> str:
    """The reference to the definition ``name`` in ``$defs``: ``#/$defs/Device`` (a ``%`` in
    it escaped, so that it reads back as itself)."""
    return _DEFS_PREFIX + pointer_token(name).replace("%", "%25")


def def_name(ref: Any) -> str | None:
    """The ``$defs`` entry ``ref`` names (``#/$defs/Device`` → ``Device``), or ``None`` when it
    is no reference to one definition (``#``, a pointer inside one, ``#/definitions/…``)."""
    if type(ref) is not str or not ref.startswith(_DEFS_PREFIX):
        return None
    parts = tokens(ref)
    return parts[1] if parts is not None and len(parts) == 2 else None


@dataclass(frozen=True, slots=True)
class Followed:
    """Where following a schema's references led."""

    schema: Mapping[str, Any]
    """The schema reached: the first without a ``$ref``, or the one whose ``$ref`` could not be
    followed (:attr:`broken` says why)."""
    pointer: str | None
    """Where :attr:`schema` is in the document, as a JSON Pointer (``""``: the root), when a
    reference was followed; ``None`` when none was."""
    ref: str | None
    """The last reference followed (the one that named :attr:`schema`), if any."""
    broken: Broken | None = None


def follow(
    schema: Mapping[str, Any], root: Mapping[str, Any], *, keep_siblings: bool = False
) -> Followed:
    """Follow ``schema``'s ``$ref`` in ``root``, through chains of references (see the module)."""
    seen: set[str] = set()
    pointer: str | None = None
    last: str | None = None
    while True:
        ref = schema.get(K.REF)
        if not isinstance(ref, str):
            return Followed(schema, pointer, last)
        if ref in seen:
            return Followed(schema, pointer, last, "circle")
        seen.add(ref)
        found = ref_target(root, ref)
        if found is None:
            return Followed(schema, pointer, last, "nowhere")
        if keep_siblings and len(schema) > 1:
            found = {**found, **{k: v for k, v in schema.items() if k != K.REF}}
        parts = tokens(ref) or []
        pointer = "".join(f"/{pointer_token(part)}" for part in parts)
        last, schema = ref, found


def resolve(
    schema: Mapping[str, Any], root: Mapping[str, Any], *, keep_siblings: bool = False
) -> Mapping[str, Any]:
    """``schema`` with its local ``$ref`` followed (see :func:`follow`); what cannot be followed
    is left with its ``$ref``."""
    if K.REF not in schema:
        return schema
    return follow(schema, root, keep_siblings=keep_siblings).schema


def inline_refs(schema: Any, root: Mapping[str, Any], _seen: tuple[str, ...] = ()) -> Any:
    """``schema`` with each local ``$ref`` replaced by what it points to (the keywords beside it
    kept over the target's) and its ``$defs`` left out: a schema that stands on its own.
    ``None`` when a reference points nowhere or comes round again (a recursive type)."""
    if isinstance(schema, list):
        items = [inline_refs(item, root, _seen) for item in schema]
        return (
            None
            if any(i is None and o is not None for i, o in zip(items, schema, strict=True))
            else items
        )
    if not isinstance(schema, Mapping):
        return schema
    ref = schema.get(K.REF)
    if isinstance(ref, str):
        found = ref_target(root, ref)
        if found is None or ref in _seen:
            return None
        merged = {**found, **{k: v for k, v in schema.items() if k != K.REF}}
        return inline_refs(merged, root, (*_seen, ref))
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == K.DEFS:
            continue
        inlined = inline_refs(value, root, _seen)
        if inlined is None and value is not None:
            return None
        out[key] = inlined
    return out
