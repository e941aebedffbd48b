"""Code mode: one tool that runs Python code calling the other tools, in a sandbox.

Generated into ``tooldesign/builtin/gen`` with the other built-in toolsets; the handler is
``tooldesign.builtin.code_mode``, which shows the typed API of the tools the code may call as
the tool's description.
"""

from tooldesign.dsl import (
    Annotations,
    Any,
    Args,
    Attribute,
    Example,
    Int,
    Required,
    Return,
    Service,
    String,
    Tags,
    Tool,
    Toolset,
)

with (
    Service("code_mode", "Code mode: tools called from code the model writes"),
    Toolset("code", "Run Python code that calls tools"),
):
    Tags("code")
    with Tool(
        "run_code",
        "Run Python code that calls tools as functions, in a sandbox; the value of its last "
        "expression is the result. Use it to chain several calls in one step.",
        title="Run code",
    ):
        with Args():
            Attribute(
                "code",
                String,
                "Python code; the last expression is the result",
                min_length=1,
                max_length=20000,
            )
            Required("code")
            Example({"code": "sites = list_sites()\nlen(sites['sites'])"})
        with Return():
            Attribute("value", Any, "The value of the code's last expression, as JSON")
            Attribute("printed", String, "What the code printed")
            Attribute("calls", Int, "How many tool calls the code made", minimum=0)
            Required("printed", "calls")
        # What it may do is what the tools it calls may do: each call is held to its own
        # annotations, approvals and limits.
        Annotations(read_only=False, destructive=False, idempotent=False, open_world=False)
