"""The SARIF 2.1.0 report (``--format sarif``) for code scanning, of a diff, a lint, a probe or a history.

One run; ``tool.driver`` is schema-audit with the whole rule catalog; one result per finding, located in
the snapshot file the finding is about (``region.startLine`` = the line of the tool's ``"name"``), or for a
probe finding in no snapshot, in the probe's ``artifact`` (calls file or recording). Messages are inert
plain text with no embedded link (``sarif_text``). ``merge_logs`` folds the logs of several configurations of
one server into one run (the Action's ``configurations``).
"""

from __future__ import annotations

import copy
import re
import urllib.parse
from collections.abc import Sequence
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from mcp_schema_audit import __version__
from mcp_schema_audit.findings import Finding
from mcp_schema_audit.locate import line_of, logical_name, snapshot_of_item
from mcp_schema_audit.report.cohorts import History, affects
from mcp_schema_audit.report.escape import inert, json_text, one_line
from mcp_schema_audit.report.formats import PLAIN, RenderOptions
from mcp_schema_audit.report.markdown import md_code, md_escape, md_fence
from mcp_schema_audit.report.model import (
    Report,
    detail,
    ordered,
    plain_message,
    side_json,
    snapshot_of,
)
from mcp_schema_audit.rules import RULES, Rule
from mcp_schema_audit.snapshot import Snapshot

SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_SARIF_LEVEL = {"breaking": "error", "warning": "warning", "info": "note"}
_SARIF_URI_SAFE = "/-._~!$&'()*+,;=@"


def sarif_text(text: Any) -> str:
    """Plain SARIF message text: one line (``inert``, visible ``\\n``), and ``\\``, ``[``, ``]`` escaped so
    no embedded link (``[text](target)``, SARIF §3.11.6) can form."""
    return re.sub(r"([\\\[\]])", r"\\\1", one_line(text))


def artifact_uri(source: str) -> str | None:
    """A SARIF ``artifactLocation.uri`` for a snapshot ``source`` (``None`` when there is none).

    ``git:REF:PATH`` → PATH; an absolute path under the working directory → relative to it (code
    scanning wants repository-relative paths); other absolute paths → ``file:`` URIs. Percent-encoded.
    """
    if not source:
        return None
    path = source
    if source.startswith("git:") and source.count(":") >= 2:
        path = source.split(":", 2)[2]
    if "\\" in path and PureWindowsPath(path).drive:
        path = PureWindowsPath(path).as_posix()
    p = Path(path)
    if p.is_absolute():
        try:
            p = p.relative_to(Path.cwd())
        except ValueError:
            return p.as_uri()
    rel = PurePosixPath(p.as_posix()).as_posix()
    if rel.startswith("./"):
        rel = rel[2:]
    return urllib.parse.quote(rel, safe=_SARIF_URI_SAFE)  # ':' is encoded, so no segment reads as a scheme


def _sarif_uri(snap: Snapshot) -> str:
    """The snapshot's ``artifact_uri``; without a source, its default store path (code scanning rejects a
    whole log when one result has no physical location)."""
    uri = artifact_uri(snap.source)
    if uri is None:
        uri = urllib.parse.quote(f".schema-audit/snapshots/{snap.label}.json", safe=_SARIF_URI_SAFE)
    return uri


def _rule_descriptor(rule: Rule) -> dict[str, Any]:
    help_lines = [rule.rationale]
    md_lines = [rule.rationale]
    if rule.before or rule.after:
        help_lines += [f"before: {rule.before}", f"after: {rule.after}"]
        md_lines += ["", "Before:", "", md_fence(rule.before, "json"), "", "After:", "", md_fence(rule.after, "json")]
    if rule.error:
        help_lines.append(f"{rule.error_label}: {rule.error}")
        md_lines += ["", f"{rule.error_label.capitalize()}: {md_code(rule.error)}"]
    if rule.fix:
        help_lines.append(f"fix: {rule.fix}")
        md_lines += ["", f"**Fix:** {md_escape(rule.fix)}"]
    if rule.source:
        help_lines.append(f"source: {rule.source}")
        md_lines += ["", f"Source: {md_escape(rule.source)}"]
    return {
        "id": rule.id,
        "name": "".join(part.capitalize() for part in rule.id.split("-")),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.rationale},
        "help": {"text": "\n".join(help_lines), "markdown": "\n".join(md_lines)},
        "defaultConfiguration": {"level": _SARIF_LEVEL[rule.severity]},
        "properties": {"direction": rule.direction, "tags": ["mcp", "json-schema", rule.direction]},
    }


