"""Reading a schema: its types, its unions, the schemas inside it, and one navigator that walks
it field by field.

:class:`SchemaNavigator` follows a field path (``devices[0].id``) through ``properties``,
``items``, ``additionalProperties`` and the variants of discriminated unions, ``$ref``s
followed (:mod:`~tooldesign.jsonschema.refs`), and names the types it meets. None of it mutates
what it reads: schemas are shared, read-only values.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.refs import ref_name, ref_target, resolve
from tooldesign.jsonschema.text import shown

MAPS = (dict, Mapping)
"""For ``isinstance``: a JSON object. ``dict`` first, the fast check for what JSON parses to."""

_HOLDS_SCHEMA = tuple(sorted(K.holding("schema")))
_HOLDS_SCHEMAS = tuple(sorted(K.holding("schemas")))
_HOLDS_NAMED = tuple(sorted(K.holding("named")))


def type_list(schema: Mapping[str, Any]) -> list[str]:
    """The schema's ``type`` as a list (empty when it has none)."""
    value = schema.get(K.TYPE)
    if type(value) is str:
        return [value]
    if isinstance(value, list):
        return [t for t in value if isinstance(t, str)]
    return []


def subschemas(schema: Mapping[str, Any]) -> Iterator[Any]:
    """The schemas directly inside ``schema``: the values of the keywords that hold schemas
    (never the data of ``enum``, ``default``…). An ``items`` of older drafts that lists
    schemas gives each of them."""
    for key in _HOLDS_SCHEMA:
        if key in schema:
            value = schema[key]
            if isinstance(value, list):
                yield from value
            else:
                yield value
    for key in _HOLDS_SCHEMAS:
        value = schema.get(key)
        if isinstance(value, list):
            yield from value
    for key in _HOLDS_NAMED:
        value = schema.get(key)
        if isinstance(value, MAPS):
            yield from value.values()


def modernized(schema: Any) -> Any:
    """``schema`` in the dialect designs use (2020-12), from older drafts' forms (a new object).

    Draft 4 says ``"minimum": 0, "exclusiveMinimum": true`` where later drafts say
    ``"exclusiveMinimum": 0``; a ``false`` flag (or one with no bound) says nothing.
    """
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _HOLDS_SCHEMA or key in _HOLDS_SCHEMAS:  # (an older "items" may be a list)
            out[key] = (
                [modernized(v) for v in value] if isinstance(value, list) else modernized(value)
            )
        elif key in _HOLDS_NAMED and isinstance(value, Mapping):
            out[key] = {name: modernized(v) for name, v in value.items()}
        else:
            out[key] = value
    for flag, bound in ((K.EXCLUSIVE_MINIMUM, K.MINIMUM), (K.EXCLUSIVE_MAXIMUM, K.MAXIMUM)):
        if isinstance(out.get(flag), bool) and out.pop(flag) and bound in out:
            out[flag] = out.pop(bound)
    return out


def merge_single_all_of(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """``{"allOf": [X], …}`` as ``X`` with the other keywords over it; any other schema as is.

    An ``allOf`` of one schema is how JSON Schema generators put a description beside a
    ``$ref``; dialects without ``allOf`` take the merged form.
    """
    all_of = schema.get(K.ALL_OF)
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], MAPS):
        return {**all_of[0], **{k: v for k, v in schema.items() if k != K.ALL_OF}}
    return schema


def accepts_null(schema: Any, root: Mapping[str, Any], _seen: frozenset[str] = frozenset()) -> bool:
    """Whether ``null`` is a valid instance of ``schema`` (as far as a tool schema can say)."""
    if schema is True:
        return True
    if not isinstance(schema, MAPS):
        return False
    ref = schema.get(K.REF)
    if isinstance(ref, str):
        if ref in _seen:
            return False
        found = ref_target(root, ref)
        if found is None or not accepts_null(found, root, _seen | {ref}):
            return False
    if K.TYPE in schema and "null" not in type_list(schema):
        return False
    if K.ENUM in schema and None not in (schema[K.ENUM] or ()):
        return False
    if K.CONST in schema and schema[K.CONST] is not None:
        return False
    for key in K.UNIONS:
        variants = schema.get(key)
        if isinstance(variants, list) and not any(accepts_null(v, root, _seen) for v in variants):
            return False
    all_of = schema.get(K.ALL_OF)
    return not isinstance(all_of, list) or all(accepts_null(v, root, _seen) for v in all_of)


