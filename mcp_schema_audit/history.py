"""History: check one release against every cached version (cohort), and find cross-cohort conflicts.

A *cohort* is the set of hosts that cached one published snapshot. ``check_history`` diffs NEW
against each cohort's snapshot (backward mode) and builds a matrix tools × cohorts of the worst
severity per cell. A *conflict* is a position where two cohorts cache closed value sets (``enum``/``const``) neither of
which contains the other, and NEW declares values outside their intersection: each cohort rejects a
value the other needs, so one cohort must reconnect. Example: 0.2.5 caches ``transport ∈ {stdio, http}``, 0.2.6
caches ``∈ {stdio, streamable-http}``; only ``stdio`` is accepted by both.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_schema_audit.diff import diff_snapshots
from mcp_schema_audit.findings import Finding
from mcp_schema_audit.rules import SEVERITY_RANK
from mcp_schema_audit.snapshot import Snapshot, load_snapshot
from mcp_schema_audit.surfaces import SURFACE_ORDER

_VALUE_SET_RULES = ("output-enum-value-added", "output-enum-removed", "output-const-changed")


def version_key(label: str) -> tuple[Any, ...]:
    """Sort key that orders labels as versions when they look like versions (``v0.2.10`` > ``v0.2.9``)."""
    parts = re.split(r"([0-9]{1,18})", label.lstrip("vV"))  # ASCII digits only, within int range
    return tuple((0, int(p)) if p.isascii() and p.isdigit() else (1, p) for p in parts if p != "")


def order_snapshots(snaps: list[Snapshot]) -> list[Snapshot]:
    """Oldest first: by capture time when every snapshot has one, else by label as a version."""
    if snaps and all(isinstance(s.meta.get("captured_at"), str) for s in snaps):
        return sorted(snaps, key=lambda s: (s.meta["captured_at"], version_key(s.label)))
    return sorted(snaps, key=lambda s: version_key(s.label))


def stored_snapshots(store: Path) -> list[Snapshot]:
    """Every snapshot in ``store`` (``<store>/snapshots/*.json``), unordered. Raises ``InputError`` on a bad file."""
    folder = store / "snapshots"
    if not folder.is_dir():
        return []
    return [load_snapshot(str(p), store=store) for p in sorted(folder.glob("*.json"))]


@dataclass
class Conflict:
    """Two cohorts whose cached value sets at ``pointer`` admit only ``common`` values together."""

    tool: str
    pointer: str
    cohorts: list[str]
    values: dict[str, list[Any]]
    common: list[Any]

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"tool": self.tool, "pointer": self.pointer, "cohorts": self.cohorts, "values": self.values,
                "common": self.common}


@dataclass
class History:
    """NEW checked against each cohort. ``cohorts`` oldest first; ``findings[label]`` per cohort."""

    new: Snapshot
    cohorts: list[Snapshot]
    findings: dict[str, list[Finding]] = field(default_factory=dict)
    conflicts: list[Conflict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  #: run-level remarks (e.g. the tool filter in effect)

    def matrix(self) -> dict[str, dict[str, str]]:
        """tool → cohort label → ``ok`` | ``warning`` | ``breaking`` (info counts as ok); then one row per
        other item with findings (prompt, resource, resource template, server), keyed by its subject
        (``prompt summarize``, ``server capabilities``)."""
        tools = sorted({t["name"] for s in [self.new, *self.cohorts] for t in s.tools})
        others = sorted({f.subject for f in self.all_findings() if f.surface != "tool"})
        out: dict[str, dict[str, str]] = {}
        for row_key in [*tools, *others]:
            row = {}
            for c in self.cohorts:
                worst = max((SEVERITY_RANK[f.severity] for f in self.findings[c.label] if _row(f) == row_key),
                            default=0)
                row[c.label] = {3: "breaking", 2: "warning"}.get(worst, "ok")
            out[row_key] = row
        return out

    def all_findings(self) -> list[Finding]:
        """Every finding of every cohort (a finding may appear once per cohort)."""
        return [f for c in self.cohorts for f in self.findings[c.label]]

    def grouped(self) -> list["GroupedFinding"]:
        """Each finding once (by fingerprint: rule, tool, direction, pointer) with the cohorts it occurs in.

        Sorted by worst severity (breaking first), then tool, direction, pointer, rule.
        """
        groups: dict[str, GroupedFinding] = {}
        for c in self.cohorts:
            for f in self.findings[c.label]:
                g = groups.get(f.fingerprint)
                if g is None:
                    g = groups[f.fingerprint] = GroupedFinding(f.rule, f.tool, f.direction, f.pointer, f.fingerprint,
                                                               surface=f.surface, name=f.name)
                g.cohorts[c.label] = f.severity
                g.latest[c.label] = f
        return sorted(groups.values(), key=lambda g: (-SEVERITY_RANK[g.severity], SURFACE_ORDER.get(g.surface, 0),
                                                      g.tool, g.name, g.direction, g.pointer, g.rule))


@dataclass
class GroupedFinding:
    """One finding of a history run, once, with ``cohorts``: cohort label → severity there (oldest first).

    ``latest`` holds the ``Finding`` of each cohort (messages and values differ per cohort).
    """

    rule: str
    tool: str
    direction: str
    pointer: str
    fingerprint: str
    cohorts: dict[str, str] = field(default_factory=dict)
    latest: dict[str, Finding] = field(default_factory=dict)
    surface: str = "tool"
    name: str = ""

    @property
    def about(self) -> str:
        """``<tool> <direction>`` for a tool finding, else its subject (``prompt summarize``). Raw text."""
        return f"{self.tool} {self.direction}" if self.surface == "tool" else next(iter(self.latest.values())).subject

    @property
    def severity(self) -> str:
        """The worst severity over the cohorts."""
        return max(self.cohorts.values(), key=lambda s: SEVERITY_RANK[s])

    def at_least(self, severity: str) -> list[str]:
        """Labels of the cohorts where this finding is at or above ``severity``, oldest first."""
        return [c for c, s in self.cohorts.items() if SEVERITY_RANK[s] >= SEVERITY_RANK[severity]]

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict: ``rule``, ``tool``, ``surface``, ``name``, ``direction``, ``pointer``, ``fingerprint``,
        ``severity`` (worst) and ``cohorts`` (label → severity)."""
        return {"rule": self.rule, "tool": self.tool, "surface": self.surface, "name": self.name,
                "direction": self.direction, "pointer": self.pointer, "fingerprint": self.fingerprint,
                "severity": self.severity, "cohorts": dict(self.cohorts)}


def _is_tool_row(hist: History, key: str) -> bool:
    """True when matrix row ``key`` is a tool's (not a prompt's, resource's, template's or the server's)."""
    return any(t["name"] == key for s in [hist.new, *hist.cohorts] for t in s.tools)


def _row(f: Finding) -> str:
    """The matrix row of a finding: its tool's name, or its subject for other surfaces."""
    return f.tool if f.surface == "tool" else f.subject


def same_server(new: Snapshot, cohorts: list[Snapshot]) -> tuple[list[Snapshot], list[Snapshot]]:
    """Split ``cohorts`` into those of NEW's server (by ``server.name``; unknown names match) and the rest."""
    name = new.server.get("name")
    keep, skip = [], []
    for c in cohorts:
        other = c.server.get("name")
        (keep if not name or not other or other == name else skip).append(c)
    return keep, skip


def check_history(new: Snapshot, cohorts: list[Snapshot], *, time_budget: float | None = None) -> History:
    """Diff ``new`` against every cohort (given oldest first) and find conflicts between cohorts.

    ``time_budget`` (seconds) bounds each cohort's ``diff_snapshots`` call (see there)."""
    hist = History(new=new, cohorts=cohorts)
    for c in cohorts:
        hist.findings[c.label] = diff_snapshots(c, new, time_budget=time_budget)
    hist.conflicts = find_conflicts(hist)
    return hist


def _position(f: Finding) -> str:
    ptr = f.old_pointer if f.old_pointer is not None else f.pointer
    return re.sub(r"/(enum|const)$", "", ptr)


def _canon(v: Any) -> str:
    return json.dumps(v, sort_keys=True)


def find_conflicts(hist: History) -> list[Conflict]:
    """Positions where two cohorts cache different closed value sets and NEW exceeds their intersection."""
    sets: dict[tuple[str, str], dict[str, list[Any]]] = {}
    for c in hist.cohorts:
        for f in hist.findings[c.label]:
            if f.rule not in _VALUE_SET_RULES or f.direction != "output":
                continue
            values = f.old if isinstance(f.old, list) else [f.old]
            sets.setdefault((f.tool, _position(f)), {})[c.label] = values
    out: list[Conflict] = []
    for (tool, ptr), by_cohort in sorted(sets.items()):
        # cohorts caching the same value set form one group; conflicts are between groups
        groups: dict[frozenset[str], list[str]] = {}
        for c in hist.cohorts:
            if c.label in by_cohort:
                groups.setdefault(frozenset(_canon(x) for x in by_cohort[c.label]), []).append(c.label)
        keys = list(groups)
        for i, ka in enumerate(keys):
            for kb in keys[i + 1:]:
                if ka <= kb or kb <= ka:
                    continue  # one group's values satisfy the other: sending only those breaks neither
                first = by_cohort[groups[ka][0]]
                common = [x for x in first if _canon(x) in kb]
                members = groups[ka] + groups[kb]
                out.append(Conflict(tool, ptr, members, {lbl: by_cohort[lbl] for lbl in members}, common))
    return out


def _versions(labels: list[str], order: list[str]) -> str:
    """Cohort labels in cohort order; a run of three or more consecutive cohorts as ``A to B (n versions)``."""
    pos = {lbl: i for i, lbl in enumerate(order)}
    idx = sorted(pos[lbl] for lbl in labels if lbl in pos)
    parts: list[str] = []
    i = 0
    while i < len(idx):
        j = i
        while j + 1 < len(idx) and idx[j + 1] == idx[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{order[idx[i]]} to {order[idx[j]]} ({j - i + 1} versions)")
        else:
            parts += [order[k] for k in idx[i:j + 1]]
        i = j + 1
    return ", ".join(parts)


def _affects(g: GroupedFinding, order: list[str], shown: tuple[str, ...] = ("breaking", "warning")) -> str:
    """``affects 0.2.4, 0.2.5`` (``affects all 3 cached versions``); with mixed severities, each group of
    cohorts with its severity (``affects 0.2.4, 0.2.5 (breaking); 0.2.6 (warning)``). Raw text."""
    by_sev: dict[str, list[str]] = {}
    for lbl, sev in g.cohorts.items():
        if sev in shown:
            by_sev.setdefault(sev, []).append(lbl)
    if len(by_sev) == 1:
        only = next(iter(by_sev.values()))
        if len(order) > 1 and set(only) == set(order):
            return "affects both cached versions" if len(order) == 2 else f"affects all {len(order)} cached versions"
        return "affects " + _versions(only, order)
    return "affects " + "; ".join(f"{_versions(by_sev[sev], order)} ({sev})"
                                  for sev in ("breaking", "warning", "info") if sev in by_sev)


def _cohort_counts(hist: History) -> list[str]:
    out = []
    for c in hist.cohorts:
        nb = sum(1 for f in hist.findings[c.label] if f.severity == "breaking")
        nw = sum(1 for f in hist.findings[c.label] if f.severity == "warning")
        out.append(f"{c.label}: {nb} breaking, {nw} warning")
    return out


def render_history_text(hist: History, width: int = 120, *, fail_on: str | None = None,
                        passed: bool | None = None) -> str:
    """Plain text: the matrix, the conflicts, then each breaking or warning finding once with the cached
    versions it affects, and a summary per cohort (with the gate when ``fail_on``/``passed`` are given).

    Server text (tool names, labels, pointers, values) is shown inertly, one line each (``report._tx``).
    """
    from mcp_schema_audit.report import _tx

    labels = [c.label for c in hist.cohorts]
    m = hist.matrix()
    tw = max([len("tool")] + [len(_tx(t)) for t in m])
    cw = [max(len(_tx(lbl)), 8) for lbl in labels]
    lines = [f"schema-audit history: {_tx(hist.new.label)} against {len(labels)} cached version(s)"]
    lines += [f"note: {_tx(n)}" for n in hist.notes]
    lines.append("")
    lines.append("tool".ljust(tw) + "  " + "  ".join(_tx(lbl).ljust(w) for lbl, w in zip(labels, cw)))
    for tool, row in m.items():
        lines.append(_tx(tool).ljust(tw) + "  " + "  ".join(row[lbl].ljust(w) for lbl, w in zip(labels, cw)))
    if hist.conflicts:
        lines += ["", "Conflicts (each cohort rejects values the other accepts; any value outside 'both accept' breaks one of them):"]
        for c in hist.conflicts:
            lines.append(f"  {_tx(c.tool)} {_tx(c.pointer) or '(root)'}: cohorts {_tx(' and '.join(c.cohorts))} "
                         f"cache {_tx(json.dumps(c.values, ensure_ascii=False))}; both accept only "
                         f"{_tx(json.dumps(c.common, ensure_ascii=False))}")
    shown = [g for g in hist.grouped() if g.severity in ("breaking", "warning")]
    lines.append("")
    if shown:
        lines.append(f"Findings ({len(shown)}, breaking and warning; each once, with the cached versions it affects):")
        for g in shown:
            lines.append(f"  {g.severity:<8} {_tx(g.about)} {_tx(g.pointer) or '(root)'} [{g.rule}]  "
                         f"{_tx(_affects(g, labels))}")
    else:
        lines.append("No breaking or warning findings.")
    summary = " · ".join(_tx(x) for x in _cohort_counts(hist))
    if fail_on is not None and passed is not None:
        summary += f"; {'gate passed' if passed else 'gate FAILED'} (--fail-on {fail_on})"
    lines += ["", summary]
    return "\n".join(lines) + "\n"


def history_json(hist: History, fail_on: str, passed: bool) -> dict[str, Any]:
    """The JSON form of a history run: ``new``, ``cohorts`` (each with its summary and findings),
    ``findings`` (each finding once, with the cohorts it occurs in: ``GroupedFinding.to_json``),
    ``matrix``, ``conflicts``, ``notes`` and ``gate``."""
    from mcp_schema_audit import __version__

    return {
        "report_version": 1, "schema_audit_version": __version__, "kind": "history",
        "new": {"label": hist.new.label, "source": hist.new.source},
        "cohorts": [{"label": c.label, "source": c.source,
                     "summary": {s: sum(1 for f in hist.findings[c.label] if f.severity == s)
                                 for s in ("breaking", "warning", "info")},
                     "findings": [f.to_json() for f in hist.findings[c.label]]} for c in hist.cohorts],
        "findings": [g.to_json() for g in hist.grouped()],
        "matrix": hist.matrix(),
        "conflicts": [c.to_json() for c in hist.conflicts],
        "notes": list(hist.notes),
        "gate": {"fail_on": fail_on, "passed": passed},
    }


def render_history_json(hist: History, fail_on: str, passed: bool) -> str:
    """``history_json`` as JSON text (indent 2, sorted keys, control characters as ``\\u`` escapes)."""
    from mcp_schema_audit.report import _json_text

    return _json_text(history_json(hist, fail_on, passed), sort_keys=True)


_CELL = {"ok": "✅ ok", "warning": "🟡 warning", "breaking": "🔴 breaking"}


def render_history_markdown(hist: History, fail_on: str, passed: bool) -> str:
    """A pull-request comment: verdict line, the matrix (tools with a warning or break only), conflicts,
    each breaking/warning finding once with the cached versions it affects, info findings collapsed.

    All server text goes through ``md_escape``/``md_code`` (as in the diff's Markdown); stays under
    ``MARKDOWN_BUDGET`` characters: rows and findings past it are counted, not shown.
    """
    from mcp_schema_audit import __version__
    from mcp_schema_audit.report import _ICON, MARKDOWN_BUDGET, _md_about, _who, md_code, md_escape
    from mcp_schema_audit.rules import RULES

    labels = [c.label for c in hist.cohorts]
    groups = hist.grouped()
    count = {s: sum(1 for g in groups if g.severity == s) for s in ("breaking", "warning", "info")}
    icon = "✅" if passed else "❌"
    verdict = "gate passed" if passed else "gate failed"
    parts = [f"### {icon} schema-audit history: {md_escape(hist.new.label)} against {len(labels)} cached "
             f"version{'s' if len(labels) != 1 else ''} — {count['breaking']} breaking, {count['warning']} warning, "
             f"{count['info']} info — {verdict} (fail-on: {fail_on})",
             f"**{md_escape(_who(hist.new))}** · cached versions: {', '.join(md_escape(x) for x in labels)}"]
    parts += [f"> **Note:** {md_escape(n)}" for n in hist.notes]
    used = sum(len(x) + 2 for x in parts)
    hidden = 0

    def add(text: str) -> bool:
        nonlocal used
        if used + len(text) + 2 > MARKDOWN_BUDGET - 200:
            return False
        parts.append(text)
        used += len(text) + 2
        return True

    m = hist.matrix()
    rows = [(tool, row) for tool, row in m.items() if any(v != "ok" for v in row.values())]
    if rows:
        table = ["| tool | " + " | ".join(md_escape(x) for x in labels) + " |",
                 "| --- | " + " | ".join("---" for _ in labels) + " |"]
        size = used + sum(len(x) + 1 for x in table) + 100
        for i, (tool, row) in enumerate(rows):
            line = f"| {md_escape(tool)} | " + " | ".join(_CELL[row[x]] for x in labels) + " |"
            if size + len(line) + 1 > MARKDOWN_BUDGET - 400:
                hidden += len(rows) - i
                break
            table.append(line)
            size += len(line) + 1
        ok = len(m) - len(rows)
        if ok:
            noun = "tool" if all(_is_tool_row(hist, k) for k in m) else "row"
            table += ["", f"{ok} other {noun}{'s' if ok != 1 else ''}: ok for every cached version."]
        add("\n".join(table))
    elif m:
        noun = "tools" if all(_is_tool_row(hist, k) for k in m) else "rows"
        add(f"All {len(m)} {noun}: ok for every cached version.")
    if hist.conflicts:
        lines = [f"#### Conflicts ({len(hist.conflicts)})", ""]
        for c in hist.conflicts:
            cached = "; ".join(f"{md_escape(lbl)} caches {md_code(json.dumps(v, ensure_ascii=False))}"
                               for lbl, v in c.values.items())
            lines.append(f"- **{md_escape(c.tool)}** {md_code(c.pointer) if c.pointer else '(root)'}: {cached}; "
                         f"all of them accept only {md_code(json.dumps(c.common, ensure_ascii=False))}")
        if not add("\n".join(lines)):
            hidden += len(hist.conflicts)

    def item(g: GroupedFinding, shown: tuple[str, ...]) -> str:
        rule = RULES.get(g.rule)
        title = rule.title if rule is not None else g.rule
        where = md_code(g.pointer) if g.pointer else "(root)"
        return (f"- {_ICON[g.severity]} {_md_about(next(iter(g.latest.values())))} · {where} · {md_escape(title)} "
                f"(`{g.rule}`): {md_escape(_affects(g, labels, shown))}")

    for sev, heading in (("breaking", "Breaking"), ("warning", "Warnings")):
        items = [g for g in groups if g.severity == sev]
        if not items:
            continue
        lines = [f"#### {heading} ({len(items)})", ""]
        size = used + 40
        for i, g in enumerate(items):
            line = item(g, ("breaking", "warning"))
            if size + len(line) + 1 > MARKDOWN_BUDGET - 300:
                hidden += len(items) - i
                break
            lines.append(line)
            size += len(line) + 1
        if not add("\n".join(lines)):
            hidden += len(items)
    infos = [g for g in groups if g.severity == "info"]
    if infos:
        lines = [f"<details><summary>{len(infos)} info finding{'s' if len(infos) != 1 else ''}</summary>", ""]
        size = used + 80
        for i, g in enumerate(infos):
            line = item(g, ("info",))
            if size + len(line) + 1 > MARKDOWN_BUDGET - 250:
                hidden += len(infos) - i
                break
            lines.append(line)
            size += len(line) + 1
        lines += ["", "</details>"]
        if not add("\n".join(lines)):
            hidden += len(infos)
    if not groups:
        parts.append("No schema changes against any cached version.")
    if hidden:
        parts.append(f"*{hidden} more row(s) or finding(s) not shown here: see the JSON or SARIF report.*")
    counts = " · ".join(md_escape(x) for x in _cohort_counts(hist))
    parts.append(f"<sub>schema-audit {__version__} · {counts}</sub>")
    return "\n\n".join(parts) + "\n"


def render_history_sarif(hist: History, fail_on: str, passed: bool) -> str:
    """SARIF 2.1.0: one run, the rule catalog, one result per finding (grouped over cohorts, level = its worst
    severity), located in NEW's snapshot file (the newest cohort's for a tool NEW no longer lists) with
    ``region.startLine`` = the line of the tool. ``properties.cohorts`` maps each cached version to the
    finding's severity there; ``partialFingerprints["schemaAudit/v1"]`` is the fingerprint. Messages are
    inert plain text (``sarif_text``)."""
    from mcp_schema_audit.locate import line_of, logical_name, snapshot_of_item
    from mcp_schema_audit.report import _SARIF_LEVEL, _detail, _rule_descriptor, _sarif_uri, inert, sarif_log, sarif_text
    from mcp_schema_audit.rules import RULES

    labels = [c.label for c in hist.cohorts]
    rules = [_rule_descriptor(r) for r in RULES.values()]
    index = {r["id"]: i for i, r in enumerate(rules)}
    results = []
    for g in hist.grouped():
        if g.rule not in index:  # a rule outside the catalog (should not happen): still describe it
            index[g.rule] = len(rules)
            rules.append({"id": g.rule, "shortDescription": {"text": g.rule},
                          "defaultConfiguration": {"level": _SARIF_LEVEL[g.severity]}})
        newest = [lbl for lbl in labels if lbl in g.cohorts][-1]
        f = g.latest[newest]
        snap = snapshot_of_item(f, [hist.new, *reversed(hist.cohorts)])
        head = f"{g.tool} ({g.direction})" if g.surface == "tool" else f.subject
        text = (f"{head} {g.pointer or '(root)'}: {_affects(g, labels, ('breaking', 'warning', 'info'))}. "
                f"Against {newest}: {_detail(f)}")
        fqn = logical_name(f)
        results.append({
            "ruleId": g.rule,
            "ruleIndex": index[g.rule],
            "level": _SARIF_LEVEL[g.severity],
            "message": {"text": sarif_text(text)},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": _sarif_uri(snap)},
                                                "region": {"startLine": line_of(snap, f)}},
                           "logicalLocations": [{"name": inert(g.name), "fullyQualifiedName": inert(fqn),
                                                 "kind": "function" if g.surface == "tool" else "object"}]}],
            "partialFingerprints": {"schemaAudit/v1": g.fingerprint},
            "properties": {"tool": g.tool, "surface": g.surface, "name": g.name, "direction": g.direction,
                           "pointer": g.pointer, "severity": g.severity,
                           "cohorts": dict(g.cohorts), "snapshot": snap.label},
        })
    return sarif_log([hist.new, *hist.cohorts], rules, results, {
        "kind": "history", "new": {"label": hist.new.label, "source": hist.new.source}, "cohorts": labels,
        "matrix": hist.matrix(), "conflicts": [c.to_json() for c in hist.conflicts],
        "gate": {"fail_on": fail_on, "passed": passed}, "notes": [inert(n) for n in hist.notes]})
