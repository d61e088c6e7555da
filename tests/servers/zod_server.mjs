// A TypeScript SDK server whose tools are zod objects; every tool answers with the arguments it parsed (JSON text).
// usage: node zod_server.mjs RELEASE MODE [WIRING]
//   RELEASE old|new: the two versions whose difference tests/test_server_validators.py audits;
//   MODE strip|strict|passthrough: z.object as written, .strict(), .passthrough();
//   WIRING mcpserver (default: McpServer.registerTool, the SDK converts and validates) or lowlevel (the low-level
//   Server: tools/list from zod's own JSON Schema converter in its default mode, calls parsed with safeParse, the
//   pattern of hand-wired servers).
// SDK_PREFIX names the npm prefix holding @modelcontextprotocol/sdk@1 and the zod under test (3 or 4).
import { createRequire } from "node:module";
import path from "node:path";

const prefix = process.env.SDK_PREFIX;
const require = createRequire(path.join(prefix, "node_modules", "x.js"));
const load = (name) => import(require.resolve(name));
const zmod = await load("zod");
const z = zmod.z ?? zmod.default ?? zmod;
const [release, mode, wiring = "mcpserver"] = process.argv.slice(2);
const old = release === "old";

const shape = (fields) => {
  const o = z.object(fields);
  if (mode === "strict") return o.strict();
  if (mode === "passthrough") return o.passthrough();
  return o;
};

const zod4 = typeof z.ipv6 === "function"; // zod 4's top-level formats (zod 3: z.string().ip() …)
const tools = old
  ? {
      drop_optional: { a: z.string(), b: z.string().optional() },
      renamed: { query: z.string() },
      required_added: { a: z.string() },
      default_added: { a: z.string() },
      type_narrowed: { n: z.number() },
      enum_narrowed: { e: z.enum(["a", "b", "c"]) },
      nested_drop: { opts: shape({ x: z.string(), y: z.string().optional() }) },
      min_length: { s: z.string() },
      max_lowered: { n: z.number().max(10) },
      step_float: { x: z.union([z.literal(0.3), z.literal(0.7)]) },
      step_added: { x: z.number() },
      step_big: { x: z.number().int().min(4e15).max(9e15) },
      pattern_digit: { x: z.string().regex(/^[a-z\u0663]+$/) },
      length_max: { x: z.enum(["\u{1F600}\u{1F600}", "ab"]) },
      length_min: { x: z.enum(["\u{1F600}", "ab"]) },
      pattern_units: { x: z.enum(["\u{1F600}\u{1F600}", "ab"]) },
      format_email: { x: z.enum(["a@b.c", "x@y.co"]) },
      format_datetime: { x: z.enum(["2020-01-01t00:00:00z", "2020-01-01T00:00:00Z"]) },
      format_ipv6: { x: z.enum(["::ffff:1.2.3.4", "::1"]) },
      format_emoji: { x: z.enum(["\u{1F600}", "\u{1F44D}\u{1F44D}", "#"]) },
      format_ulid: { x: z.enum(["01arz3ndektsv4rrffq69g5fav", "01ARZ3NDEKTSV4RRFFQ69G5FAV"]) },
      flags_i: { x: z.enum(["ABC", "abc"]) },
      added_email: { x: z.string() },
      added_url: { x: z.string() },
      flags_s: { x: z.enum(["a\nb", "axb"]) },
      step_small: { x: z.union([z.literal(0.00007), z.literal(0.00021)]) },
      time_precision: { x: z.enum(["00:00:00.000:00.000", "00:00:00.000"]) },
    }
  : {
      drop_optional: { a: z.string() },
      renamed: { q: z.string() },
      required_added: { a: z.string(), d: z.string() },
      default_added: { a: z.string(), c: z.string().default("filled") },
      type_narrowed: { n: z.number().int() },
      enum_narrowed: { e: z.enum(["a", "b"]) },
      nested_drop: { opts: shape({ x: z.string() }) },
      min_length: { s: z.string().min(3) },
      max_lowered: { n: z.number().max(5) },
      step_float: { x: z.number().multipleOf(0.1) }, // zod's float-safe remainder takes 0.3 and 0.7
      step_added: { x: z.number().multipleOf(0.5) },
      step_big: { x: z.number().int().min(4e15).max(9e15).multipleOf(7) }, // zod 4: within tolerance
      pattern_digit: { x: z.string().regex(/^[a-z\d]+$/) }, // JavaScript's \d is ASCII: "\u0663" is refused
      // zod 3 measures String.length (UTF-16 code units: an emoji is 2), zod 4 code points
      length_max: { x: z.string().max(2) },
      length_min: { x: z.string().min(2) },
      // zod runs the regex as written, without the u flag: "." is one UTF-16 code unit, half an emoji
      pattern_units: { x: z.string().regex(/^.{1,2}$/) },
      // zod 3 lists only the format and checks with its own code: a two-letter TLD, an upper-case T and Z
      format_email: { x: z.string().email() },
      format_datetime: { x: z.string().datetime() },
      // zod checks these with its own code, not the pattern it lists (or lists it without the flags it runs)
      format_ipv6: { x: zod4 ? z.ipv6() : z.string().ip({ version: "v6" }) }, // zod 4: new URL("http://[…]")
      format_emoji: { x: zod4 ? z.emoji() : z.string().emoji() }, // a \p{…} pattern, run with the u flag
      format_ulid: { x: zod4 ? z.ulid() : z.string().ulid() }, // zod 3: /…/i, listed without the i
      flags_i: { x: z.string().regex(/^abc$/i) }, // the listing keeps ^abc$ only
      added_email: { x: zod4 ? z.email() : z.string().email() }, // zod 3: a bare format zod checks
      added_url: { x: zod4 ? z.url() : z.string().url() }, // new URL(): zod 4 lists it bare too ("uri")
      flags_s: { x: z.string().regex(/^a.b$/s) }, // "." takes a newline under s; the listing keeps ^a.b$
      step_small: { x: z.number().multipleOf(0.00001) }, // zod 3: String(0.00007) is "0.00007", 5 places
      // zod 3: (:ss.sss)+, listed as a plain "time"; zod 4 lists a bare pattern and words it as its own time check
      time_precision: { x: zod4 ? z.iso.time({ precision: 3 }) : z.string().time({ precision: 3 }) },
    };

