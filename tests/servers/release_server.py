"""A mail MCP server in releases that hosts may or may not notice: its version, the 2026-07-28 caching hints of
its lists, an ``x-mcp-header``, extensions and an MCP Apps ``ui://`` resource change the way releases do.

Every release is a python-sdk (2.3) ``MCPServer``: it emits ``ttlMs``/``cacheScope`` on every list itself
(``cache_hints``), advertises ``capabilities.extensions`` from ``Extension`` objects, and writes ``x-mcp-header``
through pydantic's ``json_schema_extra`` (it refuses invalid ones at registration: release 4 switches that
check off to serve one). Run it::

    python release_server.py --version 1                 # stdio
    python release_server.py --version 2 --http 8765     # Streamable HTTP on http://127.0.0.1:8765/mcp

Releases:

- **1** (``1.0.0``): tools ``send`` (``to`` mirrored as ``Mcp-Param-To``), ``read``, ``preview`` (``_meta.ui``
  points at ``ui://mail/preview``, which it lists); ``tools/list`` fresh for 24 h, ``public``; extensions
  ``com.example/search`` (``{"maxResults": 10}``) and ``com.example/audit``.
- **2** (``1.1.0``, too small a bump): ``read`` removed (breaking), ``send``'s header renamed ``Recipient``,
  ``ui://mail/preview`` no longer listed (breaking for Apps hosts), ``tools/list`` fresh for 2 days and
  ``private``, ``com.example/search`` settings retyped (``"10"``), ``com.example/audit`` removed (breaking).
  ``forward`` answers ``input_required`` (an elicitation whose requestedSchema holds a nested object, and a
  sampling request) where release 1 answered at once.
- **3** (``1.0.0`` again): release 1 plus the tool ``archive`` (the version did not move).
- **4** (``1.1.0``): release 1 plus ``lookup``, whose ``number`` parameter carries ``x-mcp-header`` (invalid: the
  SDK's registration check is switched off for it, so the raw field goes out).
"""

import argparse
from typing import Annotated, Any

from pydantic import Field

DAY_MS = 86_400_000


def build(release: int) -> Any:
    from mcp.server.caching import CacheHint
    from mcp.server.extension import Extension
    from mcp.server.mcpserver import MCPServer

    class Search(Extension):
        identifier = "com.example/search"

        def settings(self) -> dict[str, Any]:
            return {"maxResults": 10 if release != 2 else "10"}

    class Audit(Extension):
        identifier = "com.example/audit"

    ttl, scope = (2 * DAY_MS, "private") if release == 2 else (DAY_MS, "public")
    app = MCPServer(
        "mail",
        version={1: "1.0.0", 2: "1.1.0", 3: "1.0.0", 4: "1.1.0"}[release],
        cache_hints={"tools/list": CacheHint(ttl_ms=ttl, scope=scope)},
        extensions=[Search()] if release == 2 else [Search(), Audit()],
    )
    header = "Recipient" if release == 2 else "To"

    @app.tool()
    def send(to: Annotated[str, Field(json_schema_extra={"x-mcp-header": header})], body: str) -> str:
        """Send a message."""
        return f"sent to {to}"

    if release != 2:

        @app.tool()
        def read(id: int) -> str:
            """Read a message."""
            return f"message {id}"

        @app.resource("ui://mail/preview", mime_type="text/html;profile=mcp-app")
        def preview_ui() -> str:
            return "<html><body>preview</body></html>"

    @app.tool(meta={"ui": {"resourceUri": "ui://mail/preview"}})
    def preview(id: int) -> str:
        """Preview a message (MCP Apps UI)."""
        return f"preview {id}"

    import mcp_types as t

    @app.tool()
    def forward(to: str) -> str | t.InputRequiredResult:
        """Forward the last message."""
        if release != 2:
            return f"forwarded to {to}"
        # release 2 asks first (multi round-trip): a form elicitation whose schema leaves the restricted subset
        # (a nested object), and a sampling request (a Deprecated feature)
        form = t.ElicitRequestFormParams(
            message="Confirm the forward",
            requested_schema={
                "type": "object",
                "properties": {"ok": {"type": "boolean"}, "address": {"type": "object", "properties": {}}},
            },
        )
        summary = t.CreateMessageRequestParams(
            messages=[t.SamplingMessage(role="user", content=t.TextContent(type="text", text="Summarize"))],
            max_tokens=50,
        )
        return t.InputRequiredResult(
            input_requests={
                "confirm": t.ElicitRequest(params=form),
                "summary": t.CreateMessageRequest(params=summary),
            },
            request_state="forward-1",
        )

    if release == 4:
        # MCPServer refuses an invalid x-mcp-header when a tool is registered: its check is switched off here so
        # that the server sends the raw field, as a server built on another framework would
        import mcp.server.mcpserver.tools.base as tool_base

        tool_base.find_invalid_x_mcp_header = lambda schema: None

        @app.tool()
        def lookup(score: Annotated[float, Field(json_schema_extra={"x-mcp-header": "Score"})]) -> str:
            """Find messages by spam score (a number: not allowed to carry x-mcp-header)."""
            return f"score {score}"

    if release == 3:

        @app.tool()
        def archive(id: int) -> str:
            """Archive a message."""
            return f"archived {id}"

    return app


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--version", type=int, choices=(1, 2, 3, 4), required=True)
    parser.add_argument("--http", type=int, metavar="PORT", default=None)
    args = parser.parse_args()
    app = build(args.version)
    if args.http is not None:
        app.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        app.run()


if __name__ == "__main__":
    main()
