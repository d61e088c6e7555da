"""The ``schema-audit`` command line: parse options, call the audit core, render, map every error to an exit code.

Exit codes: 0 gate passed · 1 gate failed · 2 usage or input error · 3 capture error · 4 internal error.
The report goes to stdout (or ``--output``); progress and errors go to stderr, one line each.

``app`` holds the typer application; each ``*_cmds`` module registers its commands on it when imported, in
the order ``--help`` lists them.
"""

from mcp_schema_audit.cli import capture_cmds, catalog_cmds, check_cmds, compare_cmds, probe_cmds, record_cmds
from mcp_schema_audit.cli.app import app, main

#: imported for their registrations
_COMMAND_MODULES = (capture_cmds, probe_cmds, record_cmds, compare_cmds, check_cmds, catalog_cmds)

__all__ = ["app", "main"]
