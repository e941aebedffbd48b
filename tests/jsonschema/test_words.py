"""Constraints in words: one noun per size keyword, said the same by every writer."""

from __future__ import annotations

from typing import Any

import pytest
from tooldesign.binding.constraints import PyConstraints, constraint_gaps
from tooldesign.govern.schemas import compare_schemas
from tooldesign.ir.model import NO_CONSTRAINTS, MapType, Primitive, PrimitiveType
from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.words import counted, noun, phrases, quantity, size_range, size_rule
from tooldesign.runtime.validation.patterns import linear_validator
from tooldesign.runtime.validation.schema_issues import schema_issues


def test_sizes_as_noun_phrases() -> None:
    assert size_range(2, 20, K.MIN_LENGTH) == "2 to 20 characters"
    assert size_range(3, 3, K.MIN_LENGTH) == "3 characters"
    assert size_range(1, None, K.MIN_ITEMS) == "at least 1 item"
    assert size_range(None, 5, K.MAX_PROPERTIES) == "at most 5 properties"
    assert size_range(0, 1, K.MIN_CONTAINS) == "0 to 1 matching item"


def test_sizes_as_rules() -> None:
    assert size_rule(1, 1, K.MIN_LENGTH) == "exactly 1 character"
    assert size_rule(2, 200, K.MIN_LENGTH) == "between 2 and 200 characters"
    assert size_rule(1, None, K.MIN_ITEMS) == "at least 1 item"
    assert size_rule(None, 2, K.MAX_PROPERTIES) == "at most 2 properties"


def test_nouns() -> None:
    assert [noun(K.MIN_ITEMS, n) for n in (0, 1, 2)] == ["items", "item", "items"]
    assert counted(1, K.MAX_PROPERTIES) == "1 property"
    assert quantity(K.MAX_LENGTH) == "number of characters"
    with pytest.raises(AssertionError):
        noun(K.MINIMUM)


def test_phrases_say_a_pair_once() -> None:
    assert phrases({"minLength": 2, "maxLength": 200, "default": "x"}) == [
        "2 to 200 characters",
        'default: "x"',
    ]
    assert phrases({"maxItems": 3, "minItems": 1}) == ["1 to 3 items"]
    assert phrases({"maxItems": 3}) == ["at most 3 items"]
    assert phrases({"minProperties": 1, "maxProperties": 1}) == ["1 property"]
    assert phrases({"minContains": 2}) == ["at least 2 matching items"]
    assert phrases({"minimum": 1, "maximum": 5}) == ["from 1 to 5"]


SIZED: dict[str, Any] = {
    K.MIN_LENGTH: ("string", "a"),
    K.MAX_LENGTH: ("string", "abcd"),
    K.MIN_ITEMS: ("array", [1]),
    K.MAX_ITEMS: ("array", [1, 2, 3, 4]),
    K.MIN_PROPERTIES: ("object", {"a": 1}),
    K.MAX_PROPERTIES: ("object", {"a": 1, "b": 2, "c": 3, "d": 4}),
}


@pytest.mark.parametrize("keyword", sorted(SIZED))
def test_every_writer_counts_in_the_tables_noun(keyword: str) -> None:
    """The provider descriptions, the runtime's issues and the diff name what a size counts
    by the noun of the table's row, and nothing else."""
    kind, value = SIZED[keyword]
    plural = noun(keyword)
    schema = {"type": kind, keyword: 2}
    assert phrases({keyword: 2}) == [f"at {'least' if 'min' in keyword else 'most'} 2 {plural}"]
    issues, _ = schema_issues(linear_validator()(schema), value)
    assert issues[0].message.startswith("must have at ")
    assert f" 2 {plural} (got" in issues[0].message
    [change] = compare_schemas({"type": kind}, schema, pointer="", direction="input", noun="x")
    assert f" number of {plural} " in change.message


def test_the_binding_counts_a_maps_entries_as_properties() -> None:
    gaps = constraint_gaps(
        MapType(values=PrimitiveType(Primitive.STRING)), NO_CONSTRAINTS, PyConstraints(max_length=2)
    )
    assert gaps == [
        "max_length=2 properties where the tool sets no bound on the number of properties"
    ]
