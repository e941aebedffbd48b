"""The tools the MCP conformance suite calls by name, served beside the worked example's
toolsets by ``app.py`` (generated when the conformance test runs; docs/mcp.md, "Conformance")."""

from collections.abc import Callable
from typing import Any

from tooldesign.contract.asks import Whom
from tooldesign.dsl import (
    Annotations,
    Args,
    Asks,
    AtLeastOne,
    Attribute,
    BindTo,
    Content,
    Int,
    LongRunning,
    Prompt,
    Required,
    Return,
    Service,
    String,
    Tool,
    Toolset,
    Type,
    When,
)

from tests.runtime.mcp.conformance import tools
from tests.runtime.mcp.conformance.tools import (
    audio_content,
    embedded_resource,
    error_handling,
    image_content,
    json_schema_tool,
    multiple_content_types,
    prompt_that_asks,
    routed,
    simple_text,
    trigger_prompt_change,
    with_logging,
    with_progress,
)

# Tools that ask for input mid-call: (name, description, handler, the one string argument,
# whom they ask).
ASKING: tuple[tuple[str, str, Callable[..., Any], str | None, tuple[Whom, ...]], ...] = (
    # Asks the model, its design saying it asks the user only (not a conformance fixture).
    (
        "undeclared_ask",
        "Ask what the design does not say",
        tools.missing_capability,
        None,
        ("user",),
    ),
    (
        "test_elicitation",
        "Ask the user for a name and email",
        tools.elicitation,
        "message",
        ("user",),
    ),
    ("test_sampling", "Ask the host's model", tools.sampling, "prompt", ("model",)),
    (
        "test_elicitation_sep1034_defaults",
        "Ask with a default for each primitive type",
        tools.elicitation_defaults,
        None,
        ("user",),
    ),
    (
        "test_elicitation_sep1330_enums",
        "Ask with each enum shape",
        tools.elicitation_enums,
        None,
        ("user",),
    ),
    (
        "test_input_required_result_elicitation",
        "Ask the user's name",
        tools.input_required_elicitation,
        None,
        ("user",),
    ),
    (
        "test_input_required_result_sampling",
        "Ask the model a question",
        tools.input_required_sampling,
        None,
        ("model",),
    ),
    (
        "test_input_required_result_list_roots",
        "Ask the client's roots",
        tools.input_required_list_roots,
        None,
        ("roots",),
    ),
    (
        "test_input_required_result_request_state",
        "Ask for a confirmation",
        tools.input_required_request_state,
        None,
        ("user",),
    ),
    (
        "test_input_required_result_multiple_inputs",
        "Ask the user, the model and the roots at once",
        tools.input_required_multiple_inputs,
        None,
        ("user", "model", "roots"),
    ),
    (
        "test_input_required_result_multi_round",
        "Ask twice, one question a round",
        tools.input_required_multi_round,
        None,
        ("user",),
    ),
    (
        "test_input_required_result_capabilities",
        "Ask only what the client can answer",
        tools.input_required_capabilities,
        None,
        ("user", "model"),
    ),
    (
        "test_missing_capability",
        "Ask the host's model, declared or not",
        tools.missing_capability,
        None,
        ("model",),
    ),
    (
        "test_streaming_elicitation",
        "Ask the user's name",
        tools.streaming_elicitation,
        None,
        ("user",),
    ),
    (
        "test_trigger_tool_change",
        "Change the list of tools served",
        tools.trigger_tool_change,
        None,
        (),
    ),
    (
        "test_input_required_result_tampered_state",
        "Ask for a confirmation under a sealed state",
        tools.input_required_tampered_state,
        None,
        ("user",),
    ),
)

# The json-schema-2020-12 scenario's input schema, as far as a design says it: a type named
# "address" kept under that name in $defs, a closed object, the dialect stated.
with Type("address", "A postal address") as Address:
    Attribute("street", String)
    Attribute("city", String)

with Service("conformance", "The MCP conformance suite's scenario tools"):
    with Toolset("scenarios", "Tools the conformance suite calls by name"):
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
                # SEP-2106's composition and conditional keywords: allOf of anyOf, if/then/else.
                AtLeastOne("phone", "email")
                When("contactMethod", equals="phone", requires=["phone"], otherwise=["email"])
            Return(String, "What was received")
            Annotations(read_only=True)
            BindTo(json_schema_tool)
        # http-custom-header-server-validation: arguments mirrored in Mcp-Param-* headers.
        with Tool("test_custom_header", "Route a request by region"):
            with Args():
                Attribute("region", String, "Where to route", header="Region")
                Attribute("shard", Int, "Which shard", minimum=0, header="Shard")
                Required("region")
            Return(String, "Where it went")
            Annotations(read_only=True)
            BindTo(routed)
        # input-required-result-non-tool-request: prompts/get asks before it renders.
        with Prompt(
            "test_input_required_result_prompt", "A prompt that asks the user for context first"
        ):
            Asks("user")
            BindTo(prompt_that_asks)
        for name, description, handler, argument, whom in ASKING:
            with Tool(name, description):
                if argument is not None:
                    with Args():
                        Attribute(argument, String, "What to ask with")
                        Required(argument)
                Return(String, "What was answered")
                Annotations(read_only=True)
                if whom:
                    Asks(*whom)
                BindTo(handler)
    # The tasks extension's fixtures: a sync tool and long-running ones (LongRunning).
    with Toolset("tasks", "Long-running tools the tasks scenarios call by name"):
        with Tool("greet", "Greet someone (never a task)"):
            with Args():
                Attribute("name", String, "Whom to greet")
                Required("name")
            Return(String, "The greeting")
            Annotations(read_only=True)
            BindTo(tools.greet)
        with Tool("slow_compute", "Compute for some seconds"):
            with Args():
                Attribute("seconds", Int, "How long to compute", minimum=0, maximum=120)
                Attribute("label", String, "A label for the result")
                Required("seconds")
            Return(String, "What was computed")
            Annotations(read_only=True)
            LongRunning(keep_ms=600_000, poll_ms=200)
            BindTo(tools.slow_compute)
        with Tool("failing_job", "A job that fails with a tool error"):
            Return(String, "Never returned")
            Annotations(read_only=True)
            LongRunning(required=True, poll_ms=200)
            BindTo(tools.failing_job)
        with Tool("protocol_error_job", "A job that crashes"):
            Return(String, "Never returned")
            Annotations(read_only=True)
            LongRunning(poll_ms=200)
            BindTo(tools.protocol_error_job)
        with Tool("confirm_delete", "Delete a file once the user confirms"):
            with Args():
                Attribute("filename", String, "The file to delete")
                Required("filename")
            Return(String, "What was done")
            Asks("user")
            LongRunning(poll_ms=200)
            BindTo(tools.confirm_delete)
        with Tool("multi_input", "Ask two questions at once"):
            Return(String, "What was answered")
            Annotations(read_only=True)
            Asks("user")
            LongRunning(poll_ms=200)
            BindTo(tools.multi_input)
        with Tool("test_tool_with_task", "Ask a name, then work on it as a task"):
            Return(String, "The greeting")
            Annotations(read_only=True)
            Asks("user")
            LongRunning(required=True, poll_ms=200, asks_first=True)
            BindTo(tools.tool_with_task)
