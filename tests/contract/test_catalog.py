"""``tool_schemas.json``: versions that follow content, and a loader that survives bad files."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest
from tooldesign.generate import generate
from tooldesign.runtime.spec.catalog import (
    Catalog,
    CatalogError,
    CatalogLoader,
    catalog_hash,
    load_catalog,
    parse_catalog,
)

from tests.support import REPO

DESIGN = """\
from tooldesign.dsl import *

with Service("svc", "A service"):
    with Toolset("things", "Things"):
        with Tool("find", "Find things", title="Find"):
            with Args():
                Attribute("query", String, "What to look for", max_length=50)
                Attribute("limit", Int, "How many", default=5)
                Required("query")
            Return(ArrayOf(String), "Names")
            Annotations(read_only=True)
"""


def catalog_of(tmp_path: Path, design: str, name: str) -> dict[str, object]:
    source = tmp_path / f"{name}.py"
    source.write_text(textwrap.dedent(design))
    out = tmp_path / f"out_{name}"
    generate([str(source)], out)
    data: dict[str, object] = json.loads((out / "svc" / "tool_schemas.json").read_text())
    return data


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"Find things"', '"Find things by name"'),  # a tool's description
        ('"What to look for"', '"Words to look for"'),  # a field's description
        ("max_length=50", "max_length=60"),  # a constraint
        ("default=5", "default=6"),  # a default
        ('Tool("find"', 'Tool("search"'),  # the name
        ('title="Find"', 'title="Search"'),  # the title
        ("read_only=True", "read_only=False"),  # an annotation
        ('Required("query")', "Required()"),  # what is required
        ("ArrayOf(String)", "ArrayOf(Int)"),  # the result type
    ],
)
def test_version_and_hash_follow_every_change_a_model_can_see(
    tmp_path: Path, old: str, new: str
) -> None:
    base = catalog_of(tmp_path, DESIGN, "base")
    again = catalog_of(tmp_path, DESIGN, "again")
    assert DESIGN.count(old) == 1
    changed = catalog_of(tmp_path, DESIGN.replace(old, new), "changed")
    assert (base["version"], base["hash"]) == (again["version"], again["hash"])
    assert base["hash"] != changed["hash"] and base["version"] != changed["version"]
    assert base["version"] == str(base["hash"])[:12]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (  # two attributes: the order a model reads the parameters in
            '                Attribute("query", String, "What to look for", max_length=50)\n',
            '                Attribute("limit", Int, "How many", default=5)\n',
        ),
    ],
)
def test_swapping_two_fields_is_a_new_version(tmp_path: Path, first: str, second: str) -> None:
    base = catalog_of(tmp_path, DESIGN, "base")
    assert DESIGN.count(first) == DESIGN.count(second) == 1
    swapped_design = DESIGN.replace(first, "\0").replace(second, first).replace("\0", second)
    swapped = catalog_of(tmp_path, swapped_design, "swapped")
    again = catalog_of(tmp_path, swapped_design, "again")
    assert base["hash"] != swapped["hash"] and base["version"] != swapped["version"]
    assert (swapped["version"], swapped["hash"]) == (again["version"], again["hash"])
    tools: Any = swapped["tools"]
    assert list(tools[0]["payload"]["schema"]["properties"]) == ["limit", "query"]
    # The loader checks the hash the same way: the swapped catalog is valid as written.
    assert parse_catalog(json.dumps(swapped)).hash == swapped["hash"]


def test_the_hash_follows_key_order_in_the_generator_and_the_loader_alike() -> None:
    from tooldesign.contract.catalog import catalog_hash as generated_hash

    one = [{"payload": {"properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}}]
    two = [{"payload": {"properties": {"b": {"type": "integer"}, "a": {"type": "string"}}}}]
    assert catalog_hash(one) != catalog_hash(two)
    assert generated_hash(one) == catalog_hash(one) and generated_hash(two) == catalog_hash(two)


def test_a_formatting_only_change_in_the_design_keeps_the_version(tmp_path: Path) -> None:
    base = catalog_of(tmp_path, DESIGN, "base")
    moved = catalog_of(
        tmp_path,
        "# a comment\n\n" + DESIGN.replace("            Annotations", "\n            Annotations"),
        "moved",
    )
    assert base["hash"] == moved["hash"]


def test_the_generated_catalogs_are_valid(tmp_path: Path) -> None:
    for path in (REPO / "gen").rglob("tool_schemas.json"):
        catalog = load_catalog(path)
        assert catalog.count == len(catalog.tools) > 0
        assert catalog.hash == catalog_hash(json.loads(path.read_text())["tools"])


# ── loading ──────────────────────────────────────────────────────────────────────────────


@pytest.fixture
def catalog_file(tmp_path: Path) -> Path:
    path = tmp_path / "tool_schemas.json"
    path.write_bytes((REPO / "gen" / "assistant" / "tool_schemas.json").read_bytes())
    return path


def rewrite(path: Path, text: str) -> None:
    """Replace the file's content and make sure its stat changes (coarse mtime clocks)."""
    before = path.stat().st_mtime_ns
    path.write_text(text)
    os.utime(path, ns=(before + 1_000_000, before + 1_000_000))


def test_load_catalog_parses_and_looks_up_tools(catalog_file: Path) -> None:
    catalog = load_catalog(catalog_file)
    assert isinstance(catalog, Catalog)
    tool = catalog.tool("list_devices")
    assert tool is not None and tool is catalog.tool("assistant.devices.list_devices")
    assert tool.annotations.read_only is True
    assert "session_id" not in json.dumps(tool.payload.schema)
    assert tool.payload.example == {"site_id": "hq", "status": "online", "limit": 20}
    assert [s.kind for s in catalog.tool("get_time_series").server_data] == [  # type: ignore[union-attr]
        "atlas.time_series",
        "atlas.thresholds",
    ]


