"""``rules``, ``explain`` and ``schema``: the rule catalog and the published JSON Schemas."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer

from mcp_schema_audit.cli.app import CATALOG_EXITS, RULES_EXITS, SCHEMA_EXITS, command
from mcp_schema_audit.cli.common import write_output
from mcp_schema_audit.errors import UsageError, not_one_of

#: What ``rules --format`` accepts.
RULES_FORMATS = ("text", "json")


@command("Print a published JSON Schema (report, history).", exits=SCHEMA_EXITS)
def schema(
    what: str = typer.Argument(
        ...,
        metavar="NAME",
        help="report: the JSON Schema of 'diff|lint|probe --format json'; history: that of 'history --format json'.",
    ),
) -> None:
    """Print a published JSON Schema (report, history)."""
    import json

    from mcp_schema_audit.report.json import history_json_schema, report_json_schema

    schemas = {"report": report_json_schema, "history": history_json_schema}
    if what not in schemas:
        raise UsageError(f"unknown schema {what!r} (available: {', '.join(schemas)})")
    write_output(json.dumps(schemas[what](), indent=2, sort_keys=True) + "\n", None)


@command("List the rule catalog.", exits=RULES_EXITS)
def rules(
    fmt: str = typer.Option("text", "--format", "-f", metavar="FORMAT", help=" | ".join(RULES_FORMATS) + "."),
) -> None:
    """List the rule catalog: id, direction (for tools input/output/tool; else the surface), default severity, title."""
    import json

    from mcp_schema_audit.rules import RULES

    if fmt == "json":
        data = [
            {"id": r.id, "surface": r.surface, "direction": r.direction, "severity": r.severity, "title": r.title}
            for r in RULES.values()
        ]
        write_output(json.dumps(data, indent=2) + "\n", None)
        return
    if fmt != "text":
        raise not_one_of("--format", fmt, RULES_FORMATS)
    width = max(len(r) for r in RULES)
    for r in RULES.values():
        write_output(f"{r.id:<{width}}  {r.direction:<17}  {r.severity:<8}  {r.title}\n", None)


#: Where ``explain FINGERPRINT`` looks for the report without ``--report``: the Action's and a plain run's file.
DEFAULT_REPORTS = (Path("schema-audit-report") / "schema-audit.json", Path("schema-audit.json"))
_FINGERPRINT = re.compile(r"^[0-9a-f]{16}$")


@command("Explain a rule or a finding: why, example, error, fix.", exits=CATALOG_EXITS)
def explain(
    rule_id: str = typer.Argument(
        ...,
        metavar="ID",
        help="A rule id from 'schema-audit rules' (or as a report prints it, [rule-id]), or the 16-hex fingerprint "
        "of a finding in a JSON report.",
    ),
    report: Path | None = typer.Option(
        None,
        "--report",
        metavar="FILE",
        help="The JSON report (diff, history, lint, probe --format json) a fingerprint comes from. Default: "
        "schema-audit-report/schema-audit.json, else schema-audit.json, when there.",
    ),
) -> None:
    """Print a rule's rationale, a before/after example and the error a host raises; for a fingerprint, the
    finding first (what changed, its witness's error, where)."""
    from mcp_schema_audit.rules import RULES, unknown_rule_message

    wanted = rule_id.strip().strip("[]")
    lines: list[str] = []
    if wanted not in RULES and _FINGERPRINT.match(wanted.lower()):
        finding = _finding_of(wanted.lower(), report)
        lines = _finding_lines(finding)
        wanted = str(finding.get("rule", ""))
    rule = RULES.get(wanted)
    if rule is None:
        raise UsageError(unknown_rule_message(wanted))
    where = rule.direction if rule.surface == rule.direction else f"{rule.surface} {rule.direction}"
    lines += [f"{rule.id} ({where}, default {rule.severity}): {rule.title}", "", rule.rationale, ""]
    for label, value in (
        ("before: ", rule.before),
        ("after:  ", rule.after),
        (f"{rule.error_label}: ", rule.error),
        ("fix: ", rule.fix),
        ("source: ", rule.source),
    ):
        if value:
            lines.append(label + value)
    write_output("\n".join(lines) + "\n", None)


def _finding_of(fingerprint: str, report: Path | None) -> dict[str, Any]:
    """The finding with ``fingerprint`` in ``report`` (or the first of ``DEFAULT_REPORTS`` that exists).
    Raises ``UsageError`` when there is no report or no such finding, ``InputError`` for an unreadable one."""
    from mcp_schema_audit.snapshot import read_json_file

    path = report or next((p for p in DEFAULT_REPORTS if p.is_file()), None)
    if path is None:
        raise UsageError(
            f"{fingerprint} is a finding's fingerprint: give the JSON report it comes from with --report FILE "
            "(schema-audit diff … --format json --output FILE)"
        )
    data = read_json_file(path)
    found = data.get("findings") if isinstance(data, dict) else None
    for f in found if isinstance(found, list) else []:
        if isinstance(f, dict) and f.get("fingerprint") == fingerprint:
            return f
    raise UsageError(f"no finding with fingerprint {fingerprint} in {path}")


def _finding_lines(f: dict[str, Any]) -> list[str]:
    """A finding of a JSON report in words (server text inert): what, where, the witness's error."""
    from mcp_schema_audit.report.escape import one_line

    about = f.get("tool") or f.get("name") or ""
    lines = [f"finding {f.get('fingerprint')}: {one_line(f.get('message', ''))}"]
    lines.append(f"  {one_line(about)} {one_line(f.get('direction', ''))} {one_line(f.get('pointer') or '(root)')}")
    witness = f.get("witness")
    if isinstance(witness, dict) and witness.get("error"):
        # a framework's multi-line error (pydantic: "loc" then "  message") keeps its lines, each inert
        first, *more = str(witness["error"]).splitlines() or [""]
        lines.append(f"  witness rejected with: {one_line(first)}")
        lines += [f"    {one_line(line.strip())}" for line in more[:8]]
    return [*lines, ""]
