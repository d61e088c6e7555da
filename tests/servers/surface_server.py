"""A docs MCP server with prompts, resources and resource templates, in releases that change them the way
releases do (every rule of the prompt, resource, resource-template and server surfaces fires between 1 and 2).

Run it::

    python surface_server.py --version 1            # stdio (MCPServer)
    python surface_server.py --version 2 --http 8765   # Streamable HTTP on http://127.0.0.1:8765/mcp

Releases:

- **1** and **2**: a python-sdk ``MCPServer``. From 1 to 2:
  prompts: ``summarize`` loses ``style`` (warning), makes ``lang`` required (breaking), gains the required
  ``tone`` (breaking) and the optional ``extra`` (info), and a new description (info); ``review`` is
  removed (breaking); ``greet``'s ``name`` becomes optional (info); ``translate`` is added (info).
  Resources: ``docs://readme`` changes its mimeType (warning) and description (info); ``docs://license``
  is removed (warning); ``docs://changelog`` is added (info).
  Templates: ``doc`` moves from ``docs://pages/{id}`` to ``docs://v2/pages/{id}`` (breaking);
  ``search_docs`` renames its query variable ``q`` to ``query`` (breaking); ``user`` renames its path
  variable ``uid`` to ``user_id`` (breaking); ``logs`` gains the query variable ``level`` (info);
  ``archive`` is removed (breaking); ``table`` changes its mimeType (warning) and description (info);
  ``report`` is added (info).
  Server: new instructions (info); release 2 serves no ``subscriptions/listen``, so on a 2026-07-28
  connection it advertises neither ``listChanged`` (warning) nor ``resources.subscribe`` (breaking).
- **3**: a low-level SDK ``Server`` with the same tool and nothing else: no prompts or resources
  capability, no instructions.
- **4**: a low-level SDK ``Server`` whose ``prompts/list``, ``resources/list`` and
  ``resources/templates/list`` answer two raw pages each (items carry an ``x-vendor`` field the SDK's
  models would drop).
"""

from __future__ import annotations

import argparse
import sys
from typing import Annotated, Any

from pydantic import Field


def _tool_search(q: str) -> str:
    return f"results for {q}"


def build_mcpserver(version: int) -> Any:
    """The ``MCPServer`` of release 1 or 2."""
    from mcp.server.mcpserver import MCPServer

    instructions = {
        1: "Documentation tools. Read docs://readme first.",
        2: "Documentation tools. Read docs://readme first. Prefer the v2 pages.",
    }[version]
    mcp = MCPServer(
        "surface-docs",
        version=f"{version}.0.0",
        instructions=instructions,
        subscriptions=None if version == 1 else False,
    )
    mcp.tool(name="search")(_tool_search)

    # ---- prompts ----
    if version == 1:

        @mcp.prompt(description="Summarize a text.")
        def summarize(
            text: Annotated[str, Field(description="The text")], style: str = "plain", lang: str = "en"
        ) -> str:
            return f"Summarize ({style}, {lang}): {text}"

        @mcp.prompt(description="Review code.")
        def review(code: str) -> str:
            return f"Review: {code}"

        @mcp.prompt(description="Say hello.")
        def greet(name: str) -> str:
            return f"Hello {name}"
    else:

        @mcp.prompt(description="Summarize a text in a given tone.")
        def summarize(
            text: Annotated[str, Field(description="The text")], lang: str, tone: str, extra: str = ""
        ) -> str:
            return f"Summarize ({tone}, {lang}): {text} {extra}"

        @mcp.prompt(description="Say hello.")
        def greet(name: str = "you") -> str:
            return f"Hello {name}"

        @mcp.prompt(description="Translate a text.")
        def translate(text: str) -> str:
            return f"Translate: {text}"

    # ---- static resources ----
    if version == 1:

        @mcp.resource("docs://readme", name="readme", description="The README.", mime_type="text/plain")
        def readme() -> str:
            return "read me"

        @mcp.resource("docs://license", name="license", mime_type="text/plain")
        def license_() -> str:
            return "MIT"
    else:

        @mcp.resource("docs://readme", name="readme", description="The README, in Markdown.", mime_type="text/markdown")
        def readme() -> str:
            return "# read me"

        @mcp.resource("docs://changelog", name="changelog", mime_type="text/markdown")
        def changelog() -> str:
            return "## 2.0.0"

    # ---- resource templates ----
    if version == 1:

        @mcp.resource("docs://pages/{id}", name="doc", mime_type="text/markdown")
        def doc(id: str) -> str:
            return f"page {id}"

        @mcp.resource("search://docs{?q}", name="search_docs")
        def search_docs(q: str = "") -> str:
            return f"hits for {q!r}"

        @mcp.resource("users://{uid}", name="user")
        def user(uid: str) -> str:
            return f"user {uid}"

        @mcp.resource("logs://{service}", name="logs")
        def logs(service: str) -> str:
            return f"logs of {service}"

        @mcp.resource("archive://{year}/{month}", name="archive")
        def archive(year: str, month: str) -> str:
            return f"{year}-{month}"

        @mcp.resource("tables://{name}", name="table", description="A table as CSV.", mime_type="text/csv")
        def table(name: str) -> str:
            return "a,b"
    else:

        @mcp.resource("docs://v2/pages/{id}", name="doc", mime_type="text/markdown")
        def doc(id: str) -> str:
            return f"page {id}"

        @mcp.resource("search://docs{?query}", name="search_docs")
        def search_docs(query: str = "") -> str:
            return f"hits for {query!r}"

        @mcp.resource("users://{user_id}", name="user")
        def user(user_id: str) -> str:
            return f"user {user_id}"

        @mcp.resource("logs://{service}{?level}", name="logs")
        def logs(service: str, level: str = "info") -> str:
            return f"{level} logs of {service}"

        @mcp.resource(
            "tables://{name}", name="table", description="A table as JSON rows.", mime_type="application/json"
        )
        def table(name: str) -> str:
            return "[]"

        @mcp.resource("reports://{rid}", name="report")
        def report(rid: str) -> str:
            return f"report {rid}"

    return mcp


