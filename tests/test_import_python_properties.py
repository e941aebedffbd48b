"""Import → gen → decode accepts exactly the calls the original signature accepts.

Hypothesis writes modules of random tool functions (keyword parameters of the supported
annotations, with and without defaults), imports them with ``tooldesign import python``,
generates the design, and throws random argument sets at both the generated decoder and
pydantic's ``validate_call`` of the original function (what code-first libraries validate
with): each set is accepted by both or by neither.

One mapping is inexact on purpose and left out here: ``x: X | None`` *without* a default is
required-but-nullable in Python and written as optional (the DSL has no required-and-null).
"""

from __future__ import annotations

import importlib.util
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pydantic
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tooldesign.importers.python import import_python
from tooldesign.importers.writer import render
from tooldesign.runtime import ToolValidationError

from tests.conftest import Generated
from tests.strategies import json_values

# (annotation, defaults that fit it, values worth trying beyond random JSON)
ANNOTATIONS: list[tuple[str, list[str | None], list[Any]]] = [
    ("str", [None, '"x"'], ["", "abc", 3]),
    ("int", [None, "3"], [0, -7, "12", 1.0, 1.5, True]),
    ("float", [None, "1.5"], [0, 2.5, "3.25", "nan?"]),
    ("bool", [None, "True"], [True, False, "yes", 1, 2]),
    ("list[str]", [None, "[]"], [[], ["a"], ["a", 1], "a"]),
    ("list[int]", [None], [[1, 2], ["1"], [1.5]]),
    ("dict[str, int]", [None, "{}"], [{}, {"a": 1}, {"a": "x"}, []]),
    ('Literal["a", "b"]', [None, '"a"'], ["a", "b", "c", 1]),
    ("Optional[int]", ["None"], [None, 3, "x"]),
    ("str | None", ["None"], [None, "s", 1]),
    ("Annotated[int, Field(ge=0, le=10)]", [None, "5"], [0, 10, 11, -1, "5"]),
    ("Annotated[str, Field(min_length=2, max_length=4)]", [None], ["a", "ab", "abcde"]),
    ("list[Literal[1, 2]]", [None, "[]"], [[1], [3], [1, 2, 2]]),
]
HEADER = (
    "from typing import Annotated, Literal, Optional\n"
    "from pydantic import Field\n\n"
    "def tool(f):\n    return f\n\n"
)


@st.composite
def functions(draw: Any) -> list[list[tuple[int, str | None]]]:
    """Per function, its parameters: (annotation index, default source or None)."""
    out = []
    for _ in range(draw(st.integers(2, 4))):
        params = []
        for _ in range(draw(st.integers(1, 4))):
            index = draw(st.integers(0, len(ANNOTATIONS) - 1))
            params.append((index, draw(st.sampled_from(ANNOTATIONS[index][1]))))
        out.append(params)
    return out


def source_of(spec: list[list[tuple[int, str | None]]]) -> str:
    lines = [HEADER]
    for number, params in enumerate(spec):
        declared = ", ".join(
            f"p{i}: {ANNOTATIONS[index][0]}" + (f" = {default}" if default else "")
            for i, (index, default) in enumerate(params)
        )
        lines.append(f'@tool\ndef f{number}(*, {declared}) -> None:\n    """Tool {number}."""\n\n')
    return "".join(lines)


def arguments(params: list[tuple[int, str | None]]) -> st.SearchStrategy[dict[str, Any]]:
    per_param = {
        f"p{i}": st.one_of(st.sampled_from(ANNOTATIONS[index][2]), json_values)
        for i, (index, _) in enumerate(params)
    }
    present = st.fixed_dictionaries({}, optional=per_param)
    extra = st.dictionaries(
        st.text(string.ascii_lowercase, min_size=1, max_size=3), json_values, max_size=1
    )
    return st.tuples(present, extra).map(lambda pair: {**pair[1], **pair[0]})


def load_module(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def accepts(call: Callable[..., Any], args: dict[str, Any]) -> bool:
    try:
        call(**args)
    except pydantic.ValidationError:
        return False
    return True


def decodes(decode: Callable[[Any], Any], args: dict[str, Any]) -> bool:
    try:
        decode(args)
    except ToolValidationError:
        return False
    return True


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(spec=functions(), data=st.data())
def test_import_gen_decode_accepts_exactly_what_the_signature_accepts(
    spec: list[list[tuple[int, str | None]]],
    data: st.DataObject,
    tmp_path: Path,
    gen_design: Callable[[str], Generated],
) -> None:
    path = tmp_path / "random_tools.py"
    path.write_text(source_of(spec))
    result = import_python(path)
    generated = gen_design(render(result.design))
    codecs = generated.module("random_tools.toolsets.random_tools.codecs")
    original = load_module(path)
    for number, params in enumerate(spec):
        validated = pydantic.validate_call(getattr(original, f"f{number}"))
        decode = getattr(codecs, f"decode_f{number}_payload")
        for _ in range(25):
            args = data.draw(arguments(params))
            assert decodes(decode, args) == accepts(validated, args), (source_of([params]), args)
