"""Rules about real results: what ``probe`` (and ``diff``/``history --samples``) finds in the structuredContent a
server really returned, and about the probe run itself."""

from __future__ import annotations

from mcp_schema_audit.rules.record import Rule

#: Rules about real results, in catalog order.
RULES = [
    Rule(
        id="result-violates-own-schema",
        direction="output",
        severity="breaking",
        family="probe",
        title="Real result rejected by the tool's own outputSchema",
        rationale=(
            "The server sent structuredContent that its own current outputSchema rejects: every host "
            "that validates results fails the call, even right after listing the tools (a format "
            "mismatch breaks only the hosts that check formats: the TS SDKs). Typical cause: a "
            "backend that adds fields to a closed (zod) object."
        ),
        before=(
            'outputSchema {"type": "object", "properties": {"id": {"type": "string"}}, "additionalProperties": false}'
        ),
        after='structuredContent {"id": "c-1", "_svc": {"region": "eu"}}',
        error=(
            "MCP error -32602: Structured content does not match the tool's output schema: data must NOT "
            "have additional properties"
        ),
        source=(
            "MCP spec 2025-06-18+ server/tools §Output Schema: clients SHOULD validate structured "
            "results (servers MUST conform); python-sdk: jsonschema validation of structuredContent "
            "against the cached outputSchema (mcp client session); TS SDK: Ajv validation of "
            "structuredContent (-32602 Structured content does not match the tool's output schema)"
        ),
        fix=(
            "make the server send what its schema declares (drop the extra fields before returning, or "
            "declare them), or open the schema in a release hosts list first"
        ),
    ),
    Rule(
        id="result-missing-structured-content",
        direction="output",
        severity="breaking",
        family="probe",
        title="Result without structuredContent",
        rationale=(
            "The tool declares an outputSchema, the result is not isError, and it carries no "
            "structuredContent: SDK clients refuse it (the TS SDK client throws; python-sdk raises)."
        ),
        before='outputSchema {"type": "object"}',
        after='result {"content": [{"type": "text", "text": "ok"}]}',
        error="MCP error -32600: Tool t has an output schema but did not return structured content",
        source="python-sdk ClientSession.validate_tool_result; TS SDK Client.callTool",
        fix=(
            "always return structuredContent when the tool declares an outputSchema (or return isError: "
            "true for failures)"
        ),
    ),
    Rule(
        id="result-malformed",
        direction="output",
        severity="breaking",
        family="probe",
        title="Result the SDK client cannot parse",
        rationale=(
            "The result is not a valid CallToolResult for the host's SDK: python-sdk's wire model "
            "for the negotiated revision refuses it, or the TS SDK parser (zod) refuses a "
            "structuredContent that is not a JSON object on a connection up to 2025-11-25, or the result "
            "holds a number JSON cannot hold (NaN, Infinity), which JSON.parse refuses (such a result is "
            "neither checked nor recorded). The call fails before any schema is looked at. On a "
            "2026-07-28 connection structuredContent may be any JSON value, null included: it is judged "
            "against the outputSchema like any other (ts-sdk-v1, which speaks nothing newer than "
            "2025-11-25, is not judged on such a value)."
        ),
        before='result {"content": [], "structuredContent": {"ok": true}}',
        after='result {"content": [], "structuredContent": [1, 2]}',
        error="pydantic ValidationError / ZodError on the tools/call result",
        source=(
            "MCP spec 2025-06-18..2025-11-25 CallToolResult.structuredContent is an object (2026-07-28: any JSON "
            "value); mcp_types wire models"
        ),
        fix=(
            'return structuredContent as a JSON object (wrap other values as {"result": …} on connections '
            "at or below 2025-11-25)"
        ),
    ),
    Rule(
        id="result-rejected-by-cached-schema",
        direction="output",
        severity="breaking",
        family="probe",
        title="Real result rejected by a cached outputSchema",
        rationale=(
            "The server's current outputSchema accepts the result (or the tool declares none now), "
            "but a version hosts may still have cached (the cohort named in the finding) rejects it: "
            "the proof, with a real payload, that this release breaks cached hosts until they list "
            "the tools again."
        ),
        before='cached outputSchema {"type": "object", "properties": {"status": {"enum": ["queued", "sent"]}}}',
        after='structuredContent {"status": "scheduled"}',
        error="'scheduled' is not one of ['queued', 'sent']",
        source=(
            "python-sdk: jsonschema validation of structuredContent against the cached outputSchema "
            "(mcp client session); TS SDK: Ajv validation of structuredContent (-32602 Structured "
            "content does not match the tool's output schema); hosts validate against the outputSchema "
            "cached at tools/list"
        ),
        fix=(
            "keep sending results the cached schema accepts until hosts re-listed (ship the schema change "
            "first, the new values in a later release)"
        ),
    ),
    Rule(
        id="result-undecided",
        direction="output",
        severity="warning",
        family="probe",
        title="Real result not decided: its check was refused as too costly",
        rationale=(
            "Checking the result against an outputSchema needs a regex search that the bounds of "
            "docs/security.md refuse (a pattern over the size limits, a counted repeat too large to "
            "run, a search the step budget stops) or a schema no validator runs in bounded time. The "
            "host's own validator may accept or reject the result, or hang: the probe does not know, "
            "and says so rather than calling the result valid or invalid."
        ),
        before='outputSchema {"properties": {"code": {"type": "string", "pattern": "^(x0|x1|…|x2500)$"}}}',
        after='structuredContent {"code": "x7"}',
        error="(undecided: no host error is claimed)",
        source="docs/security.md (regex size, pattern regexes): a refused search is undecided, never a verdict",
        fix=(
            "simplify the pattern (fewer alternatives, smaller counts: an enum for a list of values, "
            "maxLength for a length) so validators can check results in bounded time"
        ),
    ),
    Rule(
        id="result-text-missing",
        direction="output",
        severity="warning",
        family="probe",
        title="structuredContent without its JSON as text",
        rationale=(
            "The spec asks a tool that returns structuredContent to also return the serialized JSON "
            "in a text content block, so clients that ignore structuredContent (older ones, plain "
            "chat hosts) still see the result. It is reported only where the tool's author can fix it: "
            "the text blocks of a value the Python SDK's MCPServer wraps as {\"result\": …} are that SDK's "
            "own rendering (a str as itself, None as no block, a list item by item), so every -> str tool "
            "would warn; they are not reported, and a report note names the calls and the SDK."
        ),
        before='result {"structuredContent": {"a": 1}, "content": [{"type": "text", "text": "{\\"a\\": 1}"}]}',
        after='result {"structuredContent": {"a": 1}, "content": []}',
        error="(no error: clients that read only content show an empty result)",
        source="MCP spec 2025-06-18+ server/tools §Structured Content (SHOULD also return the serialized JSON)",
        fix="add a text content block with json.dumps(structuredContent)",
    ),
    Rule(
        id="call-tool-error",
        direction="tool",
        severity="info",
        family="probe",
        title="Call returned a tool error (isError)",
        rationale=(
            "The tool ran and reported an error (isError: true); its result is not a schema verdict. "
            "Check the arguments in the calls file. Python and TS SDK v2 clients skip outputSchema "
            "validation of error results; TS SDK v1 validates a structuredContent there too."
        ),
        before='call {"tool": "get_chart", "arguments": {"id": 1}}',
        after='result {"isError": true, "content": [...]}',
        error="the tool's own error text, e.g. Error executing tool get_chart",
        source="MCP spec server/tools §Error Handling",
        fix="fix the call's arguments in the calls file (or the tool): a probe needs a result to check",
    ),
    Rule(
        id="input-call-rejected",
        direction="input",
        severity="breaking",
        family="probe",
        title="A call the cached inputSchema allows was rejected by the server",
        rationale=(
            "probe --against: a call whose arguments the cached version's inputSchema allows and the served "
            "one does not was answered with an error (isError or a JSON-RPC error): hosts that cached the old "
            "listing build such calls, and the server really rejects them. The call's arguments are the "
            "witness and the server's own answer is the error; a call valid under both inputSchemas that "
            "fails is the tool's own error (call-tool-error)."
        ),
        before='inputSchema {"type": "object", "properties": {"q": {"type": "string"}}} ; call {"q": "a b"}',
        after='inputSchema {"type": "object", "properties": {"q": {"type": "string", "pattern": "^\\\\S+$"}}}',
        error="MCP error -32602: Input validation error: 'a b' does not match '^\\\\S+$'",
        source=(
            "MCP spec 2025-11-25 server/tools §Error Handling (input validation errors are tool execution "
            "errors); the real call's answer"
        ),
        fix="accept what the cached inputSchema allows (keep the old arguments valid), or version the tool",
    ),
    Rule(
        id="call-rpc-error",
        direction="tool",
        severity="info",
        family="probe",
        title="Call answered with a JSON-RPC error",
        rationale=(
            "The server answered the tools/call with a protocol error (unknown tool, invalid "
            "arguments, an internal error) or a result the probe cannot continue (resultType other "
            "than complete): no result to check."
        ),
        before='call {"tool": "get_chart", "arguments": {}}',
        after='error {"code": -32602, "message": "Invalid params"}',
        error="MCP error -32602: Invalid params",
        source="JSON-RPC 2.0 §5.1; MCP spec server/tools §Error Handling",
        fix="fix the call in the calls file (tool name, arguments) or the server's handler",
    ),
    Rule(
        id="call-timeout",
        direction="tool",
        severity="info",
        family="probe",
        title="Call got no answer in time",
        rationale=(
            "No answer within --call-timeout (or the run's --timeout was spent before the call was "
            "made): no result to check. A server that exits or breaks the protocol fails the whole "
            "run instead (exit 3)."
        ),
        before='call {"tool": "slow_report"}',
        after="(no answer)",
        error="MCP error -32001: Request 'tools/call' timed out",
        source="schema-audit probe --call-timeout/--timeout; MCP spec basic/utilities/cancellation",
        fix="raise --call-timeout / --timeout, or call the tool with arguments that answer quickly",
    ),
    Rule(
        id="call-tool-not-listed",
        direction="tool",
        severity="info",
        family="probe",
        title="Call of a tool the server does not list",
        rationale=(
            "The calls file names a tool the probed server does not list (one release adds it, another "
            "removed it), so the call is not made: a host calls only what a listing gave it, and one calls "
            "file serves every release. The message names the --against versions that list the tool, whose "
            "hosts still call it (diff reports the removal). A calls file that names no listed tool at all "
            "is exit 2: a typo or the wrong server."
        ),
        before='calls file {"calls": [{"tool": "get_chart"}, {"tool": "export_chart"}]}',
        after="the server lists get_chart only",
        error="(not called: a call would fail with Unknown tool: export_chart)",
        source="schema-audit probe --calls (docs/cli.md); MCP spec server/tools: tools/call names a listed tool",
    ),
    Rule(
        id="call-result-too-large",
        direction="tool",
        severity="warning",
        family="probe",
        title="Result too large to check",
        rationale=(
            "The result's JSON is larger than the probe's limit, so it was neither checked nor "
            "recorded: hosts may still reject it."
        ),
        before='call {"tool": "export"}',
        after="result of more than 16 MiB",
        error="(not checked: over the probe's MAX_RESULT_CHARS)",
        source="schema-audit probe limits (docs/security.md, Bounded work)",
        fix="page or trim large results",
    ),
]

