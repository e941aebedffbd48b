"""DSL features, checked through the code they generate."""

from __future__ import annotations

import datetime as dt
import importlib
import json
import subprocess
import sys
import textwrap
import uuid
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from tooldesign.eval.evaluate import evaluate
from tooldesign.generate import generate
from tooldesign.runtime import Constraint, ToolValidationError

from tests.support.generated import Generated

FEATURES = """
from tooldesign.dsl import *

with Type("Circle", "A circle") as Circle:
    Attribute("kind", String, enum=["circle"])
    Attribute("radius", Float, exclusive_minimum=0)
    Required("kind", "radius")

with Type("Square", "A square") as Square:
    Attribute("kind", String, enum=["square"])
    Attribute("side", Float, minimum=0)
    Required("kind", "side")

with Type("Node", "A tree node") as Node:
    Attribute("name", str)
    Attribute("children", ArrayOf("Node"))
    Required("name")

with Service("geo", "Geometry"):
    with Toolset("shapes", "Shapes"):
        with Tool("ask", "Answer a question"):
            Args(String, "The question")
            Return(String, "The answer")
        with Tool("area", "Area of shapes"):
            with Args():
                Attribute("shapes", ArrayOf(OneOf(Circle, Square, discriminator="kind"), min_items=1), "Shapes")
                with Attribute("points", ArrayOf(Object), "Points"):
                    Attribute("x", int)
                    Attribute("y", int)
                    Required("x", "y")
                Attribute("weights", MapOf(String, Float), "Weights by name")
                Attribute("anything", Any, "Free-form")
                Required("shapes")
            Return(ArrayOf(Float), "Areas")
        with Tool("tree", "Echo a tree"):
            Args(Node)
            Return(Node)
"""


@pytest.fixture
def features(gen_design: Callable[[str], Generated]) -> Generated:
    return gen_design(FEATURES)


def test_primitive_args_travel_as_a_value_field_and_primitive_results_as_root_models(
    features: Generated,
) -> None:
    specs = features.module("geo.toolsets.shapes.specs")
    codecs = features.module("geo.toolsets.shapes.codecs")
    types = features.module("geo.toolsets.shapes.types")
    assert specs.ASK_SPEC.payload.schema["properties"]["value"]["type"] == "string"
    assert specs.ASK_SPEC.payload.schema["required"] == ["value"]
    assert codecs.decode_ask_payload('{"value": "why?"}').value == "why?"
    assert specs.ASK_SPEC.result.schema == {"type": "string", "description": "The answer"}
    assert codecs.encode_ask_result(types.AskResult("because")) == '"because"'
    assert codecs.encode_area_result(types.AreaResult([1.5, 2.0])) == "[1.5,2.0]"


def test_discriminated_union_in_an_array_decodes_each_variant(features: Generated) -> None:
    codecs = features.module("geo.toolsets.shapes.codecs")
    types = features.module("geo.toolsets.shapes.types")
    payload = codecs.decode_area_payload(
        {
            "shapes": [{"kind": "circle", "radius": 1}, {"kind": "square", "side": 2}],
            "points": [{"x": 1, "y": 2}],
        }
    )
    assert [type(s) for s in payload.shapes] == [types.Circle, types.Square]
    assert payload.points[0].y == 2
    with pytest.raises(ToolValidationError) as info:
        codecs.decode_area_payload(
            {"shapes": [{"kind": "circle", "radius": 0}, {"kind": "hexagon"}]}
        )
    issues = {i.field: i for i in info.value.issues}
    assert issues["shapes[0].radius"].constraint is Constraint.INVALID_RANGE
    assert issues["shapes[0].radius"].bounds == {"exclusiveMinimum": 0}
    assert issues["shapes[1]"].constraint is Constraint.INVALID_ENUM_VALUE
    assert "'circle'" in issues["shapes[1]"].message and "'square'" in issues["shapes[1]"].message


