"""History: which versions hosts may have cached (cohorts), one release checked against each, and the conflicts
between cohorts.

A *cohort* is the set of hosts that cached one published snapshot. ``cohorts_of`` picks them from the store
(ordered by capture time, else by label as a version); ``check_history`` diffs NEW against each cohort's
snapshot (backward mode); the report (``report.cohorts.History``) shows a matrix tools × cohorts of the worst
severity per cell. A *conflict* is a position where two cohorts cache closed value sets (``enum``/``const``) neither of
which contains the other, and NEW declares values outside their intersection: each cohort rejects a
value the other needs, so one cohort must reconnect. Example: 0.2.5 caches ``transport ∈ {stdio, http}``, 0.2.6
caches ``∈ {stdio, streamable-http}``; only ``stdio`` is accepted by both.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcp_schema_audit.diff import diff_snapshots
from mcp_schema_audit.errors import UsageError
from mcp_schema_audit.findings import Finding
from mcp_schema_audit.globs import compiled
from mcp_schema_audit.jsontext import canonical
from mcp_schema_audit.report.cohorts import Conflict, History
from mcp_schema_audit.rules import VALUE_SET_RULES
from mcp_schema_audit.settings import RunLimits
from mcp_schema_audit.snapshot import Snapshot, load_snapshot


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


def same_server(
    new: Snapshot, cohorts: list[Snapshot], servers: Sequence[str] = ()
) -> tuple[list[Snapshot], list[Snapshot]]:
    """Split ``cohorts`` into those of NEW's server and the rest, by ``server.name``: NEW's own name, a name that
    matches one of the fnmatch globs ``servers`` (former names of a renamed server), or an unknown name (a file
    without one matches any) is NEW's server."""
    name = new.server.get("name")
    keep: list[Snapshot] = []
    skip: list[Snapshot] = []
    for c in cohorts:
        other = c.server.get("name")
        mine = not name or not other or other == name or compiled(tuple(servers)).matches(str(other))
        (keep if mine else skip).append(c)
    return keep, skip


def cohorts_of(
    new: Snapshot, store: Path, servers: Sequence[str] | None = None
) -> tuple[list[Snapshot], list[Snapshot]]:
    """The stored versions hosts may have cached when NEW is released, oldest first, and the stored snapshots of
    other servers, which are left out: ``(cohorts, left_out)``.

    Which stored snapshots are NEW's server's is decided by name (``same_server``): NEW's own, and the names
    ``servers`` matches (``--server``, the config key ``servers``: former names of a renamed server; ``*`` for
    every snapshot in the store). ``servers`` None (nothing chosen) while the store holds snapshots of other
    names is a ``UsageError`` naming the choice (``other_servers_error``): a renamed server's older versions
    must never be left out silently. When NEW is itself in the store (by label), the cohorts are the versions
    stored before it (``older_stored``); otherwise (a file, ``git:REF:PATH``) every stored version of its
    server. Raises ``UsageError`` when the order cannot be decided, ``InputError`` for a bad file in the store."""
    stored = stored_snapshots(store)
    cohorts, skipped = same_server(new, [s for s in stored if s.label != new.label], servers or ())
    if skipped and servers is None:
        raise other_servers_error(new, skipped)
    if any(s.label == new.label for s in stored):  # NEW is stored: the versions before it
        return older_stored(new, [*cohorts, new]), skipped
    return order_snapshots(cohorts), skipped  # a file or git:REF:PATH: every stored version of its server


def other_servers_error(new: Snapshot, others: list[Snapshot]) -> UsageError:
    """The refusal of a history whose store holds snapshots of other names than NEW's server's, none chosen:
    which names (with their labels), and the two readings (a renamed server, another server) with the option
    for each."""
    by_name: dict[str, list[str]] = {}
    for s in others:
        by_name.setdefault(str(s.server.get("name")), []).append(s.label)
    shown = "; ".join(
        f"{name!r} ({', '.join(labels[:3])}{' …' if len(labels) > 3 else ''})" for name, labels in by_name.items()
    )
    first = shlex.quote(next(iter(by_name)))
    own = shlex.quote(str(new.server.get("name")))
    return UsageError(
        f"cannot tell which stored snapshots are versions of {new.label!r} (server {new.server.get('name')!r}): "
        f"the store also holds snapshots of other server names: {shown}",
        hint=(
            f"if the server was renamed, --server NAME for each former name (e.g. --server {first}) checks its "
            f"snapshots as this server's history, with a server-renamed finding; --server {own} (its own name) "
            "leaves the other servers' snapshots out; the config key servers makes the choice for every run, and "
            "--against LABEL names the cached versions instead"
        ),
    )


