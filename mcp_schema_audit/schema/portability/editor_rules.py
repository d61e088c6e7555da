"""The ``vscode`` profile (VS Code's MCP client, before any model sees a tool) and the ``cursor`` profile.

VS Code, code read at microsoft/vscode ``src/vs/workbench/contrib/mcp/common/mcpServer.ts`` (commit 0052d689,
``McpServer._normalizeTool`` and ``_getValidatedTools``): a tool name's characters outside ``[a-z0-9_-]`` become
``_``, a missing description becomes ``<empty>``, a missing ``properties`` becomes ``{}``, then the inputSchema is
validated with the JSON language service against the draft-07 metaschema (``json.validate``) and a tool with
diagnostics is omitted ("N tools have invalid JSON schemas and will be omitted"); ``_meta.ui.visibility`` without
``model`` hides the tool from the model. The draft-07 check is reproduced with jsonschema's draft-07 metaschema.
Copilot Chat's own check of array items rests on a public issue.

Cursor is closed source: its rules rest on public issues and on its documentation as those issues quote it.
"""

from __future__ import annotations

import re
from typing import Any

from mcp_schema_audit.schema.portability.anthropic_rules import metaschema_error
from mcp_schema_audit.schema.portability.openai_rules import array_items
from mcp_schema_audit.schema.portability.record import Hit, HostRule, Tool, keyword_hits, quoted

VSCODE = "microsoft/vscode src/vs/workbench/contrib/mcp/common/mcpServer.ts (0052d689) McpServer._normalizeTool"
_INVALID_NAME = re.compile(r"[^a-z0-9_-]", re.IGNORECASE)
#: The most tools Cursor sends to its agent (its documentation, as issues quote it).
CURSOR_MAX_TOOLS = 40
#: Cursor's limit on the server name and tool name together.
CURSOR_NAME_LIMIT = 60


def _draft7(tool: Tool) -> list[Hit]:
    schema: Any = tool.input_schema
    if isinstance(schema, dict) and not schema.get("properties"):
        schema = {**schema, "properties": {}}
    found = metaschema_error(schema, "draft-07")
    if found is None:
        return []
    ptr, message = found
    return [Hit(ptr, None, None, f"draft-07 metaschema: {message} at {ptr or '(root)'}: the tool is omitted")]


def _name(tool: Tool) -> list[Hit]:
    if not _INVALID_NAME.search(tool.name):
        return []
    return [
        Hit("", None, None, f"tool name {quoted(tool.name)} is sent as {quoted(_INVALID_NAME.sub('_', tool.name))}")
    ]


def _description(tool: Tool) -> list[Hit]:
    if tool.entry.get("description"):
        return []
    return [
        Hit(
            "",
            None,
            None,
            "no description: VS Code sends '<empty>' ('Tools must be accurately described to be called')",
        )
    ]


def _hidden(tool: Tool) -> list[Hit]:
    meta = tool.entry.get("_meta")
    ui = meta.get("ui") if isinstance(meta, dict) else None
    visibility = ui.get("visibility") if isinstance(ui, dict) else None
    if isinstance(visibility, list) and "model" not in visibility:
        return [Hit("", None, None, f"_meta.ui.visibility is {quoted(visibility)}: the model never sees the tool")]
    return []


def _array_items_vscode(tool: Tool) -> list[Hit]:
    return [
        Hit(h.pointer, h.parameter, h.keyword, "'tool parameters array type must have items'")
        for h in array_items(tool)
    ]


def _cursor_name(tool: Tool) -> list[Hit]:
    total = len(tool.server) + len(tool.name)
    if total < CURSOR_NAME_LIMIT:
        return []
    who = f"server {quoted(tool.server)} + tool" if tool.server else "tool name"
    return [Hit("", None, None, f"{who}: {total} characters (Cursor filters tools at {CURSOR_NAME_LIMIT} and more)")]


def _cursor_count(tool: Tool) -> list[Hit]:
    if tool.index < CURSOR_MAX_TOOLS:
        return []
    return [
        Hit(
            "",
            None,
            None,
            f"tool {tool.index + 1} of {tool.listed}: Cursor sends the first {CURSOR_MAX_TOOLS} tools only",
        )
    ]


