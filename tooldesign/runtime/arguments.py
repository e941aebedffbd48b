"""Step 4 of a call, decode (run by the pipeline with
:func:`~tooldesign.runtime.validation.repairs.decode_call`): the arguments as the last
interceptor passed them on, decoded with
the generated codec within the tool's limits (large ones off the event loop), repaired where the
design agreed to, and the injected fields filled from the call's metadata (a value the model
sent for one is discarded and recorded).

A call the model got wrong is answered with a retry hint naming each of its own bad fields;
one whose metadata lacks an injected value is answered as the application's problem, naming no
hidden field to the model.
"""

from __future__ import annotations

import logging
from concurrent.futures import Executor
from typing import Any

from tooldesign.runtime import answers
from tooldesign.runtime.errors import FieldIssue, ToolValidationError
from tooldesign.runtime.registry import RegisteredTool
from tooldesign.runtime.request import ToolCallMeta
from tooldesign.runtime.result import ToolResult
from tooldesign.runtime.spec.lazy_types import TypesImportError
from tooldesign.runtime.validation.codecs import Decoded
from tooldesign.runtime.validation.repairs import AppliedRepair, decode_call

log = logging.getLogger("tooldesign.runtime")


def injected_values(tool: RegisteredTool, meta: ToolCallMeta) -> dict[str, Any]:
    """The values of the tool's injected fields that the call's metadata gives."""
    if not tool.injected:
        return {}
    return {name: value for name in tool.injected if (value := meta.value_for(name)) is not None}


async def decode(
    tool: RegisteredTool, payload: Any, injected: dict[str, Any], decoders: Executor
) -> tuple[Decoded[Any], tuple[AppliedRepair, ...]]:
    """The decoded arguments and the repairs made; raises ``ToolValidationError`` (the call is
    invalid) or ``TypesImportError`` (the application's models cannot be imported)."""
    return await decode_call(
        tool.binding.payload,
        tool.spec,
        payload,
        injected=injected,
        limits=tool.limits,
        executor=decoders,
    )


def models_unavailable(tool: RegisteredTool, error: TypesImportError) -> ToolResult:
    """The answer to a call whose application models cannot be imported (logged in full)."""
    log.error("tool %s cannot run: its models could not be imported", tool.spec.id, exc_info=error)
    return answers.models_unavailable(tool.spec.id, tool.spec.name, error)


def invalid(
    tool: RegisteredTool, error: ToolValidationError, injected: dict[str, Any]
) -> ToolResult:
    """The answer to a call that does not decode: the model's own bad fields in a retry hint,
    or, when only injected fields are wrong, the application's problem."""
    spec = tool.spec
    # The model hears of its own fields only, not of injected ones (the application's).
    mine = (
        [i for i in error.issues if _top_field(i) not in tool.injected]
        if tool.injected
        else error.issues
    )
    if mine:
        reported = (
            error
            if len(mine) == len(error.issues)
            else ToolValidationError(error.tool, mine, input=error.input, more=error.more)
        )
        hint = answers.invalid_payload_hint(reported, tool.example, tool.example_line)
        return answers.invalid_arguments(spec.id, hint)
    # Only injected fields are wrong: the caller's metadata, not the model, must change.
    missing = sorted({_top_field(i) for i in error.issues} - set(injected))
    log.error("tool %s cannot run: %s", spec.id, answers.context_problem(missing))
    wrong = sorted({_top_field(i) for i in error.issues})
    return answers.context_missing(spec.id, spec.name, missing, wrong)


def _top_field(issue: FieldIssue) -> str:
    return issue.field.split(".", 1)[0].split("[", 1)[0]
