"""``tooldesign diff`` on rules across arguments: adding one breaks models (calls taken before
are refused), removing one is compatible; each is named as the design writes it."""

from __future__ import annotations

import copy
import json
from typing import Any

from tooldesign.contract.rules import ArgumentRule, rules_schema
from tooldesign.govern import diff_entries
from tooldesign.govern.changes import Change

from tests.support import REPO

CATALOG = REPO / "gen" / "assistant" / "tool_schemas.json"
LIST_DEVICES = "assistant.devices.list_devices"
RULE = ArgumentRule("when", ("site_id",), "status", "offline", ())


def _changes(old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    tools, _ = diff_entries(old, new)
    return [change for tool in tools for change in tool.changes]


def _with_rule() -> tuple[dict[str, Any], dict[str, Any]]:
    old = {tool["id"]: tool for tool in json.loads(CATALOG.read_text())["tools"]}
    new = copy.deepcopy(old)
    new[LIST_DEVICES]["payload"]["schema"].update(rules_schema((RULE,)))
    return old, new


def test_a_rule_added_breaks_models() -> None:
    old, new = _with_rule()
    (change,) = _changes(old, new)
    assert change.impact == "models"
    assert change.kind == "rule_added"
    assert "When('status', equals='offline', requires=['site_id'])" in change.message
    assert 'site_id is required when status is "offline"' in change.message
    assert change.path == "/payload/schema"


def test_a_rule_removed_is_compatible() -> None:
    old, new = _with_rule()
    (change,) = _changes(new, old)
    assert change.impact == "compatible"
    assert change.kind == "rule_removed"


def test_a_rule_changed_is_one_removed_and_one_added() -> None:
    _, new = _with_rule()
    newer = copy.deepcopy(new)
    other = ArgumentRule("when", ("site_id",), "status", "degraded", ())
    newer[LIST_DEVICES]["payload"]["schema"].update(rules_schema((other,)))
    kinds = sorted(c.kind for c in _changes(new, newer))
    assert kinds == ["rule_added", "rule_removed"]
