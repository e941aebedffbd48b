"""Each disagreement issue 21 §1 found between the published schemas and the decoder, pinned.

Every test here failed before its fix. The differential test beside it (test_differential.py)
looks for the ones nobody has found yet.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from tooldesign.ir.errors import DesignError
from tooldesign.runtime import (
    RetryReason,
    Runtime,
    ToolCallMeta,
    ToolRequest,
    ToolValidationError,
)

from tests.support import REPO
from tests.support.generated import Generated

DESIGN = r"""
from tooldesign.dsl import *

with Service("svc", "A service"):
    with Toolset("ts", "A toolset"):
        with Tool("numbers", "Numbers"):
            with Args():
                Attribute("counts", MapOf(String, Int), "Counts")
                Attribute("half", Any(schema={"multipleOf": 0.5}), "Halves")
                Attribute("stamp", Any(schema={"type": "string", "format": "date-time"}), "A time")
            with Return():
                Attribute("n", Int, "A count")
                Required("n")
        with Tool("tally", "Counts, and nothing a schema must check besides the model"):
            with Args():
                Attribute("counts", MapOf(String, Int), "Counts")
            Return(Int, "A count")
        with Tool("bare", "A bare float"):
            Return(Float, "A number")
        with Tool("floats", "Floats"):
            Return(ArrayOf(Float), "Numbers")
        with Tool("table", "A map of floats"):
            Return(MapOf(String, Float), "Numbers")
        with Tool("formats", "Formats"):
            with Args():
                Attribute("link", String, "A URI", format="uri")
                Attribute("id", String, "A UUID", format="uuid")
                Attribute("span", String, "A duration", format="duration")
                Attribute("v6", String, "An IPv6 address", format="ipv6")
                Attribute("host", String, "A host", format="hostname")
                Attribute("mail", String, "An address", format="email")
                Attribute("digits", String, "Digits", pattern=r"^\d+$")
                Attribute("line", String, "One line", pattern=r"^.+$")
                Attribute("spaced", String, "A space", pattern=r"^a\sb$")
            with Return():
                Attribute("utc", String, "UTC", format="date-time", pattern=r"\+00:00$")
                Attribute("id", String, "A UUID", format="uuid", pattern="^[0-9A-F-]+$")
                Attribute("link", String, "A URI", format="uri", max_length=19)
                Attribute("v6", String, "An IPv6 address", format="ipv6")
        with Tool("whoami", "Who calls"):
            with Args():
                Attribute("session_id", String, "The caller's session")
                Required("session_id")
            Inject("session_id")
            Return(String, "The session")
