"""The tools the MCP conformance suite calls by name, served beside the worked example's
toolsets by ``app.py`` (generated when the conformance test runs; docs/mcp.md, "Conformance")."""

from tooldesign.dsl import (
    Annotations,
    Args,
    Attribute,
    BindTo,
    Content,
    Return,
    Service,
    String,
    Tool,
    Toolset,
    Type,
)

from tests.runtime.mcp.conformance.tools import (
    audio_content,
    embedded_resource,
    error_handling,
    image_content,
    json_schema_tool,
    multiple_content_types,
    simple_text,
    trigger_prompt_change,
    with_logging,
    with_progress,
)

# The json-schema-2020-12 scenario's input schema, as far as a design says it: a type named
# "address" kept under that name in $defs, a closed object, the dialect stated.
with Type("address", "A postal address") as Address:
    Attribute("street", String)
    Attribute("city", String)

with (
    Service("conformance", "The MCP conformance suite's scenario tools"),
    Toolset("scenarios", "Tools the conformance suite calls by name"),
):
    with Tool("test_simple_text", "Answer a fixed text"):
        Return(String, "The text")
        Annotations(read_only=True)
        BindTo(simple_text)
    with Tool("test_error_handling", "Always fail with a tool error"):
        Return(String, "Never returned")
        Annotations(read_only=True)
        BindTo(error_handling)
    with Tool("test_tool_with_progress", "Report progress at 0, 50 and 100 of 100"):
        Return(String, "What was reported")
        Annotations(read_only=True)
        BindTo(with_progress)
    with Tool("test_tool_with_logging", "Log three messages while running"):
        Return(String, "What was logged")
        Annotations(read_only=True)
        BindTo(with_logging)
    with Tool("test_logging_tool", "Log three messages while running"):
        Return(String, "What was logged")
        Annotations(read_only=True)
        BindTo(with_logging)
    with Tool("test_image_content", "Answer with an image"):
        Return(String, "What the image shows")
        Content("image")
        Annotations(read_only=True)
        BindTo(image_content)
    with Tool("test_audio_content", "Answer with a recording"):
        Return(String, "What the recording holds")
        Content("audio")
        Annotations(read_only=True)
        BindTo(audio_content)
    with Tool("test_embedded_resource", "Answer with an embedded resource"):
        Return(String, "What the resource is")
        Content("resource")
        Annotations(read_only=True)
        BindTo(embedded_resource)
    with Tool("test_multiple_content_types", "Answer with a text, an image and a resource"):
        Return(String, "The text")
        Content("image", "resource")
        Annotations(read_only=True)
        BindTo(multiple_content_types)
    with Tool("test_trigger_prompt_change", "Change the prompt list (served prompts)"):
        Return(String, "What changed")
        BindTo(trigger_prompt_change)
    with Tool("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features"):
        with Args():
            Attribute("name", String)
            Attribute("address", Address)
            Attribute("contactMethod", String, enum=["phone", "email"])
            Attribute("phone", String)
            Attribute("email", String)
        Return(String, "What was received")
        Annotations(read_only=True)
        BindTo(json_schema_tool)
