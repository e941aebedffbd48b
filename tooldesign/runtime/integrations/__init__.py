"""Generated toolsets in the agent frameworks people already run.

One module per framework, each a thin layer over :meth:`Runtime.execute` (the runtime stays the
one place a call is decoded, injected, run, bounded and encoded), each importing its framework
when it is imported itself — ``import tooldesign.runtime`` never imports a framework:

- :mod:`tooldesign.runtime.integrations.pydantic_ai` — ``tooldesign_toolset(runtime)``, a
  pydantic-ai toolset (the ``pydantic-ai`` extra);
- :mod:`tooldesign.runtime.integrations.openai_agents` — ``tooldesign_tools(runtime)``,
  ``FunctionTool``s of the OpenAI Agents SDK (the ``openai-agents`` extra);
- :mod:`tooldesign.runtime.integrations.langchain` — ``tooldesign_langchain_tools(runtime)``,
  LangChain ``BaseTool``s that LangGraph's ``ToolNode`` runs (the ``langchain`` extra).

What they share — which tools, which schema each shows the model, the call's metadata, how a
failed call reads — is in ``_common``. Which calls wait for a person is the design's
``Confirm`` (:meth:`Runtime.approval_for`), mapped onto each framework's own approval flow.
"""

from tooldesign.runtime.integrations._common import Toolsets

__all__ = ["Toolsets"]
