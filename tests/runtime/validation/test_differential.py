"""The schema is the decoder: every published schema against an oracle nobody here wrote.

For each tool of the worked example, of the scenario goldens and of a synthetic design that uses
every type, format, constraint and pattern feature of the DSL: instances drawn from the payload
and result schemas, and near misses of them (a field dropped, another JSON type, a bound ±1, an
extra key, an enum's case, a null, a numeric string, a pattern or format broken, a number that
is not finite), judged by ``jsonschema`` (Draft 2020-12, patterns by a real ECMA-262 engine,
formats by the format table's grammars) and by the generated codecs, as JSON text and as a
dict. They must agree, but for the deliberate differences docs/limits.md lists (the oracle's
adjustments, in tests/support/differential.py). A result accepted is sent as checked: its text
reads back as the value given.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tooldesign.runtime import ToolSpec
from tooldesign.runtime.validation.codecs import PayloadCodec, ResultCodec
from tooldesign.runtime.validation.schema import strip_optional_nulls

from tests.support import REPO
from tests.support.differential import (
    Instances,
    Oracle,
    as_text,
    near_misses,
    payload_accepts,
    result_accepts,
    result_text_accepts,
    with_repeated_keys,
)
from tests.support.generated import Generated

SCENARIOS = REPO / "tests" / "scenarios"

Tool = tuple[ToolSpec[Any, Any], PayloadCodec[Any], ResultCodec[Any]]

CHECKS = {"payload": 0, "result": 0, "valid": 0}
"""Instances judged, by kind (printed by the last test, for the record)."""


def _tools(codecs: ModuleType, specs: ModuleType) -> list[Tool]:
    found = []
    for spec in specs.SPECS:
        payload = next(
            v
            for v in vars(codecs).values()
            if isinstance(v, PayloadCodec) and v.spec is spec.payload
        )
        result = next(
            v for v in vars(codecs).values() if isinstance(v, ResultCodec) and v.spec is spec.result
        )
        found.append((spec, payload, result))
    return found


def _packages(root: Path) -> Iterator[tuple[ModuleType, ModuleType]]:
    for codecs in sorted(root.glob("*/toolsets/*/codecs.py")):
        dotted = ".".join(codecs.relative_to(root).with_suffix("").parts)
        module = importlib.import_module(dotted)
        yield module, importlib.import_module(dotted.rsplit(".", 1)[0] + ".specs")


EXAMPLE = sorted(p.parent.name for p in (REPO / "gen").glob("*/toolsets/*/codecs.py"))
SCENARIO_NAMES = sorted(p.name for p in SCENARIOS.iterdir() if (p / "expected").is_dir())


@pytest.fixture(scope="module")
def scenarios() -> Iterator[dict[str, list[tuple[str, Tool]]]]:
    """Each scenario golden's tools, its packages imported from ``expected/`` by their own
    names (``shop``…) while these tests run only: other tests use those names."""
    roots = [SCENARIOS / name / "expected" for name in SCENARIO_NAMES]
    tops = {path.name for root in roots for path in root.iterdir()}
    sys.path[:0] = [str(root) for root in roots]
    try:
        yield {
            name: [
                (f"{name}.{tool[0].name}", tool)
                for codecs, specs in _packages(SCENARIOS / name / "expected")
                for tool in _tools(codecs, specs)
            ]
            for name in SCENARIO_NAMES
        }
    finally:
        del sys.path[: len(roots)]
        for module in [m for m in sys.modules if m.split(".")[0] in tops]:
            del sys.modules[module]


def _settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )


def _injected(codec: PayloadCodec[Any]) -> dict[str, Any]:
    """A valid value for each injected field, by its type."""
    samples = {"integer": 1, "number": 1.5, "boolean": True}
    return {
        name: samples.get(str(schema.get("type")), "x")
        for name, schema in codec._injected_schemas().items()
    }


def _explain(kind: str, tool: str, value: Any, want: bool, got: Any) -> str:
    return (
        f"{kind} of {tool}: jsonschema says {'valid' if want else 'invalid'}, the decoder "
        f"{got}, for {as_text(value)[:300]}"
    )


def check_tool(name: str, tool: Tool, examples: int = 12) -> None:
    """The tool's payload and result schemas against their codecs, instance by instance."""
    spec, payload, result = tool
    payload_oracle = Oracle(spec.payload.schema, injected=spec.injected)
    result_oracle = Oracle(spec.result.schema)
    injected = _injected(payload)

    @_settings(examples)
    @given(data=st.data())
    def payloads(data: st.DataObject) -> None:
        instance = data.draw(Instances(spec.payload.schema).of())
        for value in [instance, *data.draw(near_misses(instance))]:
            want = payload_oracle.accepts(value)
            as_dict = payload_accepts(payload, value, injected)
            text = as_text(value)
            want_text = payload_oracle.accepts(json.loads(text))
            as_json = payload_accepts(payload, text, injected)
            assert as_dict == want, _explain("payload (a dict)", name, value, want, as_dict)
            assert as_json == want_text, _explain("payload (text)", name, value, want_text, as_json)
            for repeated in with_repeated_keys(value):
                # A key repeated in the text, first with another value: the last one counts.
                again = payload_accepts(payload, repeated, injected)
                assert again == want_text, _explain(
                    "payload (a key repeated)", name, value, want_text, again
                )
            CHECKS["payload"] += 2
            CHECKS["valid"] += want

    @_settings(examples)
    @given(data=st.data())
    def results(data: st.DataObject) -> None:
        instance = data.draw(Instances(spec.result.schema).of())
        for value in [instance, *data.draw(near_misses(instance))]:
            want = result_oracle.accepts(value)
            accepted, sent = result_accepts(result, value)
            assert accepted == want, _explain("result", name, value, want, accepted)
            text = as_text(value)
            from_text = result_text_accepts(result, text)
            want_text = result_oracle.accepts(json.loads(text))
            assert from_text == want_text, _explain("result (text)", name, value, want, from_text)
            if sent is not None:
                # What is sent is what was checked: the value given, never respelt.
                assert json.loads(sent) == strip_optional_nulls(value, spec.result.schema)
                assert result_oracle.accepts(json.loads(sent))
            CHECKS["result"] += 2
            CHECKS["valid"] += want

    payloads()
    results()


