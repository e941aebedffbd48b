"""CodeAccess: a design's word on whether code may call a tool, checked where the design is
read and where a catalog is read, and carried to the specs and the code-mode policy."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tooldesign.contract.catalog import CatalogError, CatalogTool

from tests.support import REPO
from tests.support.design import WriteDesign, design_issues, line_of

DESIGN = """
with Service("svc"):
    with Toolset("ts"):
        with Tool("ping", "Ping a host"):
            with Args():
                Attribute("host", String, "Host")
                Required("host")
            Return(Boolean, "Whether it answered")
            Annotations(read_only=True)
            {access}
"""


def test_a_bad_access_is_a_design_error_where_it_is_written(write_design: WriteDesign) -> None:
    path = write_design(DESIGN.format(access='CodeAccess("sometimes")  # <-- error'))
    [issue] = design_issues(path)
    assert "CodeAccess takes one of 'call', 'approve', 'direct', not 'sometimes'" in issue.message
    assert issue.location is not None and issue.location.line == line_of(path, "<-- error")


def test_approve_needs_the_tools_confirm(write_design: WriteDesign) -> None:
    path = write_design(DESIGN.format(access='CodeAccess("approve")'))
    [issue] = design_issues(path)
    assert "needs the tool's Confirm" in issue.message


def test_the_worked_example_keeps_its_probe_direct_only() -> None:
    catalog = json.loads((REPO / "gen" / "assistant" / "tool_schemas.json").read_text())
    entries = {entry["name"]: entry for entry in catalog["tools"]}
    assert entries["check_reachability"]["code_access"] == "direct"
    assert "code_access" not in entries["get_time_series"]  # its side effects decide
    tool = CatalogTool.from_entry(entries["check_reachability"])
    assert tool.code_access == "direct"
    from gen.assistant.toolsets.metrics.specs import CHECK_REACHABILITY_SPEC

    assert CHECK_REACHABILITY_SPEC.code_access == "direct"


@pytest.mark.parametrize(
    ("access", "confirm", "words"),
    [("never", False, "not 'never'"), ("approve", False, "needs the tool's Confirm")],
)
def test_a_catalog_with_a_bad_access_is_refused(access: str, confirm: bool, words: str) -> None:
    catalog = json.loads((REPO / "gen" / "assistant" / "tool_schemas.json").read_text())
    entry: dict[str, Any] = next(e for e in catalog["tools"] if e["name"] == "get_site")
    entry = {**entry, "code_access": access}
    entry.pop("fingerprint")
    with pytest.raises(CatalogError, match=words):
        CatalogTool.from_entry(entry)
