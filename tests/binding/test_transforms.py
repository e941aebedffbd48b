"""BindTo: generated transforms carry values between a tool and the code it is bound to.

Shapes that cannot be mapped are design errors at generation time that name both sides and
the field; shapes that can be mapped generate field-by-field transforms that run.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from tooldesign.eval.evaluate import evaluate
from tooldesign.ir.errors import DesignError
from tooldesign.runtime import Runtime, ToolCallMeta, ToolRequest

from tests.support.bindings import AppWriter, bind_issue, bound_tool_design
from tests.support.generated import Generated

APP = """\
from __future__ import annotations

import asyncio
import dataclasses
from typing import Literal, TypedDict

from pydantic import BaseModel


@dataclasses.dataclass
class Query:
    site_id: str
    limit: int
    priority: int


@dataclasses.dataclass
class Page:
    names: list[str]
    note: str | None = None


def needs_priority(query: Query) -> Page: ...
def str_limit(site_id: str, limit: str) -> Page: ...
def no_limit(site_id: str) -> Page: ...
def required_limit(site_id: str, limit: int) -> Page: ...
def only_online(site_id: str, status: Literal["online"]) -> Page: ...
def unannotated(site_id: str): ...
def returns_none(site_id: str) -> None: ...
def maybe_note(site_id: str) -> Page: ...


# For the tools that do bind: every accepted shape of parameters and results.

class Filter(BaseModel):
    site_id: str
    tags: list[str] = []


@dataclasses.dataclass
class Device:
    id: str
    tags: list[str]


class DeviceRow(TypedDict):
    id: str
    tags: list[str]


class Inventory:
    def __init__(self) -> None:
        self.calls: list[object] = []

    def find(self, query: Filter) -> list[Device]:
        self.calls.append(query)
        return [Device(id=f"{query.site_id}-1", tags=query.tags)]

    async def rows(self, site_id: str, limit: int = 2) -> dict[str, list[DeviceRow]]:
        await asyncio.sleep(0)
        self.calls.append((site_id, limit))
        return {"rows": [DeviceRow(id=f"{site_id}-{i}", tags=[]) for i in range(limit)]}

    def count(self, site_id: str, session: str) -> int:
        self.calls.append((site_id, session))
        return len(site_id)

    def forget(self, site_id: str) -> None:
        self.calls.append(site_id)
"""


SITE_AND_LIMIT = """\
    Attribute("site_id", String, "Site")
    Attribute("limit", Int, "Limit")
    Required("site_id")
"""
NAMES = """\
    Attribute("names", ArrayOf(String), "Names")
    Required("names")
"""


@pytest.mark.parametrize(
    ("target", "args", "result", "fragments"),
    [
        pytest.param(
            "needs_priority",
            SITE_AND_LIMIT.replace('Required("site_id")', 'Required("site_id", "limit")'),
            NAMES,
            ["Query (of app:needs_priority) needs 'priority' (int)", "has no such field"],
            id="method-field-without-source",
        ),
        pytest.param(
            "no_limit",
            SITE_AND_LIMIT,
            NAMES,
            ["field(s) 'limit' at payload have no counterpart in the parameters of app:no_limit"],
            id="tool-field-without-target",
        ),
        pytest.param(
            "str_limit",
            SITE_AND_LIMIT,
            NAMES,
            ["payload.limit is Int, but app:str_limit expects str"],
            id="incompatible-types",
        ),
        pytest.param(
            "required_limit",
            SITE_AND_LIMIT,
            NAMES,
            ["tool field payload.limit is optional", "field 'limit' (int) accepts no None"],
            id="optional-into-required",
        ),
        pytest.param(
            "only_online",
            """\
            Attribute("site_id", String, "Site")
            Attribute("status", String, "Status", enum=["online", "offline"])
            Required("site_id", "status")
            """,
            NAMES,
            [
                "payload.status is String, but app:only_online expects Literal['online']",
                "'offline'",
            ],
            id="enum-not-covered",
        ),
        pytest.param(
            "no_limit",
            'Attribute("site_id", String, "Site")\nRequired("site_id")',
            """\
            Attribute("names", ArrayOf(String), "Names")
            Attribute("count", Int, "Count")
            Required("names", "count")
            """,
            ["result.count is required, but Page (of app:no_limit) has no field 'count'"],
            id="result-field-without-source",
        ),
        pytest.param(
            "maybe_note",
            'Attribute("site_id", String, "Site")\nRequired("site_id")',
            """\
            Attribute("names", ArrayOf(String), "Names")
            Attribute("note", String, "Note")
            Required("names", "note")
            """,
            ["Page (of app:maybe_note) field 'note' may be None", "result.note is required"],
            id="nullable-into-required-result",
        ),
        pytest.param(
            "returns_none",
            'Attribute("site_id", String, "Site")\nRequired("site_id")',
            NAMES,
            ["app:returns_none returns None, but tool 'lookup' result requires names"],
            id="none-for-a-required-result",
        ),
        pytest.param(
            "unannotated",
            'Attribute("site_id", String, "Site")\nRequired("site_id")',
            NAMES,
            ["app:unannotated: annotate its return type"],
            id="unannotated-return",
        ),
    ],
)
def test_shapes_that_cannot_be_mapped_are_design_errors(
    tmp_path: Path, write_app: AppWriter, target: str, args: str, result: str, fragments: list[str]
) -> None:
    write_app("app", APP, imported=False)
    design = tmp_path / "design.py"
    design.write_text(bound_tool_design("app", target, args=args, result=result))
    issue = bind_issue(design, fragments)
    assert issue.location is not None
    lines = design.read_text().splitlines()
    assert "# <-- bind" in lines[issue.location.line - 1]


BOUND_DESIGN = """\
from tooldesign.dsl import *
from app import Inventory

