"""The base every stage shares: one definition of each contract that crosses stages.

A design flows dsl → eval → ir → binding → codegen → runtime, and each contract below is read
by several of those stages (and by govern, docsite, importers and commands on top). Each is
defined here once; the stages derive what they need from it instead of spelling it again.
It imports nothing else of tooldesign but the JSON Schema dialect
(:mod:`tooldesign.jsonschema`), in whose words the contracts about schemas are stated.

- :mod:`~tooldesign.contract.catalog` — the ``tool_schemas.json`` format: what an entry holds,
  the one function that builds an entry (from a runtime spec or a catalog entry alike), writing,
  reading and checking, and ``catalog_hash``; :mod:`~tooldesign.contract.fingerprint` — the
  per-tool ``fingerprint`` key;
- :mod:`~tooldesign.contract.annotations` — the tool annotations (behaviour hints): one table,
  one frozen type;
- :mod:`~tooldesign.contract.formats` — the string formats a design may use, and what each
  means to generated models, the runtime, importers and each provider;
- :mod:`~tooldesign.contract.constraints` — value constraints: the DSL option, the JSON Schema
  keyword, the pydantic argument and the pydantic errors of each;
- :mod:`~tooldesign.contract.providers` — the names of the providers tools are exported to;
- :mod:`~tooldesign.contract.ident` — tool ids (``service.toolset.tool``);
- :mod:`~tooldesign.contract.location` — where in a design file something was declared;
- :mod:`~tooldesign.contract.errors` — the errors that are the user's to fix, and exit codes;
- :mod:`~tooldesign.contract.collector` — pausing the cycle collector around large batches.

This module itself holds the names generated code and the runtime share; it imports nothing,
so code generation reads them cheaply.
"""

WRAPPED_RESULT_KEY = "result"
"""Where MCP carries a result that is not an object (``{"result": …}``), the convention MCP
servers share: the MCP export wraps such results in it, the MCP client unwraps them, and the
MCP importer reads a wrapped result as what it wraps."""

WRAPPED_RESULT_MARKER = "x-fastmcp-wrap-result"
"""The key (``true``) marking a wrapped ``outputSchema`` as a wrap, not a result with one field
called ``result``: FastMCP writes it, and its client (and others that learned it from FastMCP)
unwraps such a result on reading."""

BOUNDS_CONFIG_KEY = "x-tooldesign-bounds"
"""Key in a bounded result model's ``json_schema_extra`` naming its next-cursor attribute."""

BOUNDED_BASE_CLASS = "tooldesign.runtime.BoundedResultModel"
"""The base class of generated bounded result models."""
