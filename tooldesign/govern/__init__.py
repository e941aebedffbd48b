"""Governing tool catalogs as contracts: per-tool fingerprints, breaking-change diffs, and the
rules each client (provider or MCP host) holds tools to.

- :func:`tool_fingerprint` — one digest of what a model or an application observes of a tool;
- :func:`diff_catalogs` — every change between two catalogs, and whom it breaks;
- :func:`check_targets` — what a named target (``openai-strict``, ``claude-code``…) cannot take.
"""

from tooldesign.contract.fingerprint import FINGERPRINT_KEY, fingerprint_of, tool_fingerprint
from tooldesign.govern.changes import ABSENT, CatalogDiff, Change, ToolChange
from tooldesign.govern.diff import diff_catalogs, diff_entries, diff_tool
from tooldesign.govern.sources import CatalogTools, read_source

__all__ = [
    "ABSENT",
    "FINGERPRINT_KEY",
    "CatalogDiff",
    "CatalogTools",
    "Change",
    "ToolChange",
    "diff_catalogs",
    "diff_entries",
    "diff_tool",
    "fingerprint_of",
    "read_source",
    "tool_fingerprint",
]