def test_min_items_maps_and_any(features: Generated) -> None:
    codecs = features.module("geo.toolsets.shapes.codecs")
    with pytest.raises(ToolValidationError) as info:
        codecs.decode_area_payload({"shapes": [], "weights": {"a": "heavy"}})
    issues = {i.field: i.constraint for i in info.value.issues}
    assert issues == {
        "shapes": Constraint.INVALID_LENGTH,
        "weights.a": Constraint.INVALID_FIELD_TYPE,
    }
    payload = codecs.decode_area_payload(
        {"shapes": [{"kind": "square", "side": 1}], "anything": {"x": [1, None]}}
    )
    assert payload.anything == {"x": [1, None]}


def test_recursive_type_round_trips(features: Generated) -> None:
    codecs = features.module("geo.toolsets.shapes.codecs")
    types = features.module("geo.toolsets.shapes.types")
    tree = {"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}
    payload = codecs.decode_tree_payload(json.dumps(tree))
    assert payload.children[0].children[0].name == "c"
    assert json.loads(codecs.encode_tree_result(types.Node.model_validate(tree))) == tree


def _write_design_over_a_sibling(folder: Path, sibling: str, design: str) -> None:
    """``folder``/``design``.py: a service whose tool takes and returns type Thing, which it
    imports from ``folder``/``sibling``.py."""
    folder.mkdir()
    (folder / f"{sibling}.py").write_text(
        textwrap.dedent(
            """
            from tooldesign.dsl import Attribute, Required, String, Type
            with Type("Thing", "A thing") as Thing:
                Attribute("id", String)
                Required("id")
            """
        )
    )
    (folder / f"{design}.py").write_text(
        textwrap.dedent(
            f"""
            from {sibling} import Thing
            from tooldesign.dsl import Args, Return, Service, Tool, Toolset
            with Service("svc", "A service"):
                with Toolset("things", "Things"):
                    with Tool("get", "Get a thing"):
                        Args(Thing)
                        Return(Thing)
            """
        )
    )


def test_a_folder_of_design_files_that_import_each_other(tmp_path: Path) -> None:
    folder = tmp_path / "design"
    _write_design_over_a_sibling(folder, "shared", "service")
    for _ in range(2):  # evaluating twice records each file once each time
        design = evaluate([str(folder)])
        assert list(design.types) == ["Thing"]
        assert [t.name for t in design.tools()] == ["get"]


def test_a_dotted_module_is_a_design(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "myapp"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "tools_design.py").write_text(
        textwrap.dedent(
            """
            from tooldesign.dsl import Return, Service, String, Tool, Toolset
            with Service("svc", "A service"):
                with Toolset("misc", "Misc"):
                    with Tool("ping", "Ping"):
                        Return(String, "pong")
            """
        )
    )
    monkeypatch.chdir(tmp_path)
    report = generate(["myapp.tools_design"], tmp_path / "out")
    assert report.tools == 1
    assert (tmp_path / "out" / "svc" / "toolsets" / "misc" / "specs.py").is_file()
    assert [t.name for t in evaluate(["myapp.tools_design"]).tools()] == ["ping"], "evaluates again"
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("myapp.tools_design")  # the application imported it already
    assert [t.name for t in evaluate(["myapp.tools_design"]).tools()] == ["ping"]


@pytest.mark.parametrize("form", ["path", "dotted"])
def test_a_design_imports_its_siblings_whether_named_by_path_or_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: str
) -> None:
    _write_design_over_a_sibling(tmp_path / "design", "common", "assistant")
    monkeypatch.chdir(tmp_path)
    source = "design/assistant.py" if form == "path" else "design.assistant"
    for _ in range(2):  # and again: nothing of the first evaluation is left behind
        design = evaluate([source])
        assert list(design.types) == ["Thing"]
        assert [t.name for t in design.tools()] == ["get"]
    assert not {"common", "design", "design.assistant"} & set(sys.modules)


# ── decoding is as strict as the schema the model is shown ────────────────────────────────

STRICT = """
from tooldesign.dsl import *

with Service("svc", "A service"):
    with Toolset("strict", "Strictness"):
        with Tool("take", "Take one of each"):
            with Args():
                Attribute("count", Int, "A count")
                Attribute("ratio", Float, "A ratio")
                Attribute("flag", Boolean, "A flag")
                Attribute("name", String, "A name")
                Attribute("either", OneOf(String, Int), "Text or a number")
                Attribute("level", Int, "A level", enum=[1, 2, 3])
                Attribute("step", Float, "A step", enum=[0.5, 2])
                Attribute("on", Boolean, "Only true", enum=[True])
                Attribute("scores", ArrayOf(Float), "Scores")
                Attribute("weights", MapOf(String, Float), "Weights")
                Attribute("limit", Int, "A limit", default=5)
            with Return():
                Attribute("value", Float, "A value")
        with Tool("plain", "Take a count"):
            with Args():
                Attribute("count", Int, "A count")
                Attribute("limit", Int, "A limit", default=5)
"""


