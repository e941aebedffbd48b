"""The runs of tasks (:mod:`~tooldesign.runtime.mcp.tasks`): what a call running as a task
asks while it runs — its approval, asked inside the task, and the checks an answer to each
question passes at ``tasks/update`` before the tool sees it — and how the runs end with the
server's transport.

- **Approval.** A ``Confirm`` tool's approval parks its task ``input_required`` under the key
  ``approval`` (the form of :mod:`~tooldesign.runtime.mcp.control`) until ``tasks/update``
  answers it: the task's own question, for exactly its call. An ``asks_first`` round that made
  the task and answered the approval of exactly this call (its sealed state names the approval
  id) decides it once, without asking again.
- **Answers.** An accepted answer that does not match the form the client was shown (the
  tool's form, or the approval's one ``approve`` boolean) is no answer: refused, and the
  question stays asked.
- **Ending.** When the SDK's lifespan ends (an HTTP app's, entered once; a stdio or in-memory
  connection's, once each), the last one open ends every running task (:func:`ending_with`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any, Protocol

from mcp import types
from tooldesign.runtime.control.approvals import ApprovalDecision, ApprovalRequest
from tooldesign.runtime.control.exchanges import (
    ELICIT,
    InputRequest,
    InputUnavailable,
    form_problem,
)
from tooldesign.runtime.mcp import control
from tooldesign.runtime.request import ToolCallMeta
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.workers import RunToEnd

Check = Callable[[dict[str, Any]], "str | None"]
"""What makes an answer (an MCP result as JSON) not an answer to its question (``None``: it is
one)."""


class Parked(Protocol):
    """The answerer of a task's call (:class:`~tooldesign.runtime.mcp.tasks.Parked`)."""

    round: types.CallToolRequestParams | None
    result: ToolResult | None
    end: RunToEnd

    async def park(self, request: InputRequest, check: Check) -> Mapping[str, Any]: ...


def approver(parked: Parked, client: str | None) -> Any:
    """The approver of the call ``parked`` answers for (see the module)."""

    async def approve(request: ApprovalRequest, meta: ToolCallMeta) -> ApprovalDecision | None:
        given, parked.round = parked.round, None
        decided = None if given is None else control.answered_decision(given, request, client)
        if decided is not None:  # decided in the round that made the task
            return decided
        question = control.approval_question(request)
        asked = InputRequest(
            control.APPROVAL_KEY,
            ELICIT,
            question.params.model_dump(by_alias=True, exclude_none=True, mode="json"),
        )
        try:
            answer = await parked.park(asked, approval_check)
        except InputUnavailable:  # nobody answered: no decision, the call stays awaiting
            return None
        return control.decision_of(types.ElicitResult.model_validate(answer), request, client)

    return approve


def form_check(request: InputRequest) -> Check:
    """An accepted answer to a form must match the form the client was shown."""
    schema = request.params.get("requestedSchema") if request.method == ELICIT else None

    def check(answer: dict[str, Any]) -> str | None:
        if not isinstance(schema, Mapping) or answer.get("action") != "accept":
            return None
        return form_problem(schema, answer.get("content") or {})

    return check


def approval_check(answer: dict[str, Any]) -> str | None:
    """An accepted answer to the approval question is one ``approve`` boolean."""
    return control.approval_mismatch(types.ElicitResult.model_validate(answer))


def ending_with(lifespan: Any, end: Callable[[], Awaitable[None]]) -> Any:
    """``lifespan`` (the SDK server's), after which, when the last one open ends, ``end()``
    (every task ends, before the transport is gone)."""
    entered = [0]

    @asynccontextmanager
    async def ending(app: Any) -> AsyncIterator[Any]:
        entered[0] += 1
        try:
            async with lifespan(app) as state:
                yield state
        finally:
            entered[0] -= 1
            if not entered[0]:
                await end()

    return ending
