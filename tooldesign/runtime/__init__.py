"""The runtime library that generated toolsets and agents use."""

from tooldesign.runtime.errors import (
    MAX_ISSUES,
    Constraint,
    FieldIssue,
    ToolError,
    ToolFailure,
    ToolValidationError,
)
from tooldesign.runtime.formats import Rfc3339Date, Rfc3339DateTime, Rfc3339Time
from tooldesign.runtime.hints import RetryHint, RetryReason, retry_hint_for_invalid_payload
from tooldesign.runtime.ident import ToolIdent
from tooldesign.runtime.interceptors import LogCalls, RateLimit, Timeout
from tooldesign.runtime.mcp.client import MCPClient, MCPServerParams, MCPUnavailable
from tooldesign.runtime.registration import (
    CallNext,
    Interceptor,
    Invoke,
    Outcome,
    RegistrationError,
    ToolBinding,
    ToolsetRegistration,
    WorkerThreadInvoke,
    bound_service,
    cancelled_before_start,
    check_registration,
    handler_invoke,
    in_worker_thread,
)
from tooldesign.runtime.result import (
    BoundedResultModel,
    Bounds,
    ServerDataItem,
    ToolCallMeta,
    ToolRequest,
    ToolResult,
    ToolTelemetry,
)
from tooldesign.runtime.runtime import DEFAULT_WORKER_THREADS, Runtime, ToolsetInfo, bounds_problems
from tooldesign.runtime.specs import (
    BoundsSpec,
    ServerDataSpec,
    ToolAnnotations,
    ToolSpec,
    TypeSpec,
)
from tooldesign.runtime.text import quoted
from tooldesign.runtime.validation.codecs import Decoded, PayloadCodec, ResultCodec

__all__ = [
    "DEFAULT_WORKER_THREADS",
    "MAX_ISSUES",
    "BoundedResultModel",
    "Bounds",
    "BoundsSpec",
    "CallNext",
    "Constraint",
    "Decoded",
    "FieldIssue",
    "Interceptor",
    "Invoke",
    "LogCalls",
    "MCPClient",
    "MCPServerParams",
    "MCPUnavailable",
    "Outcome",
    "PayloadCodec",
    "RateLimit",
    "RegistrationError",
    "ResultCodec",
    "RetryHint",
    "RetryReason",
    "Rfc3339Date",
    "Rfc3339DateTime",
    "Rfc3339Time",
    "Runtime",
    "ServerDataItem",
    "ServerDataSpec",
    "Timeout",
    "ToolAnnotations",
    "ToolBinding",
    "ToolCallMeta",
    "ToolError",
    "ToolFailure",
    "ToolIdent",
    "ToolRequest",
    "ToolResult",
    "ToolSpec",
    "ToolTelemetry",
    "ToolValidationError",
    "ToolsetInfo",
    "ToolsetRegistration",
    "TypeSpec",
    "WorkerThreadInvoke",
    "bound_service",
    "bounds_problems",
    "cancelled_before_start",
    "check_registration",
    "handler_invoke",
    "in_worker_thread",
    "quoted",
    "retry_hint_for_invalid_payload",
]
