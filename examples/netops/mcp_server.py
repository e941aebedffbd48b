"""The worked example's toolsets as an MCP server.

From the repository root:

    tooldesign serve-mcp examples.netops.mcp_server:runtime                   # stdio
    tooldesign serve-mcp examples.netops.mcp_server:runtime --transport http  # :8000/mcp
    tooldesign serve-mcp examples.netops.mcp_server:server                    # with prompts

Every netops toolset is served, plus the built-in ``tool_index``; ``server`` adds the example's
prompt (``triage_site``) and resources (``netops://sites``, the documents at
``docs://{kind}/{doc_id}`` that ``search_docs`` links). Tools that inject
``session_id`` get the MCP session: one per stdio connection, the ``Mcp-Session-Id`` of a
streamable-HTTP session. The profiles are keyed by session, so over MCP ``get_profile``
answers that this session has none: the model cannot pick another user's session.

The 2026-07-28 wire has no sessions: served stateless, ``server``'s session is the verified
caller's (:func:`meta_for`)::

    tooldesign serve-mcp examples.netops.mcp_server:server --transport http --stateless \\
        --auth-token-env NETOPS_OPS_TOKEN --token-scopes NETOPS_OPS_TOKEN=devices:write

With ``NETOPS_TASKS_REDIS=redis://localhost:6379/0`` in the environment, ``server`` keeps its
tasks in that Redis: replicas behind a load balancer share them, and they outlive a restart.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping

from tooldesign.builtin.tool_index import tool_index_registration
from tooldesign.runtime import AuditSink, LogCalls, Runtime, Timeout, ToolCallMeta
from tooldesign.runtime.mcp import McpCallContext, ServerContent, Tasks, ToolServer

from examples.netops.agent import registrations
from examples.netops.services import (
    DocumentService,
    Inventory,
    NotFoundError,
)
from gen.assistant import content as designed
from gen.assistant.toolsets.docs.content import DocumentParameters


def runtime(inventory: Inventory | None = None, *, audit: AuditSink | None = None) -> Runtime:
    """A fresh runtime over ``inventory`` (a fresh one by default), with the tool index; every
    call it answers is recorded by ``audit`` when given (``restart_device`` needs the scope
    ``devices:write`` of a caller whose identity the server verified: docs/mcp.md, "Scopes and
    audit")."""
    served = Runtime(
        registrations(inventory or Inventory()),
        interceptors=[LogCalls(), Timeout(10.0)],
        expose=(NotFoundError,),
        audit=audit,
    )
    served.register(tool_index_registration(served))
    return served


def server() -> ToolServer:
    """The runtime's tools with the example's prompt and resources (:func:`content`), and its
    long-running tools served as tasks (MCP's tasks extension): kept in this process, or, with
    ``NETOPS_TASKS_REDIS`` set to a Redis URL, in Redis, shared by the replicas that name it."""
    inventory = Inventory()
    served = ToolServer(runtime(inventory), meta_for=meta_for)
    content(inventory, DocumentService()).serve_on(served)
    shared = os.environ.get("NETOPS_TASKS_REDIS")
    store = None
    if shared:  # needs the redis extra, which a deployment without it does not install
        from tooldesign.runtime.mcp import RedisTaskStore

        store = RedisTaskStore(shared)
    Tasks(store).serve_on(served)  # check_reachability runs as a task for clients that speak tasks
    return served


def meta_for(context: McpCallContext) -> ToolCallMeta:
    """A call's metadata when no MCP session gives ``session_id`` (a stateless HTTP app, or a
    client that forces 2026-07-28): the verified caller is the session, never a value a client
    or the model picks. Without authentication, the tools that inject it answer that they
    cannot run here."""
    token = context.access_token
    if context.meta.session_id is not None or token is None or not token.subject:
        return context.meta
    return dataclasses.replace(context.meta, session_id=f"sess-{token.subject.lower()}")


def content(inventory: Inventory, documents: DocumentService) -> ServerContent:
    """The prompt and resources the design declares (``design/assistant.py``), served beside
    the tools: ``triage_site`` renders with the function it is bound to; what needs the
    inventory or the documents is given here, by name, to the generated ``content`` module."""

    def site_ids(argument: str, value: str, context: Mapping[str, str]) -> list[str]:
        return [site.id for site in inventory.sites if site.id.startswith(value)]

    def sites() -> str:
        return json.dumps([{"id": s.id, "name": s.name} for s in inventory.sites])

    def collection(kind: str) -> dict[str, str]:
        if kind == "runbooks":
            return {
                r.doc_id: "\n".join(f"1. {step}" for step in r.steps) for r in documents.runbooks
            }
        return {a.doc_id: a.snippet for a in documents.articles}

    def document(address: DocumentParameters) -> str:
        return collection(address.kind)[address.doc_id]  # KeyError: no such document

    def doc_ids(argument: str, value: str, context: Mapping[str, str]) -> list[str]:
        kinds = [context["kind"]] if context.get("kind") else ["runbooks", "articles"]
        return [i for kind in kinds for i in collection(kind) if i.startswith(value)]

    return designed.server_content(
        designed.Handlers(
            complete_triage_site=site_ids, sites=sites, document=document, complete_document=doc_ids
        )
    )
