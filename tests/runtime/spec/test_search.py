"""The BM25 tool search index: its words, its ranking, and its determinism."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from tooldesign.runtime.spec.search import (
    WORDS_NAME,
    WORDS_RULES,
    SearchIndex,
    known_words,
    read_words,
    tool_words,
    words,
    words_text,
)
from tooldesign.runtime.spec.specs import ToolSpec, TypeSpec

from examples.netops.agent import build_runtime


@pytest.fixture(scope="module")
def specs() -> list[ToolSpec[Any, Any]]:
    return build_runtime().specs()


def test_words_split_names_every_way_they_are_spelled_and_meet_plurals() -> None:
    assert (
        words("listDevices") == words("list_devices") == words("list-devices") == ["list", "device"]
    )
    assert words("The status of all the sites") == ["statu", "site"]  # one rule, applied alike
    assert words("status") == words("statuses".removesuffix("es"))
    assert words("class") == ["class"]  # a double s is no plural
    assert words("") == []


def test_a_tool_reads_its_name_title_description_arguments_and_example(
    specs: list[ToolSpec[Any, Any]],
) -> None:
    restart = next(s for s in specs if s.name == "restart_device")
    counts = tool_words(restart)
    assert counts["restart"] >= 3  # the name weighs three times
    for argument in restart.payload.schema["properties"]:
        for word in words(argument):
            assert counts[word] > 0, word


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("restart a device", "restart_device"),
        ("probe a host for packet loss", "check_reachability"),
        ("plan a maintenance window", "schedule_maintenance"),
        ("list the sites", "list_sites"),
        ("how devices connect", "get_topology"),
    ],
)
def test_the_right_tool_ranks_first(
    specs: list[ToolSpec[Any, Any]], query: str, expected: str
) -> None:
    hits = SearchIndex.build(specs).search(query, 3)
    assert hits, query
    assert hits[0].name == expected, [h.name for h in hits]


def test_the_same_tools_give_the_same_bytes_and_the_data_reads_back(
    specs: list[ToolSpec[Any, Any]],
) -> None:
    first, second = SearchIndex.build(specs), SearchIndex.build(list(specs))
    text = json.dumps(first.to_json(), sort_keys=True)
    assert text == json.dumps(second.to_json(), sort_keys=True)
    back = SearchIndex.from_json(json.loads(text))
    for query in ("device", "metrics for a site", "profile preferences"):
        assert back.search(query, 5) == first.search(query, 5)
    with pytest.raises(ValueError, match="regenerate"):
        SearchIndex.from_json({**first.to_json(), "version": 99})


def test_limits_filters_and_queries_that_find_nothing(specs: list[ToolSpec[Any, Any]]) -> None:
    index = SearchIndex.build(specs)
    assert index.search("zzz unknown words", 5) == []
    assert index.search("the of and", 5) == []  # stop words only
    assert index.search("device", 0) == []
    hits, total = index.find("device", 2)
    assert len(hits) == 2 and total > 2
    only = frozenset(i for i, s in enumerate(specs) if s.toolset == "sites")
    assert {h.name for h in index.search("device site", 20, within=only)} <= {
        s.name for s in specs if s.toolset == "sites"
    }
    # Ties rank in tool order, so the ranking never depends on hashing.
    scores = [(-h.score, h.position) for h in index.search("get", 20)]
    assert scores == sorted(scores)


def test_generation_stores_each_tools_words_and_the_index_reads_them(
    specs: list[ToolSpec[Any, Any]],
) -> None:
    # gen wrote tool_search.json beside each toolset's catalog: the words read from the tools
    # now, under the same rules, so the index built from them is the one built from the tools.
    for spec in specs:
        assert spec.payload.model_module.endswith(".types"), spec.id
        stored = known_words(spec)
        assert stored == tool_words(spec), spec.id
        assert known_words(spec) is stored  # read once per process, not per build
    built = SearchIndex.build(specs)
    fresh = SearchIndex.from_words([s.name for s in specs], [tool_words(s) for s in specs])
    assert built.to_json() == fresh.to_json()


def test_the_words_file_is_deterministic_and_other_rules_are_not_read(
    specs: list[ToolSpec[Any, Any]],
) -> None:
    text = words_text(specs)
    assert text == words_text(list(specs)) and text.count("\n") == len(specs) + 2
    read = read_words(text)
    assert read is not None and read[str(specs[0].id)] == tool_words(specs[0])
    other = json.loads(text)
    other["rules"] = "000000000000"
    assert read_words(json.dumps(other)) is None
    assert WORDS_RULES in text


def test_a_tool_without_stored_words_is_read_from_itself(
    specs: list[ToolSpec[Any, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = specs[0]
    folder = tmp_path / "pkg_without_words"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    payload = TypeSpec(
        "X", _model_in("pkg_without_words.types"), spec.payload.schema, spec.payload.example
    )
    alone = dataclasses.replace(spec, payload=payload)
    assert known_words(alone) == tool_words(spec)
    (folder / WORDS_NAME).write_text("{not json")  # damaged: read from the tool, no failure
    assert known_words(alone) == tool_words(spec)


def _model_in(module: str) -> type[BaseModel]:
    return type("X", (BaseModel,), {"__module__": module})
