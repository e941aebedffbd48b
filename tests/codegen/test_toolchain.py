"""The runtime installs without the generator; the commands that generate name what they lack."""

from __future__ import annotations

import pytest
from tooldesign.codegen import toolchain
from tooldesign.codegen.toolchain import ToolchainError, check_toolchain, pins


def test_the_pins_are_read_from_the_gen_extra() -> None:
    assert pins() == {"datamodel-code-generator": "0.89.0", "ruff": "0.17.6"}


def test_a_missing_toolchain_is_asked_for_by_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    installed = {"jinja2": "3.1.6"}
    monkeypatch.setattr(toolchain, "_installed", installed.get)
    with pytest.raises(ToolchainError) as error:
        check_toolchain("gen")
    message = str(error.value)
    assert "tooldesign gen needs the generator's toolchain" in message
    assert "(datamodel-code-generator, ruff)" in message
    assert "pip install 'tooldesign[gen]'" in message


def test_another_ruff_is_refused_rather_than_written_with(monkeypatch: pytest.MonkeyPatch) -> None:
    installed = {"jinja2": "3.1.6", "datamodel-code-generator": "0.89.0", "ruff": "0.18.0"}
    monkeypatch.setattr(toolchain, "_installed", installed.get)
    with pytest.raises(ToolchainError) as error:
        check_toolchain("init")
    message = str(error.value)
    assert "ruff 0.18.0 (tooldesign pins 0.17.6)" in message
    assert "pipx install 'tooldesign[gen]'" in message


def test_the_pinned_toolchain_passes() -> None:
    check_toolchain("gen")  # the dev install has the gen extra
