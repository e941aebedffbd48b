"""Names in generated code: every name a generated module keeps for itself is reserved, and a
design may use any of them for its own types and fields."""

from __future__ import annotations

import ast
import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from tooldesign.codegen.views import ToolsetView, toolset_views
from tooldesign.contract.naming import (
    ANNOTATION_NAMES,
    CODECS_MODULE_NAMES,
    EXECUTOR_MODULE_NAMES,
    SPECS_MODULE_NAMES,
    TRANSFORMS_MODULE_NAMES,
    TYPES_MODULE_NAMES,
    package_dir,
    pascal_case,
    python_identifier,
)
from tooldesign.eval.evaluate import evaluate
from tooldesign.runtime import Runtime, ToolCallMeta, ToolRequest

from tests.support.generated import Generated, lint

RESERVED = {
    "types.py": TYPES_MODULE_NAMES,
    "specs.py": SPECS_MODULE_NAMES,
    "codecs.py": CODECS_MODULE_NAMES,
    "executor.py": EXECUTOR_MODULE_NAMES,
    "transforms.py": TRANSFORMS_MODULE_NAMES,
}

# Application code a tool binds to: its parameter types make transforms.py import what it can.
APP = """\
from __future__ import annotations

import dataclasses
import datetime
import ipaddress
import uuid
from typing import Any, Literal


@dataclasses.dataclass
class Found:
    names: list[str]


class Finder:
    def find(
        self,
        when: datetime.datetime,
        uid: uuid.UUID,
        ip: ipaddress.IPv4Address,
        extra: Any,
        mode: Literal["a", "b"],
        limit: int = 3,
    ) -> Found:
        return Found([str(uid)])
"""

# Every feature that brings an import into a generated module: each format, typed defaults, a
# bounded result, a message that is not an object, a constrained list item (a type alias),
# unions, recursion, a tool bound to a method beside a handler tool, an MCPToolset.
EVERY_FEATURE = """\
from tooldesign.dsl import *
import naming_app

with Type("Node", "A node") as Node:
    Attribute("name", String, "Name", min_length=1, pattern="^[a-z]+$")
    Attribute("children", ArrayOf("Node"), "Children")
    Attribute("meta", MapOf(String, Any), "Anything")
    Attribute("score", Float, "Score", minimum=0)
    Attribute("count", Int, "Count", default=3)
    Attribute("flag", Boolean, "Flag")
    Attribute("when", String, "When", format="date-time")
    Attribute("day", String, "Day", format="date", default="2026-01-31")
    Attribute("at", String, "At", format="time")
    Attribute("span", String, "Span", format="duration", default="PT1H")
    Attribute("mail", String, "Mail", format="email")
    Attribute("link", String, "Link", format="uri", default="https://example.com/")
    Attribute("uid", String, "Uid", format="uuid", default="12345678-1234-5678-1234-567812345678")
    Attribute("v4", String, "V4", format="ipv4", default="10.0.0.1")
    Attribute("v6", String, "V6", format="ipv6")
    Attribute("host", String, "Host", format="hostname")
    Attribute("kind", String, "Kind", enum=["a", "b"])
    Attribute("level", Int, "Level", enum=[1, 2])
    Attribute("ratio", Float, "Ratio", enum=[0.5, 1.5])
    Attribute("tags", ArrayOf(String), "Tags", max_length=5, min_items=1)
    Attribute("raw", Any(schema={"type": "integer"}), "Raw")
    Attribute("either", OneOf(String, Int), "Either")
    Required("name")

with Type("Cat") as Cat:
    Attribute("kind", String, enum=["cat"])
    Required("kind")

with Type("Dog") as Dog:
    Attribute("kind", String, enum=["dog"])
    Attribute("litter", ArrayOf(OneOf(Cat, "Dog", discriminator="kind")))
    Required("kind")

with Service("svc", "A service"):
    with Toolset("ts", "A toolset"):
        with Tool("echo", "Echo a node"):
            Args(Node)
            with Return():
                Attribute("items", ArrayOf(Node), "Items")
                Attribute("pet", OneOf(Cat, Dog, discriminator="kind"), "Pet")
                Attribute("next", String)
            BoundedResult(cursor="cursor", next_cursor="next")
        with Tool("text", "Some text"):
            with Args():
                Attribute("session", String)
                Required("session")
            Inject("session")
            Return(String, "The text")
            ServerData("full", ArrayOf(String, max_items=3), "All of it", default="off")
        with Tool("find", "Find things"):
            with Args():
                Attribute("when", String, format="date-time")
                Attribute("uid", String, format="uuid")
                Attribute("ip", String, format="ipv4")
                Attribute("extra", Any)
                Attribute("mode", String, enum=["a", "b"])
                Attribute("limit", Int)
                Required("when", "uid", "ip", "extra", "mode")
            with Return():
                Attribute("names", ArrayOf(String))
                Required("names")
            BindTo(naming_app.Finder.find)
    with MCPToolset("remote", "Tools on a server", server="https://example.com/mcp"):
        with Tool("ping", "Ping"):
            Return(String)
"""


