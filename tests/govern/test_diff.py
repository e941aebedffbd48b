"""``tooldesign diff``: every change classified, per-tool fingerprints, witnesses, the command.

The worked example's catalog is changed one way at a time; each change must land in the right
class (breaking for models, breaking for applications, compatible, prompt-only) with its JSON
path, and each change that breaks models must carry a payload the old schema accepts and the
new one rejects. A property test holds the classification to that on random schema pairs.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from tooldesign.cli import main
from tooldesign.govern import ABSENT, diff_entries, tool_fingerprint
from tooldesign.govern.changes import Change
from tooldesign.govern.schemas import compare_schemas

from tests.support import REPO
from tests.support.strategies import from_schema

CATALOG = REPO / "gen" / "assistant" / "tool_schemas.json"
Entries = dict[str, dict[str, Any]]


def entries() -> Entries:
    return {tool["id"]: tool for tool in json.loads(CATALOG.read_text())["tools"]}


def changed(edit: Callable[[Entries], object]) -> list[tuple[str, Change]]:
    """The changes ``edit`` makes to the worked example: (tool id, change) pairs."""
    old = entries()
    new = copy.deepcopy(old)
    edit(new)
    tools, _ = diff_entries(old, new)
    return [(tool.id, change) for tool in tools for change in tool.changes]


def one_change(edit: Callable[[Entries], object]) -> Change:
    found = changed(edit)
    assert len(found) == 1, [str(c) for _, c in found]
    return found[0][1]


def accepts(schema: dict[str, Any], value: Any) -> bool:
    return Draft202012Validator(
        schema, format_checker=Draft202012Validator.FORMAT_CHECKER
    ).is_valid(value)


def assert_witness(change: Change, old: dict[str, Any], new: dict[str, Any]) -> None:
    assert change.witness is not ABSENT, change
    assert accepts(old, change.witness), change.witness
    assert not accepts(new, change.witness), change.witness


LIST_DEVICES = "assistant.devices.list_devices"
GET_SITE = "assistant.sites.get_site"
SERIES = "assistant.metrics.get_time_series"


def args(new: Entries, tool: str = LIST_DEVICES) -> dict[str, Any]:
    schema: dict[str, Any] = new[tool]["payload"]["schema"]
    return schema


# ── breaking for models ───────────────────────────────────────────────────────────────────

MODEL_BREAKS: dict[str, tuple[Callable[[Entries], object], str, str]] = {
    "a new required argument": (
        lambda e: (
            args(e)["properties"].update(zone={"type": "string"}),
            args(e)["required"].append("zone"),
        ),
        "property_added",
        "/payload/schema/properties/zone",
    ),
    "an argument removed": (
        lambda e: args(e)["properties"].pop("status"),
        "property_removed",
        "/payload/schema/properties/status",
    ),
    "an argument made required": (
        lambda e: args(e)["required"].append("limit"),
        "property_made_required",
        "/payload/schema/properties/limit",
    ),
    "a type changed": (
        lambda e: args(e)["properties"].update(limit={"type": "string"}),
        "type_changed",
        "/payload/schema/properties/limit/type",
    ),
    "an enum value removed": (
        lambda e: args(e)["properties"]["status"]["enum"].remove("unknown"),
        "enum_value_removed",
        "/payload/schema/properties/status/enum",
    ),
    "a maximum lowered": (
        lambda e: args(e)["properties"]["limit"].update(maximum=100),
        "bound_narrowed",
        "/payload/schema/properties/limit/maximum",
    ),
    "a minimum raised": (
        lambda e: args(e)["properties"]["limit"].update(minimum=10),
        "bound_narrowed",
        "/payload/schema/properties/limit/minimum",
    ),
    "a maximum length added": (
        lambda e: args(e)["properties"]["site_id"].update(maxLength=4),
        "bound_narrowed",
        "/payload/schema/properties/site_id/maxLength",
    ),
    "a pattern added": (
        lambda e: args(e)["properties"]["site_id"].update(pattern="^[0-9]+$"),
        "pattern_changed",
        "/payload/schema/properties/site_id/pattern",
    ),
    "an object closed": (
        lambda e: args(e, "assistant.profiles.update_preferences")["properties"][
            "preferences"
        ].update(additionalProperties=False),
        "object_closed",
        "/payload/schema/properties/preferences/additionalProperties",
    ),
}


@pytest.mark.parametrize("what", MODEL_BREAKS)
def test_what_breaks_models(what: str) -> None:
    edit, kind, path = MODEL_BREAKS[what]
    old = entries()
    new = copy.deepcopy(old)
    edit(new)
    tools, _ = diff_entries(old, new)
    found = [c for t in tools for c in t.changes if c.kind == kind]
    assert found, [c.kind for t in tools for c in t.changes]
    change = found[0]
    assert (change.impact, change.path) == ("models", path)
    assert change.breaks == {"models"}
    tool = tools[0].id
    assert_witness(change, old[tool]["payload"]["schema"], new[tool]["payload"]["schema"])


def test_a_bound_narrowed_in_a_named_type_is_found_through_its_reference() -> None:
    base = entries()
    schema = args(base)
    schema["properties"]["filter"] = {"$ref": "#/$defs/Filter"}
    schema["$defs"] = {"Filter": {"type": "object", "properties": {"n": {"type": "integer"}}}}
    new = copy.deepcopy(base)
    args(new)["$defs"]["Filter"]["properties"]["n"]["maximum"] = 3
    tools, _ = diff_entries(base, new)
    [change] = [c for t in tools for c in t.changes]
    assert change.path == "/payload/schema/$defs/Filter/properties/n/maximum"
    assert change.field == "filter.n"
    assert_witness(change, args(base), args(new))


def test_a_removed_tool_breaks_models_and_applications() -> None:
    found = changed(lambda e: e.pop(GET_SITE))
    [(tool, change)] = found
    assert (tool, change.kind, change.impact) == (GET_SITE, "tool_removed", "models")
    assert change.breaks == {"models", "applications"}


def test_a_renamed_tool_is_told_from_a_removal_and_breaks_models() -> None:
    def rename(e: Entries) -> None:
        tool = e.pop(GET_SITE)
        tool.update(id="assistant.sites.fetch_site", name="fetch_site")
        e[tool["id"]] = tool

    old = entries()
    new = copy.deepcopy(old)
    rename(new)
    tools, _ = diff_entries(old, new)
    [tool] = tools
    assert (tool.status, tool.old_id, tool.id) == (
        "renamed",
        GET_SITE,
        "assistant.sites.fetch_site",
    )
    assert [(c.kind, c.impact) for c in tool.changes] == [("tool_renamed", "models")]


def test_a_tool_moved_to_another_toolset_breaks_applications_only() -> None:
    def move(e: Entries) -> None:
        tool = e.pop(GET_SITE)
        tool.update(id="assistant.devices.get_site", toolset="devices")
        e[tool["id"]] = tool

    [(_, change)] = changed(move)
    assert (change.kind, change.impact) == ("tool_moved", "applications")
    assert change.breaks == {"applications"}


# ── breaking for applications ─────────────────────────────────────────────────────────────

APPLICATION_BREAKS: dict[str, tuple[Callable[[Entries], object], str, str]] = {
    "a result field removed": (
        lambda e: e[GET_SITE]["result"]["schema"]["properties"].pop("address"),
        "property_removed",
        "/result/schema/properties/address",
    ),
    "a result field made optional": (
        lambda e: e[GET_SITE]["result"]["schema"]["required"].remove("region"),
        "property_made_optional",
        "/result/schema/properties/region",
    ),
    "a result type changed": (
        lambda e: e[GET_SITE]["result"]["schema"]["properties"]["device_count"].update(
            type="number"
        ),
        "type_changed",
        "/result/schema/properties/device_count/type",
    ),
    "a result enum widened": (
        lambda e: e[GET_SITE]["result"]["schema"]["properties"]["region"]["enum"].append("anz"),
        "enum_value_added",
        "/result/schema/properties/region/enum",
    ),
    "a server data kind removed": (
        lambda e: e[SERIES]["server_data"].pop(0),
        "server_data_removed",
        "/server_data/0",
    ),
    "a server data kind retyped": (
        lambda e: e[SERIES]["server_data"][0]["schema"]["$defs"]["MetricPoint"]["properties"][
            "value"
        ].update(type="string"),
        "type_changed",
        "/server_data/0/schema/$defs/MetricPoint/properties/value/type",
    ),
    "an injected field added": (
        lambda e: e[LIST_DEVICES].update(injected=["session_id", "tenant"]),
        "injected_added",
        "/injected",
    ),
    "a generated class renamed": (
        lambda e: e[GET_SITE]["result"].update(name="SiteInfo"),
        "class_renamed",
        "/result/name",
    ),
    "approval newly required": (
        lambda e: e[LIST_DEVICES].update(confirm=True),
        "confirm_added",
        "/confirm",
    ),
}


@pytest.mark.parametrize("what", APPLICATION_BREAKS)
def test_what_breaks_applications(what: str) -> None:
    edit, kind, path = APPLICATION_BREAKS[what]
    found = [c for _, c in changed(edit) if c.kind == kind]
    assert found
    assert (found[0].impact, found[0].path) == ("applications", path)
    assert found[0].breaks == {"applications"}


# ── compatible and prompt-only ────────────────────────────────────────────────────────────

COMPATIBLE: dict[str, tuple[Callable[[Entries], object], str]] = {
    "a new tool": (
        lambda e: e.update(
            {
                "assistant.devices.ping": {
                    **copy.deepcopy(e[GET_SITE]),
                    "id": "assistant.devices.ping",
                    "name": "ping",
                    "toolset": "devices",
                    "description": "Ping",
                }
            }
        ),
        "tool_added",
    ),
    "a new optional argument": (
        lambda e: args(e)["properties"].update(verbose={"type": "boolean"}),
        "property_added",
    ),
    "a widened bound": (
        lambda e: args(e)["properties"]["limit"].update(maximum=1000),
        "bound_widened",
    ),
    "an added enum value": (
        lambda e: args(e)["properties"]["status"]["enum"].append("degraded"),
        "enum_value_added",
    ),
    "a new optional result field": (
        lambda e: e[GET_SITE]["result"]["schema"]["properties"].update(notes={"type": "string"}),
        "property_added",
    ),
    "a result field made required": (
        lambda e: e[GET_SITE]["result"]["schema"]["required"].append("address"),
        "property_made_required",
    ),
    "an argument made optional": (
        lambda e: args(e)["required"].remove("site_id"),
        "property_made_optional",
    ),
}


@pytest.mark.parametrize("what", COMPATIBLE)
def test_what_is_compatible(what: str) -> None:
    edit, kind = COMPATIBLE[what]
    change = one_change(edit)
    assert (change.kind, change.impact, change.breaks) == (kind, "compatible", frozenset())


PROMPT_ONLY: dict[str, Callable[[Entries], object]] = {
    "a description": lambda e: e[LIST_DEVICES].update(description="List the devices of a site"),
    "a title": lambda e: e[LIST_DEVICES].update(title="Devices"),
    "the example": lambda e: e[LIST_DEVICES]["payload"].update(example={"site_id": "lab"}),
    "the tags": lambda e: e[LIST_DEVICES]["tags"].append("fleet"),
    "an annotation": lambda e: e[LIST_DEVICES]["annotations"].update(open_world=True),
    "a field description": lambda e: args(e)["properties"]["limit"].update(description="How many"),
    "a default": lambda e: args(e)["properties"]["limit"].update(default=10),
    "field examples": lambda e: args(e)["properties"]["limit"].update(examples=[5]),
}


@pytest.mark.parametrize("what", PROMPT_ONLY)
def test_what_is_prompt_only(what: str) -> None:
    change = one_change(PROMPT_ONLY[what])
    assert change.impact == "prompt"
    assert change.breaks == frozenset()


def test_a_recursive_field_compared_with_an_open_object_ends() -> None:
    node = {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}}
    old = {**node, "$defs": {"Node": node}}
    new = {"type": "object"}  # the field removed: the object takes any key
    changes = compare_schemas(old, new, pointer="/payload/schema", direction="input", noun="x")
    assert (changes[0].kind, changes[0].path) == (
        "property_removed",
        "/payload/schema/properties/child",
    )
    assert {c.impact for c in changes} == {"compatible"}


def test_unchanged_tools_are_counted_not_listed() -> None:
    tools, unchanged = diff_entries(entries(), entries())
    assert (tools, unchanged) == ([], 14)


# ── fingerprints ──────────────────────────────────────────────────────────────────────────


def test_a_fingerprint_ignores_key_order_formatting_and_defaults() -> None:
    entry = entries()[LIST_DEVICES]
    reordered = json.loads(json.dumps(entry, sort_keys=True, indent=3))
    reordered = dict(reversed(list(reordered.items())))
    reordered["payload"]["schema"]["required"].reverse()
    assert tool_fingerprint(reordered) == tool_fingerprint(entry)
    bare = {k: v for k, v in entry.items() if k not in ("server_data", "tags")}
    assert tool_fingerprint({**bare, "tags": []}) == tool_fingerprint(
        {**bare, "tags": [], "server_data": []}
    )
    assert tool_fingerprint({**entry, "fingerprint": "anything"}) == tool_fingerprint(entry)
    assert len(tool_fingerprint(entry)) == 64


@pytest.mark.parametrize(
    "edit",
    [
        *(edit for edit, _, _ in MODEL_BREAKS.values()),
        *(edit for edit, _, _ in APPLICATION_BREAKS.values()),
        *PROMPT_ONLY.values(),
        lambda e: args(e)["properties"]["limit"].update(maximum=1000),
    ],
)
def test_a_fingerprint_changes_with_anything_observable(edit: Callable[[Entries], object]) -> None:
    old = entries()
    new = copy.deepcopy(old)
    edit(new)
    changed_ids = [i for i in new if i in old and new[i] != old[i]]
    assert changed_ids
    for ident in changed_ids:
        assert tool_fingerprint(new[ident]) != tool_fingerprint(old[ident])


# ── the command ───────────────────────────────────────────────────────────────────────────


def write_catalog(path: Path, tools: Entries) -> Path:
    from tooldesign.contract.catalog import build_catalog, catalog_text

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(catalog_text(build_catalog(list(tools.values()))), encoding="utf-8")
    return path


def run_diff(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["diff", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def versions(tmp_path: Path) -> tuple[Path, Path]:
    """The worked example's catalog, and a version with a tighter limit and a new tag."""
    new = entries()
    args(new)["properties"]["limit"]["maximum"] = 100
    new[GET_SITE]["tags"].append("fast")
    return write_catalog(tmp_path / "old.json", entries()), write_catalog(
        tmp_path / "new.json", new
    )


