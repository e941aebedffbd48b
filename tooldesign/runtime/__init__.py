"""The runtime library that generated toolsets and agents use."""

from tooldesign.runtime.codec import Decoded, PayloadCodec, ResultCodec
from tooldesign.runtime.errors import Constraint, FieldIssue, ToolError, ToolValidationError
from tooldesign.runtime.hints import RetryHint, RetryReason, retry_hint_for_invalid_payload
from tooldesign.runtime.ident import ToolIdent
from tooldesign.runtime.result import (
    BoundedResultModel,
    Bounds,
    ServerDataItem,
    ToolCallMeta,
    ToolRequest,
    ToolResult,
    ToolTelemetry,
)
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
    "Constraint",
    "Decoded",
    "FieldIssue",
    "PayloadCodec",
    "ResultCodec",
    "RetryHint",
    "RetryReason",
    "ServerDataItem",
    "ServerDataSpec",
    "ToolAnnotations",
    "ToolCallMeta",
    "ToolError",
    "ToolIdent",
    "ToolRequest",
    "ToolResult",
    "ToolSpec",
    "ToolTelemetry",
    "ToolValidationError",
    "TypeSpec",
    "retry_hint_for_invalid_payload",
]
