"""BindTo against the application's real types: what they declare is what the transforms honour.

TypedDict keys that may be absent, pydantic aliases, server data that is not an object, class
and static methods: generated, type-checked with ``mypy --strict`` (with and without pydantic's
mypy plugin) and executed through the runtime. Constraints the method declares and the tool
does not promise are design errors naming both sides and the field.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from tooldesign.binding.pytypes import PyClass, Registry
from tooldesign.eval.evaluate import evaluate
from tooldesign.runtime import Runtime, ToolCallMeta, ToolRequest, ToolResult

from tests.support.bindings import AppWriter, bind_issue, bound_tool_design
from tests.support.generated import Generated


def run_mypy(generated: Generated, app_dir: Path, *, plugin: bool, init_typed: bool = False) -> str:
    """``mypy --strict`` over a generated package (the application is read, not checked).

    ``init_typed``: pydantic's plugin also types the fields a model's constructor takes.
    """
    config = app_dir / f"mypy-{'plugin' if plugin else 'plain'}{'-typed' if init_typed else ''}.ini"
    config.write_text(
        "[mypy]\n"
        + ("plugins = pydantic.mypy\n" if plugin else "")
        + ("[pydantic-mypy]\ninit_typed = True\n" if init_typed else "")
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(config),
            "--strict",
            "--no-incremental",
            "--explicit-package-bases",
            "--follow-imports=silent",
            generated.package,
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=generated.root,
        env={"MYPYPATH": str(app_dir), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


# ── one toolset with every shape, type-checked and run ───────────────────────────────────────

SHAPES_APP = """\
from __future__ import annotations

import asyncio
from typing import Annotated, NotRequired, Required, TypedDict

import typing_extensions
from pydantic import AliasChoices, BaseModel, ConfigDict, Field


class Legacy(typing_extensions.TypedDict):
    given: int
    left_out: typing_extensions.NotRequired[int]


class Counted(TypedDict, total=False):
    note: str
    count: Required[int]


class Summary(Counted):
    tree: list[str]
    maybe: NotRequired[str]
    tagged: Annotated[NotRequired[str], "kept for readers"]


class RowIn(TypedDict):
    id: str
    note: NotRequired[str]


class Window(BaseModel):
    from_: str = Field(alias="from")
    limit: int


