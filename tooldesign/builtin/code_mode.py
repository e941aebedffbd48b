"""The built-in ``code_mode`` toolset: ``run_code``, which runs Python code calling the other
tools of a runtime in a sandbox (:mod:`tooldesign.runtime.codemode`).

Its description is the typed API of the tools the code may call, rendered when the toolset is
registered: a model reads the functions, their argument and result types, bounds, examples and
approvals, and writes code against them. Each call the code makes runs through the runtime, as
a child of the ``run_code`` call (its events, its span, its metadata's injected values and
approval decisions).

Its design lives in ``tooldesign/builtin/design``; the package is generated like any other.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from tooldesign.builtin.gen.code_mode.toolsets.code import executor
from tooldesign.runtime.codemode import CodeMode, CodeRun
from tooldesign.runtime.pipeline import call_decisions
from tooldesign.runtime.registration import Interceptor, ToolsetRegistration
from tooldesign.runtime.request import ToolCallMeta
from tooldesign.runtime.result import ToolResult

if TYPE_CHECKING:
    from tooldesign.builtin.gen.code_mode.toolsets.code import types as t
else:
    from tooldesign.builtin.gen.code_mode.toolsets.code.specs import TYPES as t

SERVICE = "code_mode"
TOOLSET = "code"
TOOL = "run_code"
TOOL_ID = f"{SERVICE}.{TOOLSET}.{TOOL}"


def code_mode_registration(
    code_mode: CodeMode, *, interceptors: Sequence[Interceptor] = ()
) -> ToolsetRegistration:
    """The ``run_code`` toolset over ``code_mode``'s tools, its description their typed API.

    Register it in the same runtime: ``runtime.register(code_mode_registration(CodeMode(runtime)))``.
    Register the tools first: the API is rendered now (``run_code`` itself is never in it).
    """
    code_mode.exclude = code_mode.exclude | {TOOL_ID, TOOL}

    async def run_code(args: t.RunCodePayload, meta: ToolCallMeta) -> t.RunCodeResult | ToolResult:
        run = await code_mode.run(args.code, meta, call_decisions(), tool_id=TOOL_ID)
        if isinstance(run, ToolResult):  # waiting for a person's approval of an inner call
            return run
        return _result(run)

    registration = executor.new_registration(
        handlers=cast("Any", {TOOL: run_code}),
        interceptors=interceptors,
    )
    binding = registration.tools[0]
    spec = dataclasses.replace(binding.spec, description=description(code_mode))
    return dataclasses.replace(registration, tools=(dataclasses.replace(binding, spec=spec),))


def description(code_mode: CodeMode) -> str:
    """``run_code``'s description: what it does, then the typed API."""
    return (
        "Run Python code in a sandbox. The functions below call tools; the value of the "
        "code's last expression is the result (keep it small: counts, ids, a few fields). "
        "Chain several calls in one run; catch the exceptions a call raises to correct it. "
        "No imports but json, re, math and datetime; no files or network.\n\n" + code_mode.api()
    )


def _result(run: CodeRun) -> t.RunCodeResult:
    return t.RunCodeResult(value=run.value, printed=run.printed, calls=run.calls)
