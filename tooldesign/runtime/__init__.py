"""The runtime library that generated toolsets and agents use."""

from tooldesign.runtime.codec import Decoded, PayloadCodec, ResultCodec
from tooldesign.runtime.errors import (
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
from tooldesign.runtime.mcp_client import MCPClient, MCPServerParams, MCPUnavailable
from tooldesign.runtime.registration import (
    CallNext,
    Interceptor,
    Invoke,
    Outcome,
    RegistrationError,
    ToolBinding,
    ToolsetRegistration,
    bound_service,
    check_registration,
    handler_invoke,
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
from tooldesign.runtime.runtime import Runtime, ToolsetInfo, bounds_problems
from tooldesign.runtime.specs import (
    BoundsSpec,
    ServerDataSpec,
    ToolAnnotations,
    ToolSpec,
    TypeSpec,
)

__all__ = [
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
    "bound_service",
    "bounds_problems",
    "check_registration",
    "handler_invoke",
    "retry_hint_for_invalid_payload",
]
