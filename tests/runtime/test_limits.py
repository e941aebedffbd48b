"""No single call can stall the runtime: patterns match in linear time, arguments are held to
limits before they are validated, large ones are decoded off the event loop, and what reaches
the model stays within the tool's result budget.

On a small design generated for these tests (and codecs built by hand for schemas a design
would not hold).
"""

from __future__ import annotations

import functools
import json
import logging
import threading
import time
from types import ModuleType
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict
from tooldesign.contract.content import EmbeddedResource, ImageContent, ResourceLink, WithContent
from tooldesign.runtime import (
    Constraint,
    Limits,
    RetryReason,
    Runtime,
    ToolCallMeta,
    ToolResult,
    ToolValidationError,
)
from tooldesign.runtime.budget import CONTENT_LEFT_OUT_KEY
from tooldesign.runtime.providers import adapter
from tooldesign.runtime.result import Bounds, ServerDataItem
from tooldesign.runtime.spec.limits import MIB, ToolLimits
from tooldesign.runtime.spec.specs import TypeSpec
from tooldesign.runtime.validation.codecs import PayloadCodec

from tests.support.calls import call
from tests.support.generated import Generator

DESIGN = """
from tooldesign.dsl import *

FREE = {"type": "string", "pattern": "(a+)+$"}
KEYS = {
    "type": "object",
    "patternProperties": {"(a+)+$": {"type": "integer"}},
    "additionalProperties": False,
}
UNEVALUATED = {
    "type": "object",
    "patternProperties": {"(a+)+$": {"type": "integer"}},
    "unevaluatedProperties": False,
}

with Service("lim", "Limits"):
    with Toolset("t", "Tools held to limits"):
        with Tool("echo", "Take numbers and anything"):
            with Args():
                Attribute("items", ArrayOf(Int), "Numbers")
                Attribute("tree", Any, "Anything")
                Attribute("count", Int, "A count", maximum=10)
                Attribute("either", OneOf(Int, String), "A number or a name")
                Attribute("weight", Float, "A weight")
            Return(String, "What was taken")
        with Tool("hosts", "Check hosts"):
            with Args():
                Attribute("host", String, "A host", format="hostname", pattern="(a+)+$")
                Attribute("url", String, "A URL", format="uri", pattern="(a+)+$")
                Attribute("free", Any(schema=FREE), "Free text")
                Attribute("keys", Any(schema=KEYS), "Keyed counts")
                Attribute("unevaluated", Any(schema=UNEVALUATED), "More keyed counts")
            Return(String, "The verdict")
        with Tool("text", "Write text"):
            with Args():
                Attribute("size", Int, "Characters")
            Return(String, "The text")
        with Tool("rows", "List rows"):
            with Args():
                Attribute("size", Int, "Rows")
            with Return():
                Attribute("rows", ArrayOf(String), "The rows")
                Required("rows")
            with ServerData("stats", description="Row statistics"):
                Attribute("count", Int, "Rows made")
                Required("count")
        with Tool("page", "List rows a page at a time"):
            with Args():
                Attribute("size", Int, "Rows")
            with Return():
                Attribute("rows", ArrayOf(String), "The rows")
            BoundedResult()
        with Tool("small", "A tool with limits of its own"):
            with Args():
                Attribute("items", ArrayOf(Int), "Numbers")
                Attribute("note", String, "A note")
            Return(String, "The note")
            Limits(payload_bytes=1000, array_items=3, result_bytes=400)
        with Tool("attach", "Answer with documents attached"):
            with Args():
                Attribute("size", Int, "Characters of each document")
            Return(String, "A summary")
            Content("resource", "resource_link", "image")
            Limits(result_bytes=400)
"""

ALICE = ToolCallMeta(session_id="s-1", tool_call_id="c-1")


@pytest.fixture(scope="module")
def generated(gen_design_for_module: Generator) -> ModuleType:
    return gen_design_for_module(DESIGN).module("lim.toolsets.t.executor")


def _echo(args: Any, meta: ToolCallMeta) -> str:
    return "ok"


