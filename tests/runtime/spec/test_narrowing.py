"""How to ask a bounded tool for less, read from its own arguments."""

from __future__ import annotations

from typing import Any

from tooldesign.runtime.spec.narrowing import narrowing_hint

from examples.netops.agent import build_runtime


def bounded() -> dict[str, Any]:
    return {s.name: s for s in build_runtime().specs() if s.bounded}


def test_filters_limits_and_cursors_of_the_worked_example() -> None:
    tools = bounded()
    assert narrowing_hint(tools["list_devices"].payload.schema) == (
        "Filter by status (online, offline or unknown); use a smaller limit (1 to 500)."
    )
    assert narrowing_hint(tools["search_docs"].payload.schema) == (
        "Filter by kinds (article or runbook); use a smaller limit (1 to 20)."
    )
    sites = tools["list_sites"]
    assert narrowing_hint(sites.payload.schema, sites.bounds.cursor_field) == (
        "Filter by region (emea, amer or apac); page through it with cursor."
    )


def test_arguments_that_cannot_narrow_give_no_hint_and_long_enums_are_cut() -> None:
    assert narrowing_hint({"type": "object", "properties": {"name": {"type": "string"}}}) is None
    assert narrowing_hint({"type": "object"}) is None
    many = {"type": "object", "properties": {"code": {"enum": [f"c{i}" for i in range(9)]}}}
    assert narrowing_hint(many) == "Filter by code (c0, c1, c2, c3, c4, c5 or 3 more)."
    capped = {"type": "object", "properties": {"top": {"type": "integer", "maximum": 50}}}
    assert narrowing_hint(capped) == "Use a smaller top (at most 50)."
