"""A tool run by a handler, whose result is bounded and pages with a cursor."""

# ruff: noqa: SIM117 - a block per level of the design, as designs are written
from tooldesign.dsl import (
    Args,
    ArrayOf,
    Attribute,
    BoundedResult,
    Required,
    Return,
    Service,
    String,
    Tool,
    Toolset,
)

with Service("search", "Search documents"):
    with Toolset("docs", "Documents"):
        with Tool("find_docs", "Find documents that mention a phrase"):
            with Args():
                Attribute("phrase", String, "What to look for", min_length=1)
                Required("phrase")
            with Return():
                Attribute("titles", ArrayOf(String), "Titles of matching documents")
                Required("titles")
            BoundedResult(cursor="cursor", next_cursor="next_cursor")