def test_an_unchanged_file_is_not_parsed_again(catalog_file: Path) -> None:
    loader = CatalogLoader(catalog_file)
    first = loader.load()
    assert loader.load() is first
    os.utime(catalog_file)  # touched, same bytes
    assert loader.load() is first
    data = json.loads(catalog_file.read_text())
    data["tools"] = data["tools"][:2]
    data["count"] = 2
    data["hash"] = catalog_hash(data["tools"])
    data["version"] = data["hash"][:12]
    rewrite(catalog_file, json.dumps(data))
    second = loader.load()
    assert second is not first and second.count == 2


@pytest.mark.parametrize(
    ("damage", "fragment"),
    [
        (
            lambda text: text[: len(text) // 2],
            "not valid JSON (the file may be truncated or corrupt)",
        ),
        (
            lambda text: text.replace('"List devices on a site"', '"Edited by hand"'),
            "'hash' is not the sha256",
        ),
        (lambda text: "[]", "the top level is not a JSON object"),
        (
            lambda text: text.replace('"count": 14', '"count": 15'),
            "'count' is 15 but 'tools' lists 14",
        ),
    ],
    ids=["truncated", "edited", "not-an-object", "count"],
)
def test_a_bad_file_is_a_clear_error_and_the_last_good_catalog_stays(
    catalog_file: Path, damage: object, fragment: str
) -> None:
    loader = CatalogLoader(catalog_file)
    good = loader.load()
    rewrite(catalog_file, damage(catalog_file.read_text()))  # type: ignore[operator]
    with pytest.raises(CatalogError) as caught:
        loader.load()
    assert fragment in str(caught.value)
    assert str(catalog_file) in str(caught.value)
    assert caught.value.last_good is good
    assert loader.current() is good
    assert loader.last_error is caught.value


def test_load_catalog_keeps_the_last_good_catalog_per_path(catalog_file: Path) -> None:
    good = load_catalog(catalog_file)
    text = catalog_file.read_text()
    rewrite(catalog_file, text[:100])
    with pytest.raises(CatalogError) as caught:
        load_catalog(catalog_file)
    assert caught.value.last_good is good
    rewrite(catalog_file, text)
    assert load_catalog(catalog_file).hash == good.hash


def test_a_missing_file_and_an_invalid_schema_are_errors(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="cannot read the file"):
        load_catalog(tmp_path / "nope.json")
    tools: list[dict[str, object]] = [
        {
            "id": "s.t.x",
            "name": "x",
            "service": "s",
            "toolset": "t",
            "title": None,
            "description": "X",
            "tags": [],
            "payload": {
                "name": "P",
                "schema": {"type": "object", "properties": {"a": {"type": 3}}},
            },
            "result": {"name": "R", "schema": {"type": "string"}},
            "bounded": False,
            "server_data": [],
        }
    ]
    digest = catalog_hash(tools)
    document = {
        "version": digest[:12],
        "hash": digest,
        "schema_dialect": "https://json-schema.org/draft/2020-12/schema",
        "count": 1,
        "tools": tools,
    }
    with pytest.raises(
        CatalogError, match=r"payload.schema/properties/a/type: not a valid JSON Schema"
    ):
        parse_catalog(json.dumps(document))


# ── agent-implemented tools ──────────────────────────────────────────────────────────────


def test_the_catalog_says_a_tool_is_implemented_by_an_agent_with_its_budget() -> None:
    catalog = load_catalog(REPO / "gen" / "assistant" / "tool_schemas.json")
    entries = json.loads((REPO / "gen" / "assistant" / "tool_schemas.json").read_text())["tools"]
    [diagnose] = [e for e in entries if e["name"] == "diagnose_site"]
    assert diagnose["agent"] == {
        "uses": ["devices", "metrics"],
        "forward": ["session_id"],
        "max_turns": 8,
        "max_tool_calls": 12,
        "timeout": 60,
    }
    tool = catalog.tool("diagnose_site")
    assert tool is not None and tool.agent is not None
    assert tool.agent.uses == ("devices", "metrics") and tool.agent.max_tool_calls == 12
    assert all("agent" not in e for e in entries if e["name"] != "diagnose_site")


@pytest.mark.parametrize(
    ("agent", "problem"),
    [
        ("devices", "'agent' must be an object of"),
        ({"uses": ["devices"], "max_laps": 3}, "'agent' must be an object of"),
        ({"uses": "devices"}, "'uses' and 'forward' must be lists of names"),
        ({"uses": ["devices"], "max_turns": 0}, "max_turns must be a positive integer"),
    ],
)
def test_a_bad_agent_marker_is_reported(agent: object, problem: str) -> None:
    entries = json.loads((REPO / "gen" / "assistant" / "tool_schemas.json").read_text())["tools"]
    [diagnose] = [e for e in entries if e["name"] == "diagnose_site"]
    diagnose["agent"] = agent
    diagnose.pop("fingerprint")
    document = {
        "version": catalog_hash(entries)[:12],
        "hash": catalog_hash(entries),
        "schema_dialect": "https://json-schema.org/draft/2020-12/schema",
        "count": len(entries),
        "tools": entries,
    }
    with pytest.raises(CatalogError, match=problem):
        parse_catalog(document)
