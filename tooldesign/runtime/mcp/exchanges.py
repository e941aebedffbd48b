"""A ``tools/call`` whose tool asks for input or needs approval, served in both protocol eras.

- **Handshake protocol (≤ 2025-11-25).** What the tool asks (:mod:`~tooldesign.runtime.control.exchanges`:
  a form, the host's model, the roots) is sent to the client mid-call as server-to-client
  requests (``elicitation/create``, ``sampling/createMessage``, ``roots/list``) related to the
  call; a client that did not declare the capability is not asked: the tool gets
  :class:`~tooldesign.runtime.control.exchanges.InputUnavailable`, which it may handle, or
  which answers the model ``isError`` in words it can read.
- **2026-07-28.** The call answers ``input_required`` with every request the tool made that has
  no answer yet, keyed as the tool named them, and a ``requestState`` holding the answers
  given in earlier rounds; the client calls again with the answers (``inputResponses``) and the
  state, and the tool runs again from the start, its earlier questions now answered from them,
  until it completes (so a tool asks before it changes anything). The state is sealed
  (AES-256-GCM, the SDK's ``RequestStateBoundary``) and bound to the tool, its arguments, the
  authenticated caller and the server, for ten minutes by default: a tampered or expired
  state, or one replayed into another call, is refused (-32602) before anything runs. Each
  state names its round, and the call answered from it is that round's one run: a call a
  person approved, sent again with the same state, is answered with its run's result. Answers to keys that were not asked
  are ignored; an answer that does not match its request is asked again. A tool that fails
  because it asked what the client did not declare (``sampling`` without the capability) is
  answered -32021 (missing required client capability, HTTP 400), naming the capabilities;
  one that did without (``Exchanges.can_ask``) answers as it did.

Only what the tool's design declares (``Asks("user", "model", "roots")``) is asked: another
request fails in the tool with ``InputUnavailable`` (and a warning in the server's log), and
``can_ask`` says no.

Approvals ride the same rounds (their question under the key ``approval``): see
:mod:`tooldesign.runtime.mcp.control`.
"""

from __future__ import annotations

import contextvars
import dataclasses
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from tooldesign.runtime.control.exchanges import (
    ELICIT,
    ROOTS,
    SAMPLE,
    AnswerMismatch,
    InputRequest,
    InputUnavailable,
    answering,
)
from tooldesign.runtime.errors import ToolFailure
from tooldesign.runtime.mcp import control
from tooldesign.runtime.request import ToolCallMeta, ToolRequest
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.runtime import Runtime

log = logging.getLogger("tooldesign.runtime.mcp")
T = TypeVar("T")

_REQUESTS: Mapping[str, tuple[Any, Any]] = {
    ELICIT: (types.ElicitRequest, types.ElicitResult),
    SAMPLE: (types.CreateMessageRequest, types.CreateMessageResult),
    ROOTS: (types.ListRootsRequest, types.ListRootsResult),
}
_CAPABILITIES = {ELICIT: "elicitation", SAMPLE: "sampling", ROOTS: "roots"}
_WHAT = {ELICIT: "ask the user", SAMPLE: "ask its model", ROOTS: "list its roots"}


