"""Step 7 of a call, check the result: what the tool produced, held to its design before anything
of it is sent.

A bound method's value goes through its generated transform; the result is coerced to the
tool's result type, a bounded result keeps the bounded-result contract, server data is
validated (only the kinds on for this call), and the result is encoded as JSON. A result that
breaks its contract is a malformed response: the model reads that the tool is broken, the
application's log reads what is wrong. A handler may also answer with a whole ``ToolResult``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

import pydantic
import pydantic_core
from tooldesign.contract.content import ContentBlock, WithContent, undeclared
from tooldesign.jsonschema import keywords as K
from tooldesign.jsonschema.text import path_of, shown
from tooldesign.runtime import answers
from tooldesign.runtime.errors import (
    MAX_ISSUES,
    Constraint,
    FieldIssue,
    ToolValidationError,
)
from tooldesign.runtime.registration import Outcome, ToolBinding
from tooldesign.runtime.registry import RegisteredTool
from tooldesign.runtime.request import ToolCallMeta
from tooldesign.runtime.result import (
    BoundedResultModel,
    Bounds,
    ServerDataItem,
    ToolResult,
    ToolTelemetry,
)

log = logging.getLogger("tooldesign.runtime")


def check_result(
    tool: RegisteredTool,
    outcome: Outcome,
    meta: ToolCallMeta,
    telemetry: ToolTelemetry,
    *,
    paged: bool = False,
) -> ToolResult:
    """The result the tool produced, checked and encoded; or the answer to a malformed one.

    ``paged``: the call asked for a page after the first, so an empty page is honest.
    """
    spec = tool.spec
    binding = tool.binding
    value = outcome.value
    content: tuple[ContentBlock, ...] = ()
    if isinstance(value, WithContent):  # a rich result: its data, and its content blocks
        value, content = value.result, value.blocks
    extra: tuple[ServerDataItem, ...] = ()
    if outcome.convert is not None:
        try:
            value = outcome.convert(value)
        # The method returned what its tool's result type rejects (logged below).
        except Exception as exc:  # noqa: BLE001
            issues = _result_issues(binding, value) or _conversion_issues(exc)
            method = f"the result of {outcome.method or 'the bound method'}"
            problem = (
                f"{method} breaks the tool's result type"
                if issues
                else f"{method} cannot become the tool's result ({type(exc).__name__})"
            )
            return _malformed(tool, problem, issues, cause=exc)
    if isinstance(value, ToolResult):  # a handler answering with a full result
        if not value.ok:
            value.name = spec.id
            value.telemetry = telemetry
            telemetry.outcome = str(value.retry_hint.reason) if value.retry_hint else "error"
            return value
        extra, content = value.server_data, value.content or content
        value = value.result
    if content and (undeclared_kind := undeclared(content, spec.content)):
        return _malformed(tool, undeclared_kind, ())
    if value is None and carries_nothing(binding.result.spec.schema):
        value = {}  # a tool with no result (no Return, or an empty one): its code returns None
    try:
        # What is sent is what was checked: the result's JSON text, read back as the model
        # will read it.
        result, encoded = binding.result.check(value)
    except ToolValidationError as error:
        method = f"the result of {outcome.method}" if outcome.method else "the result"
        problem = f"{method} does not match the tool's result type"
        return _malformed(tool, problem, error.issues)
    # A value JSON cannot carry (in a field typed Any, say).
    except Exception as exc:  # noqa: BLE001
        problem = f"the result cannot be encoded as JSON ({type(exc).__name__})"
        return _malformed(tool, problem, (), cause=exc)
    bounds = None
    if isinstance(result, BoundedResultModel):
        bounds = result.result_bounds()
        problems = bounds_problems(bounds, paged=paged)
        if problems:
            return _malformed(tool, "; ".join(problems), ())
    server_data = _server_data(tool, outcome.server_data, extra, meta, telemetry)
    telemetry.outcome = "ok"
    return ToolResult(
        spec.id,
        result=result,
        bounds=bounds,
        server_data=server_data,
        telemetry=telemetry,
        result_json=encoded,
        content=content,
    )


def _malformed(
    tool: RegisteredTool,
    problem: str,
    issues: tuple[FieldIssue, ...] | list[FieldIssue],
    *,
    cause: BaseException | None = None,
) -> ToolResult:
    spec = tool.spec
    described = [issue.describe("result") for issue in issues]
    log.error(
        "tool %s returned a malformed response (a bug in the tool): %s",
        spec.id,
        f"{problem}: {'; '.join(described)}" if described else problem,
        exc_info=cause,
    )
    return answers.malformed_response(spec.id, spec.name, problem, tuple(issues), cause=cause)


def _server_data(
    tool: RegisteredTool,
    produced: Mapping[str, Callable[[], Any]],
    extra: tuple[ServerDataItem, ...],
    meta: ToolCallMeta,
    telemetry: ToolTelemetry,
) -> tuple[ServerDataItem, ...]:
    spec = tool.spec
    if not spec.server_data:
        if extra:
            log.warning("tool %s returned server data it does not declare; dropped", spec.id)
        return ()
    given = {item.kind: item.data for item in extra}
    unknown = set(given) - {s.kind for s in spec.server_data}
    if unknown:
        log.warning("tool %s returned undeclared server data %s; dropped", spec.id, sorted(unknown))
    items: list[ServerDataItem] = []
    dropped: list[str] = []
    for kind in spec.server_data:
        if not meta.server_data.get(kind.kind, kind.default == "on"):
            continue
        try:
            value = produced[kind.kind]() if kind.kind in produced else given.get(kind.kind)
            if value is None:
                continue
            data = value if isinstance(value, kind.model) else kind.model.model_validate(value)
        except Exception:  # server data is for observers: a bad one is dropped, not the call
            log.exception("tool %s produced invalid server data %r; dropped", spec.id, kind.kind)
            dropped.append(kind.kind)
            continue
        items.append(ServerDataItem(kind.kind, data))
    if dropped:
        telemetry.extra["dropped_server_data"] = dropped
    return tuple(items)


def carries_nothing(schema: Mapping[str, Any]) -> bool:
    """Whether a result schema is the empty object of a tool that returns nothing, whose code
    may return ``None`` for it."""
    return (
        schema.get(K.TYPE) == "object"
        and not schema.get(K.PROPERTIES)
        and schema.get(K.ADDITIONAL_PROPERTIES) is False
    )


def bounds_problems(bounds: Bounds, *, paged: bool = False) -> list[str]:
    """How ``bounds`` breaks the bounded-result contract (empty when it keeps it).

    ``paged`` says the call asked for a page after the first (it gave a cursor): nothing
    returned is then an honest last page whatever the total, not a broken count.
    """
    problems: list[str] = []
    if not isinstance(bounds.returned, int) or bounds.returned < 0:
        problems.append(f"returned must be a count, got {bounds.returned!r}")
        return problems
    if bounds.total is not None and bounds.total < bounds.returned:
        problems.append(f"total ({bounds.total}) is less than returned ({bounds.returned})")
    if bounds.returned == 0:
        if bounds.total != 0 and not paged:
            problems.append(f"nothing was returned, so total must be 0 (got {bounds.total!r})")
        if bounds.truncated:
            problems.append("nothing was returned, so the result cannot be truncated")
    if bounds.truncated and not (bounds.refinement_hint or bounds.next_cursor):
        problems.append("a truncated result must carry a refinement_hint or a next cursor")
    return problems


def _result_issues(binding: ToolBinding, returned: Any) -> tuple[FieldIssue, ...]:
    """Which fields of a method's result the tool's result type rejects, by path.

    The transform stops at the first nested value that fails; validating the whole result as
    plain JSON data names every bad field with its full path (``devices[0].id``). Fields the
    transform leaves out are not the tool's concern, so unknown-field issues are dropped.
    """
    try:
        binding.result.coerce(pydantic_core.to_jsonable_python(returned))
    except ToolValidationError as error:
        return tuple(i for i in error.issues if i.constraint is not Constraint.UNKNOWN_FIELD)
    except Exception:  # noqa: BLE001 - only an explanation is at stake; the log has the cause
        return ()
    return ()


def _conversion_issues(exc: Exception) -> tuple[FieldIssue, ...]:
    """The fields a result transform refused, from its own validation error: each relative to
    the tool type it was building (``TopologyNode.role``), where the method's result cannot be
    read as JSON to name them from the root."""
    if not isinstance(exc, pydantic.ValidationError):
        return ()
    issues = []
    for error in exc.errors(include_url=False)[:MAX_ISSUES]:
        field = path_of((exc.title, *error["loc"]))
        message = f"{error['msg']} (got {shown(error.get('input'))})"
        issues.append(FieldIssue(field, Constraint.INVALID_FIELD_TYPE, message))
    return tuple(issues)
