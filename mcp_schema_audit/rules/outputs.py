"""outputSchema rules: a result the new version may return that hosts holding the cached schema reject (breaking),
a hazard for the next release (warning), or a compatible change (info)."""

from __future__ import annotations

from mcp_schema_audit.rules.record import OPEN_OBJECT, PY_CLIENT, SPEC_OUTPUT, TS_CLIENT, Rule

RULES = [
    Rule(
        id="output-property-added-to-closed-object",
        direction="output",
        severity="breaking",
        family="engine.objects",
        title="Property added to a closed output object",
        rationale=(
            "The cached schema has additionalProperties (or unevaluatedProperties) false, so any key "
            "it does not list is an error: a new result carrying the new key is rejected. Zod's "
            "z.object emits closed schemas."
        ),
        before='{"type": "object", "properties": {"id": {"type": "string"}}, "additionalProperties": false}',
        after=(
            '{"type": "object", "properties": {"id": {"type": "string"}, "topic": {"type": "string"}}, '
            '"additionalProperties": false}'
        ),
        error="Additional properties are not allowed ('topic' was unexpected)",
        source=f"{PY_CLIENT}; {TS_CLIENT}; {SPEC_OUTPUT}",
        fix=(
            f"first ship a release whose schema opens the object (drop additionalProperties: false; {OPEN_OBJECT}), "
            "wait until hosts re-listed it, then add the field"
        ),
        kinds=("prop-extra-p-closed",),
    ),
    Rule(
        id="output-enum-value-added",
        direction="output",
        severity="breaking",
        family="engine.scalars",
        title="Output enum gained a value",
        rationale="Results may now carry a value the cached enum does not list.",
        before='{"enum": ["stdio", "http"]}',
        after='{"enum": ["stdio", "http", "streamable-http"]}',
        error="'streamable-http' is not one of ['stdio', 'http']",
        source=f"{PY_CLIENT}; {TS_CLIENT}",
        fix=(
            "first ship the enum as a plain string (or with the new value) and only send the new value "
            "once hosts re-listed; or map the value to an existing one"
        ),
        kinds=("enum-extra-p",),
        value_set=True,
    ),
    Rule(
        id="output-const-changed",
        direction="output",
        severity="breaking",
        family="engine.scalars",
        title="Output const changed",
        rationale="Every result now carries a value the cached const rejects.",
        before='{"const": "v1"}',
        after='{"const": "v2"}',
        error="'v1' was expected",
        source=f"{PY_CLIENT}; {TS_CLIENT}",
        fix="publish a schema that accepts both values before switching",
        kinds=("const-changed",),
        value_set=True,
    ),
    Rule(
        id="output-type-widened",
        direction="output",
        severity="breaking",
        family="engine.scalars",
        title="Output type widened or changed",
        rationale=(
            "Results may now be of a type the cached schema rejects: null when a field becomes nullable, or "
            "another type altogether (a string that becomes an integer)."
        ),
        before='{"type": "string"}',
        after='{"type": ["string", "null"]}',
        error="None is not of type 'string'",
        source=f"{PY_CLIENT}; {TS_CLIENT}",
        fix=(
            "keep returning the old type until hosts re-listed a schema that allows the new one: omit a field "
            "instead of sending null; for a new type, add it beside the old one, or send it in a new field"
        ),
        kinds=("type-extra-p",),
    ),
    Rule(
        id="output-required-removed",
        direction="output",
        severity="breaking",
        family="engine.objects",
        title="Required output property made optional or removed",
        rationale="Results may now omit a property the cached schema requires.",
        before='{"required": ["id", "names"]}',
        after='{"required": ["id"]}',
        error="'names' is a required property",
        source=f"{PY_CLIENT}; {TS_CLIENT}",
        fix="keep always sending the field (an empty value of its type) until hosts re-listed",
        kinds=("required-extra-v",),
    ),
    Rule(
        id="output-constraint-relaxed",
        direction="output",
        severity="breaking",
        family="engine.scalars",
        title="Output constraint relaxed",
        rationale=(
            "A bound (minimum, maxLength, maxItems, multipleOf, …) or a constraint through another "
            "schema (not, if/then/else, dependentSchemas, dependentRequired, "
            "contains/minContains/maxContains, propertyNames, uniqueItems) now admits values the "
            "cached schema rejects: the witness is one."
        ),
        before='{"type": "string", "maxLength": 10}',
        after='{"type": "string", "maxLength": 20}',
        error="'aaaaaaaaaaa' is too long",
        source=f"{PY_CLIENT}; {TS_CLIENT}",
        fix="keep values inside the old bound until hosts re-listed the relaxed schema",
        kinds=("looser-p",),
    ),
    Rule(
        id="output-format-changed",
        direction="output",
        severity="breaking",
        family="engine.scalars",
        title="Output format removed or changed",
        rationale=(
            "Format-checking hosts (TS SDK v1/v2 with ajv-formats) reject values that no longer "
            "follow the cached format; python-sdk does not check formats."
        ),
        before='{"type": "string", "format": "date-time"}',
        after='{"type": "string"}',
        error='data must match format "date-time"',
        source=TS_CLIENT,
        fix="keep values in the old format, or drop the format in an earlier release",
        kinds=("format",),
    ),
    Rule(
        id="output-pattern-changed",
        fix=(
            "keep every result matching the cached pattern until hosts re-listed, or widen the new pattern to "
            "include the old one"
        ),
        direction="output",
        severity="warning",
        family="engine.scalars",
        title="Output pattern changed",
        rationale=(
            "Results matching the new pattern may not match the cached one; proven breaking when a witness is found."
        ),
        before='{"type": "string", "pattern": "^(?=.*[0-9])(?=.*[A-Z]).{12}$"}',
        after='{"type": "string", "pattern": "^(?=.*[A-Z]).{12}$"}',
        error="'ABCDEFGHIJKL' does not match …",
        source=PY_CLIENT,
        kinds=("pattern",),
    ),
    Rule(
        id="output-union-branch-added",
        direction="output",
        severity="breaking",
        family="engine.unions",
        title="Output union gained a branch",
        rationale="A new anyOf/oneOf alternative lets the server return shapes the cached union never matched.",
        before=(
            '{"oneOf": [{"type": "object", "properties": {"id": {"type": "string"}}, "required": '
            '["id"], "additionalProperties": false}]}'
        ),
        after=(
            '{"oneOf": [{"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"], '
            '"additionalProperties": false}, {"type": "object", "properties": {"url": {"type": '
            '"string"}}, "required": ["url"], "additionalProperties": false}]}'
        ),
        error="is not valid under any of the given schemas",
        source=f"{PY_CLIENT}; {TS_CLIENT}",
        fix="ship the new alternative in the schema first, send it only after hosts re-listed",
        kinds=("branch-extra-p",),
    ),
    Rule(
        id="output-oneof-overlap",
        direction="output",
        severity="breaking",
        family="engine.unions",
        title="Output value matches several oneOf branches",
        rationale=(
            "A value the new schema allows matches more than one branch of the cached oneOf, which oneOf rejects."
        ),
        before='{"oneOf": [{"type": "object"}, {"required": ["a"]}]}',
        error="is valid under each of …",
        source=PY_CLIENT,
        fix="make the oneOf branches disjoint (or use anyOf)",
        kinds=("oneof-overlap",),
    ),
    Rule(
        id="output-object-opened",
        direction="output",
        severity="warning",
        family="engine.objects",
        title="Closed output object opened",
        rationale=(
            "The new schema declares nothing new, but the cached closed schema rejects any key the "
            "server may now send: hosts break as soon as one appears."
        ),
        before='{"additionalProperties": false}',
        after='{"additionalProperties": true}',
        fix=(
            "this is step 1 of adding a field safely: keep sending only the keys the cached schema lists until "
            "hosts re-listed, then add the field; accept this warning with an [[ignore]] entry (rule and tool) or "
            "--severity output-object-opened=info when you gate on warnings"
        ),
        kinds=("opened-p",),
    ),
    Rule(
        id="output-enum-removed",
        direction="output",
        severity="warning",
        family="engine.scalars",
        title="Output enum or const dropped (value set opened)",
        rationale="The cached enum still rejects any value outside it; hosts break when the server sends one.",
        before='{"type": "string", "enum": ["a", "b"]}',
        after='{"type": "string"}',
        fix=(
            "keep sending only the old values until hosts re-listed (check: schema-audit probe --against OLD); as "
            "step 1 of adding a value, accept this warning with an [[ignore]] entry or --severity "
            "output-enum-removed=info when you gate on warnings"
        ),
        kinds=("enum-only-v",),
        value_set=True,
    ),
    Rule(
        id="output-type-removed",
        fix=("keep declaring the type (the server still sends it); drop it only once no host caches the old schema"),
        direction="output",
        severity="warning",
        family="engine.scalars",
        title="Output type constraint dropped",
        rationale="The new schema no longer says what type the value has; the cached type still rejects others.",
        before='{"type": "string"}',
        after="{}",
        kinds=("type-only-v",),
    ),
    Rule(
        id="output-object-closed",
        fix="keep the object open (additionalProperties unset or true) unless the server will never add a field",
        direction="output",
        severity="warning",
        family="engine.objects",
        title="Output object closed",
        rationale="Compatible now, but every later field addition will break hosts that cache this version.",
        before='{"type": "object"}',
        after='{"type": "object", "additionalProperties": false}',
        kinds=("closed-p",),
    ),
    Rule(
        id="output-enum-introduced",
        fix="declare the field without an enum (values in its description) unless the set is final",
        direction="output",
        severity="warning",
        family="engine.scalars",
        title="Output enum introduced",
        rationale="Compatible now, but every later value added will break hosts that cache this version.",
        before='{"type": "string"}',
        after='{"type": "string", "enum": ["a", "b"]}',
        kinds=("enum-only-p",),
    ),
    Rule(
        id="output-required-added",
        direction="output",
        severity="warning",
        family="engine.objects",
        title="Output property became required",
        rationale=(
            "Compatible for cached hosts, but it can never be made optional again without breaking, "
            "and a rollback breaks hosts that cached the new schema."
        ),
        before='{"required": []}',
        after='{"required": ["id"]}',
        fix=(
            "mark it required only once every version you may roll back to always sends it; it stays required for good"
        ),
        kinds=("required-extra-p",),
        rollback="output-required-removed",
    ),
    Rule(
        id="output-property-added",
        direction="output",
        severity="info",
        family="engine.objects",
        title="Property added to an open output object",
        rationale="The cached schema is open: the new key is accepted.",
        before='{"properties": {"a": {}}}',
        after='{"properties": {"a": {}, "b": {}}}',
        kinds=("prop-extra-p-open",),
    ),
    Rule(
        id="output-property-removed",
        direction="output",
        severity="info",
        family="engine.objects",
        title="Optional output property removed",
        rationale="Results without an optional property still validate.",
        before='{"properties": {"a": {}}}',
        after='{"properties": {}}',
        kinds=("prop-extra-v",),
    ),
    Rule(
        id="output-enum-value-removed",
        direction="output",
        severity="info",
        family="engine.scalars",
        title="Output enum lost a value",
        rationale="Results use a subset of the cached values.",
        before='{"enum": ["a", "b"]}',
        after='{"enum": ["a"]}',
        kinds=("enum-extra-v",),
    ),
    Rule(
        id="output-type-narrowed",
        direction="output",
        severity="info",
        family="engine.scalars",
        title="Output type narrowed",
        rationale="Results use a subset of the cached types.",
        before='{"type": ["string", "null"]}',
        after='{"type": "string"}',
        kinds=("type-extra-v",),
    ),
    Rule(
        id="output-constraint-tightened",
        direction="output",
        severity="info",
        family="engine.scalars",
        title="Output constraint tightened",
        rationale="Results satisfy a stricter bound than the cached one.",
        before='{"maxLength": 20}',
        after='{"maxLength": 10}',
        kinds=("looser-v",),
    ),
    Rule(
        id="output-union-branch-removed",
        direction="output",
        severity="info",
        family="engine.unions",
        title="Output union lost a branch",
        rationale="Results match a subset of the cached alternatives.",
        before='{"anyOf": [A, B]}',
        after='{"anyOf": [A]}',
        kinds=("branch-extra-v",),
    ),
]
