"""tooldesign's runtime: runs the tools of generated toolsets and answers every call.

Split by who reads it:

- ``tooldesign.runtime`` (this module) is the user API: the names application code writes —
  the :class:`Runtime` and its requests, metadata and results, retry hints, errors, the
  interceptors that ship and the interceptor types, specs and tool ids, registrations, the
  RFC 3339 types generated models use, and the MCP client;
- ``tooldesign.runtime.support`` is what generated packages call (``from tooldesign.runtime
  import support as rt``): exactly the names their ``specs.py``, ``codecs.py`` and
  ``executor.py`` use, plumbing included; application code does not need it;
- ``tooldesign.runtime.validation`` checks what a model sends and what a tool returns: the
  codecs, reading arguments as JSON, pydantic and ``jsonschema`` errors as :class:`FieldIssue`,
  the one schema navigator, examples built from a schema;
- ``tooldesign.runtime.providers`` exports tools to OpenAI, Anthropic, Gemini and MCP and
  reads their tool calls; ``tooldesign.runtime.mcp`` serves a runtime over MCP (the ``mcp``
  extra) and calls MCP servers; ``tooldesign.builtin.tool_index`` lists a runtime's tools to a
  model; ``tooldesign.runtime.spec.catalog`` loads ``tool_schemas.json``;
- ``tooldesign.runtime.integrations`` puts a runtime's tools in agent frameworks (pydantic-ai,
  the OpenAI Agents SDK, LangChain/LangGraph), one module per framework, each imported only when
  used (its own extra);
- the modules behind these: ``runtime`` (the call pipeline), ``registration``, ``workers``
  (sync tools in threads), ``interceptors``, ``result``, ``hints``, ``errors``, ``specs`` (held
  read-only by ``frozen``; their models imported on first use by ``lazy_types``), ``limits`` (what one call may carry), ``formats`` (the RFC 3339 types) and ``text`` (how messages show
  values);
- control over what tools do: ``approvals`` (``Confirm``: requests, decisions, approvers),
  ``recovery`` (what a planner does after a failure), ``progress`` and ``events`` (what a
  running call reports, to subscribers), ``otel`` (OpenTelemetry spans), ``watch`` (one call's
  observers) and ``validation.repairs`` (designed repairs).

What the runtime shares with the stages that generate code for it — the catalog format,
annotations (:class:`ToolAnnotations`), a tool's limits (:class:`ToolLimits`), formats, constraints, tool ids (:class:`ToolIdent`) —
is defined once in ``tooldesign.contract``; the runtime never imports those stages.
"""

from tooldesign.contract.annotations import ToolAnnotations
from tooldesign.contract.confirm import ConfirmSpec
from tooldesign.contract.ident import ToolIdent
from tooldesign.contract.repairs import FieldRepair
from tooldesign.runtime.control.approvals import (
    ApprovalDecision,
    ApprovalRequest,
    Approver,
)
from tooldesign.runtime.control.events import (
    ApprovalDecided,
    ApprovalRequested,
    CallEvent,
    CallFinished,
    CallProgress,
    CallStarted,
    Subscription,
)
from tooldesign.runtime.control.interceptors import LogCalls, RateLimit, Timeout
from tooldesign.runtime.control.otel import Tracing
from tooldesign.runtime.control.progress import ProgressUpdate, progress_to, report_progress
from tooldesign.runtime.errors import (
    Constraint,
    FieldIssue,
    ToolError,
    ToolFailure,
    ToolValidationError,
)
from tooldesign.runtime.hints import RetryHint, retry_hint_for_invalid_payload
from tooldesign.runtime.mcp.client import MCPClient, MCPServerParams, MCPUnavailable
from tooldesign.runtime.reasons import Recovery, RetryReason
from tooldesign.runtime.registration import (
    CallNext,
    Interceptor,
    RegistrationError,
    ToolsetRegistration,
)
from tooldesign.runtime.request import ToolCallMeta, ToolRequest
from tooldesign.runtime.result import (
    BoundedResultModel,
    Bounds,
    ServerDataItem,
    ToolResult,
    ToolTelemetry,
    pending_approvals,
)
from tooldesign.runtime.runtime import Runtime, ToolsetInfo
from tooldesign.runtime.spec.formats import Rfc3339Date, Rfc3339DateTime, Rfc3339Time
from tooldesign.runtime.spec.lazy_types import TypesImportError
from tooldesign.runtime.spec.limits import Limits, ToolLimits
from tooldesign.runtime.spec.specs import BoundsSpec, ServerDataSpec, ToolSpec, TypeSpec
from tooldesign.runtime.validation.repairs import AppliedRepair

__all__ = [
    "AppliedRepair",
    "ApprovalDecided",
    "ApprovalDecision",
    "ApprovalRequest",
    "ApprovalRequested",
    "Approver",
    "BoundedResultModel",
    "Bounds",
    "BoundsSpec",
    "CallEvent",
    "CallFinished",
    "CallNext",
    "CallProgress",
    "CallStarted",
    "ConfirmSpec",
    "Constraint",
    "FieldIssue",
    "FieldRepair",
    "Interceptor",
    "Limits",
    "LogCalls",
    "MCPClient",
    "MCPServerParams",
    "MCPUnavailable",
    "ProgressUpdate",
    "RateLimit",
    "Recovery",
    "RegistrationError",
    "RetryHint",
    "RetryReason",
    "Rfc3339Date",
    "Rfc3339DateTime",
    "Rfc3339Time",
    "Runtime",
    "ServerDataItem",
    "ServerDataSpec",
    "Subscription",
    "Timeout",
    "ToolAnnotations",
    "ToolCallMeta",
    "ToolError",
    "ToolFailure",
    "ToolIdent",
    "ToolLimits",
    "ToolRequest",
    "ToolResult",
    "ToolSpec",
    "ToolTelemetry",
    "ToolValidationError",
    "ToolsetInfo",
    "ToolsetRegistration",
    "Tracing",
    "TypeSpec",
    "TypesImportError",
    "pending_approvals",
    "progress_to",
    "report_progress",
    "retry_hint_for_invalid_payload",
]
