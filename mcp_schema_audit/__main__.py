"""``python -m mcp_schema_audit`` runs the ``schema-audit`` CLI."""

from mcp_schema_audit.cli import main

if __name__ == "__main__":
    main()
