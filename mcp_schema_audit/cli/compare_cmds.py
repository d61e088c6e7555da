"""``diff``, ``history`` and ``lint``: the commands that judge snapshots and gate on the result.

Each parses its options, reads the snapshots, calls the audit core (``audit.diff_report``,
``audit.history_report``, ``audit.lint_report``), renders and exits with the gate's code.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any

import typer

from mcp_schema_audit.cli import params
from mcp_schema_audit.cli.app import command, gate_exits
from mcp_schema_audit.cli.common import (
    Progress,
    distinct_labels,
    err,
    gate_exit,
    load_ref,
    render_for,
    run_limits,
    samples_of,
    settings_of,
    tool_filter,
    write_output,
)
from mcp_schema_audit.errors import ExitCode, UsageError
from mcp_schema_audit.report.formats import formats_help

_DIFF_HELP = """Classify every schema change between OLD and NEW for hosts that cached OLD.

Breaking findings carry a witness: a value the new version may send (or the model may build) that
the other side rejects, confirmed with jsonschema. In --mode forward|full, forward findings (tag
forward) compare hosts that cached NEW with a server running OLD; their witnesses still say
accepted_by old|new for the snapshots as given here.
"""

OldRef = Annotated[
    str,
    typer.Argument(metavar="OLD", help="Old version: a store label, a snapshot or tools/list file, or git:REF:PATH."),
]
NewRef = Annotated[str, typer.Argument(metavar="NEW", help="New version: same forms as OLD.")]
OldLabel = Annotated[
    str | None,
    typer.Option(
        "--old-label",
        metavar="NAME",
        help="Name OLD so in the report (default: its label; two files of "
        "one name, a/tools.json and b/tools.json, read a/tools and b/tools).",
    ),
]
NewLabel = Annotated[
    str | None, typer.Option("--new-label", metavar="NAME", help="Name NEW so in the report (as --old-label).")
]


@command("Classify the schema changes between OLD and NEW.", _DIFF_HELP, exits=gate_exits(live=False, budget=True))
def diff(
    old: OldRef,
    new: NewRef,
    fmt: params.Format = None,
    fail_on: params.FailOn = None,
    mode: params.Mode = None,
    host: params.Hosts = None,
    server_validator: params.ServerValidator = None,
    severity: params.Severity = None,
    tool: params.Tools = None,
    exclude_tool: params.ExcludeTools = None,
    config: params.Config = None,
    store: params.Store = None,
    output: params.Output = None,
    time_budget: params.TimeBudget = None,
    samples: params.Samples = None,
    traffic: params.Traffic = None,
    traffic_threshold: params.TrafficThreshold = None,
    jobs: params.Jobs = None,
    old_label: OldLabel = None,
    new_label: NewLabel = None,
    version_source: params.VersionSources = None,
    version_gate: params.VersionGate = None,
    source_root: params.SourceRoot = None,
) -> None:
    from mcp_schema_audit.audit import diff_report, locate_sources

    settings = settings_of(locals())
    limits = run_limits(time_budget, jobs)
    old_snap, new_snap = load_ref(old, settings.store), load_ref(new, settings.store)
    distinct_labels(old_snap, new_snap, old, new, old_label, new_label)
    recording = samples_of(samples)
    (old_snap, new_snap), notes = tool_filter([old_snap, new_snap], settings.tools, settings.exclude_tools)
    with Progress("comparing tools") as bar:
        limits = replace(limits, progress=bar.callback)
        report = diff_report(old_snap, new_snap, settings, limits, samples=recording, traffic=traffic, notes=notes)
    if source_root is not None:
        locate_sources(report, source_root)
    write_output(render_for(report, settings.format, output), output)
    raise typer.Exit(gate_exit(report.passed, settings.format))


_HISTORY_HELP = """Check NEW against every version hosts may still have cached (one cohort per snapshot).