def left_out_note(new: Snapshot, left_out: list[Snapshot]) -> str:
    """The report's note on the stored snapshots of other servers that ``cohorts_of`` left out, by name."""
    by_name: dict[str, list[str]] = {}
    for s in left_out:
        by_name.setdefault(str(s.server.get("name")), []).append(s.label)
    shown = "; ".join(f"{name!r}: {', '.join(labels)}" for name, labels in sorted(by_name.items()))
    return (
        f"left out {len(left_out)} stored snapshot{'s' if len(left_out) != 1 else ''} of other servers (a name "
        f"neither {new.server.get('name')!r} nor matched by --server/servers): {shown}"
    )


def unmatched_servers(servers: Sequence[str], seen: list[Snapshot]) -> list[str]:
    """The globs of ``servers`` that match the server name of none of the snapshots ``seen`` (a typo)."""
    names = {str(n) for s in seen if (n := s.server.get("name"))}
    return compiled(tuple(servers)).unmatched(names)


def check_labels(new: Snapshot, cohorts: list[Snapshot]) -> None:
    """``UsageError`` when two versions carry one label: history keeps one column per label."""
    labels = [c.label for c in cohorts]
    if len(set(labels)) != len(labels) or new.label in labels:
        twice = sorted({x for x in labels if labels.count(x) > 1 or x == new.label})
        raise UsageError(
            f"two versions carry the same label ({', '.join(map(repr, twice))}): history keeps one "
            "column per label; give the snapshots distinct labels"
        )


def check_history(
    new: Snapshot,
    cohorts: list[Snapshot],
    limits: RunLimits = RunLimits(),
    *,
    samples: Any = None,
    validator: str = "auto",
) -> History:
    """Diff ``new`` against every cohort (given oldest first) and find conflicts between cohorts; no policy
    (``audit.history_report`` applies it).

    ``limits`` and ``validator`` (the server validator profile) apply to each cohort's ``diff_snapshots`` call.
    ``samples`` (a ``probe.Recording`` of NEW's real
    results, ``--samples``) adds, per cohort, a breaking finding for each recorded result that cohort's
    outputSchema (or NEW's own) rejects, the real payload as its witness; its remarks go to ``notes``."""
    hist = History(new=new, cohorts=cohorts)
    for c in cohorts:
        hist.findings[c.label] = diff_snapshots(c, new, limits, validator)
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


def find_conflicts(hist: History) -> list[Conflict]:
    """Positions where two cohorts cache different closed value sets and NEW exceeds their intersection."""
    sets: dict[tuple[str, str], dict[str, list[Any]]] = {}
    for c in hist.cohorts:
        for f in hist.findings[c.label]:
            if f.rule not in VALUE_SET_RULES or f.direction != "output":
                continue
            values = f.old if isinstance(f.old, list) else [f.old]
            sets.setdefault((f.tool, _position(f)), {})[c.label] = values
    out: list[Conflict] = []
    for (tool, ptr), by_cohort in sorted(sets.items()):
        # cohorts caching the same value set form one group; conflicts are between groups
        groups: dict[frozenset[str], list[str]] = {}
        for c in hist.cohorts:
            if c.label in by_cohort:
                groups.setdefault(frozenset(canonical(x) for x in by_cohort[c.label]), []).append(c.label)
        keys = list(groups)
        for i, ka in enumerate(keys):
            for kb in keys[i + 1 :]:
                if ka <= kb or kb <= ka:
                    continue  # one group's values satisfy the other: sending only those breaks neither
                first = by_cohort[groups[ka][0]]
                common = [x for x in first if canonical(x) in kb]
                members = groups[ka] + groups[kb]
                out.append(Conflict(tool, ptr, members, {lbl: by_cohort[lbl] for lbl in members}, common))
    return out
