"""A low-level SDK MCP server (stdio) whose ``tools/list`` spans three pages of raw, imperfect tools.

The SDK's low-level ``Server`` does the handshake (either era). ``tools/list`` is answered by a
middleware that short-circuits with a plain dict: the SDK sends such a result as is, whereas a
result from an ``on_list_tools`` handler is validated and sieved through the wire model, which would
drop the ``x-vendor`` field and refuse the malformed tools this server exists to send.

Pages (cursor → tools):

- none → ``alpha_search`` (top-level ``x-vendor`` field, ``_meta``), next ``"page-2"``
- ``"page-2"`` → ``array_output`` (``outputSchema`` root is an array: invalid before 2026-07-28)
  and ``untyped_input`` (``inputSchema`` without ``type``: invalid in every revision), next ``"page-3"``
- ``"page-3"`` → ``zeta_echo``, no ``nextCursor``

Any other cursor gets JSON-RPC error -32602. ``--mode repeat`` makes every page's ``nextCursor``
``"page-2"`` (a server whose paging never ends); ``--mode error`` answers every ``tools/list`` with
JSON-RPC error -32603 ``"tool registry unavailable"``; ``--mode empty`` names page 2 by the empty
cursor ``""`` (valid from 2026-07-28 on; before that, clients commonly read it as the end).
"""

import argparse
import sys
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

PAGES: dict[str | None, tuple[list[dict[str, Any]], str | None]] = {
    None: (
        [
            {
                "name": "alpha_search",
                "description": "Search the archive.",
                "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
                "outputSchema": {
                    "type": "object",
                    "properties": {"hits": {"type": "array", "items": {"type": "string"}}},
                    "required": ["hits"],
                    "additionalProperties": False,
                },
                "x-vendor": {"tier": "gold", "rateLimit": 10},
                "_meta": {"com.example/owner": "search-team"},
            }
        ],
        "page-2",
    ),
    "page-2": (
        [
            {
                "name": "array_output",
                "description": "Returns a bare list (array outputSchema root).",
                "inputSchema": {"type": "object", "properties": {}},
                "outputSchema": {"type": "array", "items": {"type": "integer"}},
            },
            {
                "name": "untyped_input",
                "description": "Its inputSchema has no type.",
                "inputSchema": {"properties": {"n": {"type": "integer"}}},
            },
        ],
        "page-3",
    ),
    "page-3": (
        [
            {
                "name": "zeta_echo",
                "description": "Echo the text back.",
                "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
            }
        ],
        None,
    ),
}


def make_server(mode: str) -> Server:
    """The low-level server; ``mode`` is ``"pages"``, ``"repeat"``, ``"error"`` or ``"empty"``."""

    async def on_list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        # Registered so the server advertises the tools capability; the middleware answers first.
        return types.ListToolsResult(tools=[])

    async def raw_tools_list(ctx: Any, call_next: Any) -> Any:
        if ctx.method != "tools/list":
            return await call_next(ctx)
        if mode == "error":
            raise MCPError(code=-32603, message="tool registry unavailable")
        cursor = (ctx.params or {}).get("cursor")
        if mode == "empty" and cursor in ("", "page-2"):
            cursor = {"": "page-2", "page-2": "unknown"}[cursor]  # in this mode page 2 is called ""
        if cursor not in PAGES:
            raise MCPError(code=-32602, message=f"invalid cursor {cursor!r}")
        tools, next_cursor = PAGES[cursor]
        if mode == "repeat":
            next_cursor = "page-2"
        elif mode == "empty" and next_cursor == "page-2":
            next_cursor = ""
        result: dict[str, Any] = {"tools": tools}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        if ctx.protocol_version == "2026-07-28":
            result.update({"resultType": "complete", "ttlMs": 0, "cacheScope": "private"})
        return result

    server = Server("paging-test", version="0.3.0", on_list_tools=on_list_tools)
    server.middleware.append(raw_tools_list)
    return server


async def _serve(mode: str) -> None:
    server = make_server(mode)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main() -> int:
    """Serve on stdio until stdin closes."""
    parser = argparse.ArgumentParser(prog="paging_server")
    parser.add_argument("--mode", choices=("pages", "repeat", "error", "empty"), default="pages")
    anyio.run(_serve, parser.parse_args().mode)
    return 0


if __name__ == "__main__":
    sys.exit(main())