def test_the_report_groups_changes_per_tool_with_paths_and_exits_1(
    capsys: pytest.CaptureFixture[str], versions: tuple[Path, Path]
) -> None:
    code, out, err = run_diff(capsys, *map(str, versions))
    assert (code, err) == (1, "")
    assert "assistant.devices.list_devices (changed)" in out
    assert "  breaking for models\n    - limit: upper bound narrowed: <= 500 → <= 100" in out
    assert "at /payload/schema/properties/limit/maximum" in out
    assert 'e.g. {"site_id": "", "limit": 500} was accepted and now is not' in out
    assert "assistant.sites.get_site (changed)\n  prompt-only\n    - tags changed" in out


def test_fail_on_chooses_what_fails(
    capsys: pytest.CaptureFixture[str], versions: tuple[Path, Path]
) -> None:
    old, new = map(str, versions)
    assert run_diff(capsys, old, new, "--fail-on", "applications")[0] == 0
    assert run_diff(capsys, old, new, "--fail-on", "models")[0] == 1
    assert run_diff(capsys, new, new)[0] == 0


def test_json_output(capsys: pytest.CaptureFixture[str], versions: tuple[Path, Path]) -> None:
    code, out, _ = run_diff(capsys, *map(str, versions), "--format", "json")
    report = json.loads(out)
    assert code == 1
    assert report["summary"]["breaking"] == {"models": True, "applications": False}
    assert report["summary"]["changes"] == {
        "models": 1,
        "applications": 0,
        "compatible": 0,
        "prompt": 1,
    }
    [tool] = [t for t in report["tools"] if t["id"] == LIST_DEVICES]
    [change] = tool["changes"]
    assert change["old"] == {"maximum": 500} and change["new"] == {"maximum": 100}
    assert change["witness"] == {"site_id": "", "limit": 500}
    assert tool["fingerprint"]["old"] != tool["fingerprint"]["new"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["one.json"], "diff takes OLD and NEW"),
        (["a", "b", "c"], "diff takes OLD and NEW"),
        (["missing.json", "missing.json"], "missing.json: no such file or folder"),
        (["--against", "a", "b", "c"], "at most NEW"),
    ],
)
def test_usage_errors_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run_diff(capsys, *argv)
    assert code == 2 and message in err and out == ""


