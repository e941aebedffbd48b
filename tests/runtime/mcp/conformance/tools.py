"""What the conformance suite's tools do (``design.py`` beside it declares them).

The suite calls them by name and checks what comes back: a text, a tool error, three progress
notifications, three log messages, an image, a recording, an embedded resource, all three.
"""

from __future__ import annotations

import base64
import struct
import zlib

from tooldesign.runtime import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    WithContent,
    log_message,
    report_progress,
)

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