@pytest.fixture
def strict(gen_design: Callable[[str], Generated]) -> Generated:
    return gen_design(STRICT)


def _both_paths(codecs: Any, payload: dict[str, Any]) -> list[Any]:
    """Decode ``payload`` as JSON text and as a dict: the outcome of each (issues or a value)."""
    outcomes: list[Any] = []
    for data in (json.dumps(payload), payload):
        try:
            outcomes.append(codecs.decode_take_payload(data).model_dump())
        except ToolValidationError as error:
            outcomes.append({i.field: i.constraint for i in error.issues})
    return outcomes


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("count", "3"),
        ("count", True),
        ("count", 3.5),
        ("ratio", "0.5"),
        ("ratio", True),
        ("flag", 1),
        ("flag", "true"),
        ("name", 5),
        ("either", True),
        ("either", 1.5),
        ("level", True),
        ("level", 4),
        ("step", 1.5),
        ("step", True),
        ("on", 1),
        ("on", False),
        ("scores", [1.0, "2"]),
        ("weights", {"a": False}),
    ],
)
def test_values_the_schema_rejects_are_rejected_on_both_paths(
    strict: Generated, field: str, value: Any
) -> None:
    codecs = strict.module("svc.toolsets.strict.codecs")
    as_json, as_dict = _both_paths(codecs, {field: value})
    assert as_json == as_dict
    assert isinstance(as_json, dict), as_json
    assert {name.split("[")[0].split(".")[0] for name in as_json} == {field}, as_json
    spec = strict.module("svc.toolsets.strict.specs").TAKE_SPEC
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({field: value}, spec.payload.schema)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("count", 3),
        ("ratio", 2),  # an integer is a JSON number
        ("ratio", 0.25),
        ("flag", False),
        ("either", "x"),
        ("either", 7),
        ("level", 2),
        ("step", 0.5),
        ("step", 2),
        ("on", True),
        ("scores", [1, 2.5]),
        ("weights", {"a": 1e300}),
    ],
)
def test_values_the_schema_accepts_decode_alike_on_both_paths(
    strict: Generated, field: str, value: Any
) -> None:
    codecs = strict.module("svc.toolsets.strict.codecs")
    as_json, as_dict = _both_paths(codecs, {field: value})
    assert as_json == as_dict
    decoded = codecs.decode_take_payload({field: value})
    assert getattr(decoded, field) == value


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"])
@pytest.mark.parametrize("field", ["ratio", "scores", "weights", "step"])
def test_numbers_are_finite(strict: Generated, field: str, text: str) -> None:
    codecs = strict.module("svc.toolsets.strict.codecs")
    wrapped = {"ratio": text, "scores": f"[{text}]", "weights": f'{{"a": {text}}}', "step": text}
    value = json.loads(wrapped[field])
    for data in (f'{{"{field}": {wrapped[field]}}}', {field: value}):
        with pytest.raises(ToolValidationError) as info:
            codecs.decode_take_payload(data)
        (issue,) = info.value.issues
        assert issue.field.startswith(field)


def test_a_float_result_must_be_finite(strict: Generated) -> None:
    types = strict.module("svc.toolsets.strict.types")
    with pytest.raises(ValueError, match="finite"):
        types.TakeResult(value=float("nan"))


def test_null_for_an_optional_field_is_not_given(strict: Generated) -> None:
    # Providers' strict modes send null for every field a model leaves out: an optional field
    # without a default reads None, one with a default keeps its default.
    codecs = strict.module("svc.toolsets.strict.codecs")
    for data in ('{"count": null}', {"count": None}, '{"limit": null}', {"limit": None}):
        payload = codecs.decode_plain_payload(data)
        assert (payload.count, payload.limit) == (None, 5)
    with pytest.raises(ToolValidationError) as info:
        codecs.decode_plain_payload({"limit": "5"})
    assert [(i.field, i.constraint) for i in info.value.issues] == [
        ("limit", Constraint.INVALID_FIELD_TYPE)
    ]


