"""What each provider takes of a rich result's content blocks (``Content(...)`` in a design), in
its own words, and the note that names what it does not take.

Checked against the pinned SDKs' types:

=====================  ===========================================================================
MCP                    every kind (``CallToolResult.content``: image, audio, resource_link,
                       resource)
Anthropic              images in ``tool_result.content`` (``ImageBlockParam``, base64, JPEG, PNG,
                       GIF or WebP)
OpenAI Responses       images in ``function_call_output.output`` (``input_image``, a data URL)
OpenAI Chat            nothing: a ``tool`` message's content is text parts only
Gemini                 images in ``FunctionResponse.parts`` (``inline_data``: a MIME type and
                       bytes)
=====================  ===========================================================================

What a provider does not take is not dropped in silence: the text the model reads ends with a
note naming each block left out, and why (the application's own UI may still show it, from
:attr:`ToolResult.content`).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from typing import Any

from tooldesign.contract.content import (
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
)

ANTHROPIC_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""The image MIME types Anthropic's ``Base64ImageSourceParam.media_type`` allows."""


def anthropic_image(block: ContentBlock) -> bool:
    return isinstance(block, ImageContent) and block.mime_type in ANTHROPIC_IMAGE_TYPES


def any_image(block: ContentBlock) -> bool:
    return isinstance(block, ImageContent)


def nothing(block: ContentBlock) -> bool:
    return False


def split(
    blocks: Sequence[ContentBlock], takes: Callable[[ContentBlock], bool]
) -> tuple[list[ContentBlock], list[ContentBlock]]:
    """``blocks`` the provider takes, and those it does not."""
    taken = [block for block in blocks if takes(block)]
    return taken, [block for block in blocks if not takes(block)]


def left_out_note(left: Sequence[ContentBlock], where: str) -> str:
    """A line for the model naming the blocks not sent (empty when none): ``where`` says what
    cannot carry them (``"OpenAI Chat Completions tool messages take text only"``)."""
    if not left:
        return ""
    named = ", ".join(_named(block) for block in left)
    return f"\n[Not shown here: {named} ({where}).]"


def _named(block: ContentBlock) -> str:
    if isinstance(block, ResourceLink | EmbeddedResource):
        return f"{block.kind} {block.uri}"
    return f"{block.kind} ({block.mime_type})"


def anthropic_block(block: ContentBlock) -> dict[str, Any]:
    assert isinstance(block, ImageContent)
    data = base64.b64encode(block.data).decode("ascii")
    source = {"type": "base64", "media_type": block.mime_type, "data": data}
    return {"type": "image", "source": source}


def openai_input_image(block: ContentBlock) -> dict[str, Any]:
    assert isinstance(block, ImageContent)
    data = base64.b64encode(block.data).decode("ascii")
    return {"type": "input_image", "image_url": f"data:{block.mime_type};base64,{data}"}


def gemini_part(block: ContentBlock) -> dict[str, Any]:
    assert isinstance(block, ImageContent)
    data = base64.b64encode(block.data).decode("ascii")
    return {"inline_data": {"mime_type": block.mime_type, "data": data}}