def _text(args: Any, meta: ToolCallMeta) -> str:
    return "é" * (args.size // 2) + "x" * (args.size % 2)


def _rows(args: Any, meta: ToolCallMeta) -> Any:
    rows = [f"row {i:06d} " + "." * 40 for i in range(args.size)]
    result = {"rows": rows}
    stats: Any = {"count": len(rows)}  # read by the tool's server-data type
    return ToolResult("rows", result=result, server_data=(ServerDataItem("stats", stats),))


def _page(args: Any, meta: ToolCallMeta) -> Any:
    rows = [f"row {i:06d} " + "." * 40 for i in range(args.size)]
    return {
        "rows": rows,
        "returned": len(rows),
        "total": 2 * len(rows),
        "truncated": True,
        "refinement_hint": "Filter by site_id to get fewer rows",
    }


HANDLERS = {
    "echo": _echo,
    "hosts": _echo,
    "text": _text,
    "rows": _rows,
    "page": _page,
    "small": lambda args, meta: args.note,
    "attach": lambda args, meta: WithContent(
        "Two documents and a picture.",
        EmbeddedResource("docs://a", "text/plain", text="a" * args.size),
        ImageContent(b"\x89PNG" + b"\x00" * 4000, "image/png"),
        EmbeddedResource("docs://b", "text/plain", text="b" * args.size),
        ResourceLink("docs://c", "c", description="c" * args.size),
    ),
}


def runtime_of(executor: ModuleType, limits: Limits | None = None, **handlers: Any) -> Runtime:
    registration = executor.new_registration(handlers={**HANDLERS, **handlers})
    return Runtime([registration], **({"limits": limits} if limits else {}))


run = functools.partial(call, meta=ALICE)


def issue_lines(result: ToolResult) -> list[str]:
    assert result.retry_hint is not None, result.for_model()
    return [issue.describe() for issue in result.retry_hint.issues]


def timed(runtime: Runtime, name: str, payload: Any) -> tuple[ToolResult, float]:
    started = time.perf_counter()
    result = run(runtime, name, payload)
    return result, time.perf_counter() - started


# ── patterns match in linear time ────────────────────────────────────────────────────────

# Each value takes Python's re some 2**40 steps to refuse: only a linear engine answers.
HOSTILE = "a" * 40


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("host", HOSTILE + ".b", "host: must match the pattern (a+)+$"),
        ("url", "http://" + HOSTILE + ".b", "url: must match the pattern (a+)+$"),
        ("free", HOSTILE + "!", "free: must match the pattern (a+)+$"),
        ("keys", {HOSTILE + "!": 1}, 'keys."aaaaaaaa'),
        ("unevaluated", {HOSTILE + "!": 1}, 'unevaluated."aaaaaaaa'),
    ],
)
@pytest.mark.parametrize("form", ["text", "dict"])
def test_a_design_pattern_cannot_stall_a_call(
    generated: ModuleType, field: str, value: Any, expected: str, form: str
) -> None:
    runtime = runtime_of(generated)
    payload = {field: value}
    result, took = timed(runtime, "hosts", json.dumps(payload) if form == "text" else payload)
    assert took < 2.0
    assert any(line.startswith(expected) for line in issue_lines(result)), issue_lines(result)


def test_values_that_match_the_patterns_pass(generated: ModuleType) -> None:
    runtime = runtime_of(generated)
    payload = {
        "host": "aaa",
        "url": "http://x/aaa",
        "free": "baaa",
        "keys": {"aa": 1},
        "unevaluated": {"xaa": 2},
    }
    assert run(runtime, "hosts", payload).ok
    # A matched key still holds its schema's value type.
    result = run(runtime, "hosts", {"keys": {"aa": "one"}})
    assert issue_lines(result)[0].startswith("keys.aa: expected integer")


class _Free(BaseModel):
    model_config = ConfigDict(extra="forbid")
    free: Any = None


def _free_codec(schema: dict[str, Any]) -> PayloadCodec[_Free]:
    spec = TypeSpec(
        "Free",
        _Free,
        {"type": "object", "properties": {"free": schema}, "additionalProperties": False},
        check_schema=True,
    )
    return PayloadCodec("free", spec)


def test_a_pattern_the_linear_engine_cannot_read_is_not_checked_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    codec = _free_codec({"type": "string", "pattern": "^(?=a)(a+)+$"})
    with caplog.at_level(logging.WARNING, "tooldesign.runtime"):
        started = time.perf_counter()
        assert codec.decode({"free": HOSTILE + "!"}).free == HOSTILE + "!"
        assert time.perf_counter() - started < 2.0
    assert any("cannot be matched in linear time" in r.getMessage() for r in caplog.records)


