"""Import → gen → decode accepts exactly the calls the original signature accepts.

Hypothesis writes modules of random tool functions (keyword parameters of the supported
annotations — scalars, lists, maps, ``Literal``, Enums, optional values with and without
defaults, nested pydantic models, TypedDicts and dataclasses, aliases and ``Field``s kept in
module constants — with and without defaults), imports them
with ``tooldesign import python``, generates the design, and throws random argument sets at the
generated decoder. The oracle is pydantic validating the same arguments for the original
function, as the JSON a model sends, in strict mode: a design's types are strict, so ``"3"`` is
not an integer and ``1`` is not ``true`` — where code-first libraries validate laxly, the
design deliberately does not.

Where else the design differs from pydantic on purpose, each annotation below says so with a
``design_rejects`` predicate, and the property holds modulo exactly those:

- closed objects: a design's object rejects keys it does not declare, where a pydantic model,
  TypedDict or dataclass ignores them;
- a boolean is not a number: pydantic takes ``true`` for ``1`` in a ``Literal[1, 2]`` or an
  ``IntEnum``; the design's enum, like JSON Schema's, does not.

- a ``null`` for an optional parameter means "not given" (the rule every generated decoder
  follows, checked apart in ``test_an_explicit_null_for_an_optional_parameter_means_not_given``):
  the design takes it wherever pydantic takes the call without that parameter (its default
  stands), where pydantic would refuse ``None`` for ``x: str = "a"``.

One mapping is inexact on purpose and left out: ``x: X | None`` *without* a default is
required-but-nullable in Python and written as optional (the DSL has no required-and-null).
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import string
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tooldesign.importers.python import import_python
from tooldesign.importers.writer import render
from tooldesign.runtime import ToolValidationError

from tests.support.generated import Generated
from tests.support.strategies import json_values


def _never(value: Any) -> bool:
    return False


def _undeclared(keys: set[str]) -> Callable[[Any], bool]:
    """Rejected by a closed object: a JSON object with a key the type does not declare."""
    return lambda value: isinstance(value, dict) and not set(value) <= keys


def _any_item(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, list) and any(check(item) for item in value)


def _is_boolean(value: Any) -> bool:
    return isinstance(value, bool)


def _either(*checks: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: any(check(value) for check in checks)


@dataclass(frozen=True)
class Annotation:
    source: str
    defaults: list[str | None]
    """Default values that fit (source text), ``None`` for a required parameter."""
    tries: list[Any]
    """Values worth trying beyond random JSON."""
    design_rejects: Callable[[Any], bool] = _never
    """What the design rejects on purpose although pydantic takes it (see the module doc)."""


POINT_KEYS = {"x", "y"}
ANNOTATIONS: list[Annotation] = [
    Annotation("str", [None, '"x"'], ["", "abc", 3]),
    Annotation("int", [None, "3"], [0, -7, "12", 1.0, 1.5, True]),
    Annotation("float", [None, "1.5"], [0, 2.5, "3.25", "nan?", False]),
    Annotation("bool", [None, "True"], [True, False, "yes", 1, 2]),
    Annotation("list[str]", [None, "[]"], [[], ["a"], ["a", 1], "a"]),
    Annotation("list[int]", [None], [[1, 2], ["1"], [1.5]]),
    Annotation("dict[str, int]", [None, "{}"], [{}, {"a": 1}, {"a": "x"}, []]),
    Annotation('Literal["a", "b"]', [None, '"a"'], ["a", "b", "c", 1]),
    Annotation("Optional[int]", ["None", "4"], [None, 3, "x"]),
    Annotation("str | None", ["None", '"s"'], [None, "s", 1]),
    Annotation('Literal["a", "b"] | None', ["None"], [None, "a", "c"]),
    Annotation("Annotated[int, Field(ge=0, le=10)]", [None, "5"], [0, 10, 11, -1, "5"]),
    Annotation("Annotated[str, Field(min_length=2, max_length=4)]", [None], ["a", "ab", "abcde"]),
    Annotation("Annotated[float, Field(gt=0)]", [None, "0.5"], [0, 0.0, 1e-9, -1, "1"]),
    Annotation(
        "list[Literal[1, 2]]",
        [None, "[]"],
        [[1], [3], [1, 2, 2], ["1"], [True]],
        _any_item(_is_boolean),
    ),
    Annotation("Color", [None, "Color.RED"], ["red", "blue", "green", "RED", 1]),
    Annotation("Level", [None, "Level.ONE"], [1, 2, 3, "1", True], _is_boolean),
    Annotation(
        "Point",
        [None],
        [{"x": 1}, {"x": 1, "y": "2"}, {"y": 2}, {"x": 1, "z": 0}, {"x": "1"}, []],
        _undeclared(POINT_KEYS),
    ),
    Annotation(
        "Optional[Point]",
        ["None"],
        [None, {"x": 2, "y": 3}, {"x": 1, "extra": True}],
        _undeclared(POINT_KEYS),
    ),
    Annotation(
        "list[Point]",
        [None, "[]"],
        [[{"x": 1}], [{"x": 1}, {"q": 1}], [{"x": 1, "y": 2, "w": 3}]],
        _any_item(_undeclared(POINT_KEYS)),
    ),
    Annotation(
        "Label",
        [None],
        [
            {"text": "a"},
            {"text": "a", "lang": "en"},
            {"lang": "en"},
            {"text": 1},
            {"text": "a", "z": 1},
        ],
        _undeclared({"text", "lang"}),
    ),
    Annotation(
        "Stock",
        [None],
        [{"sku": "a"}, {"sku": "a", "count": 2}, {"count": 1}, {"sku": 1}, {"sku": "a", "q": 1}],
        _undeclared({"sku", "count"}),
    ),
    # Module constants, read through: an alias, an Annotated alias, a Field kept in a name.
    Annotation("Status", [None, '"open"'], ["open", "closed", "gone", 0]),
    Annotation("Count", [None, "COUNT_DEFAULT"], [0, 2, -1, 2.5, "2"]),
    Annotation("int", ["LIMIT_FIELD"], [0, 1, 9, 10, "5", None]),
    Annotation(
        "Shape",
        [None],
        [{"kind": "dot", "at": {"x": 1}}, {"kind": "dot", "at": {"x": 1, "y": 2, "z": 3}}],
        _either(
            _undeclared({"kind", "at"}),
            lambda v: isinstance(v, dict) and _undeclared(POINT_KEYS)(v.get("at")),
        ),
    ),
]
HEADER = """\
from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Annotated, Literal, Optional

