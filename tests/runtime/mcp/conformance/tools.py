"""What the conformance suite's tools do (``design.py`` beside it declares them).

The suite calls them by name and checks what comes back: a text, a tool error, three progress
notifications, three log messages, an image, a recording, an embedded resource, all three; input
requests (elicitation with defaults and each enum shape, sampling, roots) mid-call and over
``input_required`` round trips; and the prompts and resources its scenarios read by name.
"""

from __future__ import annotations

import asyncio
import base64
import json
import struct
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel, Field
from tooldesign.runtime import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    WithContent,
    exchanges,
    log_message,
    report_progress,
)
from tooldesign.runtime.mcp import Message, Prompt, Resource, ResourceTemplate, ServerContent

SIMPLE_TEXT = "This is a simple text response for testing."


class ScenarioError(Exception):
    """A failure the model may read (the runtime exposes it)."""


def simple_text() -> str:
    return SIMPLE_TEXT


def routed(region: str, shard: int | None = None) -> str:
    """The http-custom-header-server-validation scenario's tool: its arguments are mirrored in
    ``Mcp-Param-*`` headers, which the server checks before it runs."""
    return f"Routed to {region}" + (f", shard {shard}" if shard is not None else "")


def error_handling() -> str:
    raise ScenarioError("This tool intentionally returns an error for testing")


def with_progress() -> str:
    for step in (0, 50, 100):
        report_progress(step, f"step at {step} of 100", total=100)
    return "Progress reported at 0, 50 and 100 of 100."


def with_logging() -> str:
    log_message("info", "Tool execution started")
    log_message("info", "Tool processing data")
    log_message("info", "Tool execution completed")
    return "Logged three messages."


