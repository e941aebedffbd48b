"""The wire format: values that cross processes come back equal; bad messages say what is wrong.

No server needed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pydantic_core
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tooldesign.runtime import (
    ApprovalDecision,
    ApprovalRequest,
    Bounds,
    Constraint,
    FieldIssue,
    Recovery,
    RetryHint,
    RetryReason,
    Runtime,
    ToolCallMeta,
    ToolRequest,
    ToolResult,
    ToolTelemetry,
)
from tooldesign.runtime.dict_reader import DictFormatError
from tooldesign.runtime.errors import RemoteError, ToolError
from tooldesign.runtime.request import stable_call_id
from tooldesign.runtime.result import JsonData, ServerDataItem
from tooldesign.runtime.spec.catalog import load_catalog, toolset_version
from tooldesign.runtime.transports import TransportError
from tooldesign.runtime.transports.redis_client import require_server
from tooldesign.runtime.transports.wire import CallMessage, ReplyMessage, WireError
from tooldesign.runtime.validation.repairs import AppliedRepair

from examples.netops.services import Inventory, MetricsService
from gen.assistant.toolsets.metrics import executor as metrics
from tests.support import REPO
from tests.support.strategies import json_values

texts = st.text(max_size=20)
optional_texts = st.none() | texts
non_empty = st.text(min_size=1, max_size=20)
numbers = st.integers(-(2**40), 2**40) | st.floats(allow_nan=False, allow_infinity=False)

field_issues = st.builds(
    FieldIssue,
    field=texts,
    constraint=st.sampled_from(Constraint),
    message=texts,
    description=optional_texts,
    expected=optional_texts,
    actual=optional_texts,
    allowed=st.none() | st.lists(json_values, max_size=3).map(tuple),
    bounds=st.none() | st.dictionaries(non_empty, numbers, min_size=1, max_size=3),
    pattern=optional_texts,
    format=optional_texts,
    examples=st.none() | st.lists(json_values, min_size=1, max_size=3).map(tuple),
)

retry_hints = st.builds(
    RetryHint,
    reason=st.sampled_from(RetryReason),
    tool=texts,
    message=texts,
    restrict_to_tool=st.booleans(),
    missing_fields=st.lists(texts, max_size=3).map(tuple),
    example_input=json_values,
    prior_input=json_values,
    clarifying_question=st.none() | non_empty,
    issues=st.lists(field_issues, max_size=2).map(tuple),
    retry_after=st.none() | st.floats(min_value=0, max_value=1e6),
    valid_tools=st.lists(texts, max_size=3).map(tuple),
    suggested_tools=st.lists(texts, max_size=3).map(tuple),
    more_issues=st.integers(0, 100),
)

bounds = st.builds(
    Bounds,
    returned=st.integers(0, 10**6),
    total=st.none() | st.integers(0, 10**6),
    truncated=st.booleans(),
    refinement_hint=optional_texts,
    next_cursor=optional_texts,
)

metas = st.builds(
    ToolCallMeta,
    run_id=optional_texts,
    session_id=optional_texts,
    turn_id=optional_texts,
    tool_call_id=optional_texts,
    parent_tool_call_id=optional_texts,
    labels=st.dictionaries(texts, json_values, max_size=3),
    server_data=st.dictionaries(texts, st.booleans(), max_size=3),
    call_id=optional_texts,
    trace=st.dictionaries(st.sampled_from(["traceparent", "tracestate"]), texts),
)

errors = st.builds(
    ToolError,
    message=texts,
    cause=st.none() | st.lists(texts, min_size=1, max_size=3).map(RemoteError),
    details=st.dictionaries(texts, json_values, max_size=3),
)

decisions = st.builds(
    ApprovalDecision,
    id=texts,
    granted=st.booleans(),
    by=optional_texts,
    at=st.floats(min_value=0, max_value=4e9),
    reason=optional_texts,
)

approval_requests = st.builds(
    ApprovalRequest,
    id=texts,
    tool=texts,
    tool_id=texts,
    prompt=texts,
    arguments=st.dictionaries(texts, json_values, max_size=3),
    version=texts,
    requested_at=st.floats(min_value=0, max_value=4e9),
    tool_call_id=optional_texts,
    session_id=optional_texts,
    run_id=optional_texts,
)

telemetry = st.builds(
    ToolTelemetry,
    duration_ms=st.floats(min_value=0, max_value=1e6),
    outcome=texts,
    discarded_injected=st.lists(texts, max_size=2).map(tuple),
    extra=st.dictionaries(texts, json_values, max_size=2),
    repairs=st.lists(
        st.builds(AppliedRepair, field=texts, kind=texts, assumed=texts), max_size=2
    ).map(tuple),
    approval=st.none() | decisions,
)

results = st.builds(
    ToolResult,
    name=texts,
    result=st.none() | json_values,
    error=st.none() | errors,
    retry_hint=st.none() | retry_hints,
    bounds=st.none() | bounds,
    server_data=st.lists(
        st.builds(ServerDataItem, kind=texts, data=json_values.map(JsonData)), max_size=2
    ).map(tuple),
    telemetry=telemetry,
    tool_call_id=optional_texts,
    recovery=st.none() | st.sampled_from(Recovery),
    approval=st.none() | approval_requests,
).map(
    # As the runtime answers: an ok result carries the JSON its codec encoded.
    lambda r: replace(
        r,
        result_json=pydantic_core.to_json(r.result).decode()
        if r.error is None and r.result is not None
        else None,
    )
)


def through_json(data: dict[str, Any]) -> Any:
    return json.loads(json.dumps(data))


@given(field_issues)
def test_a_field_issue_comes_back_equal(issue: FieldIssue) -> None:
    assert FieldIssue.from_dict(through_json(issue.to_dict())) == issue


@given(retry_hints)
def test_a_retry_hint_comes_back_equal(hint: RetryHint) -> None:
    assert RetryHint.from_dict(through_json(hint.to_dict())) == hint


@given(bounds)
def test_bounds_come_back_equal(value: Bounds) -> None:
    assert Bounds.from_dict(through_json(value.to_dict())) == value


@given(approval_requests, decisions)
def test_approvals_come_back_equal(request: ApprovalRequest, decision: ApprovalDecision) -> None:
    assert ApprovalRequest.from_dict(through_json(request.to_dict())) == request
    assert ApprovalDecision.from_dict(through_json(decision.to_dict())) == decision


@given(metas)
def test_call_metadata_comes_back_equal(meta: ToolCallMeta) -> None:
    assert ToolCallMeta.from_dict(through_json(meta.to_dict())) == meta


@given(results)
def test_a_tool_result_comes_back_equal(result: ToolResult) -> None:
    data = through_json(result.to_dict())
    again = ToolResult.from_dict(data)
    assert again.to_dict() == data
    assert again.for_model() == result.for_model()
    assert (again.error.chain() if again.error else None) == (
        result.error.chain() if result.error else None
    )


def test_a_typed_result_comes_back_typed_through_its_codecs() -> None:
    registration = metrics.new_registration(service=MetricsService(Inventory()))
    result = Runtime([registration]).execute_sync(
        ToolRequest(
            "get_time_series",
            {"device_id": "dev-00000000", "metric": "latency", "window": "1h"},
            ToolCallMeta(server_data={"atlas.time_series": True}),
        )
    )
    binding = next(b for b in registration.tools if b.spec.name == "get_time_series")
    again = ToolResult.from_dict(through_json(result.to_dict()), binding)
    assert type(again.result) is type(result.result) and again.result == result.result
    assert again.result_json == result.result_json
    assert [(i.kind, type(i.data), i.data) for i in again.server_data] == [
        (i.kind, type(i.data), i.data) for i in result.server_data
    ]
    assert again.server_data


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ([], "a tool result must be a JSON object, got an array"),
        ({}, "a tool result: 'name' is missing"),
        ({"name": "t", "bounds": {"returned": "3"}}, "bounds: 'returned' must be an integer"),
        (
            {"name": "t", "retry_hint": {"reason": "bored", "tool": "t", "message": ""}},
            "'reason' 'bored' is not one of",
        ),
        ({"name": "t", "result_json": "{"}, "'result_json' is not JSON"),
    ],
)
def test_a_malformed_result_says_what_is_wrong(data: Any, problem: str) -> None:
    with pytest.raises(DictFormatError, match=problem):
        ToolResult.from_dict(data)


def test_a_call_message_comes_back_equal() -> None:
    message = CallMessage(
        call_id="c1",
        tool="assistant.devices.get_device",
        toolset="assistant.devices",
        version="e1310b168195",
        payload='{"device_id": "dev-00000000"}',
        meta=ToolCallMeta(session_id="s", trace={"traceparent": "00-aa-bb-01"}),
        deadline=1_800_000_000.25,
    )
    assert CallMessage.from_json(message.to_json()) == message
    approved = replace(message, approval=ApprovalDecision("id-1", True, by="alice", at=1.5))
    assert CallMessage.from_json(approved.to_json()) == approved
    reply = ReplyMessage("c1", {"name": "x"}, "w1")
    assert ReplyMessage.from_json(reply.to_json()) == reply


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{nope", "the call message is not JSON"),
        ('"text"', "the call message must be a JSON object, got a string"),
        ('{"v": 2}', "the call message has wire version 2; this tooldesign reads version 1"),
        ('{"v": 1, "id": "c"}', "the call message: 'tool' is missing"),
        (
            json.dumps(
                {
                    "v": 1,
                    "id": "c",
                    "tool": "a.b.c",
                    "toolset": "a.b",
                    "version": "x",
                    "payload": "{}",
                    "deadline": 1,
                    "meta": {"labels": []},
                }
            ),
            "call metadata: 'labels' must be an object, got an array",
        ),
    ],
)
def test_a_bad_call_message_says_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(WireError, match=problem):
        CallMessage.from_json(text)


def test_metadata_that_is_not_json_cannot_be_sent() -> None:
    message = CallMessage("c", "a.b.c", "a.b", "v", "{}", ToolCallMeta(labels={"x": object()}))
    with pytest.raises(WireError, match="cannot be sent as JSON"):
        message.to_json()


def test_a_call_id_is_stable_per_run_and_tool_call() -> None:
    assert stable_call_id("run", "call") == stable_call_id("run", "call")
    assert stable_call_id("run", "call") != stable_call_id("other", "call")
    assert stable_call_id("a:b", "c") != stable_call_id("a", "b:c")
    assert ToolCallMeta(run_id="run", tool_call_id="call").stable_id() == stable_call_id(
        "run", "call"
    )
    assert ToolCallMeta(tool_call_id="call").stable_id() is None
    assert ToolCallMeta(call_id="mine", run_id="r", tool_call_id="c").value_for("call_id") == "mine"


@pytest.mark.parametrize(
    "catalog",
    sorted(
        [
            *REPO.glob("gen/*/toolsets/*/tool_schemas.json"),
            *REPO.glob("tooldesign/builtin/gen/*/toolsets/*/tool_schemas.json"),
        ]
    ),
)
def test_the_fence_of_a_generated_toolset_is_its_catalog_version(catalog: Path) -> None:
    package = ".".join(catalog.parent.relative_to(REPO).parts)
    specs = __import__(f"{package}.specs", fromlist=["SPECS"]).SPECS
    assert toolset_version(specs) == load_catalog(catalog).version


def test_a_server_older_than_redis_7_is_refused_with_a_clear_error() -> None:
    with pytest.raises(TransportError, match=r"runs Redis 6\.2\.14; .* needs Redis 7\.0 or later"):
        require_server({"redis_version": "6.2.14"}, "redis://old:6379")
    assert require_server({"redis_version": "7.0.15"}, "u") == "Redis 7.0.15"
    assert (
        require_server({"redis_version": "7.2.4", "valkey_version": "8.1.1"}, "u") == "Valkey 8.1.1"
    )


@pytest.mark.slow
def test_importing_the_runtime_does_not_import_redis() -> None:
    code = (
        "import sys, tooldesign.runtime, tooldesign.runtime.transports; "
        "assert 'redis' not in sys.modules, 'redis was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)
