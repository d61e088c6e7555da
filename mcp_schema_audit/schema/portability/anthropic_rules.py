"""The ``anthropic`` profile (the Messages API's ``tools``) and the ``claude-code`` profile (Claude Code: the MCP
TypeScript SDK 1.x client, then the Messages API with every tool of every server in each request).

No client code of Anthropic's checks a tool schema: the API does. Those rules rest on Anthropic's tool-use
documentation and on the API's error as public issues quote it ("tools.N.custom.input_schema: JSON schema is
invalid. It must match JSON Schema draft 2020-12"), reproduced here with jsonschema's 2020-12 metaschema. The
listing rules of ``claude-code`` are the TS SDK 1.x client's, the ones the ``ts-sdk-v1`` profile models
(``lint.listing_breakers``; docs/verdicts.md).
"""

from __future__ import annotations

import re
from typing import Any

from mcp_schema_audit import fastpaths
from mcp_schema_audit.fastpaths import ContentCache
from mcp_schema_audit.jsontext import pointer
from mcp_schema_audit.schema.portability.record import Hit, HostRule, Tool, quoted

TOOL_USE_DOCS = "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use"
_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def metaschema_error(schema: Any, draft: str) -> tuple[str, str] | None:
    """``(pointer into the schema, message)`` of the first metaschema error of ``schema`` read as ``draft``
    (``"2020-12"`` or ``"draft-07"``), or None when it is valid (or not an object: other rules say so). The
    metaschema fast path (``metacheck.surely_valid``) settles the common case; the full check runs once per
    distinct schema text."""
    from mcp_schema_audit.jsontext import canonical
    from mcp_schema_audit.schema.metacheck import METASCHEMA_MAX_NODES, surely_valid_cached

    if not isinstance(schema, (dict, bool)):
        return None
    text = canonical(schema)
    if fastpaths.enabled() and surely_valid_cached(schema, text, draft, METASCHEMA_MAX_NODES):
        return None
    return METASCHEMA_ERRORS.get((draft, text), lambda: _full_check(schema, draft))


#: ``_full_check`` per (draft, schema text).
METASCHEMA_ERRORS: ContentCache[tuple[str, str] | None] = ContentCache(1024)


def _full_check(schema: Any, draft: str) -> tuple[str, str] | None:
    from jsonschema import Draft7Validator, Draft202012Validator
    from jsonschema.exceptions import best_match

    cls = Draft202012Validator if draft == "2020-12" else Draft7Validator
    try:
        error = best_match(cls(cls.META_SCHEMA).iter_errors(schema))
    except (RecursionError, ValueError, TypeError) as exc:  # pragma: no cover - hostile depth
        return "", f"cannot be checked: {type(exc).__name__}"
    if error is None:
        return None
    return pointer(list(error.absolute_path)), error.message[:200]


def _metaschema(tool: Tool) -> list[Hit]:
    found = metaschema_error(tool.input_schema, "2020-12")
    if found is None:
        return []
    ptr, message = found
    return [Hit(ptr, None, None, f"not a valid 2020-12 schema: {message} at {ptr or '(root)'}")]


def _root_object(tool: Tool) -> list[Hit]:
    schema = tool.input_schema
    if isinstance(schema, dict) and schema.get("type") == "object":
        return []
    got = schema.get("type") if isinstance(schema, dict) else schema
    return [Hit("/type", None, "type", f"input_schema type is {quoted(got)}, not 'object'")]


def _name(tool: Tool) -> list[Hit]:
    if _NAME.match(tool.name):
        return []
    return [Hit("", None, None, f"tool name {quoted(tool.name)} does not match ^[a-zA-Z0-9_-]{{1,64}}$")]


def _boolean_properties(tool: Tool) -> list[Hit]:
    schema = tool.input_schema
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict):
        return []
    return [
        Hit(pointer(["properties", key]), key, None, f"property {key!r} is the boolean schema {sub!r}: 'Invalid input'")
        for key, sub in props.items()
        if isinstance(sub, bool)
    ]