def _png() -> bytes:
    """A 1x1 red pixel, as a PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def _wav() -> bytes:
    """A tenth of a second of silence, as a WAV (8 kHz, 8-bit mono)."""
    frames = b"\x80" * 800
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 8000, 1, 8)
    body = (
        b"WAVEfmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(frames))
    )
    return b"RIFF" + struct.pack("<I", len(body) + len(frames)) + body + frames


PNG = _png()
WAV = _wav()
PNG_BASE64 = base64.b64encode(PNG).decode()


def image_content() -> WithContent[str]:
    return WithContent("A red pixel.", ImageContent(PNG, "image/png"))


def audio_content() -> WithContent[str]:
    return WithContent("A tenth of a second of silence.", AudioContent(WAV, "audio/wav"))


def embedded_resource() -> WithContent[str]:
    text = "This is an embedded resource content."
    resource = EmbeddedResource("test://embedded-resource", "text/plain", text=text)
    return WithContent("An embedded resource.", resource)


def multiple_content_types() -> WithContent[str]:
    data = EmbeddedResource(
        "test://mixed-content-resource", "application/json", text='{"test":"data","value":123}'
    )
    return WithContent("Multiple content types test:", ImageContent(PNG, "image/png"), data)


# ── prompts and resources (content.py's ServerContent, served by app.py) ──────────────────


class PromptArguments(BaseModel):
    arg1: str = Field(description="First test argument")
    arg2: str = Field(description="Second test argument")


class EmbedArguments(BaseModel):
    resourceUri: str = Field(description="URI of the resource to embed")


class TemplateParameters(BaseModel):
    id: str = Field(description="Which data")


def simple_prompt() -> str:
    return "This is a simple prompt for testing."


def prompt_with_arguments(args: PromptArguments) -> str:
    return f"Prompt with arguments: arg1='{args.arg1}', arg2='{args.arg2}'"


def prompt_with_embedded_resource(args: EmbedArguments) -> list[Message]:
    text = "Embedded resource content for testing."
    resource = EmbeddedResource(args.resourceUri, "text/plain", text=text)
    return [Message(resource), Message("Please process the embedded resource above.")]


def prompt_with_image() -> list[Message]:
    return [Message(ImageContent(PNG, "image/png")), Message("Please analyze the image above.")]


class PromptContext(BaseModel):
    context: str


async def prompt_that_asks() -> str:
    """input-required-result-non-tool-request: prompts/get asks the user before it renders
    (the design's ``Asks("user")`` in its ``Prompt`` block, design.py)."""
    answer = await exchanges().ask_user(
        "What context should the prompt use?", PromptContext, key="user_context"
    )
    context = answer.content.context if answer.accepted and answer.content else "none given"
    return f"Answer with this context in mind: {context}"


def complete_argument(argument: str, value: str, context: Mapping[str, str]) -> list[str]:
    words = ["paris", "park", "party", "pasta"]
    return [word for word in words if word.startswith(value.lower())]


def template_data(parameters: TemplateParameters) -> str:
    data = {"id": parameters.id, "templateTest": True, "data": f"Data for ID: {parameters.id}"}
    return json.dumps(data, separators=(",", ":"))


CONTENT = ServerContent(
    prompts=[
        Prompt("test_simple_prompt", "A prompt without arguments", simple_prompt),
        Prompt(
            "test_prompt_with_arguments",
            "A prompt with two arguments",
            prompt_with_arguments,
            PromptArguments,
            complete=complete_argument,
        ),
        Prompt(
            "test_prompt_with_embedded_resource",
            "A prompt embedding a resource",
            prompt_with_embedded_resource,
            EmbedArguments,
        ),
        Prompt("test_prompt_with_image", "A prompt with an image", prompt_with_image),
    ],
    resources=[
        Resource(
            "test://static-text",
            "static-text",
            "A static text",
            lambda: "This is the content of the static text resource.",
        ),
        Resource("test://static-binary", "static-binary", "A PNG", lambda: PNG, "image/png"),
        Resource("test://watched-resource", "watched", "A resource to subscribe to", lambda: "-"),
    ],
    templates=[
        ResourceTemplate(
            "test://template/{id}/data",
            "template-data",
            "Data for an id",
            template_data,
            TemplateParameters,
            "application/json",
        )
    ],
)


@dataclass
class Address:
    street: str | None = None
    city: str | None = None


def json_schema_tool(
    name: str | None = None,
    address: Address | None = None,
    contactMethod: str | None = None,
    phone: str | None = None,
    email: str | None = None,
) -> str:
    return "ok"


def trigger_prompt_change() -> str:
    """Serve a prompt, or stop serving it: the prompt list changes either way."""
    if "test_dynamic_prompt" in CONTENT.prompts:
        CONTENT.remove_prompt("test_dynamic_prompt")
        return "Removed test_dynamic_prompt."
    CONTENT.add_prompt(Prompt("test_dynamic_prompt", "A prompt added at run time", simple_prompt))
    return "Added test_dynamic_prompt."


# ── input requests (elicitation, sampling, roots), in both protocol eras ─────────────────


class UserInfo(BaseModel):
    username: str = Field(description="User's response")
    email: str = Field(description="User's email address")


class Status(StrEnum):
    ACTIVE = "active"
    INACTIVE = "inactive"
    PENDING = "pending"


class Defaults(BaseModel):
    """SEP-1034: a default for each primitive type."""

    name: str = "John Doe"
    age: int = 30
    score: float = 95.5
    status: Status = Status.ACTIVE
    verified: bool = True


# SEP-1330's five enum shapes, as a form schema given whole (the legacy ``enumNames`` has no
# pydantic spelling).
ENUM_FORM: dict[str, object] = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    },
}


class Name(BaseModel):
    name: str


class Confirmation(BaseModel):
    ok: bool


class Color(BaseModel):
    color: str


async def elicitation(message: str) -> str:
    answer = await exchanges().ask_user(message, UserInfo)
    content = answer.content.model_dump() if answer.content is not None else None
    return f"User response: action={answer.action}, content={content}"


async def sampling(prompt: str) -> str:
    reply = await exchanges().ask_model(prompt, max_tokens=100)
    return f"LLM response: {reply.text}"


async def elicitation_defaults() -> str:
    answer = await exchanges().ask_user("Please review and update the form fields", Defaults)
    content = answer.content.model_dump(mode="json") if answer.content is not None else None
    return f"Elicitation completed: action={answer.action}, content={content}"


async def elicitation_enums() -> str:
    answer = await exchanges().ask_user("Please select options from the enum fields", ENUM_FORM)
    return f"Elicitation completed: action={answer.action}, content={answer.content}"


async def input_required_elicitation() -> str:
    answer = await exchanges().ask_user("What is your name?", Name, key="user_name")
    return f"Hello, {answer.content.name if answer.content else 'stranger'}!"


async def input_required_sampling() -> str:
    reply = await exchanges().ask_model(
        "What is the capital of France?", max_tokens=100, key="capital_question"
    )
    return f"The model says: {reply.text}"


