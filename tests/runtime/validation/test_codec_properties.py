"""Property tests: every generated codec against random and schema-valid input.

Whatever a model sends, a codec returns a typed payload or raises ToolValidationError, never
anything else. And the schema a model sees agrees with the decoder: what the schema accepts
decodes, and what decodes, re-encoded, satisfies the schema.
"""

from __future__ import annotations

import importlib
import json
import re
import uuid
from datetime import date, datetime, time
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tooldesign.runtime import (
    Constraint,
    ToolSpec,
    ToolValidationError,
    retry_hint_for_invalid_payload,
)
from tooldesign.runtime.errors import MAX_ISSUES
from tooldesign.runtime.validation.codecs import PayloadCodec

from tests.support import REPO
from tests.support.strategies import from_schema, json_values

TOOLSETS = sorted(
    p.name
    for p in (REPO / "gen" / "assistant" / "toolsets").iterdir()
    if (p / "codecs.py").is_file()
)


def _tools() -> list[tuple[ToolSpec[Any, Any], PayloadCodec[Any]]]:
    out = []
    for toolset in TOOLSETS:
        codecs = importlib.import_module(f"gen.assistant.toolsets.{toolset}.codecs")
        specs = importlib.import_module(f"gen.assistant.toolsets.{toolset}.specs")
        for spec in specs.SPECS:
            codec = next(
                v
                for v in vars(codecs).values()
                if isinstance(v, PayloadCodec) and v.spec is spec.payload
            )
            out.append((spec, codec))
    return out


TOOLS = _tools()
IDS = [spec.name for spec, _ in TOOLS]