def _imported(tree: ast.Module, first_party: frozenset[str]) -> set[str]:
    """The names a module's imports bind, but the application's modules (aliased per module)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] not in first_party:
                    names.add(alias.asname or alias.name.split(".")[0])
    return names


def _defined(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def _named_per_tool(view: ToolsetView) -> set[str]:
    """The module-level names a toolset's tools get (each from the module's name scope)."""
    names: set[str] = set()
    for tool in view.tools:
        names |= {tool.id_const, tool.spec_const, tool.payload_codec, tool.result_codec}
        names |= {tool.decode_fn, tool.encode_fn, tool.protocol}
        if tool.bound is not None:
            names.add(tool.bound.factory)
    if view.transforms is not None:
        names |= {fn.name for fn in view.transforms.functions}
        names |= {td.name for td in view.transforms.typed_dicts}
    return names


def test_every_name_a_generated_module_imports_or_defines_itself_is_reserved(
    tmp_path: Path, gen_design: Callable[[str], Generated]
) -> None:
    (tmp_path / "naming_app.py").write_text(APP)
    sys.path.insert(0, str(tmp_path))
    try:
        generated = gen_design(EVERY_FEATURE)
        design = evaluate([str(next(tmp_path.glob("design_*.py")))])
        views = [view for _, view in toolset_views(design)]
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("naming_app", None)
    seen: dict[str, set[str]] = {}
    for view in views:
        package = generated.out / package_dir(view.service_ident, view.ident)
        for module, reserved in RESERVED.items():
            path = package / module
            if not path.exists():
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            imported = _imported(tree, view.first_party)
            seen.setdefault(module, set()).update(imported)
            assert imported <= reserved, f"{path.name} imports unreserved {imported - reserved}"
            if module != "types.py":  # its classes are the design's
                fixed = _defined(tree) - _named_per_tool(view)
                assert fixed <= reserved, f"{path.name} defines unreserved {fixed - reserved}"
    # The design brings in what each module can import, so the check above covers it.
    assert {"StrictStr", "TypeAliasType", "RootModel", "BoundedResultModel", "Union"} <= seen[
        "types.py"
    ]
    assert {"Rfc3339DateTime", "Rfc3339Date", "Rfc4122Uuid", "Rfc3986Uri", "JsonAny"} <= seen[
        "types.py"
    ]
    assert {"Rfc3339Duration", "Rfc2673Ipv4Address", "_uuid", "_ipaddress"} <= seen["types.py"]
    assert {"overload", "Required", "cast", "tr"} <= seen["executor.py"]
    assert {"datetime", "uuid", "ipaddress", "Any", "Literal", "NotRequired"} <= seen[
        "transforms.py"
    ]


# ── a design may take any of those names ───────────────────────────────────────────────────

TAKEN = sorted(
    TYPES_MODULE_NAMES
    | SPECS_MODULE_NAMES
    | CODECS_MODULE_NAMES
    | EXECUTOR_MODULE_NAMES
    | TRANSFORMS_MODULE_NAMES
    | ANNOTATION_NAMES
    | {"annotations", "_datetime"}
)


def _distinct(names: list[str], key: Callable[[str], str | None]) -> list[str]:
    """The names that stay distinct once sanitised (a design may not declare two that collide)."""
    out: dict[str | None, str] = {}
    for name in names:
        out.setdefault(key(name), name)
    return [name for k, name in out.items() if k is not None]


TYPE_NAMES = _distinct(TAKEN, pascal_case)
FIELD_NAMES = _distinct(TAKEN, python_identifier)

NAMES_DESIGN = f"""\
from tooldesign.dsl import *

