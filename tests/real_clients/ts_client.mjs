// A real TypeScript SDK client, as hosts use it: connect over stdio, list the tools once (the client caches
// their outputSchemas), call every listed tool with no arguments, print one JSON line per call:
//   {"tool": "<name>", "ok": true} | {"tool": "<name>", "ok": false, "error": "<the message the client threw>"}
// and a first line {"listed": N, "package": "<name>@<version>"}.
//
// usage: node ts_client.mjs v1|v2|v2-auto COMMAND [ARGS...]
//   v1: npm @modelcontextprotocol/sdk 1.x  (Client from client/index, StdioClientTransport from client/stdio)
//   v2: npm @modelcontextprotocol/client 2.x (default version negotiation: the 2025 era)
//   v2-auto: the same with versionNegotiation {mode: "auto"} (2026-07-28 with a server that speaks it)
// The packages are resolved from $SDK_PREFIX (an `npm install --prefix` directory), not from this file's
// location, so the repository needs no node_modules.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const [line, command, ...args] = process.argv.slice(2);
const base = process.env.SDK_PREFIX || process.cwd();
const require = createRequire(path.join(path.resolve(base), "noop.js"));
const version = (name) =>
  JSON.parse(fs.readFileSync(path.join(path.resolve(base), "node_modules", name, "package.json"), "utf8")).version;
const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
console.log = (...a) => process.stderr.write(a.join(" ") + "\n");
console.warn = console.log;

let Client, StdioClientTransport, pkg;
if (line === "v1") {
  ({ Client } = require("@modelcontextprotocol/sdk/client/index.js"));
  ({ StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js"));
  pkg = "@modelcontextprotocol/sdk@" + version("@modelcontextprotocol/sdk");
} else if (line === "v2" || line === "v2-auto") {
  ({ Client } = require("@modelcontextprotocol/client"));
  ({ StdioClientTransport } = require("@modelcontextprotocol/client/stdio"));
  pkg = "@modelcontextprotocol/client@" + version("@modelcontextprotocol/client");
} else {
  process.stderr.write("usage: node ts_client.mjs v1|v2|v2-auto COMMAND [ARGS...]\n");
  process.exit(2);
}

const options = line === "v2-auto" ? { versionNegotiation: { mode: "auto" } } : {};
const client = new Client({ name: "schema-audit-real-client-test", version: "0.0.0" }, options);
await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
const { tools } = await client.listTools();
out({ listed: tools.length, package: pkg });
for (const tool of tools) {
  try {
    await client.callTool({ name: tool.name, arguments: {} });
    out({ tool: tool.name, ok: true });
  } catch (err) {
    out({ tool: tool.name, ok: false, error: String(err && err.message ? err.message : err) });
  }
}
await client.close();
