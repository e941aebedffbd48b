"""The BM25 tool search index: its words, its ranking, and its determinism."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tooldesign.runtime.spec.search import SearchIndex, tool_words, words
from tooldesign.runtime.spec.specs import ToolSpec

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