# ── string formats: typed values, every constraint kept, nothing printed ──────────────────

FORMATS = """
from tooldesign.dsl import *

with Service("svc", "A service"):
    with Toolset("formats", "Formatted strings"):
        with Tool("take", "Take formatted strings"):
            with Args():
                Attribute("url", String, "URL to fetch", format="uri", min_length=12)
                Attribute("when", String, "When", format="date-time", max_length=20)
                Attribute("day", String, "Day", format="date", pattern="^2026-")
                Attribute("at", String, "Time", format="time")
                Attribute("days", ArrayOf(String), "Days", format="date", pattern="-01$")
                Attribute("id", String, "Id", format="uuid", pattern="^0")
                Attribute("ip", String, "Address", format="ipv4", max_length=9)
                Attribute("host", String, "Host", format="hostname", pattern="[.]example$")
                Attribute("mail", String, "Mail", format="email", max_length=12)
            Return(String, "Done")
"""


@pytest.fixture
def formats(gen_design: Callable[[str], Generated]) -> Generated:
    return gen_design(FORMATS)


def test_formats_generate_without_a_word_from_the_model_generator(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    from tooldesign.cli import main

    design = tmp_path / "formats.py"
    design.write_text(FORMATS, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would fail the run
        assert main(["gen", str(design), "--out", str(tmp_path / "out")]) == 0
    out, err = capfd.readouterr()
    assert err == ""
    assert out.startswith("tooldesign: 1 service(s)")


def test_date_and_time_formats_are_rfc3339_types(formats: Generated) -> None:
    source = (formats.out / "svc/toolsets/formats/types.py").read_text()
    assert "    Rfc3339Date,\n    Rfc3339DateTime,\n" in source  # from tooldesign.runtime
    assert "when: Annotated[Rfc3339DateTime | None" in source
    assert "days: Annotated[list[Rfc3339Date] | None" in source
    assert "AwareDatetime" not in source
    codecs = formats.module("svc.toolsets.formats.codecs")
    payload = codecs.decode_take_payload({"when": "2026-01-31T09:30:00Z", "at": "09:30:00+01:00"})
    assert payload.when.tzinfo is not None
    for field, value in [("when", "2026-01-31 09:30:00Z"), ("when", "1700000000"), ("at", "9:30")]:
        with pytest.raises(ToolValidationError) as info:
            codecs.decode_take_payload({field: value})
        assert [i.field for i in info.value.issues] == [field]


@pytest.mark.parametrize(
    ("field", "value", "constraint"),
    [
        ("url", "http://a.io", Constraint.INVALID_LENGTH),
        ("when", "2026-01-31T09:30:00.12345Z", Constraint.INVALID_LENGTH),
        ("day", "2025-01-31", Constraint.INVALID_PATTERN),
        ("days", ["2026-01-01", "2026-01-02"], Constraint.INVALID_PATTERN),
        ("id", "12345678-1234-5678-1234-567812345678", Constraint.INVALID_PATTERN),
        ("ip", "10.10.10.10", Constraint.INVALID_LENGTH),
        ("host", "a.example.org", Constraint.INVALID_PATTERN),
        ("mail", "someone@example.org", Constraint.INVALID_LENGTH),
    ],
)
def test_every_constraint_of_a_formatted_string_is_checked(
    formats: Generated, field: str, value: Any, constraint: Constraint
) -> None:
    codecs = formats.module("svc.toolsets.formats.codecs")
    for data in (json.dumps({field: value}), {field: value}):
        with pytest.raises(ToolValidationError) as info:
            codecs.decode_take_payload(data)
        assert [(i.field.split("[")[0], i.constraint) for i in info.value.issues] == [
            (field, constraint)
        ]


def test_formatted_strings_within_their_constraints_decode_to_typed_values(
    formats: Generated,
) -> None:
    codecs = formats.module("svc.toolsets.formats.codecs")
    payload = codecs.decode_take_payload(
        {
            "url": "https://example.org/a",
            "when": "2026-01-31T09:30:00Z",
            "day": "2026-01-31",
            "days": ["2026-02-01"],
            "id": "02345678-1234-5678-1234-567812345678",
            "ip": "10.0.0.1",
            "host": "www.example",
            "mail": "a@b.example",
        }
    )
    assert str(payload.url) == "https://example.org/a"
    assert payload.day.isoformat() == "2026-01-31"
    assert payload.id.int > 0
    assert payload.host == "www.example"


def test_a_constraint_the_model_generator_drops_is_a_notice_not_a_warning() -> None:
    from tooldesign.codegen.models import models_source

    schema = {
        "$defs": {
            "Thing": {
                "type": "object",
                "properties": {"at": {"type": "string", "format": "date-time", "minLength": 3}},
                "additionalProperties": False,
            }
        }
    }
    notices: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        models_source(schema, aliases={}, notices=notices)
    assert caught == []
    assert len(notices) == 1
    assert "types.py leaves out a constraint the design states" in notices[0]
    assert "Thing.at" in notices[0]


FORMAT_DEFAULTS = """
from tooldesign.dsl import *

with Service("svc", "A service"):
    with Toolset("defaults", "Formatted defaults"):
        with Tool("take", "Take formatted strings"):
            with Args():
                Attribute("since", String, "Since", format="date", default="2026-01-31")
                Attribute("at", String, "At", format="date-time", default="2026-01-31T09:30:00+01:00")
                Attribute("daily", String, "Daily at", format="time", default="09:30:00Z")
                Attribute("every", String, "Every", format="duration", default="PT1H")
                Attribute("home", String, "Home", format="uri", default="https://example.org")
                Attribute("id", String, "Id", format="uuid", default="12345678-1234-5678-1234-567812345678")
                Attribute("ip", String, "Address", format="ipv4", default="10.0.0.1")
                Attribute("days", ArrayOf(String), "Days", format="date", default=["2026-02-01"])
                Attribute("class", String, "A keyword", format="date", default="2026-03-01")
                Attribute("month", String, "Month start", format="date", enum=["2026-01-01", "2026-02-01"])
            Return(String, "Done")
"""


@pytest.mark.slow
def test_defaults_of_formats_typed_other_than_str_are_values_of_that_type(
    gen_design: Callable[[str], Generated],
) -> None:
    generated = gen_design(FORMAT_DEFAULTS)
    codecs = generated.module("svc.toolsets.defaults.codecs")
    payload = codecs.decode_take_payload("{}")
    assert payload.since == dt.date(2026, 1, 31)
    assert payload.at == dt.datetime(2026, 1, 31, 8, 30, tzinfo=dt.UTC)
    assert payload.daily == dt.time(9, 30, tzinfo=dt.UTC)
    assert payload.every == dt.timedelta(hours=1)
    assert payload.home == "https://example.org"  # a uri is held as it was written
    assert payload.id == uuid.UUID("12345678-1234-5678-1234-567812345678")
    assert str(payload.ip) == "10.0.0.1"
    assert payload.days == [dt.date(2026, 2, 1)]
    assert payload.class_ == dt.date(2026, 3, 1)
    # Serialised as the schema's strings, without pydantic's "unexpected value" warnings.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dumped = json.loads(payload.model_dump_json(by_alias=True))
    assert dumped["since"] == "2026-01-31"
    assert dumped["class"] == "2026-03-01"
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", generated.package],
        capture_output=True,
        text=True,
        check=False,
        cwd=generated.root,
    )
    assert mypy.returncode == 0, mypy.stdout


def test_an_enum_of_formatted_strings_takes_only_its_values(
    gen_design: Callable[[str], Generated],
) -> None:
    codecs = gen_design(FORMAT_DEFAULTS).module("svc.toolsets.defaults.codecs")
    assert codecs.decode_take_payload({"month": "2026-02-01"}).month == "2026-02-01"
    with pytest.raises(ToolValidationError) as info:
        codecs.decode_take_payload({"month": "2026-03-01"})
    assert [(i.field, i.constraint) for i in info.value.issues] == [
        ("month", Constraint.INVALID_ENUM_VALUE)
    ]