def test_a_corrupt_catalog_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"tools": [', encoding="utf-8")
    code, _, err = run_diff(capsys, str(bad), str(CATALOG))
    assert code == 2 and "bad.json: not a valid tool catalog" in err


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_against_a_git_revision_reads_it_without_checking_out(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    write_catalog(repo / "gen" / "svc" / "tool_schemas.json", entries())

    def git(*argv: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *argv],
            cwd=repo,
            check=True,
            capture_output=True,
        )

    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "first")
    changed_tools = entries()
    changed_tools.pop(GET_SITE)
    write_catalog(repo / "gen" / "svc" / "tool_schemas.json", changed_tools)
    monkeypatch.chdir(repo / "gen")  # PATH in REV:PATH is from the repository's top
    code, out, _ = run_diff(capsys, "--against", "HEAD:gen")
    assert code == 1
    assert "assistant.sites.get_site (removed)" in out
    assert out.startswith("tooldesign: diff: ") is False and "HEAD:gen" in out.splitlines()[0]
    code, _, err = run_diff(capsys, "--against", "nosuchrev:gen")
    assert code == 2 and "nosuchrev:gen: git cannot read it" in err


# ── the property: compatible means accepted, breaking means a witness ────────────────────

_NAMES = ("a", "b", "c", "d")
_STRING_ENUMS = (["x", "y"], ["x", "y", "z"], ["p"])


