"""Rules across arguments where they meet JSON's values: a tested value JSON cannot write, and
two ``When``s testing one value that Python spells two ways."""

from __future__ import annotations

import pytest

from tests.support.design import ERROR, WriteDesign, assert_at, single_issue

_DESIGN = """\
with Service("crm", "Contacts"):
    with Toolset("people", "People"):
        with Tool("add_contact", "Add a contact"):
            with Args():
                Attribute("score", Float, "Score")
                Attribute("phone", String, "Phone")
                Attribute("email", String, "Email")
                {lines}
            Return(String, "Id")
"""


@pytest.mark.parametrize("value", ['float("nan")', 'float("inf")', '-float("inf")', "1e400"])
def test_a_tested_value_json_cannot_write_is_a_design_error(
    write_design: WriteDesign, value: str
) -> None:
    # Before, the generator crashed rendering the schema's const (a traceback, no line).
    path = write_design(
        _DESIGN.format(lines=f'When("score", equals={value}, requires=["phone"])  {ERROR}')
    )
    issue = single_issue(path)
    assert "is not a JSON number" in issue.message
    assert_at(issue, path)


def test_two_whens_testing_one_json_value_are_one_rule(write_design: WriteDesign) -> None:
    # 1 and 1.0 are one JSON value (the decoder's const compares them equal): two rules.
    lines = (
        'When("score", equals=1, requires=["phone"])\n                '
        f'When("score", equals=1.0, requires=["email"])  {ERROR}'
    )
    path = write_design(_DESIGN.format(lines=lines))
    issue = single_issue(path)
    assert "say it in one rule" in issue.message
    assert_at(issue, path)
