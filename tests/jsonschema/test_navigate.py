"""Reading a schema: the schemas inside it, older drafts' forms, and the navigator's walk."""

from __future__ import annotations

from typing import Any

from tooldesign.jsonschema.navigate import SchemaNavigator, modernized, subschemas

DEVICE = {"type": "object", "title": "Device", "properties": {"id": {"type": "string"}}}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "devices": {"type": "array", "items": {"$ref": "#/$defs/Device"}},
        "labels": {"type": "object", "additionalProperties": {"type": "integer"}},
        "target": {
            "oneOf": [{"$ref": "#/$defs/Device"}, {"$ref": "#/$defs/Site"}],
            "discriminator": {"propertyName": "kind"},
        },
    },
    "$defs": {
        "Device": {**DEVICE, "properties": {**DEVICE["properties"], "kind": {"const": "device"}}},
        "Site": {"type": "object", "properties": {"kind": {"enum": ["site"]}}},
    },
}


def test_subschemas_are_the_values_of_the_keywords_that_hold_schemas() -> None:
    schema = {
        "items": [{"type": "string"}, {"type": "integer"}],  # an older draft's tuple
        "not": {"type": "null"},
        "anyOf": [{"minimum": 1}],
        "properties": {"a": {"type": "boolean"}},
        "enum": [{"type": "data"}],
        "default": {"type": "data"},
    }
    assert list(subschemas(schema)) == [
        {"type": "string"},
        {"type": "integer"},
        {"type": "null"},
        {"minimum": 1},
        {"type": "boolean"},
    ]


def test_older_drafts_bounds_are_read_as_2020_12_says_them() -> None:
    old = {
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 0, "exclusiveMinimum": True}},
        "definitions": {"M": {"maximum": 9, "exclusiveMaximum": False}},
    }
    assert modernized(old) == {
        "type": "object",
        "properties": {"n": {"type": "integer", "exclusiveMinimum": 0}},
        "definitions": {"M": {"maximum": 9}},
    }


def test_the_navigator_walks_to_a_field() -> None:
    nav = SchemaNavigator(SCHEMA)
    devices = nav.child(nav.root or {}, "devices")
    assert devices is not None
    item = nav.resolve(nav.child(devices, 0))
    assert item is not None and nav.resolve(nav.child(item, "id")) == {"type": "string"}
    labels = nav.child(nav.root or {}, "labels")
    assert labels is not None and nav.child(labels, "any key") == {"type": "integer"}
    target = nav.child(nav.root or {}, "target")
    assert target is not None
    site = nav.tagged_variant(target, "site")
    assert site is not None and site["properties"]["kind"] == {"enum": ["site"]}
    assert nav.describe_type(devices) == "array of object (Device)"
