"""The tools the seams tests call (tests/runtime/mcp/test_seams_*.py): long-running tools with
an approval, with a side effect, with a typed question."""

from tooldesign.dsl import (
    Args,
    Asks,
    Attribute,
    BindTo,
    Confirm,
    LongRunning,
    Required,
    Return,
    Service,
    String,
    Tool,
    Toolset,
)

from tests.runtime.mcp.seams import tools

with (
    Service("seams", "Where the MCP server's features meet"),
    Toolset("jobs", "Long-running jobs with effects"),
):
    with Tool("delete_file", "Delete a file once a person approves"):
        with Args():
            Attribute("filename", String, "The file to delete")
            Required("filename")
        Return(String, "What was done")
        Confirm("Delete {filename}?")
        LongRunning(poll_ms=50)
        BindTo(tools.delete_file)
    with Tool("archive", "Archive something"):
        with Args():
            Attribute("label", String, "What to archive")
            Required("label")
        Return(String, "What was done")
        LongRunning(poll_ms=50)
        BindTo(tools.archive)
    with Tool("ask_reason", "Archive something, asking the user why"):
        with Args():
            Attribute("label", String, "What to archive")
            Required("label")
        Return(String, "What was done")
        Asks("user")
        LongRunning(poll_ms=50)
        BindTo(tools.ask_reason)
    with Tool("ask_first_then_archive", "Ask why, then archive as a task"):
        with Args():
            Attribute("label", String, "What to archive")
            Required("label")
        Return(String, "What was done")
        Asks("user")
        LongRunning(poll_ms=50, asks_first=True)
        BindTo(tools.ask_reason)
    with Tool("approve_first_then_archive", "Archive once a person approves, asking why"):
        with Args():
            Attribute("label", String, "What to archive")
            Required("label")
        Return(String, "What was done")
        Confirm("Archive {label}?")
        Asks("user")
        LongRunning(poll_ms=50, asks_first=True)
        BindTo(tools.ask_reason)
    with Tool("ask_first_briefly", "Ask why, then archive as a task kept a moment"):
        with Args():
            Attribute("label", String, "What to archive")
            Required("label")
        Return(String, "What was done")
        Asks("user")
        LongRunning(poll_ms=50, keep_ms=1, asks_first=True)
        BindTo(tools.ask_reason)
    with Tool("slow_archive", "Archive something, slowly"):
        with Args():
            Attribute("label", String, "What to archive")
            Required("label")
        Return(String, "What was done")
        BindTo(tools.slow_archive)