def test_property_names_and_nested_patterns_match_in_linear_time() -> None:
    codec = _free_codec(
        {
            "type": "object",
            "propertyNames": {"pattern": "(a+)+$"},
            "additionalProperties": {"type": "array", "items": {"pattern": "(b+)+$"}},
        }
    )
    started = time.perf_counter()
    with pytest.raises(ToolValidationError) as caught:
        codec.decode({"free": {HOSTILE + "!": ["b" * 40 + "!"]}})
    assert time.perf_counter() - started < 2.0
    assert caught.value.issues[0].constraint is Constraint.INVALID_PATTERN


# ── arguments are held to limits before they are validated ──────────────────────────────


def test_arguments_over_the_size_limit_are_refused_unread(generated: ModuleType) -> None:
    calls: list[Any] = []
    runtime = runtime_of(generated, echo=lambda args, meta: calls.append(args) or "ok")
    # Not even JSON: had it been read, the answer would say so.
    text = '{"tree": "' + "x" * (2 * MIB)
    result, took = timed(runtime, "echo", text)
    assert took < 1.0 and not calls
    hint = result.retry_hint
    assert hint is not None and hint.reason is RetryReason.INVALID_ARGUMENTS
    assert "too large: 2,097,162 bytes (2.0 MiB)" in result.for_model()
    assert "at most 1,048,576 bytes (1 MiB)" in result.for_model()
    # What was sent is not echoed back.
    assert hint.prior_input is None and len(json.dumps(hint.to_dict())) < 2_000
    # Parsed already (a provider's dict): counted as it would be written, and refused too.
    result, took = timed(runtime, "echo", {"tree": ["x" * 1000] * 5_000})
    assert took < 1.0 and not calls
    assert "too large: about" in result.for_model()


def test_the_limits_are_the_runtimes_to_set(generated: ModuleType) -> None:
    runtime = runtime_of(generated, Limits(payload_bytes=4 * MIB, array_items=200_000))
    assert run(runtime, "echo", {"tree": "x" * (2 * MIB), "items": [1] * 150_000}).ok
    with pytest.raises(ValueError, match="positive integer"):
        Limits(payload_bytes=0)
    with pytest.raises(ValueError, match="at most 200"):
        Limits(depth=500)


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("form", ["text", "dict"])
def test_nesting_and_long_arrays_are_refused_where_they_are(
    generated: ModuleType, form: str
) -> None:
    runtime = runtime_of(generated, Limits(depth=10))

    def call(payload: Any) -> ToolResult:
        return run(runtime, "echo", json.dumps(payload) if form == "text" else payload)

    assert call({"tree": nested(9)}).ok
    # Text this short cannot nest so deep: only the walk after reading it finds it.
    lines = issue_lines(call({"tree": nested(40)}))
    assert lines == ["tree[0][0][0][0][0][0][0][0][0]: nested deeper than 10 levels"]
    result, took = timed(runtime, "echo", {"items": ["x"] * 1_000_000})  # a wrong-typed million
    assert took < 1.0
    assert issue_lines(result) == [
        (
            "items: has 1,000,000 items where this tool accepts at most 10,000 in one array; "
            "send fewer, or split the work into several calls"
        )
    ]
    assert issue_lines(call({"items": [1] * 10_001}))[0].startswith("items: has 10,001 items")
    assert call({"items": [1] * 10_000}).ok


def test_a_dict_that_contains_itself_is_answered(generated: ModuleType) -> None:
    runtime = runtime_of(generated)
    cyclic: dict[str, Any] = {"count": 1}
    cyclic["tree"] = {"again": cyclic}
    answered: list[ToolResult] = []
    thread = threading.Thread(
        target=lambda: answered.append(run(runtime, "echo", cyclic)), daemon=True
    )
    thread.start()
    thread.join(10)
    assert answered, "execute never returned"
    [line] = issue_lines(answered[0])
    assert line.startswith("tree.again: refers to itself")


