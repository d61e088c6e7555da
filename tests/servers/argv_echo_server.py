"""A low-level Python SDK ``Server`` that echoes its own command line (``sys.argv[1:]``) in its name, its
instructions and its one tool's description, as a server that prints its configuration may.

usage: python argv_echo_server.py ARG...   (tests/test_capture.py: credentials on a command line stay masked).
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

ECHO = " ".join(sys.argv[1:])


async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    tool = types.Tool(name="config", description=f"started with {ECHO}", input_schema={"type": "object"})
    return types.ListToolsResult(tools=[tool])


async def _serve() -> None:
    server = Server(f"argv-echo {ECHO}", version="1.0.0", instructions=f"args: {ECHO}", on_list_tools=on_list_tools)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_serve)
