"""Phase 2 of evaluation: turn DSL records into the IR, resolving references.

Problems are collected, never raised; a part that cannot be resolved is replaced by a harmless
stand-in (``Any``) so later checks go on without cascading errors. Each module builds one
part: ``tools`` the services, toolsets and tools (and is where :func:`build` starts),
``messages`` their payloads, results and server data, ``fields`` user types, shapes and type
expressions, ``values`` design values and constraints, ``bounded`` what ``BoundedResult``
adds, ``mcp`` an ``MCPToolset``'s server, ``verbatim`` an ``Any(schema=...)``.
"""
