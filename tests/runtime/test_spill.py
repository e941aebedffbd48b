"""Large results read back in pieces: the three overflow policies, the preview shaped like the
result, ``read_result`` by paths of the result schema only, handles scoped to their run."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest
from tooldesign.builtin.results import results_registration
from tooldesign.runtime import Limits, Runtime, ToolCallMeta, ToolRequest, ToolResult
from tooldesign.runtime.budget import CUT_KEY
from tooldesign.runtime.providers import adapter
from tooldesign.runtime.spill import MemoryResultStore, SpilledResult, preview

from tests.support.generated import Generator

DESIGN = """
from tooldesign.dsl import *

with Service("spl", "Spills"):
    with Toolset("t", "Tools with large results"):
        with Tool("rows", "List rows"):
            with Args():
                Attribute("size", Int, "Rows")
            with Return():
                with Attribute("rows", ArrayOf(Object), "The rows"):
                    Attribute("id", Int, "Its number")
                    Attribute("text", String, "Its text")
                    Attribute("tags", ArrayOf(String), "Its tags")
                    Required("id", "text")
                Attribute("query", String, "What was asked")
                Attribute("total", Int, "How many rows there are")
                Required("rows", "query", "total")
            Limits(result_bytes=2000, result_overflow="spill")
        with Tool("cut_rows", "List rows, cut past the budget"):
            with Args():
                Attribute("size", Int, "Rows")
            with Return():
                with Attribute("rows", ArrayOf(Object), "The rows"):
                    Attribute("id", Int, "Its number")
                    Attribute("text", String, "Its text")
                    Attribute("tags", ArrayOf(String), "Its tags")
                    Required("id", "text")
                Attribute("query", String, "What was asked")
                Attribute("total", Int, "How many rows there are")
                Required("rows", "query", "total")
            Limits(result_bytes=2000, result_overflow="cut")
        with Tool("essay", "Write text"):
            with Args():
                Attribute("size", Int, "Characters")
            Return(String, "The text")
            Limits(result_bytes=1000, result_overflow="spill")
        with Tool("strict_text", "Write text, refused past the budget"):
            with Args():
                Attribute("size", Int, "Characters")
            Return(String, "The text")
            Limits(result_bytes=1000, result_overflow="refuse")
