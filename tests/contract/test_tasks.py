"""LongRunning: a design's word that a tool may (or must) run as a task, checked where the design
is written and carried to the specs and the catalog, where the MCP server reads it."""

from __future__ import annotations

import pytest
from tooldesign.contract.catalog import CatalogError, CatalogTool
from tooldesign.contract.tasks import TaskSupport

from tests.support.design import WriteDesign, design_issues, line_of

DESIGN = """
with Service("svc"):
    with Toolset("ts"):
        with Tool("audit", "Audit every device"):
            Return(Boolean, "Whether it passed")
            {long_running}
"""


@pytest.mark.parametrize(
    ("call", "words"),
    [
        ("LongRunning(required='yes')", "LongRunning's required is True or False, not 'yes'"),
        ("LongRunning(keep_ms=0)", "keep_ms is a positive whole number of milliseconds, not 0"),
        ("LongRunning(poll_ms=1.5)", "poll_ms is a positive whole number of milliseconds"),
        ("LongRunning(keep_ms=10**10)", "keep_ms is at most 604800000 (a week)"),
        ("LongRunning(asks_first=1)", "asks_first is True or False, not 1"),
    ],
)
def test_a_bad_long_running_is_a_design_error_where_it_is_written(
    write_design: WriteDesign, call: str, words: str
) -> None:
    path = write_design(DESIGN.format(long_running=f"{call}  # <-- error"))
    [issue] = design_issues(path)
    assert words in issue.message
    assert issue.location is not None and issue.location.line == line_of(path, "<-- error")


def test_long_running_twice_is_a_design_error(write_design: WriteDesign) -> None:
    path = write_design(DESIGN.format(long_running="LongRunning()\n            LongRunning()"))
    [issue] = design_issues(path)
    assert "LongRunning" in issue.message


def test_the_catalog_carries_a_tools_task_and_reads_it_back() -> None:
    from tooldesign.contract.catalog import catalog_entry

    from gen.assistant.toolsets.metrics.specs import CHECK_REACHABILITY_SPEC, GET_TIME_SERIES_SPEC

    assert CHECK_REACHABILITY_SPEC.task == TaskSupport(keep_ms=3_600_000, poll_ms=1000)
    assert GET_TIME_SERIES_SPEC.task is None
    entry = catalog_entry(CHECK_REACHABILITY_SPEC)
    assert entry["task"] == {
        "onlyTask": False,
        "keepMs": 3_600_000,
        "pollMs": 1000,
        "asksFirst": False,
    }
    assert "task" not in catalog_entry(GET_TIME_SERIES_SPEC)
    assert CatalogTool.from_entry(entry).task == CHECK_REACHABILITY_SPEC.task
    with pytest.raises(CatalogError, match="'task': LongRunning's keep_ms"):
        CatalogTool.from_entry({**entry, "task": {"keepMs": -1}, "fingerprint": None})