with Type("Device", "A device") as Device:
    Attribute("id", String, "Device id")
    Attribute("tags", ArrayOf(String), "Tags")
    Required("id", "tags")

with Service("s", "A service"):
    with Toolset("inventory", "Devices"):
        with Tool("find", "Find devices"):
            with Args():
                Attribute("site_id", String, "Site")
                Attribute("tags", ArrayOf(String), "Tags", default=[])
                Required("site_id")
            Return(ArrayOf(Device), "Devices")
            BindTo(Inventory.find)
        with Tool("rows", "Rows of a site"):
            with Args():
                Attribute("site_id", String, "Site")
                Attribute("limit", Int, "Rows", default=2, minimum=1)
                Required("site_id")
            with Return():
                Attribute("rows", ArrayOf(Device), "Rows")
                Required("rows")
            BindTo(Inventory.rows)
        with Tool("count", "Count"):
            with Args():
                Attribute("site_id", String, "Site")
                Attribute("session", String, "Session")
                Required("site_id", "session")
            Inject("session")
            Return(Int, "How many")
            BindTo(Inventory.count)
        with Tool("forget", "Forget a site"):
            with Args():
                Attribute("site_id", String, "Site")
                Required("site_id")
            BindTo(Inventory.forget)
"""


def test_bound_tools_of_every_accepted_shape_run_through_their_transforms(
    tmp_path: Path,
    write_app: AppWriter,
    monkeypatch: pytest.MonkeyPatch,
    gen_design: Callable[[str], Generated],
) -> None:
    # The design and the generated package both import the application module.
    write_app("app", APP, imported=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    generated = gen_design(BOUND_DESIGN)
    executor = generated.module("s.toolsets.inventory.executor")
    transforms = generated.module("s.toolsets.inventory.transforms")
    app = __import__("app")
    inventory = app.Inventory()
    runtime = Runtime([executor.new_registration(service=inventory)])
    meta = ToolCallMeta(labels={"session": "sess-1"})

    def call(name: str, payload: object) -> object:
        result = runtime.execute_sync(ToolRequest(name, payload, meta))  # type: ignore[arg-type]
        assert result.ok, result.for_model()
        return json.loads(result.for_model())

    # A pydantic model in, a list of dataclasses out.
    assert call("find", {"site_id": "hq", "tags": ["core"]}) == [{"id": "hq-1", "tags": ["core"]}]
    # Keyword parameters (a default kept by the tool), async, a dict of TypedDicts out.
    assert call("rows", {"site_id": "nyc"}) == {
        "rows": [{"id": "nyc-0", "tags": []}, {"id": "nyc-1", "tags": []}]
    }
    # An injected field is mapped from the payload like any other; a primitive result.
    assert call("count", {"site_id": "sgp", "session": "forged"}) == 3
    # A method returning None.
    call("forget", {"site_id": "ber"})
    assert [type(c).__name__ for c in inventory.calls] == ["Filter", "tuple", "tuple", "str"]
    assert inventory.calls[1:] == [("nyc", 2), ("sgp", "sess-1"), "ber"]
    # The transforms are ordinary, explicit functions.
    assert callable(transforms.to_method_payload_find)
    assert callable(transforms.to_tool_return_rows)


# ── every problem at once ────────────────────────────────────────────────────────────────────

ROUNDS_APP = """\
from __future__ import annotations

import dataclasses
from typing import Literal


@dataclasses.dataclass
class Page:
    names: list[str]
    audit: dict[str, str]


def many(site_id: str, limit: str) -> Page: ...
def fine_but_alone(site_id: str) -> Page: ...
def mistyped(site_id: int) -> Page: ...
def over_broken_type(site_id: str) -> Page: ...
def over_invalid_enum(site_id: Literal["a"]) -> Page: ...
"""

ROUNDS_DESIGN = """\
from tooldesign.dsl import *
import rounds_app

with Type("Broken", "A type with an error of its own") as Broken:
    Attribute("part", "Nowhere", "An unknown type")  # <-- unknown type