def _composition(tool: Tool) -> list[Hit]:
    return keyword_hits(
        tool.input_schema,
        frozenset({"anyOf", "oneOf", "allOf"}),
        lambda kw, _: f"{kw}: Cursor's gateway answers 400 for the whole request",
    )


RULES: tuple[HostRule, ...] = (
    HostRule(
        id="vscode-invalid-schema",
        hosts=("vscode",),
        effect="drops-tool",
        title="inputSchema invalid against the draft-07 metaschema",
        behaviour="json.validate against https://json-schema.org/draft-07/schema reports a diagnostic: 'Tool t has "
        "invalid JSON parameters', the tool is omitted",
        source=VSCODE + " and _getValidatedTools",
        evidence="code",
        before='{"type": "object", "properties": {"n": {"type": "integer", "minimum": "0"}}}',
        fix="keyword values of the types draft-07 gives them",
        check=_draft7,
    ),
    HostRule(
        id="vscode-array-items",
        hosts=("vscode",),
        effect="drops-tool",
        title="An array without items (Copilot Chat)",
        behaviour="Copilot Chat refuses the tool: 'Failed to validate tool …: Error: tool parameters array type "
        "must have items'",
        source="agentscope-ai/ReMe#84",
        evidence="issue",
        before='{"type": "object", "properties": {"tags": {"type": "array"}}}',
        fix='"items": {} or the item type',
        check=_array_items_vscode,
    ),
    HostRule(
        id="vscode-hidden-from-model",
        hosts=("vscode",),
        effect="drops-tool",
        title="_meta.ui.visibility leaves the model out",
        behaviour="visibility is parsed from _meta.ui.visibility; without 'model' the tool is an MCP App tool only "
        "and no model can call it",
        source=VSCODE,
        evidence="code",
        before='{"_meta": {"ui": {"visibility": ["app"]}}}',
        fix='"visibility": ["model", "app"] (or no visibility)',
        check=_hidden,
    ),
    HostRule(
        id="vscode-tool-name",
        hosts=("vscode",),
        effect="accepts",
        title="Tool name characters outside [a-z0-9_-] become _",
        behaviour="'Tools names may only contain [a-z0-9_-]': the model sees the rewritten name, calls are mapped "
        "back to the server's name",
        source=VSCODE,
        evidence="code",
        before='tool name "files.read"',
        check=_name,
    ),
    HostRule(
        id="vscode-no-description",
        hosts=("vscode",),
        effect="accepts",
        title="A tool without a description is described as <empty>",
        behaviour="a warning is logged and the description '<empty>' is sent to the model",
        source=VSCODE + " (#243919)",
        evidence="code",
        before='{"name": "t", "inputSchema": {"type": "object"}}',
        check=_description,
    ),
    HostRule(
        id="cursor-name-length",
        hosts=("cursor",),
        effect="drops-tool",
        title="Server and tool name of 60 characters or more",
        behaviour="'Combined server and tool name length exceeds 60 characters': the tool is filtered out (the "
        "server name here is serverInfo.name; Cursor uses the name in mcp.json)",
        source="awslabs/mcp#1283; executeautomation/mcp-playwright#145; ComposioHQ/composio#2788",
        evidence="issue",
        before='tool name "googlesheets_spreadsheets_values_batch_clear_by_data_filter"',
        fix="shorter tool names",
        check=_cursor_name,
    ),
    HostRule(
        id="cursor-tool-count",
        hosts=("cursor",),
        effect="drops-tool",
        title="Tools after the 40th",
        behaviour="'Cursor will only send the first 40 tools to the Agent' (its documentation, 2025)",
        source="anyproto/anytype-mcp#5; bun913/mcp-testrail#6 (both quote docs.cursor.com)",
        evidence="docs",
        before="a listing of 41 tools",
        fix="fewer tools, or toolsets a user can choose",
        check=_cursor_count,
    ),
    HostRule(
        id="cursor-composition",
        hosts=("cursor",),
        effect="fails-listing",
        title="anyOf, oneOf or allOf in an inputSchema",
        behaviour="Cursor's gateway forwards the schemas and the provider answers 400 for the whole request "
        "(shown as resource_exhausted); 'not' alone passes",
        source="code-yeongyu/senpi#952 (live A/B, 2026-08-18)",
        evidence="issue",
        before='{"type": "object", "properties": {"id": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}',
        fix='a type list ("type": ["string", "integer"]) or one type',
        check=_composition,
    ),
)
