"""``diff``, ``history`` and ``lint``: the commands that judge snapshots and gate on the result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from mcp_schema_audit.cli.app import _command, _err, _guarded
from mcp_schema_audit.cli.options import (
    _CONFIG_HELP,
    _EXCLUDE_TOOL_HELP,
    _FORMATS_HELP,
    _HISTORY_FORMATS_HELP,
    _HOST_HELP,
    _JOBS_HELP,
    _SAMPLES_HELP,
    _SEVERITY_HELP,
    _TIME_BUDGET_HELP,
    _TOOL_HELP,
    HISTORY_FORMATS,
    _budget,
    _jobs,
    _load,
    _Progress,
    _render,
    _settings,
    _tool_filter,
    _write_output,
    distinct_labels,
    run_diff,
)
from mcp_schema_audit.errors import ExitCode, UsageError


@_command("Classify the schema changes between OLD and NEW.")
@_guarded
def diff(
    old: str = typer.Argument(
        ..., metavar="OLD", help="Old version: a store label, a snapshot or tools/list file, or git:REF:PATH."
    ),
    new: str = typer.Argument(..., metavar="NEW", help="New version: same forms as OLD."),
    fmt: str | None = typer.Option(None, "--format", "-f", metavar="FORMAT", help=_FORMATS_HELP),
    fail_on: str | None = typer.Option(
        None,
        "--fail-on",
        metavar="LEVEL",
        help=("breaking | warning | info | never: exit 1 when a finding is at or above it (default breaking)."),
    ),
    mode: str | None = typer.Option(
        None,
        "--mode",
        metavar="MODE",
        help=(
            "backward (hosts cached OLD, server runs NEW; default) | forward (hosts cached NEW, server runs OLD: "
            "rollback, rolling deploy) | full (both)."
        ),
    ),
    host: list[str] = typer.Option([], "--host", metavar="NAME", help=_HOST_HELP),
    severity: list[str] = typer.Option([], "--severity", metavar="RULE=LEVEL", help=_SEVERITY_HELP),
    tool: list[str] = typer.Option([], "--tool", metavar="GLOB", help=_TOOL_HELP),
    exclude_tool: list[str] = typer.Option([], "--exclude-tool", metavar="GLOB", help=_EXCLUDE_TOOL_HELP),
    config: Path | None = typer.Option(None, "--config", metavar="FILE", help=_CONFIG_HELP),
    store: Path | None = typer.Option(
        None, "--store", metavar="DIR", help="Snapshot store folder for labels (default .schema-audit)."
    ),
    output: str | None = typer.Option(
        None, "--output", metavar="FILE", help="Write the report to this file (atomically)."
    ),
    time_budget: float | None = typer.Option(None, "--time-budget", metavar="SECONDS", help=_TIME_BUDGET_HELP),
    samples: Path | None = typer.Option(None, "--samples", metavar="FILE", help=_SAMPLES_HELP),
    jobs: int | None = typer.Option(None, "--jobs", "-j", metavar="N", help=_JOBS_HELP),
    old_label: str | None = typer.Option(
        None,
        "--old-label",
        metavar="NAME",
        help=(
            "Name OLD so in the report (default: its label; two files of one name, a/tools.json and "
            "b/tools.json, read a/tools and b/tools)."
        ),
    ),
    new_label: str | None = typer.Option(
        None, "--new-label", metavar="NAME", help="Name NEW so in the report (as --old-label)."
    ),
) -> None:
    """Classify every schema change between OLD and NEW for hosts that cached OLD.

    Breaking findings carry a witness: a value the new version may send (or the model may build) that
    the other side rejects, confirmed with jsonschema. In --mode forward|full, forward findings (tag
    forward) compare hosts that cached NEW with a server running OLD; their witnesses still say
    accepted_by old|new for the snapshots as given here.
    """
    from mcp_schema_audit.policy import REPORT_FORMATS

    opts = _settings(
        config,
        fail_on,
        mode,
        host,
        severity,
        store,
        fmt=fmt,
        formats=REPORT_FORMATS,
        tools=tool,
        exclude_tools=exclude_tool,
    )
    fmt = opts["format"]
    budget, jobs = _budget(time_budget), _jobs(jobs)
    old_snap = _load(old, opts["store"])
    new_snap = _load(new, opts["store"])
    distinct_labels(old_snap, new_snap, old, new, old_label, new_label)
    recording = _samples(samples)
    (old_snap, new_snap), notes = _tool_filter([old_snap, new_snap], opts["tools"], opts["exclude_tools"])
    with _Progress("comparing tools") as bar:
        report = run_diff(
            old_snap,
            new_snap,
            fail_on=opts["fail_on"],
            mode=opts["mode"],
            hosts=opts["hosts"],
            severity=opts["severity"],
            ignore=opts["config"].ignore,
            time_budget=budget,
            samples=recording,
            jobs=jobs,
            progress=bar.callback,
        )
    report.notes += notes
    _write_output(_render(report, fmt, output), output)
    # --format ignore writes config for the findings it lists: it is not a gate (so `>> .schema-audit.toml` works)
    raise typer.Exit(int(ExitCode.OK if report.passed or fmt == "ignore" else ExitCode.GATE_FAILED))


@_command("Check NEW against every version hosts may have cached.")
@_guarded
def history(
    new: str = typer.Argument(..., metavar="NEW", help="The release to check: a store label, a file, or git:REF:PATH."),
    against: list[str] = typer.Option(
        [],
        "--against",
        metavar="LABEL",
        help="Cached versions to check against (repeatable); default: every stored snapshot older than NEW.",
    ),
    fmt: str = typer.Option("text", "--format", "-f", metavar="FORMAT", help=_HISTORY_FORMATS_HELP),
    fail_on: str | None = typer.Option(None, "--fail-on", metavar="LEVEL", help="breaking | warning | info | never."),
    tool: list[str] = typer.Option([], "--tool", metavar="GLOB", help=_TOOL_HELP),
    exclude_tool: list[str] = typer.Option([], "--exclude-tool", metavar="GLOB", help=_EXCLUDE_TOOL_HELP),
    config: Path | None = typer.Option(None, "--config", metavar="FILE", help=_CONFIG_HELP),
    store: Path | None = typer.Option(
        None, "--store", metavar="DIR", help="Snapshot store folder (default .schema-audit)."
    ),
    output: str | None = typer.Option(
        None, "--output", metavar="FILE", help="Write the report to this file (atomically)."
    ),
    time_budget: float | None = typer.Option(
        None, "--time-budget", metavar="SECONDS", help=_TIME_BUDGET_HELP + " Per cached version."
    ),
    samples: Path | None = typer.Option(None, "--samples", metavar="FILE", help=_SAMPLES_HELP),
    jobs: int | None = typer.Option(None, "--jobs", "-j", metavar="N", help=_JOBS_HELP),
) -> None:
    """Check NEW against every version hosts may still have cached (one cohort per snapshot).

    Prints a matrix tools x cached versions (ok / warning / breaking), the conflicts (positions where
    two cohorts cache different value sets, so no single value satisfies both) and the findings, one
    line each with the cached versions it breaks. Captured snapshots are ordered by capture time,
    imported ones by label as a version; when NEW and a stored snapshot of its server differ in that,
    name the cached versions with --against (exit 2 otherwise). Every format of diff works here:
    markdown suits a pull-request comment; sarif and github give one result per finding (each once,
    with the cached versions it affects), located in NEW's snapshot file; junit has one test case per
    tool.
    """
    from mcp_schema_audit.history import check_history, older_stored, order_snapshots, same_server, stored_snapshots

    opts = _settings(
        config,
        fail_on,
        None,
        [],
        [],
        store,
        fmt=fmt,
        formats=HISTORY_FORMATS,
        config_format=False,
        tools=tool,
        exclude_tools=exclude_tool,
    )
    budget, jobs = _budget(time_budget), _jobs(jobs)
    new_snap = _load(new, opts["store"])
    recording = _samples(samples)
    if against:
        cohorts = order_snapshots([_load(a, opts["store"]) for a in against])
    else:
        stored = stored_snapshots(opts["store"])
        cohorts, skipped = same_server(new_snap, [s for s in stored if s.label != new_snap.label])
        if any(s.label == new_snap.label for s in stored):  # NEW is stored: the versions before it
            cohorts = older_stored(new_snap, [*cohorts, new_snap])
        else:  # a file or git:REF:PATH: every stored version of its server may be cached
            cohorts = order_snapshots(cohorts)
        if skipped:
            _err(f"skipped {len(skipped)} stored snapshot(s) of other servers: {', '.join(s.label for s in skipped)}")
    labels = [c.label for c in cohorts]
    if len(set(labels)) != len(labels) or new_snap.label in labels:
        twice = sorted({x for x in labels if labels.count(x) > 1 or x == new_snap.label})
        raise UsageError(
            f"two versions carry the same label ({', '.join(map(repr, twice))}): history keeps one "
            "column per label; give the snapshots distinct labels"
        )
    if not cohorts:
        # a first release: no host can have cached an older version, so there is nothing that can break
        _err(
            f"nothing to check: the store ({opts['store']}) holds no version older than {new_snap.label!r} "
            "(a first release; name cached versions with --against)"
        )
        raise typer.Exit(int(ExitCode.OK))
    (new_snap, *cohorts), notes = _tool_filter([new_snap, *cohorts], opts["tools"], opts["exclude_tools"])
    with _Progress("comparing tools") as bar:
        hist = check_history(new_snap, cohorts, time_budget=budget, samples=recording, jobs=jobs, progress=bar.callback)
    from mcp_schema_audit.surfaces import uncompared_note

    hist.notes += notes + [n for n in (uncompared_note(c, new_snap) for c in cohorts) if n]
    hist.fail_on = opts["fail_on"]
    _write_output(_render(hist, opts["format"], output), output)
    raise typer.Exit(int(ExitCode.OK if hist.passed or opts["format"] == "ignore" else ExitCode.GATE_FAILED))


@_command("Find what will break cached hosts at the next release.")
@_guarded
def lint(
    snapshots: list[str] = typer.Argument(
        ..., metavar="SNAPSHOT...", help="Snapshots to lint: store labels, files or git:REF:PATH."
    ),
    baseline: str | None = typer.Option(
        None,
        "--baseline",
        metavar="LABEL",
        help="Require output required sets to equal this snapshot's (e.g. the version whose required set is frozen).",
    ),
    fmt: str | None = typer.Option(
        None,
        "--format",
        "-f",
        metavar="FORMAT",
        help=(_FORMATS_HELP + " Formats other than text and github take one snapshot at a time."),
    ),
    fail_on: str | None = typer.Option(None, "--fail-on", metavar="LEVEL", help="breaking | warning | info | never."),
    severity: list[str] = typer.Option([], "--severity", metavar="RULE=LEVEL", help=_SEVERITY_HELP),
    tool: list[str] = typer.Option([], "--tool", metavar="GLOB", help=_TOOL_HELP),
    exclude_tool: list[str] = typer.Option([], "--exclude-tool", metavar="GLOB", help=_EXCLUDE_TOOL_HELP),
    config: Path | None = typer.Option(None, "--config", metavar="FILE", help=_CONFIG_HELP),
    store: Path | None = typer.Option(
        None, "--store", metavar="DIR", help="Snapshot store folder (default .schema-audit)."
    ),
    output: str | None = typer.Option(
        None, "--output", metavar="FILE", help="Write the report to this file (atomically)."
    ),
) -> None:
    """Hazard lint: what will break cached hosts at the next release, before any diff.

    Closed output objects and output enums/consts (warning), listing-time breakers and schemas invalid
    against their dialect (breaking), 2020-12-only keywords that draft-07 hosts ignore (warning), and
    with --baseline every output required set that differs from the baseline's. Entries of [[allow]] in
    the config file (rule/tool/pointer patterns with a reason) silence hazards.
    """
    from mcp_schema_audit.lint import lint_snapshot
    from mcp_schema_audit.policy import REPORT_FORMATS, apply_policy
    from mcp_schema_audit.report import Report

    opts = _settings(
        config,
        fail_on,
        None,
        [],
        severity,
        store,
        fmt=fmt,
        formats=REPORT_FORMATS,
        tools=tool,
        exclude_tools=exclude_tool,
    )
    where = "" if fmt else " (the config file's format)"
    fmt = opts["format"]
    if len(snapshots) > 1 and fmt not in ("text", "github"):
        raise UsageError(
            f"--format {fmt}{where} takes one snapshot at a time (got {len(snapshots)}); use text or github"
        )
    base = _load(baseline, opts["store"]) if baseline else None
    snaps = [_load(ref, opts["store"]) for ref in snapshots]
    filtered, notes = _tool_filter(snaps + ([base] if base else []), opts["tools"], opts["exclude_tools"])
    snaps, base = filtered[: len(snaps)], (filtered[-1] if base else None)
    passed_all = True
    texts = []
    for snap in snaps:
        result = apply_policy(
            lint_snapshot(snap, baseline=base),
            severity=opts["severity"],
            ignore=opts["config"].allow + opts["config"].ignore,
        )
        report = Report(
            old=base or snap,
            new=snap,
            findings=result.findings,
            fail_on=opts["fail_on"],
            notes=list(notes),
            kind="lint",
            baseline=base,
            mode="lint",
            ignored=result.ignored,
            expired_ignores=result.expired,
        )
        passed_all = passed_all and report.passed
        texts.append(_render(report, fmt, output))
    _write_output("".join(texts), output)
    # --format ignore writes config for the hazards it lists: not a gate, as in diff
    raise typer.Exit(int(ExitCode.OK if passed_all or fmt == "ignore" else ExitCode.GATE_FAILED))


def _samples(path: Path | None) -> Any:
    """The recording ``--samples`` names (``probe.load_recording``), or None. Raises ``InputError`` (exit 2)."""
    if path is None:
        return None
    from mcp_schema_audit.probe import load_recording

    return load_recording(path)
