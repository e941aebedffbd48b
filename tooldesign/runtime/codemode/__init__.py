"""Code mode: a typed API of a runtime's tools that a model writes code against, and a sandbox
that runs the code with every call it makes through ``Runtime.execute``.

``api`` renders the API (from specs or catalog entries), ``policy`` says which tools code may
call, ``run`` runs code in pydantic-monty (the ``codemode`` extra). The ``run_code`` tool over
them is the built-in toolset ``tooldesign.builtin.code_mode``.
"""

from tooldesign.runtime.codemode.api import ApiTool, api_for_catalog, api_for_specs, render_api
from tooldesign.runtime.codemode.policy import Access, access_for, default_access
from tooldesign.runtime.codemode.run import CodeLimits, CodeMode, CodeRun

__all__ = [
    "Access",
    "ApiTool",
    "CodeLimits",
    "CodeMode",
    "CodeRun",
    "access_for",
    "api_for_catalog",
    "api_for_specs",
    "default_access",
    "render_api",
]