Prints a matrix tools x cached versions (ok / warning / breaking), the conflicts (positions where
two cohorts cache different value sets, so no single value satisfies both) and the findings, one
line each with the cached versions it breaks. Captured snapshots are ordered by capture time,
imported ones by label as a version; when NEW and a stored snapshot of its server differ in that,
name the cached versions with --against (exit 2 otherwise). The config file's [severity], [[ignore]]
and hosts apply to every cohort as they do in diff. Every format of diff works here: markdown suits a
pull-request comment; sarif and github give one result per finding (each once, with the cached
versions it affects), located in NEW's snapshot file; junit has one test case per tool.
"""

NewRelease = Annotated[
    str, typer.Argument(metavar="NEW", help="The release to check: a store label, a file, or git:REF:PATH.")
]
Against = Annotated[
    list[str] | None,
    typer.Option(
        "--against",
        metavar="LABEL",
        help="Cached versions to check against (repeatable); default: every stored snapshot older than NEW.",
    ),
]
Servers = Annotated[list[str] | None, typer.Option("--server", metavar="NAME", help=params.key_help("servers"))]


@command(
    "Check NEW against every version hosts may have cached.", _HISTORY_HELP, exits=gate_exits(live=False, budget=True)
)
def history(
    new: NewRelease,
    against: Against = None,
    server: Servers = None,
    fmt: params.Format = None,
    fail_on: params.FailOn = None,
    host: params.Hosts = None,
    server_validator: params.ServerValidator = None,
    severity: params.Severity = None,
    tool: params.Tools = None,
    exclude_tool: params.ExcludeTools = None,
    config: params.Config = None,
    store: params.Store = None,
    output: params.Output = None,
    time_budget: params.TimeBudget = None,
    samples: params.Samples = None,
    traffic: params.Traffic = None,
    traffic_threshold: params.TrafficThreshold = None,
    jobs: params.Jobs = None,
    version_gate: params.VersionGate = None,
) -> None:
    from mcp_schema_audit.audit import history_report

    settings = settings_of(locals(), config_format=False)
    limits = run_limits(time_budget, jobs)
    new_snap = load_ref(new, settings.store)
    recording = samples_of(samples)
    cohorts, left_out = _cohorts(new_snap, against or [], settings, bool(server))
    (new_snap, *cohorts), notes = tool_filter([new_snap, *cohorts], settings.tools, settings.exclude_tools)
    with Progress("comparing tools") as bar:
        limits = replace(limits, progress=bar.callback)
        hist = history_report(
            new_snap, cohorts, settings, limits, samples=recording, traffic=traffic or [], notes=left_out + notes
        )
    write_output(render_for(hist, settings.format, output), output)
    raise typer.Exit(gate_exit(hist.passed, settings.format))


def _cohorts(new: Any, against: list[str], settings: Any, server_flag: bool) -> tuple[list[Any], list[str]]:
    """The cached versions to check NEW against, and the report's note on the stored snapshots left out:
    ``--against`` (ordered), else the store's versions of NEW's server (``settings.servers``: the names that
    count as it; the snapshots of other names left out are named on stderr and in the note). A first release (no
    cohort) ends the run here with exit 0. Raises ``UsageError`` for two versions of one label, an undecidable
    order, ``--server`` beside ``--against``, and a store holding other names with no ``--server`` chosen."""
    from mcp_schema_audit.history import check_labels, cohorts_of, left_out_note, order_snapshots, unmatched_servers

    store, notes = settings.store, []
    if against and server_flag:
        raise UsageError("--server chooses among the store's snapshots: it does not apply with --against")
    if against:
        cohorts = order_snapshots([load_ref(a, store) for a in against])
    else:
        cohorts, skipped = cohorts_of(new, store, settings.servers)
        for glob in unmatched_servers(settings.servers or (), [new, *cohorts, *skipped]):
            err(f"warning: --server {glob!r} matches no server name in the store")
        if skipped:
            notes.append(left_out_note(new, skipped))
            err(notes[-1])
    check_labels(new, cohorts)
    if not cohorts:
        # a first release: no host can have cached an older version, so there is nothing that can break
        err(
            f"nothing to check: the store ({store}) holds no version older than {new.label!r} "
            "(a first release; name cached versions with --against)"
        )
        raise typer.Exit(int(ExitCode.OK))
    return cohorts, notes


_LINT_HELP = """Hazard lint: what will break cached hosts at the next release, before any diff.

Closed output objects and output enums/consts (warning), listing-time breakers and schemas invalid
against their dialect (breaking), 2020-12-only keywords that draft-07 hosts ignore (warning), and
with --baseline every output required set that differs from the baseline's. With --host naming hosts
and model providers (openai-strict, openai, gemini, anthropic, claude-code, vscode, cursor), each tool
unusable there (breaking) or degraded there (warning), and the matrix of tools x hosts. Entries of
[[allow]] in the config file (rule/tool/pointer patterns with a reason) silence hazards.
"""

Snapshots = Annotated[
    list[str], typer.Argument(metavar="SNAPSHOT...", help="Snapshots to lint: store labels, files or git:REF:PATH.")
]
Baseline = Annotated[
    str | None,
    typer.Option(
        "--baseline",
        metavar="LABEL",
        help="Require output required sets to equal this snapshot's (e.g. the version whose required set is frozen).",
    ),
]
LintFormat = Annotated[
    str | None,
    typer.Option(
        "--format",
        "-f",
        metavar="FORMAT",
        help=formats_help() + ". Default: text, or the config "
        "file's format. Formats other than text and github take one snapshot at a time.",
    ),
]


@command(
    "Find what will break cached hosts at the next release.", _LINT_HELP, exits=gate_exits(live=False, budget=False)
)
def lint(
    snapshots: Snapshots,
    baseline: Baseline = None,
    fmt: LintFormat = None,
    fail_on: params.FailOn = None,
    host: params.Hosts = None,
    severity: params.Severity = None,
    tool: params.Tools = None,
    exclude_tool: params.ExcludeTools = None,
    config: params.Config = None,
    store: params.Store = None,
    output: params.Output = None,
) -> None:
    from mcp_schema_audit.audit import lint_report

    settings = settings_of(locals())
    if len(snapshots) > 1 and settings.format not in ("text", "github"):
        where = "" if fmt else " (the config file's format)"
        raise UsageError(
            f"--format {settings.format}{where} takes one snapshot at a time (got {len(snapshots)}); use text or github"
        )
    base = load_ref(baseline, settings.store) if baseline else None
    snaps = [load_ref(ref, settings.store) for ref in snapshots]
    filtered, notes = tool_filter(snaps + ([base] if base else []), settings.tools, settings.exclude_tools)
    snaps, base = filtered[: len(snaps)], (filtered[-1] if base else None)
    reports = [lint_report(snap, settings, baseline=base, notes=notes) for snap in snaps]
    write_output("".join(render_for(report, settings.format, output) for report in reports), output)
    raise typer.Exit(gate_exit(all(report.passed for report in reports), settings.format))
