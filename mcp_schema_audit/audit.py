"""The audit core: the one place where a run is assembled, from its inputs to a report.

Every command that judges goes through here (``diff``, ``history``, ``lint``, ``probe``, the demo, and the
GitHub Action through the command line): the comparison (``diff.diff_with_mode``, ``history.check_history``,
``lint.lint_snapshot``, ``probe.check_records``), the real results of ``--samples``, the run-level notes, then
policy (``judge``: host profiles, severity overrides, the ignore list) and the ``Report`` (or ``History``) that
a format renders. The command line only parses options, calls one function here, renders and maps the outcome
to an exit code.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_schema_audit.diff import diff_with_mode, server_validator, tool_order
from mcp_schema_audit.errors import UsageError
from mcp_schema_audit.findings import Finding
from mcp_schema_audit.history import check_history
from mcp_schema_audit.policy import PolicyResult, apply_policy
from mcp_schema_audit.renames import unsearched_note
from mcp_schema_audit.report.cohorts import History
from mcp_schema_audit.report.model import Report
from mcp_schema_audit.settings import RunLimits, Settings
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.sourcemap import registration_sites
from mcp_schema_audit.surfaces import uncompared_note
from mcp_schema_audit.vocabulary import SDK_PROFILES, portability_hosts
from mcp_schema_audit.words import join_words


def sdk_hosts(settings: Settings) -> list[str] | None:
    """The SDK client profiles ``--host`` selected (None: none named, so all of them count)."""
    chosen = [h for h in settings.hosts or () if h in SDK_PROFILES]
    return chosen or None


def report_hosts(settings: Settings) -> list[str]:
    """The profiles a report considered: the SDK ones selected (all when none is named), then the hosts and
    model providers selected."""
    return list(sdk_hosts(settings) or SDK_PROFILES) + portability_hosts(settings.hosts)


def _portability(settings: Settings) -> Any:
    """The ``portable`` module when ``--host`` names a host or model provider, else None: its host rules are
    imported only then (a diff's start-up)."""
    if not portability_hosts(settings.hosts):
        return None
    from mcp_schema_audit import portable

    return portable


def merged(findings: list[Finding], more: list[Finding]) -> list[Finding]:
    """``more`` (tool findings) placed among ``findings`` in report order: tool findings by ``tool_order``, the
    other surfaces' after them in their own order."""
    if not more:
        return findings
    return sorted(findings + more, key=lambda f: (0, *tool_order(f)) if f.surface == "tool" else (1, "", 0, "", ""))


def judge(
    findings: list[Finding], settings: Settings, *, entries: Iterable[Any] | None = None, hosts: bool = True
) -> PolicyResult:
    """``findings`` after the policy of ``settings``: host restriction (unless ``hosts`` is False), severity
    overrides, then the ignore list (``entries``, default the config's ``[[ignore]]`` and ``[[allow]]`` entries: two
    names of one list). Order is kept."""
    return apply_policy(
        findings,
        severity=dict(settings.severity),
        hosts=sdk_hosts(settings) if hosts else None,
        ignore=list([*settings.ignore, *settings.allow] if entries is None else entries),
    )


def locate_sources(report: Report, root: Path) -> Report:
    """``report`` with ``sources``: the registration (file, line) under ``root`` of each tool its findings are
    about (``sourcemap.registration_sites``), for SARIF and annotations to point at the server's source; a tool
    registered in several files gets none, and a note naming them (at most five such notes)."""
    names = {f.tool for f in [*report.findings, *(f for f, _ in report.ignored)] if f.surface == "tool" and f.tool}
    sites = registration_sites(root, names) if names else {}
    report.sources = {name: (str(found[0][0]), found[0][1]) for name, found in sites.items() if len(found) == 1}
    for name, found in sorted((n, f) for n, f in sites.items() if len(f) > 1)[:5]:
        more = [f"{len(found) - 3} more"] if len(found) > 3 else []
        files = join_words(
            [str(path.relative_to(root) if path.is_relative_to(root) else path) for path, _ in found[:3]] + more
        )
        report.notes.append(
            f"--source-root: tool {name!r} is registered in {len(found)} files ({files}): "
            "its findings point at the snapshot"
        )
    return report


def diff_report(
    old: Snapshot,
    new: Snapshot,
    settings: Settings = Settings(),
    limits: RunLimits = RunLimits(),
    *,
    samples: Any = None,
    traffic: Sequence[Path] | None = None,
    notes: Sequence[str] = (),
) -> Report:
    """OLD and NEW compared for ``settings.mode``, policy applied: the ``diff`` report.

    Findings are sorted by tool, direction, pointer, rule (then the other surfaces). ``samples`` (a
    ``probe.Recording`` of NEW's real results, ``--samples``) adds a breaking finding for every recorded result
    OLD's outputSchema (or NEW's own) rejects, with the real payload as its witness, even where the schema
    comparison found nothing. ``notes`` (e.g. the tool filter in effect) follow the run's own notes. Raises
    ``UsageError`` for ``samples`` with mode ``forward`` (the recording holds NEW's results; forward hosts
    cached NEW), ``RunTimeExceeded`` past ``limits.time_budget``."""
    run_notes = _diff_notes(old, new)
    findings = diff_with_mode(old, new, settings.mode, limits, settings.server_validator)
    hosts = _portability(settings)
    findings = merged(findings, hosts.diff_findings(old, new, settings.hosts or ())) if hosts else findings
    if samples is not None:
        from mcp_schema_audit.probe import samples_findings

        if settings.mode == "forward":
            raise UsageError(
                "--samples holds results of NEW, checked against hosts that cached OLD: it does not "
                "apply to --mode forward (use backward or full)"
            )
        found, sample_notes = samples_findings(samples, new, old)
        findings = sorted(findings + found, key=tool_order)
        run_notes += sample_notes
    if traffic:
        findings, traffic_note = _with_traffic(findings, old, new, settings, limits, traffic)
        run_notes.append(traffic_note)
    result = judge(findings, settings)
    release = release_check(old, new, result, settings)
    run_notes += release.notes
    unsearched = unsearched_note(findings)
    if unsearched is not None:
        run_notes.append(unsearched)
    served = [new] if settings.mode == "backward" else [old] if settings.mode == "forward" else [new, old]
    judged = [validator_json(s, settings.server_validator) for s in served]
    return Report(
        old=old,
        new=new,
        findings=result.findings,
        fail_on=settings.fail_on,
        notes=run_notes + list(notes),
        server_validators=judged,
        mode=settings.mode,
        hosts=report_hosts(settings),
        ignored=result.ignored + release.ignored,
        expired_ignores=result.expired,
        suggested_version=release.suggested,
        rollout=release.rollout,
        version_gate=settings.version_gate == "semver",
        portability=hosts.matrix(new, settings.hosts or (), previous=old) if hosts else None,
    )


@dataclass
class ReleaseCheck:
    """What a diff says of the release itself (``release_check``): the version findings (policy applied; added to
    the ``result`` they were judged from), those the ignore list suppressed, notes, the suggested version and the
    rollout advice of a breaking release (``surfaces.caching.rollout_advice``)."""

    notes: list[str]
    ignored: list[tuple[Finding, str]]
    suggested: str | None
    rollout: str | None


def release_check(old: Snapshot, new: Snapshot, result: PolicyResult, settings: Settings) -> ReleaseCheck:
    """The version rules (``surfaces.versions``) and the caching advice for a diff whose judged findings are ``result``:
    counted over every judged finding, the ignored ones too (an accepted breaking change still needs its major
    bump). Version findings are appended to ``result.findings``. Raises ``InputError`` for an unreadable
    ``--version-source`` file."""
    from mcp_schema_audit.surfaces.caching import rollout_advice
    from mcp_schema_audit.surfaces.versions import (
        read_version_sources,
        sources_findings,
        suggested_version,
        version_findings,
    )

    judged = result.findings + [f for f, _ in result.ignored]
    found, notes = version_findings(old, new, judged) if settings.version_gate == "semver" else ([], [])
    found += sources_findings(new, read_version_sources(settings.version_sources))
    checked = judge(found, settings, hosts=False)
    result.findings += checked.findings
    breaking = any(f.severity == "breaking" and "forward" not in f.tags for f in judged)
    return ReleaseCheck(
        notes=notes,
        ignored=checked.ignored,
        suggested=suggested_version(old, new, judged),
        rollout=rollout_advice(old) if breaking else None,
    )


def _with_traffic(
    findings: list[Finding], old: Snapshot, new: Snapshot, settings: Settings, limits: RunLimits, paths: Sequence[Path]
) -> tuple[list[Finding], str]:
    """``findings`` of hosts that cached OLD with the recorded calls of ``paths`` counted (``traffic``), and
    the report's note on them. Raises ``UsageError`` in mode forward (the traffic is of hosts that cached
    OLD), ``InputError`` for a bad traffic file."""
    from mcp_schema_audit import traffic

    if settings.mode == "forward":
        raise UsageError("--traffic counts calls of hosts that cached OLD: it does not apply to --mode forward")
    used = traffic.usage(paths, new, [old], server_validator(new, settings.server_validator), limits.progress)
    backward = [f for f in findings if f.forward is None]
    judged = traffic.judged(backward, used[old.label], new, old, settings.traffic_threshold)
    return sorted(judged + [f for f in findings if f.forward is not None], key=tool_order), traffic.usage_note(
        used[old.label], paths, new
    )


def validator_json(served: Snapshot, choice: str) -> dict[str, Any]:
    """The server validator that judged arguments sent to ``served``: ``{"version", "validator", "inferred",
    "inferred_from", "summary"}`` (JSON-ready)."""
    v = server_validator(served, choice)
    return {
        "version": served.label,
        "validator": v.name,
        "inferred": bool(v.inferred_from),
        "inferred_from": v.inferred_from,
        "summary": v.summary,
    }


def _diff_notes(old: Snapshot, new: Snapshot) -> list[str]:
    """Run-level remarks of a diff: protocol eras that differ, surfaces listed on one side only, tools both
    versions list without an inputSchema (no change, so no finding)."""
    notes = []
    if old.protocol_version and new.protocol_version and old.protocol_version != new.protocol_version:
        notes.append(
            f"protocol versions differ ({old.protocol_version} vs {new.protocol_version}): servers may "
            "advertise different schemas per protocol era; compare snapshots of the same era"
        )
    note = uncompared_note(old, new)
    if note:
        notes.append(note)
    before = {t.get("name") for t in old.tools if "inputSchema" not in t}
    bare = [str(t.get("name")) for t in new.tools if "inputSchema" not in t and t.get("name") in before]
    if bare:  # a listing problem both versions share is no change, but it is not silent either
        notes.append(
            f"{len(bare)} {'tool is' if len(bare) == 1 else 'tools are'} listed without an inputSchema in both "
            f"versions ({', '.join(bare[:5])}{', …' if len(bare) > 5 else ''}): MCP requires one, and SDK clients "
            "reject the whole tools/list; `schema-audit lint` reports it"
        )
    return notes


def history_report(
    new: Snapshot,
    cohorts: list[Snapshot],
    settings: Settings = Settings(),
    limits: RunLimits = RunLimits(),
    *,
    samples: Any = None,
    traffic: Sequence[Path] | None = None,
    notes: Sequence[str] = (),
) -> History:
    """NEW checked against every cohort (``cohorts``, oldest first), policy applied to each cohort's findings
    exactly as ``diff_report`` applies it (host profiles, ``[severity]``, ``[[ignore]]``): the ``history``
    report. ``samples`` as in ``diff_report``, per cohort; ``notes`` follow the run's own notes, then the
    surfaces a cohort does not list. Conflicts between cohorts are found before policy (they are facts about
    the cached value sets, whatever severity the user gives them)."""
    hist = check_history(new, cohorts, limits, samples=samples, validator=settings.server_validator)
    hist.server_validators = [validator_json(new, settings.server_validator)]
    hist.notes += list(notes) + [n for n in (uncompared_note(c, new) for c in cohorts) if n]
    if traffic and cohorts:
        from mcp_schema_audit import traffic as calls

        validator = server_validator(new, settings.server_validator)
        used = calls.usage(traffic, new, cohorts, validator, limits.progress)
        for c in cohorts:
            found = calls.judged(hist.findings[c.label], used[c.label], new, c, settings.traffic_threshold)
            hist.findings[c.label] = sorted(found, key=tool_order)
        hist.notes.append(calls.usage_note(used[cohorts[-1].label], traffic, new))
    for c in cohorts:
        result = judge(hist.findings[c.label], settings)
        hist.findings[c.label] = result.findings
        hist.ignored += [(f, reason, c.label) for f, reason in result.ignored]
        hist.expired_ignores = result.expired
    hist.steps, hist.suggested_version = release_steps(hist, settings, limits)
    hist.version_gate = settings.version_gate == "semver"
    hist.fail_on = settings.fail_on
    hist.hosts = report_hosts(settings)
    return hist


def release_steps(hist: History, settings: Settings, limits: RunLimits = RunLimits()) -> tuple[list[Any], str | None]:
    """The version rules of a judged history, per release step: each pair of consecutive versions of the chain
    (``hist.cohorts`` oldest first, then NEW) with ``--version-gate semver``, and the version NEW should carry after
    the newest cohort: ``(steps, suggested version)``.

    The step that releases NEW reuses the newest cohort's judged findings; its version findings are appended to
    that cohort's (they count for the gate) and to ``hist.ignored``. Each earlier step is one more diff (policy
    applied as to every cohort): its findings are reported in the step only, never gated (those releases are
    out). Without the gate only the suggested version is computed (no diff). Raises ``RunTimeExceeded`` past
    ``limits.time_budget``."""
    from mcp_schema_audit.diff import diff_snapshots
    from mcp_schema_audit.report.cohorts import ReleaseStep
    from mcp_schema_audit.surfaces.versions import server_version, suggested_version, version_findings

    if not hist.cohorts:
        return [], None
    newest = hist.cohorts[-1]
    last = hist.findings[newest.label] + [f for f, _, c in hist.ignored if c == newest.label]
    suggested = suggested_version(newest, hist.new, last)
    if settings.version_gate != "semver":
        return [], suggested
    chain = [*hist.cohorts, hist.new]
    steps = []
    for old, new in zip(chain, chain[1:], strict=False):
        gated = new is hist.new
        if gated:
            judged = last
        else:
            result = judge(diff_snapshots(old, new, limits, settings.server_validator), settings)
            judged = result.findings + [f for f, _ in result.ignored]
        found, notes = version_findings(old, new, judged)
        checked = judge(found, settings, hosts=False)
        if gated:
            hist.notes += [n for n in notes if n not in hist.notes]
            hist.findings[newest.label] += checked.findings
            hist.ignored += [(f, reason, newest.label) for f, reason in checked.ignored]
        step = ReleaseStep(
            old.label,
            new.label,
            server_version(old),
            server_version(new),
            suggested_version(old, new, judged),
            checked.findings,
            notes,
            gated,
        )
        steps.append(step)
    return steps, suggested


def lint_report(
    snap: Snapshot, settings: Settings = Settings(), *, baseline: Snapshot | None = None, notes: Sequence[str] = ()
) -> Report:
    """The hazards of one snapshot (``lint.lint_snapshot``, with ``baseline``'s output required sets) and, for
    the hosts and model providers ``--host`` selected, what each does with every tool (``portable``: findings
    and the matrix), policy applied: severity overrides, then ``[[allow]]`` and ``[[ignore]]`` entries (lint
    restricts no SDK profile)."""
    from mcp_schema_audit.lint import lint_snapshot

    hosts = _portability(settings)
    found = lint_snapshot(snap, baseline=baseline)
    found = merged(found, hosts.lint_findings(snap, settings.hosts or ())) if hosts else found
    result = judge(found, settings, entries=[*settings.allow, *settings.ignore], hosts=False)
    return Report(
        old=baseline or snap,
        new=snap,
        findings=result.findings,
        fail_on=settings.fail_on,
        notes=list(notes),
        kind="lint",
        baseline=baseline,
        mode="lint",
        hosts=report_hosts(settings),
        ignored=result.ignored,
        expired_ignores=result.expired,
        portability=hosts.matrix(snap, settings.hosts or ()) if hosts else None,
    )


#: Tools ``--auto`` left out that a probe report names in its notes, one each (``--dry-run`` lists them all)
AUTO_NOTES_SHOWN = 20


def _auto_notes(skipped: list[dict[str, str]] | None) -> list[str]:
    """One note per tool ``--auto`` left out (raw text: the names are the server's): ``--auto left out NAME:
    why; add: what``, at most ``AUTO_NOTES_SHOWN`` and a count of the rest."""
    notes = [
        f"--auto left out {s['tool']}: {s['why']}" + (f"; add: {s['add']}" if s.get("add") else "")
        for s in (skipped or [])[:AUTO_NOTES_SHOWN]
    ]
    if skipped and len(skipped) > AUTO_NOTES_SHOWN:
        notes.append(f"--auto left out {len(skipped) - AUTO_NOTES_SHOWN} more (probe --auto --dry-run lists every one)")
    return notes


def probe_report(
    listing: Snapshot,
    records: list[dict[str, Any]],
    cached: list[Snapshot],
    settings: Settings = Settings(),
    *,
    artifact: str | None = None,
    skipped: list[dict[str, str]] | None = None,
    auto: bool = False,
    previous: Sequence[tuple[str, list[dict[str, Any]]]] = (),
) -> Report:
    """The probe report of call ``records`` made on the server whose listing is ``listing``: findings
    (``probe.check_records`` against the listing and each ``cached`` snapshot), then policy, the calls
    summarized (each with ``checked``: its result was held against an outputSchema), run-level notes. When no
    call's result was checked, a ``probe-nothing-checked`` warning says why and what to do (``skipped``/``auto``:
    the tools ``--auto`` left out). ``artifact``: the calls file or recording that SARIF and GitHub annotations
    point at. ``previous``: the call records of ``cached`` versions given as probe recordings (``(label, calls)``):
    a call that completed there and answers ``input_required`` now is ``probe-input-required-introduced``."""
    from mcp_schema_audit.probe import call_summary, check_records
    from mcp_schema_audit.probe.check import checked_calls, nothing_checked, result_notes

    checked = checked_calls(listing, records, cached)
    calls = [{**call_summary(r), "checked": str(r.get("id")) in checked} for r in records]
    findings = check_records(listing, records, cached, previous=previous)
    if not checked:
        findings.append(nothing_checked(calls, skipped=skipped, auto=auto))
    result = judge(findings, settings)
    return Report(
        old=None,
        new=listing,
        findings=result.findings,
        fail_on=settings.fail_on,
        notes=_probe_notes(listing, cached, records) + result_notes(listing, records) + _auto_notes(skipped),
        mode="backward",
        hosts=report_hosts(settings),
        ignored=result.ignored,
        expired_ignores=result.expired,
        kind="probe",
        cached=list(cached),
        calls=calls,
        artifact=artifact,
    )


def _probe_notes(listing: Snapshot, cached: list[Snapshot], records: list[dict[str, Any]]) -> list[str]:
    """Run-level remarks of a probe: cached versions of another protocol era or another server, cached versions
    against which no result was checked (none of the tools that returned a result has an outputSchema there)."""
    notes = []
    answered = sorted({str(r.get("tool")) for r in records if r.get("outcome") == "result"})
    for snap in cached:
        declared = {t.get("name") for t in snap.tools if t.get("outputSchema") is not None}
        if answered and declared.isdisjoint(answered):
            shown = ", ".join(answered[:5]) + (" …" if len(answered) > 5 else "")
            notes.append(
                f"no result was checked against --against {snap.label}: none of the tools that answered "
                f"({shown}) has an outputSchema there"
            )
        if snap.protocol_version and listing.protocol_version and snap.protocol_version != listing.protocol_version:
            notes.append(
                f"--against {snap.label} was captured at protocol {snap.protocol_version}, the probe ran at "
                f"{listing.protocol_version}: servers may advertise different schemas per protocol era"
            )
        name, other = listing.server.get("name"), snap.server.get("name")
        if name and other and name != other:
            notes.append(f"--against {snap.label} is a snapshot of server {other!r}, the probed server is {name!r}")
    return notes
