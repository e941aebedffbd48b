"""The routing check: recall@k of the tool search over each tool's own queries, and the tools
a search (and a model) may confuse."""

from __future__ import annotations

import dataclasses

import pytest
from tooldesign.govern.routing import compare_routing, routing_report, tool_queries
from tooldesign.runtime.providers import load_tools

from tests.support import REPO


def test_the_worked_example_routes_every_tool_by_its_own_words() -> None:
    tools = load_tools([REPO / "gen"])
    report = routing_report(tools)
    print(report.summary())  # shown in CI's log
    assert report.recall(5) == 1.0, report.misses()
    assert report.recall(1) >= 0.9
    by_name = {t.name: t for t in report.tools}
    assert dict(by_name["get_site"].confusable) == {"get_device": 0.6}
    assert "List sites" in by_name["list_sites"].queries
    assert routing_report(tools) == report  # deterministic


def test_declared_intents_are_queries_and_a_worse_description_is_reported() -> None:
    tools = load_tools([REPO / "gen"])
    intents = {"restart_device": ["power cycle the switch", "restart a device"]}
    report = routing_report(tools, intents=intents)
    restart = next(t for t in report.tools if t.name == "restart_device")
    assert restart.queries[-2:] == ("power cycle the switch", "restart a device")
    assert restart.ranks[-2:] == (None, 1)  # no tool says "power cycle": a miss, reported
    assert ("restart_device", "power cycle the switch") in report.misses()
    vague = [
        dataclasses.replace(t, description="Fetch a record", title="Fetch")
        if t.name == "get_site"
        else t
        for t in tools
    ]
    assert tool_queries(next(t for t in vague if t.name == "get_site"))[:2] == (
        "Fetch",
        "Fetch a record",
    )
    # Its old queries are asked of the new catalog too: it ranks first for fewer of them.
    changes = compare_routing(routing_report(tools), vague)
    assert changes[0] == "recall@1 96% -> 93%"
    assert changes[1].startswith("get_site: of 4 queries (its old ones too), 4 find it and 3")
    assert changes[-1].startswith("now 14 tools")
    assert compare_routing(routing_report(tools), tools) == []


def test_the_routing_benchmarks_fastmcp_peers_search_through_fastmcps_own_transforms() -> None:
    # benchmarks/routing.py puts FastMCP's BM25 and regex search transforms beside ours; a
    # FastMCP release that renames what the benchmark drives fails here, not in a stale table.
    pytest.importorskip("fastmcp.server.transforms.search")
    import sys

    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import routing
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    tools = load_tools([REPO / "gen"])
    bm25 = routing._fastmcp(tools, "bm25")
    regex = routing._fastmcp(tools, "regex")
    assert bm25 is not None and regex is not None
    assert bm25("restart a device")[0] == "restart_device"
    assert "restart_device" in regex("restart device")
    assert len(bm25("site")) <= 5
