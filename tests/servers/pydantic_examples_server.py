"""A Python SDK ``MCPServer`` with one read-only tool whose required argument has examples the way the
``probe --auto`` advice says for pydantic: ``Field(examples=[…])`` (tests/test_probe.py)."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

mcp = MCPServer("pydantic-examples")


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
def search(folder: Annotated[str, Field(examples=["inbox"])]) -> str:
    """Search a folder."""
    return f"searched {folder}"


if __name__ == "__main__":
    mcp.run()
