"""JUnit XML (``--format junit``): one test case per tool, failing when the tool has findings at or above the gate.

Built with ElementTree, so every text is escaped, never concatenated as XML; server text is one line and
valid XML 1.0 characters (``inert``).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from mcp_schema_audit import __version__
from mcp_schema_audit.findings import Finding
from mcp_schema_audit.locate import SECTION_OF, junit_case
from mcp_schema_audit.report.cohorts import History, affects
from mcp_schema_audit.report.escape import no_workflow_commands, one_line
from mcp_schema_audit.report.formats import PLAIN, RenderOptions
from mcp_schema_audit.report.model import (
    Report,
    call_line,
    detail,
    headline,
    ordered,
    refused_by,
    witness_sides,
)
from mcp_schema_audit.rules import SEVERITY_RANK
from mcp_schema_audit.vocabulary import SURFACE_WORDS
from mcp_schema_audit.words import plural

#: Lines of a multi-line witness error shown after its first (as the text report shows them).
_ERROR_LINES = 8


def _xml(text: Any) -> str:
    """Server text for XML: one line, valid XML 1.0 characters (ElementTree escapes ``& < > "``)."""
    return one_line(text)


def _junit_entry(report: Report, f: Finding, reason: str | None = None) -> str:
    lines = [f"[{f.severity}] {f.rule}: {f.direction} {_xml(f.pointer) or '(root)'}: {_xml(detail(f))}"]
    if f.reason:
        lines.append(f"  reason: {_xml(f.reason)}")
    if f.witness:
        w = f.witness
        inst = json.dumps(w.get("instance"), ensure_ascii=False, sort_keys=True, default=str)
        accepted, rejected = witness_sides(report, f)
        lines.append(f"  witness, {_xml(accepted)}: {_xml(inst)}")
        if w.get("error"):  # a multi-line error (zod's issues, pydantic's loc then message) keeps its lines
            first, *more = [ln for ln in str(w["error"]).splitlines() if ln.strip()] or [""]
            lines.append(f"  {_xml(refused_by(f, rejected))}: {_xml(first)}")
            # each line its own: none may read as a workflow command where a CI log shows it
            lines += [f"    {no_workflow_commands(_xml(line.strip()))}" for line in more[:_ERROR_LINES]]
    if f.fix:
        lines.append(f"  fix: {_xml(f.fix)}")
    if reason is not None:
        lines.append(f"  ignored: {_xml(reason)}")
    lines.append(f"  fingerprint: {f.fingerprint}")
    return "\n".join(lines)


def _document(
    suite_name: str, props: list[tuple[str, str]], cases: list[tuple[str, Any, tuple[str, str, str] | None, str]]
) -> str:
    """The XML text: one suite named ``suite_name`` with ``props`` and one test case per
    ``(classname, name, failure, system_out)``; ``failure`` is ``None`` or ``(type, message, text)``."""
    root = ET.Element("testsuites", {"name": "schema-audit"})
    suite = ET.SubElement(root, "testsuite", {"name": _xml(suite_name)})
    properties = ET.SubElement(suite, "properties")
    for name, value in props:
        ET.SubElement(properties, "property", {"name": name, "value": _xml(value)})
    failures = 0
    for classname, case_name, failure, out in cases:
        case = ET.SubElement(suite, "testcase", {"classname": _xml(classname), "name": _xml(case_name), "time": "0"})
        if failure is not None:
            failures += 1
            kind, message, text = failure
            ET.SubElement(case, "failure", {"type": kind, "message": message}).text = text
        if out:
            ET.SubElement(case, "system-out").text = out
    counts = {"tests": str(len(cases)), "failures": str(failures), "errors": "0", "skipped": "0", "time": "0"}
    suite.attrib.update(counts)
    root.attrib.update(counts)
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def render_report(report: Report, options: RenderOptions = PLAIN) -> str:
    """JUnit XML: one ``<testcase>`` per tool (a diff: old ∪ new; a lint: the snapshot's; a probe: the tools
    called), by name, then one per prompt, resource and resource template (``prompt summarize``) and
    ``server capabilities``/``server instructions`` when they have findings; ``classname`` = the server's name
    (else NEW's label). A tool with findings at or above
    ``fail_on`` gets one ``<failure>`` (type = its highest severity) listing them; other findings and ignored
    ones go to ``<system-out>`` (a probe's calls of the tool too). The suite is named after what the report is
    (``schema-audit diff: A -> B``, ``schema-audit lint: A``, ``schema-audit probe: A, …``).
    """
    failing_ids = {id(f) for f in report.failing()}
    if report.kind == "probe":
        names = {c.get("tool") for c in report.calls}
    else:
        names = {t.get("name") for t in report.new.tools} | (
            {t.get("name") for t in report.old.tools} if report.old is not None else set()
        )
    tools = sorted(
        names
        | {f.tool for f in report.findings if f.surface == "tool"}
        | {f.tool for f, _ in report.ignored if f.surface == "tool"},
        key=str,
    )
    # then one case per prompt, resource and resource template (and the server when it has findings)
    others = {f.subject for f in report.findings if f.surface != "tool"} | {
        f.subject for f, _ in report.ignored if f.surface != "tool"
    }
    if report.kind != "probe":
        for surface, section in SECTION_OF.items():
            if surface != "tool":
                for snap in [s for s in (report.old, report.new) if s is not None]:
                    others |= {f"{SURFACE_WORDS[surface]} {name}" for name in snap.section_map(section) or {}}
    tools += sorted(others)
    server = report.new.server.get("name") if isinstance(report.new.server, dict) else None
    classname = server or report.new.label or "mcp-server"
    props = [
        ("schema-audit.version", __version__),
        ("kind", report.kind),
        ("mode", report.mode),
        ("hosts", ",".join(report.hosts)),
        ("fail_on", report.fail_on),
    ]
    props += [("old", report.old.label)] if report.old is not None else []
    props += [("new", report.new.label)]
    props += [("cached", ",".join(s.label for s in report.cached))] if report.kind == "probe" else []
    cases = []
    # each finding and ignored finding under its case, once (not every finding scanned for every case)
    by_case: dict[Any, list[Finding]] = {}
    for f in ordered(report.findings):
        by_case.setdefault(junit_case(f), []).append(f)
    ignored_by_case: dict[Any, list[tuple[Finding, str]]] = {}
    for f, r in report.ignored:
        ignored_by_case.setdefault(junit_case(f), []).append((f, r))
    calls_by_tool: dict[Any, list[dict[str, Any]]] = {}
    for c in report.calls:
        calls_by_tool.setdefault(c.get("tool"), []).append(c)
    for tool in tools:
        mine = by_case.get(tool, [])
        bad = [f for f in mine if id(f) in failing_ids]
        rest = [f for f in mine if id(f) not in failing_ids]
        failure = None
        if bad:
            n = len(bad)
            failure = (
                bad[0].severity,
                f"{n} finding{'s' if n != 1 else ''} at or above {report.fail_on}: "
                + "; ".join(f"{f.rule} at {_xml(f.pointer) or '(root)'}" for f in bad),
                "\n\n".join(_junit_entry(report, f) for f in bad),
            )
        out = [f"call {_xml(call_line(c))}" for c in calls_by_tool.get(tool, [])]
        out += [_junit_entry(report, f) for f in rest] + [
            _junit_entry(report, f, r) for f, r in ignored_by_case.get(tool, [])
        ]
        cases.append((classname, tool, failure, "\n\n".join(out)))
    return _document(f"schema-audit {headline(report)}", props, cases)


def render_history(hist: History, options: RenderOptions = PLAIN) -> str:
    """JUnit XML of a history: one ``<testcase>`` per tool of NEW and the cached versions; a tool with a finding
    at or above the gate in some cohort fails, listing each such finding once with the cached versions it
    affects; the rest go to ``<system-out>``."""
    labels = [c.label for c in hist.cohorts]
    limit = SEVERITY_RANK.get(hist.fail_on, 99)
    groups = hist.grouped()
    server = hist.new.server.get("name") if isinstance(hist.new.server, dict) else None
    classname = server or hist.new.label or "mcp-server"
    cases = []
    for tool in hist.matrix():
        mine = [g for g in groups if (g.tool if g.surface == "tool" else g.about) == tool]
        lines = [
            (
                g,
                f"[{g.severity}] {g.rule}: {g.direction} {_xml(g.pointer) or '(root)'}: "
                f"{_xml(affects(g, labels, ('breaking', 'warning', 'info')))}\n  fingerprint: {g.fingerprint}",
            )
            for g in mine
        ]
        bad = [(g, text) for g, text in lines if SEVERITY_RANK[g.severity] >= limit]
        rest = [text for g, text in lines if SEVERITY_RANK[g.severity] < limit]
        failure = None
        if bad:
            n = len(bad)
            failure = (
                bad[0][0].severity,
                f"{n} finding{'s' if n != 1 else ''} at or above {hist.fail_on}: "
                + "; ".join(f"{g.rule} at {_xml(g.pointer) or '(root)'}" for g, _ in bad),
                "\n\n".join(text for _, text in bad),
            )
        cases.append((classname, tool, failure, "\n\n".join(rest)))
    props = [
        ("schema-audit.version", __version__),
        ("kind", "history"),
        ("fail_on", hist.fail_on),
        ("new", hist.new.label),
        ("cached", ",".join(labels)),
    ]
    return _document(
        f"schema-audit history: {hist.new.label} against {plural(len(labels), 'cached version')}", props, cases
    )
