"""``tooldesign diff`` on a rule across arguments replaced by one that only loosens it: every
call taken before is still taken, so the change is compatible (before: a rule added, which
breaks models, beside a rule removed)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from tooldesign.contract.rules import ArgumentRule, rules_schema
from tooldesign.govern import diff_entries
from tooldesign.govern.changes import Change

from tests.support import REPO

CATALOG = REPO / "gen" / "assistant" / "tool_schemas.json"
LIST_DEVICES = "assistant.devices.list_devices"


def _changes(old: ArgumentRule, new: ArgumentRule) -> list[Change]:
    tools = {tool["id"]: tool for tool in json.loads(CATALOG.read_text())["tools"]}
    before, after = copy.deepcopy(tools), copy.deepcopy(tools)
    before[LIST_DEVICES]["payload"]["schema"].update(rules_schema((old,)))
    after[LIST_DEVICES]["payload"]["schema"].update(rules_schema((new,)))
    found, _ = diff_entries(before, after)
    return [change for tool in found for change in tool.changes]


def _at_least(*names: str) -> ArgumentRule:
    return ArgumentRule("at_least_one", names)


def _exactly(*names: str) -> ArgumentRule:
    return ArgumentRule("exactly_one", names)


def _when(
    requires: tuple[str, ...], otherwise: tuple[str, ...] = (), equals: Any = "offline"
) -> ArgumentRule:
    return ArgumentRule("when", requires, "status", equals, otherwise)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (_at_least("site_id", "cursor"), _at_least("site_id", "cursor", "limit")),
        (_at_least("site_id", "cursor"), _at_least("cursor", "site_id")),
        (_exactly("site_id", "cursor"), _exactly("cursor", "site_id")),
        (_exactly("site_id", "cursor"), _at_least("site_id", "cursor")),
        (_when(("site_id", "cursor")), _when(("site_id",))),
        (_when(("site_id",), ("cursor", "limit")), _when(("site_id",), ("cursor",))),
    ],
)
def test_a_rule_loosened_is_compatible(old: ArgumentRule, new: ArgumentRule) -> None:
    (change,) = _changes(old, new)
    assert (change.impact, change.kind) == ("compatible", "rule_loosened")
    assert old.dsl in change.message and new.dsl in change.message


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (_at_least("site_id", "cursor", "limit"), _at_least("site_id", "cursor")),
        (_exactly("site_id", "cursor"), _exactly("site_id", "cursor", "limit")),
        (_at_least("site_id", "cursor"), _exactly("site_id", "cursor")),
        (_when(("site_id",)), _when(("site_id", "cursor"))),
        (_when(("site_id",)), _when(("site_id",), equals="degraded")),
    ],
)
def test_a_rule_tightened_or_changed_still_breaks_models(
    old: ArgumentRule, new: ArgumentRule
) -> None:
    kinds = sorted((c.impact, c.kind) for c in _changes(old, new))
    assert kinds == [("compatible", "rule_removed"), ("models", "rule_added")]
