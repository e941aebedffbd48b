"""The one ``$ref`` resolver: its rules at their edges."""

from __future__ import annotations

from typing import Any

import pytest
from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.refs import (
    def_name,
    def_ref,
    follow,
    inline_refs,
    pointer_token,
    ref_name,
    ref_target,
    resolve,
)

SITE = {"type": "object", "properties": {"id": {"type": "string"}}, "description": "A site"}
ROOT: dict[str, Any] = {
    "type": "object",
    "properties": {"site": {"$ref": "#/$defs/Site", "description": "Where"}},
    "anyOf": [{"type": "object"}, {"type": "null"}],
    "$defs": {
        "Site": SITE,
        "Alias": {"$ref": "#/$defs/Site"},
        "Ping": {"$ref": "#/$defs/Pong"},
        "Pong": {"$ref": "#/$defs/Ping"},
        "Gone": {"$ref": "#/$defs/Nowhere"},
        "a/b": {"type": "string", "title": "slash"},
        "a~b": {"type": "string", "title": "tilde"},
        "~1": {"type": "string", "title": "tilde one"},
        "a b": {"type": "string", "title": "space"},
        "Anything": True,
    },
    "definitions": {"Old": {"type": "integer"}},
}


@pytest.mark.parametrize(
    ("ref", "title"),
    [
        ("#/$defs/a~1b", "slash"),
        ("#/$defs/a~0b", "tilde"),
        ("#/$defs/~01", "tilde one"),  # ~0 is unescaped after ~1: "~01" is "~1", not "/"
        ("#/$defs/a%20b", "space"),  # a URI fragment's percent-escapes come off first
    ],
)
def test_pointer_escapes(ref: str, title: str) -> None:
    found = ref_target(ROOT, ref)
    assert found is not None and found["title"] == title


def test_the_root_definitions_of_older_drafts_and_any_pointer() -> None:
    assert ref_target(ROOT, "#") is ROOT
    assert ref_target(ROOT, "#/$defs/Site") is SITE
    assert ref_target(ROOT, "#/definitions/Old") == {"type": "integer"}
    assert ref_target(ROOT, "#/properties/site") == {"$ref": "#/$defs/Site", "description": "Where"}
    assert ref_target(ROOT, "#/anyOf/1") == {"type": "null"}


@pytest.mark.parametrize(
    "ref",
    [
        "#/$defs/Nowhere",  # missing
        "#/anyOf/2",  # past the end
        "#/anyOf/01",  # an index with a leading zero is no index
        "#/anyOf/-1",
        "#/anyOf/²",  # a digit, but not an ASCII one
        "#/$defs/Anything",  # a true schema: no object to read
        "#/type",  # a string
        "other.json#/$defs/Site",  # another document
        "#site",  # an anchor
        "",
    ],
)
def test_what_points_nowhere(ref: str) -> None:
    assert ref_target(ROOT, ref) is None


def test_a_chain_is_followed_to_its_end() -> None:
    followed = follow({"$ref": "#/$defs/Alias"}, ROOT)
    assert followed.schema is SITE
    assert (followed.pointer, followed.ref, followed.broken) == (
        "/$defs/Site",
        "#/$defs/Site",
        None,
    )


def test_a_circle_is_never_followed_twice() -> None:
    followed = follow({"$ref": "#/$defs/Ping"}, ROOT)
    assert followed.broken == "circle"
    assert K.REF in followed.schema  # left as it was, its $ref in it
    assert K.REF in resolve({"$ref": "#/$defs/Ping"}, ROOT)
    assert follow({"$ref": "#"}, {"$ref": "#"}).broken == "circle"


def test_a_reference_to_nowhere_is_left_as_written() -> None:
    schema = {"$ref": "#/$defs/Nowhere", "description": "d"}
    followed = follow(schema, ROOT)
    assert followed.schema is schema
    assert (followed.pointer, followed.ref, followed.broken) == (None, None, "nowhere")
    # Part of a chain followed: where it stopped, and why.
    followed = follow({"$ref": "#/$defs/Gone"}, ROOT)
    assert followed.schema == {"$ref": "#/$defs/Nowhere"}
    assert (followed.pointer, followed.broken) == ("/$defs/Gone", "nowhere")


def test_keywords_beside_a_reference() -> None:
    field = ROOT["properties"]["site"]
    assert resolve(field, ROOT) is SITE  # the target is the type
    kept = resolve(field, ROOT, keep_siblings=True)
    assert kept["description"] == "Where"  # the field's own words win
    assert kept["properties"] == SITE["properties"]


def test_a_schema_without_a_reference_is_itself() -> None:
    assert resolve(SITE, ROOT) is SITE
    followed = follow(SITE, ROOT)
    assert (followed.schema, followed.pointer, followed.ref) == (SITE, None, None)


def test_the_root_is_the_empty_pointer() -> None:
    assert follow({"$ref": "#"}, ROOT).pointer == ""


@pytest.mark.parametrize("name", ["Device", "a/b", "a~b", "~1", "", "ünï", "100%", "a%41"])
def test_definition_references_round_trip(name: str) -> None:
    assert def_name(def_ref(name)) == name
    assert ref_name(def_ref(name)) == name


def test_names() -> None:
    assert def_ref("a/b") == "#/$defs/a~1b"
    assert pointer_token("a~/b") == "a~0~1b"
    assert ref_name("#/$defs/Device") == "Device"
    assert ref_name("#/definitions/Old") == "Old"
    assert ref_name("#") == "#"
    assert ref_name("other.json#/$defs/Site") == "Site"
    # Only a reference to one definition names one.
    for ref in ("#", "#/$defs/Site/properties/id", "#/definitions/Old", None, 3):
        assert def_name(ref) is None


def test_inlined_references() -> None:
    schema = {"type": "array", "items": {"$ref": "#/$defs/Alias", "title": "a site"}}
    inlined = inline_refs({**schema, "$defs": ROOT["$defs"]}, ROOT)
    assert inlined == {"type": "array", "items": {**SITE, "title": "a site"}}
    assert inline_refs({"$ref": "#/$defs/Ping"}, ROOT) is None  # recursive
    assert inline_refs({"anyOf": [{"$ref": "#/$defs/Nowhere"}]}, ROOT) is None
