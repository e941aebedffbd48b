"""A generated toolset's models are imported when first needed, and only then."""

from __future__ import annotations

import copy
import logging
import sys
import threading
from collections.abc import Callable
from typing import Any

import pytest
from tooldesign.runtime import Runtime, ToolRequest, TypesImportError
from tooldesign.runtime.providers import export_tools

from tests.support.generated import Generated

DESIGN = """
from tooldesign.dsl import ArrayOf, Attribute, Args, Int, Required, Return, Service, String, Tool, Toolset, Type

with Type("Node", "A node of a tree") as Node:
    Attribute("name", String, "Its name")
    Attribute("children", ArrayOf("Node"), "Nodes below it")
    Required("name")

with Service("lab", "A lab"):
    with Toolset("trees", "Trees"):
        with Tool("grow", "Grow a tree"):
            with Args():
                Attribute("name", String, "Root name")
                Attribute("depth", Int, "How deep", default=1)
                Required("name")
            Return(Node)
"""


def grow(args: Any, meta: Any) -> dict[str, Any]:
    return {"name": args.name, "children": [{"name": f"{args.name}-1"}]}


def types_module(generated: Generated) -> str:
    return f"{generated.package}.lab.toolsets.trees.types"


def test_a_toolset_is_imported_registered_and_listed_without_its_models(
    gen_design: Callable[[str], Generated],
) -> None:
    generated = gen_design(DESIGN)
    executor = generated.module("lab.toolsets.trees.executor")
    specs = generated.module("lab.toolsets.trees.specs")
    runtime = Runtime([executor.new_registration(handlers={"grow": grow})])
    assert export_tools(runtime.specs(), "anthropic")[0]["name"] == "grow"
    copy.deepcopy(specs.GROW_SPEC)
    assert "not imported yet" in repr(specs.TYPES)
    assert types_module(generated) not in sys.modules

    result = runtime.execute_sync(ToolRequest("grow", {"name": "oak"}))
    assert result.error is None, result.error
    assert result.result is not None and result.result.children[0].name == "oak-1"
    types = sys.modules[types_module(generated)]
    assert specs.GROW_SPEC.payload.model is types.GrowPayload
    assert specs.GROW_SPEC.result.model is types.Node
    assert "imported" in repr(specs.TYPES) and "not" not in repr(specs.TYPES)


def test_first_reads_from_many_threads_at_once_get_the_same_class(
    gen_design: Callable[[str], Generated],
) -> None:
    generated = gen_design(DESIGN)
    path = generated.out / "lab" / "toolsets" / "trees" / "types.py"
    # A slow import, counted: every thread asks while the first is still importing.
    path.write_text(
        "import time\nimport threading\n"
        "IMPORTS = [threading.get_ident()]\ntime.sleep(0.2)\n" + path.read_text(),
        encoding="utf-8",
    )
    specs = generated.module("lab.toolsets.trees.specs")
    start = threading.Barrier(8)
    seen: list[type] = []

    def read() -> None:
        start.wait()
        seen.append(specs.GROW_SPEC.payload.model)

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 8 and len(set(seen)) == 1
    assert len(sys.modules[types_module(generated)].IMPORTS) == 1


def test_models_that_cannot_be_imported_name_the_toolset_and_module_on_first_use(
    gen_design: Callable[[str], Generated], caplog: pytest.LogCaptureFixture
) -> None:
    generated = gen_design(DESIGN)
    path = generated.out / "lab" / "toolsets" / "trees" / "types.py"
    path.write_text("import lab_app_gone\n" + path.read_text(), encoding="utf-8")
    executor = generated.module("lab.toolsets.trees.executor")
    specs = generated.module("lab.toolsets.trees.specs")
    runtime = Runtime([executor.new_registration(handlers={"grow": grow})])
    assert [spec.name for spec in runtime.specs()] == ["grow"]

    with caplog.at_level(logging.ERROR, logger="tooldesign.runtime"):
        result = runtime.execute_sync(ToolRequest("grow", {"name": "oak"}))
    assert result.error is not None
    assert result.error.message == (
        "Tool 'grow' is unavailable: the application could not load it. This is not a problem "
        "with your arguments; do not retry this call."
    )
    error = result.error.cause
    assert isinstance(error, TypesImportError)
    message = str(error)
    assert message.startswith("toolset 'trees' of service 'lab': its models could not be imported")
    assert types_module(generated) in message
    assert "ModuleNotFoundError: No module named 'lab_app_gone'" in message
    assert isinstance(error.__cause__, ModuleNotFoundError)
    assert "tool lab.trees.grow cannot run: its models could not be imported" in caplog.text
    assert message in caplog.text
    # Each use says so again (nothing half-imported is kept), as reading the model does.
    with pytest.raises(TypesImportError, match="'trees'"):
        _ = specs.GROW_SPEC.result.model


def test_a_types_module_older_than_its_specs_is_named(
    gen_design: Callable[[str], Generated],
) -> None:
    generated = gen_design(DESIGN)
    path = generated.out / "lab" / "toolsets" / "trees" / "types.py"
    path.write_text(path.read_text().replace("class GrowPayload(", "class Renamed("), "utf-8")
    specs = generated.module("lab.toolsets.trees.specs")
    with pytest.raises(TypesImportError) as info:
        _ = specs.GROW_SPEC.payload.model
    assert str(info.value) == (
        f"toolset 'trees' of service 'lab': {types_module(generated)} has no model "
        "'GrowPayload'; its generated package is out of date (run tooldesign gen again)"
    )


def test_a_process_may_load_every_model_at_start_and_fail_there(
    gen_design: Callable[[str], Generated],
) -> None:
    generated = gen_design(DESIGN)
    executor = generated.module("lab.toolsets.trees.executor")
    runtime = Runtime([executor.new_registration(handlers={"grow": grow})])
    runtime.load_models()
    assert types_module(generated) in sys.modules

    broken = gen_design(DESIGN)
    path = broken.out / "lab" / "toolsets" / "trees" / "types.py"
    path.write_text("import lab_app_gone\n" + path.read_text(), encoding="utf-8")
    executor = broken.module("lab.toolsets.trees.executor")
    runtime = Runtime([executor.new_registration(handlers={"grow": grow})])
    with pytest.raises(TypesImportError, match="toolset 'trees' of service 'lab'"):
        runtime.load_models("trees")
