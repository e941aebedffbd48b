"""Retry hints on generated designs: nested fields, unions, examples and injected fields.

What the model reads after a bad call must name the bad field by its path, with the nearest
design description and the field's examples; a union names its variants, and the issues of
the variant the call clearly meant.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from tooldesign.runtime import (
    Constraint,
    FieldIssue,
    RetryHint,
    RetryReason,
    Runtime,
    ToolCallMeta,
    ToolRequest,
    ToolValidationError,
)

from tests.support.generated import Generated, Generator

DESIGN = """
from tooldesign.dsl import *

with Type("Email", "Send by email") as Email:
    Attribute("address", String, "Mail address", format="email", example="ann@example.com")
    Required("address")

with Type("Sms", "Send by SMS") as Sms:
    Attribute("number", String, "Phone number", pattern=r"^\\+[0-9]{6,15}$", example="+4412345678")
    Attribute("country", String, "Country code", min_length=2, max_length=2)
    Required("number")

with Type("Circle", "A circle") as Circle:
    Attribute("kind", String, "Shape kind", enum=["circle"])
    Attribute("radius", Float, "Radius in cm", exclusive_minimum=0, example=2.5)
    Required("kind", "radius")

with Type("Square", "A square") as Square:
    Attribute("kind", String, "Shape kind", enum=["square"])
    Attribute("side", Float, "Side in cm", minimum=0)
    Required("kind", "side")

with Service("notify", "Notifications"):
    with Toolset("send", "Send things"):
        with Tool("send", "Send a message"):
            with Args():
                Attribute("to", ArrayOf(OneOf(Email, Sms)), "Recipients")
                Attribute("via", OneOf(String, Email), "A channel name or an address")
                Attribute("shape", OneOf(Circle, Square, discriminator="kind"), "Stamp shape")
                Attribute("title", String, "Subject line", min_length=3, example="Hello")
                Attribute("tags", ArrayOf(String), "Labels", enum=["urgent", "info"])
                Attribute("session_id", String, "Caller session")
                Required("to", "title", "session_id")
            Return(String, "Delivery id")
            Inject("session_id")
        with Tool("shout", "Shout a message"):
            with Args():
                Attribute("text", String, "What to shout", example="hi")
                Attribute("level", Int, "How loud", minimum=1)
                Required("text", "level")
            Return(String, "Echo")
        with Tool("count", "Count to a number"):
            with Args():
                Attribute("upto", Int, "Where to stop", minimum=1)
                Attribute("step", Int, "Step between numbers", maximum=10)
                Attribute("note", String, "A note")
                Required("upto")
            Return(String, "The count")
        with Tool("whisper", "Whisper a message"):
            with Args():
                Attribute("text", String, "What to whisper", example="psst")
                Required("text")
                Example({"text": "hello there"})
            Return(String, "Echo")