"""

RUN = ToolCallMeta(run_id="run-1", tool_call_id="c-1")


def _rows(args: Any, meta: ToolCallMeta) -> Any:
    rows = [{"id": i, "text": f"row {i:05d}", "tags": ["a", "b"]} for i in range(args.size)]
    return {"rows": rows, "query": "all rows", "total": args.size}


def _text(args: Any, meta: ToolCallMeta) -> str:
    return "".join(chr(ord("a") + i % 26) for i in range(args.size))


@pytest.fixture(scope="module")
def executor(gen_design_for_module: Generator) -> ModuleType:
    return gen_design_for_module(DESIGN).module("spl.toolsets.t.executor")


def runtime_of(executor: ModuleType, *, read: bool = True, **options: Any) -> Runtime:
    handlers = {"rows": _rows, "cut_rows": _rows, "essay": _text, "strict_text": _text}
    runtime = Runtime([executor.new_registration(handlers=handlers)], **options)
    if read:
        runtime.register(results_registration(runtime))
    return runtime


def call(runtime: Runtime, name: str, payload: Any, meta: ToolCallMeta = RUN) -> ToolResult:
    return runtime.execute_sync(ToolRequest(name, payload, meta))


def handle_of(result: ToolResult) -> str:
    handle = result.telemetry.extra[CUT_KEY]["handle"]
    assert isinstance(handle, str) and handle in result.for_model()
    return handle


def read(runtime: Runtime, payload: Any, meta: ToolCallMeta = RUN) -> dict[str, Any]:
    result = call(runtime, "read_result", payload, meta)
    assert result.ok, result.for_model()
    data: dict[str, Any] = json.loads(result.for_model())
    return data


def test_the_preview_keeps_the_shape_the_scalars_and_the_first_items() -> None:
    value = {"rows": [{"id": i, "text": "x" * 20} for i in range(1000)], "total": 1000}
    shown = preview(value, 1000)
    assert shown is not None and len(shown.text.encode()) <= 1000
    assert shown.value["total"] == 1000
    count, total = shown.lists["rows"]
    assert total == 1000 and 1 <= count == len(shown.value["rows"]) < 1000
    assert shown.value["rows"][0] == {"id": 0, "text": "x" * 20}
    # Strings are cut only when not one item would fit otherwise.
    wide = preview({"rows": ["y" * 5000] * 3}, 800)
    assert wide is not None and wide.strings == ("rows[]",) and wide.value["rows"]
    assert preview({"a": "z" * 100}, 5) is None  # not even the shape fits


def test_a_spilled_result_is_a_preview_and_read_result_reads_the_rest(
    executor: ModuleType,
) -> None:
    runtime = runtime_of(executor)
    result = call(runtime, "rows", {"size": 500})
    assert result.ok
    text = result.for_model()
    assert len(text.encode()) <= 2000  # results never exceed the budget
    shown, end = json.JSONDecoder().raw_decode(text)
    notice = text[end:]
    assert shown["query"] == "all rows" and shown["total"] == 500
    first = len(shown["rows"])
    assert 0 < first < 500
    assert f"rows: {first:,} of 500 items shown" in notice
    handle = handle_of(result)
    assert f'read_result(handle="{handle}", path="rows", offset={first})' in notice
    # The whole value stays on the result for observers.
    assert len(result.result.rows) == 500
    seen = list(shown["rows"])
    offset: int | None = first
    while offset is not None:
        piece = read(runtime, {"handle": handle, "path": "rows", "offset": offset, "limit": 100})
        assert piece["offset"] == offset and piece["total"] == 500
        seen.extend(piece["value"])
        offset = piece.get("next_offset")
    assert [r["id"] for r in seen] == list(range(500))
    one = read(runtime, {"handle": handle, "path": "rows.7.text"})
    assert one["value"] == "row 00007"
    assert read(runtime, {"handle": handle, "path": "query"})["value"] == "all rows"


def test_read_result_only_reads_paths_of_the_tools_result_schema(executor: ModuleType) -> None:
    runtime = runtime_of(executor)
    handle = handle_of(call(runtime, "rows", {"size": 500}))
    for path in ("secrets", "rows.id", "rows.3.password", "total.x"):
        failed = call(runtime, "read_result", {"handle": handle, "path": path})
        assert not failed.ok, path
        assert "has no path" in failed.for_model() and "Paths: query, rows" in failed.for_model()


def test_handles_are_scoped_to_their_run_and_expire(executor: ModuleType) -> None:
    runtime = runtime_of(executor, result_ttl=60)
    handle = handle_of(call(runtime, "rows", {"size": 500}))
    other = ToolCallMeta(run_id="run-2", tool_call_id="c-9")
    failed = call(runtime, "read_result", {"handle": handle, "path": "rows"}, other)
    assert not failed.ok and "no result with the handle" in failed.for_model()
    forged = call(runtime, "read_result", {"handle": "res_forged", "path": "rows"})
    assert not forged.ok and "no result with the handle" in forged.for_model()


def test_a_store_given_empty_is_the_store_used(executor: ModuleType) -> None:
    # An empty MemoryResultStore is falsy (it has a length): it was replaced by a store of the
    # runtime's own, so a worker spilled where the agent's read_result never looked.
    shared = MemoryResultStore()
    worker = runtime_of(executor, read=False, result_store=shared)
    agent = runtime_of(executor, result_store=shared)
    handle = handle_of(call(worker, "rows", {"size": 500}))
    assert len(shared) == 1
    assert read(agent, {"handle": handle, "path": "total"})["value"] == 500


@pytest.mark.anyio
async def test_a_memory_store_drops_expired_and_oldest_entries() -> None:
    store = MemoryResultStore(max_bytes=100)
    await store.put(SpilledResult("res_a", "x.y.z", None, "1" * 60, expires=1e12))
    await store.put(SpilledResult("res_b", "x.y.z", None, "2" * 60, expires=1e12))
    assert await store.get("res_a") is None and await store.get("res_b") is not None
    await store.put(SpilledResult("res_c", "x.y.z", None, "3", expires=0))
    assert await store.get("res_c") is None


def test_text_spills_cut_with_a_handle_and_reads_back_by_characters(executor: ModuleType) -> None:
    runtime = runtime_of(executor)
    result = call(runtime, "essay", {"size": 5000})
    text = result.for_model()
    assert len(text.encode()) <= 1000
    handle = handle_of(result)
    shown = text[: text.index("\n\n[Cut here")]
    assert f"offset={len(shown)}" in text
    piece = read(runtime, {"handle": handle, "offset": len(shown), "limit": 300})
    assert (
        piece["value"] == _text(type("A", (), {"size": 5000})(), RUN)[len(shown) : len(shown) + 300]
    )


def test_cut_previews_data_without_a_handle_and_refuse_refuses_text(executor: ModuleType) -> None:
    runtime = runtime_of(executor)
    cut = call(runtime, "cut_rows", {"size": 500})
    assert cut.ok and "handle" not in cut.telemetry.extra[CUT_KEY]
    assert "Ask for less to see the rest." in cut.for_model()
    assert len(cut.for_model().encode()) <= 2000
    refused = call(runtime, "strict_text", {"size": 5000})
    assert not refused.ok and refused.retry_hint is not None
    # Without read_result registered, a spill is a preview the model can act on, not a handle.
    alone = call(runtime_of(executor, read=False), "rows", {"size": 500})
    assert alone.ok and "read_result" not in alone.for_model()


def test_the_runtime_can_spill_every_tool(executor: ModuleType) -> None:
    runtime = runtime_of(executor, limits=Limits(result_bytes=3000, result_overflow="spill"))
    # The design's own limits still win for its tools; read_result's answers fit the budget.
    handle = handle_of(call(runtime, "rows", {"size": 2000}))
    piece = read(runtime, {"handle": handle, "path": "rows", "limit": 100000})
    assert piece["returned"] < 2000 and piece["next_offset"] == piece["returned"]


def test_over_mcp_the_structured_content_is_the_preview(executor: ModuleType) -> None:
    runtime = runtime_of(executor)
    result = call(runtime, "rows", {"size": 500})
    message = adapter("mcp", runtime.specs()).result_message(result)
    structured = message["structuredContent"]
    assert structured["total"] == 500 and 0 < len(structured["rows"]) < 500
    assert "read_result" in message["content"][0]["text"]


# ── how to ask for less, from the design ────────────────────────────────────────────────────


def test_a_bounded_tool_over_budget_says_how_to_ask_for_less_from_its_arguments() -> None:
    from tests.support.spill import spilling_runtime

    hint = "Filter by status (online, offline or unknown); use a smaller limit (1 to 500)."
    meta = ToolCallMeta(run_id="run-1", session_id="s")
    call = ToolRequest("list_devices", '{"site_id": "hq", "limit": 50}', meta)
    for overflow in (None, "refuse", "cut", "spill"):
        runtime = spilling_runtime(Limits(result_bytes=700, result_overflow=overflow))
        answer = runtime.execute_sync(call)
        text = answer.for_model()
        assert hint in text or hint[0].lower() + hint[1:] in text, (overflow, text)
        if overflow in (None, "refuse"):  # refused: the bounds carry it too
            assert answer.bounds is not None and answer.bounds.refinement_hint == hint
    # A tool that is not bounded is told nothing more than before.
    runtime = spilling_runtime(Limits(result_bytes=300))
    topology = runtime.execute_sync(ToolRequest("get_topology", '{"site_id": "hq"}', meta))
    assert "Filter by" not in topology.for_model()


# ── a budget in tokens ──────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("overflow", [None, "refuse", "cut", "spill"])
def test_what_the_model_reads_fits_a_token_budget_too(overflow: Any) -> None:
    from tooldesign.runtime.providers.tokens import token_counter

    from tests.support.spill import spilling_runtime

    count = token_counter()
    assert count is not None
    meta = ToolCallMeta(run_id="run-1", session_id="s")
    runtime = spilling_runtime(Limits(result_tokens=400, result_overflow=overflow))
    answer = runtime.execute_sync(ToolRequest("list_devices", '{"site_id": "hq"}', meta))
    text = answer.for_model()
    assert count(text) <= 400 < count(answer.result_json or "")
    if overflow == "spill":
        assert 'read_result(handle="' in text and "devices: " in text
    # The model is told the budget the tool declared, in tokens, beside the bytes it became.
    assert "400 tokens" in text and " bytes here)" in text, text
    if overflow in (None, "refuse"):
        assert answer.error is not None and answer.error.details["budget_tokens"] == 400
    # A small result is left as it is.
    small = runtime.execute_sync(ToolRequest("get_site", '{"site_id": "hq"}', meta))
    assert small.model_text is None and small.ok


def test_cut_text_names_the_token_budget_and_a_byte_budget_names_bytes() -> None:
    from tooldesign.runtime.budget import within_budget

    text = "word " * 4000
    cut = within_budget(ToolResult("t", result=text), 65_536, "t", Limits(result_tokens=100))
    shown = cut.for_model()
    assert "as this tool returns at most 100 tokens at once (" in shown, shown[-300:]
    assert "Ask for less to see the rest." in shown
    # Under a byte budget alone (or when the bytes are the smaller), bytes are what it names.
    by_bytes = within_budget(ToolResult("t", result=text), 1_000, "t", Limits(result_bytes=1_000))
    assert "returns at most 1,000 bytes at once." in by_bytes.for_model()
    assert "tokens" not in by_bytes.for_model()


def test_a_refusal_with_a_way_to_narrow_gives_that_way_alone() -> None:
    from tests.support.spill import spilling_runtime

    meta = ToolCallMeta(run_id="run-1", session_id="s")
    call = ToolRequest("list_devices", '{"site_id": "hq", "limit": 50}', meta)
    refused = spilling_runtime(Limits(result_bytes=700)).execute_sync(call).for_model()
    assert "To narrow the request: Filter by status" in refused
    assert "asking for less" not in refused  # no generic line after the design's own
    # A tool with no way to narrow it gets the generic one.
    call = ToolRequest("get_topology", '{"site_id": "hq"}', meta)
    plain = spilling_runtime(Limits(result_bytes=100)).execute_sync(call).for_model()
    assert "again asking for less: narrower filters" in plain, plain


def test_a_token_budget_is_a_positive_integer() -> None:
    with pytest.raises(ValueError, match="result_tokens must be a positive integer"):
        Limits(result_tokens=0)