def location_of(report: Report, f: Finding) -> tuple[Snapshot, str, int]:
    """``(snapshot, artifact URI, line)`` where finding ``f`` is shown: the tool's registration in the server's
    source when the report knows it (``Report.sources``), else the snapshot file it is about at the tool's line;
    a probe finding about the live listing (a snapshot read from no file) points at the probe's ``artifact``
    (calls file or recording), line 1."""
    snap = snapshot_of(report, f)
    source = report.sources.get(f.tool) if f.surface == "tool" and f.tool else None
    if source is not None:
        uri = artifact_uri(source[0])
        if uri is not None:
            return snap, uri, source[1]
    if report.kind == "probe" and snap is report.new and not snap.source and report.artifact:
        uri = artifact_uri(report.artifact)
        if uri is not None:
            return snap, uri, 1
    return snap, _sarif_uri(snap), line_of(snap, f)


def _sarif_result(report: Report, f: Finding, index: dict[str, int], ignored_reason: str | None) -> dict[str, Any]:
    snap, uri, line = location_of(report, f)
    text = plain_message(
        report, f, f"{f.tool} ({f.direction})" if f.surface == "tool" and f.tool else f.subject, ". Witness"
    )
    fqn = logical_name(f)
    # code scanning requires a region: the line of the tool's "name" in the snapshot file (1 when unknown,
    # e.g. for git:REF:PATH, whose content may differ from the working tree's file)
    location = {
        "physicalLocation": {"artifactLocation": {"uri": uri}, "region": {"startLine": line}},
        "logicalLocations": [
            {
                "name": inert(f.name),
                "fullyQualifiedName": inert(fqn),
                "kind": "function" if f.surface == "tool" else "object",
            }
        ],
    }
    props: dict[str, Any] = {
        "tool": f.tool,
        "surface": f.surface,
        "name": f.name,
        "direction": f.direction,
        "pointer": f.pointer,
        "old_pointer": f.old_pointer,
        "new_pointer": f.new_pointer,
        "hosts": f.hosts,
        "severity": f.severity,
        "witness": f.witness,
        "old": f.old,
        "new": f.new,
        "snapshot": snap.label,
    }
    if f.reason:
        props["reason"] = f.reason
    if f.tags:
        props["tags"] = f.tags
    if f.fix:
        props["fix"] = f.fix
    result: dict[str, Any] = {
        "ruleId": f.rule,
        "level": _SARIF_LEVEL[f.severity],
        "message": {"text": sarif_text(text)},
        "locations": [location],
        "partialFingerprints": {"schemaAudit/v1": f.fingerprint},
        "properties": props,
    }
    if f.rule in index:
        result["ruleIndex"] = index[f.rule]
    if ignored_reason is not None:
        result["suppressions"] = [
            {"kind": "external", "status": "accepted", "justification": sarif_text(ignored_reason)}
        ]
    return result


def _descriptors(used: dict[str, str]) -> list[dict[str, Any]]:
    """The driver's rule descriptors of the rules ``used`` (rule id → a finding's severity): catalog rules in
    catalog order, then any rule outside the catalog (should not happen) with a bare descriptor at that
    severity. Only rules with a result are described, as ESLint's and ruff's SARIF do for a small log."""
    rules = [_rule_descriptor(r) for r in RULES.values() if r.id in used]
    rules += [
        {"id": rule, "shortDescription": {"text": rule}, "defaultConfiguration": {"level": _SARIF_LEVEL[severity]}}
        for rule, severity in used.items()
        if rule not in RULES
    ]
    return rules


