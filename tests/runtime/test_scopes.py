"""Scopes in process: a caller whose verified principal lacks a tool's scopes is refused before
anything of the call runs, a call with no principal runs as it always did (unless the runtime
requires one), and every call leaves one audit record saying who, what and how it ended."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest
from tooldesign.runtime import (
    ApprovalRequest,
    AuditRecord,
    JsonLinesAudit,
    Principal,
    Runtime,
    Timeout,
    ToolCallMeta,
    ToolFailure,
    ToolRequest,
    verify_audit,
)
from tooldesign.runtime.control.audit import arguments_digest

from tests.support.calls import ALICE, call
from tests.support.netops import Restarts, example_runtime

RESTART = {"device_id": "dev-0a1b2c3d", "reason": "stuck after update"}
OPS = Principal.of("ann", ["devices:write", "devices:read"], client_id="console")
VIEWER = Principal.of("bob", ["devices:read"])


def as_(principal: Principal | None, tool_call_id: str = "call-1") -> ToolCallMeta:
    return dataclasses.replace(ALICE, principal=principal, tool_call_id=tool_call_id)


class Trail:
    """An audit sink that keeps its records (and can be told to fail)."""

    def __init__(self) -> None:
        self.records: list[AuditRecord] = []
        self.fail = False

    def record(self, record: AuditRecord) -> None:
        if self.fail:
            raise OSError("disk full")
        self.records.append(record)


def approve(request: ApprovalRequest, meta: ToolCallMeta) -> Any:
    return request.approve(by="lead")


def deny(request: ApprovalRequest, meta: ToolCallMeta) -> Any:
    return request.deny(by="lead", reason="not during business hours")


@pytest.fixture
def restarts() -> Restarts:
    return Restarts()


def runtime_with(restarts: Restarts, trail: Trail | None = None, **options: Any) -> Runtime:
    options.setdefault("approver", approve)
    return example_runtime(device_handlers={"restart_device": restarts}, audit=trail, **options)


# ── who may call ──────────────────────────────────────────────────────────────────────────


def test_a_caller_without_the_scope_is_refused_before_anything_runs(restarts: Restarts) -> None:
    asked: list[ApprovalRequest] = []

    def approver(request: ApprovalRequest, meta: ToolCallMeta) -> bool:
        asked.append(request)
        return True

    runtime = runtime_with(restarts, approver=approver)
    result = call(runtime, "restart_device", RESTART, as_(VIEWER))

    assert result.error is not None and result.telemetry.outcome == "forbidden"
    text = result.for_model()
    assert "'devices:write'" in text and "credentials do not grant" in text
    assert "devices:read" not in text  # what the caller holds, or other scopes: never told
    assert result.error.details == {"missing_scopes": ["devices:write"]}
    assert restarts.ran == [] and asked == []  # no person was asked, nothing ran


def test_a_refused_call_is_refused_whatever_its_arguments(restarts: Restarts) -> None:
    runtime = runtime_with(restarts)
    for payload in ("not json", "{}", {"device_id": 7}, RESTART):
        result = call(runtime, "restart_device", payload, as_(VIEWER))
        assert result.telemetry.outcome == "forbidden", payload  # arguments were never read


def test_a_caller_holding_the_scope_runs_the_tool(restarts: Restarts) -> None:
    result = call(runtime_with(restarts), "restart_device", RESTART, as_(OPS))
    assert result.error is None and restarts.ran == ["dev-0a1b2c3d"]


def test_tools_without_scopes_run_for_any_principal(restarts: Restarts) -> None:
    nobody = Principal.of("guest")
    result = call(runtime_with(restarts), "get_site", {"site_id": "hq"}, as_(nobody))
    assert result.error is None


def test_without_a_principal_every_tool_runs_as_before(restarts: Restarts) -> None:
    result = call(runtime_with(restarts), "restart_device", RESTART, as_(None))
    assert result.error is None and restarts.ran == ["dev-0a1b2c3d"]


def test_a_runtime_that_requires_a_principal_refuses_calls_without_one(
    restarts: Restarts,
) -> None:
    runtime = runtime_with(restarts, require_principal=True)
    assert runtime.require_principal is True
    scoped = call(runtime, "restart_device", RESTART, as_(None))
    plain = call(runtime, "get_site", {"site_id": "hq"}, as_(None, "call-2"))

    assert scoped.telemetry.outcome == plain.telemetry.outcome == "forbidden"
    assert "no verified caller to grant the scope 'devices:write'" in scoped.for_model()
    assert "no verified caller. Do not retry" in plain.for_model()
    assert call(runtime, "get_site", {"site_id": "hq"}, as_(VIEWER, "call-3")).error is None
    assert restarts.ran == []


def test_interceptors_never_see_a_refused_call(restarts: Restarts) -> None:
    seen: list[str] = []

    async def spy(request: ToolRequest, meta: ToolCallMeta, call_next: Any) -> Any:
        seen.append(request.name)
        return await call_next(request, meta)

    runtime = runtime_with(restarts, interceptors=[spy])
    call(runtime, "restart_device", RESTART, as_(VIEWER))
    call(runtime, "get_device", {"device_id": "dev-0a1b2c3d"}, as_(VIEWER, "call-2"))
    assert seen == ["assistant.devices.get_device"]


def test_the_principal_travels_with_the_metadata_to_workers() -> None:
    meta = as_(OPS)
    again = ToolCallMeta.from_dict(json.loads(json.dumps(meta.to_dict())))
    assert again.principal == OPS
    assert ToolCallMeta.from_dict(as_(None).to_dict()).principal is None


# ── what every call leaves behind ─────────────────────────────────────────────────────────


def test_each_call_is_audited_with_who_what_and_how_it_ended(restarts: Restarts) -> None:
    trail = Trail()
    runtime = runtime_with(restarts, trail)
    call(runtime, "restart_device", RESTART, as_(OPS, "ok"))
    call(runtime, "restart_device", RESTART, as_(VIEWER, "refused"))
    call(runtime, "no_such_tool", "{}", as_(VIEWER, "unknown"))
    call(runtime, "get_device", '{"device_id": 1}', as_(None, "invalid"))

    ok, refused, unknown, invalid = trail.records
    assert ok.tool == "assistant.devices.restart_device" and ok.principal == OPS
    assert (ok.outcome, ok.error, ok.approval, ok.approved_by) == ("ok", False, "granted", "lead")
    assert ok.arguments == arguments_digest(RESTART) == arguments_digest(json.dumps(RESTART))
    assert "stuck" not in json.dumps(ok.to_dict())  # a digest, never the arguments
    assert ok.call_id == as_(OPS, "ok").stable_id()
    assert (refused.outcome, refused.error, refused.approval) == ("forbidden", True, "none")
    assert refused.principal == VIEWER
    assert (unknown.tool, unknown.outcome) == ("no_such_tool", "tool_unavailable")
    assert (invalid.principal, invalid.outcome) == (None, "invalid_arguments")
    assert all(r.at.endswith("Z") and r.duration_ms >= 0 for r in trail.records)


def test_a_denied_approval_and_a_waiting_one_are_audited(restarts: Restarts) -> None:
    trail = Trail()
    call(runtime_with(restarts, trail, approver=deny), "restart_device", RESTART, as_(OPS))
    call(runtime_with(restarts, trail, approver=None), "restart_device", RESTART, as_(OPS))

    denied, waiting = trail.records
    assert (denied.approval, denied.approved_by, denied.outcome) == (
        "denied",
        "lead",
        "approval_denied",
    )
    assert (waiting.approval, waiting.approved_by) == ("waiting", None)
    assert restarts.ran == []


def test_a_tool_error_and_a_timeout_are_audited() -> None:
    trail = Trail()

    def refuses(args: Any, meta: ToolCallMeta) -> Any:
        raise ToolFailure("the device is in a maintenance window")

    async def hangs(args: Any, meta: ToolCallMeta) -> Any:
        await asyncio.sleep(5)

    runtime = example_runtime(
        device_handlers={"restart_device": refuses},
        audit=trail,
        approver=approve,
        interceptors=[Timeout(0.05)],
    )
    call(runtime, "restart_device", RESTART, as_(OPS))
    slow = example_runtime(
        device_handlers={"restart_device": hangs},
        audit=trail,
        approver=approve,
        interceptors=[Timeout(0.05)],
    )
    started = time.monotonic()
    call(slow, "restart_device", RESTART, as_(OPS, "call-2"))

    failed, timed_out = trail.records
    assert (failed.outcome, failed.error, failed.approval) == ("error", True, "granted")
    assert (timed_out.outcome, timed_out.error) == ("timeout", True)
    assert time.monotonic() - started < 4


def test_a_failing_sink_is_logged_and_the_call_still_answers(
    restarts: Restarts, caplog: pytest.LogCaptureFixture
) -> None:
    trail = Trail()
    trail.fail = True
    with caplog.at_level(logging.ERROR, "tooldesign.runtime.audit"):
        result = call(runtime_with(restarts, trail), "restart_device", RESTART, as_(OPS))
    assert result.error is None and restarts.ran == ["dev-0a1b2c3d"]
    assert "the audit sink failed" in caplog.text and "disk full" in caplog.text


def test_the_json_lines_trail_of_a_runtime_verifies(restarts: Restarts, tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    with JsonLinesAudit(path) as sink:
        runtime = example_runtime(
            device_handlers={"restart_device": restarts}, audit=sink, approver=approve
        )
        for index, who in enumerate((OPS, VIEWER, None)):
            call(runtime, "restart_device", RESTART, as_(who, f"call-{index}"))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["outcome"] for line in lines] == ["ok", "forbidden", "ok"]
    assert lines[0]["principal"] == {
        "subject": "ann",
        "client_id": "console",
        "scopes": ["devices:read", "devices:write"],
    }
    verified = verify_audit(path)
    assert verified.ok and verified.records == 3 and verified.head == lines[-1]["digest"]


def test_integrations_ask_no_person_about_a_call_its_caller_may_not_make(
    restarts: Restarts,
) -> None:
    runtime = runtime_with(restarts, approver=None)

    def approval(principal: Principal | None) -> Any:
        return asyncio.run(
            runtime.approval_for(ToolRequest("restart_device", RESTART, as_(principal)))
        )

    assert approval(VIEWER) is None  # execute refuses it: nothing to approve
    assert approval(OPS) is not None and approval(None) is not None
