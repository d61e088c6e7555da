// For each zod 4 field shape: the inputSchema zod's own converter lists for z.object({k: shape}), and zod's own
// message when k is left out (tests/test_server_validators.py holds schema-audit's words against them).
// usage: SDK_PREFIX=<npm prefix with zod 4> node zod_missing_words.mjs   → JSON lines {"field", "schema", "message"}
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.SDK_PREFIX, "node_modules", "x.js"));
const zmod = await import(require.resolve("zod"));
const z = zmod.z ?? zmod.default ?? zmod;
const shapes = {
  units: z.enum(["metric", "imperial"]),
  city: z.string(),
  days: z.number().int(),
  ratio: z.number(),
  on: z.boolean(),
  opts: z.object({ x: z.string() }),
  tags: z.array(z.string()),
  kind: z.literal("x"),
  either: z.union([z.string(), z.number()]),
  maybe: z.string().nullable(),
};
for (const [field, shape] of Object.entries(shapes)) {
  const object = z.object({ [field]: shape });
  const message = object.safeParse({}).error.issues[0].message;
  console.log(JSON.stringify({ field, schema: z.toJSONSchema(object), message }));
}
