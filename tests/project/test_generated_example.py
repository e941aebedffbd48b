"""The worked example's generated packages (gen/), used as an agent would use them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from tooldesign.generate import generate
from tooldesign.runtime import (
    Bounds,
    Constraint,
    RetryReason,
    ToolValidationError,
    retry_hint_for_invalid_payload,
)

from gen.assistant.toolsets.devices import codecs as device_codecs
from gen.assistant.toolsets.devices import specs as device_specs
from gen.assistant.toolsets.devices import types as device_types
from gen.assistant.toolsets.docs import codecs as doc_codecs
from gen.assistant.toolsets.metrics import specs as metric_specs
from gen.assistant.toolsets.profiles import codecs as profile_codecs
from gen.assistant.toolsets.sites import specs as site_specs
from gen.assistant.toolsets.sites import types as site_types
from tests.support import REPO, tree_bytes

GEN = REPO / "gen"


def test_gen_is_what_design_generates(tmp_path: Path) -> None:
    out = tmp_path / "gen"
    generate([str(REPO / "design")], out)
    generated, committed = tree_bytes(out), tree_bytes(GEN)
    # The manifest is bookkeeping (it fingerprints the generator itself), not generated output.
    generated.pop(".tooldesign-manifest.json")
    committed.pop(".tooldesign-manifest.json")
    assert generated == committed


def test_decode_valid_payload_fills_defaults_and_injected() -> None:
    payload = device_codecs.decode_list_devices_payload(
        '{"site_id": "hq", "status": "online"}', injected={"session_id": "sess-1"}
    )
    assert isinstance(payload, device_types.ListDevicesPayload)
    assert payload.site_id == "hq"
    assert payload.status == "online"
    assert payload.limit == 50
    assert payload.session_id == "sess-1"


def issues_of(call: Any) -> dict[str, Any]:
    with pytest.raises(ToolValidationError) as info:
        call()
    return {issue.field: issue for issue in info.value.issues}


def test_invalid_payload_names_every_bad_field_with_what_was_expected() -> None:
    issues = issues_of(
        lambda: device_codecs.decode_list_devices_payload(
            {"status": "broken", "limit": 900, "color": "red"}, injected={"session_id": "s"}
        )
    )
    assert set(issues) == {"site_id", "status", "limit", "color"}
    assert issues["site_id"].constraint is Constraint.MISSING_FIELD
    assert issues["site_id"].description == "Site identifier"
    status = issues["status"]
    assert status.constraint is Constraint.INVALID_ENUM_VALUE
    assert status.allowed == ("online", "offline", "unknown")
    assert '"broken"' in status.message
    limit = issues["limit"]
    assert limit.constraint is Constraint.INVALID_RANGE
    assert limit.bounds == {"minimum": 1, "maximum": 500}
    assert "<= 500" in limit.message and "900" in limit.message
    assert issues["color"].constraint is Constraint.UNKNOWN_FIELD
    assert "site_id" in issues["color"].message


def test_wrong_type_pattern_length_and_format_issues() -> None:
    issues = issues_of(lambda: device_codecs.decode_get_device_payload({"device_id": "router-1"}))
    assert issues["device_id"].constraint is Constraint.INVALID_PATTERN
    assert issues["device_id"].pattern == "^dev-[0-9a-f]{8}$"
    issues = issues_of(lambda: device_codecs.decode_get_device_payload({"device_id": 42}))
    assert issues["device_id"].constraint is Constraint.INVALID_FIELD_TYPE
    assert (issues["device_id"].expected, issues["device_id"].actual) == ("string", "integer")
    issues = issues_of(lambda: doc_codecs.decode_search_docs_payload({"query": "x"}))
    assert issues["query"].constraint is Constraint.INVALID_LENGTH
    assert issues["query"].bounds == {"minLength": 2, "maxLength": 200}


def test_nested_and_array_paths_are_precise() -> None:
    issues = issues_of(
        lambda: doc_codecs.decode_search_docs_payload(
            {"query": "offline", "kinds": ["runbook", "video"]}
        )
    )
    assert issues["kinds[1]"].constraint is Constraint.INVALID_ENUM_VALUE
    assert issues["kinds[1]"].allowed == ("article", "runbook")


def test_union_value_issue_is_one_issue_at_the_union() -> None:
    issues = issues_of(
        lambda: profile_codecs.decode_update_preferences_payload(
            {"preferences": {"theme": ["dark"]}}, injected={"session_id": "s"}
        )
    )
    assert list(issues) == ["preferences.theme"]
    assert issues["preferences.theme"].constraint is Constraint.INVALID_FIELD_TYPE
    assert "string or integer or boolean" in issues["preferences.theme"].message


def test_malformed_json_and_non_object_payloads() -> None:
    issues = issues_of(lambda: device_codecs.decode_get_device_payload('{"device_id": '))
    assert issues[""].constraint is Constraint.INVALID_FORMAT
    assert "not valid JSON" in issues[""].message
    issues = issues_of(lambda: device_codecs.decode_get_device_payload("[1, 2]"))
    assert issues[""].constraint is Constraint.INVALID_FIELD_TYPE


def test_injected_value_from_the_model_is_discarded() -> None:
    decoded = device_codecs.LIST_DEVICES_PAYLOAD.decode_detailed(
        {"site_id": "hq", "session_id": "forged"}, injected={"session_id": "real"}
    )
    assert decoded.value.session_id == "real"
    assert decoded.discarded_injected == ("session_id",)


def test_retry_hint_from_validation_error_carries_example_and_prior_input() -> None:
    spec = device_specs.LIST_DEVICES_SPEC
    with pytest.raises(ToolValidationError) as info:
        device_codecs.decode_list_devices_payload({"limit": 0}, injected={"session_id": "s"})
    hint = retry_hint_for_invalid_payload(info.value, example=spec.payload.example)
    assert hint.reason is RetryReason.INVALID_ARGUMENTS
    assert hint.example_input == {"site_id": "hq", "status": "online", "limit": 20}
    assert hint.prior_input == {"limit": 0}
    assert "site_id" in hint.message and "limit" in hint.message and "Example" in hint.message
    with pytest.raises(ToolValidationError) as info:
        device_codecs.decode_list_devices_payload({}, injected={"session_id": "s"})
    hint = retry_hint_for_invalid_payload(info.value)
    assert hint.reason is RetryReason.MISSING_FIELDS
    assert hint.missing_fields == ("site_id",)


def test_specs_describe_each_tool() -> None:
    spec = device_specs.spec_by_name("list_devices")
    assert spec is device_specs.LIST_DEVICES_SPEC
    assert device_specs.spec_by_id("assistant.devices.list_devices") is spec
    assert spec.id == device_specs.LIST_DEVICES == "assistant.devices.list_devices"
    assert (spec.id.service, spec.id.toolset, spec.id.tool) == (
        "assistant",
        "devices",
        "list_devices",
    )
    assert spec.title == "List devices"
    assert spec.tags == ("inventory",)
    assert spec.payload.model is device_types.ListDevicesPayload
    assert spec.result.model is device_types.ListDevicesResult
    assert spec.payload.field_descriptions["limit"] == "Maximum results"
    assert spec.result.field_descriptions["devices[].status"] == "Connection state"
    assert spec.injected == ("session_id",)
    assert spec.annotations.read_only is True
    assert [s.name for s in device_specs.SPECS] == [
        "list_devices",
        "get_device",
        "restart_device",
        "schedule_maintenance",
    ]


def test_injected_fields_are_in_the_model_but_not_the_schema() -> None:
    spec = device_specs.LIST_DEVICES_SPEC
    assert "session_id" in spec.payload.model.model_fields
    assert "session_id" not in spec.payload.schema["properties"]
    assert "session_id" not in spec.payload.schema.get("required", [])
    assert spec.payload.schema["additionalProperties"] is False


def test_bounded_result_fields_and_bounds() -> None:
    spec = device_specs.LIST_DEVICES_SPEC
    assert spec.bounded is True
    props = spec.result.schema["properties"]
    assert {"returned", "total", "truncated", "refinement_hint"} <= set(props)
    assert set(spec.result.schema["required"]) == {"devices", "returned", "truncated"}
    result = device_types.ListDevicesResult(devices=[], returned=0, total=0, truncated=False)
    assert result.result_bounds() == Bounds(returned=0, total=0, truncated=False)


def test_paging_tool_has_cursor_in_payload_and_next_cursor_in_result() -> None:
    spec = site_specs.LIST_SITES_SPEC
    assert spec.bounds is not None
    assert (spec.bounds.cursor_field, spec.bounds.next_cursor_field) == ("cursor", "next_cursor")
    assert "cursor" in spec.payload.schema["properties"]
    assert "cursor" not in spec.payload.schema.get("required", [])
    result = site_types.ListSitesResult(
        sites=[], returned=0, total=0, truncated=True, next_cursor="2"
    )
    assert result.result_bounds().next_cursor == "2"


def test_server_data_specs_are_typed_and_kept_out_of_the_result() -> None:
    spec = metric_specs.GET_TIME_SERIES_SPEC
    kinds = {sd.kind: sd for sd in spec.server_data}
    assert set(kinds) == {"atlas.time_series", "atlas.thresholds"}
    series = kinds["atlas.time_series"]
    assert series.default == "off"
    assert series.description == "Full series for charts"
    assert series.model.__name__ == "TimeSeries"
    assert "points" in series.schema["properties"]
    assert kinds["atlas.thresholds"].default == "on"
    assert kinds["atlas.thresholds"].model.model_validate({"warning": 1, "critical": 2})
    result_schema = json.dumps(spec.result.schema)
    assert "TimeSeries" not in result_schema and "warning" not in result_schema


def catalog_paths() -> list[Path]:
    return sorted(GEN.rglob("tool_schemas.json"))


@pytest.mark.parametrize("path", catalog_paths(), ids=lambda p: str(p.relative_to(GEN)))
def test_catalog_is_valid_and_hides_injected_fields(path: Path) -> None:
    catalog = json.loads(path.read_text())
    assert catalog["count"] == len(catalog["tools"])
    assert catalog["version"] == catalog["hash"][:12]
    meta = jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA)
    for tool in catalog["tools"]:
        assert tool["id"] == f"{tool['service']}.{tool['toolset']}.{tool['name']}"
        for schema in (
            tool["payload"]["schema"],
            tool["result"]["schema"],
            *(s["schema"] for s in tool["server_data"]),
        ):
            meta.validate(schema)
            jsonschema.Draft202012Validator.check_schema(schema)
        assert "session_id" not in json.dumps(tool["payload"]["schema"])
        assert tool["payload"]["schema"]["type"] == "object"
    service_catalog = json.loads((GEN / "assistant" / "tool_schemas.json").read_text())
    assert service_catalog["count"] == 14


def test_example_inputs_validate_against_their_own_schema() -> None:
    for module in (device_specs, site_specs, metric_specs):
        for spec in module.SPECS:
            if spec.payload.example is not None:
                jsonschema.validate(spec.payload.example, spec.payload.schema)


# ── the tools that take a user type, or a single value ────────────────────────────────────

MAINTENANCE = {
    "device_ids": ["dev-00000000"],
    "start": "2026-11-21T22:00:00Z",
    "duration_minutes": 30,
    "reason": "Firmware upgrade",
}


def test_a_user_type_as_the_payload_keeps_its_constraints_and_example() -> None:
    spec = device_specs.SCHEDULE_MAINTENANCE_SPEC
    assert spec.payload.model is device_types.MaintenanceRequest
    assert spec.payload.example == {
        "device_ids": ["dev-0a1b2c3d"],
        "start": "2026-11-21T22:00:00Z",
        "duration_minutes": 30,
        "reason": "Firmware upgrade",
    }
    props = spec.payload.schema["properties"]
    assert props["device_ids"]["minItems"] == 1 and props["device_ids"]["maxItems"] == 20
    assert props["device_ids"]["items"] == {"type": "string", "pattern": "^dev-[0-9a-f]{8}$"}
    assert props["duration_minutes"]["type"] == "integer"  # the builtin int
    assert props["duration_minutes"]["exclusiveMinimum"] == 0
    load = props["abort_above_load"]
    assert (load["type"], load["exclusiveMinimum"], load["exclusiveMaximum"]) == ("number", 0, 1)
    assert props["notify_users"] == {
        "type": "boolean",
        "description": "Tell the site's users beforehand",
        "default": True,
    }
    payload = device_codecs.decode_schedule_maintenance_payload(json.dumps(MAINTENANCE))
    assert payload.device_ids == ["dev-00000000"]
    assert all(type(i) is str for i in payload.device_ids), "items are strings, not wrappers"
    assert (payload.abort_above_load, payload.notify_users) == (0.9, True)


@pytest.mark.parametrize(
    ("change", "field", "constraint"),
    [
        ({"device_ids": []}, "device_ids", Constraint.INVALID_LENGTH),
        ({"device_ids": ["router-1"]}, "device_ids[0]", Constraint.INVALID_PATTERN),
        ({"duration_minutes": 0}, "duration_minutes", Constraint.INVALID_RANGE),
        ({"abort_above_load": 1}, "abort_above_load", Constraint.INVALID_RANGE),
        ({"abort_above_load": 0.0}, "abort_above_load", Constraint.INVALID_RANGE),
        ({"notify_users": "yes"}, "notify_users", Constraint.INVALID_FIELD_TYPE),
        ({"duration_minutes": "30"}, "duration_minutes", Constraint.INVALID_FIELD_TYPE),
    ],
)
def test_a_user_type_payload_rejects_what_its_schema_rejects(
    change: dict[str, Any], field: str, constraint: Constraint
) -> None:
    payload = {**MAINTENANCE, **change}
    for data in (payload, json.dumps(payload)):
        issues = issues_of(lambda d=data: device_codecs.decode_schedule_maintenance_payload(d))
        assert {name: issue.constraint for name, issue in issues.items()} == {field: constraint}


def test_the_new_tools_run_through_the_runtime() -> None:
    from tooldesign.runtime import ToolRequest

    from examples.netops.agent import build_runtime

    runtime = build_runtime()
    scheduled = runtime.execute_sync(ToolRequest("schedule_maintenance", json.dumps(MAINTENANCE)))
    assert scheduled.error is None, scheduled.error
    assert scheduled.result is not None
    window = json.loads(scheduled.result.model_dump_json(by_alias=True))
    assert window == {
        "window_id": "mw-0001",
        "opens": "2026-11-21T22:00:00Z",
        "closes": "2026-11-21T22:30:00Z",
        "devices": ["dev-00000000"],
    }
    probe = runtime.execute_sync(ToolRequest("check_reachability", {"value": "core.example"}))
    assert probe.error is None, probe.error
    assert probe.result is not None
    report = probe.result.model_dump(mode="json", exclude_none=True)
    assert report["reachable"] is True and 0 <= report["loss"] <= 1
    assert report["raw"]["host"] == "core.example"
    unreachable = runtime.execute_sync(ToolRequest("check_reachability", '{"value": "x.invalid"}'))
    assert unreachable.result is not None
    assert unreachable.result.model_dump(exclude_none=True) == {
        "reachable": False,
        "loss": 1.0,
        "raw": {"host": "x.invalid", "sent": 5, "received": 0},
    }


def test_a_single_value_payload_is_an_object_with_a_value_field() -> None:
    spec = metric_specs.CHECK_REACHABILITY_SPEC
    assert spec.payload.schema["properties"] == {
        "value": {"type": "string", "description": "Host name or IP address to probe"}
    }
    assert spec.payload.schema["required"] == ["value"]
    assert spec.result.schema["properties"]["rtt_ms"]["exclusiveMinimum"] == 0
    raw = spec.result.schema["properties"]["raw"]
    assert "type" not in raw, "Any: any JSON value"
    result = spec.result.model.model_validate(
        {"reachable": True, "loss": 0, "raw": {"lines": ["64 bytes", None, 1.5, True]}}
    )
    assert result.raw == {"lines": ["64 bytes", None, 1.5, True]}


MODELS_ON_FIRST_USE = """
import json, sys
import pydantic
from tooldesign.runtime import Runtime, ToolRequest
from tooldesign.runtime.mcp.server import mcp_server
from tooldesign.runtime.providers import export_tools
from tooldesign.builtin.tool_index import tool_index_registration

