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

from mcp_schema_audit.engine import Finding, diff_snapshots
from mcp_schema_audit.rules import SEVERITY_RANK
from mcp_schema_audit.snapshot import Snapshot, load_snapshot

_VALUE_SET_RULES = ("output-enum-value-added", "output-enum-removed", "output-const-changed")


def version_key(label: str) -> tuple[Any, ...]:
    """Sort key that orders labels as versions when they look like versions (``v0.2.10`` > ``v0.2.9``)."""
    parts = re.split(r"(\d+)", label.lstrip("vV"))
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts if p != "")


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

    def matrix(self) -> dict[str, dict[str, str]]:
        """tool → cohort label → ``ok`` | ``warning`` | ``breaking`` (info counts as ok)."""
        tools = sorted({t["name"] for s in [self.new, *self.cohorts] for t in s.tools})
        out: dict[str, dict[str, str]] = {}
        for tool in tools:
            row = {}
            for c in self.cohorts:
                worst = max((SEVERITY_RANK[f.severity] for f in self.findings[c.label] if f.tool == tool), default=0)
                row[c.label] = {3: "breaking", 2: "warning"}.get(worst, "ok")
            out[tool] = row
        return out

    def all_findings(self) -> list[Finding]:
        """Every finding of every cohort (a finding may appear once per cohort)."""
        return [f for c in self.cohorts for f in self.findings[c.label]]


def same_server(new: Snapshot, cohorts: list[Snapshot]) -> tuple[list[Snapshot], list[Snapshot]]:
    """Split ``cohorts`` into those of NEW's server (by ``server.name``; unknown names match) and the rest."""
    name = new.server.get("name")
    keep, skip = [], []
    for c in cohorts:
        other = c.server.get("name")
        (keep if not name or not other or other == name else skip).append(c)
    return keep, skip


def check_history(new: Snapshot, cohorts: list[Snapshot]) -> History:
    """Diff ``new`` against every cohort (given oldest first) and find conflicts between cohorts."""
    hist = History(new=new, cohorts=cohorts)
    for c in cohorts:
        hist.findings[c.label] = diff_snapshots(c, new)
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


def render_history_text(hist: History, width: int = 120) -> str:
    """Matrix, then conflicts, then findings per cohort (breaking and warning only), as plain text."""
    from mcp_schema_audit.report import inert

    labels = [c.label for c in hist.cohorts]
    m = hist.matrix()
    tw = max([len("tool")] + [len(inert(t)) for t in m])
    cw = [max(len(inert(lbl)), 8) for lbl in labels]
    lines = [f"schema-audit history: {inert(hist.new.label)} against {len(labels)} cached version(s)", ""]
    lines.append("tool".ljust(tw) + "  " + "  ".join(inert(lbl).ljust(w) for lbl, w in zip(labels, cw)))
    for tool, row in m.items():
        lines.append(inert(tool).ljust(tw) + "  " + "  ".join(row[lbl].ljust(w) for lbl, w in zip(labels, cw)))
    if hist.conflicts:
        lines += ["", "Conflicts (each cohort rejects values the other accepts; any value outside 'both accept' breaks one of them):"]
        for c in hist.conflicts:
            lines.append(f"  {inert(c.tool)} {inert(c.pointer) or '(root)'}: cohorts {inert(' and '.join(c.cohorts))} "
                         f"cache {inert(json.dumps(c.values, ensure_ascii=False))}; both accept only "
                         f"{inert(json.dumps(c.common, ensure_ascii=False))}")
    for lbl in labels:
        shown = sorted((f for f in hist.findings[lbl] if f.severity in ("breaking", "warning")),
                       key=lambda f: f.severity != "breaking")
        nb = sum(1 for f in shown if f.severity == "breaking")
        lines += ["", f"Cohort {inert(lbl)}: {nb} breaking, {len(shown) - nb} warning"]
        for f in shown:
            lines.append(f"  {f.severity:<8} {inert(f.tool)} {f.direction} {inert(f.pointer) or '(root)'} [{f.rule}]")
    return "\n".join(lines) + "\n"


def history_json(hist: History, fail_on: str, passed: bool) -> dict[str, Any]:
    """The JSON form of a history run."""
    from mcp_schema_audit import __version__

    return {
        "report_version": 1, "schema_audit_version": __version__, "kind": "history",
        "new": {"label": hist.new.label, "source": hist.new.source},
        "cohorts": [{"label": c.label, "source": c.source,
                     "summary": {s: sum(1 for f in hist.findings[c.label] if f.severity == s)
                                 for s in ("breaking", "warning", "info")},
                     "findings": [f.to_json() for f in hist.findings[c.label]]} for c in hist.cohorts],
        "matrix": hist.matrix(),
        "conflicts": [c.to_json() for c in hist.conflicts],
        "gate": {"fail_on": fail_on, "passed": passed},
    }
