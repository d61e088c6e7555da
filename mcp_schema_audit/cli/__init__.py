"""The ``schema-audit`` command line: parse options, run one stage pipeline, map every error to an exit code.

Exit codes: 0 gate passed · 1 gate failed · 2 usage or input error · 3 capture error · 4 internal error.
The report goes to stdout (or ``--output``); progress and errors go to stderr, one line each.

``app`` holds the typer application; each ``*_cmds`` module registers its commands on it when imported.
"""

from mcp_schema_audit.cli import capture_cmds, probe_cmds, compare_cmds, catalog_cmds  # noqa: F401, I001  (registers the commands, in this order)
from mcp_schema_audit.cli.app import app, main
from mcp_schema_audit.cli.options import DIFF_FORMATS, HISTORY_FORMATS, RULES_FORMATS, run_diff

__all__ = ["DIFF_FORMATS", "HISTORY_FORMATS", "RULES_FORMATS", "app", "main", "run_diff"]
