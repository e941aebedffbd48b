"""DSL features, checked through the code they generate."""

from __future__ import annotations

import importlib
import json
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from tooldesign.codegen.pipeline import generate
from tooldesign.ir.evaluate import evaluate
from tooldesign.runtime import Constraint, ToolValidationError

from tests.conftest import Generated

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


def test_a_folder_of_design_files_that_import_each_other(tmp_path: Path) -> None:
    folder = tmp_path / "design"
    folder.mkdir()
    (folder / "shared.py").write_text(
        textwrap.dedent(
            """
            from tooldesign.dsl import Attribute, Required, String, Type
            with Type("Thing", "A thing") as Thing:
                Attribute("id", String)
                Required("id")
            """
        )
    )
    (folder / "service.py").write_text(
        textwrap.dedent(
            """
            from shared import Thing
            from tooldesign.dsl import Args, Return, Service, Tool, Toolset
            with Service("svc", "A service"):
                with Toolset("things", "Things"):
                    with Tool("get", "Get a thing"):
                        Args(Thing)
                        Return(Thing)
            """
        )
    )
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
    folder = tmp_path / "design"
    folder.mkdir()
    (folder / "common.py").write_text(
        textwrap.dedent(
            """
            from tooldesign.dsl import Attribute, Required, String, Type
            with Type("Thing", "A thing") as Thing:
                Attribute("id", String)
                Required("id")
            """
        )
    )
    (folder / "assistant.py").write_text(
        textwrap.dedent(
            """
            from common import Thing
            from tooldesign.dsl import Args, Return, Service, Tool, Toolset
            with Service("svc", "A service"):
                with Toolset("things", "Things"):
                    with Tool("get", "Get a thing"):
                        Args(Thing)
                        Return(Thing)
            """
        )
    )
    monkeypatch.chdir(tmp_path)
    source = "design/assistant.py" if form == "path" else "design.assistant"
    for _ in range(2):  # and again: nothing of the first evaluation is left behind
        design = evaluate([source])
        assert list(design.types) == ["Thing"]
        assert [t.name for t in design.tools()] == ["get"]
    assert not {"common", "design", "design.assistant"} & set(sys.modules)
