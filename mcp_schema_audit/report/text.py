"""The human report (``--format text``) of a diff, a lint, a probe or a history.

Plain lines, never wrapped (CI logs keep whole lines); colours (through rich, without markup) only on a
terminal. Server text is one line each and inert (``tx``): no escape sequence, and no ``::``/``##[`` that a
CI log could read as a workflow command.
"""

from __future__ import annotations

import io
import json
from typing import Any

from mcp_schema_audit.findings import Finding
from mcp_schema_audit.locate import about
from mcp_schema_audit.report import matrix
from mcp_schema_audit.report.cohorts import History, affects, cohort_counts
from mcp_schema_audit.report.escape import no_workflow_commands, one_line
from mcp_schema_audit.report.formats import PLAIN, RenderOptions
from mcp_schema_audit.report.model import (
    Report,
    by_about,
    call_line,
    describe_entry,
    detail,
    grouped,
    headline,
    ordered,
    refused_by,
    runs,
    shared_detail,
    shared_fix,
    summary_line,
    title,
    traffic_words,
    validator_line,
    version_line,
    witness_sides,
)
from mcp_schema_audit.report.worddelta import finding_delta
from mcp_schema_audit.words import join_words, plural

_STYLE = {"breaking": "bold red", "warning": "yellow", "info": "cyan"}
#: lines of a multi-line witness error shown after its first
_ERROR_LINES = 8
_WITNESS_CHARS = 300


def tx(text: Any) -> str:
    """Server text for the text report: one line (``one_line``), and no ``::`` or ``##[`` left, so no
    line of a CI log, wrapped or not, can read as a GitHub workflow command (shown as ``:\\x3a``)."""
    return no_workflow_commands(one_line(text))


_TEXT_MARKS = {"removed": ("[-", "-]"), "added": ("{+", "+}"), "same": ("", "")}


def text_delta_line(segments: list[tuple[str, str]]) -> str:
    """A word delta (``worddelta.text_delta``) on one line: ``[-removed-]{+added+}``, ``…`` where elided; every
    piece of server text through ``tx``."""
    out = []
    for kind, text in segments:
        if kind == "elided":
            out.append("…")
            continue
        start, end = _TEXT_MARKS[kind]
        out.append(f"{start}{tx(text)}{end}")
    return "".join(out)


class _Text:
    """A line of text made of styled parts (``rich.text.Text``'s ``append``, without importing rich)."""

    def __init__(self, text: str = "", style: str = "") -> None:
        self.parts = [(text, style)] if text else []

    def append(self, text: str, style: str = "") -> None:
        self.parts.append((text, style))


class _Lines:
    """Collects ``_Text`` lines; ``getvalue()`` renders them: plain text, or through rich with colours (only
    then is rich imported: a plain report must not pay for it)."""

    def __init__(self, color: bool, width: int) -> None:
        self.color, self.width, self.lines = color, width, []  # type: ignore[var-annotated]

    def print(self, line: _Text) -> None:
        self.lines.append(line)

    def getvalue(self) -> str:
        if not self.color:
            return "".join("".join(text for text, _ in line.parts) + "\n" for line in self.lines)
        from rich.console import Console
        from rich.text import Text

        buf = io.StringIO()
        # soft_wrap: never hard-wrap a line (CI logs and files keep whole lines; terminals wrap themselves)
        console = Console(
            file=buf, width=self.width, force_terminal=True, highlight=False, emoji=False, markup=False, soft_wrap=True
        )
        for line in self.lines:
            out = Text()
            for text, style in line.parts:
                out.append(text, style=style or None)
            console.print(out)
        return buf.getvalue()


def render_report(report: Report, options: RenderOptions = PLAIN) -> str:
    """A human report: what it is, notes, (probe: the calls,) one entry per finding (breaking first) with
    witnesses, ignored findings, expired ignore entries, the summary line. ``options``: colour and width."""
    console = _Lines(options.color, options.width)
    console.print(_Text(f"schema-audit {tx(headline(report))}"))
    for v in report.server_validators:
        console.print(_Text(tx(validator_line(v)), style="dim"))
    if (version := version_line(report)) is not None:
        console.print(_Text(tx(version)))
    for note in report.notes:
        console.print(_Text(f"note: {tx(note)}", style="yellow"))
    for call in report.calls:
        console.print(_Text(f"call {tx(call_line(call))}", style="dim"))
    if report.portability is not None:
        for line in matrix.text_lines(report.portability, tx):
            console.print(_Text(line))
    findings = ordered(report.findings)
    if not findings:
        if report.ignored:
            console.print(_Text(f"No findings besides {len(report.ignored)} ignored."))
        else:
            console.print(_Text("No schema changes." if report.kind == "diff" else "No findings."))
    for unit in grouped(findings):
        if len(unit) == 1:
            _finding(console, report, unit[0])
        else:
            _group(console, unit)
    for f, reason in report.ignored:
        console.print(
            _Text(f"ignored  {tx(about(f))} {tx(f.pointer) or '(root)'}  [{f.rule}]: {tx(reason)}", style="dim")
        )
    for entry in report.expired_ignores:
        console.print(
            _Text(f"warning: expired ignore entry no longer applies: {tx(describe_entry(entry))}", style="yellow")
        )
    console.print(_Text(summary_line(report), style="bold" if not report.passed else ""))
    return console.getvalue()


