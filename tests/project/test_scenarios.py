"""Scenario goldens: each design in tests/scenarios generates exactly its expected files.

Refresh them with ``TOOLDESIGN_UPDATE_SCENARIOS=1`` (see tests/scenarios/README.md).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from tooldesign.codegen.output import MANIFEST_NAME
from tooldesign.generate import generate

from tests.support import tree_bytes

SCENARIOS = Path(__file__).parents[1] / "scenarios"
UPDATE = os.environ.get("TOOLDESIGN_UPDATE_SCENARIOS") == "1"


@pytest.mark.parametrize("name", sorted(path.parent.name for path in SCENARIOS.glob("*/design.py")))
def test_a_scenario_generates_its_expected_files(name: str, tmp_path: Path) -> None:
    scenario = SCENARIOS / name
    generate([str(scenario / "design.py")], tmp_path)
    generated = {path: content for path, content in tree_bytes(tmp_path).items()}
    generated.pop(MANIFEST_NAME)
    expected_dir = scenario / "expected"
    if UPDATE:
        shutil.rmtree(expected_dir, ignore_errors=True)
        for path, content in generated.items():
            (expected_dir / path).parent.mkdir(parents=True, exist_ok=True)
            (expected_dir / path).write_bytes(content)
    expected = tree_bytes(expected_dir)
    assert sorted(generated) == sorted(expected), "the files differ; see tests/scenarios/README.md"
    for path, content in generated.items():
        assert content.decode() == expected[path].decode(), f"{name}: {path} differs"
