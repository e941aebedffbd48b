"""Rules across arguments (``AtLeastOne``, ``ExactlyOne``, ``When``): the decoder accepts exactly
what the published schema accepts, on every combination of the arguments the rules are about
(given, left out, null; the tested value and another), as a dict and as JSON text; and a broken
rule is told in words."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest
from tooldesign.contract.rules import ArgumentRule
from tooldesign.runtime import ToolValidationError
from tooldesign.runtime.errors import Constraint
from tooldesign.runtime.validation.codecs import PayloadCodec

from tests.support.differential import Oracle, payload_accepts
from tests.support.generated import Generated
from tests.support.rules import DESIGN

_CHOICES: dict[str, tuple[Any, ...]] = {
    "contact_method": (..., "phone", "email", None),
    "phone": (..., "555", None),
    "email": (..., "a@b", None),
    "id": (..., 7, None),
    "handle": (..., "h"),
}


@pytest.fixture(scope="module")
def codec(gen_design_for_module: Callable[[str], Generated]) -> PayloadCodec[Any]:
    codecs = gen_design_for_module(DESIGN).module("crm.toolsets.people.codecs")
    found: PayloadCodec[Any] = codecs.ADD_CONTACT_PAYLOAD
    return found


def test_the_schema_states_each_rule(codec: PayloadCodec[Any]) -> None:
    schema = codec.spec.schema
    assert schema["allOf"] == [
        {"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]},
        {"oneOf": [{"required": ["id"]}, {"required": ["handle"]}]},
    ]
    assert schema["if"] == {
        "properties": {"contact_method": {"const": "phone"}},
        "required": ["contact_method"],
    }
    assert schema["then"] == {"required": ["phone"]}
    assert schema["else"] == {"required": ["email"]}


def test_the_decoder_accepts_exactly_what_the_schema_accepts(codec: PayloadCodec[Any]) -> None:
    oracle = Oracle(codec.spec.schema)
    judged = accepted = 0
    names = list(_CHOICES)
    for values in itertools.product(*_CHOICES.values()):
        payload = {"name": "Ada"} | {
            n: v for n, v in zip(names, values, strict=True) if v is not ...
        }
        want = oracle.accepts(payload)
        assert payload_accepts(codec, payload, {}) == want, payload
        assert payload_accepts(codec, json.dumps(payload), {}) == want, payload
        judged += 1
        accepted += want
    assert judged == 4 * 3 * 3 * 3 * 2
    assert 0 < accepted < judged


@pytest.mark.parametrize(
    ("payload", "says"),
    [
        ({"name": "a", "id": 1}, "give at least one of: phone, email"),
        ({"name": "a", "email": "x", "id": 1, "handle": "h"}, "give exactly one of: id, handle"),
        (
            {"name": "a", "contact_method": "phone", "email": "x", "id": 1},
            'phone is required when contact_method is "phone", else email is required',
        ),
    ],
)
def test_a_broken_rule_is_told_in_words(
    codec: PayloadCodec[Any], payload: dict[str, Any], says: str
) -> None:
    with pytest.raises(ToolValidationError) as caught:
        codec.decode(payload)
    (issue,) = caught.value.issues
    assert issue.constraint is Constraint.ARGUMENT_RULE
    assert issue.message == says
    assert issue.describe() == f"arguments: {says}"


def test_the_generated_model_keeps_the_rules_too(codec: PayloadCodec[Any]) -> None:
    import pydantic

    with pytest.raises(pydantic.ValidationError, match="give at least one of"):
        codec.model(name="a", id=1)
    assert codec.model(name="a", id=1, email="x").email == "x"


def test_when_compares_values_as_json_does() -> None:
    rule = ArgumentRule("when", ("b",), "a", 1, ())
    assert rule.holds({"a"}, {"a": 1.0})
    assert not rule.holds({"a"}, {"a": True})
    assert not ArgumentRule("when", ("b",), "a", True, ()).holds({"a"}, {"a": 1})


def test_rules_name_arguments_by_their_wire_names(
    gen_design_for_module: Callable[[str], Generated],
) -> None:
    design = DESIGN.replace('"phone"', '"from"').replace('"email"', '"class"')
    codecs = gen_design_for_module(design).module("crm.toolsets.people.codecs")
    codec: PayloadCodec[Any] = codecs.ADD_CONTACT_PAYLOAD
    assert codec.decode({"name": "a", "id": 1, "class": "x"}).class_ == "x"
    with pytest.raises(ToolValidationError, match="give at least one of: from, class"):
        codec.decode({"name": "a", "id": 1})
