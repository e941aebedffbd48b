"""Loading planned from the design: ``Loading(...)`` carried into the catalog and the specs,
followed by exports, and the eager tools' token budget (``Targets(eager_tokens=...)``) checked
at ``gen``."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from tooldesign.generate import generate
from tooldesign.ir.errors import DesignError
from tooldesign.runtime.providers import LoadingPlan, export_tools, load_tools
from tooldesign.runtime.providers.tokens import token_counter

from tests.support.generated import Generator

DESIGN = """
from tooldesign.dsl import *

with Service("ops", "Operations"):
    {targets}
    with Toolset("reads", "Read things"):
        with Tool("get_thing", "Get one thing by id"):
            with Args():
                Attribute("id", String, "Its id")
            Return(String, "The thing")
    with Toolset("admin", "Administer things"):
        Loading("deferred")
        with Tool("purge_things", "Purge every thing of a kind"):
            with Args():
                Attribute("kind", String, "The kind")
            Return(String, "What was purged")
        with Tool("count_things", "Count things"):
            Loading("eager")
            Return(Int, "How many")
"""


def design_text(targets: str = "") -> str:
    return DESIGN.format(targets=targets or "pass")


@pytest.fixture(scope="module")
def generated_root(gen_design_for_module: Generator) -> Path:
    return gen_design_for_module(design_text()).out


def test_loading_reaches_the_catalog_and_the_specs(generated_root: Path) -> None:
    catalog = json.loads((generated_root / "ops" / "tool_schemas.json").read_text())
    loading = {t["name"]: t.get("loading") for t in catalog["tools"]}
    assert loading == {"get_thing": None, "purge_things": "deferred", "count_things": None}
    tools = load_tools([generated_root])
    assert [t.loading for t in tools] == [None, "deferred", None]


def test_an_export_follows_the_design_unless_told_otherwise(generated_root: Path) -> None:
    tools = load_tools([generated_root])
    planned = export_tools(tools, "anthropic")
    assert [t["name"] for t in planned if t.get("defer_loading")] == ["purge_things"]
    everything = export_tools(tools, "anthropic", plan=LoadingPlan(design=False))
    assert not any("defer_loading" in t or "type" in t for t in everything)
    # The plan's own selectors win over the design.
    eager = export_tools(tools, "anthropic", plan=LoadingPlan(eager=["purge_things"]))
    assert not any(t.get("defer_loading") for t in eager)


def _issues(tmp_path: Path, text: str) -> list[Any]:
    path = tmp_path / "design.py"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    with pytest.raises(DesignError) as caught:
        generate([str(path)], tmp_path / "gen")
    return list(caught.value.issues)


def test_a_loading_that_is_no_choice_or_is_misplaced_is_a_design_error(tmp_path: Path) -> None:
    bad = design_text().replace('Loading("eager")', 'Loading("lazy")')
    [issue] = _issues(tmp_path, bad)
    assert "Loading must be 'eager' or 'deferred', got 'lazy'" in issue.message
    misplaced = design_text('Loading("deferred")')
    [issue] = _issues(tmp_path, misplaced)
    assert "Loading" in issue.message and "Toolset or Tool block" in issue.message


@pytest.mark.skipif(token_counter() is None, reason="needs the tokens extra")
def test_the_eager_tools_budget_is_checked_per_target_naming_the_largest(tmp_path: Path) -> None:
    issues = _issues(tmp_path, design_text('Targets("openai", "anthropic", eager_tokens=20)'))
    assert [i.message.split(":")[0] for i in issues] == ["OpenAI (openai)", "Anthropic (anthropic)"]
    issue = issues[0]
    assert issue.message.startswith("OpenAI (openai): the eagerly loaded tools cost ")
    assert (
        "over the budget of 20 (Targets eager_tokens=); the largest are get_thing ("
        in issue.message
    )
    assert "purge_things" not in issue.message  # deferred: not in the prefix
    path = tmp_path / "fits.py"
    path.write_text(textwrap.dedent(design_text('Targets("openai", eager_tokens=5000)')), "utf-8")
    generate([str(path)], tmp_path / "fits")
    [bad] = _issues(tmp_path, design_text('Targets("openai", eager_tokens=0)'))
    assert "eager_tokens= must be a positive number of tokens, got 0" in bad.message


def test_the_export_command_follows_the_design_and_adds_the_search_tool_where_needed(
    generated_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tooldesign.cli import main

    assert main(["export", str(generated_root), "--provider", "openai"]) == 0
    out, err = capsys.readouterr()
    names = [t["function"]["name"] for t in json.loads(out)]
    assert names == ["get_thing", "count_things", "search_tools"]
    assert "1 deferred tool(s) (Loading in the design), found through search_tools" in err
    assert main(["export", str(generated_root), "--provider", "anthropic"]) == 0
    out, err = capsys.readouterr()
    tools = json.loads(out)
    assert [t["name"] for t in tools if t.get("defer_loading")] == ["purge_things"]
    assert "found through the provider's tool search" in err