def _wire(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    return dumped


_WHOM = {ELICIT: "user", SAMPLE: "model", ROOTS: "roots"}


def can_answer(ctx: ServerRequestContext[Any, Any], method: str) -> bool:
    """Whether the client declared the capability ``method`` needs."""
    if method == ELICIT:
        return control.can_elicit(ctx)
    capabilities = ctx.session.client_capabilities
    if capabilities is None:
        return False
    return (capabilities.sampling if method == SAMPLE else capabilities.roots) is not None


IN_TASK: contextvars.ContextVar[Any] = contextvars.ContextVar("tooldesign_mcp_task", default=None)
"""The answerer of a call running as a task (:mod:`~tooldesign.runtime.mcp.tasks`), if it is."""


def declared(method: str, asks: tuple[str, ...]) -> bool:
    """Whether a tool whose design says ``Asks(*asks)`` may send a ``method`` request."""
    return _WHOM.get(method) in asks and method in _REQUESTS


def check_asked(request: InputRequest, asks: tuple[str, ...], ctx: Any) -> None:
    """Raise :class:`InputUnavailable` into the tool for a request its design does not
    declare or its client cannot answer."""
    if (undeclared := _undeclared(request, asks)) is not None:
        raise undeclared
    if not (declared(request.method, asks) and can_answer(ctx, request.method)):
        raise _refuse(request.method)


def wire_request(request: InputRequest) -> dict[str, Any]:
    """A request as an ``inputRequests`` entry carries it (``method`` and ``params``)."""
    return _wire(_request_of(request))


def answer_of(request: InputRequest, response: Any) -> dict[str, Any]:
    """The client's answer to ``request``, checked as its method's result (a pydantic
    ``ValidationError`` when it is not one)."""
    _, result_type = _REQUESTS[request.method]
    return _wire(result_type.model_validate(response))


def answers_of(params: types.CallToolRequestParams) -> dict[str, Any]:
    """The answers a call carries: its (verified) ``requestState``'s and its
    ``inputResponses``."""
    _, answers, _ = _state(params)
    for key, response in (params.input_responses or {}).items():
        answers[key] = _wire(response)
    return answers


def round_of(params: types.CallToolRequestParams) -> str | None:
    """The round a call answers (its verified ``requestState``'s), if it answers one."""
    return _state(params)[2]


class _Incapable(InputUnavailable):
    """The client did not declare the capability a request needs (``capability``)."""

    def __init__(self, message: str, capability: str | None) -> None:
        super().__init__(message)
        self.capability = capability


def _refuse(method: str) -> InputUnavailable:
    return _Incapable(
        f"This tool needs the client to {_WHAT.get(method, method)} during the call, and the "
        "client connected without that capability. Tell the user what is needed instead.",
        _CAPABILITIES.get(method),
    )


def _request_of(request: InputRequest) -> Any:
    request_type, _ = _REQUESTS[request.method]
    return request_type.model_validate({"method": request.method, "params": dict(request.params)})


def _undeclared(request: InputRequest, asks: tuple[str, ...]) -> InputUnavailable | None:
    """A request the tool's design does not declare (``Asks``): not sent."""
    whom = _WHOM.get(request.method)
    if whom is not None and whom in asks:
        return None
    log.warning(
        "a tool asked %s (%s) without Asks(%r) in its design: not sent",
        whom or request.method,
        request.key,
        whom,
    )
    return InputUnavailable(
        "This tool tried to ask for input its design does not declare, so it was not asked. "
        "Tell the user what is needed instead."
    )


class _MidCall:
    """Asks the client mid-call (the handshake protocol)."""

    __slots__ = ("asks", "ctx")

    def __init__(self, ctx: ServerRequestContext[Any, Any], asks: tuple[str, ...]) -> None:
        self.ctx = ctx
        self.asks = asks

    def can_answer(self, method: str) -> bool:
        declared = _WHOM.get(method) in self.asks
        return declared and method in _REQUESTS and can_answer(self.ctx, method)

    async def __call__(self, request: InputRequest) -> Mapping[str, Any]:
        if (undeclared := _undeclared(request, self.asks)) is not None:
            raise undeclared
        if not self.can_answer(request.method):
            raise _refuse(request.method)
        from mcp.shared.message import ServerMessageMetadata

        _, result_type = _REQUESTS[request.method]
        answer = await self.ctx.session.send_request(
            _request_of(request),
            result_type,
            metadata=ServerMessageMetadata(related_request_id=self.ctx.request_id),
        )
        return _wire(answer)


class InputPending(InputUnavailable):
    """Raised into a tool whose question goes back to the client in an ``input_required``
    result (the call's answer is then that result, never this failure)."""


class _RoundTrips:
    """Answers from the client's ``inputResponses`` and the earlier rounds' state; what is not
    answered yet is collected for the ``input_required`` result (2026-07-28)."""

    __slots__ = ("answers", "asked", "asks", "ctx", "missing", "pending")

    def __init__(
        self, ctx: ServerRequestContext[Any, Any], answers: dict[str, Any], asks: tuple[str, ...]
    ) -> None:
        self.ctx = ctx
        self.asks = asks
        self.answers = answers
        self.asked: dict[str, Any] = {}
        self.pending: dict[str, InputRequest] = {}
        self.missing: dict[str, None] = {}
        """The capabilities asked for that the client did not declare, in the order asked."""

    def can_answer(self, method: str) -> bool:
        declared = _WHOM.get(method) in self.asks
        return declared and method in _REQUESTS and can_answer(self.ctx, method)

    async def __call__(self, request: InputRequest) -> Mapping[str, Any]:
        if (undeclared := _undeclared(request, self.asks)) is not None:
            raise undeclared
        if not self.can_answer(request.method):
            if request.method in _CAPABILITIES:
                self.missing[_CAPABILITIES[request.method]] = None
            raise _refuse(request.method)
        answer = self.answers.get(request.key)
        if isinstance(answer, Mapping):
            self.asked[request.key] = answer
            return answer
        self.pending[request.key] = request
        raise InputPending(f"Waiting for the client's answer to {request.key!r}.")

    def ask_again(self, request: InputRequest) -> None:
        self.asked.pop(request.key, None)
        self.pending[request.key] = request


def _state(params: Any) -> tuple[str | None, dict[str, Any], str | None]:
    """The approval id, the answers and the round id the (verified) ``requestState`` carries."""
    raw = params.request_state
    if not raw:
        return None, {}, None
    try:
        state = json.loads(raw)
    except ValueError:
        return raw, {}, None  # an approval id alone (the state of a client of an older server)
    if not isinstance(state, dict):
        return None, {}, None
    answers = state.get("answers")
    approval = state.get("approval")
    round_id = state.get("round")
    return (
        approval if isinstance(approval, str) else None,
        dict(answers) if isinstance(answers, dict) else {},
        round_id if isinstance(round_id, str) else None,
    )


def _sealed_state(approval: str | None, answers: Mapping[str, Any]) -> str:
    # Each state names a round of its own: the call answered from it is that round's one run
    # (``_one_run``), so the same state sent again is not a second run of the tool.
    state = {"approval": approval, "answers": dict(answers), "round": secrets.token_hex(16)}
    return json.dumps(state, sort_keys=True)


def _one_run(request: ToolRequest, round_id: str | None) -> ToolRequest:
    """``request`` as the one run of the round ``round_id``: its call id comes from the round,
    so a runtime that ran it under a person's approval answers the same round sent again
    (a client's retry after a lost answer, a replayed request) with that run's result instead
    of running it again (:mod:`~tooldesign.runtime.control.approved_runs`). A call id the
    application gave (``meta_for``) is kept."""
    if round_id is None or request.meta.call_id is not None:
        return request
    meta = dataclasses.replace(request.meta, call_id=f"mcp-round-{round_id}")
    return ToolRequest(request.name, request.payload, meta)


async def execute(
    runtime: Runtime,
    ctx: ServerRequestContext[Any, Any],
    params: types.CallToolRequestParams,
    request: ToolRequest,
    client: str | None,
    asks: tuple[str, ...] = (),
) -> ToolResult | types.InputRequiredResult:
    """Run the call, its approval and input requests answered by the client (those its design
    declares: ``asks``)."""
    parked = IN_TASK.get()
    if parked is not None:  # a task: questions park it until tasks/update answers them
        approver = None
        if runtime.approver is None and control.can_elicit(ctx):
            approver = parked.approver(client)  # the approval question parks it too
        call_id = getattr(parked, "call_id", None)
        if call_id and request.meta.call_id is None:  # the task's: every server finds it
            meta = dataclasses.replace(request.meta, call_id=call_id)
            request = ToolRequest(request.name, request.payload, meta)
        with answering(parked):
            parked.result = await runtime.execute(request, approver=approver)
        return parked.result  # type: ignore[no-any-return]
    own_approver = runtime.approver is not None or not control.can_elicit(ctx)
    if not control.asks_in_round_trips(ctx):
        with answering(_MidCall(ctx, asks)):
            if own_approver:
                return await runtime.execute(request)
            return await runtime.execute(
                request, approver=control.elicitation_approver(ctx, client)
            )

    # 2026-07-28: questions go back to the client, which calls again with the answers.
    approval_id, answers, round_id = _state(params)
    request = _one_run(request, round_id)
    for key, response in (params.input_responses or {}).items():
        answers[key] = _wire(response)

    def answered() -> types.CallToolRequestParams:  # only a call that needs approval reads it
        return _answered(params, approval_id, answers)

    async def from_answer(approval: Any, meta: ToolCallMeta) -> Any:
        return control.answered_decision(answered(), approval, client)

    rounds = _RoundTrips(ctx, answers, asks)
    with answering(rounds):
        if own_approver:
            result = await runtime.execute(request)
        else:
            result = await runtime.execute(request, approver=from_answer)
    if not own_approver and result.awaiting_approval and result.approval is not None:
        if _was_answered(answered(), result.approval):
            return result  # dismissed: the call stays awaiting
        asked = control.input_required(result.approval)
        return asked.model_copy(update={"request_state": _sealed_state(result.approval.id, {})})
    if not rounds.pending:
        if rounds.missing and result.error is not None:
            raise _missing_capabilities(rounds.missing)
        return result
    kept = dict(rounds.asked)
    if approval_id is not None and control.APPROVAL_KEY in answers:
        kept[control.APPROVAL_KEY] = answers[control.APPROVAL_KEY]
    return types.InputRequiredResult(
        input_requests={key: _request_of(r) for key, r in rounds.pending.items()},
        request_state=_sealed_state(approval_id, kept),
    )


def _answered(
    params: types.CallToolRequestParams, approval_id: str | None, answers: Mapping[str, Any]
) -> types.CallToolRequestParams:
    """``params`` as :func:`control.answered_decision` reads them: the ``requestState`` the
    approval id the (verified) state names, the approval's answer from this round or an
    earlier one."""
    answered = params.model_copy(update={"request_state": approval_id})
    if control.APPROVAL_KEY in answers and control.APPROVAL_KEY not in (
        params.input_responses or {}
    ):
        answered = answered.model_copy(
            update={
                "input_responses": {
                    **(params.input_responses or {}),
                    control.APPROVAL_KEY: types.ElicitResult.model_validate(
                        answers[control.APPROVAL_KEY]
                    ),
                }
            }
        )
    return answered


def approval_answered(params: types.CallToolRequestParams) -> types.CallToolRequestParams:
    """``params`` (a round's call) as :func:`control.answered_decision` reads them: the
    decision a person sent in this round for exactly this call, if any."""
    approval_id, answers, _ = _state(params)
    return _answered(params, approval_id, answers)


async def asking(
    ctx: ServerRequestContext[Any, Any],
    params: types.GetPromptRequestParams,
    asks: tuple[str, ...],
    run: Callable[[], Awaitable[T]],
) -> T | types.InputRequiredResult:
    """``run()`` (a prompt's rendering), its input requests answered by the client as a tool
    call's are: mid-request on the handshake protocol, in ``input_required`` rounds on
    2026-07-28 (``run`` runs again from the start with the answers, sealed in the state as a
    tool's). What ``run`` could not ask (undeclared, a capability the client lacks) or got no
    fitting answer to is a JSON-RPC error naming it: a request has no tool result to carry it."""
    if not control.asks_in_round_trips(ctx):
        mid_call = _MidCall(ctx, asks)
        with answering(mid_call):
            try:
                return await run()
            except InputUnavailable as failure:
                raise _failed(failure, {}) from None
            except AnswerMismatch as failure:
                raise MCPError(types.INVALID_PARAMS, str(failure)) from None
    _, answers, _ = _state(params)
    for key, response in (params.input_responses or {}).items():
        answers[key] = _wire(response)
    rounds = _RoundTrips(ctx, answers, asks)
    with answering(rounds):
        try:
            done = await run()
        except (InputUnavailable, AnswerMismatch) as failure:
            if not rounds.pending:
                raise _failed(failure, rounds.missing) from None
        else:
            if not rounds.pending:
                return done
    return types.InputRequiredResult(
        input_requests={key: _request_of(r) for key, r in rounds.pending.items()},
        request_state=_sealed_state(None, rounds.asked),
    )


def _failed(failure: ToolFailure, missing: Mapping[str, None]) -> MCPError:
    """The error a request answers when what it asked went unanswered."""
    if isinstance(failure, _Incapable) and failure.capability is not None:
        missing = {**missing, failure.capability: None}
    if missing:
        return _missing_capabilities(missing, "prompt")
    return MCPError(types.INVALID_REQUEST, str(failure))


def _missing_capabilities(missing: Mapping[str, None], what: str = "tool") -> MCPError:
    """-32021: the tool needed what the client did not declare (and failed without it);
    ``requiredCapabilities`` is shaped as the client's capabilities (``{"sampling": {}}``)."""
    return MCPError(
        types.MISSING_REQUIRED_CLIENT_CAPABILITY,
        f"This {what} needs the client capabilities " + ", ".join(missing) + ".",
        data={"requiredCapabilities": {name: {} for name in missing}},
    )


def _was_answered(params: types.CallToolRequestParams, approval: Any) -> bool:
    """Whether the client answered this call's approval question (and dismissed it)."""
    return params.request_state == approval.id and control.APPROVAL_KEY in (
        params.input_responses or {}
    )
