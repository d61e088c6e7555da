// A TypeScript SDK 1.x McpServer with one read-only tool whose required argument carries examples the way the
// probe --auto advice says: zod 4's .meta({examples}) (and zod 3's .describe(), which gives none).
// usage: SDK_PREFIX=<npm prefix with @modelcontextprotocol/sdk@1 and zod> node zod_examples_server.mjs
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.SDK_PREFIX, "node_modules", "x.js"));
const load = (name) => import(require.resolve(name));
const zmod = await load("zod");
const z = zmod.z ?? zmod.default ?? zmod;
const { McpServer } = await load("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = await load("@modelcontextprotocol/sdk/server/stdio.js");

const query = typeof z.string().meta === "function"
  ? z.string().meta({ examples: ["inbox"] }) // zod 4
  : z.string().describe("a folder, e.g. inbox"); // zod 3: words only
const server = new McpServer({ name: "zod-examples", version: "1.0.0" });
server.registerTool(
  "search",
  { description: "search a folder", inputSchema: { folder: query }, annotations: { readOnlyHint: true } },
  async ({ folder }) => ({ content: [{ type: "text", text: `searched ${folder}` }] }),
);
await server.connect(new StdioServerTransport());