def _leaf_schemas() -> st.SearchStrategy[dict[str, Any]]:
    strings = st.builds(
        lambda low, high, pattern: {
            "type": "string",
            **({"minLength": low} if low else {}),
            **({"maxLength": low + high} if high is not None else {}),
            **({"pattern": pattern} if pattern else {}),
        },
        st.integers(0, 3),
        st.none() | st.integers(0, 5),
        st.sampled_from([None, "^[a-z]*$", "^[0-9]*$"]),
    )
    enums = st.sampled_from(_STRING_ENUMS).map(lambda v: {"type": "string", "enum": list(v)})
    integers = st.builds(
        lambda low, span, exclusive, step: {
            "type": "integer",
            **({("exclusiveMinimum" if exclusive else "minimum"): low} if low is not None else {}),
            **({"maximum": (low or 0) + span} if span is not None else {}),
            **({"multipleOf": step} if step else {}),
        },
        st.none() | st.integers(-5, 5),
        st.none() | st.integers(2, 20),
        st.booleans(),
        st.sampled_from([None, None, 2, 3]),
    )
    numbers = st.builds(
        lambda low, high: {
            "type": "number",
            **({"minimum": low} if low is not None else {}),
            **({"maximum": high} if high is not None else {}),
        },
        st.none() | st.sampled_from([-1.5, 0, 2]),
        st.none() | st.sampled_from([3, 10.5]),
    )
    booleans = st.just({"type": "boolean"})
    return strings | enums | integers | numbers | booleans


