"""Rules across arguments, differential against JSON Schema (``Draft202012Validator``, with the
documented deliberate differences of ``tests.support.differential``): payloads generated over
every kind of argument a rule may name or test (strings with an enum, integers, numbers,
booleans, an ``Any`` that takes no null, wire names that are Python keywords or camelCase),
each left out, null, the tested value in another JSON spelling (``1`` and ``1.0``, ``true``
and ``1``), or a value of another type, as a dict and as JSON text."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tooldesign.runtime.validation.codecs import PayloadCodec

from tests.support.differential import Oracle, payload_accepts
from tests.support.generated import Generated

DESIGN = """
from tooldesign.dsl import *

with Service("crm", "Contacts"):
    with Toolset("people", "People"):
        with Tool("route", "Route a message"):
            with Args():
                Attribute("name", String, "Name")
                Attribute("channel", String, "Channel", enum=["sms", "mail", "null"])
                Attribute("priority", Int, "Priority")
                Attribute("weight", Float, "Weight")
                Attribute("urgent", Boolean, "Urgent")
                Attribute("from", String, "Sender")
                Attribute("class", String, "Class")
                Attribute("replyTo", String, "Reply address")
                Attribute("blob", Any(schema={"type": "string"}), "Blob")
                Attribute("note", String, "Note", max_length=3)
                Required("name")
                AtLeastOne("from", "replyTo", "blob")
                ExactlyOne("class", "note")
                When("channel", equals="null", requires=["from"], otherwise=["replyTo"])
                When("priority", equals=1, requires=["blob"])
                When("weight", equals=1.5, requires=["class"])
                When("urgent", equals=False, requires=["replyTo", "blob"])
            Return(String, "Id")
"""

_ANY = st.sampled_from([None, 0, 1, 1.0, 1.5, True, False, "", "sms", "null", "x", "long", [], {}])
_VALUES: dict[str, Any] = {
    "channel": st.sampled_from(["sms", "mail", "null", "Null", None, 1]),
    "priority": st.sampled_from([1, 1.0, 2, True, "1", None]),
    "weight": st.sampled_from([1.5, 1, 2.0, "1.5", None]),
    "urgent": st.sampled_from([False, True, 0, "false", None]),
    "from": _ANY,
    "class": _ANY,
    "replyTo": _ANY,
    "blob": _ANY,
    "note": _ANY,
}


@pytest.fixture(scope="module")
def codec(gen_design_for_module: Callable[[str], Generated]) -> PayloadCodec[Any]:
    codecs = gen_design_for_module(DESIGN).module("crm.toolsets.people.codecs")
    found: PayloadCodec[Any] = codecs.ROUTE_PAYLOAD
    return found


@st.composite
def _payloads(draw: st.DrawFn) -> dict[str, Any]:
    payload: dict[str, Any] = {"name": "Ada"}
    for name, values in _VALUES.items():
        if draw(st.booleans()):
            payload[name] = draw(values)
    return payload


@settings(
    max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(payload=_payloads())
def test_the_decoder_accepts_exactly_what_the_schema_accepts(
    codec: PayloadCodec[Any], payload: dict[str, Any]
) -> None:
    want = Oracle(codec.spec.schema).accepts(payload)
    assert payload_accepts(codec, payload, {}) == want, payload
    assert payload_accepts(codec, json.dumps(payload), {}) == want, payload


@pytest.mark.parametrize(
    ("payload", "accepted"),
    [
        ({"replyTo": "r", "class": "c"}, True),
        ({"replyTo": "r"}, False),  # ExactlyOne(class, note)
        ({"channel": "null", "replyTo": "r", "class": "c"}, False),  # the string "null"
        ({"channel": None, "replyTo": "r", "class": "c"}, True),  # null: not given
        ({"priority": 1.0, "replyTo": "r", "class": "c"}, False),  # 1.0 is 1: blob required
        ({"urgent": 0, "replyTo": "r", "class": "c"}, False),  # 0 is no boolean
    ],
)
def test_the_rules_are_live(
    codec: PayloadCodec[Any], payload: dict[str, Any], accepted: bool
) -> None:
    payload = {"name": "Ada", **payload}
    assert Oracle(codec.spec.schema).accepts(payload) is accepted
    assert payload_accepts(codec, payload, {}) is accepted
