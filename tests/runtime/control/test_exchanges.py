"""Input requests from tools in process (``tooldesign.runtime.control.exchanges``): forms from
pydantic models, answers read back typed, a mismatch told apart from a refusal, nobody to ask
told in words a model can read, and sync tools asking from worker threads."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

import pytest
from pydantic import BaseModel, Field
from tooldesign.runtime import (
    AnswerMismatch,
    InputRequest,
    InputUnavailable,
    ToolRequest,
    answering,
    exchanges,
    form_schema,
)

pytestmark = pytest.mark.anyio


class Window(StrEnum):
    NIGHT = "night"
    WEEKEND = "weekend"


class Choice(BaseModel):
    window: Window = Field(Window.NIGHT, description="When to restart")
    notify: bool = True
    note: str | None = Field(None, max_length=40)
    days: list[Window] = []


class Nested(BaseModel):
    choice: Choice


def test_a_form_is_a_flat_schema_with_enums_defaults_and_bounds() -> None:
    schema = form_schema(Choice)
    assert schema["type"] == "object" and "required" not in schema
    assert schema["properties"]["window"] == {
        "default": "night",
        "description": "When to restart",
        "enum": ["night", "weekend"],
        "type": "string",
    }
    assert schema["properties"]["note"]["type"] == "string"
    assert schema["properties"]["note"]["maxLength"] == 40
    assert schema["properties"]["days"]["items"]["enum"] == ["night", "weekend"]


def test_a_form_cannot_hold_an_object() -> None:
    with pytest.raises(TypeError, match="field 'choice' of form Nested"):
        form_schema(Nested)


async def test_an_accepted_answer_comes_back_typed() -> None:
    asked: list[InputRequest] = []

    def person(request: InputRequest) -> Mapping[str, Any]:
        asked.append(request)
        return {"action": "accept", "content": {"window": "weekend", "notify": False}}

    with answering(person):
        answer = await exchanges().ask_user("When?", Choice)
    assert answer.accepted and answer.content == Choice(window=Window.WEEKEND, notify=False)
    assert asked[0].method == "elicitation/create" and asked[0].key == "user-1"
    assert asked[0].params["requestedSchema"] == form_schema(Choice)


async def test_declining_is_an_answer_and_a_mismatch_is_not() -> None:
    with answering(lambda request: {"action": "decline"}):
        declined = await exchanges().ask_user("When?", Choice)
    assert declined.action == "decline" and not declined.accepted
    wrong = {"action": "accept", "content": {"window": "noon"}}
    with answering(lambda request: wrong), pytest.raises(AnswerMismatch, match="Nothing was"):
        await exchanges().ask_user("When?", Choice)


async def test_nobody_to_ask_is_a_failure_the_model_can_read() -> None:
    assert not exchanges().available
    with pytest.raises(InputUnavailable, match="nobody can be asked"):
        await exchanges().ask_model("Summarise")


async def test_sampling_and_roots_in_process() -> None:
    async def host(request: InputRequest) -> Mapping[str, Any]:
        if request.method == "roots/list":
            return {"roots": [{"uri": "file:///srv", "name": "srv"}]}
        return {
            "role": "assistant",
            "content": {"type": "text", "text": "ok"},
            "model": "m",
            "stopReason": "endTurn",
        }

    with answering(host):
        sampled = await exchanges().ask_model("Hi", max_tokens=5, system="Be brief")
        roots = await exchanges().roots()
    assert sampled.text == "ok" and sampled.model == "m" and sampled.stop_reason == "endTurn"
    assert roots[0].uri == "file:///srv" and roots[0].name == "srv"


async def test_a_sync_tool_asks_from_a_worker_thread() -> None:
    def tool() -> str | None:
        return exchanges().ask_model_sync("Hi").text

    answer = {"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m"}
    with answering(lambda request: answer):
        text = await asyncio.to_thread(tool)
    assert text == "hello"


def test_a_sync_tool_asks_under_execute_sync() -> None:
    from examples.netops.mcp_server import runtime

    def user(request: InputRequest) -> Mapping[str, Any]:
        return {"action": "accept", "content": {"host": "edge.hq", "probes": 1}}

    with answering(user):
        result = runtime().execute_sync(ToolRequest("check_reachability", {"value": ""}))
    assert result.ok and result.result.raw["host"] == "edge.hq"
    assert result.result.raw["sent"] == 1