def _near_miss(spec: ToolSpec[Any, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects using the payload's real field names with arbitrary values: reaches deep validation."""
    names = list(spec.payload.schema.get("properties", {})) + ["unexpected", *spec.injected]
    return st.dictionaries(st.sampled_from(names), json_values, max_size=len(names))


# Made at run time: hypothesis draws text from the string literals of the code it tests, so a
# literal marker could turn up among the keys and values a test sends.
_INJECTED_MARK = uuid.uuid4().hex


def _injected(spec: ToolSpec[Any, Any]) -> dict[str, str]:
    return {name: f"{_INJECTED_MARK}{name}" for name in spec.injected}


def _check_error(error: ToolValidationError) -> None:
    assert error.issues, "a validation error names at least one problem"
    assert len(error.issues) <= MAX_ISSUES
    for issue in error.issues:
        assert isinstance(issue.constraint, Constraint)
        assert issue.message and isinstance(issue.field, str)
        assert _INJECTED_MARK not in issue.describe(), "injected values never appear in messages"
    hint = retry_hint_for_invalid_payload(error)
    json.dumps(hint.to_dict(), default=str)
    # One line per issue (and one for the rest), whatever the keys and values held: nothing
    # sent can start a line of its own, and nothing unprintable reaches the model.
    first, *lines, last = hint.message.split("\n")
    assert first.startswith("The arguments for tool ") and last.startswith("Call ")
    assert len(lines) == len(error.issues) + (1 if error.more else 0)
    assert all(line.startswith("- ") for line in lines)
    assert all(line.isprintable() for line in hint.message.split("\n"))
    assert len(hint.message) < 600 * (MAX_ISSUES + 1)


_HOSTILE_KEYS = st.text(max_size=12) | st.sampled_from(["", " ", "a.b", "x[0]", "\n- ok", "\u202e"])


@pytest.mark.parametrize(("spec", "codec"), TOOLS, ids=IDS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_input_gives_a_payload_or_a_validation_error(
    spec: ToolSpec[Any, Any], codec: PayloadCodec[Any], data: st.DataObject
) -> None:
    raw = data.draw(
        json_values.map(json.dumps)
        | json_values
        | _near_miss(spec)
        | _near_miss(spec).map(json.dumps)
        | st.text()
        | st.binary()
    )
    try:
        payload = codec.decode(raw, injected=_injected(spec))
    except ToolValidationError as error:
        _check_error(error)
    else:
        assert isinstance(payload, spec.payload.model)


@pytest.mark.parametrize(("spec", "codec"), TOOLS, ids=IDS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_no_key_or_value_can_forge_a_line_of_the_hint(
    spec: ToolSpec[Any, Any], codec: PayloadCodec[Any], data: st.DataObject
) -> None:
    names = list(spec.payload.schema.get("properties", {})) or ["x"]
    hostile = st.dictionaries(_HOSTILE_KEYS, json_values, max_size=4)
    raw = data.draw(
        hostile
        | st.dictionaries(
            st.sampled_from(names), hostile | st.lists(hostile, max_size=2), min_size=1
        )
    )
    for form in (raw, json.dumps(raw)):
        try:
            codec.decode(form, injected=_injected(spec))
        except ToolValidationError as error:
            _check_error(error)


@pytest.mark.parametrize(("spec", "codec"), TOOLS, ids=IDS)
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_what_the_schema_accepts_decodes_and_round_trips(
    spec: ToolSpec[Any, Any], codec: PayloadCodec[Any], data: st.DataObject
) -> None:
    arguments = data.draw(from_schema(spec.payload.schema))
    payload = codec.decode(json.dumps(arguments), injected=_injected(spec))
    assert isinstance(payload, spec.payload.model)
    encoded = payload.model_dump(
        mode="json", by_alias=True, exclude_none=True, exclude=set(spec.injected)
    )
    jsonschema.validate(encoded, spec.payload.schema)


@pytest.mark.parametrize(("spec", "codec"), TOOLS, ids=IDS)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_what_decodes_satisfies_the_schema(
    spec: ToolSpec[Any, Any], codec: PayloadCodec[Any], data: st.DataObject
) -> None:
    raw = data.draw(_near_miss(spec))
    try:
        payload = codec.decode(raw, injected=_injected(spec))
    except ToolValidationError:
        return
    encoded = payload.model_dump(
        mode="json", by_alias=True, exclude_none=True, exclude=set(spec.injected)
    )
    jsonschema.validate(encoded, spec.payload.schema)


# The decoder is no looser than the schema: what decodes, as it was sent, satisfies the schema,
# formats included (a date-time is RFC 3339, not Unix time). One documented reading is allowed:
# null for an optional field means "not given".


def _as_the_decoder_reads(schema: Any) -> Any:
    """``schema`` with the decoder's documented reading added (see above)."""
    if isinstance(schema, list):
        return [_as_the_decoder_reads(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _as_the_decoder_reads(v) for k, v in schema.items()}
    if out.get("type") == "object" and isinstance(out.get("properties"), dict):
        required = set(out.get("required", []))
        out["properties"] = {
            name: node if name in required else {"anyOf": [node, {"type": "null"}]}
            for name, node in out["properties"].items()
        }
    return out


# RFC 3339 as JSON Schema reads it, restated here (jsonschema checks date-time and time only
# with an optional dependency).
_TIME = r"\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})"
_FORMATS = jsonschema.FormatChecker()


@_FORMATS.checks("date-time")
def _is_date_time(value: object) -> bool:
    return not isinstance(value, str) or (
        re.fullmatch(rf"\d{{4}}-\d{{2}}-\d{{2}}[Tt]{_TIME}", value, re.ASCII) is not None
        and _parses(datetime.fromisoformat, value.upper())
    )


@_FORMATS.checks("date")
def _is_date(value: object) -> bool:
    return not isinstance(value, str) or (
        re.fullmatch(r"\d{4}-\d{2}-\d{2}", value, re.ASCII) is not None
        and _parses(date.fromisoformat, value)
    )


@_FORMATS.checks("time")
def _is_time(value: object) -> bool:
    return not isinstance(value, str) or (
        re.fullmatch(_TIME, value, re.ASCII) is not None
        and _parses(time.fromisoformat, value.upper())
    )


def _parses(parse: Any, value: str) -> bool:
    try:
        parse(value)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize(("spec", "codec"), TOOLS, ids=IDS)
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_what_decodes_was_valid_as_sent(
    spec: ToolSpec[Any, Any], codec: PayloadCodec[Any], data: st.DataObject
) -> None:
    raw = data.draw(_near_miss(spec) | from_schema(spec.payload.schema))
    try:
        codec.decode(raw, injected=_injected(spec))
    except ToolValidationError:
        return
    sent = {k: v for k, v in raw.items() if k not in spec.injected}
    jsonschema.validate(sent, _as_the_decoder_reads(spec.payload.schema), format_checker=_FORMATS)


_NON_FINITE = st.sampled_from([float("nan"), float("inf"), float("-inf")])


@pytest.mark.parametrize(("spec", "codec"), TOOLS, ids=IDS)
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_json_text_and_dicts_decode_alike(
    spec: ToolSpec[Any, Any], codec: PayloadCodec[Any], data: st.DataObject
) -> None:
    names = list(spec.payload.schema.get("properties", {}))
    raw = data.draw(
        _near_miss(spec)
        | from_schema(spec.payload.schema)
        | st.dictionaries(st.sampled_from(names or ["x"]), _NON_FINITE, min_size=1)
    )
    outcomes = []
    for form in (json.dumps(raw), raw):
        try:
            payload = codec.decode(form, injected=_injected(spec))
        except ToolValidationError as error:
            outcomes.append(sorted((i.field, i.constraint.value) for i in error.issues))
        else:
            outcomes.append(payload.model_dump(mode="json"))
    assert outcomes[0] == outcomes[1]


def _integer_fields(spec: ToolSpec[Any, Any]) -> list[str]:
    """Top-level fields a model may send that take an integer and nothing else."""
    properties = spec.payload.schema.get("properties", {})
    return [name for name, node in properties.items() if node.get("type") == "integer"]


INTEGER_TOOLS = [(spec, codec) for spec, codec in TOOLS if _integer_fields(spec)]


@pytest.mark.parametrize(
    ("spec", "codec"), INTEGER_TOOLS, ids=[spec.name for spec, _ in INTEGER_TOOLS]
)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_an_integer_field_takes_a_number_exactly_when_it_has_no_fractional_part(
    spec: ToolSpec[Any, Any], codec: PayloadCodec[Any], data: st.DataObject
) -> None:
    # The schema's verdict (jsonschema: 3.0 is an integer, 3.5 is not) is the decoder's, from
    # JSON text and from a dict alike; an integral number decodes as an int.
    arguments = data.draw(from_schema(spec.payload.schema))
    name = data.draw(st.sampled_from(_integer_fields(spec)))
    number = data.draw(
        st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6)
        | st.integers(-(10**6), 10**6).map(float)
    )
    arguments[name] = number
    valid = jsonschema.Draft202012Validator(spec.payload.schema).is_valid(arguments)
    for form in (json.dumps(arguments), arguments):
        try:
            payload = codec.decode(form, injected=_injected(spec))
        except ToolValidationError as error:
            assert not valid, error
            assert any(issue.field == name for issue in error.issues)
        else:
            assert valid
            decoded = payload.model_dump(by_alias=True)[name]
            assert type(decoded) is int and decoded == number