def alternatives(schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The ``anyOf`` and ``oneOf`` alternatives of ``schema``, as written (``$ref``s kept)."""
    if K.ANY_OF not in schema and K.ONE_OF not in schema:
        return []  # most nodes: asked of each node on the way to every issue
    return [
        variant
        for key in K.UNIONS
        for variant in schema.get(key) or ()
        if isinstance(variant, MAPS)
    ]


def variants(schema: Mapping[str, Any], root: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The ``anyOf``/``oneOf`` alternatives of ``schema``, refs followed."""
    return [resolve(merge_single_all_of(variant), root) for variant in alternatives(schema)]


def object_schema(
    value: Mapping[str, Any], schema: Mapping[str, Any], root: Mapping[str, Any]
) -> Mapping[str, Any] | None:
    """The object schema ``value`` is an instance of: ``schema`` itself, or one of its variants.

    Among a union's object variants: those whose required fields the value has and whose
    fixed values (a discriminator tag, a one-value enum) it matches; of those, the one that
    declares most of its keys. ``None`` when no variant fits.
    """
    if K.PROPERTIES in schema or K.ADDITIONAL_PROPERTIES in schema:
        return schema
    candidates = [v for v in variants(schema, root) if isinstance(v.get(K.PROPERTIES), MAPS)]
    tag = discriminator_tag(schema)
    fitting = [v for v in candidates if _fits(value, v, root, tag)]
    if not fitting:
        return None
    return max(fitting, key=lambda v: len(set(value) & set(v[K.PROPERTIES])))


def discriminator_tag(schema: Mapping[str, Any]) -> Any:
    """The tag field a union's ``discriminator`` names (``None`` when it has none)."""
    discriminator = schema.get(K.DISCRIMINATOR)
    return discriminator.get(K.DISCRIMINATOR_PROPERTY) if isinstance(discriminator, MAPS) else None


def fixed_values(schema: Mapping[str, Any]) -> list[Any]:
    """The values ``schema``'s ``enum`` or ``const`` fixes (``[]`` when it fixes none)."""
    listed = schema.get(K.ENUM)
    if listed:
        return list(listed)
    return [schema[K.CONST]] if K.CONST in schema else []


def _fits(
    value: Mapping[str, Any], variant: Mapping[str, Any], root: Mapping[str, Any], tag: str | None
) -> bool:
    """Whether ``value`` has the variant's required fields and the values it fixes."""
    required = variant.get(K.REQUIRED)
    if isinstance(required, list) and any(name not in value for name in required):
        return False
    for name, field_schema in variant[K.PROPERTIES].items():
        if not isinstance(field_schema, MAPS):
            continue
        fixed = fixed_values(resolve(merge_single_all_of(field_schema), root))
        given = name in value or name == tag  # the tag must be there; another fixed field may not
        if len(fixed) == 1 and given and value.get(name) != fixed[0]:
            return False
    return True


class SchemaNavigator:
    """Walks one JSON Schema field by field, ``$ref``s followed, and names its types.

    ``extra_properties`` are top-level fields the schema leaves out (injected fields, hidden
    from the model): their types name what is missing, but they are never listed as fields the
    caller may send.
    """

    def __init__(
        self,
        schema: Mapping[str, Any],
        *,
        extra_properties: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        self.schema = schema
        self._extra = extra_properties or {}
        self.root = self.resolve(schema)

    def resolve(self, node: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        """``node`` with its ``$ref`` followed, the keywords beside it kept (see
        :func:`~tooldesign.jsonschema.refs.resolve`)."""
        if node is None or K.REF not in node:
            return node
        return resolve(node, self.schema, keep_siblings=True)

    def variants(self, node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        """A union's variants as written (``$ref``s kept, for their names), ``null`` left out."""
        return [v for v in alternatives(node) if (self.resolve(v) or {}).get(K.TYPE) != "null"]

    def child(self, node: Mapping[str, Any], part: int | str) -> Mapping[str, Any] | None:
        """The schema of ``node``'s item (an index) or field (a key), as written."""
        if isinstance(part, int) or node.get(K.TYPE) == "array":
            items = node.get(K.ITEMS)
            return items if isinstance(items, MAPS) else None
        properties = node.get(K.PROPERTIES)
        if isinstance(properties, MAPS) and part in properties:
            child = properties[part]
            return child if isinstance(child, MAPS) else None
        if node is self.root and part in self._extra:
            return self._extra[part]
        extra = node.get(K.ADDITIONAL_PROPERTIES)
        return extra if isinstance(extra, MAPS) else None

    def tagged_variant(self, node: Mapping[str, Any], tag: int | str) -> Mapping[str, Any] | None:
        """The variant of a discriminated union whose tag field takes ``tag``, resolved."""
        if not isinstance(node.get(K.DISCRIMINATOR), MAPS):
            return None
        prop = discriminator_tag(node)
        for raw in self.variants(node):
            variant = self.resolve(raw)
            if variant is None:
                continue
            tag_schema = self.resolve((variant.get(K.PROPERTIES) or {}).get(prop))
            if tag_schema is not None and tag in fixed_values(tag_schema):
                return variant
        return None

    def describe_type(self, node: Mapping[str, Any] | None) -> str:
        """What a value of ``node`` is, in a few words: ``array of object (Device)``."""
        name = type_name(node)
        node = self.resolve(node)
        if not node:
            return "any value"
        union = alternatives(node)
        if union:
            return " or ".join(self.describe_type(v) for v in union)
        kind = node.get(K.TYPE)
        if isinstance(kind, list):
            return " or ".join(str(k) for k in kind)
        if kind == "array":
            return f"array of {self.describe_type(node.get(K.ITEMS))}"
        if kind == "object" and (node.get(K.TITLE) or name):
            return f"object ({node.get(K.TITLE) or name})"
        if kind is None and K.ENUM in node:
            return "one of " + ", ".join(shown(v) for v in node[K.ENUM])
        return str(kind) if kind else "any value"


def type_name(node: Mapping[str, Any] | None) -> str | None:
    """The design's name of a type: its title, or the ``$defs`` entry a ``$ref`` points to."""
    if not node:
        return None
    title = node.get(K.TITLE)
    if isinstance(title, str):
        return title
    ref = node.get(K.REF)
    return ref_name(ref) if isinstance(ref, str) else None


def description(node: Mapping[str, Any] | None) -> str | None:
    """The design's description of a field, if its schema has one."""
    if not node:
        return None
    text = node.get(K.DESCRIPTION)
    return text if isinstance(text, str) else None


def field_examples(node: Mapping[str, Any] | None) -> tuple[Any, ...] | None:
    """The field's own examples from the design (``examples``), if it has any."""
    examples = node.get(K.EXAMPLES) if node else None
    return tuple(examples) if isinstance(examples, list) and examples else None
