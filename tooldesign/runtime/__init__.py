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
  extra) and calls MCP servers; ``tooldesign.runtime.tool_index`` lists a runtime's tools to a
  model; ``tooldesign.runtime.catalog`` loads ``tool_schemas.json``;
- the modules behind these: ``runtime`` (the call pipeline), ``registration``, ``workers``
  (sync tools in threads), ``interceptors``, ``result``, ``hints``, ``errors``, ``specs`` (held
  read-only by ``frozen``), ``limits`` (what one call may carry), ``formats`` (the RFC 3339 types) and ``text`` (how messages show
  values).

What the runtime shares with the stages that generate code for it — the catalog format,
annotations (:class:`ToolAnnotations`), a tool's limits (:class:`ToolLimits`), formats, constraints, tool ids (:class:`ToolIdent`) —
is defined once in ``tooldesign.contract``; the runtime never imports those stages.
"""

from tooldesign.contract.annotations import ToolAnnotations
from tooldesign.contract.ident import ToolIdent
from tooldesign.runtime.errors import (
    Constraint,
    FieldIssue,
    ToolError,
    ToolFailure,
    ToolValidationError,
)
from tooldesign.runtime.formats import Rfc3339Date, Rfc3339DateTime, Rfc3339Time
from tooldesign.runtime.hints import RetryHint, RetryReason, retry_hint_for_invalid_payload
from tooldesign.runtime.interceptors import LogCalls, RateLimit, Timeout
from tooldesign.runtime.limits import Limits, ToolLimits
from tooldesign.runtime.mcp.client import MCPClient, MCPServerParams, MCPUnavailable
from tooldesign.runtime.registration import (
    CallNext,
    Interceptor,
    RegistrationError,
    ToolsetRegistration,
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
from tooldesign.runtime.runtime import Runtime, ToolsetInfo
from tooldesign.runtime.specs import BoundsSpec, ServerDataSpec, ToolSpec, TypeSpec

__all__ = [
    "BoundedResultModel",
    "Bounds",
    "BoundsSpec",
    "CallNext",
    "Constraint",
    "FieldIssue",
    "Interceptor",
    "Limits",
    "LogCalls",
    "MCPClient",
    "MCPServerParams",
    "MCPUnavailable",
    "RateLimit",
    "RegistrationError",
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
    "TypeSpec",
    "retry_hint_for_invalid_payload",
]
