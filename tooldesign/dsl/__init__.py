"""The tooldesign DSL: describe services, toolsets and tools in ordinary Python.

    with Service("assistant", "Network operations assistant"):
        with Toolset("devices", "Inspect the devices of a site"):
            with Tool("list_devices", "List devices on a site"):
                with Args():
                    Attribute("site_id", String, "Site identifier")
                    Required("site_id")
                with Return():
                    Attribute("devices", ArrayOf(Device), "Matching devices")

Blocks are context managers; every other call records into the block around it.
"""

from tooldesign.dsl.behaviour import (
    Annotations,
    Asks,
    CodeAccess,
    Confirm,
    Content,
    ImplementedByAgent,
    Limits,
    Loading,
    LongRunning,
    Repairs,
    Scopes,
)
from tooldesign.dsl.calls import (
    Args,
    ArrayOf,
    Attribute,
    BindTo,
    BoundedResult,
    Example,
    Inject,
    MapOf,
    MCPServer,
    MCPToolset,
    OneOf,
    Required,
    Return,
    ServerData,
    Service,
    Tags,
    Targets,
    Tool,
    Toolset,
    Type,
)
from tooldesign.dsl.content import Completes, Prompt, Resource, ResourceTemplate
from tooldesign.dsl.rules import AtLeastOne, ExactlyOne, When
from tooldesign.dsl.types import Any, Boolean, Float, Int, Object, String

__all__ = [
    "Annotations",
    "Any",
    "Args",
    "ArrayOf",
    "Asks",
    "AtLeastOne",
    "Attribute",
    "BindTo",
    "Boolean",
    "BoundedResult",
    "CodeAccess",
    "Completes",
    "Confirm",
    "Content",
    "ExactlyOne",
    "Example",
    "Float",
    "ImplementedByAgent",
    "Inject",
    "Int",
    "Limits",
    "Loading",
    "LongRunning",
    "MCPServer",
    "MCPToolset",
    "MapOf",
    "Object",
    "OneOf",
    "Prompt",
    "Repairs",
    "Required",
    "Resource",
    "ResourceTemplate",
    "Return",
    "Scopes",
    "ServerData",
    "Service",
    "String",
    "Tags",
    "Targets",
    "Tool",
    "Toolset",
    "Type",
    "When",
]