const answer = (args) => ({ content: [{ type: "text", text: JSON.stringify(args) }] });
const info = { name: "zod-validators", version: old ? "1.0.0" : "2.0.0" };

if (wiring === "mcpserver") {
  const { McpServer } = await load("@modelcontextprotocol/sdk/server/mcp.js");
  const { StdioServerTransport } = await load("@modelcontextprotocol/sdk/server/stdio.js");
  const server = new McpServer(info);
  for (const [name, fields] of Object.entries(tools)) {
    server.registerTool(name, { description: name, inputSchema: shape(fields) }, async (args) => answer(args));
  }
  await server.connect(new StdioServerTransport());
} else {
  const { Server } = await load("@modelcontextprotocol/sdk/server/index.js");
  const { StdioServerTransport } = await load("@modelcontextprotocol/sdk/server/stdio.js");
  const types = await load("@modelcontextprotocol/sdk/types.js");
  const objects = Object.fromEntries(Object.entries(tools).map(([name, fields]) => [name, shape(fields)]));
  const jsonSchema = async (schema) => {
    if (typeof z.toJSONSchema === "function") return z.toJSONSchema(schema); // zod 4, its default (output) mode
    const { zodToJsonSchema } = await load("zod-to-json-schema");
    return zodToJsonSchema(schema); // zod 3
  };
  const listed = [];
  for (const [name, schema] of Object.entries(objects)) {
    listed.push({ name, description: name, inputSchema: await jsonSchema(schema) });
  }
  const server = new Server(info, { capabilities: { tools: {} } });
  server.setRequestHandler(types.ListToolsRequestSchema, async () => ({ tools: listed }));
  server.setRequestHandler(types.CallToolRequestSchema, async (request) => {
    const schema = objects[request.params.name];
    const parsed = schema.safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      const text = parsed.error.issues.map((i) => i.message + (i.path.length ? ` at ${i.path.join(".")}` : "")).join("\n");
      return { isError: true, content: [{ type: "text", text: `Invalid arguments for ${request.params.name}: ${text}` }] };
    }
    return answer(parsed.data);
  });
  await server.connect(new StdioServerTransport());
}
