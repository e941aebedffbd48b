"""A code-first tool's pattern that the schema's dialect does not read alike everywhere is left
out of the imported design, with a notice, rather than made a design error at ``gen``."""

from __future__ import annotations

from pathlib import Path

from tooldesign.importers.python import import_python

from tests.support.python_import import write


def test_a_pydantic_pattern_outside_the_dialect_is_left_out_with_a_notice(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '''
        from pydantic import Field

        @tool
        def lookup(code: str = Field(pattern=r"^(?i)[a-z]+$"), zip: str = Field(pattern=r"^\\d{5}$")) -> str:
            """Look a code up."""
        ''',
    )
    result = import_python(path)
    [tool] = [t for toolset in result.design.toolsets for t in toolset.tools]
    options = {a.name: a.options for a in tool.args}
    assert "pattern" not in options["code"]
    assert options["zip"]["pattern"] == r"^\d{5}$"
    assert any("pattern '^(?i)[a-z]+$' left out: an inline flag" in str(n) for n in result.notices)