"""


@pytest.fixture
def ts(gen_design: Callable[[str], Generated]) -> Any:
    return gen_design(DESIGN).module("svc.toolsets.ts.codecs")


_HANDLERS: dict[str, Any] = {
    "numbers": lambda a, m: {"n": 1},
    "tally": lambda a, m: 1,
    "bare": lambda a, m: 1.5,
    "floats": lambda a, m: [1.5],
    "table": lambda a, m: {"a": 1.0},
    "formats": lambda a, m: {},
    "whoami": lambda a, m: a.session_id,
}


def _runtime(ts: Any, **handlers: Any) -> Runtime:
    executor = __import__(ts.__name__.rsplit(".", 1)[0] + ".executor", fromlist=["x"])
    return Runtime([executor.new_registration(handlers={**_HANDLERS, **handlers})])


def _refused(decode: Callable[..., Any], *args: Any) -> list[str]:
    with pytest.raises(ToolValidationError) as info:
        decode(*args)
    return [issue.describe() for issue in info.value.issues]


# ── results decode as payloads do ─────────────────────────────────────────────────────────


@pytest.mark.parametrize("text", ['{"n": 3.0}', '{"n": 1E1}', '{"n": -0.0}'])
def test_a_result_takes_the_integers_a_payload_takes(ts: Any, text: str) -> None:
    result = ts.NUMBERS_RESULT
    assert result.decode(text).n == int(json.loads(text)["n"])
    assert result.coerce(json.loads(text)).n == int(json.loads(text)["n"])


@pytest.mark.parametrize(
    ("tool", "text"),
    [("BARE", "1e400"), ("BARE", "NaN"), ("FLOATS", "[1.5, 1e400]"), ("TABLE", '{"a": -1e400}')],
)
def test_a_result_number_is_finite_wherever_it_is(ts: Any, tool: str, text: str) -> None:
    codec = getattr(ts, f"{tool}_RESULT")
    assert any("finite" in issue for issue in _refused(codec.decode, text))


def test_a_non_finite_result_is_a_malformed_response(ts: Any) -> None:
    runtime = _runtime(ts, bare=lambda a, m: float("nan"), floats=lambda a, m: [float("inf")])
    for tool in ("bare", "floats"):
        result = runtime.execute_sync(ToolRequest(tool, "{}"))
        assert not result.ok
        assert result.retry_hint is not None
        assert result.retry_hint.reason is RetryReason.MALFORMED_RESPONSE
    # ToolCallMeta(session_id=""): refused on purpose (docs/limits.md), the caller's to fix.
    blank = runtime.execute_sync(ToolRequest("whoami", "{}", ToolCallMeta(session_id="")))
    assert not blank.ok and blank.error is not None
    assert "cannot run in this context" in blank.error.message
    given = runtime.execute_sync(ToolRequest("whoami", "{}", ToolCallMeta(session_id="s-1")))
    assert given.ok and given.result.root == "s-1"
    limits = (REPO / "docs" / "limits.md").read_text(encoding="utf-8")
    assert 'ToolCallMeta(session_id="")' in limits


# ── text and dict decode alike ────────────────────────────────────────────────────────────


def test_a_key_repeated_in_json_text_counts_once_with_its_last_value(ts: Any) -> None:
    payload = ts.TALLY_PAYLOAD
    from_text = payload.decode('{"counts": {"a": "x", "a": 1}}')
    assert from_text == payload.decode({"counts": {"a": 1}})
    assert from_text.counts == {"a": 1}
    assert _refused(payload.decode, '{"counts": {"a": 1, "a": "x"}}')


def test_a_number_past_a_double_in_a_verbatim_schema_is_answered_not_raised(ts: Any) -> None:
    assert _refused(ts.NUMBERS_PAYLOAD.decode, '{"half": 1e400}')
    result = _runtime(ts).execute_sync(ToolRequest("numbers", '{"half": 1e400}'))
    assert result.retry_hint is not None
    assert result.retry_hint.reason is RetryReason.INVALID_ARGUMENTS
    assert "half: must be" in result.for_model()


def test_a_format_inside_a_verbatim_schema_is_checked(ts: Any) -> None:
    payload = ts.NUMBERS_PAYLOAD
    assert _refused(payload.decode, '{"stamp": "not a date"}')
    assert payload.decode('{"stamp": "2026-01-31T09:30:00Z"}').stamp == "2026-01-31T09:30:00Z"


# ── formats by their RFCs ─────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("link", "http:///path"),  # RFC 3986: an empty authority
        ("link", "urn:isbn:0451450523"),
        ("mail", "user@localhost"),  # RFC 5321: a domain of one label
        ("mail", '"john doe"@example.com'),  # a quoted local part
        ("id", "123E4567-E89B-12D3-A456-426614174000"),
        ("span", "P2W"),
        ("span", "P1Y2M3DT4H5M6S"),
        ("host", "a" * 63 + ".example.com"),
    ],
)
def test_a_value_its_rfc_allows_decodes(ts: Any, field: str, value: str) -> None:
    assert getattr(ts.FORMATS_PAYLOAD.decode({field: value}), field) is not None


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("link", "https://exämple.com/"),  # a URI is ASCII (an IRI is another format)
        ("id", "123e4567e89b12d3a456426614174000"),
        ("id", "{123e4567-e89b-12d3-a456-426614174000}"),
        ("id", "urn:uuid:123e4567-e89b-12d3-a456-426614174000"),
        ("span", "P1DT"),  # RFC 3339 Appendix A: a T needs a time
        ("span", "P1W1D"),  # weeks alone
        ("span", "01:00:00"),
        ("v6", "fe80::1%eth0"),  # a zone id is RFC 6874's, not RFC 4291's
        ("host", ".".join(["a" * 60] * 5)),  # 304 characters: past 253
        ("mail", "user"),
        ("digits", "٣"),  # \d is [0-9] to ECMA-262
        ("line", "a\rb"),  # . stops at a line terminator in ECMA-262
        ("spaced", "a\x85b"),  # \s is ECMA-262's white space
    ],
)
def test_a_value_its_rfc_or_ecma_262_refuses_is_refused(ts: Any, field: str, value: str) -> None:
    assert _refused(ts.FORMATS_PAYLOAD.decode, {field: value})
    assert _refused(ts.FORMATS_PAYLOAD.decode, json.dumps({field: value}))


def test_ecma_262_white_space_is_white_space(ts: Any) -> None:
    assert ts.FORMATS_PAYLOAD.decode({"spaced": "a\ufeffb"}).spaced == "a\ufeffb"


@pytest.mark.parametrize(
    "result",
    [
        {"id": "{123e4567-e89b-12d3-a456-426614174000}"},
        {"id": "urn:uuid:123e4567-e89b-12d3-a456-426614174000"},
        {"v6": "fe80::1%eth0"},
    ],
)
def test_a_result_is_held_to_the_formats_a_payload_is(ts: Any, result: dict[str, str]) -> None:
    assert _refused(ts.FORMATS_RESULT.coerce, result)


# ── what is sent is what was checked ─────────────────────────────────────────────────────


@pytest.mark.parametrize(
    "result",
    [
        {"utc": "2026-01-31T09:30:00+00:00"},  # Python would write Z, which the pattern refuses
        {"id": "123E4567-E89B-12D3-A456-426614174000"},  # and lower-case it
        {"link": "https://example.com"},  # and add a "/", past maxLength 19
    ],
)
def test_a_valid_result_is_sent_as_given(ts: Any, result: dict[str, str]) -> None:
    answer = _runtime(ts, formats=lambda a, m: result).execute_sync(ToolRequest("formats", "{}"))
    assert answer.ok, answer.for_model()
    assert json.loads(answer.result_json or "") == result


def test_a_result_given_as_a_model_is_checked_as_it_is_written(ts: Any) -> None:
    types = __import__(ts.__name__.rsplit(".", 1)[0] + ".types", fromlist=["x"])
    model = types.FormatsResult(utc="2026-01-31T09:30:00+00:00")  # held as a datetime
    with pytest.raises(ToolValidationError) as info:
        ts.FORMATS_RESULT.encode(model)  # written with Z, which its pattern refuses
    assert [issue.field for issue in info.value.issues] == ["utc"]


# ── patterns in the schema's dialect ─────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("pattern", "named"),
    [
        ("^[[:digit:]]+$", "POSIX class"),
        ("^[a-z&&[^aeiou]]+$", "set operation"),
        ("^(?i)abc$", "inline flag"),
        (r"^\p{L}+$", "Unicode property"),
        (r"\bword\b", "word boundary"),
        ("^(?<year>[0-9]{4})$", "named group"),
        ("^a{,3}$", "'{'"),
    ],
)
def test_a_pattern_read_differently_by_ecma_262_is_a_design_error(
    gen_design: Callable[[str], Generated], pattern: str, named: str
) -> None:
    design = f"""
from tooldesign.dsl import *

with Service("svc", "A service"):
    with Toolset("ts", "A toolset"):
        with Tool("t", "A tool"):
            with Args():
                Attribute("code", String, "A code", pattern={pattern!r})
"""
    with pytest.raises(DesignError) as info:
        gen_design(design)
    message = str(info.value)
    assert named in message
    assert '› args › "code": pattern' in message
    assert "ECMA-262" in message