TYPE_NAMES = {TYPE_NAMES!r}
FIELD_NAMES = {FIELD_NAMES!r}

for name in TYPE_NAMES:
    with Type(name, "A type named like something generated code imports"):
        Attribute(name, String, "A field named like its type")
        Attribute("count", Int)
        Attribute("ratio", Float)
        Attribute("flag", Boolean)
        Attribute("day", String, format="date", default="2026-01-31")
        Attribute("codes", ArrayOf(String), max_length=3)
        Required(name)

with Type("Fields", "A field named after each"):
    for name in FIELD_NAMES:
        Attribute(name, String, "A field named like something generated code imports")

with Service("svc", "A service"):
    with Toolset("ts", "A toolset"):
        with Tool("echo", "Echo every type"):
            with Args():
                for i, name in enumerate(TYPE_NAMES):
                    Attribute(f"v{{i}}", name)
                Attribute("fields", "Fields")
            with Return():
                Attribute("items", ArrayOf("Fields"))
                Attribute("note", String)
            BoundedResult()
        with Tool("text", "Some text"):
            Return(String, "The text")
"""


@pytest.fixture(scope="module")
def named_like_imports(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    """The design generated once for the tests below, importable as ``tdnames``."""
    from tooldesign.generate import generate

    root = tmp_path_factory.mktemp("names")
    design = root / "design.py"
    design.write_text(NAMES_DESIGN, encoding="utf-8")
    report = generate([str(design)], root / "tdnames")
    sys.path.insert(0, str(root))
    yield Generated(root, "tdnames", report)
    sys.path.remove(str(root))
    for name in [m for m in sys.modules if m.startswith("tdnames")]:
        del sys.modules[name]


@pytest.mark.slow
def test_types_and_fields_named_like_imports_pass_ruff_and_mypy_strict(
    named_like_imports: Generated,
) -> None:
    generated = named_like_imports
    ruff, mypy = lint(generated)
    assert ruff.returncode == 0, ruff.stdout
    assert mypy.returncode == 0, mypy.stdout


def test_types_and_fields_named_like_imports_decode_and_run(
    named_like_imports: Generated,
) -> None:
    types = named_like_imports.module("svc.toolsets.ts.types")
    executor = named_like_imports.module("svc.toolsets.ts.executor")
    payload = {
        **{
            f"v{i}": {name: f"value {i}", "count": i, "ratio": 0.5}
            for i, name in enumerate(TYPE_NAMES)
        },
        "fields": {name: name for name in FIELD_NAMES},
    }
    seen: list[object] = []

    def echo(args: object, meta: ToolCallMeta) -> object:
        seen.append(args)
        return types.EchoResult(items=[args.fields], returned=1, truncated=False)

    runtime = Runtime(
        [
            executor.new_registration(
                handlers={"echo": echo, "text": lambda a, m: types.TextResult("t")}
            )
        ]
    )
    result = runtime.execute_sync(ToolRequest("echo", json.dumps(payload)))
    assert result.ok, result.error
    [args] = seen
    for i, name in enumerate(TYPE_NAMES):
        value = getattr(args, f"v{i}")
        # A class keeps the design's name unless an import has it (then it is numbered).
        assert type(value).__name__.rstrip("0123456789") == pascal_case(name)
        assert value.model_dump(by_alias=True, exclude_none=True)[name] == f"value {i}"
        assert str(value.day) == "2026-01-31"
    assert json.loads(result.result_json or "")["items"] == [payload["fields"]]
    text = runtime.execute_sync(ToolRequest("text", "{}"))
    assert text.ok and text.result.root == "t"