def _schemas(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    leaves = _leaf_schemas()
    if depth == 0:
        return leaves
    arrays = st.builds(
        lambda items, low, extra, unique: {
            "type": "array",
            "items": items,
            **({"minItems": low} if low else {}),
            **({"maxItems": low + extra} if extra is not None else {}),
            **({"uniqueItems": True} if unique else {}),
        },
        leaves,
        st.integers(0, 2),
        st.none() | st.integers(1, 3),
        st.booleans(),
    )
    return leaves | arrays | _objects(depth - 1)


def _objects(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda props, required, closed: {
            "type": "object",
            "properties": props,
            "required": [n for n in props if n in required],
            **({"additionalProperties": False} if closed else {}),
        },
        st.dictionaries(st.sampled_from(_NAMES), _schemas(depth), min_size=1, max_size=3),
        st.sets(st.sampled_from(_NAMES)),
        st.booleans(),
    )


def _places(schema: dict[str, Any], path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every subschema, as the keys that lead to it."""
    found = [path]
    for name, body in schema.get("properties", {}).items():
        found += _places(body, (*path, "properties", name))
    if isinstance(schema.get("items"), dict):
        found += _places(schema["items"], (*path, "items"))
    return found


def _at(schema: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    for key in path:
        schema = schema[key]
    return schema


_MUTATIONS: list[Callable[[dict[str, Any], Any], None]] = [
    lambda s, d: s.update(description="changed"),
    lambda s, d: (
        s.update(type=d(st.sampled_from(["string", "integer", "number", "boolean"])))
        if "properties" not in s and "items" not in s
        else None
    ),
    lambda s, d: s.pop(d(st.sampled_from(sorted(s))), None) if s else None,
    lambda s, d: (
        s.update(
            {
                d(st.sampled_from(["minimum", "maximum", "exclusiveMaximum", "multipleOf"])): d(
                    st.integers(1, 6)
                )
            }
        )
        if s.get("type") in ("integer", "number")
        else None
    ),
    # Not on an enum: a minLength of 1 on ["x", "y"] narrows nothing (the diff finds that
    # out for so few values, but the witness-free report is what this test is about).
    lambda s, d: (
        s.update({d(st.sampled_from(["minLength", "maxLength"])): d(st.integers(0, 4))})
        if s.get("type") == "string" and "format" not in s and "enum" not in s
        else None
    ),
    lambda s, d: (
        s.update(pattern=d(st.sampled_from(["^[a-z]*$", "^[0-9]*$", "^x"])))
        if s.get("type") == "string" and "format" not in s and "enum" not in s
        else None
    ),
    # Formats are added, never in the old schema: a length on an email narrows nothing.
    lambda s, d: (
        s.update(format=d(st.sampled_from(["email", "ipv4", "date", "uuid"])))
        if s.get("type") == "string" and "enum" not in s
        else None
    ),
    lambda s, d: (
        s.update(enum=d(st.sampled_from(_STRING_ENUMS)))
        if s.get("type") == "string" and set(s) <= {"type", "enum", "description"}
        else None
    ),
    lambda s, d: s.update(additionalProperties=d(st.booleans())) if "properties" in s else None,
    lambda s, d: (
        s["properties"].update({d(st.sampled_from(_NAMES)): d(_leaf_schemas())})
        if "properties" in s
        else None
    ),
    lambda s, d: (
        s.update(required=d(st.lists(st.sampled_from(sorted(s["properties"])), unique=True)))
        if "properties" in s
        else None
    ),
    lambda s, d: (
        s.update(
            {
                d(st.sampled_from(["minItems", "maxItems"])): d(st.integers(0, 3)),
                "uniqueItems": d(st.booleans()),
            }
        )
        if s.get("type") == "array"
        else None
    ),
]


@st.composite
def schema_pairs(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    old = draw(_objects(2))
    new = copy.deepcopy(old)
    for _ in range(draw(st.integers(1, 3))):
        place = _at(new, draw(st.sampled_from(_places(new))))
        draw(st.sampled_from(_MUTATIONS))(place, draw)
    return old, new


def _consistent(schema: dict[str, Any]) -> bool:
    """Whether some value matches every subschema (a mutation may leave min above max), and
    no array of unique items draws from a few values (unique booleans are at most two: a
    maxItems of 2 added then narrows nothing, which the diff cannot tell; unique empty strings
    are at most one, so a minItems of 2 leaves nothing to take)."""
    for path in _places(schema):
        node = _at(schema, path)
        items = node.get("items", {})
        few = "enum" in items or items.get("type") == "boolean" or items.get("maxLength") == 0
        if node.get("uniqueItems") and few:
            return False
        for low, high in (
            ("minimum", "maximum"),
            ("minLength", "maxLength"),
            ("minItems", "maxItems"),
        ):
            if low in node and high in node and node[low] > node[high]:
                return False
        if (
            "exclusiveMaximum" in node
            and node.get("minimum", float("-inf")) >= node["exclusiveMaximum"]
        ):
            return False
        if "required" in node and not set(node["required"]) <= set(node.get("properties", {})):
            return False
    return True


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=schema_pairs(), data=st.data())
def test_compatible_changes_accept_every_old_payload_and_breaking_ones_have_a_witness(
    pair: tuple[dict[str, Any], dict[str, Any]], data: st.DataObject
) -> None:
    old, new = pair
    if not (_consistent(old) and _consistent(new)):
        return
    changes = compare_schemas(
        old, new, pointer="/payload/schema", direction="input", noun="argument"
    )
    breaking = [c for c in changes if c.impact == "models"]
    if not breaking:
        # The strategy follows most keywords (not multipleOf): keep what the old schema takes.
        payloads = from_schema(old, max_depth=2).filter(lambda p: accepts(old, p))
        for _ in range(5):
            payload = data.draw(payloads)
            assert accepts(new, payload), (payload, [str(c) for c in changes])
    for change in breaking:
        assert_witness(change, old, new)


def test_the_report_says_which_changes_bust_cached_prefixes_and_what_search_loses(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    new = entries()
    new[GET_SITE]["description"] = "Fetch a record"  # its own words no longer find it
    new[GET_SITE]["title"] = "Fetch"
    old_path = write_catalog(tmp_path / "old.json", entries())
    _, out, _ = run_diff(capsys, str(old_path), str(write_catalog(tmp_path / "new.json", new)))
    assert (
        "Prompt cache: busts the cached prefix of every export that loads get_site eagerly" in out
    )
    assert "Tool search: recall@1 96% -> 93%" in out
    assert "Tool search: get_site: of " in out and "rank it first; was 2 and 2 of 2" in out
    assert "Tool search: now 14 tools" in out
    _, same, _ = run_diff(capsys, str(old_path), str(old_path))
    assert "Prompt cache" not in same and "Tool search" not in same


# ── prompts and resources (each toolset's content.json) ───────────────────────────────────


def edited_content(tmp_path: Path, edit: Callable[[list[dict[str, Any]]], object]) -> Path:
    """A copy of the worked example's gen/ whose content.json files ``edit`` changed."""
    out = tmp_path / "new"
    shutil.copytree(REPO / "gen", out)
    for path in sorted(out.glob("assistant/toolsets/*/content.json")):
        document = json.loads(path.read_text())
        edit(document["content"])
        document["count"] = len(document["content"])
        path.write_text(json.dumps(document))
    return out


def test_prompts_and_resources_changes_are_classified_and_reported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def edit(content: list[dict[str, Any]]) -> None:
        for entry in content:
            if entry["name"] == "triage_site":
                entry["description"] = "Look into a site"
                entry["arguments"]["required"].append("depth")
                entry["asks"] = ["user"]
            if entry["name"] == "document":
                entry["uri"] = "docs://{kind}/v2/{doc_id}"
        content[:] = [entry for entry in content if entry["name"] != "sites"]
        if any(entry["name"] == "triage_site" for entry in content):
            content.append(dict(content[0], name="brief", description="A brief", asks=[]))

    code, out, err = run_diff(capsys, str(REPO / "gen"), str(edited_content(tmp_path, edit)))
    assert (code, err) == (1, "")
    assert "No tool changed.\n\nPrompts and resources: 2 changed, 1 added, 1 removed" in out
    assert (
        "prompt triage_site (changed)\n  breaking for models\n    - depth: argument is now required"
        in out
    )
    assert '  breaking for applications\n    - asks added: ["user"]' in out
    assert "  prompt-only\n    - description changed:" in out
    assert 'prompt brief (added)\n  compatible\n    - new prompt "brief"' in out
    assert (
        'resource sites (removed)\n  breaking for models\n    - resource "sites" removed: resources/read of it now fails'
        in out
    )
    assert "template document (changed)\n  breaking for models\n    - uri changed:" in out
    code, out, _ = run_diff(
        capsys, str(REPO / "gen"), str(edited_content(tmp_path / "j", edit)), "--format", "json"
    )
    report = json.loads(out)
    assert {entry["id"]: entry["status"] for entry in report["content"]} == {
        "prompt triage_site": "changed",
        "prompt brief": "added",
        "template document": "changed",
        "resource sites": "removed",
    }
    assert report["summary"]["breaking"] == {"models": True, "applications": True}


def test_unchanged_content_adds_nothing_and_a_corrupt_one_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run_diff(capsys, str(REPO / "gen"), str(REPO / "gen"))
    assert code == 0 and "Prompts and resources" not in out
    broken = edited_content(tmp_path, lambda content: content.append({"kind": "tool"}))
    code, _, err = run_diff(capsys, str(REPO / "gen"), str(broken))
    assert code == 2 and "content.json: not a valid content catalog" in err


def test_an_argument_newly_mirrored_in_a_header_breaks_applications() -> None:
    change = one_change(
        lambda new: args(new)["properties"]["site_id"].update({"x-mcp-header": "Site"})
    )
    assert (change.impact, change.kind, change.path) == (
        "applications",
        "x-mcp-header_changed",
        "/payload/schema/properties/site_id/x-mcp-header",
    )
    assert change.message == (
        'x-mcp-header added: "Site": calls from clients that listed the old one are refused'
    )