from examples.netops.services import (
    DeviceService, DocumentService, Inventory, MetricsService, ProfileService, SiteService,
)
from gen.assistant.toolsets.devices import codecs as device_codecs
from gen.assistant.toolsets.devices import executor as devices
from gen.assistant.toolsets.docs import executor as docs
from gen.assistant.toolsets.metrics import executor as metrics
from gen.assistant.toolsets.profiles import executor as profiles
from gen.assistant.toolsets.sites import executor as sites
from gen.assistant.toolsets.sites import specs as site_specs


def models_imported():
    return sorted(m for m in sys.modules if ".gen." in f".{m}" and m.endswith(".types"))


inventory = Inventory()
runtime = Runtime([
    sites.new_registration(service=SiteService(inventory)),
    devices.new_registration(
        service=DeviceService(inventory), handlers={"restart_device": lambda args, meta: None}
    ),
    metrics.new_registration(service=MetricsService(inventory)),
    profiles.new_registration(service=ProfileService()),
    docs.new_registration(service=DocumentService()),
])
runtime.register(tool_index_registration(runtime))
listed = [tool.name for tool in mcp_server(runtime).tools()]
exported = export_tools(runtime.specs(), "openai", strict=True, fallback=True)
schema = site_specs.GET_TOPOLOGY_SPEC.result.schema
imported_to_list = models_imported()