def test_a_tool_sets_its_own_limits_in_its_design(generated: ModuleType) -> None:
    spec = generated.specs.SMALL_SPEC
    assert spec.limits == ToolLimits(payload_bytes=1000, array_items=3, result_bytes=400)
    runtime = runtime_of(generated)
    assert issue_lines(run(runtime, "small", {"items": [1, 2, 3, 4]}))[0].startswith(
        "items: has 4 items where this tool accepts at most 3"
    )
    assert "at most 1,000 bytes" in run(runtime, "small", {"note": "n" * 1000}).for_model()
    # Other tools keep the runtime's limits.
    assert run(runtime, "echo", {"items": [1, 2, 3, 4]}).ok
    cut = run(runtime, "small", {"note": "n" * 900})
    assert cut.ok and cut.for_model().startswith("nnn")
    assert len(cut.for_model().encode()) <= 400 and "Cut here" in cut.for_model()


def test_large_arguments_are_decoded_off_the_event_loop(generated: ModuleType) -> None:
    runtime = runtime_of(generated)
    codec = generated.codecs.ECHO_PAYLOAD
    threads: list[str] = []
    decode = codec.decode_detailed

    def recording(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        return decode(*args, **kwargs)

    codec_type = type(codec)
    original = codec_type.decode_detailed
    try:
        codec_type.decode_detailed = lambda self, *a, **k: recording(*a, **k)  # type: ignore[method-assign]
        assert run(runtime, "echo", {"items": [1, 2]}).ok
        assert run(runtime, "echo", json.dumps({"tree": "x" * 100_000})).ok
        assert run(runtime, "echo", {"tree": [[1]] * 5_000}).ok
    finally:
        codec_type.decode_detailed = original  # type: ignore[method-assign]
    on_loop, *off_loop = threads
    assert not on_loop.startswith("tooldesign-decode")
    assert all(name.startswith("tooldesign-decode") for name in off_loop), threads


def test_many_problems_are_read_from_a_first_part_of_the_arguments(
    generated: ModuleType,
) -> None:
    runtime = runtime_of(generated, Limits(array_items=100_000))
    payload = {"items": [1] * 50 + ["x"] * 99_950, "count": 11, "undeclared": 1}
    result, took = timed(runtime, "echo", payload)
    assert took < 1.0
    hint = result.retry_hint
    assert hint is not None and len(hint.issues) == 20
    assert [issue.field for issue in hint.issues[:2]] == ["items[50]", "items[51]"]
    assert hint.more_issues == 99_950 + 2 - 20


# ── JSON Schema's integer takes 3.0 ──────────────────────────────────────────────────────


@pytest.mark.parametrize("form", ["text", "dict"])
def test_an_integral_number_is_an_integer(generated: ModuleType, form: str) -> None:
    codec = generated.codecs.ECHO_PAYLOAD

    def decode(payload: Any) -> Any:
        return codec.decode(json.dumps(payload) if form == "text" else payload)

    value = decode({"count": 3.0, "items": [1.0, 2, 1e3], "either": 4.0, "weight": 2.0})
    assert value.count == 3 and type(value.count) is int
    assert value.items == [1, 2, 1000] and all(type(i) is int for i in value.items)
    assert value.either == 4 and type(value.either) is int
    assert value.weight == 2.0 and type(value.weight) is float
    for bad, problem in ((3.5, "got number 3.5"), ("3", 'got string "3"'), (True, "got boolean")):
        with pytest.raises(ToolValidationError) as caught:
            decode({"count": bad})
        assert problem in caught.value.issues[0].message
    # Read as an integer, it is held to the integer's bounds.
    with pytest.raises(ToolValidationError, match=r"must be <= 10 \(got 11\)"):
        decode({"count": 11.0})


# ── what reaches the model stays within the result budget ────────────────────────────────


def test_a_text_result_over_the_budget_is_cut_with_a_notice(generated: ModuleType) -> None:
    runtime = runtime_of(generated)
    result = run(runtime, "text", {"size": 2_000_001})
    assert result.ok
    text = result.for_model()
    assert len(text.encode()) <= 64 * 1024
    assert text.startswith("éé")
    assert "[Cut here: the result is 2,000,001 bytes (1.9 MiB); only its first" in text
    assert "Ask for less to see the rest.]" in text
    # The whole text stays for observers; the cut is recorded.
    assert isinstance(result.result.root, str) and len(result.result.root) == 1_000_001
    cut = result.telemetry.extra["result_cut"]
    assert cut["bytes"] == 2_000_001 and cut["budget"] == 64 * 1024
    # Providers send the cut text (MCP's structured content too), and it travels as it is.
    message = adapter("mcp", runtime.specs()).result_message(result)
    assert message["structuredContent"] == {"result": text}
    assert ToolResult.from_dict(json.loads(json.dumps(result.to_dict()))).for_model() == text
    # Under the budget nothing changes.
    small = run(runtime, "text", {"size": 10})
    assert small.for_model() == "é" * 5 and "result_cut" not in small.telemetry.extra


def test_structured_data_over_the_budget_is_refused_and_kept_for_observers(
    generated: ModuleType,
) -> None:
    runtime = runtime_of(generated)
    result = run(runtime, "rows", {"size": 40_000})
    assert not result.ok
    hint = result.retry_hint
    assert hint is not None and hint.reason is RetryReason.RESULT_TOO_LARGE
    assert result.telemetry.outcome == "result_too_large"
    text = result.for_model()
    assert text.startswith("Error: Tool 'rows' returned 2,")
    assert "more than the 65,536 bytes (64 KiB) it may return at once" in text
    assert "Call 'rows' again asking for less" in text and len(text) < 600
    # Observers still have all of it.
    assert len(result.result.rows) == 40_000
    assert [item.kind for item in result.server_data] == ["stats"]
    assert result.telemetry.extra["result_cut"]["shown"] == 0
    message = adapter("mcp", runtime.specs()).result_message(result)
    assert message["isError"] is True and "structuredContent" not in message
    assert run(runtime, "rows", {"size": 10}).ok


def test_a_bounded_result_over_the_budget_says_how_to_narrow(generated: ModuleType) -> None:
    result = run(runtime_of(generated), "page", {"size": 40_000})
    assert result.retry_hint is not None
    assert result.retry_hint.reason is RetryReason.RESULT_TOO_LARGE
    text = result.for_model()
    assert "It returned 40,000 of 80,000 items." in text
    assert "To narrow the request: Filter by site_id to get fewer rows" in text
    assert result.bounds == Bounds(
        40_000, 80_000, True, refinement_hint="Filter by site_id to get fewer rows"
    )


def test_embedded_text_takes_the_room_the_data_leaves(generated: ModuleType) -> None:
    runtime = runtime_of(generated)
    small = run(runtime, "attach", {"size": 100})  # all of it fits 400 bytes: as it was
    assert [b.kind for b in small.content] == ["resource", "image", "resource", "resource_link"]
    assert CONTENT_LEFT_OUT_KEY not in small.telemetry.extra
    # 250 bytes each: the first fits beside the data, the second does not and is linked.
    answer = run(runtime, "attach", {"size": 250})
    assert answer.ok and answer.for_model() == "Two documents and a picture."
    first, image, second, link = answer.content
    assert isinstance(first, EmbeddedResource) and first.text == "a" * 250
    assert isinstance(image, ImageContent)  # media: the provider's own limits decide
    assert isinstance(second, ResourceLink) and second.uri == "docs://b"
    assert second.description is not None and "over this tool's result budget" in second.description
    assert isinstance(link, ResourceLink) and link.description is None  # too long: URI and name
    assert answer.telemetry.extra[CONTENT_LEFT_OUT_KEY] == [{"uri": "docs://b", "bytes": 250}]
    # What an MCP client receives holds no more text than the budget allows, beside the data.
    message = adapter("mcp", runtime.specs()).result_message(answer)
    texts = [json.dumps(block) for block in message["content"] if block["type"] != "image"]
    assert sum(len(text) for text in texts) < 400 + 400
    # Over a worker: the blocks go as they were kept.
    assert ToolResult.from_dict(json.loads(json.dumps(answer.to_dict()))).content == answer.content


def test_the_result_budget_is_the_runtimes_to_set(generated: ModuleType) -> None:
    runtime = runtime_of(generated, Limits(result_bytes=8 * MIB))
    assert run(runtime, "rows", {"size": 40_000}).ok
    assert run(runtime, "text", {"size": 2_000_001}).for_model().endswith("x")
