"""Specs cannot change once made: what a model is shown is always what the decoder checks.

A spec's schema, example and field descriptions are frozen: every way of changing them is
refused, at any depth, while everything that reads them (``json.dumps``, ``==``,
``isinstance``, ``copy.deepcopy``, pickle, the provider exports, the codecs) works as on plain
JSON data.
"""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from tooldesign.runtime import ToolValidationError
from tooldesign.runtime.providers import export_tools
from tooldesign.runtime.spec.frozen import FrozenDict, FrozenList, copy_json, freeze
from tooldesign.runtime.spec.specs import TypeSpec

from gen.assistant.toolsets.devices import codecs as device_codecs
from gen.assistant.toolsets.devices import specs as device_specs
from gen.assistant.toolsets.devices import types as device_types
from gen.assistant.toolsets.metrics import specs as metric_specs

SPEC = device_specs.LIST_DEVICES_SPEC
PAYLOAD = SPEC.payload


def _limit(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    limit: Mapping[str, Any] = schema["properties"]["limit"]
    return limit


def test_a_schema_cannot_drift_from_the_decoder() -> None:
    with pytest.raises(TypeError, match="read-only"):
        _limit(PAYLOAD.schema)["maximum"] = 5  # type: ignore[index]
    # What exports show and what the decoder accepts still agree.
    assert _limit(PAYLOAD.schema)["maximum"] == 500
    [exported] = export_tools([SPEC], "anthropic")
    assert exported["input_schema"]["properties"]["limit"]["maximum"] == 500
    codec, caller = device_codecs.LIST_DEVICES_PAYLOAD, {"session_id": "s-1"}
    assert codec.decode('{"site_id": "hq", "limit": 500}', injected=caller).limit == 500
    with pytest.raises(ToolValidationError):
        codec.decode('{"site_id": "hq", "limit": 501}', injected=caller)


MUTATIONS: dict[str, Callable[[Any], object]] = {
    "setitem": lambda d: d.__setitem__("x", 1),
    "delitem": lambda d: d.__delitem__(next(iter(d))),
    "update": lambda d: d.update({"x": 1}),
    "update by keywords": lambda d: d.update(x=1),
    "pop": lambda d: d.pop(next(iter(d))),
    "popitem": lambda d: d.popitem(),
    "setdefault": lambda d: d.setdefault("x", 1),
    "clear": lambda d: d.clear(),
    "|=": lambda d: d.__ior__({"x": 1}),
}
LIST_MUTATIONS: dict[str, Callable[[Any], object]] = {
    "setitem": lambda items: items.__setitem__(0, "x"),
    "slice setitem": lambda items: items.__setitem__(slice(0, 1), ["x"]),
    "delitem": lambda items: items.__delitem__(0),
    "append": lambda items: items.append("x"),
    "extend": lambda items: items.extend(["x"]),
    "insert": lambda items: items.insert(0, "x"),
    "pop": lambda items: items.pop(),
    "remove": lambda items: items.remove(items[0]),
    "clear": lambda items: items.clear(),
    "sort": lambda items: items.sort(),
    "reverse": lambda items: items.reverse(),
    "+=": lambda items: items.__iadd__(["x"]),
    "*=": lambda items: items.__imul__(2),
}

FROZEN_DICTS: dict[str, Callable[[], Any]] = {
    "schema": lambda: PAYLOAD.schema,
    "nested schema": lambda: _limit(PAYLOAD.schema),
    "deeply nested schema": lambda: SPEC.result.schema["$defs"]["Device"]["properties"],
    "example": lambda: PAYLOAD.example,
    "field_descriptions": lambda: PAYLOAD.field_descriptions,
    "server data schema": lambda: metric_specs.SPECS[0].server_data[0].schema,
}
FROZEN_LISTS: dict[str, Callable[[], Any]] = {
    "enum": lambda: PAYLOAD.schema["properties"]["status"]["enum"],
    "required": lambda: PAYLOAD.schema["required"],
}


CASES = [
    pytest.param(target, mutation, id=f"{target_name}-{mutation_name}")
    for targets, mutations in ((FROZEN_DICTS, MUTATIONS), (FROZEN_LISTS, LIST_MUTATIONS))
    for target_name, target in targets.items()
    for mutation_name, mutation in mutations.items()
]


@pytest.mark.parametrize(("target", "mutation"), CASES)
def test_every_change_to_a_spec_is_refused(
    target: Callable[[], Any], mutation: Callable[[Any], object]
) -> None:
    value = target()
    before = copy_json(value)
    with pytest.raises(TypeError, match="read-only"):
        mutation(value)
    assert value == before


def test_calling_init_again_changes_nothing() -> None:
    schema = PAYLOAD.schema
    before = copy_json(schema)
    schema.__init__({"x": 1})  # type: ignore[misc]
    required = schema["required"]
    required.__init__(["x"])
    assert schema == before and "x" not in schema and required == before["required"]


def test_a_spec_keeps_what_it_was_made_with_whatever_happens_to_the_original() -> None:
    raw: dict[str, Any] = {"type": "object", "properties": {"n": {"type": "integer"}}}
    example = {"n": [1]}
    spec = TypeSpec("P", device_types.GetDevicePayload, raw, example, {"n": "A number"})
    raw["properties"]["n"]["type"] = "string"
    example["n"].append(2)
    assert spec.schema == {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert spec.example == {"n": [1]}
    assert isinstance(spec.field_descriptions, FrozenDict)


def test_readers_see_plain_json_data() -> None:
    schema = PAYLOAD.schema
    plain = json.loads(json.dumps(schema))
    assert isinstance(schema, dict) and isinstance(schema, Mapping)
    assert isinstance(schema["required"], list)
    assert schema == plain and plain == schema
    assert json.dumps(schema, sort_keys=True) == json.dumps(plain, sort_keys=True)
    assert json.dumps(PAYLOAD.example) == json.dumps(
        {"site_id": "hq", "status": "online", "limit": 20}
    )
    # Shallow copies and merges are plain data, free to change.
    for shallow in (schema.copy(), copy.copy(schema), dict(schema), schema | {}):
        assert type(shallow) is dict and shallow == schema
        shallow["x"] = 1
    assert type(schema["required"] + ["x"]) is list
    assert "x" not in schema


def test_a_deep_copy_is_plain_data_to_change_and_a_spec_is_its_own_copy() -> None:
    schema = PAYLOAD.schema
    copied = copy.deepcopy(schema)
    assert type(copied) is dict and copied == schema
    _limit(copied)["maximum"] = 5  # type: ignore[index]
    copied["required"].append("x")
    assert _limit(schema)["maximum"] == 500 and "x" not in schema["required"]
    # A spec is immutable: its deep copy is itself, its JSON still frozen.
    assert copy.deepcopy(PAYLOAD) is PAYLOAD
    assert copy.deepcopy(SPEC) == SPEC
    assert isinstance(copy.deepcopy(SPEC).payload.schema, FrozenDict)


def test_pickle_keeps_a_spec_frozen() -> None:
    restored = pickle.loads(pickle.dumps(PAYLOAD.schema))
    assert restored == PAYLOAD.schema and type(restored) is FrozenDict
    assert type(restored["required"]) is FrozenList
    with pytest.raises(TypeError):
        _limit(restored)["maximum"] = 5  # type: ignore[index]


def test_freeze_shares_what_is_frozen_and_keeps_tuples_and_scalars() -> None:
    frozen = freeze({"a": [1, {"b": (2, [3])}], "c": "text"})
    assert freeze(frozen) is frozen
    assert type(frozen["a"][1]["b"]) is tuple and type(frozen["a"][1]["b"][1]) is FrozenList
    assert frozen == {"a": [1, {"b": (2, [3])}], "c": "text"}


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini", "mcp"])
def test_exports_of_frozen_specs_are_fresh_plain_data(provider: str) -> None:
    specs = [*device_specs.SPECS, *metric_specs.SPECS]
    exported = export_tools(specs, provider)  # type: ignore[arg-type]
    frozen: list[str] = []

    def walk(value: Any, path: str) -> None:
        if isinstance(value, FrozenDict | FrozenList):
            frozen.append(path)
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{path}.{key}")
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, f"{path}[{index}]")

    walk(exported, provider)
    assert frozen == []
    # The same export again, as the first one was: copies share nothing.
    assert export_tools(specs, provider) == exported  # type: ignore[arg-type]