site = runtime.execute_sync(ToolRequest("get_site", {"site_id": "hq"}))
refused = runtime.execute_sync(ToolRequest("get_site", '{"site_id": 5}'))
tree = runtime.execute_sync(ToolRequest("get_topology", {"site_id": "hq"}))
imported_by_calls = models_imported()

# A toolset's models are still built on first use once imported (defer_build).
from gen.assistant.toolsets.devices import types as device_types
models = [
    value for value in vars(device_types).values()
    if isinstance(value, type) and issubclass(value, pydantic.BaseModel)
    and value.__module__ == device_types.__name__
]
built_on_import = sorted(m.__name__ for m in models if m.__pydantic_complete__)
payload = device_codecs.decode_get_device_payload('{"device_id": "dev-0a1b2c3d"}')
print(json.dumps({
    "listed": len(listed),
    "exported": len(exported),
    "schema": sorted(schema["properties"]),
    "imported_to_list": imported_to_list,
    "site": site.result.name if site.result is not None else repr(site.error),
    "refused": [issue.field for issue in refused.retry_hint.issues],
    "child": tree.result.children[0].role if tree.result is not None else repr(tree.error),
    "imported_by_calls": imported_by_calls,
    "models": len(models),
    "built_on_import": built_on_import,
    "payload": type(payload) is device_types.GetDevicePayload,
    "built_after": device_types.GetDevicePayload.__pydantic_complete__,
}))
"""


@pytest.mark.slow
def test_generated_models_are_imported_and_built_on_first_use() -> None:
    """A process serving many toolsets pays for the models of the tools it calls: importing
    every executor, building a runtime and listing its tools (over MCP, to a provider, the
    specs' schemas) imports no toolset's models; the first call of each still decodes,
    refuses, checks its result and nests as ever (a recursive model too)."""
    import subprocess
    import sys

    ran = subprocess.run(
        [sys.executable, "-c", MODELS_ON_FIRST_USE],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )
    assert ran.returncode == 0, ran.stderr
    seen = json.loads(ran.stdout)
    assert seen["listed"] == seen["exported"] == 15
    assert "children" in seen["schema"]
    assert seen["imported_to_list"] == []
    assert seen["site"] == "Headquarters"
    assert seen["refused"] == ["site_id"]
    assert seen["child"] == "core"
    assert seen["imported_by_calls"] == ["gen.assistant.toolsets.sites.types"], (
        "a call imports its own toolset's models only"
    )
    assert seen["models"] >= 4
    assert seen["built_on_import"] == []
    assert seen["payload"] is True
    assert seen["built_after"] is True
