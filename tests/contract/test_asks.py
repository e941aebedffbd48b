"""Asks: a design's word on whom a tool asks during a call, checked where the design is read
and carried to the specs, where the MCP server reads it."""

from __future__ import annotations

import pytest

from tests.support.design import WriteDesign, design_issues, line_of

DESIGN = """
with Service("svc"):
    with Toolset("ts"):
        with Tool("ping", "Ping a host"):
            Return(Boolean, "Whether it answered")
            {asks}
"""


@pytest.mark.parametrize(
    ("asks", "words"),
    [
        ('Asks("someone")', "Asks takes 'user', 'model', 'roots', not 'someone'"),
        ("Asks()", "Asks names whom the tool asks"),
        ('Asks("user", "user")', "Asks names each one once"),
    ],
)
def test_a_bad_asks_is_a_design_error_where_it_is_written(
    write_design: WriteDesign, asks: str, words: str
) -> None:
    path = write_design(DESIGN.format(asks=f"{asks}  # <-- error"))
    [issue] = design_issues(path)
    assert words in issue.message
    assert issue.location is not None and issue.location.line == line_of(path, "<-- error")


def test_asks_twice_is_a_design_error(write_design: WriteDesign) -> None:
    path = write_design(DESIGN.format(asks='Asks("user")\n            Asks("model")'))
    [issue] = design_issues(path)
    assert "Asks" in issue.message


def test_the_worked_example_declares_that_its_probe_asks_the_user() -> None:
    from gen.assistant.toolsets.metrics.specs import (
        CHECK_REACHABILITY_SPEC,
        GET_TIME_SERIES_SPEC,
    )

    assert CHECK_REACHABILITY_SPEC.asks == ("user",)
    assert GET_TIME_SERIES_SPEC.asks == ()
