"""The DSL's signatures are typed: mypy (and editors) flag a misspelt option, a format that does
not exist or a value of the wrong type while the design is written; ``gen`` still checks them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest
from tooldesign.contract.constraints import OPTIONS, AttributeOptions
from tooldesign.contract.formats import FORMAT_NAMES
from tooldesign.contract.formats import FormatName as Format
from tooldesign.eval.evaluate import evaluate
from tooldesign.ir.errors import DesignError

from tests.support import REPO

MISTAKES = """\
from tooldesign.dsl import (
    Args, ArrayOf, Attribute, BindTo, Int, Required, ServerData, Service, String, Tool, Toolset,
)

with Service("s", "A service"):
    with Toolset("t", "A toolset"):
        with Tool("lookup", "Look things up"):
            with Args():
                Attribute("name", String, "A name", max_lenght=5)
                Attribute("when", String, "A time", format="datetime")
                Attribute("n", Int, "A count", minimum="1")
                Attribute("tags", ArrayOf(list), "Tags")
                Required("name")
            ServerData("chart", String, "A chart", default="yes")
            BindTo(42)
"""


def mypy(path: Path) -> dict[int, str]:
    """mypy --strict's errors in ``path``, by line."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", "/dev/null", "--no-pretty",
         "--hide-error-context", "--no-error-summary", path.name],
        cwd=path.parent,
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    errors: dict[int, str] = {}
    for line in done.stdout.splitlines():
        where, found, message = line.partition(": error: ")
        if found:
            errors[int(where.split(":")[1])] = message
    return errors


@pytest.mark.slow
def test_mypy_flags_design_mistakes(tmp_path: Path) -> None:
    design = tmp_path / "design.py"
    design.write_text(MISTAKES)
    formats = ", ".join(repr(f) for f in get_args(Format))
    expected = {
        9: 'Unexpected keyword argument "max_lenght" for "Attribute"; did you mean "max_length"?',
        10: f'Argument "format" to "Attribute" has incompatible type "Literal[\'datetime\']"; '
        f'expected "Literal[{formats}]"',
        11: 'Argument "minimum" to "Attribute" has incompatible type "str"; expected "float"',
        12: 'Argument 1 to "ArrayOf" has incompatible type "type[list[Any]]"; expected "TypeExpr',
        14: 'Argument "default" to "ServerData" has incompatible type "Literal[\'yes\']"; '
        "expected \"Literal['on', 'off']\"",
        15: 'Argument 1 to "BindTo" has incompatible type "int"; expected "Callable[..., Any] | str"',
    }
    found = mypy(design)
    assert sorted(found) == sorted(expected)
    for line, message in expected.items():
        assert found[line].startswith(message), found[line]


def test_gen_still_reports_what_no_checker_read(tmp_path: Path) -> None:
    design = tmp_path / "design.py"
    design.write_text(MISTAKES)
    with pytest.raises(DesignError) as caught:
        evaluate([str(design)])
    messages = "\n".join(str(issue) for issue in caught.value.issues)
    assert (
        "unknown Attribute option max_lenght= (did you mean max_length=?); allowed: enum"
        in messages
    )
    assert "format='datetime'" in messages or "'datetime'" in messages


@pytest.mark.slow
def test_the_worked_example_is_clean_under_mypy_strict() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", "/dev/null",
         "design/common.py", "design/assistant.py"],
        cwd=REPO,
        # A design imports its sibling designs from its own folder.
        env={**os.environ, "MYPYPATH": str(REPO / "design")},
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout


def test_the_typed_options_are_the_contract_tables() -> None:
    from tooldesign.dsl.calls import _CONSTRAINT_OPTIONS

    assert _CONSTRAINT_OPTIONS == tuple(AttributeOptions.__annotations__)
    assert set(AttributeOptions.__annotations__) == {*OPTIONS, "default", "example"}
    assert set(get_args(Format)) == FORMAT_NAMES
