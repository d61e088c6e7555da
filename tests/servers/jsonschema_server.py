"""A low-level Python SDK ``Server`` that validates every call's arguments with the tool's listed inputSchema
(``jsonschema``, draft 2020-12) and answers with the arguments it received (JSON text), or ``isError`` with
jsonschema's messages (``<instance pointer>: <message>``, ``; ``-joined, in iteration order).

usage: python jsonschema_server.py RELEASE   (RELEASE old|new: the versions tests/test_server_validators.py
audits; the ``published`` server validator profile).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import mcp.types as types
from jsonschema import Draft202012Validator
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

D = "https://json-schema.org/draft/2020-12/schema"


def closed(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"$schema": D, "type": "object", "properties": props, "required": required, "additionalProperties": False}


LOOP = {"loop": {"allOf": [{"$ref": "#/$defs/loop"}]}}
OLD = {
    "drop_optional": closed({"a": {"type": "string"}, "b": {"type": "string"}}, ["a"]),
    "renamed": closed({"query": {"type": "string"}}, ["query"]),
    "required_added": closed({"a": {"type": "string"}}, ["a"]),
    "default_added": closed({"a": {"type": "string"}}, ["a"]),
    "type_narrowed": closed({"n": {"type": "number"}}, ["n"]),
    "enum_narrowed": closed({"e": {"enum": ["a", "b", "c"]}}, ["e"]),
    "cycle_beside": closed({"e": {"enum": ["a", "b", "c"]}, "x": {"type": "object"}}, ["e"]),
    "cycle_root": closed({"a": {"type": "string"}}, ["a"]),
    "cycle_branch": closed({"e": {"enum": ["a", "b", "c"]}}, ["e"]),
    "cycle_root_branch": closed({"e": {"enum": ["a", "b", "c"]}}, ["e"]),
}
NEW = {
    "drop_optional": closed({"a": {"type": "string"}}, ["a"]),
    "renamed": closed({"q": {"type": "string"}}, ["q"]),
    "required_added": closed({"a": {"type": "string"}, "d": {"type": "string"}}, ["a", "d"]),
    "default_added": closed({"a": {"type": "string"}, "c": {"type": "string", "default": "filled"}}, ["a", "c"]),
    "type_narrowed": closed({"n": {"type": "integer"}}, ["n"]),
    "enum_narrowed": closed({"e": {"enum": ["a", "b"]}}, ["e"]),
    # a cycle on an optional argument leaves the rest decided: the removed value is rejected
    "cycle_beside": {
        **closed({"e": {"enum": ["a", "b"]}, "x": {"$ref": "#/$defs/loop"}}, ["e"]),
        "$defs": LOOP,
    },
    # a cycle every call reaches: validating any arguments never ends (RecursionError in the handler)
    "cycle_root": {**closed({"a": {"type": "string"}}, ["a"]), "allOf": [{"$ref": "#/$defs/loop"}], "$defs": LOOP},
    # a cycle in a later anyOf branch: reached only by values the first branch rejects ('c' loops, 'a' passes)
    "cycle_branch": {
        **closed({"e": {"anyOf": [{"enum": ["a", "b"]}, {"$ref": "#/$defs/loop"}]}}, ["e"]),
        "$defs": LOOP,
    },
    # ... and at the root, where the first branch takes every object: the validation finishes
    "cycle_root_branch": {
        **closed({"e": {"enum": ["a", "b"]}}, ["e"]),
        "anyOf": [{"type": "object"}, {"$ref": "#/$defs/loop"}],
        "$defs": LOOP,
    },
}


def make_server(release: str) -> Server:
    schemas = OLD if release == "old" else NEW

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[types.Tool(name=n, description=n, input_schema=s) for n, s in schemas.items()]
        )

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        errors = list(Draft202012Validator(schemas[params.name]).iter_errors(arguments))
        if errors:
            text = "; ".join(
                ("/" + "/".join(str(p) for p in e.absolute_path) + ": " if e.absolute_path else "") + e.message
                for e in errors
            )
            return types.CallToolResult(is_error=True, content=[types.TextContent(type="text", text=text)])
        return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(arguments))])

    version = "1.0.0" if release == "old" else "2.0.0"
    return Server("jsonschema-validators", version=version, on_list_tools=on_list_tools, on_call_tool=on_call_tool)


async def _serve(release: str) -> None:
    server = make_server(release)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_serve, sys.argv[1])
