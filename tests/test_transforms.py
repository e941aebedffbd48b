"""BindTo: generated transforms carry values between a tool and the code it is bound to.

Shapes that cannot be mapped are design errors at generation time that name both sides and
the field; shapes that can be mapped generate field-by-field transforms that run.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from tooldesign.ir.errors import DesignError
from tooldesign.ir.evaluate import evaluate
from tooldesign.runtime import Runtime, ToolCallMeta, ToolRequest

from tests.conftest import Generated

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


def write_app(folder: Path) -> None:
    (folder / "app.py").write_text(APP)


TOOL_DESIGN = """\
from tooldesign.dsl import *
import app

with Service("s", "A service"):
    with Toolset("t", "A toolset"):
        with Tool("lookup", "Look things up"):
            with Args():
{args}
            with Return():
{result}
            BindTo(app.{target})  # <-- bind
"""


def design_with_tool(target: str, *, args: str, result: str) -> str:
    def block(lines: str) -> str:
        return textwrap.indent(textwrap.dedent(lines).strip(), " " * 16)

    return TOOL_DESIGN.format(args=block(args), result=block(result), target=target)


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
    tmp_path: Path, target: str, args: str, result: str, fragments: list[str]
) -> None:
    write_app(tmp_path)
    design = tmp_path / "design.py"
    design.write_text(design_with_tool(target, args=args, result=result))
    with pytest.raises(DesignError) as caught:
        evaluate([str(design)])
    [issue] = caught.value.issues
    for fragment in fragments:
        assert fragment in issue.message, issue.message
    assert issue.path == 'service "s" › toolset "t" › tool "lookup" › bind'
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
    monkeypatch: pytest.MonkeyPatch,
    gen_design: Callable[[str], Generated],
) -> None:
    # The design and the generated package both import the application module.
    write_app(tmp_path)
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
