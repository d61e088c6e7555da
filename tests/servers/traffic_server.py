"""A real MCP server (``mcp`` 2.x ``MCPServer``) for the ``record`` proxy tests: stdio, or Streamable HTTP with
``http PORT``.

Tools: ``add`` (structured int), ``weather`` (an object), ``confirm`` (asks the client with an elicitation: a
server-to-client request in the middle of a call), ``progress`` (sends progress notifications), ``fail`` (a
tool error), ``echo_secret`` (returns ``TRAFFIC_TOKEN`` from its environment, as careless servers do) and
``crash`` (the process exits in the middle of the call, without answering).
"""

import os
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel

mcp = MCPServer("traffic-server", version="1.0.0")


class Weather(BaseModel):
    temperature: float
    conditions: str


class Answer(BaseModel):
    ok: bool


@mcp.tool()
def add(a: int, b: int) -> int:
    return a + b


@mcp.tool()
def weather(city: str) -> Weather:
    return Weather(temperature=21.5, conditions=f"sunny in {city}")


@mcp.tool()
async def confirm(question: str, ctx: Context) -> str:
    answer = await ctx.elicit(question, Answer)
    return f"{answer.action}:{getattr(answer.data, 'ok', None)}"


@mcp.tool()
async def progress(steps: int, ctx: Context) -> str:
    for i in range(steps):
        await ctx.report_progress(i + 1, steps)
    return "done"


@mcp.tool()
def fail(reason: str) -> str:
    raise ToolError(reason)


@mcp.tool()
def echo_secret() -> str:
    return "token is " + os.environ.get("TRAFFIC_TOKEN", "")


@mcp.tool()
def crash() -> str:
    sys.stdout.flush()
    os._exit(7)


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        mcp.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        mcp.run()