def render_history(hist: History, options: RenderOptions = PLAIN) -> str:
    """Plain text: the matrix, the conflicts, then each breaking or warning finding once with the cached
    versions it affects, and a summary per cohort with the gate.

    Server text (tool names, labels, pointers, values) is shown inertly, one line each (``tx``).
    """
    labels = [c.label for c in hist.cohorts]
    m = hist.matrix()
    tw = max([len("tool")] + [len(tx(t)) for t in m])
    cw = [max(len(tx(lbl)), 8) for lbl in labels]
    lines = [f"schema-audit history: {tx(hist.new.label)} against {plural(len(labels), 'cached version')}"]
    lines += [tx(validator_line(v)) for v in hist.server_validators]
    lines += [f"note: {tx(n)}" for n in hist.notes]
    lines.append("")
    lines.append("tool".ljust(tw) + "  " + "  ".join(tx(lbl).ljust(w) for lbl, w in zip(labels, cw, strict=False)))
    for tool, row in m.items():
        cells = "  ".join(row[lbl].ljust(w) for lbl, w in zip(labels, cw, strict=False))
        lines.append(tx(tool).ljust(tw) + "  " + cells)
    if hist.conflicts:
        lines += [
            "",
            "Conflicts (cohorts cache different value sets: each rejects values another accepts, so any "
            "value outside the common ones breaks one of them):",
        ]
        for c in hist.conflicts:
            every = "both" if len(c.cohorts) == 2 else "all of them"
            lines.append(
                f"  {tx(c.tool)} {tx(c.pointer) or '(root)'}: cohorts {tx(join_words(c.cohorts))} "
                f"cache {tx(json.dumps(c.values, ensure_ascii=False))}; {every} accept only "
                f"{tx(json.dumps(c.common, ensure_ascii=False))}"
            )
    if hist.version_gate and hist.steps:
        lines += ["", "Release steps (--version-gate semver; oldest first):"]
        lines += [f"  {tx(step.line())}" for step in hist.steps]
    shown = [g for g in hist.grouped() if g.severity in ("breaking", "warning")]
    lines.append("")
    if shown:
        lines.append(f"Findings ({len(shown)}, breaking and warning; each once, with the cached versions it affects):")
        for unit in runs(
            shown, lambda g: None if g.severity == "breaking" else (g.severity, g.rule, affects(g, labels))
        ):
            g = unit[0]
            if len(unit) == 1:
                lines.append(
                    f"  {g.severity:<8} {tx(g.about)} {tx(g.pointer) or '(root)'} [{g.rule}]  {tx(affects(g, labels))}"
                )
                used = [(label, traffic_words(f)) for label, f in g.latest.items()]
                if any(words for _, words in used):
                    lines.append(
                        "           traffic: " + "; ".join(f"{tx(label)}: {words}" for label, words in used if words)
                    )
                if g.fix:
                    lines.append(f"           fix: {tx(g.fix)}")
                continue
            lines.append(f"  {g.severity:<8} {len(unit)} × [{g.rule}]  {tx(affects(g, labels))}:")
            abouts: dict[str, list[str]] = {}
            for item in unit:
                abouts.setdefault(item.about, []).append(tx(item.pointer) or "(root)")
            lines += [f"           {tx(name)}: {', '.join(ptrs)}" for name, ptrs in abouts.items()]
            if g.fix:
                lines.append(f"           fix: {tx(g.fix)}")
    else:
        lines.append("No breaking or warning findings.")
    lines += [
        f"ignored  {tx(cohort)}: {tx(about(f))} {tx(f.pointer) or '(root)'}  [{f.rule}]: {tx(reason)}"
        for f, reason, cohort in hist.ignored
    ]
    lines += [
        f"warning: expired ignore entry no longer applies: {tx(describe_entry(entry))}"
        for entry in hist.expired_ignores
    ]
    summary = " · ".join(tx(x) for x in cohort_counts(hist))
    summary += f"; {'gate passed' if hist.passed else 'gate FAILED'} (--fail-on {hist.fail_on})"
    if hist.ignored:
        summary += f"; {len(hist.ignored)} ignored"
    lines += ["", summary]
    return "\n".join(lines) + "\n"