#: Rules about a probe run as a whole (listed last in the catalog, so the rule indices of SARIF logs stay put).
RUN_RULES = [
    Rule(
        id="probe-nothing-checked",
        direction="tool",
        severity="warning",
        family="probe",
        title="Probe checked no result against a schema",
        rationale=(
            "A probe proves something only with results it held against an outputSchema. When no "
            "tool was eligible (--auto calls only tools annotated readOnlyHint: true whose required "
            "arguments it can fill), every call failed (isError, JSON-RPC errors, timeouts) or the "
            "tools called declare no outputSchema, the run checked nothing: a passing gate would say "
            "nothing about what the server sends. The message counts the calls planned, made and "
            "failed and says what to do."
        ),
        before="schema-audit probe --auto (no tool annotated readOnlyHint: true): 0 calls planned",
        after=(
            'schema-audit probe --calls probe-calls.json ({"calls": [{"tool": "get_chart", "arguments": '
            '{"id": "c-42"}}]})'
        ),
        error="(no error: without this warning the probe would pass having checked nothing)",
        source=(
            "schema-audit probe: --calls and --auto (docs/cli.md); MCP spec server/tools §Tool "
            "Annotations (readOnlyHint)"
        ),
        fix=(
            "name the tools to call with their arguments in --calls FILE, or annotate read-only tools "
            "readOnlyHint: true so --auto may call them"
        ),
    ),
]