class Span(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    site_id: str = Field(alias="site-id")
    start: int = Field(validation_alias=AliasChoices("begin", "start_at"))
    windows: list[Window] = []
    note: str = Field(default_factory=lambda: "none", alias="note-text")


class ByName(BaseModel):
    model_config = ConfigDict(validate_by_alias=False, validate_by_name=True)

    site_id: str = Field(alias="siteId")


class Chart(BaseModel):
    label: str
    points: list[float]


class Shapes:
    def __init__(self) -> None:
        self.calls: list[object] = []

    def summarize(self, site_id: str, full: bool = False) -> Summary:
        self.calls.append(site_id)
        summary: Summary = {"count": 1, "tree": [site_id]}
        if full:
            summary["maybe"] = "yes"
            summary["note"] = "noted"
        return summary

    def ingest(self, row: RowIn) -> int:
        self.calls.append(row)
        return len(row)

    def window(self, query: Window) -> Window:
        self.calls.append(query)
        return Window.model_validate({"from": query.from_.upper(), "limit": query.limit + 1})

    def span(self, query: Span) -> str:
        self.calls.append(query)
        return f"{query.site_id}@{query.start}:{','.join(w.from_ for w in query.windows)}"

    def by_name(self, query: ByName) -> str:
        self.calls.append(query)
        return query.site_id

    def chart(self, site_id: str) -> Chart:
        return Chart(label=site_id, points=[1.0, 2.5])

    @classmethod
    def from_class(cls, site_id: str, limit: int = 2) -> list[str]:
        return [f"{cls.__name__}:{site_id}"] * limit

    @staticmethod
    async def from_static(site_id: str) -> str:
        await asyncio.sleep(0)
        return site_id[::-1]


default_shapes = Shapes()
"""

SHAPES_DESIGN = """\
from tooldesign.dsl import *
from shapes_app import Shapes, default_shapes

with Type("WindowArg", "A window") as WindowArg:
    Attribute("from", String, "Start")
    Attribute("limit", Int, "How many")
    Required("from", "limit")

with Service("s", "Shapes"):
    with Toolset("shapes", "Every shape"):
        with Tool("summarize", "A TypedDict result with keys that may be absent"):
            with Args():
                Attribute("site_id", String, "Site")
                Attribute("full", Boolean, "All keys", default=False)
                Required("site_id")
            with Return():
                Attribute("count", Int, "Count")
                Attribute("tree", ArrayOf(String), "Tree")
                Attribute("note", String, "Note")
                Attribute("maybe", String, "Maybe")
                Attribute("tagged", String, "Tagged")
                Required("count", "tree")
            BindTo(Shapes.summarize)
        with Tool("ingest", "A TypedDict payload with a key that may be absent"):
            with Args():
                Attribute("id", String, "Id")
                Attribute("note", String, "Note")
                Required("id")
            Return(Int, "Keys given")
            BindTo(Shapes.ingest)
        with Tool("window", "A model with a keyword alias, both ways"):
            Args(WindowArg)
            Return(WindowArg)
            BindTo(default_shapes.window)
        with Tool("span", "Aliases that are not identifiers, validation aliases, nested"):
            with Args():
                Attribute("site-id", String, "Site")
                Attribute("begin", Int, "Start")
                Attribute("windows", ArrayOf(WindowArg), "Windows", default=[])
                Attribute("note-text", String, "Note")
                Required("site-id", "begin")
            Return(String, "Summary")
            BindTo(Shapes.span)
        with Tool("by_name", "A model validated by name only"):
            with Args():
                Attribute("site_id", String, "Site")
                Required("site_id")
            Return(String, "Site")
            BindTo(Shapes.by_name)
        with Tool("chart", "Server data that is not an object"):
            with Args():
                Attribute("site_id", String, "Site")
                Required("site_id")
            with Return():
                Attribute("label", String, "Label")
                Required("label")
            ServerData("points", ArrayOf(Float), "Chart points", from_field="points")
            BindTo(Shapes.chart)
        with Tool("from_class", "A classmethod"):
            with Args():
                Attribute("site_id", String, "Site")
                Attribute("limit", Int, "Copies", default=2)
                Required("site_id")
            Return(ArrayOf(String), "Copies")
            BindTo(Shapes.from_class)
        with Tool("from_static", "An async staticmethod"):
            with Args():
                Attribute("site_id", String, "Site")
                Required("site_id")
            Return(String, "Reversed")
            BindTo(default_shapes.from_static)
"""


@pytest.fixture
def shapes(
    write_app: AppWriter, gen_design: Callable[[str], Generated]
) -> tuple[Generated, ModuleType]:
    app = write_app("shapes_app", SHAPES_APP)
    return gen_design(SHAPES_DESIGN), app


def _runtime(generated: Generated, service: object) -> Callable[..., ToolResult]:
    executor = generated.module("s.toolsets.shapes.executor")
    runtime = Runtime([executor.new_registration(service=service)])

    def call(name: str, payload: dict[str, Any], meta: ToolCallMeta | None = None) -> ToolResult:
        result = runtime.execute_sync(ToolRequest(name, payload, meta or ToolCallMeta()))
        assert result.ok, result.for_model()
        return result

    return call


def _model_view(result: ToolResult) -> Any:
    # The encoded result, which the model reads (as JSON data even when it is text).
    assert result.result_json is not None
    return json.loads(result.result_json)


def test_typeddict_keys_that_may_be_absent_are_read_as_absent(
    shapes: tuple[Generated, ModuleType],
) -> None:
    generated, app = shapes
    call = _runtime(generated, app.Shapes())
    # Valid data without the NotRequired keys (declared under postponed annotations, in a
    # base class with total=False, and inside Annotated) is a result, not a malformed response.
    sparse = _model_view(call("summarize", {"site_id": "hq"}))
    assert (sparse["count"], sparse["tree"]) == (1, ["hq"])
    assert {"note", "maybe", "tagged"}.isdisjoint(k for k, v in sparse.items() if v is not None)
    full = _model_view(call("summarize", {"site_id": "hq", "full": True}))
    assert (full["maybe"], full["note"]) == ("yes", "noted")


def test_typeddict_payload_keys_that_may_be_absent_are_left_out(
    shapes: tuple[Generated, ModuleType],
) -> None:
    generated, app = shapes
    service = app.Shapes()
    call = _runtime(generated, service)
    assert _model_view(call("ingest", {"id": "a"})) == 1
    assert _model_view(call("ingest", {"id": "b", "note": "n"})) == 2
    assert service.calls == [{"id": "a"}, {"id": "b", "note": "n"}]


def test_typeddict_required_keys_follow_the_evaluated_annotations(
    write_app: AppWriter,
) -> None:
    app = write_app("shapes_app", SHAPES_APP)
    registry = Registry()
    described = registry.describe(app.Summary)
    assert isinstance(described, PyClass)
    record = registry.records[described.ref]
    required = {f.name: f.required for f in record.fields}
    assert required == {
        "note": False,  # the base is total=False
        "count": True,  # Required[...] in that base
        "tree": True,
        "maybe": False,
        "tagged": False,  # NotRequired inside Annotated
    }
    legacy = registry.describe(app.Legacy)  # typing_extensions' own TypedDict
    assert isinstance(legacy, PyClass)
    assert {f.name: f.required for f in registry.records[legacy.ref].fields} == {
        "given": True,
        "left_out": False,
    }


def test_models_with_aliases_are_built_by_the_names_they_validate(
    shapes: tuple[Generated, ModuleType],
) -> None:
    generated, app = shapes
    service = app.Shapes()
    call = _runtime(generated, service)
    # Bound in the design through an instance's method (the staticmethod too): the method of
    # its class, called on the service the registration is given.
    assert _model_view(call("window", {"from": "a", "limit": 1})) == {"from": "A", "limit": 2}
    window = service.calls[-1]
    assert (type(window).__name__, window.from_, window.limit) == ("Window", "a", 1)

    text = call(
        "span",
        {
            "site-id": "hq",
            "begin": 7,
            "windows": [{"from": "x", "limit": 1}, {"from": "y", "limit": 2}],
        },
    )
    assert _model_view(text) == "hq@7:x,y"
    span = service.calls[-1]
    assert (span.site_id, span.start, span.note) == ("hq", 7, "none")  # the model's own default
    call("span", {"site-id": "hq", "begin": 1, "note-text": "given"})
    assert service.calls[-1].note == "given"

    assert _model_view(call("by_name", {"site_id": "nyc"})) == "nyc"
    assert service.calls[-1].site_id == "nyc"


def test_non_object_server_data_is_wrapped_in_its_root_model(
    shapes: tuple[Generated, ModuleType],
) -> None:
    generated, app = shapes
    call = _runtime(generated, app.Shapes())
    result = call("chart", {"site_id": "hq"})
    assert _model_view(result) == {"label": "hq"}
    [item] = result.server_data
    dumped: object = item.data.model_dump()  # a root model dumps its root
    assert (item.kind, dumped) == ("points", [1.0, 2.5])
    assert "2.5" not in result.for_model()
    transforms = generated.module("s.toolsets.shapes.transforms")
    types = generated.module("s.toolsets.shapes.types")
    produced = transforms.to_server_data_chart_points(app.Chart(label="x", points=[3.0]))
    assert isinstance(produced, types.ChartPointsServerData)


def test_class_and_static_methods_take_every_parameter(
    shapes: tuple[Generated, ModuleType],
) -> None:
    generated, app = shapes
    call = _runtime(generated, app.Shapes())
    assert _model_view(call("from_class", {"site_id": "hq"})) == ["Shapes:hq", "Shapes:hq"]
    assert _model_view(call("from_class", {"site_id": "b", "limit": 1})) == ["Shapes:b"]
    assert _model_view(call("from_static", {"site_id": "abc"})) == "cba"


@pytest.mark.slow
@pytest.mark.parametrize("plugin", [True, False], ids=["pydantic-plugin", "plain"])
def test_generated_transforms_pass_mypy_strict(
    shapes: tuple[Generated, ModuleType], tmp_path: Path, plugin: bool
) -> None:
    generated, _ = shapes
    run_mypy(generated, tmp_path, plugin=plugin)


# ── shapes that cannot be mapped ─────────────────────────────────────────────────────────────

STRICT_APP = """\
from __future__ import annotations

from typing import Annotated, Literal

import annotated_types as at
from pydantic import AliasPath, BaseModel, Field, constr, validate_call


class Strict(BaseModel):
    site_id: str = Field(max_length=3)
    limit: int = Field(default=1, le=5)


class Tags(BaseModel):
    tags: list[Annotated[str, at.MaxLen(4)]] = Field(max_length=2)


class Deep(BaseModel):
    site_id: str = Field(validation_alias=AliasPath("site", "id"))


class Out(BaseModel):
    name: str


def strict(query: Strict) -> Out: ...
def tags(query: Tags) -> Out: ...
def deep(query: Deep) -> Out: ...
def short(site_id: Annotated[str, Field(min_length=2)]) -> Out: ...
def patterned(site_id: constr(pattern=r"^[a-z]+$")) -> Out: ...
def even(limit: Annotated[int, at.MultipleOf(2)]) -> Out: ...
def positive(limit: Annotated[int, at.Gt(0)]) -> Out: ...
def bounded(limit: int = Field(default=1, le=10)) -> Out: ...
def named(site_id: Annotated[str, at.MaxLen(3)]) -> Out: ...
def ratio(value: Annotated[float, at.Lt(1.0)]) -> Out: ...
def labels(labels: dict[str, Annotated[str, at.MaxLen(2)]]) -> Out: ...

# Constraints the tool keeps at least as strict: these bind.
def narrow_enough(site_id: Annotated[str, at.MaxLen(8)], limit: Annotated[int, at.Lt(6)]) -> Out: ...
def same_pattern(site_id: constr(pattern=r"^[a-z]+$")) -> Out: ...
def listed(site_id: Annotated[str, at.MaxLen(2)]) -> Out: ...
"""


def _constrained(target: str, args: str) -> str:
    result = 'Attribute("name", String, "Name")\nRequired("name")'
    return bound_tool_design("strict_app", target, args=args, result=result)


SITE_64_LIMIT_100 = """\
Attribute("site_id", String, "Site", max_length=64)
Attribute("limit", Int, "Limit", maximum=100, default=1)
Required("site_id")
"""


@pytest.mark.parametrize(
    ("target", "args", "fragments"),
    [
        pytest.param(
            "strict",
            SITE_64_LIMIT_100,
            [
                "tool 'lookup' payload.site_id accepts values that Strict (of strict_app:strict)",
                "field 'site_id' rejects: max_length=3 where the tool allows max_length=64",
                # Every field the method rejects is named at once.
                (
                    "payload.limit accepts values that Strict (of strict_app:strict) field 'limit' "
                    "rejects: le=5 where the tool allows maximum=100"
                ),
            ],
            id="string-length-and-bound",
        ),
        pytest.param(
            "strict",
            SITE_64_LIMIT_100.replace("max_length=64", "max_length=3"),
            ["payload.limit", "field 'limit' rejects: le=5 where the tool allows maximum=100"],
            id="upper-bound",
        ),
        pytest.param(
            "named",
            'Attribute("site_id", String, "Site")\nRequired("site_id")',
            ["field 'site_id' rejects: max_length=3 where the tool sets no max_length"],
            id="length-the-tool-leaves-open",
        ),
        pytest.param(
            "short",
            'Attribute("site_id", String, "Site", min_length=1)\nRequired("site_id")',
            ["min_length=2 where the tool allows min_length=1"],
            id="min-length",
        ),
        pytest.param(
            "patterned",
            'Attribute("site_id", String, "Site", pattern="^[a-z0-9]+$")\nRequired("site_id")',
            ["pattern='^[a-z]+$' where the tool allows pattern='^[a-z0-9]+$'"],
            id="pattern",
        ),
        pytest.param(
            "even",
            'Attribute("limit", Int, "Limit")\nRequired("limit")',
            ["multiple_of=2 where the tool promises no multiple"],
            id="multiple-of",
        ),
        pytest.param(
            "positive",
            'Attribute("limit", Int, "Limit", minimum=0)\nRequired("limit")',
            ["gt=0 where the tool allows minimum=0"],
            id="lower-bound",
        ),
        pytest.param(
            "bounded",
            'Attribute("limit", Int, "Limit", default=1)',
            ["le=10 where the tool sets no maximum"],
            id="validate-call-default",
        ),
        pytest.param(
            "ratio",
            'Attribute("value", Float, "Ratio", maximum=1.0)\nRequired("value")',
            ["lt=1.0 where the tool allows maximum=1.0"],
            id="exclusive-float-bound",
        ),
        pytest.param(
            "listed",
            'Attribute("site_id", String, "Site", enum=["hq", "nyc"])\nRequired("site_id")',
            ["the tool allows 'nyc', which fails max_length=2"],
            id="enum-value",
        ),
        pytest.param(
            "tags",
            'Attribute("tags", ArrayOf(String), "Tags", max_length=4)\nRequired("tags")',
            ["max_length=2 items where the tool sets no max_items"],
            id="item-count",
        ),
        pytest.param(
            "tags",
            'Attribute("tags", ArrayOf(String, max_items=2), "Tags", max_length=9)\nRequired("tags")',
            ["items: max_length=4 where the tool allows max_length=9"],
            id="item-length",
        ),
        pytest.param(
            "labels",
            'Attribute("labels", MapOf(String, String), "Labels")\nRequired("labels")',
            ["values: max_length=2 where the tool sets no max_length"],
            id="map-values",
        ),
        pytest.param(
            "deep",
            'Attribute("site_id", String, "Site")\nRequired("site_id")',
            ["Deep field 'site_id' is validated through an alias path", "names no single key"],
            id="alias-path",
        ),
    ],
)
def test_method_constraints_tighter_than_the_tool_are_design_errors(
    write_app: AppWriter, tmp_path: Path, target: str, args: str, fragments: list[str]
) -> None:
    write_app("strict_app", STRICT_APP)
    design = tmp_path / "design.py"
    design.write_text(_constrained(target, args))
    issue = bind_issue(design, fragments)
    assert issue.location is not None
    assert "# <-- bind" in design.read_text().splitlines()[issue.location.line - 1]


@pytest.mark.parametrize(
    ("target", "args"),
    [
        pytest.param(
            "narrow_enough",
            """\
            Attribute("site_id", String, "Site", max_length=8)
            Attribute("limit", Int, "Limit", maximum=5)
            Required("site_id", "limit")
            """,
            id="tool-at-least-as-strict",
        ),
        pytest.param(
            "same_pattern",
            'Attribute("site_id", String, "Site", pattern="^[a-z]+$")\nRequired("site_id")',
            id="same-pattern",
        ),
        pytest.param(
            "listed",
            'Attribute("site_id", String, "Site", enum=["hq", "ny"])\nRequired("site_id")',
            id="every-enum-value-fits",
        ),
        pytest.param(
            "strict",
            """\
            Attribute("site_id", String, "Site", min_length=1, max_length=3)
            Attribute("limit", Int, "Limit", exclusive_maximum=6, default=1)
            Required("site_id")
            """,
            id="exclusive-integer-bound",
        ),
    ],
)
def test_constraints_the_tool_keeps_bind(
    write_app: AppWriter, tmp_path: Path, target: str, args: str
) -> None:
    write_app("strict_app", STRICT_APP)
    design = tmp_path / "design.py"
    design.write_text(_constrained(target, args))
    evaluate([str(design)])


def test_a_constrained_call_the_tool_allows_reaches_the_method(
    write_app: AppWriter, gen_design: Callable[[str], Generated]
) -> None:
    app = write_app(
        "strict_run_app",
        """\
        from pydantic import BaseModel, Field


        class Strict(BaseModel):
            site_id: str = Field(max_length=3)
            limit: int = Field(default=1, le=5)


        class Checker:
            def __init__(self) -> None:
                self.seen: list[Strict] = []

            def strict(self, query: Strict) -> str:
                self.seen.append(query)
                return query.site_id * query.limit
        """,
    )
    generated = gen_design(
        """\
        from tooldesign.dsl import *
        from strict_run_app import Checker

        with Service("s", "A service"):
            with Toolset("t", "A toolset"):
                with Tool("strict", "Strict"):
                    with Args():
                        Attribute("site_id", String, "Site", max_length=3)
                        Attribute("limit", Int, "Limit", minimum=1, maximum=5, default=1)
                        Required("site_id")
                    Return(String, "Repeated")
                    BindTo(Checker.strict)
        """
    )
    service = app.Checker()
    executor = generated.module("s.toolsets.t.executor")
    runtime = Runtime([executor.new_registration(service=service)])
    ok = runtime.execute_sync(ToolRequest("strict", {"site_id": "ab", "limit": 5}))
    assert _model_view(ok) == "ababababab"
    # Beyond the method's limits is now beyond the tool's: a retry hint, not an internal error.
    refused = runtime.execute_sync(ToolRequest("strict", {"site_id": "abcd", "limit": 6}))
    assert refused.retry_hint is not None
    assert {issue.field for issue in refused.retry_hint.issues} == {"site_id", "limit"}
    assert len(service.seen) == 1


# ── Enums ────────────────────────────────────────────────────────────────────────────────────

ENUM_APP = """\
from __future__ import annotations

import dataclasses
from enum import Enum, IntEnum, StrEnum
from typing import Literal

from pydantic import BaseModel


class Tier(str, Enum):
    BASIC = "basic"
    GOLD = "gold"


class Level(IntEnum):
    LOW = 1
    HIGH = 2


class Colour(StrEnum):
    RED = "red"
    BLUE = "blue"


class Shape(Enum):
    ROUND = "round"
    SQUARE = "square"
    TRIANGLE = "triangle"


class Filter(BaseModel):
    tier: Tier
    levels: list[Level] = []
    kind: Literal[Shape.ROUND, Shape.SQUARE] | None = None
    fallback: Tier = Tier.BASIC


@dataclasses.dataclass
class Account:
    name: str
    tier: Tier
    level: Level
    colours: list[Colour]
    by_colour: dict[str, Colour]
    shape: Shape | None = None
    kind: Literal[Shape.ROUND] = Shape.ROUND


class Accounts:
    def __init__(self) -> None:
        self.calls: list[dict[str, object]] = []

    def find(
        self,
        team: str,
        tier: Tier = Tier.GOLD,
        level: Level | None = None,
        colours: list[Colour] | None = None,
        flt: Filter | None = None,
        only: Literal[Shape.SQUARE] = Shape.SQUARE,
    ) -> list[Account]:
        self.calls.append(
            {"tier": tier, "level": level, "colours": colours, "flt": flt, "only": only}
        )
        return [
            Account(
                name=team,
                tier=tier,
                level=level or Level.LOW,
                colours=colours or [Colour.RED],
                by_colour={"first": Colour.BLUE},
                shape=Shape.TRIANGLE if flt is None else None,
            )
        ]

    def tier_of(self, team: str) -> Tier:
        return Tier.BASIC if team == "basic" else Tier.GOLD
"""

ENUM_DESIGN = """\
from tooldesign.dsl import *
from enum_app import Accounts

with Type("Filter", "A filter") as Filter:
    Attribute("tier", String, "Tier", enum=["basic", "gold"])
    Attribute("levels", ArrayOf(Int), "Levels", enum=[1, 2], default=[])
    Attribute("kind", String, "Kind", enum=["round"])
    Attribute("fallback", String, "Fallback tier", enum=["gold"])
    Required("tier")

with Type("Account", "An account") as Account:
    Attribute("name", String, "Name")
    Attribute("tier", String, "Tier", enum=["basic", "gold", "platinum"])
    Attribute("level", Int, "Level", enum=[1, 2, 3])
    Attribute("colours", ArrayOf(String), "Colours", enum=["red", "blue"])
    Attribute("by_colour", MapOf(String, String), "Colours by role")
    Attribute("shape", String, "Shape")
    Attribute("kind", String, "Kind", enum=["round", "square"])
    Required("name", "tier", "level", "colours", "by_colour", "kind")

with Service("s", "A service"):
    with Toolset("accounts", "Accounts"):
        with Tool("find", "Find accounts"):
            with Args():
                Attribute("team", String, "Team")
                Attribute("tier", String, "Tier", enum=["gold"])
                Attribute("level", Int, "Level", enum=[2])
                Attribute("colours", ArrayOf(String), "Colours", enum=["blue", "red"])
                Attribute("flt", Filter, "Filter")
                Attribute("only", String, "Only", enum=["square"])
                Required("team")
            Return(ArrayOf(Account), "Accounts")
            BindTo(Accounts.find)
        with Tool("tier_of", "Tier of a team"):
            with Args():
                Attribute("team", String, "Team")
                Required("team")
            Return(String, "Tier")
            BindTo(Accounts.tier_of)
"""


@pytest.fixture
def enums(
    write_app: AppWriter, gen_design: Callable[[str], Generated]
) -> tuple[Generated, ModuleType]:
    app = write_app("enum_app", ENUM_APP)
    return gen_design(ENUM_DESIGN), app


def test_enums_bind_both_ways(enums: tuple[Generated, ModuleType]) -> None:
    generated, app = enums
    service = app.Accounts()
    executor = generated.module("s.toolsets.accounts.executor")
    runtime = Runtime([executor.new_registration(service=service)])

    def call(name: str, payload: dict[str, Any]) -> Any:
        result = runtime.execute_sync(ToolRequest(name, payload))
        assert result.ok, result.for_model()
        return _model_view(result)

    # Tool values become members: a str mixin, an IntEnum, a StrEnum in a list, a plain Enum
    # in a Literal of its members, in a nested model; the method's own default is kept.
    [account] = call(
        "find",
        {
            "team": "l2",
            "level": 2,
            "colours": ["blue", "red"],
            "flt": {"tier": "basic", "levels": [2, 1], "kind": "round"},
            "only": "square",
        },
    )
    seen = service.calls[-1]
    assert seen["tier"] is app.Tier.GOLD  # left out by the model: the method's default
    assert seen["level"] is app.Level.HIGH
    assert seen["colours"] == [app.Colour.BLUE, app.Colour.RED]
    assert all(type(c) is app.Colour for c in seen["colours"])
    assert seen["only"] is app.Shape.SQUARE
    flt = seen["flt"]
    assert (flt.tier, flt.levels, flt.kind) == (
        app.Tier.BASIC,
        [app.Level.HIGH, app.Level.LOW],
        app.Shape.ROUND,
    )
    assert type(flt.tier) is app.Tier and all(type(v) is app.Level for v in flt.levels)
    # Not given to an optional tool field, a model field without None takes its own default.
    assert flt.fallback is app.Tier.BASIC
    # Members go back as their values, in records, lists and maps.
    assert account == {
        "name": "l2",
        "tier": "gold",
        "level": 2,
        "colours": ["blue", "red"],
        "by_colour": {"first": "blue"},
        "kind": "round",
    }
    [sparse] = call("find", {"team": "l3", "tier": "gold"})
    assert (sparse["level"], sparse["colours"], sparse["shape"]) == (1, ["red"], "triangle")
    assert service.calls[-1]["tier"] is app.Tier.GOLD
    # An Enum result is the tool's root value.
    assert call("tier_of", {"team": "basic"}) == "basic"


def test_enum_values_outside_the_design_are_refused_before_the_method(
    enums: tuple[Generated, ModuleType],
) -> None:
    generated, app = enums
    service = app.Accounts()
    executor = generated.module("s.toolsets.accounts.executor")
    runtime = Runtime([executor.new_registration(service=service)])
    refused = runtime.execute_sync(ToolRequest("find", {"team": "l2", "tier": "basic"}))
    assert refused.retry_hint is not None
    assert [issue.field for issue in refused.retry_hint.issues] == ["tier"]
    assert service.calls == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("plugin", "init_typed"),
    [(True, False), (False, False), (True, True)],
    ids=["pydantic-plugin", "plain", "typed-init"],
)
def test_enum_transforms_pass_mypy_strict(
    enums: tuple[Generated, ModuleType], tmp_path: Path, plugin: bool, init_typed: bool
) -> None:
    generated, _ = enums
    run_mypy(generated, tmp_path, plugin=plugin, init_typed=init_typed)


ENUM_ERRORS_APP = """\
from __future__ import annotations

from enum import Enum, Flag, IntEnum, auto
from typing import Literal

from pydantic import BaseModel


class Tier(str, Enum):
    BASIC = "basic"
    GOLD = "gold"


class Level(IntEnum):
    LOW = 1
    HIGH = 2


class Perm(Flag):
    READ = auto()
    WRITE = auto()


class Odd(Enum):
    ONE = 1
    TWO = "two"


class Out(BaseModel):
    tier: Tier


def take_tier(tier: Tier) -> Out: ...
def take_level(tier: Level) -> Out: ...
def take_gold(tier: Literal[Tier.GOLD]) -> Out: ...
def take_perm(tier: Perm) -> Out: ...
def take_odd(tier: Odd) -> Out: ...
"""


@pytest.mark.parametrize(
    ("target", "enum", "result_enum", "fragments"),
    [
        pytest.param(
            "take_tier",
            '["basic", "gold", "platinum"]',
            '["basic", "gold"]',
            [
                "tool 'lookup' payload.tier is String, but enum_errors_app:take_tier expects Tier",
                "the tool also allows 'platinum', which Tier has no member for",
                "its values are 'basic', 'gold'",
            ],
            id="design-value-without-member",
        ),
        pytest.param(
            "take_tier",
            None,
            '["basic", "gold"]',
            ["payload.tier is String", "the tool allows any value, and Tier takes only"],
            id="any-string-into-an-enum",
        ),
        pytest.param(
            "take_tier",
            '["basic", "gold"]',
            '["platinum"]',
            [
                "tool 'lookup' result.tier is String, but enum_errors_app:take_tier gives Tier",
                "the tool allows none of Tier's values ('basic', 'gold'); its enum is 'platinum'",
            ],
            id="no-member-the-design-lists",
        ),
        pytest.param(
            "take_level",
            '["basic"]',
            '["basic", "gold"]',
            ["expects Level", "Level's values are 1, 2, not strings"],
            id="integer-enum-for-a-string",
        ),
        pytest.param(
            "take_gold",
            '["basic", "gold"]',
            '["basic", "gold"]',
            [
                "expects Literal[Tier.GOLD]",
                "the tool also allows 'basic', which Tier has no member for (the Literal takes 'gold')",
            ],
            id="literal-of-members",
        ),
        pytest.param(
            "take_perm",
            '["basic"]',
            '["basic", "gold"]',
            ["unsupported type Perm (a Flag combines members"],
            id="flag",
        ),
        pytest.param(
            "take_odd",
            '["basic"]',
            '["basic", "gold"]',
            ["unsupported type Odd (an Enum whose values are not all strings or all numbers"],
            id="mixed-values",
        ),
    ],
)
def test_enums_that_do_not_map_are_design_errors(
    write_app: AppWriter,
    tmp_path: Path,
    target: str,
    enum: str | None,
    result_enum: str,
    fragments: list[str],
) -> None:
    write_app("enum_errors_app", ENUM_ERRORS_APP)
    design = tmp_path / "design.py"
    tool_enum = "" if enum is None else f", enum={enum}"
    design.write_text(
        bound_tool_design(
            "enum_errors_app",
            target,
            args=f'Attribute("tier", String, "Tier"{tool_enum})\nRequired("tier")',
            result=f'Attribute("tier", String, "Tier", enum={result_enum})\nRequired("tier")',
        )
    )
    bind_issue(design, fragments)


LEGACY_TIERS = """\
from enum import Enum, IntEnum

from pydantic import BaseModel


class Tier(str, Enum):
    BASIC = "basic"
    GOLD = "gold"


class Priority(IntEnum):
    LOW = 1
    HIGH = 2


class Breach(BaseModel):
    ticket_id: str
    tier: Tier
    priority: Priority


def list_breaches(team: str, tier: Tier = Tier.GOLD, priority: Priority | None = None) -> list[Breach]:
    \"\"\"List SLA breaches for a team.\"\"\"
    return [Breach(ticket_id=f"{team}-1", tier=tier, priority=priority or Priority.LOW)]
"""


def test_an_imported_design_binds_to_the_enums_it_came_from(
    write_app: AppWriter, tmp_path: Path, gen_design: Callable[[str], Generated]
) -> None:
    from tooldesign.importers.python import import_python
    from tooldesign.importers.writer import render

    write_app("legacy_tiers", LEGACY_TIERS)
    imported = render(import_python(tmp_path / "legacy_tiers.py", all_functions=True).design)
    # As its author would: the imported design, bound to the function it describes.
    assert 'enum=["basic", "gold"], default="gold"' in imported
    design = imported + '            BindTo("legacy_tiers:list_breaches")\n'
    generated = gen_design("from tooldesign.dsl import BindTo\n" + design)
    # The service is named like the module it binds to: its package takes another name, so
    # it never shadows the module where the output folder is importable.
    executor = generated.module("legacy_tiers_.toolsets.legacy_tiers.executor")
    runtime = Runtime([executor.new_registration()])
    result = runtime.execute_sync(ToolRequest("list_breaches", {"team": "l2", "priority": 2}))
    assert _model_view(result) == [{"ticket_id": "l2-1", "tier": "gold", "priority": 2}]


# ── Results narrower than the method's types: checked when the call returns ──────────────────

NARROWING_APP = """\
from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Literal

from pydantic import BaseModel


class Tier(str, Enum):
    BASIC = "basic"
    GOLD = "gold"


@dataclasses.dataclass
class Row:
    \"\"\"A row as the database holds it: every field typed by its column.\"\"\"

    status: str
    ident: str
    score: int
    tier: Tier
    kind: str


class Report(BaseModel):
    \"\"\"Another team's model.\"\"\"

    row: Row
    statuses: list[str]
    mood: Literal["up", "down", "sideways"]


class Store:
    def __init__(self) -> None:
        self.next: Report | None = None

    def report(self, site: str) -> Report:
        assert self.next is not None
        return self.next
"""

NARROWING_DESIGN = """\
from tooldesign.dsl import *
from narrowing_app import Store

STATUSES = ["online", "offline"]

with Type("Row", "A row") as Row:
    Attribute("status", String, "Status", enum=STATUSES)
    Attribute("ident", String, "Id", format="uuid")
    Attribute("score", Int, "Score", minimum=0, maximum=100)
    Attribute("tier", String, "Tier", enum=["gold"])
    Attribute("kind", String, "Kind", max_length=5, pattern="^[a-z]+$")
    Required("status", "ident", "score", "tier", "kind")

with Service("s", "A service"):
    with Toolset("t", "A toolset"):
        with Tool("report", "Report on a site"):
            with Args():
                Attribute("site", String, "Site")
                Required("site")
            with Return():
                Attribute("row", Row, "The row")
                Attribute("statuses", ArrayOf(String, max_items=2), "Statuses", enum=STATUSES)
                Attribute("mood", String, "Mood", enum=["up", "down"])
                Required("row", "statuses", "mood")
            BindTo(Store.report)
"""

GOOD_ROW = {
    "status": "online",
    "ident": "0b0c7c2e-6a2e-4c7e-9d83-4a8f5f1f7a11",
    "score": 7,
    "tier": "GOLD",
    "kind": "abc",
}


@pytest.fixture
def narrowing(
    write_app: AppWriter, gen_design: Callable[[str], Generated]
) -> tuple[ModuleType, Generated]:
    app = write_app("narrowing_app", NARROWING_APP)
    return app, gen_design(NARROWING_DESIGN)


@pytest.mark.slow
def test_a_method_may_return_wider_types_than_the_tool_promises(
    narrowing: tuple[ModuleType, Generated], tmp_path: Path
) -> None:
    app, generated = narrowing
    # Generated as it is, and type-checked: the narrowing is left to the run-time check.
    transforms = (generated.out / "s" / "toolsets" / "t" / "transforms.py").read_text()
    assert "cast(Any, value.status)" in transforms
    assert "Success" in run_mypy(generated, tmp_path, plugin=False)
    store = app.Store()
    runtime = Runtime([generated.module("s.toolsets.t.executor").new_registration(service=store)])
    row = {**GOOD_ROW, "tier": app.Tier.GOLD}
    store.next = app.Report(row=app.Row(**row), statuses=["online"], mood="up")
    result = runtime.execute_sync(ToolRequest("report", {"site": "hq"}))
    assert result.ok, result.for_model()
    assert _model_view(result)["row"]["status"] == "online"
    assert _model_view(result)["row"]["tier"] == "gold"


@pytest.mark.parametrize(
    ("change", "field", "shown"),
    [
        ({"row": {"status": "rebooting"}}, "status", '"rebooting"'),
        ({"row": {"ident": "not-a-uuid"}}, "ident", '"not-a-uuid"'),
        ({"row": {"score": 101}}, "score", "101"),
        ({"row": {"tier": "BASIC"}}, "tier", '"basic"'),
        ({"row": {"kind": "abcdefg"}}, "kind", "(got 7)"),
        ({"row": {"kind": "ABC"}}, "kind", '"ABC"'),
        ({"statuses": ["online", "offline", "online"]}, "statuses", "(got 3)"),
        ({"statuses": ["lost"]}, "statuses", '"lost"'),
        ({"mood": "sideways"}, "mood", '"sideways"'),
    ],
)
def test_a_result_outside_the_tools_contract_is_the_methods_bug(
    narrowing: tuple[ModuleType, Generated],
    caplog: pytest.LogCaptureFixture,
    change: dict[str, Any],
    field: str,
    shown: str,
) -> None:
    app, generated = narrowing
    store = app.Store()
    runtime = Runtime([generated.module("s.toolsets.t.executor").new_registration(service=store)])
    row = {**GOOD_ROW, "tier": app.Tier.GOLD, **change.get("row", {})}
    if row["tier"] == "BASIC":
        row["tier"] = app.Tier.BASIC
    statuses = change.get("statuses", ["online"])
    store.next = app.Report(row=app.Row(**row), statuses=statuses, mood=change.get("mood", "up"))
    result = runtime.execute_sync(ToolRequest("report", {"site": "hq"}))
    hint = result.retry_hint
    assert hint is not None and hint.reason == "malformed_response"
    # The model is told the tool failed, nothing of its values.
    assert shown not in result.for_model() and shown not in json.dumps(hint.to_dict())
    # The application reads which field, the value (cut short) and the bound method.
    assert result.error is not None
    details = result.error.details
    assert "narrowing_app:Store.report" in details["problem"]
    assert any(field in issue and shown in issue for issue in details["issues"]), details
    [record] = [r for r in caplog.records if "malformed response" in r.getMessage()]
    assert "narrowing_app:Store.report" in record.getMessage() and shown in record.getMessage()


@pytest.mark.parametrize(
    ("returned", "fragments"),
    [
        ("float", ["result.value is Int", "gives float"]),
        ('Literal["x", "y"]', ["result.value is String", "the tool allows none of ['x', 'y']"]),
    ],
)
def test_what_can_never_work_stays_a_design_error(
    write_app: AppWriter, tmp_path: Path, returned: str, fragments: list[str]
) -> None:
    write_app(
        "never_app",
        f"""\
        import dataclasses
        from typing import Literal

        @dataclasses.dataclass
        class Out:
            value: {returned}

        def lookup(site: str) -> Out: ...
        """,
    )
    value = (
        'Attribute("value", Int, "Value")'
        if returned == "float"
        else 'Attribute("value", String, "Value", enum=["a", "b"])'
    )
    design = tmp_path / "design.py"
    design.write_text(
        bound_tool_design(
            "never_app",
            "lookup",
            args='Attribute("site", String, "Site")\nRequired("site")',
            result=f'{value}\nRequired("value")',
        )
    )
    issue = bind_issue(design, fragments)
    assert "result" in issue.message


def test_the_payload_direction_still_refuses_a_method_that_accepts_less(
    write_app: AppWriter, tmp_path: Path
) -> None:
    write_app(
        "payload_app",
        """\
        from typing import Literal, TypedDict

        class Out(TypedDict):
            value: str

        def lookup(status: Literal["online"]) -> Out: ...
        """,
    )
    design = tmp_path / "design.py"
    design.write_text(
        bound_tool_design(
            "payload_app",
            "lookup",
            args='Attribute("status", String, "S", enum=["online", "offline"])\nRequired("status")',
            result='Attribute("value", String, "Value")\nRequired("value")',
        )
    )
    bind_issue(design, ["payload.status is String", "the tool also allows ['offline']"])
