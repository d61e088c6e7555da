"""``rules``, ``explain`` and ``schema``: the rule catalog and the published JSON Schemas."""

from __future__ import annotations

import typer

from mcp_schema_audit.cli.app import command
from mcp_schema_audit.cli.common import write_output
from mcp_schema_audit.errors import UsageError

#: What ``rules --format`` accepts.
RULES_FORMATS = ("text", "json")


@command("Print a published JSON Schema (report, history).")
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


@command("List the rule catalog.")
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
        raise UsageError(f"--format must be one of {', '.join(RULES_FORMATS)} (got {fmt!r})")
    width = max(len(r) for r in RULES)
    for r in RULES.values():
        write_output(f"{r.id:<{width}}  {r.direction:<17}  {r.severity:<8}  {r.title}\n", None)


@command("Explain a rule: rationale, example, host error, fix.")
def explain(rule_id: str = typer.Argument(..., metavar="RULE_ID", help="A rule id from 'schema-audit rules'.")) -> None:
    """Print a rule's rationale, a before/after example and the error a host raises."""
    from mcp_schema_audit.rules import RULES, unknown_rule_message

    rule = RULES.get(rule_id)
    if rule is None:
        raise UsageError(unknown_rule_message(rule_id))
    where = rule.direction if rule.surface == rule.direction else f"{rule.surface} {rule.direction}"
    lines = [f"{rule.id} ({where}, default {rule.severity}): {rule.title}", "", rule.rationale, ""]
    if rule.before:
        lines += [f"before: {rule.before}"]
    if rule.after:
        lines += [f"after:  {rule.after}"]
    if rule.error:
        lines += [f"host error: {rule.error}"]
    if rule.fix:
        lines += [f"fix: {rule.fix}"]
    if rule.source:
        lines += [f"source: {rule.source}"]
    write_output("\n".join(lines) + "\n", None)