def render_report(report: Report, options: RenderOptions = PLAIN) -> str:
    """SARIF 2.1.0: one run, ``tool.driver`` = schema-audit with the rules its findings use (``_descriptors``), one
    result per finding.

    Ignored findings are results with an external, accepted ``suppression`` (justification = the
    ignore entry's reason). Locations: the snapshot file (NEW's; OLD's for a removed tool) with a
    ``region.startLine`` (the line of the tool's ``"name"`` in that file when it was loaded from a file,
    else 1) plus a logical location ``tool/outputSchema#pointer``; ``properties`` carries tool, direction, pointer,
    hosts and witness; ``partialFingerprints["schemaAudit/v1"]`` is the finding's fingerprint.
    """
    rules = _descriptors({f.rule: f.severity for f in [*report.findings, *(g for g, _ in report.ignored)]})
    index = {r["id"]: i for i, r in enumerate(rules)}
    results = [_sarif_result(report, f, index, None) for f in ordered(report.findings)]
    results += [_sarif_result(report, f, index, reason) for f, reason in report.ignored]

    def side(s: Snapshot) -> dict[str, Any]:
        return {k: v for k, v in side_json(s).items() if k != "tool_count"}

    props: dict[str, Any] = {"kind": report.kind, "mode": report.mode, "hosts": list(report.hosts)}
    if report.old is not None:
        props["old"] = side(report.old)
    props["new"] = side(report.new)
    if report.baseline is not None:
        props["baseline"] = side(report.baseline)
    if report.kind == "probe":
        props["cached"] = [side(s) for s in report.cached]
        props["calls"] = [dict(c) for c in report.calls]
    props.update(
        {
            "summary": report.summary,
            "gate": {"fail_on": report.fail_on, "passed": report.passed},
            "notes": [inert(n) for n in report.notes],
            "expired_ignores": report.expired_ignores,
        }
    )
    snaps, extra = report.snapshots(), []
    if report.kind == "probe" and report.artifact:
        extra = [report.artifact]  # the live listing has no file: its findings point at the artifact
        snaps = [s for s in snaps if not (s is report.new and not s.source)]
    return sarif_log(snaps, rules, results, props, extra_uris=extra)


def sarif_log(
    snaps: list[Snapshot],
    rules: list[dict[str, Any]],
    results: list[dict[str, Any]],
    properties: dict[str, Any],
    *,
    extra_uris: list[str] | tuple[str, ...] = (),
) -> str:
    """The SARIF 2.1.0 log text of one schema-audit run: ``snaps`` (then the files ``extra_uris`` name) become
    the artifacts (one per distinct URI, in order), ``rules`` the driver's rule descriptors, ``results`` and
    the run's ``properties`` as given. Shared by every report kind and history."""
    artifacts: list[dict[str, Any]] = []
    uris = [_sarif_uri(snap) for snap in snaps] + [u for u in (artifact_uri(x) for x in extra_uris) if u]
    for uri in uris:
        if all(a["location"]["uri"] != uri for a in artifacts):
            artifacts.append({"location": {"uri": uri}, "roles": ["analysisTarget"], "mimeType": "application/json"})
    log = {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "schema-audit",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": rules,
                    }
                },
                "artifacts": artifacts,
                "results": results,
                "columnKind": "unicodeCodePoints",
                "properties": properties,
            }
        ],
    }
    return json_text(log, sort_keys=False)