SEARCH_TOOL = {
    "name": "search",
    "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
}

#: Release 4's raw pages: list method → cursor → (items, next cursor).
RAW_PAGES: dict[str, dict[str | None, tuple[list[dict[str, Any]], str | None]]] = {
    "prompts/list": {
        None: ([{"name": "beta", "arguments": [{"name": "x", "required": True}], "x-vendor": {"tier": 1}}], "p2"),
        "p2": ([{"name": "alpha", "description": "First."}], None),
    },
    "resources/list": {
        None: ([{"uri": "mem://b", "name": "b", "x-vendor": True}], "r2"),
        "r2": ([{"uri": "mem://a", "name": "a", "mimeType": "text/plain"}], None),
    },
    "resources/templates/list": {
        None: ([{"name": "item", "uriTemplate": "mem://items/{id}", "x-vendor": "t"}], "t2"),
        "t2": ([{"name": "bucket", "uriTemplate": "mem://buckets/{b}{?prefix}"}], None),
    },
}
_WIRE_KEY = {"prompts/list": "prompts", "resources/list": "resources", "resources/templates/list": "resourceTemplates"}


def build_lowlevel(version: int) -> Any:
    """The low-level ``Server`` of release 3 (tools only) or 4 (tools, and raw two-page lists)."""
    import mcp.types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    async def on_list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=[types.Tool.model_validate(SEARCH_TOOL)])

    if version == 3:
        return Server("surface-docs", version="3.0.0", on_list_tools=on_list_tools)

    async def empty_prompts(ctx: Any, params: Any) -> Any:  # registered so the capability is advertised
        return types.ListPromptsResult(prompts=[])

    async def empty_resources(ctx: Any, params: Any) -> Any:
        return types.ListResourcesResult(resources=[])

    async def empty_templates(ctx: Any, params: Any) -> Any:
        return types.ListResourceTemplatesResult(resource_templates=[])

    async def raw_lists(ctx: Any, call_next: Any) -> Any:
        if ctx.method not in RAW_PAGES:
            return await call_next(ctx)
        cursor = (ctx.params or {}).get("cursor")
        pages = RAW_PAGES[ctx.method]
        if cursor not in pages:
            raise MCPError(code=-32602, message=f"invalid cursor {cursor!r}")
        items, next_cursor = pages[cursor]
        result: dict[str, Any] = {_WIRE_KEY[ctx.method]: items}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        if ctx.protocol_version == "2026-07-28":
            result.update({"resultType": "complete", "ttlMs": 0, "cacheScope": "private"})
        return result

    server = Server(
        "surface-docs",
        version="4.0.0",
        on_list_tools=on_list_tools,
        on_list_prompts=empty_prompts,
        on_list_resources=empty_resources,
        on_list_resource_templates=empty_templates,
    )
    server.middleware.append(raw_lists)
    return server


async def _serve_lowlevel(version: int) -> None:
    from mcp.server.stdio import stdio_server

    server = build_lowlevel(version)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main() -> int:
    """Serve release ``--version`` on stdio, or (releases 1 and 2) on Streamable HTTP with ``--http PORT``."""
    parser = argparse.ArgumentParser(prog="surface_server")
    parser.add_argument("--version", type=int, choices=(1, 2, 3, 4), default=1)
    parser.add_argument("--http", type=int, metavar="PORT", default=None)
    args = parser.parse_args()
    if args.version in (3, 4):
        if args.http is not None:
            parser.error("releases 3 and 4 serve stdio only")
        import anyio

        anyio.run(_serve_lowlevel, args.version)
        return 0
    mcp = build_mcpserver(args.version)
    if args.http is not None:
        mcp.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        mcp.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
