"""Servers of the Python ``mcp`` SDK for results of both protocol eras, over stdio.

Run it::

    python era_server.py --server mcpserver --release 1   # an MCPServer (the SDK renders every result)
    python era_server.py --server mcpserver --release 2
    python era_server.py --server lowlevel                # a low-level Server whose tools/list and tools/call
                                                          # answers are raw JSON, sent as written

- ``mcpserver``: tools with ``-> str`` (``greet``), ``-> str | None`` (``maybe_note``, which returns None) and
  ``-> list[str]`` (``tags``) returns: the SDK wraps each as ``{"result": …}`` and renders the text blocks itself
  (the str as itself, None as no block, one block per item), which its author cannot change. Release 2 adds
  ``shout`` and removes ``maybe_note``, so one calls file names a tool each release does not list.
- ``lowlevel``: returns what the SDK's servers never send. The SDK's serializer drops a ``null``
  ``structuredContent`` (and ``MCPServer`` refuses a non-object root schema on a 2025-era connection), so a
  middleware answers ``tools/list`` and ``tools/call`` with raw JSON: ``maybe_null`` (outputSchema
  ``type: ["object", "null"]``) returns ``structuredContent: null``; ``numbers`` (an array root) returns
  ``[1, 2]``; ``strict_null`` (an object schema) returns ``null``. Each with its JSON as a text block. On
  2026-07-28 connections results carry ``resultType`` as that era requires.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

RAW_TOOLS = [
    {
        "name": "maybe_null",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": ["object", "null"], "properties": {"id": {"type": "string"}}},
    },
    {
        "name": "numbers",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "array", "items": {"type": "integer"}},
    },
    {
        "name": "strict_null",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
    },
]
RAW_RESULTS: dict[str, Any] = {"maybe_null": None, "numbers": [1, 2], "strict_null": None}


def build_mcpserver(release: int) -> Any:
    from mcp.server.mcpserver import MCPServer

    mcp = MCPServer("era-tools", version=f"{release}.0.0")

    @mcp.tool()
    def greet(name: str = "you") -> str:
        return f"hello {name}"

    @mcp.tool()
    def tags() -> list[str]:
        return ["a", "b c"]

    if release == 1:

        @mcp.tool()
        def maybe_note() -> str | None:
            return None

    else:

        @mcp.tool()
        def shout(text: str = "hi") -> str:
            return text.upper()

    return mcp


async def serve_lowlevel() -> None:
    import json

    import mcp.types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    async def no_tools(ctx: Any, params: Any) -> Any:  # registered so the tools capability is advertised
        return types.ListToolsResult(tools=[])

    async def raw(ctx: Any, call_next: Any) -> Any:
        if ctx.method == "tools/list":
            out: dict[str, Any] = {"tools": RAW_TOOLS}
        elif ctx.method == "tools/call":
            value = RAW_RESULTS[(ctx.params or {}).get("name")]
            out = {"content": [{"type": "text", "text": json.dumps(value)}], "structuredContent": value}
        else:
            return await call_next(ctx)
        if ctx.protocol_version == "2026-07-28":
            out["resultType"] = "complete"
            if ctx.method == "tools/list":
                out.update({"ttlMs": 0, "cacheScope": "private"})
        return out

    server = Server("era-raw", version="1.0.0", on_list_tools=no_tools)
    server.middleware.append(raw)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main() -> int:
    parser = argparse.ArgumentParser(prog="era_server")
    parser.add_argument("--server", choices=("mcpserver", "lowlevel"), required=True)
    parser.add_argument("--release", type=int, choices=(1, 2), default=1)
    args = parser.parse_args()
    if args.server == "lowlevel":
        import anyio

        anyio.run(serve_lowlevel)
    else:
        build_mcpserver(args.release).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
