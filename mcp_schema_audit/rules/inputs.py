"""inputSchema rules: arguments a model builds from the cached schema that the server's current schema rejects
(breaking), or a compatible change."""

from __future__ import annotations

from mcp_schema_audit.rules.record import ARGUMENTS, Rule

RULES = [
    Rule(
        id="input-required-added",
        direction="input",
        severity="breaking",
        family="engine.objects",
        title="Required argument added",
        rationale=(
            "The model builds arguments from the cached inputSchema and does not know the new "
            "argument; the server rejects every call without it."
        ),
        before='{"required": ["to"]}',
        after='{"required": ["to", "subject"]}',
        error="'subject' is a required property",
        source=ARGUMENTS,
        fix="make the argument optional with a server-side default",
        kinds=("required-extra-v",),
    ),
    Rule(
        id="input-property-removed-from-closed-object",
        direction="input",
        severity="breaking",
        family="engine.objects",
        title="Argument removed from a closed object",
        rationale=("Callers still send the argument the cached schema declares; the new closed schema rejects it."),
        before='{"properties": {"cc": {}}, "additionalProperties": false}',
        after='{"properties": {}, "additionalProperties": false}',
        error="Additional properties are not allowed ('cc' was unexpected)",
        source=ARGUMENTS,
        fix="keep accepting (and ignoring) the old argument",
        kinds=("prop-extra-p-closed",),
    ),
    Rule(
        id="input-argument-renamed",
        direction="input",
        severity="breaking",
        family="diff",
        title="Argument renamed",
        rationale=(
            "An argument gone and another added beside it with the same schema (or one of the same type and "
            "keywords with at most two values changed, and a similar name or description: then the changes are "
            "reported too, on the new name): the model still builds arguments with the old name from the cached "
            "inputSchema, and the server refuses it, or drops it and misses the new one."
        ),
        before='{"properties": {"to": {"type": "string", "description": "Recipient address"}}, "required": ["to"]}',
        after=(
            '{"properties": {"recipient": {"type": "string", "description": "Recipient address"}}, '
            '"required": ["recipient"]}'
        ),
        error="'recipient' is a required property",
        source=ARGUMENTS,
        fix=(
            "accept both names for a while: list the old argument beside the new one (both optional, the server "
            "reads whichever is sent) until hosts re-listed, then drop the old one"
        ),
    ),
    Rule(
        id="input-enum-value-removed",
        direction="input",
        severity="breaking",
        family="engine.scalars",
        title="Input enum lost a value",
        rationale="Callers may still send the removed value.",
        before='{"enum": ["a", "b"]}',
        after='{"enum": ["a"]}',
        error="'b' is not one of ['a']",
        source=ARGUMENTS,
        fix="keep accepting the old value (map it to a new one on the server)",
        kinds=("enum-extra-p",),
    ),
    Rule(
        id="input-const-changed",
        direction="input",
        severity="breaking",
        family="engine.scalars",
        title="Input const changed",
        rationale="Callers send the old constant, which the new schema rejects.",
        before='{"const": "v1"}',
        after='{"const": "v2"}',
        error="'v2' was expected",
        source=ARGUMENTS,
        fix="accept both values",
        kinds=("const-changed",),
    ),
    Rule(
        id="input-type-narrowed",
        direction="input",
        severity="breaking",
        family="engine.scalars",
        title="Input type narrowed",
        rationale="Callers may send a type the new schema no longer accepts.",
        before='{"type": ["string", "integer"]}',
        after='{"type": "string"}',
        error="5 is not of type 'string'",
        source=ARGUMENTS,
        fix="keep accepting the old type and convert it on the server",
        kinds=("type-extra-p", "type-only-v"),
    ),
    Rule(
        id="input-enum-introduced",
        direction="input",
        severity="breaking",
        family="engine.scalars",
        title="Input enum introduced",
        rationale="The cached schema allowed any value; the new one allows only the listed ones.",
        before='{"type": "string"}',
        after='{"type": "string", "enum": ["a"]}',
        error="'x' is not one of ['a']",
        source=ARGUMENTS,
        fix="accept any value and validate on the server with a helpful tool error instead",
        kinds=("enum-only-v",),
    ),
    Rule(
        id="input-constraint-tightened",
        direction="input",
        severity="breaking",
        family="engine.scalars",
        title="Input constraint tightened",
        rationale=(
            "Arguments valid under the cached bound, or under the cached not, if/then/else, "
            "dependentSchemas, dependentRequired or contains constraint, are rejected by the new "
            "one."
        ),
        before='{"maxLength": 20}',
        after='{"maxLength": 10}',
        error="'aaaaaaaaaaa' is too long",
        source=ARGUMENTS,
        fix="keep accepting the old range; reject with a tool error (isError) if needed",
        kinds=("looser-p",),
    ),
    Rule(
        id="input-union-branch-removed",
        direction="input",
        severity="breaking",
        family="engine.unions",
        title="Input union lost a branch",
        rationale="Callers may send a shape only the removed alternative accepted.",
        before='{"anyOf": [A, B]}',
        after='{"anyOf": [A]}',
        error="is not valid under any of the given schemas",
        source=ARGUMENTS,
        fix="keep accepting the old alternative",
        kinds=("branch-extra-p",),
    ),
    Rule(
        id="input-oneof-overlap",
        direction="input",
        severity="breaking",
        family="engine.unions",
        title="Input oneOf branch overlaps another",
        rationale="A value that matched one oneOf branch now matches two, and oneOf rejects it.",
        before='{"oneOf": [{"type": "string"}]}',
        after='{"oneOf": [{"type": "string"}, {"maxLength": 5}]}',
        error="is valid under each of …",
        source=ARGUMENTS,
        fix="make the oneOf branches disjoint (or use anyOf)",
        kinds=("oneof-overlap",),
    ),
    Rule(
        id="input-pattern-changed",
        fix=(
            "keep accepting arguments that match the cached pattern (widen the new one to include it) until "
            "hosts re-listed"
        ),
        direction="input",
        severity="warning",
        family="engine.scalars",
        title="Input pattern changed",
        rationale=("Arguments matching the cached pattern may not match the new one; proven breaking with a witness."),
        before='{"type": "string", "pattern": "^(?=.*[A-Z]).{12}$"}',
        after='{"type": "string", "pattern": "^(?=.*[0-9])(?=.*[A-Z]).{12}$"}',
        kinds=("pattern",),
    ),
    Rule(
        id="input-format-changed",
        fix="accept the values the cached schema allowed for a release, then add the format",
        direction="input",
        severity="warning",
        family="engine.scalars",
        title="Input format added or changed",
        rationale="Servers that check formats reject arguments that do not follow the new format.",
        before='{"type": "string"}',
        after='{"type": "string", "format": "email"}',
        kinds=("format",),
    ),
    Rule(
        id="input-object-closed",
        fix="accept (and ignore) the keys callers sent before, or close the object in a new tool version",
        direction="input",
        severity="warning",
        family="engine.objects",
        title="Input object closed",
        rationale="Callers that send undeclared keys (tolerated before) are now rejected.",
        before='{"type": "object"}',
        after='{"type": "object", "additionalProperties": false}',
        kinds=("opened-p",),
    ),
    Rule(
        id="input-property-added",
        direction="input",
        severity="info",
        family="engine.objects",
        title="Optional argument added",
        rationale="Cached callers simply omit it.",
        before='{"properties": {}}',
        after='{"properties": {"cc": {"type": "string"}}}',
        kinds=("prop-extra-v",),
    ),
    Rule(
        id="input-property-removed",
        direction="input",
        severity="info",
        family="engine.objects",
        title="Argument removed from an open object",
        rationale="The open schema still accepts the key; the server ignores or tolerates it.",
        before='{"properties": {"cc": {}}}',
        after='{"properties": {}}',
        kinds=("prop-extra-p-open",),
    ),
    Rule(
        id="input-required-removed",
        direction="input",
        severity="info",
        family="engine.objects",
        title="Required argument made optional",
        rationale="Callers still send it; the new schema accepts that.",
        before='{"required": ["a"]}',
        after='{"required": []}',
        kinds=("required-extra-p",),
    ),
    Rule(
        id="input-enum-value-added",
        direction="input",
        severity="info",
        family="engine.scalars",
        title="Input enum gained a value",
        rationale="Every value callers know is still accepted.",
        before='{"enum": ["a"]}',
        after='{"enum": ["a", "b"]}',
        kinds=("enum-extra-v",),
    ),
    Rule(
        id="input-enum-removed",
        direction="input",
        severity="info",
        family="engine.scalars",
        title="Input enum dropped",
        rationale="Every value is accepted now.",
        before='{"enum": ["a"]}',
        after="{}",
        kinds=("enum-only-p",),
    ),
    Rule(
        id="input-type-widened",
        direction="input",
        severity="info",
        family="engine.scalars",
        title="Input type widened",
        rationale="Cached callers' values are still accepted.",
        before='{"type": "string"}',
        after='{"type": ["string", "integer"]}',
        kinds=("type-extra-v",),
    ),
    Rule(
        id="input-constraint-relaxed",
        direction="input",
        severity="info",
        family="engine.scalars",
        title="Input constraint relaxed",
        rationale="Cached callers' values are still accepted.",
        before='{"maxLength": 10}',
        after='{"maxLength": 20}',
        kinds=("looser-v",),
    ),
    Rule(
        id="input-object-opened",
        direction="input",
        severity="info",
        family="engine.objects",
        title="Input object opened",
        rationale="Every argument object is still accepted.",
        before='{"additionalProperties": false}',
        after="{}",
        kinds=("closed-p",),
    ),
    Rule(
        id="input-union-branch-added",
        direction="input",
        severity="info",
        family="engine.unions",
        title="Input union gained a branch",
        rationale=("Every value is still accepted (unless the new branch overlaps under oneOf: input-oneof-overlap)."),
        before='{"anyOf": [A]}',
        after='{"anyOf": [A, B]}',
        kinds=("branch-extra-v",),
    ),
    Rule(
        id="input-argument-ignored",
        direction="input",
        severity="warning",
        family="engine.arguments",
        title="Argument the server now ignores",
        rationale=(
            "Hosts that cached the old inputSchema still send the argument; the server's own validator drops it "
            "without an error (a zod z.object strips unknown keys, pydantic ignores them, a .passthrough() object "
            "keeps it for a tool that no longer reads it), so the call runs as if it had not been given: no -32602, "
            "but not what the caller asked for (a renamed argument's value is lost). The published schema may say "
            "the object is closed (zod 3 writes z.object so): the server decides, not the schema."
        ),
        before='{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"query": '
        '{"type": "string"}, "limit": {"type": "integer"}}, "additionalProperties": false}',
        after='{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"limit": '
        '{"type": "integer"}}, "additionalProperties": false}',
        error="(none: the call succeeds without the argument)",
        source=f"{ARGUMENTS}; TS SDK McpServer validateToolInput (zod safeParse: z.object strips unknown keys); "
        "python-sdk MCPServer func_metadata (pydantic: extra keys ignored)",
        fix="keep accepting the old argument (map a renamed one to its new name) until hosts re-listed; or reject "
        "unknown keys (zod: .strict(); pydantic: model_config extra='forbid') so that callers get an error instead "
        "of a silent change",
    ),
    Rule(
        id="input-required-added-with-default",
        direction="input",
        severity="info",
        family="engine.arguments",
        title="Required argument added, filled by the server's default",
        rationale=(
            "The new inputSchema lists the argument as required (zod 4 writes a .default() field so in its output "
            "mode), but the server's validator fills its default when a call leaves it out: calls built from the "
            "cached schema still succeed."
        ),
        before='{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"n": '
        '{"type": "integer", "minimum": -9007199254740991, "maximum": 9007199254740991}}, "required": ["n"], '
        '"additionalProperties": false}',
        after='{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"n": '
        '{"type": "integer", "minimum": -9007199254740991, "maximum": 9007199254740991}, "c": {"type": "string", '
        '"default": "x"}}, "required": ["n", "c"], "additionalProperties": false}',
        source=f"{ARGUMENTS}; zod .default() (z.toJSONSchema lists it as required in its default output mode); "
        "pydantic field defaults",
    ),
]
