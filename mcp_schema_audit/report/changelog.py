"""The ``changelog`` format: release notes for people (``--format changelog``), in Markdown.

What changed per tool (and per prompt, resource, template, the server), breaking changes first, each with what a
host that cached the old version sees (the witness's error) and how to migrate (the finding's fix) as nested items
of the change's own list item; then the changes hosts may notice (warnings, with their fix too) and the compatible
ones (info), one line each. Not a gate
(``Format.gate`` False: ``diff A B --format changelog > NOTES.md`` exits 0). Server text goes through the
Markdown escapers (``md_escape``, ``md_code``), as in the ``markdown`` format.
"""

from __future__ import annotations

from mcp_schema_audit.findings import Finding
from mcp_schema_audit.report.cohorts import History, affects
from mcp_schema_audit.report.formats import PLAIN, RenderOptions
from mcp_schema_audit.report.markdown import md_code, md_escape, md_lines
from mcp_schema_audit.report.model import Report, detail, ordered, title, who

_SECTIONS = (
    ("breaking", "Breaking changes", "Hosts that cached {old} fail on these until they list the tools again."),
    ("warning", "Changes hosts may notice", ""),
    ("info", "Compatible changes", ""),
)


def _subject(f: Finding) -> str:
    return md_code(f.tool) if f.surface == "tool" and f.tool else md_escape(f.subject)


def _line(f: Finding, *, witness: bool, migrate: bool, extra: str = "") -> str:
    """One change as a list item; under it, as nested items, what a cached host sees (``witness``) and how to
    migrate (``migrate``: this change's own fix)."""
    where = f" at {md_code(f.pointer)}" if f.pointer else ""
    direction = f"{f.direction}: " if f.surface == "tool" and f.direction in ("input", "output") else ""
    text = f"- {direction}{md_escape(title(f))}{where}: {md_escape(detail(f))}{extra}"
    if witness and f.witness and f.witness.get("error"):
        says = "the server answers" if f.server is not None or f.direction == "input" else "a cached host says"
        text += f"\n  - {says}: {md_lines(f.witness['error'])}"
    if migrate and f.fix:
        text += f"\n  - **Migrate:** {md_escape(f.fix)}"
    return text


def _by_subject(findings: list[Finding]) -> dict[str, list[Finding]]:
    out: dict[str, list[Finding]] = {}
    for f in findings:
        out.setdefault(_subject(f), []).append(f)
    return out


def _section(findings: list[Finding], severity: str, heading: str, lead: str, old: str, extra: dict[int, str]) -> str:
    chosen = [f for f in findings if f.severity == severity]
    if not chosen:
        return ""
    parts = [f"## {heading} ({len(chosen)})"]
    if lead:
        parts.append(lead.format(old=old))
    for subject, items in _by_subject(chosen).items():
        lines = [f"### {subject}", ""]
        lines += [
            _line(f, witness=severity == "breaking", migrate=severity != "info", extra=extra.get(id(f), ""))
            for f in items
        ]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _document(head: str, summary: str, findings: list[Finding], old: str, extra: dict[int, str]) -> str:
    parts = [head, summary]
    sections = [_section(findings, sev, heading, lead, old, extra) for sev, heading, lead in _SECTIONS]
    parts += [s for s in sections if s] or ["No changes to the tools, prompts, resources or server."]
    return "\n\n".join(parts) + "\n"


def render_report(report: Report, options: RenderOptions = PLAIN) -> str:
    """Release notes of a diff (``old`` → ``new``); of a lint or probe, its findings under the same headings."""
    s = report.summary
    old = md_escape(who(report.old)) if report.old is not None and report.kind == "diff" else "the old version"
    head = (
        f"# Release notes: {old} → {md_escape(who(report.new))}"
        if report.kind == "diff"
        else f"# {report.kind} of {md_escape(who(report.new))}"
    )
    summary = f"{s['breaking']} breaking, {s['warning']} to notice, {s['info']} compatible."
    return _document(head, summary, ordered(report.findings), old, {})


def render_history(hist: History, options: RenderOptions = PLAIN) -> str:
    """Release notes of NEW against every cached version: each change once (its newest cohort's finding at its
    worst severity), with the cached versions it affects."""
    labels = [c.label for c in hist.cohorts]
    findings, extra = [], {}
    for g in hist.grouped():
        latest = g.latest[next(lbl for lbl in reversed(labels) if lbl in g.latest)]
        shown = latest if latest.severity == g.severity else Finding(**{**latest.__dict__, "severity": g.severity})
        findings.append(shown)
        extra[id(shown)] = f" ({md_escape(affects(g, labels, ('breaking', 'warning', 'info')))})"
    cached = ", ".join(md_escape(lbl) for lbl in labels) or "no cached version"
    head = f"# Release notes: {md_escape(who(hist.new))} (against {cached})"
    counts = {sev: sum(1 for f in findings if f.severity == sev) for sev in ("breaking", "warning", "info")}
    summary = f"{counts['breaking']} breaking, {counts['warning']} to notice, {counts['info']} compatible."
    return _document(head, summary, ordered(findings), "an older version", extra)
