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
from mcp_schema_audit.errors import UsageError
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
    """Oldest first: captured snapshots by capture time, then the others (imported files) by label as a version."""
    return sorted(
        (s for s in snaps if _captured(s)), key=lambda s: (s.meta["captured_at"], version_key(s.label))
    ) + sorted((s for s in snaps if not _captured(s)), key=lambda s: version_key(s.label))


def _captured(s: Snapshot) -> bool:
    return isinstance(s.meta.get("captured_at"), str)


def older_stored(new: Snapshot, mine: list[Snapshot]) -> list[Snapshot]:
    """The snapshots of ``mine`` (stored snapshots of NEW's server, NEW among them) older than NEW, oldest first.

    Captured snapshots are ordered by capture time; when none of them has one (imported files), by label
    as a version. When NEW and some of the others differ in that (one has a capture time, the other not),
    or when the capture order contradicts their versions (``serverInfo.version``, else a label spelled as a
    version: ``v1.0.0`` captured after ``v2.0.0``), which of them is older cannot be decided: ``UsageError``
    (exit 2) says so, and how to name the cohorts.
    """
    undecided = [s for s in mine if s.label != new.label and _captured(s) != _captured(new)]
    if undecided:
        shown = ", ".join(repr(s.label) for s in undecided[:5]) + (" …" if len(undecided) > 5 else "")
        which = "has a capture time but" if _captured(new) else "has no capture time (an imported file) but"
        theirs = ("has" if len(undecided) == 1 else "have") + (" none" if _captured(new) else " one")
        nameless = not new.server.get("name") or any(not s.server.get("name") for s in undecided)
        whose = (
            "stored beside it (taken for the same server: a file without a server name matches any)"
            if nameless
            else "of the same server"
        )
        raise UsageError(
            f"cannot tell which stored versions are older than {new.label!r}: it {which} {shown} {whose} {theirs}",
            hint="name the cached versions: --against LABEL, once per version",
        )
    ordered = order_snapshots([s for s in mine if s.label != new.label] + [new])
    at = next(i for i, s in enumerate(ordered) if s is new)
    contradicted = [s for i, s in enumerate(ordered) if s is not new and _versions_disagree(s, new, i < at)]
    if contradicted:
        s = contradicted[0]
        when = "before" if ordered.index(s) < at else "after"
        raise UsageError(
            f"cannot tell which stored versions are older than {new.label!r}: {s.label!r} was captured "
            f"{when} it, but its version {_version_of(s)!r} is "
            f"{'higher' if when == 'before' else 'lower'} than {_version_of(new)!r}",
            hint="name the cached versions: --against LABEL, once per version",
        )
    return ordered[:at]


_VERSION = re.compile(r"[vV]?[0-9]+(?:\.[0-9]+)+(?:[-+.][0-9A-Za-z.+-]*)?")


def _version_of(s: Snapshot) -> str | None:
    """The version a snapshot names: its server's ``serverInfo.version``, else a label spelled as one (``v1.2``)."""
    for text in (s.server.get("version"), s.label):
        if isinstance(text, str) and _VERSION.fullmatch(text.strip()):
            return text.strip()
    return None


def _versions_disagree(s: Snapshot, new: Snapshot, s_older: bool) -> bool:
    """Do ``s``'s and NEW's versions (``_version_of``) say the opposite of their capture order?"""
    a, b = _version_of(s), _version_of(new)
    if a is None or b is None or version_key(a) == version_key(b):
        return False
    return (version_key(a) > version_key(b)) == s_older


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
        return {
            "tool": self.tool,
            "pointer": self.pointer,
            "cohorts": self.cohorts,
            "values": self.values,
            "common": self.common,
        }