async def input_required_list_roots() -> str:
    roots = await exchanges().roots(key="client_roots")
    return "Roots: " + ", ".join(root.uri for root in roots)


async def input_required_request_state() -> str:
    answer = await exchanges().ask_user("Please confirm", Confirmation, key="confirm")
    return f"state-ok: confirmed={answer.content.ok if answer.content else None}"


async def input_required_multiple_inputs() -> str:
    asks = exchanges()
    name, greeting, roots = await asyncio.gather(
        asks.ask_user("What is your name?", Name, key="user_name"),
        asks.ask_model("Generate a greeting", max_tokens=50, key="greeting"),
        asks.roots(key="client_roots"),
        return_exceptions=True,
    )
    for outcome in (name, greeting, roots):
        if isinstance(outcome, BaseException):
            raise outcome
    return f"Got a name, a greeting and {len(roots)} root(s)."  # type: ignore[arg-type]


async def input_required_multi_round() -> str:
    asks = exchanges()
    name = await asks.ask_user("Step 1: What is your name?", Name, key="step1")
    color = await asks.ask_user("Step 2: What is your favorite color?", Color, key="step2")
    who = name.content.name if name.content else "?"
    return f"{who} likes {color.content.color if color.content else '?'}."


async def input_required_tampered_state() -> str:
    answer = await exchanges().ask_user("Please confirm", Confirmation, key="confirm")
    return f"state-ok: confirmed={answer.content.ok if answer.content else None}"


async def input_required_capabilities() -> str:
    """Asks only what the client declared it can answer."""
    asks = exchanges()
    questions = []
    if asks.can_ask("user"):
        questions.append(asks.ask_user("What is your name?", Name, key="user_name"))
    if asks.can_ask("model"):
        questions.append(asks.ask_model("Generate a greeting", max_tokens=50, key="greeting"))
    outcomes = await asyncio.gather(*questions, return_exceptions=True)
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    return f"Asked {len(outcomes)} question(s)."


async def missing_capability() -> str:
    """Needs the host's model, whether or not the client declared sampling."""
    reply = await exchanges().ask_model("Say hello", max_tokens=20)
    return f"The model said: {reply.text}"


async def streaming_elicitation() -> str:
    answer = await exchanges().ask_user("What is your name?", Name, key="user_name")
    return f"Hello, {answer.content.name if answer.content else 'stranger'}!"


TOOL_CHANGES: list[Callable[[], None]] = []
"""What changes the served tool list (``app.py`` puts it here: the runtime is the app's)."""


def trigger_tool_change() -> str:
    for change in TOOL_CHANGES:
        change()
    return "The tool list changed."


# ── long-running tools (the tasks extension) ─────────────────────────────────────────────


def greet(name: str) -> str:
    return f"Hello, {name}!"


async def slow_compute(seconds: int, label: str | None = None) -> str:
    await asyncio.sleep(seconds)
    return f"Computed {label or 'result'} after {seconds} second(s)."


async def failing_job() -> str:
    await asyncio.sleep(1)
    raise ScenarioError("The job failed (a tool execution error).")


async def protocol_error_job() -> str:
    await asyncio.sleep(0.2)
    raise RuntimeError("the job's worker broke")  # a crash: the task fails


class DeleteConfirmation(BaseModel):
    confirm: bool


class NamedConfirmation(BaseModel):
    name: str
    confirm: bool


async def confirm_delete(filename: str) -> str:
    answer = await exchanges().ask_user(f"Delete {filename}?", DeleteConfirmation)
    confirmed = answer.accepted and answer.content is not None and answer.content.confirm
    return f"{'Deleted' if confirmed else 'Kept'} {filename}."


async def multi_input() -> str:
    asks = exchanges()
    first, second = await asyncio.gather(
        asks.ask_user("First: who are you?", NamedConfirmation, key="first"),
        asks.ask_user("Second: who else?", NamedConfirmation, key="second"),
    )
    names = [a.content.name for a in (first, second) if a.content is not None]
    return "Got " + " and ".join(names) + "."


async def tool_with_task() -> str:
    answer = await exchanges().ask_user("What is your name?", Name, key="user_name")
    await asyncio.sleep(0.5)  # the long part, in the task
    return f"Hello, {answer.content.name if answer.content else 'stranger'}, from a task!"
