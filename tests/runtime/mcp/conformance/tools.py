"""What the conformance suite's tools do (``design.py`` beside it declares them).

The suite calls them by name and checks what comes back: a text, a tool error, three progress
notifications, three log messages.
"""

from __future__ import annotations

from tooldesign.runtime import log_message, report_progress

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