with Service("s", "A service"):
    with Toolset("t", "A toolset"):
        with Tool("many", "Everything wrong with its binding"):
            with Args():
                Attribute("site_id", String, "Site")
                Attribute("limit", Int, "Limit")
                Attribute("extra", String, "Extra")
                Required("site_id", "limit")
            with Return():
                Attribute("names", ArrayOf(Int), "Names")
                Attribute("count", Int, "Count")
                Required("names", "count")
            ServerData("audit", MapOf(String, String), "Audit")  # <-- no from_field
            ServerData("trail", MapOf(String, String), "Trail", from_field="trail")  # <-- no such field
            BindTo(rounds_app.many)  # <-- many
        with Tool("uses_broken", "Bound over a type with an error"):
            with Args():
                Attribute("site_id", Broken, "Site")
                Required("site_id")
            with Return():
                Attribute("names", ArrayOf(String), "Names")
                Required("names")
            BindTo(rounds_app.over_broken_type)
        with Tool("invalid", "A validation error of its own"):
            with Args():
                Attribute("site_id", String, "Site", enum=[["a"]])  # <-- invalid enum
                Required("site_id")
            with Return():
                Attribute("names", ArrayOf(String), "Names")
                Required("names")
            BindTo(rounds_app.over_invalid_enum)
        with Tool("other", "Wrong on its own, next to the others"):
            with Args():
                Attribute("site_id", String, "Site", default=7)  # <-- bad default
            with Return():
                Attribute("names", ArrayOf(String), "Names")
                Required("names")
            BindTo(rounds_app.fine_but_alone)
        with Tool("mistyped", "Sound, next to tools with errors"):
            with Args():
                Attribute("site_id", String, "Site")
                Required("site_id")
            with Return():
                Attribute("names", ArrayOf(String), "Names")
                Required("names")
            BindTo(rounds_app.mistyped)  # <-- mistyped
"""


def test_every_problem_of_a_design_is_reported_at_once(tmp_path: Path) -> None:
    (tmp_path / "rounds_app.py").write_text(ROUNDS_APP)
    design = tmp_path / "design.py"
    design.write_text(ROUNDS_DESIGN)
    with pytest.raises(DesignError) as caught:
        evaluate([str(design)])
    issues = caught.value.issues
    lines = design.read_text().splitlines()

    def line_of(marker: str) -> int:
        return next(i for i, text in enumerate(lines, 1) if text.endswith(f"# <-- {marker}"))

    expected = [
        ("unknown type", "unknown type 'Nowhere'"),
        # Payload, result and server data of one tool, together: each field, each kind.
        ("no from_field", "server data 'audit' of a bound tool needs from_field="),
        ("no such field", "server data 'trail': Page (of rounds_app:many) has no field 'trail'"),
        ("many", "payload.limit is Int, but rounds_app:many expects str"),
        ("many", "field(s) 'extra' at payload have no counterpart"),
        ("many", "result.names[] is Int, but rounds_app:many gives str"),
        ("many", "result.count is required, but Page (of rounds_app:many) has no field 'count'"),
        ("invalid enum", "enum values ['a'] are not String values"),
        ("bad default", "default 7 does not satisfy"),
        # Bound although other tools have errors.
        ("mistyped", "payload.site_id is String, but rounds_app:mistyped expects int"),
    ]
    found = [(issue.location.line if issue.location else 0, issue.message) for issue in issues]
    assert len(found) == len(expected), "\n".join(map(str, issues))
    for marker, fragment in expected:
        assert any(line == line_of(marker) and fragment in message for line, message in found), (
            f"no {fragment!r} at {marker!r}:\n" + "\n".join(map(str, issues))
        )
    # One list, in design-line order, whichever phase found each problem.
    assert [line for line, _ in found] == sorted(line for line, _ in found)
    # A server-data problem is reported on its ServerData; the rest on BindTo.
    by_line = {issue.location.line: issue.path for issue in issues if issue.location}
    tool = 'service "s" › toolset "t" › tool "many"'
    assert by_line[line_of("no from_field")] == f'{tool} › server_data "audit"'
    assert by_line[line_of("many")] == f"{tool} › bind"


def test_a_bound_method_that_changes_regenerates_its_transforms(
    tmp_path: Path, write_app: AppWriter, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tooldesign.generate import generate

    write_app("app", APP, imported=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    design = tmp_path / "design.py"
    design.write_text(BOUND_DESIGN)
    out = tmp_path / "out"
    generate([str(design)], out)
    again = generate([str(design)], out)
    assert again.rendered_toolsets == 0 and again.written == []
    # The design is the same; the method now also accepts None for the limit.
    (tmp_path / "app.py").write_text(APP.replace("limit: int = 2", "limit: int | None = 2"))
    changed = generate([str(design)], out)
    assert changed.rendered_toolsets == 1
    assert "s/toolsets/inventory/transforms.py" in changed.written
    assert (
        "limit: NotRequired[int | None]" in (out / "s/toolsets/inventory/transforms.py").read_text()
    )
