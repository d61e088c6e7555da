"""The report of ``history``: one release checked against every cached version (cohort), and what the formats share
of it (the cohort matrix, each finding once with the cohorts it affects, the words for those cohorts).

A *cohort* is the set of hosts that cached one published snapshot; ``History.findings[label]`` holds NEW's
findings against that cohort's snapshot, after policy (``audit.history_report``). A *conflict* is a position
where two cohorts cache closed value sets that no single value satisfies for both (``history.find_conflicts``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcp_schema_audit.findings import Finding
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.vocabulary import SDK_PROFILES, SEVERITY_RANK, SURFACE_ORDER


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
class ReleaseStep:
    """One release in a history's chain of versions (the cohorts oldest first, then NEW): ``old`` → ``new`` (labels),
    the ``serverInfo.version`` each sent, the version ``new`` should have carried for the step's findings
    (``surfaces.versions.suggested_version``), the version findings of the step after policy (``--version-gate
    semver``) and the notes on versions that were not judged. ``gated``: the step that releases NEW (its findings
    are also among the newest cohort's and count for the gate); the steps before it were released already and are
    reported only."""

    old: str
    new: str
    old_version: str | None
    new_version: str | None
    suggested_version: str | None
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    gated: bool = False

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict: ``old``, ``new``, ``old_version``, ``new_version``, ``suggested_version``, ``gated``,
        ``findings`` (finding JSON) and ``notes``."""
        return {
            "old": self.old,
            "new": self.new,
            "old_version": self.old_version,
            "new_version": self.new_version,
            "suggested_version": self.suggested_version,
            "gated": self.gated,
            "findings": [f.to_json() for f in self.findings],
            "notes": list(self.notes),
        }

    def line(self) -> str:
        """``r1 -> r2: 1.0.0 -> 1.1.0, suggested 2.0.0: version-bump-too-small (breaking)`` (raw text: labels and
        versions are the server's)."""
        found = ", ".join(f"{f.rule} ({f.severity})" for f in self.findings) or "no version finding"
        return (
            f"{self.old} -> {self.new}: {self.old_version or 'no version'} -> {self.new_version or 'no version'}, "
            f"suggested {self.suggested_version or 'none'}: {found}"
            + ("" if self.gated else " (released: reported, not gated)")
            + "".join(f"; {n}" for n in self.notes)
        )


@dataclass
class History:
    """NEW checked against each cohort. ``cohorts`` oldest first; ``findings[label]`` per cohort (after policy)."""

    new: Snapshot
    cohorts: list[Snapshot]
    findings: dict[str, list[Finding]] = field(default_factory=dict)
    conflicts: list[Conflict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  #: run-level remarks (e.g. the tool filter in effect)
    #: how arguments sent to NEW are judged (``audit.validator_json``: version, validator, inferred, …)
    server_validators: list[dict[str, Any]] = field(default_factory=list)
    fail_on: str = "breaking"  #: the gate: ``breaking`` | ``warning`` | ``info`` | ``never``
    #: the host profiles considered (policy's ``--host``/``hosts``)
    hosts: list[str] = field(default_factory=lambda: list(SDK_PROFILES))
    #: findings the ignore list suppressed, with the entry's reason and the cohort they were found against
    ignored: list[tuple[Finding, str, str]] = field(default_factory=list)
    #: ignore entries whose ``expires`` date has passed (JSON-ready dicts, as in a ``Report``)
    expired_ignores: list[dict[str, Any]] = field(default_factory=list)
    #: what the report is, for the format registry (``Report.kind`` is diff, lint or probe)
    kind: str = "history"
    #: the release steps, oldest first (``--version-gate semver``; ``audit.history_report``)
    steps: list[ReleaseStep] = field(default_factory=list)
    #: the version NEW should carry after the newest cohort (``surfaces.versions.suggested_version``)
    suggested_version: str | None = None
    version_gate: bool = False  #: ``--version-gate semver``: the steps are judged and shown

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

    @property
    def fix(self) -> str:
        """How to ship the change without breaking cached hosts: the newest cohort's ``Finding.fix`` (a host
        finding's own remedy, else the rule's advice), ``""`` when there is none."""
        return next((f.fix for f in reversed(self.latest.values()) if f.fix), "")

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict: ``rule``, ``tool``, ``surface``, ``name``, ``direction``, ``pointer``, ``fingerprint``,
        ``severity`` (worst), ``cohorts`` (label → severity) and ``fix`` (only when there is one)."""
        out: dict[str, Any] = {
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
        if self.fix:
            out["fix"] = self.fix
        return out


def is_tool_row(hist: History, key: str) -> bool:
    """True when matrix row ``key`` is a tool's (not a prompt's, resource's, template's or the server's)."""
    return any(t["name"] == key for s in [hist.new, *hist.cohorts] for t in s.tools)


def _row(f: Finding) -> str:
    """The matrix row of a finding: its tool's name, or its subject for other surfaces."""
    return f.tool if f.surface == "tool" else f.subject


def version_ranges(labels: list[str], order: list[str]) -> str:
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
        return "affects " + version_ranges(only, order)
    return "affects " + "; ".join(
        f"{version_ranges(by_sev[sev], order)} ({sev})" for sev in ("breaking", "warning", "info") if sev in by_sev
    )


def cohort_key(g: GroupedFinding, order: list[str]) -> tuple[str, str, str] | None:
    """What history findings shown as one group share (``model.runs``): severity, rule and the cached versions
    they affect; ``None`` for a breaking one (each is shown on its own)."""
    return None if g.severity == "breaking" else (g.severity, g.rule, affects(g, order))


def cohort_counts(hist: History) -> list[str]:
    """``0.2.5: 13 breaking, 1 warning`` per cohort, oldest first (raw text)."""
    out = []
    for c in hist.cohorts:
        nb = sum(1 for f in hist.findings[c.label] if f.severity == "breaking")
        nw = sum(1 for f in hist.findings[c.label] if f.severity == "warning")
        out.append(f"{c.label}: {nb} breaking, {nw} warning")
    return out
