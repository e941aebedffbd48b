"""Where tasks meet the other features of the MCP server (``tooldesign.runtime.mcp.tasks``):
approvals asked inside a task, cancelling a task racing its completion, questions nobody
answers, a full store. Raw 2026-07-28 JSON-RPC over the streamable-HTTP app in process; the
tools (``seams/design.py``) record each side effect, so "ran twice" is counted."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from tooldesign.runtime import Timeout
from tooldesign.runtime.mcp import Tasks, TaskStore

from tests.runtime.mcp.seams.helpers import ALICE, BOB, Caller, Served, approve

pytestmark = pytest.mark.anyio


async def test_a_confirm_tool_run_as_a_task_asks_its_approval_inside_the_task(
    wire: Caller, effects: list[str]
) -> None:
    # Before: the task completed at once "awaiting approval" with nobody ever asked, and no
    # way for the client to approve: the tool could not run as a task at all.
    created = await wire.call("delete_file", filename="a.txt")
    parked = await wire.until(created["taskId"], "input_required", "completed")
    assert parked["status"] == "input_required" and list(parked["inputRequests"]) == ["approval"]
    question = parked["inputRequests"]["approval"]
    assert question["method"] == "elicitation/create"
    assert "Delete a.txt?" in question["params"]["message"]
    assert '{"filename": "a.txt"}' in question["params"]["message"]
    assert effects == []
    await wire.answer(created["taskId"], approval=approve(True))
    done = await wire.until(created["taskId"], "completed", "failed")
    assert done["result"]["content"][0]["text"] == "Deleted a.txt."
    # The same answer again: the question is gone, nothing runs again.
    replayed = await wire.answer(created["taskId"], approval=approve(True))
    assert "result" in replayed
    assert effects == ["deleted a.txt"]
    # Another task of the same call is asked again: an approval is for its own task only.
    again = await wire.call("delete_file", filename="a.txt")
    asked = await wire.until(again["taskId"], "input_required", "completed")
    assert asked["status"] == "input_required" and effects == ["deleted a.txt"]


async def test_an_approval_not_answered_as_asked_stays_asked_and_a_refusal_runs_nothing(
    wire: Caller, effects: list[str]
) -> None:
    created = await wire.call("delete_file", filename="b.txt")
    await wire.until(created["taskId"], "input_required")
    for wrong in ({"approve": "yes"}, {"approve": True, "also": 1}, {}):
        refused = await wire.answer(
            created["taskId"], approval={"action": "accept", "content": wrong}
        )
        assert refused["error"]["code"] == -32602
        assert "does not match its form" in refused["error"]["message"]
    still = await wire.result("tasks/get", {"taskId": created["taskId"]})
    assert still["status"] == "input_required" and "approval" in still["inputRequests"]
    await wire.answer(created["taskId"], approval={"action": "decline"})
    done = await wire.until(created["taskId"], "completed", "failed")
    assert done["result"]["isError"] is True and effects == []


async def test_only_the_caller_who_created_a_task_answers_its_approval(
    http: httpx.AsyncClient, wire: Caller, effects: list[str]
) -> None:
    created = await wire.call("delete_file", filename="c.txt")
    await wire.until(created["taskId"], "input_required")
    bob = Caller(http, BOB)
    stolen = await bob.answer(created["taskId"], approval=approve(True))
    assert stolen["error"]["code"] == -32602 and "No task" in stolen["error"]["message"]
    for method in ("tasks/get", "tasks/cancel"):
        assert (await bob.send(method, {"taskId": created["taskId"]}))["error"]["code"] == -32602
    still = await wire.result("tasks/get", {"taskId": created["taskId"]})
    assert still["status"] == "input_required" and effects == []


async def test_a_form_answer_that_does_not_match_is_refused_and_the_question_stays(
    wire: Caller, effects: list[str]
) -> None:
    # Before: the tool got AnswerMismatch and its task completed with an error; the person's
    # answer was lost. A task can refuse it at tasks/update and keep asking.
    created = await wire.call("ask_reason", label="logs")
    parked = await wire.until(created["taskId"], "input_required")
    assert list(parked["inputRequests"]) == ["reason"]
    short = await wire.answer(
        created["taskId"], reason={"action": "accept", "content": {"reason": "no"}}
    )
    assert short["error"]["code"] == -32602 and "'reason'" in short["error"]["message"]
    assert (await wire.result("tasks/get", {"taskId": created["taskId"]}))["status"] == (
        "input_required"
    )
    await wire.answer(
        created["taskId"], reason={"action": "accept", "content": {"reason": "disk full"}}
    )
    done = await wire.until(created["taskId"], "completed", "failed")
    assert done["result"]["content"][0]["text"] == "Archived logs: disk full."
    assert effects == ["archived logs: disk full"]


async def test_cancelling_a_task_whose_call_ran_completes_it_with_its_result(
    wire: Caller, served: Served, effects: list[str]
) -> None:
    # The call ran (its effect is done) and the server is still observing it when the client
    # cancels: "cancelled" would tell the client it did not run, and a retry would run it again.
    served.gate.clear()
    created = await wire.call("archive", label="x")
    await asyncio.wait_for(served.observing.wait(), 5)
    await wire.result("tasks/cancel", {"taskId": created["taskId"]})
    served.gate.set()
    done = await wire.until(created["taskId"], "completed", "cancelled", "failed")
    assert done["status"] == "completed"
    assert done["result"]["content"][0]["text"] == "Archived x."
    assert effects == ["archived x"]


async def test_a_server_closing_on_a_task_whose_call_ran_completes_it(
    wire: Caller, served: Served, effects: list[str]
) -> None:
    served.gate.clear()
    ran = await wire.call("archive", label="y")
    await asyncio.wait_for(served.observing.wait(), 5)
    served.tasks.close()  # every running task ends: the one whose call ran, with its result
    done = await wire.until(ran["taskId"], "completed", "cancelled", "failed")
    assert done["status"] == "completed" and done["result"]["content"][0]["text"] == "Archived y."
    assert effects == ["archived y"]


@pytest.mark.parametrize("store", [TaskStore(limit=2, per_caller=3, answer_within_ms=2000)])
async def test_questions_nobody_answers_end_their_tasks_and_free_the_store(
    wire: Caller, effects: list[str]
) -> None:
    # Before: a task parked on a question waited for ever — its call never ended, and two
    # such tasks filled this store for every caller.
    asking = await wire.call("ask_reason", label="logs")
    approving = await wire.call("delete_file", filename="d.txt")
    for created in (asking, approving):
        assert (await wire.until(created["taskId"], "input_required"))["status"] == (
            "input_required"
        )
    refused = await wire.send("tools/call", {"name": "archive", "arguments": {"label": "z"}})
    assert "runs 2 tasks already" in refused["error"]["message"]
    unanswered = await wire.until(asking["taskId"], "completed", "failed")
    assert unanswered["status"] == "completed" and unanswered["result"]["isError"] is True
    assert "Nobody answered 'reason'" in unanswered["result"]["content"][0]["text"]
    undecided = await wire.until(approving["taskId"], "completed", "failed")
    assert undecided["result"]["isError"] is True
    assert "tooldesign/approval" in undecided["result"]["_meta"]  # still awaiting a decision
    room = await wire.call("archive", label="z")
    assert (await wire.until(room["taskId"], "completed"))["status"] == "completed"
    assert effects == ["archived z"]


def test_the_store_given_is_the_store_used() -> None:
    # An empty TaskStore is falsy (it has a length): Tasks(store) kept a default store of its
    # own, so the limit given was never applied.
    store = TaskStore(limit=3)
    assert Tasks(store).store is store
    with pytest.raises(ValueError, match="answer_within_ms"):
        TaskStore(answer_within_ms=0)
    with pytest.raises(ValueError, match="per_caller"):
        TaskStore(per_caller=0)
    assert TaskStore(limit=1000).per_caller == 100 and TaskStore(limit=5).per_caller == 1


async def test_the_round_that_makes_a_task_sent_again_is_that_task(
    wire: Caller, effects: list[str]
) -> None:
    # Before: each copy of the answering round (a client's retry after a lost answer, a replay)
    # started a task of its own, and the tool ran once per copy.
    first = await wire.call("ask_first_then_archive", label="logs")
    assert first["resultType"] == "input_required"
    answered = {
        "name": "ask_first_then_archive",
        "arguments": {"label": "logs"},
        "inputResponses": {"reason": {"action": "accept", "content": {"reason": "disk full"}}},
        "requestState": first["requestState"],
    }
    made = [await wire.result("tools/call", answered) for _ in range(3)]
    assert {m["resultType"] for m in made} == {"task"}
    assert len({m["taskId"] for m in made}) == 1
    done = await wire.until(made[0]["taskId"], "completed", "failed")
    assert done["result"]["content"][0]["text"] == "Archived logs: disk full."
    again = await wire.result("tools/call", answered)
    assert again["taskId"] == made[0]["taskId"] and again["status"] == "completed"
    assert effects == ["archived logs: disk full"]


@pytest.mark.parametrize("options", [{"interceptors": [Timeout(0.5)]}])
async def test_a_persons_time_answering_a_task_is_not_the_tools(
    wire: Caller, effects: list[str]
) -> None:
    # Before: an approval's wait paused the call's Timeout, but a form's did not — a task
    # asking the user anything timed out after half a second of the person's reading time.
    asking = await wire.call("ask_reason", label="logs")
    approving = await wire.call("delete_file", filename="e.txt")
    for created in (asking, approving):
        await wire.until(created["taskId"], "input_required")
    await asyncio.sleep(1.0)
    await wire.answer(
        asking["taskId"], reason={"action": "accept", "content": {"reason": "disk full"}}
    )
    await wire.answer(approving["taskId"], approval=approve(True))
    for created, text in ((asking, "Archived logs: disk full."), (approving, "Deleted e.txt.")):
        done = await wire.until(created["taskId"], "completed", "failed")
        assert done["result"]["content"][0]["text"] == text
    assert sorted(effects) == ["archived logs: disk full", "deleted e.txt"]


async def test_an_approval_given_in_the_round_that_makes_the_task_is_not_asked_again(
    wire: Caller, effects: list[str]
) -> None:
    # Before: the person approved in the call's round, and the task asked them again.
    first = await wire.call("approve_first_then_archive", label="logs")
    assert first["resultType"] == "input_required" and list(first["inputRequests"]) == ["approval"]
    made = await wire.result(
        "tools/call",
        {
            "name": "approve_first_then_archive",
            "arguments": {"label": "logs"},
            "inputResponses": {"approval": approve(True)},
            "requestState": first["requestState"],
        },
    )
    assert made["resultType"] == "task"
    parked = await wire.until(made["taskId"], "input_required", "completed")
    assert list(parked.get("inputRequests", {})) == ["reason"]
    await wire.answer(made["taskId"], reason={"action": "accept", "content": {"reason": "old"}})
    done = await wire.until(made["taskId"], "completed", "failed")
    assert done["result"]["content"][0]["text"] == "Archived logs: old."
    assert effects == ["archived logs: old"]


async def test_an_approval_for_other_arguments_does_not_carry_into_a_task(
    wire: Caller, effects: list[str]
) -> None:
    first = await wire.call("approve_first_then_archive", label="logs")
    other = await wire.send(
        "tools/call",
        {
            "name": "approve_first_then_archive",
            "arguments": {"label": "everything"},
            "inputResponses": {"approval": approve(True)},
            "requestState": first["requestState"],
        },
    )
    assert other["error"]["code"] == -32602  # the state is bound to the call's arguments
    assert effects == []


async def test_an_http_app_that_stops_ends_every_task(served: Served) -> None:
    # Before: only an explicit tasks.close() ended them (the worked example never called it):
    # after the app stopped, a parked task went on waiting, and a running call on running.
    app = served.server.streamable_http_app()
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1"
        ) as http,
    ):
        wire = Caller(http, ALICE)
        wire.token = ""  # an app without authentication: the header is ignored
        parked = await wire.call("ask_reason", label="logs")
        await wire.until(parked["taskId"], "input_required")
    task = served.tasks.store.get(parked["taskId"], None)
    assert task is not None and task.status == "cancelled"
    assert task.runner is not None and task.runner.done()
    assert served.tasks.store.runners() == []


@pytest.mark.parametrize("store", [TaskStore(limit=4, per_caller=2)])
async def test_one_caller_cannot_take_every_place_in_the_store(
    http: httpx.AsyncClient, wire: Caller
) -> None:
    # Before: an authenticated caller could fill the store, refusing every other caller's task.
    for _ in range(2):
        await wire.call("ask_reason", label="mine")
    refused = await wire.send("tools/call", {"name": "archive", "arguments": {"label": "x"}})
    assert "You run 2 tasks" in refused["error"]["message"]
    bob = Caller(http, BOB)
    made = await bob.call("archive", label="bob's")
    assert (await bob.until(made["taskId"], "completed"))["status"] == "completed"


async def test_a_round_whose_task_is_forgotten_does_not_run_again(
    wire: Caller, served: Served, effects: list[str]
) -> None:
    # The task is kept 1 ms after it ends; its round's state lasts ten minutes: a copy sent
    # after the task was forgotten started the tool again.
    first = await wire.call("ask_first_briefly", label="logs")
    answered = {
        "name": "ask_first_briefly",
        "arguments": {"label": "logs"},
        "inputResponses": {"reason": {"action": "accept", "content": {"reason": "disk full"}}},
        "requestState": first["requestState"],
    }
    made = await wire.result("tools/call", answered)
    assert made["resultType"] == "task"
    for _ in range(200):
        if not served.tasks.store.runners():
            break
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.01)
    assert len(served.tasks.store) == 0  # ended and forgotten
    again = await wire.send("tools/call", answered)
    assert again["error"]["code"] == -32602 and "made a task already" in again["error"]["message"]
    assert effects == ["archived logs: disk full"]