"""

SESSION = ToolCallMeta(session_id="sess-1")
GOOD = {"to": [{"address": "ann@example.com"}], "title": "Hello"}


@pytest.fixture(scope="module")
def generated(gen_design_for_module: Generator) -> Generated:
    return gen_design_for_module(DESIGN)


@pytest.fixture(scope="module")
def runtime(generated: Generated) -> Runtime:
    executor = generated.module("notify.toolsets.send.executor")

    def echo(args: Any, meta: ToolCallMeta) -> str:
        return "ok"

    return Runtime(
        [
            executor.new_registration(
                handlers={"send": echo, "shout": echo, "count": echo, "whisper": echo}
            )
        ]
    )


def hint_for(runtime: Runtime, name: str, payload: Any) -> RetryHint:
    result = runtime.execute_sync(ToolRequest(name, json.dumps(payload), SESSION))
    assert result.retry_hint is not None, result.for_model()
    return result.retry_hint


def test_the_design_runs(runtime: Runtime) -> None:
    result = runtime.execute_sync(ToolRequest("send", GOOD, SESSION))
    assert result.ok, result.for_model()


# ── nested fields: nearest description and the field's examples ──────────────────────────


def test_issues_carry_the_fields_examples_and_the_message_shows_them(runtime: Runtime) -> None:
    hint = hint_for(runtime, "send", {**GOOD, "title": "Hi"})
    [issue] = hint.issues
    assert issue.field == "title"
    assert issue.examples == ("Hello",)
    assert issue.to_dict()["examples"] == ["Hello"]
    assert (
        '- title: must have at least 3 characters (got 2) — Subject line; example: "Hello"'
        in hint.message
    )


def test_array_items_take_the_arrays_description(runtime: Runtime) -> None:
    hint = hint_for(runtime, "send", {**GOOD, "tags": ["info", "spam"]})
    [issue] = hint.issues
    assert (issue.field, issue.description) == ("tags[1]", "Labels")
    assert issue.allowed == ("urgent", "info")
    assert '- tags[1]: must be one of "urgent", "info" (got "spam") — Labels' in hint.message


def test_an_unknown_field_has_no_description(runtime: Runtime) -> None:
    hint = hint_for(runtime, "send", {**GOOD, "colour": "red"})
    [issue] = hint.issues
    assert issue.constraint is Constraint.UNKNOWN_FIELD and issue.description is None


def test_a_repeated_mistake_reads_the_same_and_each_issue_is_its_own(runtime: Runtime) -> None:
    first = hint_for(runtime, "shout", {"text": "hi", "level": 0})
    first.issues[0].bounds["minimum"] = 99  # type: ignore[index]  # a caller changing its copy
    again = hint_for(runtime, "shout", {"text": "hi", "level": 0})
    assert again.message == first.message
    assert again.issues[0].bounds == {"minimum": 1}
    # However many keys a model makes up, each is named, and known fields read as before.
    for n in range(600):
        [issue] = hint_for(runtime, "shout", {"text": "hi", "level": 1, f"k{n}": 0}).issues
        assert issue.field == f"k{n}" and issue.constraint is Constraint.UNKNOWN_FIELD
    assert hint_for(runtime, "shout", {"text": "hi", "level": 0}).message == first.message


def test_each_value_sent_for_a_field_is_named_however_often_the_field_is_wrong(
    runtime: Runtime,
) -> None:
    # How a field reads is kept per kind of mistake; what was sent is each call's own.
    sent = [0, -5, "x", 2.5, None, 0, "x", -5]
    said = [hint_for(runtime, "shout", {"text": "hi", "level": level}).issues for level in sent]
    messages = [issue.message for [issue] in said]
    assert messages[:5] == [
        "must be >= 1 (got 0)",
        "must be >= 1 (got -5)",
        'expected integer, got string "x"',
        "expected integer, got number 2.5",
        "expected integer, got null",
    ]
    assert messages[5:] == [messages[0], messages[2], messages[1]]
    assert [issue.constraint for [issue] in said[:3]] == [
        Constraint.INVALID_RANGE,
        Constraint.INVALID_RANGE,
        Constraint.INVALID_FIELD_TYPE,
    ]
    assert [issue.actual for [issue] in said[:5]] == [
        "integer",
        "integer",
        "string",
        "number",
        "null",
    ]
    assert all(issue.description == "How loud" for [issue] in said)


def test_concurrent_invalid_calls_each_read_as_alone(runtime: Runtime) -> None:
    levels: list[Any] = [0, -1, "x", 2.5, None, -(10**30)] * 20
    requests = [
        ToolRequest("shout", json.dumps({"text": "hi", "level": level}), SESSION)
        for level in levels
    ]
    alone = [runtime.execute_sync(request).for_model() for request in requests]

    async def together() -> list[str]:
        results = await asyncio.gather(*(runtime.execute(request) for request in requests))
        return [result.for_model() for result in results]

    assert asyncio.run(together()) == alone
    with ThreadPoolExecutor(max_workers=8) as threads:
        texts = list(threads.map(lambda r: runtime.execute_sync(r).for_model(), requests))
    assert texts == alone


def test_a_refused_call_holding_nulls_and_whole_numbers_names_only_what_is_wrong(
    runtime: Runtime,
) -> None:
    # A null for an optional field is "not given" and 2.0 is the integer 2: neither is a
    # problem, whatever else is.
    hint = hint_for(runtime, "count", {"upto": 2.0, "note": None, "step": 11})
    assert [(i.field, i.message) for i in hint.issues] == [("step", "must be <= 10 (got 11)")]
    # Read as an integer, a whole number is held to the integer's bounds.
    hint = hint_for(runtime, "count", {"upto": 0.0, "note": None})
    assert [(i.field, i.message) for i in hint.issues] == [("upto", "must be >= 1 (got 0)")]
    hint = hint_for(runtime, "count", {"upto": 3, "step": [2.0, None]})
    assert [(i.field, i.message) for i in hint.issues] == [
        ("step", "expected integer, got array [2.0, null]")
    ]


def test_issues_and_hints_are_frozen_dataclasses(runtime: Runtime) -> None:
    hint = hint_for(runtime, "shout", {"text": "hi", "level": 0})
    [issue] = hint.issues
    with pytest.raises(dataclasses.FrozenInstanceError):
        issue.message = "changed"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        hint.message = "changed"  # type: ignore[misc]
    assert dataclasses.replace(issue, message="m").message == "m"
    assert dataclasses.replace(hint, issues=()).issues == ()
    assert dataclasses.replace(hint) == hint and dataclasses.replace(issue) == issue
    assert FieldIssue("f", Constraint.MISSING_FIELD, "gone") == FieldIssue(
        field="f", constraint=Constraint.MISSING_FIELD, message="gone"
    )
    assert FieldIssue("f", Constraint.MISSING_FIELD, "gone").bounds is None
    bare = RetryHint(RetryReason.TIMEOUT, "shout", "too slow")
    assert (bare.restrict_to_tool, bare.issues, bare.more_issues) == (False, (), 0)
    assert RetryHint.from_dict(hint.to_dict()) == hint


# ── unions ───────────────────────────────────────────────────────────────────────────────


def test_a_union_reports_the_closest_variants_own_fields(runtime: Runtime) -> None:
    hint = hint_for(
        runtime,
        "send",
        {**GOOD, "to": [{"address": "ann@example.com"}, {"number": "12", "country": "GBR"}]},
    )
    issues = {issue.field: issue for issue in hint.issues}
    assert set(issues) == {"to[1].number", "to[1].country"}
    assert issues["to[1].number"].constraint is Constraint.INVALID_PATTERN
    assert issues["to[1].number"].description == "Phone number"
    assert issues["to[1].number"].examples == ("+4412345678",)
    assert issues["to[1].country"].constraint is Constraint.INVALID_LENGTH
    assert "to[1].country: must have exactly 2 characters (got 3) — Country code" in hint.message


def test_the_only_variant_of_the_values_json_type_is_the_closest(runtime: Runtime) -> None:
    hint = hint_for(runtime, "send", {**GOOD, "via": {"address": "not-an-address"}})
    [issue] = hint.issues
    assert (issue.field, issue.constraint) == ("via.address", Constraint.INVALID_FORMAT)
    assert issue.description == "Mail address"


def test_a_union_with_no_clear_variant_names_every_variant_and_its_fields(
    runtime: Runtime,
) -> None:
    hint = hint_for(runtime, "send", {**GOOD, "to": [{"phone": "+4412345678"}]})
    [issue] = hint.issues
    assert issue.field == "to[0]"
    assert issue.expected == "object (Email) or object (Sms)"
    assert issue.message == (
        'expected object (Email) or object (Sms), got object {"phone": "+4412345678"}; '
        "Email has fields address; Sms has fields number, country"
    )
    assert issue.description == "Recipients"

    hint = hint_for(runtime, "send", {**GOOD, "via": 5})
    [issue] = hint.issues
    assert issue.message == "expected string or object (Email), got integer 5"


def test_a_discriminated_union_names_its_variants_and_reports_the_picked_ones_fields(
    runtime: Runtime,
) -> None:
    hint = hint_for(runtime, "send", {**GOOD, "shape": 7})
    [issue] = hint.issues
    assert issue.field == "shape"
    assert issue.message == "expected object (Circle) or object (Square), got integer 7"
    hint = hint_for(runtime, "send", {**GOOD, "shape": {"kind": "circle", "radius": 0}})
    [issue] = hint.issues
    assert (issue.field, issue.constraint) == ("shape.radius", Constraint.INVALID_RANGE)
    assert issue.examples == (2.5,)
    assert "shape.radius: must be > 0 (got 0) — Radius in cm; example: 2.5" in hint.message


def test_a_discriminators_problems_name_it_and_its_values(runtime: Runtime) -> None:
    hint = hint_for(runtime, "send", {**GOOD, "shape": {"kind": "triangle", "radius": 1}})
    [issue] = hint.issues
    assert (issue.field, issue.constraint) == ("shape", Constraint.INVALID_ENUM_VALUE)
    assert issue.message == (
        "unknown 'kind'; expected one of 'circle', 'square' "
        '(got {"kind": "triangle", "radius": 1})'
    )
    hint = hint_for(runtime, "send", {**GOOD, "shape": {"radius": 1}})
    [issue] = hint.issues
    assert (issue.field, issue.constraint) == ("shape", Constraint.MISSING_FIELD)
    assert issue.message == "required field 'kind' is missing"


# ── example_input ────────────────────────────────────────────────────────────────────────


def test_without_example_the_hint_builds_one_from_field_examples(runtime: Runtime) -> None:
    # Every required field of send has an example (the recipients through Email's address).
    hint = hint_for(runtime, "send", {"title": "Hello"})
    assert hint.reason is RetryReason.MISSING_FIELDS
    assert hint.example_input == {"to": [{"address": "ann@example.com"}], "title": "Hello"}
    assert (
        'Example of valid arguments: {"to": [{"address": "ann@example.com"}], "title": "Hello"}'
        in hint.message
    )


def test_a_required_field_without_example_means_no_built_example(runtime: Runtime) -> None:
    hint = hint_for(runtime, "shout", {"text": "hi"})
    assert hint.example_input is None  # level has none
    assert "Example of valid arguments" not in hint.message


def test_the_designs_example_wins_over_field_examples(runtime: Runtime) -> None:
    hint = hint_for(runtime, "whisper", {})
    assert hint.example_input == {"text": "hello there"}


# ── injected fields ──────────────────────────────────────────────────────────────────────


def test_a_missing_injected_field_names_its_type(generated: Generated) -> None:
    codecs = generated.module("notify.toolsets.send.codecs")
    with pytest.raises(ToolValidationError) as caught:
        codecs.decode_send_payload(json.dumps(GOOD))
    [issue] = caught.value.issues
    assert issue.field == "session_id"
    assert issue.message == "required field is missing (expected string)"
    # The error's own text, written when read.
    assert str(caught.value) == (
        "invalid payload for tool 'send':\n"
        "  - session_id: required field is missing (expected string) — Caller session"
    )
    assert repr(caught.value) == f"ToolValidationError({str(caught.value)!r})"
    # Still never offered to the model as a field it may send.
    with pytest.raises(ToolValidationError) as caught:
        codecs.decode_send_payload(json.dumps({**GOOD, "x": 1}), injected={"session_id": "s"})
    assert "session_id" not in caught.value.issues[0].message