def _output_uncompilable(tool: Tool) -> list[Hit]:
    from mcp_schema_audit.schema.doc import SchemaDoc

    outs = tool.entry.get("outputSchema")
    if not isinstance(outs, dict):
        return []
    try:
        problem = SchemaDoc(outs).compile_problem("ts-sdk-v1")
    except Exception as exc:  # a schema the model cannot even hold: say so, never raise from a lint
        return [Hit("", None, None, f"outputSchema cannot be read: {type(exc).__name__}")]
    if problem is None:
        return []
    ptr, why = problem
    return [Hit(ptr, None, None, f"outputSchema: {why}: listTools() throws")]


API_400 = "the API answers 400 invalid_request_error and the whole request (every tool sent with it) fails"
RULES: tuple[HostRule, ...] = (
    HostRule(
        id="anthropic-invalid-schema",
        hosts=("anthropic", "claude-code", "cursor"),
        effect="fails-listing",
        title="input_schema is not a valid 2020-12 schema",
        behaviour=API_400 + ": 'tools.N.custom.input_schema: JSON schema is invalid. It must match JSON Schema "
        "draft 2020-12' (Cursor shows the same error with Claude models)",
        source=TOOL_USE_DOCS + "; afrise/MCPSharp#9 (Cursor); endlessblink/Like-I-Said-memory-mcp-server "
        "MCP_SCHEMA_RESOLUTION.md (Claude Code)",
        evidence="issue",
        before='{"type": "object", "properties": {"n": {"type": "integer", "exclusiveMinimum": true, "minimum": 0}}}',
        fix="2020-12 spellings: exclusiveMinimum as a number, required as an array of names",
        check=_metaschema,
    ),
    HostRule(
        id="anthropic-root-object",
        hosts=("anthropic", "claude-code"),
        effect="fails-listing",
        title="input_schema is not an object schema",
        behaviour=API_400 + " (input_schema must have type 'object'); Claude Code's TS SDK client already "
        "refuses the whole tools/list",
        source=TOOL_USE_DOCS + "; MCP TS SDK 1.x ToolSchema (ts-sdk-v1 profile, lint.listing_breakers)",
        evidence="docs",
        before='{"type": "string"}',
        fix='"type": "object" with the value as a property',
        check=_root_object,
    ),
    HostRule(
        id="anthropic-tool-name",
        hosts=("anthropic",),
        effect="fails-listing",
        title="Tool name outside ^[a-zA-Z0-9_-]{1,64}$",
        behaviour=API_400 + " (tool names must match ^[a-zA-Z0-9_-]{1,64}$)",
        source=TOOL_USE_DOCS,
        evidence="docs",
        before='tool name "files.read"',
        fix="letters, digits, _ and - only, at most 64 characters",
        check=_name,
    ),
    HostRule(
        id="claude-code-boolean-property",
        hosts=("claude-code",),
        effect="fails-listing",
        title="A property whose schema is true or false",
        behaviour="the TS SDK 1.x client's result schema refuses the tools/list ('Invalid input'): no tool of the "
        "server is loaded",
        source="modelcontextprotocol/inspector#1005; MCP TS SDK 1.x ToolSchema (ts-sdk-v1 profile)",
        evidence="issue",
        before='{"type": "object", "properties": {"value": true}}',
        fix="{} (any value) instead of true",
        check=_boolean_properties,
    ),
    HostRule(
        id="claude-code-output-uncompilable",
        hosts=("claude-code",),
        effect="fails-listing",
        title="An outputSchema Ajv cannot compile",
        behaviour="the TS SDK 1.x client compiles every outputSchema inside listTools() (cacheToolMetadata, Ajv "
        "draft-07 class) and throws for the whole listing: no tool of the server is loaded",
        source="@modelcontextprotocol/sdk 1.x client cacheToolMetadata (the ts-sdk-v1 profile, "
        "output-schema-uncompilable; tests/test_real_clients.py)",
        evidence="code",
        before='{"outputSchema": {"type": "object", "properties": {"id": {"type": "string", "pattern": "(?i)^a"}}}}',
        fix="ECMAScript regexes (no inline flags), keyword values of the right type",
        check=_output_uncompilable,
    ),
)
