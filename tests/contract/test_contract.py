"""One definition per contract: the stages read the contract's tables instead of spelling them.

Adding a format or an annotation is one edit in ``tooldesign/contract/``: a copy of the package
with one row added to each table carries both from the design to the MCP export.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import typing
from pathlib import Path

import pytest
from tooldesign.contract import annotations, constraints, formats, providers
from tooldesign.contract.catalog import CatalogTool, ToolDefinition, catalog_entry
from tooldesign.ir.model import Constraints
from tooldesign.runtime.spec.specs import ToolSpec

from tests.support import REPO

# ── every consumer reads the tables ───────────────────────────────────────────────────────


def test_the_ir_constraints_are_the_constraint_table() -> None:
    assert tuple(f.name for f in dataclasses.fields(Constraints)) == constraints.OPTIONS


def test_the_stages_read_the_format_table() -> None:
    from tooldesign.binding.planner import _FORMAT_CLASSES
    from tooldesign.codegen.model_types import RUNTIME_TYPES
    from tooldesign.govern.witness import _FORMAT_SAMPLES
    from tooldesign.importers.python.annotations import _FORMATTED
    from tooldesign.runtime.providers import anthropic, gemini, openai
    from tooldesign.runtime.spec.formats import EXAMPLES, model_types

    names = {f.name for f in formats.FORMATS}
    assert set(_FORMAT_SAMPLES) == names
    # Every format is read by its grammar, through the type generated models hold it as.
    assert set(model_types()) == names
    assert all(f.grammar is not None and f.rfc.startswith("RFC ") for f in formats.FORMATS)
    assert set(_FORMATTED.values()) == names - {"hostname"}
    assert set(_FORMAT_CLASSES) <= formats.NON_STRING_FORMATS
    assert RUNTIME_TYPES.keys() == EXAMPLES.keys()
    assert openai.STRICT_FORMATS == {f.name for f in formats.FORMATS if f.openai_strict}
    assert anthropic.STRICT_FORMATS == {f.name for f in formats.FORMATS if f.anthropic_strict}
    assert {f.name for f in formats.FORMATS if f.gemini} <= gemini._FORMATS["string"]


def test_annotations_are_one_type_from_the_dsl_to_the_catalog() -> None:
    import inspect

    from tooldesign.contract.annotations import ToolAnnotations
    from tooldesign.dsl import Annotations
    from tooldesign.ir.model import Tool

    assert ToolAnnotations is annotations.ToolAnnotations
    assert typing.get_type_hints(Tool)["annotations"] is annotations.ToolAnnotations
    assert list(inspect.signature(Annotations).parameters) == [
        row.name for row in annotations.ANNOTATIONS
    ]
    hints = annotations.ToolAnnotations(read_only=True, open_world=False)
    assert hints.mcp_hints() == {"readOnlyHint": True, "openWorldHint": False}
    assert annotations.from_hints(hints.mcp_hints()) == hints


def test_provider_names_are_one_list() -> None:
    from tooldesign.commands import export
    from tooldesign.runtime import providers as exporters

    assert exporters.PROVIDERS == providers.PROVIDERS
    assert export.PROVIDERS is providers.PROVIDERS


def test_a_spec_and_its_catalog_entry_make_the_same_entry() -> None:
    from gen.assistant.toolsets.devices import specs

    for spec in specs.SPECS:
        assert isinstance(spec, ToolSpec)
        entry = catalog_entry(spec)
        tool: ToolDefinition = CatalogTool.from_entry(entry)
        assert catalog_entry(tool) == entry


# ── one edit adds a format and an annotation ──────────────────────────────────────────────

_NEW_FORMAT = """\
    Format("color", ("#ff8800", "#0088ff"), anthropic_strict=True),
"""
_NEW_ANNOTATION = """\
    cacheable: bool | None = _hint("cacheableHint", "Its results may be served from a cache.")
"""

_DESIGN = """\
from tooldesign.dsl import *

with Service("paint", "Paints things"):
    with Toolset("brushes", "Brushes"):
        with Tool("fill", "Fill an area with a colour"):
            with Args():
                Attribute("shade", String, "The colour", format="color", example="#ff8800")
                Required("shade")
            with Return():
                Attribute("ok", Boolean, "Whether it worked")
            Annotations(cacheable=True, read_only=False)
"""

_PROBE = """\
import inspect, json, sys
from pathlib import Path

import tooldesign
from tooldesign.generate import generate
from tooldesign.dsl import Annotations
from tooldesign.eval.evaluate import evaluate
from tooldesign.runtime.spec.catalog import load_catalog
from tooldesign.runtime.providers import export_tools

design, out = sys.argv[1], Path(sys.argv[2])
[tool] = evaluate([design]).tools()
generate([design], out / "paintgen")
sys.path.insert(0, str(out))
from paintgen.paint.toolsets.brushes.specs import SPECS

