"""schema-audit: find MCP tool schema changes that break hosts holding a cached ``tools/list``.

Importing this package has no side effects and does not import the ``mcp`` SDK.
"""

__version__ = "0.1.0"
