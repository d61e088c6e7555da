"""GitHub Actions workflow commands (``--format github``): one annotation per finding, then a summary notice.

Each line names the file the finding is about (``file=`` and ``line=``, as in SARIF) and a title with the
rule; data is ``inert`` and percent-encoded (``%``, CR, LF; ``:`` and ``,`` in properties), so server text
can neither end the command nor start another one.
"""

from __future__ import annotations

import urllib.parse
from typing import Any

from mcp_schema_audit.locate import about, line_of, snapshot_of_item
from mcp_schema_audit.report.cohorts import History, affects, cohort_counts
from mcp_schema_audit.report.escape import inert
from mcp_schema_audit.report.formats import PLAIN, RenderOptions
from mcp_schema_audit.report.model import (
    Report,
    describe_entry,
    ordered,
    plain_message,
    subject,
    summary_line,
    title,
)
from mcp_schema_audit.report.sarif import artifact_uri, location_of
from mcp_schema_audit.words import plural

_GH_COMMAND = {"breaking": "error", "warning": "warning", "info": "notice"}


def gh_data(text: Any) -> str:
    """Workflow-command data: ``inert``, then ``%``, CR and LF percent-encoded (GitHub's escaping), and ``##[``
    written ``#\\x23[`` (the runner reads a ``##[cmd]`` anywhere in a line)."""
    return inert(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A").replace("##[", "#\\x23[")


def gh_property(text: Any) -> str:
    """Workflow-command property value: as ``gh_data`` plus ``:`` and ``,`` percent-encoded."""
    return gh_data(text).replace(":", "%3A").replace(",", "%2C")


def _file_props(uri: str | None, line: int) -> list[str]:
    """``file=`` and ``line=`` for a repository-relative artifact URI (none for a URL or a ``file:`` URI)."""
    if uri is None or "://" in uri or uri.startswith("file:"):
        return []
    return [f"file={gh_property(urllib.parse.unquote(uri))}", f"line={line}"]


def render_report(report: Report, options: RenderOptions = PLAIN) -> str:
    """GitHub Actions workflow commands: one ``::error``/``::warning``/``::notice`` line per finding.

    Each line names the snapshot file (``file=``, with ``line=`` of the tool's ``"name"`` as in SARIF; for a
    probe finding about the live listing, the calls file or recording) and a title with the rule; the
    message says tool, direction, pointer, what changed and the witness error. Then one ``::warning`` per
    expired ignore entry and a final ``::notice`` saying what the report is, with the summary (so the output
    is never empty).
    """
    lines = []
    for f in ordered(report.findings):
        snap, _uri, line = location_of(report, f)
        source = report.sources.get(f.tool) if f.surface == "tool" and f.tool else None
        uri = (
            artifact_uri(source[0])
            if source is not None
            else artifact_uri(report.artifact)
            if (report.kind == "probe" and snap is report.new and not snap.source and report.artifact)
            else artifact_uri(snap.source)
        )
        props = _file_props(uri, line)
        props.append(f"title={gh_property(f'schema-audit {f.severity}: {title(f)} [{f.rule}]')}")
        msg = plain_message(report, f, about(f), " | witness") + (f" | fix: {f.fix}" if f.fix else "")
        lines.append(f"::{_GH_COMMAND[f.severity]} {','.join(props)}::{gh_data(msg)}")
    for entry in report.expired_ignores:
        lines.append(
            f"::warning title={gh_property('schema-audit expired ignore entry')}::"
            f"{gh_data('no longer applies: ' + describe_entry(entry))}"
        )
    lines.append(
        f"::notice title={gh_property('schema-audit ' + report.kind)}::"
        f"{gh_data(subject(report) + ': ' + summary_line(report))}"
    )
    return "\n".join(lines) + "\n"


def render_history(hist: History, options: RenderOptions = PLAIN) -> str:
    """One annotation per finding of a history (each once, level = its worst severity, with the cached versions
    it affects), located in NEW's snapshot file at the tool's line (the newest cohort's for a tool NEW no longer
    lists); then a ``::notice`` with the counts per cohort and the gate."""
    labels = [c.label for c in hist.cohorts]
    lines = []
    for g in hist.grouped():
        latest = g.latest[next(lbl for lbl in reversed(labels) if lbl in g.latest)]
        snap = snapshot_of_item(latest, [hist.new, *reversed(hist.cohorts)])
        props = _file_props(artifact_uri(snap.source), line_of(snap, latest))
        rule_title = title(latest)
        props.append(f"title={gh_property(f'schema-audit {g.severity}: {rule_title} [{g.rule}]')}")
        msg = f"{g.about} {g.pointer or '(root)'}: {affects(g, labels, ('breaking', 'warning', 'info'))}"
        lines.append(f"::{_GH_COMMAND[g.severity]} {','.join(props)}::{gh_data(msg)}")
    verdict = "gate passed" if hist.passed else "gate FAILED"
    summary = (
        f"history: {hist.new.label} against {plural(len(labels), 'cached version')}: "
        + " · ".join(cohort_counts(hist))
        + f"; {verdict} (--fail-on {hist.fail_on})"
    )
    lines.append(f"::notice title={gh_property('schema-audit history')}::{gh_data(summary)}")
    return "\n".join(lines) + "\n"
