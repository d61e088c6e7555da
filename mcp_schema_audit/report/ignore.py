"""The ``ignore`` format: ready-to-paste ``[[ignore]]`` entries for a report's findings (``--format ignore``).

Not a gate: the command exits 0 (``Format.gate`` is False), so ``schema-audit diff A B --format ignore >>
.schema-audit.toml`` works. Each entry matches one finding by fingerprint and leaves the reason to fill in (a
config entry without a reason is refused). Server text appears only inside JSON strings in TOML comments.
"""

from __future__ import annotations

import json

from mcp_schema_audit.findings import Finding
from mcp_schema_audit.report.cohorts import History
from mcp_schema_audit.report.formats import PLAIN, RenderOptions
from mcp_schema_audit.report.model import Report


def ignore_entries_toml(findings: list[Finding]) -> str:
    """Ready-to-paste ``[[ignore]]`` TOML entries for ``findings`` (one per fingerprint, in order, reason to fill
    in), after a comment line saying where to paste them."""
    lines = ["# Paste into .schema-audit.toml (or [tool.schema-audit] in pyproject.toml) and give each a reason.", ""]
    seen = set()
    for f in findings:
        if f.fingerprint in seen:
            continue
        seen.add(f.fingerprint)
        lines += [
            "[[ignore]]",
            f"fingerprint = {json.dumps(f.fingerprint)}",
            f"# {f.severity} {f.rule} {json.dumps(f.tool) if f.surface == 'tool' else f.surface} "
            f"{json.dumps(f.name) if f.surface != 'tool' else f.direction} {json.dumps(f.pointer)}",
            'reason = ""',
            "# expires = 2099-12-31",
            "",
        ]
    return "\n".join(lines) + "\n"


def render_report(report: Report, options: RenderOptions = PLAIN) -> str:
    """The entries for a diff's, lint's or probe's findings (those the ignore list already suppressed are left
    out)."""
    return ignore_entries_toml(report.findings)


def render_history(hist: History, options: RenderOptions = PLAIN) -> str:
    """The entries for every cohort's findings, each change once (by fingerprint), oldest cohort first."""
    return ignore_entries_toml(hist.all_findings())
