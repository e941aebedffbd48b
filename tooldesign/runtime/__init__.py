"""tooldesign's runtime: runs the tools of generated toolsets and answers every call.

This module is the user API: the names application code writes, each taught in docs/runtime.md
or docs/control.md. Plumbing stays importable from its own module, not from here.

The package, by who reads it:

- the root is the call path. ``pipeline`` runs one call's steps in order (resolve, observe,
  interceptors, decode, approve, run, check result, budget, answer), each step a module of its
  own (``registry``, ``arguments``, ``approval``, ``invoke`` with ``workers``,
  ``result_check``, ``budget``); ``answers`` writes every failure a model reads; ``runtime``
  is the :class:`Runtime` that holds what the steps run with; ``request``, ``result``,
  ``errors``, ``hints`` and ``reasons`` are the call's data; ``registration`` is what a
  generated executor hands the runtime, ``support`` what generated code imports
  (``from tooldesign.runtime import support as rt``), ``sync`` runs ``execute_sync``;
- ``control/`` is control over what tools do: approvals (requests, decisions, approvers),
  events and progress, OpenTelemetry spans, one call's observers (``watch``), and the
  interceptors that ship (``Timeout``, ``RateLimit``, ``LogCalls``);
- ``spec/`` is what the runtime knows of a tool before any call: specs (frozen, their models
  imported on first use), formats (the types that read each format by its RFC), limits,
  catalogs;
- ``validation/`` checks what a model sends and what a tool returns: codecs, JSON input,
  field issues, designed repairs, sizes;
- ``providers/`` exports tools to OpenAI, Anthropic, Gemini and MCP and reads their calls;
  ``mcp/`` serves a runtime over MCP and calls MCP servers; ``transports/`` runs toolsets on
  workers over Redis; ``integrations/`` puts a runtime's tools in agent frameworks, one module
  per framework, each imported only when used.

What the runtime shares with the stages that generate code for it is defined once in
``tooldesign.contract``; the runtime never imports those stages, nor generated code.
"""

from tooldesign.contract.content import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    WithContent,
)
from tooldesign.runtime.agents import AgentBudgetExceeded, AgentImplementation, AgentTask
from tooldesign.runtime.answers import retry_hint_for_invalid_payload
from tooldesign.runtime.control.approvals import ApprovalDecision, ApprovalRequest, Approver
from tooldesign.runtime.control.audit import AuditRecord, AuditSink, JsonLinesAudit, verify_audit
from tooldesign.runtime.control.events import (
    ApprovalDecided,
    ApprovalRequested,
    CallEvent,
    CallFinished,
    CallProgress,
    CallStarted,
)
from tooldesign.runtime.control.exchanges import (
    Answer,
    AnswerMismatch,
    Exchanges,
    InputRequest,
    InputUnavailable,
    Root,
    Sampled,
    answering,
    exchanges,
    form_schema,
)
from tooldesign.runtime.control.interceptors import LogCalls, RateLimit, Timeout
from tooldesign.runtime.control.logs import ToolLog, log_message, logs_to
from tooldesign.runtime.control.otel import Tracing
from tooldesign.runtime.control.progress import ProgressUpdate, progress_to, report_progress
from tooldesign.runtime.errors import (
    Constraint,
    FieldIssue,
    ToolError,
    ToolFailure,
    ToolValidationError,
)
from tooldesign.runtime.hints import RetryHint
from tooldesign.runtime.mcp.client import MCPClient
from tooldesign.runtime.principal import Principal
from tooldesign.runtime.reasons import Recovery, RetryReason
from tooldesign.runtime.registration import (
    CallNext,
    Interceptor,
    RegistrationError,
    ToolsetRegistration,
)
from tooldesign.runtime.registry import ToolsetInfo
from tooldesign.runtime.request import ToolCallMeta, ToolRequest
from tooldesign.runtime.result import (
    BoundedResultModel,
    Bounds,
    ServerDataItem,
    ToolResult,
    ToolTelemetry,
    pending_approvals,
)
from tooldesign.runtime.runtime import Runtime
from tooldesign.runtime.spec.formats import (
    Rfc1123Hostname,
    Rfc2673Ipv4Address,
    Rfc3339Date,
    Rfc3339DateTime,
    Rfc3339Duration,
    Rfc3339Time,
    Rfc3986Uri,
    Rfc4122Uuid,
    Rfc4291Ipv6Address,
    Rfc5321Email,
)
from tooldesign.runtime.spec.json_values import JsonAny
from tooldesign.runtime.spec.lazy_types import TypesImportError
from tooldesign.runtime.spec.limits import Limits
from tooldesign.runtime.spec.specs import ToolSpec

__all__ = [
    "AgentBudgetExceeded",
    "AgentImplementation",
    "AgentTask",
    "Answer",
    "AnswerMismatch",
    "ApprovalDecided",
    "ApprovalDecision",
    "ApprovalRequest",
    "ApprovalRequested",
    "Approver",
    "AudioContent",
    "AuditRecord",
    "AuditSink",
    "BoundedResultModel",
    "Bounds",
    "CallEvent",
    "CallFinished",
    "CallNext",
    "CallProgress",
    "CallStarted",
    "Constraint",
    "EmbeddedResource",
    "Exchanges",
    "FieldIssue",
    "ImageContent",
    "InputRequest",
    "InputUnavailable",
    "Interceptor",
    "JsonAny",
    "JsonLinesAudit",
    "Limits",
    "LogCalls",
    "MCPClient",
    "Principal",
    "ProgressUpdate",
    "RateLimit",
    "Recovery",
    "RegistrationError",
    "ResourceLink",
    "RetryHint",
    "RetryReason",
    "Rfc1123Hostname",
    "Rfc2673Ipv4Address",
    "Rfc3339Date",
    "Rfc3339DateTime",
    "Rfc3339Duration",
    "Rfc3339Time",
    "Rfc3986Uri",
    "Rfc4122Uuid",
    "Rfc4291Ipv6Address",
    "Rfc5321Email",
    "Root",
    "Runtime",
    "Sampled",
    "ServerDataItem",
    "Timeout",
    "ToolCallMeta",
    "ToolError",
    "ToolFailure",
    "ToolLog",
    "ToolRequest",
    "ToolResult",
    "ToolSpec",
    "ToolTelemetry",
    "ToolValidationError",
    "ToolsetInfo",
    "ToolsetRegistration",
    "Tracing",
    "TypesImportError",
    "WithContent",
    "answering",
    "exchanges",
    "form_schema",
    "log_message",
    "logs_to",
    "pending_approvals",
    "progress_to",
    "report_progress",
    "retry_hint_for_invalid_payload",
    "verify_audit",
]