def _finding(console: _Lines, report: Report, f: Finding) -> None:
    """One finding: its line, what changed, the reason, (breaking:) the witness, then its fix (any severity)."""
    head = _Text()
    head.append(f"{f.severity:<8}", style=_STYLE[f.severity])
    tags = f" ({', '.join(f.tags)})" if f.tags else ""
    head.append(f" {tx(about(f))} {tx(f.pointer) or '(root)'}  [{f.rule}]{tags}")
    console.print(head)
    console.print(_Text(f"         {tx(detail(f))}"))
    if (used := traffic_words(f)) is not None:
        console.print(_Text(f"         traffic: {used}"))
    delta = finding_delta(f)
    if delta is not None:
        console.print(_Text(f"         change: {text_delta_line(delta)}"))
    if f.reason:
        console.print(_Text(f"         ({tx(f.reason)})", style="dim"))
    if f.severity == "breaking" and f.witness:
        w = f.witness
        inst = json.dumps(w.get("instance"), ensure_ascii=False, sort_keys=True, default=str)
        if len(inst) > _WITNESS_CHARS:
            inst = inst[: _WITNESS_CHARS - 1] + "…"
        console.print(_Text(f"         witness: {tx(inst)}", style="dim"))
        accepted, rejected = witness_sides(report, f)
        raw_errors = w.get("errors")
        errors: dict[str, Any] = raw_errors if isinstance(raw_errors, dict) else {}
        if len(errors) > 1:
            console.print(_Text(f"         {tx(accepted)}, {tx(refused_by(f, rejected))}:", style="dim"))
            for host, message in errors.items():
                console.print(_Text(f"           {tx(host)}: {tx(message)}", style="dim"))
        else:  # a multi-line error (pydantic's ``loc`` then ``  message``) keeps its lines
            first, *more = str(w.get("error", "")).splitlines() or [""]
            console.print(_Text(f"         {tx(accepted)}, {tx(refused_by(f, rejected))}: {tx(first)}", style="dim"))
            for line in more[:_ERROR_LINES]:
                console.print(_Text(f"           {tx(line)}", style="dim"))
    how = tx(f.fix)  # every finding with a fix; a host finding's fix holds the server's subschema
    if f.severity == "breaking" and report.rollout and "forward" not in f.tags:
        how = f"{how}; {tx(report.rollout)}" if how else tx(report.rollout)
    if how:
        console.print(_Text(f"         fix: {how}", style="dim"))


def _tags(f: Finding) -> str:
    return f" ({', '.join(f.tags)})" if f.tags else ""


def _group(console: _Lines, group: list[Finding]) -> None:
    """Findings of one rule and severity as one entry: the count, the rule, the shared detail (or each one's),
    the list of where they are, the fix once."""
    first = group[0]
    head = _Text()
    head.append(f"{first.severity:<8}", style=_STYLE[first.severity])
    head.append(f" {len(group)} × [{first.rule}] {tx(title(first))}")
    console.print(head)
    shared, common_fix = shared_detail(group), shared_fix(group)  # once a group: per finding was n² (6,000: 4 s)
    if shared is not None:
        console.print(_Text(f"         {tx(shared)}"))
        for head_f, fs in by_about(group):  # one line per tool: its pointers
            where = ", ".join(tx(f.pointer) or "(root)" for f in fs)
            reasons = "".join(f" ({tx(r)})" for r in dict.fromkeys(f.reason for f in fs if f.reason))
            console.print(_Text(f"         - {tx(about(head_f))}: {where}{_tags(head_f)}{reasons}"))
            for how in dict.fromkeys(f.fix for f in fs if f.fix) if common_fix is None else ():
                console.print(_Text(f"           fix: {tx(how)}", style="dim"))
    else:
        for f in group:
            line = f"         - {tx(about(f))} {tx(f.pointer) or '(root)'}{_tags(f)}: {tx(detail(f))}"
            console.print(_Text(line + (f" ({tx(f.reason)})" if f.reason else "")))
            if common_fix is None and f.fix:  # each one's own fix (a host rule's portable spelling)
                console.print(_Text(f"           fix: {tx(f.fix)}", style="dim"))
    if common_fix:
        console.print(_Text(f"         fix: {tx(first.fix)}", style="dim"))
