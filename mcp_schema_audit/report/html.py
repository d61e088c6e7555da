"""The HTML report (``--format html``): one self-contained page of a diff, a lint, a probe or a history, for people.

The page holds everything it shows: the style is inline, there is no script, image, font or link to anything
outside it, and a Content-Security-Policy (``CSP``) forbids the browser to fetch anything even if some markup
slipped through. It shows the summary (counts per severity, the gate), the findings grouped by what they are
about (a tool, a prompt, a resource …) with severity, rule, pointer, what changed, the witness and the fix, the
ignored findings, the portability matrix (with ``--host``) and, for a history, the cohort matrix.

Every piece of server text goes through ``html_text`` (one line, ``html.escape`` with quotes) or ``html_block``
(a witness's JSON in ``<pre>``): nothing the server sends becomes a tag, an attribute or a reference.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mcp_schema_audit import __version__
from mcp_schema_audit.findings import Finding
from mcp_schema_audit.report import matrix
from mcp_schema_audit.report.cohorts import GroupedFinding, History, affects, cohort_counts, is_tool_row
from mcp_schema_audit.report.escape import html_block, html_text, instance_json, no_workflow_commands
from mcp_schema_audit.report.formats import PLAIN, RenderOptions
from mcp_schema_audit.report.model import (
    Report,
    call_counts,
    call_line,
    describe_entry,
    detail,
    ordered,
    refused_by,
    subject,
    summary_line,
    title,
    traffic_words,
    validator_line,
    version_line,
    witness_sides,
)
from mcp_schema_audit.report.worddelta import finding_delta
from mcp_schema_audit.vocabulary import SEVERITIES, SEVERITY_RANK
from mcp_schema_audit.words import plural

#: Nothing may be fetched, framed, submitted or run: only the page's own inline style applies.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'"
#: Characters of a witness's JSON shown at most (the JSON report has it whole).
WITNESS_CHARS = 8_000
#: Rows of a matrix (portability, cohorts) and probe calls shown at most (the JSON report has them all).
MAX_ROWS = 2_000

_STYLE = """
:root { color-scheme: light dark; --fg: #1f2328; --bg: #ffffff; --muted: #59636e; --line: #d1d9e0;
  --panel: #f6f8fa; --breaking: #cf222e; --warning: #9a6700; --info: #0969da; --ok: #1a7f37; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d;
  --panel: #151b23; --breaking: #ff7b72; --warning: #d29922; --info: #58a6ff; --ok: #3fb950; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 72rem; padding: 1.5rem; color: var(--fg); background: var(--bg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; } h2 { font-size: 1.2rem; margin: 2rem 0 .5rem;
  border-bottom: 1px solid var(--line); padding-bottom: .25rem; } h3 { font-size: 1.05rem; margin: 1.25rem 0 .5rem; }
code, pre { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem;
  overflow: auto; max-height: 24rem; white-space: pre-wrap; }
