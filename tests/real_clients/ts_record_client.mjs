// The real TypeScript SDK client (npm @modelcontextprotocol/sdk 1.x) for the `record` tests: connect over stdio,
// answer elicitation requests (accept, {"ok": true}), list the tools, make a fixed set of calls
// (tests/servers/traffic_server.py's tools), and print one JSON line per answer: the listing, then each result
// (or {"error": message}) exactly as the client returns it.
//
// usage: node ts_record_client.mjs COMMAND [ARGS...]   (stdio; packages resolved from $SDK_PREFIX)
//        node ts_record_client.mjs http://127.0.0.1:PORT/mcp   (Streamable HTTP)
import { createRequire } from "node:module";
import path from "node:path";

const [command, ...args] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(process.env.SDK_PREFIX || process.cwd()), "noop.js"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { ElicitRequestSchema } = require("@modelcontextprotocol/sdk/types.js");
const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
console.log = (...a) => process.stderr.write(a.join(" ") + "\n");

const client = new Client({ name: "schema-audit-record-test", version: "0.0.0" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { ok: true } }));
const env = { ...process.env, TRAFFIC_TOKEN: "tok-5f3a9c1e77-secret" };
await client.connect(
  command.startsWith("http")
    ? new StreamableHTTPClientTransport(new URL(command))
    : new StdioClientTransport({ command, args, stderr: "ignore", env }),
);
out(await client.listTools());
const calls = [
  ["add", { a: 1, b: 2 }],
  ["weather", { city: "Oslo" }],
  ["progress", { steps: 3 }],
  ["fail", { reason: "nope" }],
  ["echo_secret", {}],
  ["confirm", { question: "sure?" }],
];
for (const [name, a] of calls) {
  try {
    out(await client.callTool({ name, arguments: a }, undefined, { onprogress: (p) => out({ progress: p }) }));
  } catch (err) {
    out({ error: String(err && err.message ? err.message : err) });
  }
}
await client.close();
