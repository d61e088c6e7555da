// Validate JSON instances with real Ajv, configured the way the MCP TypeScript SDKs configure it.
//
// stdin:  one JSON object per line  {"schema": <schema>, "instance": <value>, "profile": "ts-sdk-v1"|"ts-sdk-v2"}
// stdout: one JSON object per line  {"valid": bool, "errors": "<ajv.errorsText>", "class": "<Ajv class used>"}
//         plus "compile_error": true when the schema does not compile (the host then rejects every value:
//         v1 throws from listTools(), v2 throws "invalid outputSchema" before the call).
//
// Profiles (see /work/shared/notes/mcp-protocol-and-sdk.md §3):
//   ts-sdk-v1: draft-07 class `ajv` for every schema ($schema ignored; 2020-12-only keywords ignored);
//   ts-sdk-v2: class chosen by $schema: none or 2020-12 -> ajv/dist/2020, 2019-09 -> ajv/dist/2019,
//              draft-07/06 -> ajv (draft-07); any other URI -> "unsupported dialect" (compile error).
//   Both: {strict:false, validateFormats:true, validateSchema:false, allErrors:true} + ajv-formats.
//
// A line {"formats": true} is answered with ajv-formats' own table instead: {"names": [its format names],
// "regexes": {name: [source, flags]} for the formats that are regular expressions, "text": its formats.js}
// (tests/test_ajv_crosscheck.py compares the engine's port, mcp_schema_audit/schema/formats.py, with it).
//
// ajv and ajv-formats are resolved from $AJV_PREFIX (an `npm install --prefix` directory), else from the
// current working directory, else via NODE_PATH -- not from this file's location, so the repository
// needs no node_modules.
import { createRequire } from "node:module";
import path from "node:path";
import readline from "node:readline";

const base = process.env.AJV_PREFIX || process.cwd();
const require = createRequire(path.join(path.resolve(base), "noop.js"));
const load = (name) => {
  const mod = require(name);
  return mod.default || mod;
};
const Ajv07 = load("ajv");
const Ajv2019 = load("ajv/dist/2019");
const Ajv2020 = load("ajv/dist/2020");
const addFormats = load("ajv-formats");
const formatsModule = require("ajv-formats/dist/formats");

function formatTable() {
  const regexes = {};
  for (const [name, def] of Object.entries(formatsModule.fullFormats)) {
    const rx = def instanceof RegExp ? def : def && def.validate instanceof RegExp ? def.validate : null;
    if (rx) regexes[name] = [rx.source, rx.flags];
  }
  const fs = require("node:fs");
  const text = fs.readFileSync(require.resolve("ajv-formats/dist/formats"), "utf8");
  return { names: formatsModule.formatNames, regexes, text };
}

const OPTIONS = { strict: false, validateFormats: true, validateSchema: false, allErrors: true };

function dialectOf(schema) {
  if (schema === null || typeof schema !== "object" || typeof schema.$schema !== "string") return "2020-12";
  const uri = schema.$schema.replace(/#$/, "");
  return {
    "https://json-schema.org/draft/2020-12/schema": "2020-12",
    "https://json-schema.org/draft/2019-09/schema": "2019-09",
    "http://json-schema.org/draft-07/schema": "draft-07",
    "http://json-schema.org/draft-06/schema": "draft-06",
  }[uri] || "unknown:" + schema.$schema;
}

function classFor(schema, profile) {
  if (profile === "ts-sdk-v1") return ["ajv", Ajv07];
  if (profile !== "ts-sdk-v2") throw new Error(`unknown profile ${profile}`);
  const d = dialectOf(schema);
  if (d === "2020-12") return ["ajv/dist/2020", Ajv2020];
  if (d === "2019-09") return ["ajv/dist/2019", Ajv2019];
  if (d === "draft-07" || d === "draft-06") return ["ajv", Ajv07];
  throw new Error(`unsupported dialect: ${schema.$schema}`);
}

function compile(schema, profile) {
  const [name, Cls] = classFor(schema, profile);
  // A fresh instance per schema: schemas with the same $id must not collide.
  const fresh = () => {
    const ajv = new Cls(OPTIONS);
    addFormats(ajv);
    return ajv;
  };
  let ajv = fresh();
  try {
    return { name, ajv, validate: ajv.compile(schema) };
  } catch (err) {
    // Ajv may refuse an unknown meta-schema URI; the SDKs do not validate schemas, so drop $schema.
    if (schema && typeof schema === "object" && "$schema" in schema && /no schema with key or ref/.test(String(err))) {
      const { $schema, ...rest } = schema;
      ajv = fresh();
      return { name: name + " ($schema stripped)", ajv, validate: ajv.compile(rest) };
    }
    throw err;
  }
}

const cache = new Map();
// Ajv warns about unknown formats on console.warn; keep stdout clean for the protocol.
console.warn = (...args) => process.stderr.write(args.join(" ") + "\n");
console.log = console.warn;

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  let out;
  try {
    const request = JSON.parse(line);
    if (request.formats === true) {
      process.stdout.write(JSON.stringify(formatTable()) + "\n");
      continue;
    }
    const { schema, instance, profile } = request;
    const key = profile + "\u0000" + JSON.stringify(schema);
    let entry = cache.get(key);
    if (entry === undefined) {
      try {
        entry = compile(schema, profile);
      } catch (err) {
        entry = { error: String(err && err.message ? err.message : err) };
      }
      cache.set(key, entry);
    }
    if (entry.error !== undefined) {
      out = { valid: false, errors: "compile: " + entry.error, compile_error: true };
    } else {
      const valid = entry.validate(instance);
      out = { valid: !!valid, errors: valid ? "" : entry.ajv.errorsText(entry.validate.errors), class: entry.name };
    }
  } catch (err) {
    out = { valid: false, errors: "bad request: " + String(err), compile_error: true };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
