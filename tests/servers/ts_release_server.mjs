// The mail server of release_server.py built on the TypeScript SDK v2 (@modelcontextprotocol/server McpServer),
// to measure which 2026-07-28 fields that SDK emits itself: ttlMs/cacheScope on lists (cacheHints), x-mcp-header
// (zod .meta()), capabilities.extensions (passed as a capability), input_required (the inputRequired() builder).
// Nothing is written by hand on the wire: what the SDK does not emit is simply absent. Releases: 1 (1.0.0); 2
// (1.1.0: x-mcp-header renamed, tools/list cached longer and private, an extension removed and one retyped,
// forward asks for input); 3 (release 1 plus lookup, whose number parameter carries an invalid x-mcp-header).
// usage: node ts_release_server.mjs RELEASE PORT   (Streamable HTTP on http://127.0.0.1:PORT/mcp)
//        node ts_release_server.mjs RELEASE        (stdio)
// SDK_PREFIX names the npm prefix holding @modelcontextprotocol/server@2, @modelcontextprotocol/node and zod 4.
import { createRequire } from "node:module";
import http from "node:http";
import path from "node:path";

const prefix = process.env.SDK_PREFIX;
const require = createRequire(path.join(prefix, "node_modules", "x.js"));
const load = (name) => import(require.resolve(name));
const sdk = await load("@modelcontextprotocol/server");
const zmod = await load("zod");
const z = zmod.z ?? zmod.default ?? zmod;
const [release, port] = [Number(process.argv[2]), process.argv[3]];
const DAY_MS = 86_400_000;

function build() {
  const [ttlMs, scope] = release === 2 ? [2 * DAY_MS, "private"] : [DAY_MS, "public"];
  const extensions = { "com.example/search": { maxResults: release === 2 ? "10" : 10 } };
  if (release !== 2) extensions["com.example/audit"] = {};
  const server = new sdk.McpServer(
    { name: "mail", version: release === 1 ? "1.0.0" : "1.1.0" },
    { capabilities: { extensions }, cacheHints: { "tools/list": { ttlMs, cacheScope: scope } } },
  );
  const header = release === 2 ? "Recipient" : "To";
  server.registerTool(
    "send",
    {
      description: "Send a message.",
      inputSchema: z.object({ to: z.string().meta({ "x-mcp-header": header }), body: z.string() }),
    },
    async ({ to }) => ({ content: [{ type: "text", text: `sent to ${to}` }] }),
  );
  server.registerTool(
    "forward",
    { description: "Forward the last message.", inputSchema: z.object({ to: z.string() }) },
    async ({ to }) => {
      if (release !== 2) return { content: [{ type: "text", text: `forwarded to ${to}` }] };
      return sdk.inputRequired({
        inputRequests: {
          confirm: sdk.inputRequired.elicit({
            message: "Confirm the forward",
            requestedSchema: {
              type: "object",
              properties: { ok: { type: "boolean" }, address: { type: "object", properties: {} } },
            },
          }),
        },
        requestState: "forward-1",
      });
    },
  );
  if (release === 3) {
    // an x-mcp-header on a number property (invalid): the SDK only warns on stderr and serves the tool as declared
    server.registerTool(
      "lookup",
      {
        description: "Find messages by spam score.",
        inputSchema: z.object({ score: z.number().meta({ "x-mcp-header": "Score" }) }),
      },
      async ({ score }) => ({ content: [{ type: "text", text: `score ${score}` }] }),
    );
  }
  return server;
}

if (port) {
  const { toNodeHandler } = await load("@modelcontextprotocol/node");
  const handler = toNodeHandler(sdk.createMcpHandler(() => build()));
  http
    .createServer((req, res) => {
      if (!req.url?.startsWith("/mcp")) {
        res.writeHead(404).end();
        return;
      }
      handler(req, res);
    })
    .listen(Number(port), "127.0.0.1");
} else {
  const { serveStdio } = await load("@modelcontextprotocol/server/stdio");
  await serveStdio(() => build());
}
