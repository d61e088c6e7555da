// Runs the Vercel AI SDK's Google provider (@ai-sdk/google) on tool schemas and prints the function
// declarations it would send: argv[2] is a JSON file [{id, name, schema}]; out: {id: {ok: declaration} | {raise}}.
// The request never leaves the process: a fetch that throws hands back the request body.
import fs from 'node:fs';
import { createGoogleGenerativeAI } from '@ai-sdk/google';

const cases = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const google = createGoogleGenerativeAI({
  apiKey: 'offline',
  fetch: async (_url, init) => { throw Object.assign(new Error('offline'), { body: init.body }); },
});
const out = {};
for (const c of cases) {
  try {
    await google('gemini-2.5-flash').doGenerate({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tools: [{ type: 'function', name: c.name, description: 'd', inputSchema: c.schema }],
    });
    out[c.id] = { raise: 'no request was made' };
  } catch (e) {
    const body = e.requestBodyValues ?? (e.body ? JSON.parse(e.body) : e.cause?.body ? JSON.parse(e.cause.body) : undefined);
    out[c.id] = body ? { ok: body.tools[0].functionDeclarations[0] } : { raise: `${e.name}: ${String(e.message).slice(0, 200)}` };
  }
}
process.stdout.write(JSON.stringify(out));
