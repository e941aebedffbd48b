"""What the conformance suite's tools do (``design.py`` beside it declares them).

The suite calls them by name and checks what comes back: a text, a tool error, three progress
notifications, three log messages, an image, a recording, an embedded resource, all three; and
the prompts and resources its scenarios read by name.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import BaseModel, Field
from tooldesign.runtime import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    WithContent,
    log_message,
    report_progress,
)
from tooldesign.runtime.mcp import Message, Prompt, Resource, ResourceTemplate, ServerContent

SIMPLE_TEXT = "This is a simple text response for testing."


class ScenarioError(Exception):
    """A failure the model may read (the runtime exposes it)."""


def simple_text() -> str:
    return SIMPLE_TEXT


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
