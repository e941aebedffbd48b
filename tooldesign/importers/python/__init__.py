"""``tooldesign import python``: code-first tool functions read into a design draft.

Each file is parsed with ``ast`` (in the encoding it declares) and never imported or run. Its
tool functions (``@tool``, ``@mcp.tool()``, ``@function_tool``… anywhere in the file, those a
llama-index ``FunctionTool.from_defaults`` call registers, or with ``all_functions`` every
public module-level function that builds no tools) and its tool classes (LangChain
``BaseTool`` and smolagents ``Tool`` subclasses) become tools: their names, descriptions,
parameters, docstring examples and results. Pydantic models, TypedDicts, dataclasses and Enums
defined in the same file (nested classes included) become design types; a local Enum's member
as a default is its value.

Module-level names bound once (``LIMIT = Field(10, ge=1)``, ``Status = Literal["a", "b"]``,
``DESCRIPTION = "..."``) are read through to the expression they are bound to, wherever a
default, an annotation or a decorator option uses them — read, never run.

Several files make one design: a toolset per file in one service.

What cannot be carried over exactly becomes the closest faithful form, with a
:class:`~tooldesign.importers.draft.Notice`: an annotation the DSL cannot express becomes
``Any``; a framework's context parameter (``ctx: Context``, ``RunContext[...]``,
``RunContextWrapper[...]``, ``InjectedToolArg``…) is left out — the framework, not the model,
supplies it. A result the MCP SDK sends wrapped as ``{"result": …}`` where a design would not
wrap it (a typed ``Dict``, an optional value) is written as that object, so the design's result
is what the server's clients receive.

The modules, in the order reading goes: ``files`` (reading files, one design of several),
``tools`` (a file's tools), ``discovery`` (which functions are tools, which parameters a
framework fills in), ``class_tools`` (what a tool class's attributes say), ``results``,
``examples``, ``classes`` (the file's classes as design types), ``annotations`` (annotations and defaults), ``reader`` (what reading a file keeps) and
``syntax`` (helpers over the syntax tree).
"""

from tooldesign.importers.draft import ImportResult
from tooldesign.importers.python.files import import_python

__all__ = ["ImportResult", "import_python"]