def merge_logs(logs: Sequence[tuple[str, dict[str, Any]]]) -> str:
    """One SARIF 2.1.0 log text whose single run holds the results of several named schema-audit logs (the
    Action's configurations: code scanning takes one run per category).

    ``logs``: ``(name, log)`` pairs in order, each a parsed log as ``render`` writes it (one run). The first
    log gives the run's tool, rules and other members (each later log's rules not there yet are appended, its
    results' ``ruleIndex`` renumbered); the results follow in order, each message prefixed
    ``[name] `` (the name as ``sarif_text``), with ``properties.configuration`` and
    ``partialFingerprints["schemaAudit/configuration"]`` set to the name (so the same finding in two
    configurations stays two alerts); the artifacts are the first log's, then each URI the others add; the
    run's ``properties`` become ``{"configurations": {name: that log's run properties}}``. ``logs`` is not
    changed. The text is ``json_text``'s (indent 2, final newline, control characters escaped). Raises
    ``ValueError`` when ``logs`` is empty; a log of another shape raises ``KeyError``/``TypeError``/``IndexError``.
    """
    if not logs:
        raise ValueError("no SARIF log to merge")
    merged: dict[str, Any] | None = None
    for name, original in logs:
        log = copy.deepcopy(original)
        run = log["runs"][0]
        for res in run.get("results", []):
            res["message"]["text"] = f"[{sarif_text(name)}] {res['message']['text']}"
            res.setdefault("properties", {})["configuration"] = name
            res.setdefault("partialFingerprints", {})["schemaAudit/configuration"] = name
        if merged is None:
            merged = log
            run["properties"] = {"configurations": {name: run.get("properties", {})}}
            continue
        target = merged["runs"][0]
        rules = target["tool"]["driver"].setdefault("rules", [])
        index = {r["id"]: i for i, r in enumerate(rules)}
        theirs = run["tool"]["driver"].get("rules", [])
        for res in run.get("results", []):  # each log describes only its own rules: one list, indexes renumbered
            rule = res.get("ruleId")
            if rule not in index and isinstance(res.get("ruleIndex"), int) and res["ruleIndex"] < len(theirs):
                index[rule] = len(rules)
                rules.append(theirs[res["ruleIndex"]])
            if rule in index:
                res["ruleIndex"] = index[rule]
        target["results"] += run.get("results", [])
        uris = {a["location"]["uri"] for a in target.get("artifacts", [])}
        target.setdefault("artifacts", []).extend(
            a for a in run.get("artifacts", []) if a["location"]["uri"] not in uris
        )
        target["properties"]["configurations"][name] = run.get("properties", {})
    return json_text(merged, sort_keys=False)


def render_history(hist: History, options: RenderOptions = PLAIN) -> str:
    """SARIF 2.1.0: one run, the rules its findings use, one result per finding (grouped over cohorts, level = its worst
    severity), located in NEW's snapshot file (the newest cohort's for a tool NEW no longer lists) with
    ``region.startLine`` = the line of the tool. ``properties.cohorts`` maps each cached version to the
    finding's severity there; ``partialFingerprints["schemaAudit/v1"]`` is the fingerprint. Messages are
    inert plain text (``sarif_text``)."""
    labels = [c.label for c in hist.cohorts]
    grouped = hist.grouped()
    rules = _descriptors({g.rule: g.severity for g in grouped})
    index = {r["id"]: i for i, r in enumerate(rules)}
    results = []
    for g in grouped:
        newest = [lbl for lbl in labels if lbl in g.cohorts][-1]
        f = g.latest[newest]
        snap = snapshot_of_item(f, [hist.new, *reversed(hist.cohorts)])
        head = f"{g.tool} ({g.direction})" if g.surface == "tool" else f.subject
        text = (
            f"{head} {g.pointer or '(root)'}: {affects(g, labels, ('breaking', 'warning', 'info'))}. "
            f"Against {newest}: {detail(f)}"
        )
        fqn = logical_name(f)
        results.append(
            {
                "ruleId": g.rule,
                "ruleIndex": index[g.rule],
                "level": _SARIF_LEVEL[g.severity],
                "message": {"text": sarif_text(text)},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": _sarif_uri(snap)},
                            "region": {"startLine": line_of(snap, f)},
                        },
                        "logicalLocations": [
                            {
                                "name": inert(g.name),
                                "fullyQualifiedName": inert(fqn),
                                "kind": "function" if g.surface == "tool" else "object",
                            }
                        ],
                    }
                ],
                "partialFingerprints": {"schemaAudit/v1": g.fingerprint},
                "properties": {
                    "tool": g.tool,
                    "surface": g.surface,
                    "name": g.name,
                    "direction": g.direction,
                    "pointer": g.pointer,
                    "severity": g.severity,
                    "cohorts": dict(g.cohorts),
                    "snapshot": snap.label,
                },
            }
        )
    return sarif_log(
        [hist.new, *hist.cohorts],
        rules,
        results,
        {
            "kind": "history",
            "new": {"label": hist.new.label, "source": hist.new.source},
            "cohorts": labels,
            "matrix": hist.matrix(),
            "conflicts": [c.to_json() for c in hist.conflicts],
            "gate": {"fail_on": hist.fail_on, "passed": hist.passed},
            "notes": [inert(n) for n in hist.notes],
        },
    )
