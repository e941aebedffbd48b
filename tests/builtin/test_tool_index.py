"""The built-in tool index: what it lists, its filters, and its generated package."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from tooldesign.builtin.tool_index import tool_index_registration
from tooldesign.runtime import Runtime, ToolRequest, ToolResult
from tooldesign.runtime.providers import LoadingPlan

from examples.netops.mcp_server import runtime as netops_runtime
from examples.netops.services import DocumentService, ProfileService
from gen.assistant.toolsets.docs import executor as docs
from gen.assistant.toolsets.profiles import executor as profiles
from tests.support import REPO


def call(runtime: Runtime, payload: Any) -> ToolResult:
    return runtime.execute_sync(ToolRequest("tool_index", payload))


def listed(runtime: Runtime, payload: Any = None) -> dict[str, Any]:
    result = call(runtime, payload or {})
    assert result.ok, result.for_model()
    data: dict[str, Any] = json.loads(result.for_model())
    return data


def test_lists_every_other_tool_with_its_model_facing_schemas() -> None:
    runtime = netops_runtime()
    data = listed(runtime)
    others = [s for s in runtime.specs() if s.toolset != "tool_index"]
    assert [t["name"] for t in data["tools"]] == [s.name for s in others]
    assert data["count"] == len(others) == 14
    for item, spec in zip(data["tools"], others, strict=True):
        assert item == {
            "name": spec.name,
            "description": spec.description,
            "schema": {"input": spec.payload.schema, "output": spec.result.schema},
        }
    # Injected fields are not the model's to give, so the index does not show them either.
    devices = next(t for t in data["tools"] if t["name"] == "list_devices")
    assert "session_id" not in devices["schema"]["input"]["properties"]
    assert "session_id" not in devices["schema"]["input"].get("required", [])


def test_does_not_list_itself() -> None:
    data = listed(netops_runtime())
    assert "tool_index" not in {t["name"] for t in data["tools"]}


@pytest.mark.parametrize("toolset", ["devices", "assistant.devices"])
def test_filters_by_toolset_name_or_service_dot_toolset(toolset: str) -> None:
    data = listed(netops_runtime(), {"toolset": toolset})
    assert [t["name"] for t in data["tools"]] == [
        "list_devices",
        "get_device",
        "restart_device",
        "schedule_maintenance",
    ]
    assert data["count"] == 4


def test_filters_by_tag_and_by_both() -> None:
    runtime = netops_runtime()
    assert [t["name"] for t in listed(runtime, {"tag": "write"})["tools"]] == [
        "restart_device",
        "schedule_maintenance",
    ]
    inventory = listed(runtime, {"tag": "inventory"})
    assert inventory["count"] == 7  # the sites and devices toolsets carry the tag
    both = listed(runtime, {"toolset": "sites", "tag": "inventory"})
    assert [t["name"] for t in both["tools"]] == ["list_sites", "get_site", "get_topology"]
    # A tag that exists, but not in that toolset: an empty list, not an error.
    assert listed(runtime, {"toolset": "docs", "tag": "write"}) == {"tools": [], "count": 0}


def test_unknown_toolset_or_tag_names_the_ones_there_are() -> None:
    runtime = netops_runtime()
    result = call(runtime, {"toolset": "routers"})
    assert not result.ok
    assert result.for_model() == (
        'Error: There is no toolset named "routers". '
        "Toolsets: devices, diagnosis, docs, metrics, profiles, sites.\n"
        'Recovery: replan — do not repeat this call to "tool_index" now; take another step.'
    )
    result = call(runtime, {"tag": "danger"})
    assert not result.ok
    assert result.for_model() == (
        'Error: No tool has the tag "danger". '
        "Tags: account, inventory, knowledge, operations, telemetry, write.\n"
        'Recovery: replan — do not repeat this call to "tool_index" now; take another step.'
    )


def test_unknown_values_are_echoed_cut_short() -> None:
    runtime = netops_runtime()
    for field in ("toolset", "tag"):
        text = call(runtime, {field: "x" * 100_000}).for_model()
        assert len(text) < 400, text  # the message and its recovery line
        assert '"' + "x" * 70 in text and "x…. " in text  # what was sent, cut short
    text = call(runtime, {"tag": "ab\ncd"}).for_model()
    message = text.removeprefix("Error: ").split("\nRecovery: ")[0]
    assert "\n" not in message  # one line, whatever the model sent


def test_invalid_arguments_get_a_retry_hint() -> None:
    result = call(netops_runtime(), {"toolset": 3, "all": True})
    assert not result.ok and result.retry_hint is not None
    text = result.for_model()
    assert "- toolset: " in text and "expected string" in text
    assert "- all: unknown field; allowed fields are: tag, toolset" in text
    assert 'Example of valid arguments: {"toolset": "devices"}' in text


def test_reflects_registrations_made_after_it() -> None:
    runtime = netops_runtime()
    runtime.unregister("assistant", "profiles")
    names = [t["name"] for t in listed(runtime)["tools"]]
    assert "get_profile" not in names and len(names) == 12
    runtime.register(profiles.new_registration(service=ProfileService()))
    names = [t["name"] for t in listed(runtime)["tools"]]
    assert names[-2:] == ["get_profile", "update_preferences"] and len(names) == 14


def test_an_empty_runtime_lists_nothing() -> None:
    runtime = Runtime()
    runtime.register(tool_index_registration(runtime))
    assert listed(runtime) == {"tools": [], "count": 0}
    assert call(runtime, {"toolset": "devices"}).for_model() == (
        'Error: There is no toolset named "devices". Toolsets: none.\n'
        'Recovery: replan — do not repeat this call to "tool_index" now; take another step.'
    )


def test_its_spec_says_it_is_safe_to_call() -> None:
    spec = netops_runtime().spec("tool_index")
    assert spec is not None
    assert spec.id == "builtin.tool_index.tool_index"
    assert spec.tags == ("discovery",)
    assert (spec.annotations.read_only, spec.annotations.destructive) == (True, False)
    assert (spec.annotations.idempotent, spec.annotations.open_world) == (True, False)


@pytest.mark.slow
def test_generated_package_is_current() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tooldesign.cli",
            "gen",
            "tooldesign/builtin/design",
            "--out",
            "tooldesign/builtin/gen",
            "--check",
        ],
        cwd=REPO,
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


# ── search_tools: the model's search over a deferred catalog ──────────────────────────────


def search(runtime: Runtime, payload: Any) -> dict[str, Any]:
    result = runtime.execute_sync(ToolRequest("search_tools", payload))
    assert result.ok, result.for_model()
    data: dict[str, Any] = json.loads(result.for_model())
    return data


def test_search_tools_ranks_the_other_tools_for_a_query() -> None:
    runtime = netops_runtime()
    found = search(runtime, {"query": "restart a device", "limit": 2})
    assert found["tools"][0]["name"] == "restart_device"
    assert found["returned"] == 2 and found["total"] > 2
    assert set(found["tools"][0]) == {"name", "description"}  # no schemas: cheap to read
    assert search(runtime, {"query": "search tools"})["tools"][0]["name"] != "search_tools"
    assert search(runtime, {"query": "quantum chromodynamics"}) == {
        "tools": [],
        "returned": 0,
        "total": 0,
    }
    in_sites = search(runtime, {"query": "device", "toolset": "sites", "limit": 20})
    assert {t["name"] for t in in_sites["tools"]} <= {"list_sites", "get_site", "get_topology"}
    failed = runtime.execute_sync(ToolRequest("search_tools", {"query": "x", "toolset": "nope"}))
    assert not failed.ok and "Toolsets: devices, diagnosis, docs" in failed.for_model()
    bad = runtime.execute_sync(ToolRequest("search_tools", {"query": "x", "limit": 99}))
    assert not bad.ok and "limit" in bad.for_model()


def test_with_a_plan_search_tools_finds_only_the_deferred_tools() -> None:
    served = Runtime([profiles.new_registration(service=ProfileService())])
    plan = LoadingPlan(deferred="update_preferences")
    served.register(tool_index_registration(served, plan=plan))
    found = search(served, {"query": "profile of the user"})
    assert [t["name"] for t in found["tools"]] == ["update_preferences"]  # get_profile is eager
    # A tool registered later is found: the index follows the runtime.
    served.register(docs.new_registration(service=DocumentService()))
    assert search(served, {"query": "documentation keywords"}) == {
        "tools": [],  # docs is eager under this plan
        "returned": 0,
        "total": 0,
    }
    plain = Runtime([docs.new_registration(service=DocumentService())])
    plain.register(tool_index_registration(plain))
    assert search(plain, {"query": "documentation keywords"})["tools"][0]["name"] == "search_docs"


def test_the_index_and_the_search_show_a_caller_only_what_it_may_call() -> None:
    from tooldesign.runtime import Principal, ToolCallMeta

    runtime = netops_runtime()
    viewer = ToolCallMeta(principal=Principal.of("bob", ["devices:read"]))
    ops = ToolCallMeta(principal=Principal.of("ann", ["devices:write"]))

    def names(tool: str, payload: Any, meta: ToolCallMeta | None) -> list[str]:
        result = runtime.execute_sync(ToolRequest(tool, payload, meta))
        assert result.ok, result.for_model()
        return [t["name"] for t in json.loads(result.for_model())["tools"]]

    search = {"query": "restart a device", "limit": 20}
    assert "restart_device" in names("tool_index", {}, ops)
    assert "restart_device" in names("tool_index", {}, None)  # no principal: as before
    assert "restart_device" not in names("tool_index", {}, viewer)
    assert "restart_device" not in names("tool_index", {"toolset": "devices"}, viewer)
    assert "restart_device" in names("search_tools", search, ops)
    assert "restart_device" not in names("search_tools", search, viewer)