#: Rules about recorded traffic (``--traffic``), after the run rules (SARIF rule indices stay put).
TRAFFIC_RULES = [
    Rule(
        id="input-recorded-call-rejected",
        direction="input",
        severity="breaking",
        family="traffic",
        title="Recorded arguments rejected by the new version",
        rationale=(
            "A real call (from a recording, a trace or a gateway log given with --traffic) sent arguments "
            "that the cached inputSchema allows and that the new version's server (its inputSchema read by "
            "its own validator) rejects: the hosts that made that call will get an error from the new "
            "release, although the schema comparison proved nothing for this tool. The recorded "
            "arguments are the witness."
        ),
        before='inputSchema {"type": "object", "properties": {"q": {"type": "string"}}} ; call {"q": "a b"}',
        after='inputSchema {"type": "object", "properties": {"q": {"type": "string", "pattern": "^\\\\S+$"}}}',
        error="MCP error -32602: Input validation error: 'a b' does not match '^\\\\S+$'",
        source=(
            "MCP spec server/tools (servers validate tool inputs); engine.servers (the server validator "
            "profiles); OpenTelemetry GenAI semantic conventions (gen_ai.tool.call.arguments)"
        ),
        fix="accept what the recorded calls send (widen the new inputSchema), or version the tool",
    ),
]
