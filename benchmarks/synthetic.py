"""A synthetic design for benchmarks: many toolsets of similar tools sharing one type.

Two spellings of the same design: a compact one that builds its tools in loops, and an
unrolled one that writes every tool out in one module, as ``tooldesign import`` writes designs
and as large hand-written designs are. Design evaluation must be linear in the unrolled one.
"""

from __future__ import annotations

from pathlib import Path

DESIGN = '''
"""Synthetic design: {toolsets} toolsets x {tools} tools."""

from tooldesign.dsl import (
    ArrayOf, Args, Attribute, Boolean, BoundedResult, Example, Int, Object, Required, Return,
    Service, String, Tags, Tool, Toolset, Type,
)

DESCRIPTIONS = {descriptions!r}
QUERY_LIMITS = {query_limits!r}

with Type("Resource", "A resource shared by every tool") as Resource:
    Attribute("id", String, "Resource id", pattern=r"^res-[0-9]+$")
    Attribute("name", String, "Display name", max_length=80)
    Attribute("kind", String, "Kind of resource", enum=["disk", "host", "link", "service"])
    Attribute("tags", ArrayOf(String), "Tags")
    Required("id", "name", "kind")

with Service("synthetic", "A large synthetic service"):
    for t in range({toolsets}):
        with Toolset(f"toolset_{{t:02d}}", f"Toolset number {{t}}"):
            Tags("synthetic")
            for n in range({tools}):
                name = f"tool_{{t:02d}}_{{n:02d}}"
                with Tool(name, DESCRIPTIONS.get(name, f"Do operation {{n}} of toolset {{t}}")):
                    with Args():
                        Attribute("query", String, "What to look for", min_length=1, max_length=QUERY_LIMITS.get(name, 200))
                        Attribute("mode", String, "How to match", enum=["exact", "prefix", "fuzzy"])
                        Attribute("limit", Int, "Maximum results", default=20, minimum=1, maximum=100)
                        with Attribute("filter", Object, "Extra filter"):
                            Attribute("field", String, "Field to filter on")
                            Attribute("op", String, "Comparison", enum=["eq", "ne", "lt", "gt"])
                            Attribute("value", String, "Value to compare with")
                            Required("field", "op")
                        Attribute("resources", ArrayOf(Resource), "Resources to start from")
                        Attribute("include_archived", Boolean, "Also search archived resources")
                        Required("query")
                        Example({{"query": "disk", "mode": "prefix"}})
                    with Return():
                        Attribute("results", ArrayOf(Resource), "Matching resources")
                        Attribute("count", Int, "How many matched")
                        Required("results")
                    if n % 5 == 0:
                        BoundedResult()
'''


UNROLLED_HEAD = '''
"""Synthetic design, every tool written out: {toolsets} toolsets x {tools} tools."""

from tooldesign.dsl import (
    ArrayOf, Args, Attribute, Boolean, BoundedResult, Example, Int, Object, Required, Return,
    Service, String, Tags, Tool, Toolset, Type,
)

with Type("Resource", "A resource shared by every tool") as Resource:
    Attribute("id", String, "Resource id", pattern=r"^res-[0-9]+$")
    Attribute("name", String, "Display name", max_length=80)
    Attribute("kind", String, "Kind of resource", enum=["disk", "host", "link", "service"])
    Attribute("tags", ArrayOf(String), "Tags")
    Required("id", "name", "kind")

with Service("synthetic", "A large synthetic service"):
'''

UNROLLED_TOOLSET = """    with Toolset({name!r}, {description!r}):
        Tags("synthetic")
"""

UNROLLED_TOOL = """        with Tool({name!r}, {description!r}):
            with Args():
                Attribute("query", String, "What to look for", min_length=1, max_length={query_limit})
                Attribute("mode", String, "How to match", enum=["exact", "prefix", "fuzzy"])
                Attribute("limit", Int, "Maximum results", default=20, minimum=1, maximum=100)
                with Attribute("filter", Object, "Extra filter"):
                    Attribute("field", String, "Field to filter on")
                    Attribute("op", String, "Comparison", enum=["eq", "ne", "lt", "gt"])
                    Attribute("value", String, "Value to compare with")
                    Required("field", "op")
                Attribute("resources", ArrayOf(Resource), "Resources to start from")
                Attribute("include_archived", Boolean, "Also search archived resources")
                Required("query")
                Example({{"query": "disk", "mode": "prefix"}})
            with Return():
                Attribute("results", ArrayOf(Resource), "Matching resources")
                Attribute("count", Int, "How many matched")
                Required("results")
"""


def write_design(
    folder: Path,
    *,
    toolsets: int = 50,
    tools: int = 20,
    descriptions: dict[str, str] | None = None,
    query_limits: dict[str, int] | None = None,
    unrolled: bool = False,
) -> Path:
    """Write the design; ``descriptions`` and ``query_limits`` change single tools (by name).

    ``unrolled`` writes every tool out (the same design, spelled as one long module).
    """
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "synthetic_design.py"
    descriptions = descriptions or {}
    query_limits = query_limits or {}
    if unrolled:
        text = _unrolled(toolsets, tools, descriptions, query_limits)
    else:
        text = DESIGN.format(
            toolsets=toolsets,
            tools=tools,
            descriptions=descriptions,
            query_limits=query_limits,
        )
    path.write_text(text, encoding="utf-8")
    return path


def _unrolled(
    toolsets: int, tools: int, descriptions: dict[str, str], query_limits: dict[str, int]
) -> str:
    parts = [UNROLLED_HEAD.format(toolsets=toolsets, tools=tools)]
    for t in range(toolsets):
        parts.append(
            UNROLLED_TOOLSET.format(name=f"toolset_{t:02d}", description=f"Toolset number {t}")
        )
        for n in range(tools):
            name = f"tool_{t:02d}_{n:02d}"
            parts.append(
                UNROLLED_TOOL.format(
                    name=name,
                    description=descriptions.get(name, f"Do operation {n} of toolset {t}"),
                    query_limit=query_limits.get(name, 200),
                )
            )
            if n % 5 == 0:
                parts.append("            BoundedResult()\n")
    return "".join(parts)
