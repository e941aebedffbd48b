"""The tool index: tools that list and search the registered tools.

``tool_index`` lists them with their schemas, for agents that discover tools in code;
``search_tools`` ranks them for a query, the model's search over a deferred catalog where the
provider has no hosted tool search.

Generated into ``tooldesign/builtin/gen`` with
``tooldesign gen tooldesign/builtin/design --out tooldesign/builtin/gen``; the handler is
``tooldesign.builtin.tool_index``.
"""

from tooldesign.dsl import (
    Annotations,
    Any,
    Args,
    ArrayOf,
    Attribute,
    Example,
    Int,
    MapOf,
    Object,
    Required,
    Return,
    Service,
    String,
    Tags,
    Tool,
    Toolset,
)

# One service: the tool index, and reading back results that spilled past their budget.
with Service("builtin", "Toolsets that ship with tooldesign"):
    with Toolset("tool_index", "Discover the tools this agent can call"):
        Tags("discovery")
        with Tool(
            "tool_index",
            "List the tools you can call, with the JSON Schemas of their arguments and results. "
            "Filter by toolset or tag to keep the list short.",
            title="Tool index",
        ):
            with Args():
                Attribute(
                    "toolset", String, "Only tools of this toolset (its name, or service.toolset)"
                )
                Attribute("tag", String, "Only tools with this tag")
                Example({"toolset": "devices"})
            with Return():
                with Attribute(
                    "tools", ArrayOf(Object), "The matching tools, in registration order"
                ):
                    Attribute("name", String, "The name to call the tool by")
                    Attribute("description", String, "What the tool does")
                    with Attribute("schema", Object, "The tool's JSON Schemas"):
                        Attribute("input", MapOf(String, Any), "JSON Schema of the arguments")
                        Attribute("output", MapOf(String, Any), "JSON Schema of the result")
                        Required("input", "output")
                    Required("name", "description", "schema")
                Attribute("count", Int, "How many tools are listed", minimum=0)
                Required("tools", "count")
            Annotations(read_only=True, destructive=False, idempotent=True, open_world=False)
        with Tool(
            "search_tools",
            "Find tools that are not loaded yet by what you want to do. Describe the task in a few "
            "words; the best matches come first. Once found, a tool can be called by its name.",
            title="Search tools",
        ):
            with Args():
                Attribute(
                    "query",
                    String,
                    "What you want to do, in a few words",
                    min_length=1,
                    max_length=500,
                )
                Attribute(
                    "limit",
                    Int,
                    "How many tools to return at most",
                    default=5,
                    minimum=1,
                    maximum=20,
                )
                Attribute(
                    "toolset", String, "Only tools of this toolset (its name, or service.toolset)"
                )
                Required("query")
                Example({"query": "restart a device"})
            with Return():
                with Attribute("tools", ArrayOf(Object), "The tools found, best match first"):
                    Attribute("name", String, "The name to call the tool by")
                    Attribute("description", String, "What the tool does")
                    Required("name", "description")
                Attribute("returned", Int, "How many tools are listed", minimum=0)
                Attribute("total", Int, "How many tools matched the query", minimum=0)
                Required("tools", "returned", "total")
            Annotations(read_only=True, destructive=False, idempotent=True, open_world=False)

    # Reading back a result that spilled past its budget (Limits(result_overflow="spill")):
    # the handler is tooldesign.builtin.results.
    with Toolset("results", "Read large results back in pieces"):
        Tags("results")
        with Tool(
            "read_result",
            "Read more of a result that was too large to show at once. Give the handle its preview "
            "ended with, the path of a list or text in it, and where to start; the answer says "
            "where the next piece starts.",
            title="Read result",
        ):
            with Args():
                Attribute(
                    "handle",
                    String,
                    "The handle the preview gave",
                    pattern="^res_[A-Za-z0-9_-]{1,64}$",
                )
                Attribute(
                    "path",
                    String,
                    "Where in the result, as field names joined by dots (list items by number: "
                    "items.3.name); empty for the whole result",
                    default="",
                    max_length=500,
                )
                Attribute(
                    "offset", Int, "The first item (or character) to read", default=0, minimum=0
                )
                Attribute(
                    "limit",
                    Int,
                    "How many items (or characters) to read at most",
                    default=50,
                    minimum=1,
                    maximum=100000,
                )
                Required("handle")
                Example({"handle": "res_3fQ9x2LmVb7k", "path": "rows", "offset": 20})
            with Return():
                Attribute("value", Any, "The items (or the text) read, or the value at the path")
                Attribute("path", String, "The path read")
                Attribute("offset", Int, "Where this piece starts", minimum=0)
                Attribute("returned", Int, "How many items (or characters) were read", minimum=0)
                Attribute("total", Int, "How many items (or characters) there are", minimum=0)
                Attribute(
                    "next_offset", Int, "Where the next piece starts; absent at the end", minimum=0
                )
                Required("value", "path", "offset", "returned", "total")
            Annotations(read_only=True, destructive=False, idempotent=True, open_world=False)
