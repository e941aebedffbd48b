// The TypeScript SDK's Client running a plan of requests against one MCP server, in one process,
// for tests/runtime/mcp/test_clients.py.
//
//   node sdk-client.mjs PLAN.json stdio COMMAND ARGS...   (the client starts the server)
//   node sdk-client.mjs PLAN.json http URL      (with MCP_BEARER_TOKEN set: sent as a bearer token)
//
// PLAN.json: {"sdk": "v1" | "v2", "era": "legacy" | "auto", "elicit": [{"property": P,
// "content": {...}}], "steps": [{"op": OP, ...params}]}. "v1" is @modelcontextprotocol/sdk (the
// 2025-11-25 client most hosts ship), "v2" @modelcontextprotocol/client, whose "era" is its
// versionNegotiation mode ("auto": 2026-07-28 when the server offers it, input_required rounds
// answered by the elicitation handler). An elicitation whose form has property P is accepted with
// that content (no rule: declined). OP is listTools, callTool, listPrompts, getPrompt,
// listResources, listResourceTemplates, readResource, complete or setLoggingLevel; each step's
// params are the request's. Prints one JSON object: {"server", "protocolVersion",
// "capabilities", "steps": [{"result"} | {"error"}], "elicitations", "logs"} (the params of each
// notifications/message).
import { readFileSync } from "node:fs";

const [planFile, kind, ...target] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planFile, "utf8"));

const sdk =
  plan.sdk === "v2"
    ? {
        ...(await import("@modelcontextprotocol/client")),
        ...(await import("@modelcontextprotocol/client/stdio")),
        elicit: "elicitation/create",
        log: "notifications/message",
      }
    : {
        ...(await import("@modelcontextprotocol/sdk/client/index.js")),
        ...(await import("@modelcontextprotocol/sdk/client/stdio.js")),
        ...(await import("@modelcontextprotocol/sdk/client/streamableHttp.js")),
        elicit: (await import("@modelcontextprotocol/sdk/types.js")).ElicitRequestSchema,
        log: (await import("@modelcontextprotocol/sdk/types.js")).LoggingMessageNotificationSchema,
      };
const { Client, StdioClientTransport, StreamableHTTPClientTransport } = sdk;

const transport =
  kind === "stdio"
    ? new StdioClientTransport({ command: target[0], args: target.slice(1), stderr: "inherit" })
    : new StreamableHTTPClientTransport(new URL(target[0]), {
        requestInit: process.env.MCP_BEARER_TOKEN
          ? { headers: { Authorization: `Bearer ${process.env.MCP_BEARER_TOKEN}` } }
          : {},
      });

const client = new Client(
  { name: "tooldesign-tests-sdk-client", version: "1.0.0" },
  {
    capabilities: { elicitation: { form: {} } },
    ...(plan.sdk === "v2" ? { versionNegotiation: { mode: plan.era ?? "legacy" } } : {}),
  },
);
const elicitations = [];
client.setRequestHandler(sdk.elicit, async (request) => {
  const schema = request.params.requestedSchema ?? {};
  elicitations.push({ message: request.params.message, requestedSchema: schema });
  const rule = (plan.elicit ?? []).find((r) => r.property in (schema.properties ?? {}));
  return rule ? { action: "accept", content: rule.content } : { action: "decline" };
});

const logs = [];
client.setNotificationHandler(sdk.log, (notification) => {
  logs.push(notification.params);
});

async function all(list, key, params) {
  // every page of a list method
  const items = [];
  let cursor;
  do {
    const page = await client[list]({ ...params, ...(cursor ? { cursor } : {}) });
    items.push(...page[key]);
    cursor = page.nextCursor;
  } while (cursor);
  return { [key]: items };
}

const run = {
  listTools: () => all("listTools", "tools"),
  listPrompts: () => all("listPrompts", "prompts"),
  listResources: () => all("listResources", "resources"),
  listResourceTemplates: () => all("listResourceTemplates", "resourceTemplates"),
  callTool: ({ name, arguments: args, _meta }) =>
    client.callTool({ name, arguments: args, ...(_meta ? { _meta } : {}) }),
  setLoggingLevel: ({ level }) => client.setLoggingLevel(level),
  getPrompt: ({ name, arguments: args }) => client.getPrompt({ name, arguments: args }),
  readResource: ({ uri }) => client.readResource({ uri }),
  complete: ({ ref, argument, context }) =>
    client.complete({ ref, argument, ...(context ? { context } : {}) }),
};

const steps = [];
let status = 0;
try {
  await client.connect(transport);
  for (const { op, ...params } of plan.steps) {
    try {
      steps.push({ result: await run[op](params) });
    } catch (error) {
      steps.push({ error: { code: error.code ?? null, message: String(error.message ?? error) } });
    }
  }
} catch (error) {
  steps.push({ error: { code: error.code ?? null, message: String(error.message ?? error) } });
  status = 1;
}
const answer = {
  server: client.getServerVersion() ?? null,
  protocolVersion: client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion ?? null,
  capabilities: client.getServerCapabilities() ?? null,
  steps,
  elicitations,
  logs,
};
await client.close().catch(() => {});
process.stdout.write(JSON.stringify(answer) + "\n");
process.exit(status);