[spec] = SPECS
catalog = load_catalog(out / "paintgen" / "paint" / "tool_schemas.json")
[entry] = json.loads((out / "paintgen" / "paint" / "tool_schemas.json").read_text())["tools"]
[mcp] = export_tools(catalog, "mcp")
[strict] = export_tools(catalog, "anthropic", strict=True)
print(json.dumps({
    "package": tooldesign.__file__,
    "dsl": list(inspect.signature(Annotations).parameters),
    "ir": [tool.annotations.cacheable, tool.payload.type.shape.fields[0].constraints.format],
    "spec": [spec.annotations.cacheable, spec.payload.schema["properties"]["shade"]],
    "catalog": [entry["annotations"], entry["payload"]["schema"]["properties"]["shade"]],
    "mcp": [mcp["annotations"], mcp["inputSchema"]["properties"]["shade"]],
    "anthropic": strict["input_schema"]["properties"]["shade"],
}))
"""


def _with_row(path: Path, before: str, row: str) -> None:
    """``path`` with ``row`` inserted before the first ``before`` (the end of a table)."""
    text = path.read_text(encoding="utf-8")
    assert before in text
    path.write_text(text.replace(before, row + before, 1), encoding="utf-8")


@pytest.mark.slow
def test_a_format_and_an_annotation_added_in_the_contract_reach_every_stage(
    tmp_path: Path,
) -> None:
    package = tmp_path / "copy" / "tooldesign"
    shutil.copytree(REPO / "tooldesign", package, ignore=shutil.ignore_patterns("__pycache__"))
    contract = package / "contract"
    _with_row(contract / "formats.py", ')\n"""Every format a design may use."""', _NEW_FORMAT)
    _with_row(contract / "annotations.py", "\n    def given(self)", _NEW_ANNOTATION)
    design = tmp_path / "design.py"
    design.write_text(_DESIGN, encoding="utf-8")
    (tmp_path / "probe.py").write_text(_PROBE, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "copy")}
    run = subprocess.run(
        [sys.executable, str(tmp_path / "probe.py"), str(design), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout.splitlines()[-1])
    assert seen["package"] == str(package / "__init__.py")
    shade = {
        "type": "string",
        "description": "The colour",
        "format": "color",
        "examples": ["#ff8800"],
    }
    assert "cacheable" in seen["dsl"]
    assert seen["ir"] == [True, "color"]
    assert seen["spec"] == [True, shade]
    assert seen["catalog"] == [{"read_only": False, "cacheable": True}, shade]
    assert seen["mcp"] == [{"readOnlyHint": False, "cacheableHint": True}, shade]
    assert seen["anthropic"]["format"] == "color"


# ── what the catalog's new keys are for ───────────────────────────────────────────────────

_INJECTING = """\
from tooldesign.dsl import *

with Service("crm", "Customers"):
    with Toolset("people", "People"):
        with Tool("find", "Find a person"):
            with Args():
                Attribute("name", String, "Who")
                Attribute("session_id", String, "The session")
                Attribute("tenant", String, "The tenant")
                Required("name", "session_id", "tenant")
            Return(String, "What was found")
            Inject({injected})
"""


def _entries(tmp_path: Path, injected: str) -> dict[str, dict[str, object]]:
    from tooldesign.codegen.files import catalog_entries
    from tooldesign.codegen.views import toolset_views
    from tooldesign.eval.evaluate import evaluate

    path = tmp_path / f"design_{len(injected)}.py"
    path.write_text(_INJECTING.format(injected=injected), encoding="utf-8")
    design = evaluate([str(path)])
    entries = [entry for _, view in toolset_views(design) for entry in catalog_entries(view)]
    return {str(entry["id"]): entry for entry in entries}


def test_an_injected_field_added_is_breaking_for_applications(tmp_path: Path) -> None:
    from tooldesign.govern import diff_entries, tool_fingerprint

    old = _entries(tmp_path, '"session_id"')
    new = _entries(tmp_path, '"session_id", "tenant"')
    [entry] = new.values()
    assert entry["injected"] == ["session_id", "tenant"]
    assert entry["fingerprint"] == tool_fingerprint(entry)
    assert "tenant" not in json.dumps(entry["payload"])  # a model never sees it
    [tool], _ = diff_entries(old, new)
    # The model no longer sees the field (one argument fewer); the application must supply it.
    assert ("injected_added", "applications", "tenant") in [
        (c.kind, c.impact, c.field) for c in tool.changes
    ]


def test_a_catalog_is_checked_against_the_fingerprints_its_entries_carry() -> None:
    import pytest
    from tooldesign.contract.catalog import CatalogError, catalog_hash, parse_catalog

    document = json.loads((REPO / "gen" / "assistant" / "tool_schemas.json").read_text())
    document["tools"][0]["fingerprint"] = "0" * 64
    document["hash"] = catalog_hash(document["tools"])
    document["version"] = document["hash"][:12]
    with pytest.raises(CatalogError, match=r"tools\[0\] .*'fingerprint' is not the fingerprint"):
        parse_catalog(json.dumps(document))
    # One entry on its own is read for what it says.
    assert CatalogTool.from_entry(document["tools"][0]).name == document["tools"][0]["name"]