@pytest.mark.parametrize("toolset", EXAMPLE)
def test_the_worked_examples_schemas_and_codecs_agree(toolset: str) -> None:
    codecs = importlib.import_module(f"gen.assistant.toolsets.{toolset}.codecs")
    specs = importlib.import_module(f"gen.assistant.toolsets.{toolset}.specs")
    for tool in _tools(codecs, specs):
        check_tool(f"example.{tool[0].name}", tool)


@pytest.mark.parametrize("scenario", SCENARIO_NAMES)
def test_the_scenario_goldens_schemas_and_codecs_agree(
    scenario: str, scenarios: dict[str, list[tuple[str, Tool]]]
) -> None:
    for name, tool in scenarios[scenario]:
        check_tool(name, tool)


SYNTHETIC = r"""
from tooldesign.dsl import *

with Type("Node", "A recursive node") as Node:
    Attribute("label", String, "Label", pattern=r"^\w[\w.-]{0,7}$")
    Attribute("children", ArrayOf("Node", max_items=2), "Children")
    Required("label")

with Type("Circle", "A circle") as Circle:
    Attribute("kind", String, "Its tag", enum=["circle"])
    Attribute("radius", Float, "Radius", exclusive_minimum=0, maximum=100)
    Required("kind", "radius")

with Type("Square", "A square") as Square:
    Attribute("kind", String, "Its tag", enum=["square"])
    Attribute("side", Int, "Side", minimum=1, exclusive_maximum=50)
    Required("kind", "side")

with Type("Formats", "One of each format") as Formats:
    Attribute("when", String, "When", format="date-time")
    Attribute("day", String, "Day", format="date", default="2026-01-31")
    Attribute("at", String, "At", format="time")
    Attribute("span", String, "Span", format="duration")
    Attribute("mail", String, "Mail", format="email", max_length=40)
    Attribute("link", String, "Link", format="uri", max_length=20)
    Attribute("id", String, "Id", format="uuid", pattern="^[0-9A-F-]+$")
    Attribute("v4", String, "V4", format="ipv4")
    Attribute("v6", String, "V6", format="ipv6")
    Attribute("host", String, "Host", format="hostname", pattern=r"\.com$")
    Attribute("utc", String, "UTC", format="date-time", pattern=r"\+00:00$")
    Attribute("days", ArrayOf(String, max_items=2), "Days", format="date")

with Service("synth", "Every feature of the DSL"):
    with Toolset("every", "Every type, format, constraint and pattern"):
        with Tool("scalars", "Scalars and their constraints"):
            with Args():
                Attribute("name", String, "Name", min_length=1, max_length=8)
                Attribute("code", String, "Code", pattern=r"^[A-Z]{2}\d{2}$")
                Attribute("word", String, "Word", pattern=r"^\w+\s?\S*$")
                Attribute("line", String, "Line", pattern=r"^.{1,5}$")
                Attribute("esc", String, "Escapes", pattern=r"^(?:\x41|\u00e9|[\-\].\d])+$")
                Attribute("alt", String, "Alternation", pattern=r"^(ab|cd)*?e{1,}[^\s\d]?$")
                Attribute("count", Int, "Count", minimum=-3, maximum=7)
                Attribute("level", Int, "Level", enum=[1, 2, 3])
                Attribute("ratio", Float, "Ratio", exclusive_minimum=0, exclusive_maximum=1)
                Attribute("weight", Float, "Weight", enum=[0.5, 1.5])
                Attribute("flag", Boolean, "Flag")
                Attribute("mode", String, "Mode", enum=["fast", "slow"], default="fast")
                Attribute("limit", Int, "Limit", default=10, minimum=1)
                Attribute("tags", ArrayOf(String, min_items=1, max_items=3), "Tags", max_length=4)
                Attribute("session", String, "Session")
                Required("name", "count", "session")
                Example({"name": "a", "count": 1})
            Inject("session")
            with Return():
                Attribute("count", Int, "Count", minimum=0)
                Attribute("ratio", Float, "Ratio")
                Attribute("floats", ArrayOf(Float), "Floats")
                Attribute("table", MapOf(String, Float), "Table")
                Attribute("code", String, "Code", pattern=r"^\d+$")
                Required("count")
        with Tool("formats", "Every format"):
            Args(Formats)
            Return(Formats)
        with Tool("shapes", "Objects, maps, unions, recursion and verbatim schemas"):
            with Args():
                with Attribute("filter", Object, "An inline object"):
                    Attribute("min", Int, "Least")
                    Attribute("names", ArrayOf(String), "Names", enum=["a", "b"])
                    Required("min")
                Attribute("counts", MapOf(String, Int), "Counts")
                Attribute("either", OneOf(String, Int), "Either")
                Attribute("shape", OneOf(Circle, Square, discriminator="kind"), "Shape")
                Attribute("tree", Node, "A tree")
                Attribute("anything", Any, "Anything")
                Attribute("half", Any(schema={"multipleOf": 0.5}), "Halves")
                Attribute("stamp", Any(schema={"type": "string", "format": "date-time"}), "Stamp")
                Attribute(
                    "keyed",
                    Any(
                        schema={
                            "type": "object",
                            "patternProperties": {r"^x\d$": {"type": "integer"}},
                            "additionalProperties": False,
                        }
                    ),
                    "Keyed",
                )
                Required("filter")
            Return(Node, "A tree")
        with Tool("contact", "Rules across arguments"):
            with Args():
                Attribute("via", String, "How", enum=["phone", "email", "post"], default="post")
                Attribute("phone", String, "Phone", max_length=6)
                Attribute("email", String, "Email")
                Attribute("urgent", Boolean, "Urgent")
                Attribute("pager", String, "Pager")
                Attribute("level", Int, "Level")
                Attribute("id", String, "Id")
                Attribute("name", String, "Name")
                Attribute("session", String, "Session")
                Required("session")
                AtLeastOne("phone", "email", "pager")
                ExactlyOne("id", "name")
                When("via", equals="phone", requires=["phone"], otherwise=["email"])
                When("urgent", equals=True, requires=["pager"])
                When("level", equals=3, requires=["pager", "phone"])
            Inject("session")
            Return(String, "Done")
        with Tool("floats", "A bare float"):
            Args(Float, "A number")
            Return(Float, "A number")
        with Tool("float_list", "Floats"):
            Args(ArrayOf(Float), "Numbers")
            Return(ArrayOf(Float), "Numbers")
        with Tool("float_map", "A map of floats"):
            Args(MapOf(String, Float), "Numbers")
            Return(MapOf(String, Float), "Numbers")
"""


@pytest.fixture
def synthetic(gen_design: Callable[[str], Generated]) -> list[tuple[str, Tool]]:
    generated = gen_design(SYNTHETIC)
    codecs = generated.module("synth.toolsets.every.codecs")
    specs = generated.module("synth.toolsets.every.specs")
    return [(f"synthetic.{tool[0].name}", tool) for tool in _tools(codecs, specs)]


def test_a_design_with_every_feature_and_its_codecs_agree(
    synthetic: list[tuple[str, Tool]],
) -> None:
    for name, tool in synthetic:
        check_tool(name, tool, examples=40)
    assert CHECKS["payload"] and CHECKS["result"]
    print(
        f"\ndifferential: {CHECKS['payload']} payloads and {CHECKS['result']} results judged, "
        f"{CHECKS['valid']} of the values valid"
    )