.muted, footer { color: var(--muted); } footer { margin-top: 2rem; font-size: .85rem; }
.verdict { font-weight: 600; font-size: 1.1rem; } .verdict.failed { color: var(--breaking); }
.verdict.passed { color: var(--ok); }
table { border-collapse: collapse; margin: .5rem 0; } th, td { border: 1px solid var(--line); padding: .2rem .6rem;
  text-align: left; vertical-align: top; } th { background: var(--panel); }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.sev { display: inline-block; min-width: 4.8rem; padding: 0 .4rem; border-radius: 1rem; font-size: .8rem;
  font-weight: 600; text-align: center; color: #fff; } .sev.breaking { background: var(--breaking); }
.sev.warning { background: var(--warning); } .sev.info { background: var(--info); }
.finding { border: 1px solid var(--line); border-left: 4px solid var(--info); border-radius: 6px;
  padding: .5rem .75rem; margin: .5rem 0; } .finding.breaking { border-left-color: var(--breaking); }
.finding.warning { border-left-color: var(--warning); } .finding p { margin: .25rem 0; }
.rule { color: var(--muted); } .fix { border-top: 1px dashed var(--line); padding-top: .25rem; }
del { color: var(--breaking); } ins { color: var(--ok); text-decoration: none; font-weight: 600; }
td.breaking, td.unusable { color: var(--breaking); font-weight: 600; }
td.warning, td.degraded { color: var(--warning); } td.ok, td.usable { color: var(--ok); }
td.new, td.absent { color: var(--muted); }
nav ul { columns: 3 14rem; padding-left: 1.2rem; } summary { cursor: pointer; } h3 code { font-size: 1em; }
"""


def _h(text: Any) -> str:
    return html_text(text)


def _code(text: Any) -> str:
    return f"<code>{html_text(text)}</code>"


def _where(pointer: str | None) -> str:
    return _code(pointer) if pointer else '<span class="muted">(root)</span>'


def _sev(severity: str) -> str:
    return f'<span class="sev {severity}">{severity}</span>'


def _page(heading: str, parts: Iterable[str], footer: str) -> str:
    """The whole document: head (charset, CSP, title, style), ``heading`` as ``<h1>``, ``parts``, ``footer``."""
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
            '<meta name="referrer" content="no-referrer">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{heading}</title>",
            f"<style>{_STYLE}</style>",
            "</head>",
            "<body>",
            f"<header><h1>{heading}</h1></header>",
            "<main>",
            *parts,
            "</main>",
            f"<footer>{footer}</footer>",
            "</body>",
            "</html>",
            "",
        ]
    )


def _summary(counts: dict[str, int], ignored: int, passed: bool, fail_on: str, what: str) -> str:
    """The summary section: the gate's outcome, what was judged, a table of counts."""
    verdict = "passed" if passed else "failed"
    head = "".join(f"<th>{s}</th>" for s in SEVERITIES) + "<th>ignored</th>"
    cells = "".join(f'<td class="n">{counts.get(s, 0)}</td>' for s in SEVERITIES) + f'<td class="n">{ignored}</td>'
    return "\n".join(
        [
            '<section id="summary">',
            "<h2>Summary</h2>",
            f'<p class="verdict {verdict}">Gate {verdict} (fail-on: {_h(fail_on)})</p>',
            f"<p>{what}</p>",
            f'<table class="counts"><tr>{head}</tr><tr>{cells}</tr></table>',
            "</section>",
        ]
    )


def _notes(lines: list[str]) -> str:
    """Remarks (already HTML) as a list, or ``""``."""
    if not lines:
        return ""
    return (
        '<section id="notes">\n<h2>Notes</h2>\n<ul>\n'
        + "\n".join(f"<li>{x}</li>" for x in lines)
        + "\n</ul>\n</section>"
    )


def _delta(f: Finding) -> str:
    """``<p>Change: …</p>`` with the word delta of a changed text (``<del>``/``<ins>``), else ``""``."""
    segments = finding_delta(f)
    if segments is None:
        return ""
    out = []
    for kind, text in segments:
        if kind == "elided":
            out.append("…")
        elif kind == "same":
            out.append(_h(text))
        else:
            tag = "del" if kind == "removed" else "ins"
            out.append(f"<{tag}>{_h(text) if text.strip() else '␣'}</{tag}>")
    return f'<p class="change">Change: {"".join(out)}</p>'


def _error(message: Any, *, code: bool = True) -> str:
    """A witness's error: one line (in ``<code>`` if ``code``), several (pydantic's ``loc`` then ``  msg``) as
    their lines in a ``<pre>`` (``::`` and ``##[`` as in the text report), never a literal ``\\n``."""
    text = str(message).strip("\n")
    if "\n" in text:  # each line its own: none may read as a workflow command where the file is printed
        return f"<pre>{html_block(no_workflow_commands(text))}</pre>"
    return f"<code>{_h(text)}</code>" if code else _h(text)


def _witness(f: Finding, sides: tuple[str, str], *, served_error: bool) -> str:
    """The witness as ``<details>`` (open for a breaking finding): who accepts and who rejects it, the instance
    as JSON, where in it, the error(s). ``served_error``: the error is the server's (an argument it refuses)."""
    w = f.witness or {}
    what = "result" if f.direction == "output" else "value" if f.surface == "tool" else "request"
    if w.get("accepted_by") == "server":
        what = "real result"
    accepted, rejected = sides
    body = [
        f'<details class="witness"{" open" if f.severity == "breaking" else ""}>',
        f"<summary>Witness: a {what} {_h(accepted)}, {_h(refused_by(f, rejected))}</summary>",
        f"<pre>{html_block(instance_json(w.get('instance'), WITNESS_CHARS))}</pre>",
    ]
    if w.get("truncated"):
        body.append("<p>(The instance is shortened: see the recording for the whole result.)</p>")
    if w.get("instance_pointer") not in (None, ""):
        body.append(f"<p>At {_code(w['instance_pointer'])} of the instance.</p>")
    raw_errors = w.get("errors")
    errors: dict[str, Any] = raw_errors if isinstance(raw_errors, dict) else {}
    if len(errors) > 1:
        items = "".join(f"<li>{_h(host)}: {_error(message, code=False)}</li>" for host, message in errors.items())
        body.append(f"<p>Host errors:</p><ul>{items}</ul>")
    elif w.get("error"):
        label = "Server error" if served_error else "Host error"
        message = str(w["error"])
        if "\n" in message.strip("\n"):
            body.append(f"<p>{label}:</p>{_error(message)}")
        else:
            body.append(f"<p>{label}: {_error(message)}</p>")
    body.append("</details>")
    return "\n".join(body)


def _card(f: Finding, *, extra: str = "", sides: tuple[str, str] | None = None, how: str = "") -> str:
    """One finding as an ``<article>``: severity, direction, pointer, title, rule; what changed, the delta,
    traffic, reason, ``extra`` (HTML), the witness (``sides``: who accepts and rejects it) and the fix ``how``."""
    direction = f"{f.direction} · " if f.surface == "tool" and f.direction else ""
    tags = f' <span class="muted">({_h(", ".join(f.tags))})</span>' if f.tags else ""
    lines = [
        f'<article class="finding {f.severity}">',
        f"<p>{_sev(f.severity)} {direction}{_where(f.pointer)} · <strong>{_h(title(f))}</strong> "
        f'<code class="rule">{_h(f.rule)}</code>{tags}</p>',
        f'<p class="detail">{_h(detail(f))}</p>',
    ]
    if delta := _delta(f):
        lines.append(delta)
    if (used := traffic_words(f)) is not None:
        lines.append(f"<p>Traffic: {_h(used)}</p>")
    if f.reason:
        lines.append(f"<p><em>Reason: {_h(f.reason)}</em></p>")
    if extra:
        lines.append(extra)
    if f.witness and sides is not None:
        lines.append(_witness(f, sides, served_error=f.server is not None or f.direction == "input"))
    if how:
        lines.append(f'<p class="fix"><strong>Fix:</strong> {_h(how)}</p>')
    lines.append("</article>")
    return "\n".join(lines)


def _counts_words(severities: Iterable[str]) -> str:
    seen = list(severities)
    return ", ".join(f"{seen.count(s)} {s}" for s in SEVERITIES if s in seen)


def _by_subject(items: list[Any], key: Any) -> dict[str, list[Any]]:
    """``items`` (already ordered, worst first) by what they are about, in the order each subject first comes."""
    out: dict[str, list[Any]] = {}
    for item in items:
        out.setdefault(key(item), []).append(item)
    return out


def _subject_heading(name: str, is_tool: bool) -> str:
    return f'{_code(name)} <span class="muted">tool</span>' if is_tool else _h(name)


def _grouped_sections(groups: dict[str, list[Any]], tools: set[str], cards: Any, severity: Any) -> list[str]:
    """The contents (links to each subject, with its counts) and one ``<section>`` per subject of ``groups``."""
    if not groups:
        return []
    toc, sections = [], []
    for i, (name, items) in enumerate(groups.items(), 1):
        counts = _counts_words(severity(x) for x in items)
        toc.append(f'<li><a href="#s{i}">{_h(name)}</a> <span class="muted">{counts}</span></li>')
        sections.append(
            f'<section class="subject" id="s{i}">\n<h3>{_subject_heading(name, name in tools)} '
            f'<span class="muted">· {counts}</span></h3>\n' + "\n".join(cards(x) for x in items) + "\n</section>"
        )
    total = sum(len(v) for v in groups.values())
    what = "tool" if all(name in tools for name in groups) else "tool and item"
    head = f'<section id="findings">\n<h2>Findings by {what} ({total})</h2>'
    nav = "<nav><ul>\n" + "\n".join(toc) + "\n</ul></nav>"
    return [head, nav, *sections, "</section>"]


def _portability(portability: dict[str, Any]) -> str:
    """The portability matrix: the counts, a table tool × host (the tools not usable somewhere first), why."""
    hosts = portability["hosts"]
    rows = matrix.ordered_rows(portability)
    head = "".join(f"<th>{_h(h)}</th>" for h in hosts)
    table = [f'<table class="portability"><tr><th>tool</th>{head}</tr>']
    for r in rows[:MAX_ROWS]:
        cells = "".join(f'<td class="{_h(r["states"][h])}">{_h(matrix.cell(r, h))}</td>' for h in hosts)
        table.append(f"<tr><td>{_code(r['tool'])}</td>{cells}</tr>")
    table.append("</table>")
    if len(rows) > MAX_ROWS:
        table.append(f"<p>… {len(rows) - MAX_ROWS} more tools in the JSON report.</p>")
    why = []
    for v in portability.get("verdicts", [])[:MAX_ROWS]:
        hits = "; ".join(_h(hit.get("words", hit.get("rule", ""))) for hit in v.get("hits", []))
        fails = " (the whole listing fails)" if v.get("listing_fails") else ""
        why.append(
            f"<li>{_code(v['tool'])} on {_h(v['host'])}: {_h(v['state'])}{fails}{': ' + hits if hits else ''}</li>"
        )
    reasons = (
        f"<details><summary>Why ({len(why)})</summary><ul>\n" + "\n".join(why) + "\n</ul></details>" if why else ""
    )
    return "\n".join(
        [
            '<section id="portability">',
            "<h2>Portability</h2>",
            f"<p>{matrix.counts_line(portability, html_text)}</p>",
            *table,
            reasons,
            "</section>",
        ]
    )


def _calls(calls: list[dict[str, Any]]) -> str:
    items = "\n".join(f"<li>{_h(call_line(c))}</li>" for c in calls[:MAX_ROWS])
    more = f"\n<li>… {len(calls) - MAX_ROWS} more</li>" if len(calls) > MAX_ROWS else ""
    return f'<section id="calls">\n<h2>Calls ({len(calls)})</h2>\n<ul>\n{items}{more}\n</ul>\n</section>'


def _expired(entries: list[dict[str, Any]]) -> list[str]:
    return [f"Expired ignore entry (no longer applies): {_h(describe_entry(e))}" for e in entries]


def _what(report: Report) -> str:
    """What was judged (HTML): the versions, the mode, the hosts."""
    hosts = ", ".join(_h(h) for h in report.hosts)
    mode = f" · mode: {_h(report.mode)}" if report.kind == "diff" else ""
    return f"<strong>{_h(subject(report))}</strong>{mode} · hosts: {hosts}"


def render_report(report: Report, options: RenderOptions = PLAIN) -> str:
    """The page of a diff, lint or probe: summary, notes, portability, (probe:) calls, the findings by tool
    (each with its witness and fix), the ignored findings. Every finding is shown (no budget, unlike Markdown)."""
    parts = [_summary(report.summary, len(report.ignored), report.passed, report.fail_on, _what(report))]
    notes = [_h(validator_line(v)) for v in report.server_validators]
    if (version := version_line(report)) is not None:
        notes.append(f"<strong>{_h(version)}</strong>")
    if report.rollout:
        notes.append(f"<strong>Rollout:</strong> {_h(report.rollout)}")
    notes += [_h(n) for n in report.notes] + _expired(report.expired_ignores)
    parts.append(_notes(notes))
    if report.portability is not None:
        parts.append(_portability(report.portability))
    if report.kind == "probe":
        parts.append(_calls(report.calls))

    def card(f: Finding) -> str:
        how = f.fix
        if report.rollout and "forward" not in f.tags and f.severity == "breaking":
            how = f"{how}; {report.rollout}" if how else report.rollout
        return _card(f, sides=witness_sides(report, f), how=how)

    findings = ordered(report.findings)
    tools = {t["name"] for s in report.snapshots() for t in s.tools}
    groups = _by_subject(findings, lambda f: f.subject)
    parts += _grouped_sections(groups, tools, card, lambda f: f.severity)
    if not findings:
        what = "schema changes" if report.kind == "diff" else "findings"
        parts.append(f"<p>No {what}{' besides ignored findings' if report.ignored else ''}.</p>")
    if report.ignored:
        rows = "\n".join(
            f"<tr><td>{_h(f.subject)}</td><td>{_where(f.pointer)}</td><td>{_code(f.rule)}</td><td>{_h(reason)}</td></tr>"
            for f, reason in report.ignored
        )
        parts.append(
            f'<section id="ignored">\n<h2>Ignored by the config ({len(report.ignored)})</h2>\n<table>'
            f"<tr><th>about</th><th>pointer</th><th>rule</th><th>reason</th></tr>\n{rows}\n</table>\n</section>"
        )
    heading = f"schema-audit {report.kind}: {_h(report.new.label)}"
    if report.kind == "diff" and report.old is not None:
        heading = f"schema-audit diff: {_h(report.old.label)} → {_h(report.new.label)}"
    calls = f"{_h(call_counts(report))} · " if report.kind == "probe" else ""
    return _page(heading, [p for p in parts if p], f"schema-audit {__version__} · {calls}{_h(summary_line(report))}")


_CELL = {"ok": "ok", "new": "new", "absent": "—", "warning": "warning", "breaking": "breaking"}


def _cohort_matrix(hist: History, labels: list[str]) -> str:
    """The cohort matrix: one row per tool (and other item with findings), one column per cached version."""
    m = hist.matrix()
    if not m:
        return ""
    rows = sorted(m.items(), key=lambda kv: -max((SEVERITY_RANK.get(v, 0) for v in kv[1].values()), default=0))
    head = "".join(f"<th>{_h(lbl)}</th>" for lbl in labels)
    lines = [
        '<section id="matrix">',
        "<h2>Cohort matrix</h2>",
        f"<p>{_h(hist.new.label)} against each cached version: the worst finding per row "
        "(info counts as ok; <em>new</em>: not in that version; —: in neither).</p>",
        f'<table class="cohorts"><tr><th>{"tool" if all(is_tool_row(hist, k) for k in m) else "row"}</th>{head}</tr>',
    ]
    for key, row in rows[:MAX_ROWS]:
        cells = "".join(f'<td class="{row[lbl]}">{_CELL[row[lbl]]}</td>' for lbl in labels)
        lines.append(f"<tr><td>{_code(key) if is_tool_row(hist, key) else _h(key)}</td>{cells}</tr>")
    lines.append("</table>")
    if len(rows) > MAX_ROWS:
        lines.append(f"<p>… {len(rows) - MAX_ROWS} more rows in the JSON report.</p>")
    lines.append("</section>")
    return "\n".join(lines)


def _conflicts(hist: History) -> str:
    if not hist.conflicts:
        return ""
    items = []
    for c in hist.conflicts:
        cached = "; ".join(f"{_h(lbl)} caches {_code(v)}" for lbl, v in c.values.items())
        items.append(
            f"<li>{_code(c.tool)} {_where(c.pointer)}: {cached}; all of them accept only {_code(c.common)}</li>"
        )
    return (
        f'<section id="conflicts">\n<h2>Conflicts ({len(hist.conflicts)})</h2>\n<p>Cohorts cache different value '
        "sets: any value outside the common ones breaks one of them.</p>\n<ul>\n"
        + "\n".join(items)
        + "\n</ul>\n</section>"
    )


def render_history(hist: History, options: RenderOptions = PLAIN) -> str:
    """The page of a history: summary (each finding once), the cohort matrix, conflicts, the findings by tool
    (each once at its worst severity, with the cached versions it affects, the newest cohort's witness and the
    rule's fix), the ignored findings, a count per cached version."""
    labels = [c.label for c in hist.cohorts]
    by_label = {c.label: c for c in hist.cohorts}
    groups = hist.grouped()
    counts: dict[str, int] = {s: sum(1 for g in groups if g.severity == s) for s in SEVERITIES}
    what = (
        f"<strong>{_h(hist.new.label)}</strong> against {plural(len(labels), 'cached version')}: "
        + ", ".join(_h(x) for x in labels)
        + " · hosts: "
        + ", ".join(_h(h) for h in hist.hosts)
    )
    parts = [_summary(counts, len(hist.ignored), hist.passed, hist.fail_on, what)]
    notes = [_h(validator_line(v)) for v in hist.server_validators] + [_h(n) for n in hist.notes]
    parts += [_notes(notes + _expired(hist.expired_ignores)), _cohort_matrix(hist, labels), _conflicts(hist)]

    def newest(g: GroupedFinding) -> tuple[str, Finding]:
        label = next(lbl for lbl in reversed(labels) if lbl in g.latest)
        return label, g.latest[label]

    def card(g: GroupedFinding) -> str:
        label, f = newest(g)
        shown = f if f.severity == g.severity else Finding(**{**f.__dict__, "severity": g.severity})
        against = Report(old=by_label[label], new=hist.new, findings=[f], hosts=list(hist.hosts))
        extra = f'<p>{_h(affects(g, labels, SEVERITIES))} <span class="muted">(shown: against {_h(label)})</span></p>'
        return _card(shown, extra=extra, sides=witness_sides(against, f), how=f.fix)

    tools = {t["name"] for s in [hist.new, *hist.cohorts] for t in s.tools}
    parts += _grouped_sections(_by_subject(groups, lambda g: newest(g)[1].subject), tools, card, lambda g: g.severity)
    if not groups:
        besides = " besides ignored findings" if hist.ignored else ""
        parts.append(f"<p>No schema changes against any cached version{besides}.</p>")
    if hist.ignored:
        rows = "\n".join(
            f"<tr><td>{_h(cohort)}</td><td>{_h(f.subject)}</td><td>{_where(f.pointer)}</td><td>{_code(f.rule)}</td>"
            f"<td>{_h(reason)}</td></tr>"
            for f, reason, cohort in hist.ignored
        )
        parts.append(
            f'<section id="ignored">\n<h2>Ignored by the config ({len(hist.ignored)})</h2>\n<table><tr><th>cached '
            f"version</th><th>about</th><th>pointer</th><th>rule</th><th>reason</th></tr>\n{rows}\n</table>\n</section>"
        )
    gate = "gate passed" if hist.passed else "gate FAILED"
    footer = f"schema-audit {__version__} · " + " · ".join(_h(x) for x in cohort_counts(hist))
    footer += f"; {gate} (--fail-on {_h(hist.fail_on)})"
    heading = f"schema-audit history: {_h(hist.new.label)} against {plural(len(labels), 'cached version')}"
    return _page(heading, [p for p in parts if p], footer)