@dataclass
class History:
    """NEW checked against each cohort. ``cohorts`` oldest first; ``findings[label]`` per cohort."""

    new: Snapshot
    cohorts: list[Snapshot]
    findings: dict[str, list[Finding]] = field(default_factory=dict)
    conflicts: list[Conflict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  #: run-level remarks (e.g. the tool filter in effect)
    fail_on: str = "breaking"  #: the gate: ``breaking`` | ``warning`` | ``info`` | ``never``

    @property
    def passed(self) -> bool:
        """True when no finding of any cohort is at or above ``fail_on`` (always True for ``never``)."""
        if self.fail_on == "never":
            return True
        limit = SEVERITY_RANK[self.fail_on]
        return not any(SEVERITY_RANK[f.severity] >= limit for f in self.all_findings())

    def matrix(self) -> dict[str, dict[str, str]]:
        """tool → cohort label → ``ok`` | ``new`` | ``absent`` | ``warning`` | ``breaking``; then one row per
        other item with findings (prompt, resource, resource template, server), keyed by its subject
        (``prompt summarize``, ``server capabilities``).

        ``warning``/``breaking``: the worst finding of that row against that cached version; otherwise (info
        counts as nothing) ``new`` for a tool NEW lists and the cached version did not have, ``absent`` for a
        tool neither of them has (only another cached version), else ``ok``."""
        served = {t["name"] for t in self.new.tools}
        tools = sorted({t["name"] for s in [self.new, *self.cohorts] for t in s.tools})
        others = sorted({f.subject for f in self.all_findings() if f.surface != "tool"})
        out: dict[str, dict[str, str]] = {}
        cached = {c.label: {t["name"] for t in c.tools} for c in self.cohorts}
        for row_key in [*tools, *others]:
            row = {}
            for c in self.cohorts:
                worst = max(
                    (SEVERITY_RANK[f.severity] for f in self.findings[c.label] if _row(f) == row_key), default=0
                )
                quiet = "ok"
                if row_key in tools and row_key not in cached[c.label]:
                    quiet = "new" if row_key in served else "absent"
                row[c.label] = {3: "breaking", 2: "warning"}.get(worst, quiet)
            out[row_key] = row
        return out

    def all_findings(self) -> list[Finding]:
        """Every finding of every cohort (a finding may appear once per cohort)."""
        return [f for c in self.cohorts for f in self.findings[c.label]]

    def grouped(self) -> list[GroupedFinding]:
        """Each finding once (by fingerprint: rule, tool, direction, pointer) with the cohorts it occurs in.

        Sorted by worst severity (breaking first), then tool, direction, pointer, rule.
        """
        groups: dict[str, GroupedFinding] = {}
        for c in self.cohorts:
            for f in self.findings[c.label]:
                g = groups.get(f.fingerprint)
                if g is None:
                    g = groups[f.fingerprint] = GroupedFinding(
                        f.rule, f.tool, f.direction, f.pointer, f.fingerprint, surface=f.surface, name=f.name
                    )
                g.cohorts[c.label] = f.severity
                g.latest[c.label] = f
        return sorted(
            groups.values(),
            key=lambda g: (
                -SEVERITY_RANK[g.severity],
                SURFACE_ORDER.get(g.surface, 0),
                g.tool,
                g.name,
                g.direction,
                g.pointer,
                g.rule,
            ),
        )


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
        return {
            "rule": self.rule,
            "tool": self.tool,
            "surface": self.surface,
            "name": self.name,
            "direction": self.direction,
            "pointer": self.pointer,
            "fingerprint": self.fingerprint,
            "severity": self.severity,
            "cohorts": dict(self.cohorts),
        }


def is_tool_row(hist: History, key: str) -> bool:
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


def check_history(
    new: Snapshot,
    cohorts: list[Snapshot],
    *,
    time_budget: float | None = None,
    samples: Any = None,
    jobs: int | None = None,
    progress: Any = None,
) -> History:
    """Diff ``new`` against every cohort (given oldest first) and find conflicts between cohorts.

    ``time_budget`` (seconds) bounds each cohort's ``diff_snapshots`` call (see there; ``jobs`` and ``progress``
    are passed to it too). ``samples`` (a
    ``probe.Recording`` of NEW's real results, ``--samples``) adds, per cohort, a breaking finding for each
    recorded result that cohort's outputSchema (or NEW's own) rejects, the real payload as its witness; its
    remarks go to ``notes``."""
    hist = History(new=new, cohorts=cohorts)
    for c in cohorts:
        hist.findings[c.label] = diff_snapshots(c, new, time_budget=time_budget, jobs=jobs, progress=progress)
    if samples is not None:
        from mcp_schema_audit.probe import samples_findings

        for c in cohorts:
            found, notes = samples_findings(samples, new, c)
            hist.findings[c.label] += found
            hist.notes += [n for n in notes if n not in hist.notes]
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
            for kb in keys[i + 1 :]:
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
            parts += [order[k] for k in idx[i : j + 1]]
        i = j + 1
    return ", ".join(parts)


def affects(g: GroupedFinding, order: list[str], shown: tuple[str, ...] = ("breaking", "warning")) -> str:
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
    return "affects " + "; ".join(
        f"{_versions(by_sev[sev], order)} ({sev})" for sev in ("breaking", "warning", "info") if sev in by_sev
    )


def cohort_counts(hist: History) -> list[str]:
    out = []
    for c in hist.cohorts:
        nb = sum(1 for f in hist.findings[c.label] if f.severity == "breaking")
        nw = sum(1 for f in hist.findings[c.label] if f.severity == "warning")
        out.append(f"{c.label}: {nb} breaking, {nw} warning")
    return out