from pydantic import BaseModel, Field
from typing_extensions import NotRequired, TypeAlias, TypedDict

Status: TypeAlias = Literal["open", "closed"]
Count = Annotated[int, Field(ge=0)]
COUNT_DEFAULT = 2
LIMIT_FIELD = Field(5, ge=1, le=9)


def tool(f):
    return f


class Color(str, Enum):
    RED = "red"
    BLUE = "blue"


class Level(IntEnum):
    ONE = 1
    TWO = 2


class Point(BaseModel):
    x: int
    y: int = 0


class Label(TypedDict):
    text: str
    lang: NotRequired[str]


class Shape(BaseModel):
    kind: Literal["dot"]
    at: Point


@dataclass
class Stock:
    sku: str
    count: int = 0


"""


@st.composite
def functions(draw: Any) -> list[list[tuple[int, str | None]]]:
    """Per function, its parameters: (annotation index, default source or None)."""
    out = []
    for _ in range(draw(st.integers(2, 4))):
        params = []
        for _ in range(draw(st.integers(1, 4))):
            index = draw(st.integers(0, len(ANNOTATIONS) - 1))
            params.append((index, draw(st.sampled_from(ANNOTATIONS[index].defaults))))
        out.append(params)
    return out


def source_of(spec: list[list[tuple[int, str | None]]]) -> str:
    lines = [HEADER]
    for number, params in enumerate(spec):
        declared = ", ".join(
            f"p{i}: {ANNOTATIONS[index].source}" + (f" = {default}" if default else "")
            for i, (index, default) in enumerate(params)
        )
        lines.append(f'@tool\ndef f{number}(*, {declared}) -> None:\n    """Tool {number}."""\n\n')
    return "".join(lines)


def arguments(params: list[tuple[int, str | None]]) -> st.SearchStrategy[dict[str, Any]]:
    per_param = {
        f"p{i}": st.one_of(st.sampled_from(ANNOTATIONS[index].tries), json_values)
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


def strict_validator(function: Callable[..., Any]) -> type[pydantic.BaseModel]:
    """The function's parameters as a pydantic model that, like calling the function, takes no
    other keyword."""
    fields: dict[str, Any] = {}
    for parameter in inspect.signature(function, eval_str=True).parameters.values():
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[parameter.name] = (parameter.annotation, default)
    return pydantic.create_model(  # type: ignore[call-overload,no-any-return]
        f"{function.__name__}_arguments",
        __config__=pydantic.ConfigDict(extra="forbid"),
        **fields,
    )


def pydantic_accepts(model: type[pydantic.BaseModel], args: dict[str, Any]) -> bool:
    """Whether pydantic takes ``args`` as the JSON a model sends, strictly."""
    try:
        model.model_validate_json(json.dumps(args), strict=True)
    except pydantic.ValidationError:
        return False
    return True


def design_accepts(
    model: type[pydantic.BaseModel], params: list[tuple[int, str | None]], args: dict[str, Any]
) -> bool:
    """What the design must accept: what pydantic accepts, less its stated differences, and
    a number with no fractional part wherever an integer goes (JSON Schema's ``integer``)."""
    optional = {f"p{i}" for i, (_, default) in enumerate(params) if default is not None}
    given = {k: v for k, v in args.items() if not (v is None and k in optional)}
    return pydantic_accepts(model, _integral(given)) and not any(
        ANNOTATIONS[index].design_rejects(given[f"p{i}"])
        for i, (index, _) in enumerate(params)
        if f"p{i}" in given
    )


def _integral(value: Any) -> Any:
    """``value`` with each float that has no fractional part written as an int."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _integral(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_integral(v) for v in value]
    return value


def decodes(decode: Callable[[Any], Any], args: dict[str, Any]) -> bool:
    try:
        decode(args)
    except ToolValidationError:
        return False
    return True


@pytest.mark.slow
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
    assert result.notices == [], [str(n) for n in result.notices]  # every annotation is exact
    generated = gen_design(render(result.design))
    codecs = generated.module("random_tools.toolsets.random_tools.codecs")
    original = load_module(path)
    for number, params in enumerate(spec):
        model = strict_validator(getattr(original, f"f{number}"))
        decode = getattr(codecs, f"decode_f{number}_payload")
        for _ in range(25):
            args = data.draw(arguments(params))
            assert decodes(decode, args) == design_accepts(model, params, args), (
                source_of([params]),
                args,
            )


def test_an_explicit_null_for_an_optional_parameter_means_not_given(
    tmp_path: Path, gen_design: Callable[[str], Generated]
) -> None:
    path = tmp_path / "optional_tools.py"
    path.write_text(
        HEADER
        + '@tool\ndef plain(*, n: Optional[int] = None) -> None:\n    """Plain."""\n\n'
        + "@tool\ndef checked(*, n: Optional[int] = None, k: Literal[1, 2] = 1) -> None:\n"
        + '    """Checked against its schema too."""\n'
    )
    generated = gen_design(render(import_python(path).design))
    codecs = generated.module("optional_tools.toolsets.optional_tools.codecs")
    specs = generated.module("optional_tools.toolsets.optional_tools.specs")
    # Whether or not the tool's values are also checked against its schema (a number enum
    # makes them), the answer is the same: null is "not given", and "not given" is valid.
    for spec in specs.SPECS:
        decode = getattr(codecs, f"decode_{spec.name}_payload")
        assert decode({"n": None}).n is None, spec.name
        assert decode('{"n": null}') == decode("{}"), spec.name
        assert not decodes(decode, {"n": "3"}), spec.name
