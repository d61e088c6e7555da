"""``probe``: call a server's tools and check the real results against its own and every cached outputSchema.

The command parses its options into a ``ProbeRun``, checks their combination, gets the call records (from a live
server through ``capture.calls.probe_server``, or from a ``--replay`` recording), has the audit core judge them
(``audit.probe_report``), renders and exits with the gate's code.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Annotated, Any

import typer

from mcp_schema_audit.cli import params, source
from mcp_schema_audit.cli.app import command, gate_exits, run_started
from mcp_schema_audit.cli.common import err, gate_exit, quiet_sdk_logs, render_for, settings_of, write_output
from mcp_schema_audit.errors import ExitCode, UsageError
from mcp_schema_audit.report.formats import formats_help
from mcp_schema_audit.vocabulary import UNMADE_OUTCOMES
from mcp_schema_audit.words import plural

_PROBE_HELP = """Call the server's tools and check what it really returns, against its own outputSchema and every
cached one.

Nothing is called that --calls does not list or --auto does not allow. Each real structuredContent is
checked per host profile (python-sdk, ts-sdk-v1, ts-sdk-v2) as that SDK client would: against the
tool's current outputSchema (result-violates-own-schema, result-missing-structured-content) and against
each --against version (result-rejected-by-cached-schema: the proof that a release breaks cached hosts).
Tool errors, JSON-RPC errors and timeouts are info findings; a server that exits or breaks the protocol
is exit 3.

Examples:

\b
  schema-audit probe --calls probe-calls.json -- node dist/index.js
  schema-audit probe --auto --dry-run --url http://127.0.0.1:8000/mcp
  schema-audit probe --calls probe-calls.json --against v0.2.5 --record run.json -- python server.py
  schema-audit probe --replay run.json --against v0.2.6 --format markdown
  schema-audit probe --calls probe-calls.json --against v1-run.json -- python server.py
"""

Calls = Annotated[
    Path | None,
    typer.Option(
        "--calls",
        metavar="FILE",
        help='The calls to make: {"calls": [{"tool": "get_chart", "arguments": '
        '{...}, "id": "optional name"}]}. Only listed tools are called.',
    ),
]
Auto = Annotated[
    bool,
    typer.Option(
        "--auto",
        help="Also call tools annotated readOnlyHint: true (and not destructiveHint: true) whose "
        "required arguments can all be filled from the schema's own const, single-value enum, default or "
        "examples; nothing else.",
    ),
]
DryRun = Annotated[
    bool,
    typer.Option(
        "--dry-run", help="Connect and list the tools, print the plan (tool, arguments, why) and call nothing."
    ),
]
Against = Annotated[
    list[str] | None,
    typer.Option(
        "--against",
        metavar="SNAPSHOT",
        help="A cached version to check every real result against, as "
        "hosts holding it would: a store label, a snapshot file or git:REF:PATH (repeatable). A probe recording "
        "(--record) of that version also compares its calls: one that completed there and answers "
        "input_required now is breaking.",
    ),
]
Record = Annotated[
    Path | None,
    typer.Option(
        "--record",
        metavar="FILE",
        help="Write what was seen (the listing and every call's raw result) to "
        "FILE: canonical JSON, atomically. It holds real results.",
    ),
]
Replay = Annotated[
    Path | None,
    typer.Option(
        "--replay", metavar="FILE", help="Check a recording again without a server (e.g. against a newer --against)."
    ),
]
Label = Annotated[
    str | None,
    typer.Option(
        "--label",
        "-l",
        metavar="LABEL",
        help="Name of the probed version in the report (default: live; a recording's own label with --replay).",
    ),
]
CallTimeout = Annotated[
    float,
    typer.Option(
        "--call-timeout",
        min=0.1,
        callback=source.at_most_a_day,
        metavar="SECONDS",
        help="Seconds each call may take; --timeout bounds the whole run.",
    ),
]
ProbeFormat = Annotated[
    str | None,
    typer.Option(
        "--format",
        "-f",
        metavar="FORMAT",
        help=formats_help() + ". Default: text, or the config file's format. With --dry-run: text or json (the plan).",
    ),
]
ProbeStore = Annotated[
    Path | None,
    typer.Option(
        "--store",
        metavar="DIR",
        help="Snapshot store folder for --against labels (default: the config file's store, else .schema-audit).",
    ),
]
ProbeOutput = Annotated[
    str | None,
    typer.Option(
        "--out",
        "--output",
        "-o",
        metavar="FILE",
        help="Write the report (or the --dry-run plan) to this file (atomically; -o and --out too).",
    ),
]


@dataclass(frozen=True)
class ProbeRun:
    """What ``probe`` was asked to do besides the server and the policy: the calls file, ``--auto``, ``--dry-run``,
    ``--record``/``--replay`` files, the probed version's label and the seconds each call may take."""

    calls: Path | None = None
    auto: bool = False
    dry_run: bool = False
    record: Path | None = None
    replay: Path | None = None
    label: str | None = None
    call_timeout: float = 30.0

    @classmethod
    def of(cls, options: dict[str, Any]) -> ProbeRun:
        """The run ``probe``'s parameters describe (``locals()`` of the command function)."""
        return cls(**{f.name: options[f.name] for f in fields(cls)})


@command(
    "Call the server's tools and check their real results.", _PROBE_HELP, exits=gate_exits(live=True, budget=False)
)
def probe(
    command: source.ServerCommand = None,
    calls: Calls = None,
    auto: Auto = False,
    dry_run: DryRun = False,
    against: Against = None,
    record: Record = None,
    replay: Replay = None,
    label: Label = None,
    call_timeout: CallTimeout = 30.0,
    url: source.Url = None,
    sse: source.Sse = None,
    header: source.Header = None,
    header_env: source.HeaderEnv = None,
    env: source.Env = None,
    cwd: source.Cwd = None,
    protocol: source.Protocol = "auto",
    timeout: source.Timeout = 60.0,
    max_pages: source.MaxPages = 1000,
    fmt: ProbeFormat = None,
    fail_on: params.FailOn = None,
    host: params.Hosts = None,
    severity: params.Severity = None,
    config: params.Config = None,
    store: ProbeStore = None,
    output: ProbeOutput = None,
    verbose: source.Verbose = False,
) -> None:
    options = locals()
    settings = settings_of(options, formats=("text", "json") if dry_run else None, config_format=not dry_run)
    server, run = source.ServerSource.of(options), ProbeRun.of(options)
    _check(run, server)
    report = _probe_report(run, server, _against(against or [], settings.store), settings, output)
    write_output(render_for(report, settings.format, output), output)
    raise typer.Exit(gate_exit(report.passed, settings.format))


def _check(run: ProbeRun, server: source.ServerSource) -> None:
    """``UsageError`` for a combination of options that does not make a probe."""
    if run.replay is not None:
        if server.live:
            raise UsageError("--replay checks a recording without a server: drop the server command/--url/--sse")
        for flag, given in (
            ("--calls", run.calls),
            ("--auto", run.auto),
            ("--dry-run", run.dry_run),
            ("--record", run.record),
        ):
            if given:
                raise UsageError(f"{flag} does not apply to --replay (a recording is checked as it was recorded)")
    else:
        if not server.live:
            raise UsageError("give a server to probe (-- SERVER_COMMAND..., --url or --sse) or --replay FILE")
        if run.calls is None and not run.auto:
            raise UsageError("nothing to call: give --calls FILE and/or --auto")
        source.check_protocol(server.protocol)
    if run.label is not None:
        from mcp_schema_audit.snapshot import check_label

        check_label(run.label)


def _against(refs: list[str], store: Path) -> tuple[list[Any], list[tuple[str, list[dict[str, Any]]]]]:
    """The ``--against`` versions (``probe.recording.load_against``): their snapshots, and the call records of those
    given as probe recordings, by label."""
    from mcp_schema_audit.probe.recording import load_against

    cached, previous = [], []
    for ref in refs:
        snap, calls = load_against(ref, store)
        cached.append(snap)
        if calls is not None:
            previous.append((snap.label, calls))
    return cached, previous


def _probe_report(
    run: ProbeRun,
    server: source.ServerSource,
    against: tuple[list[Any], list[tuple[str, list[dict[str, Any]]]]],
    settings: Any,
    output: str | None,
) -> Any:
    """The judged probe: the call records of a replay or of a live run (``--dry-run`` prints the plan and ends the
    run with exit 0 here), then ``audit.probe_report`` against ``against`` (``_against``); one line on stderr of
    what was made and checked."""
    from mcp_schema_audit.audit import probe_report
    from mcp_schema_audit.probe.plan import load_calls_file

    cached, previous = against
    labels = [c.label for c in cached]
    if len(set(labels)) != len(labels):
        twice = sorted({x for x in labels if labels.count(x) > 1})
        raise UsageError(
            f"two --against versions carry the same label ({', '.join(map(repr, twice))}): give the "
            "snapshots distinct labels"
        )
    listed = load_calls_file(run.calls) if run.calls is not None else []
    skipped: list[dict[str, str]] = []
    artifact: str | None
    if run.replay is not None:
        listing, records, artifact = _replayed(run)
    else:
        listing, records = _live(run, server, listed, skipped, settings, output)
        artifact = str(run.calls) if run.calls is not None else (str(run.record) if run.record is not None else None)
    report = probe_report(
        listing,
        records,
        cached,
        settings,
        artifact=artifact,
        skipped=None if run.replay is not None else skipped,
        auto=run.auto,
        previous=previous,
    )
    made = sum(1 for c in report.calls if c.get("outcome") not in UNMADE_OUTCOMES)
    checked = sum(1 for c in report.calls if c.get("checked"))
    left_out = f"; --auto left out {plural(len(skipped), 'tool')}" if run.auto and run.replay is None else ""
    err(f"{plural(made, 'call')} made, {checked} checked against an outputSchema{left_out}")
    if output is not None:  # else the report on the terminal names each one (its notes): said once, not twice
        _explain_skipped(skipped if run.auto and run.replay is None else [])
    return report


#: Tools ``--auto`` left out that are named on stderr, one line each (``--dry-run`` lists them all).
SKIPPED_SHOWN = 20


def _explain_skipped(skipped: list[dict[str, str]]) -> None:
    """One line per tool ``--auto`` left out: why, and what to add (at most ``SKIPPED_SHOWN``)."""
    from mcp_schema_audit.probe.plan import skip_line

    for skip in skipped[:SKIPPED_SHOWN]:
        err(f"--auto left out{skip_line(skip)[1:]}")
    if len(skipped) > SKIPPED_SHOWN:
        err(f"--auto left out {len(skipped) - SKIPPED_SHOWN} more (probe --auto --dry-run lists every one)")


def _replayed(run: ProbeRun) -> tuple[Any, list[dict[str, Any]], str]:
    """``(listing, call records, artifact)`` of the ``--replay`` recording (its label replaced by ``--label``)."""
    from mcp_schema_audit.probe import load_recording

    assert run.replay is not None
    rec = load_recording(run.replay)
    if run.label is not None:
        rec.snapshot.label = run.label
    return rec.snapshot, rec.calls, str(run.replay)


def _live(
    run: ProbeRun,
    server: source.ServerSource,
    listed: list[Any],
    skipped: list[dict[str, str]],
    settings: Any,
    output: str | None,
) -> tuple[Any, list[dict[str, Any]]]:
    """``(listing, call records)`` of a live probe: connect, list, plan (``listed`` calls and ``--auto``; what
    ``--auto`` leaves out goes to ``skipped``), call; ``--record`` writes the recording. With ``--dry-run`` the plan
    is written and the run ends (exit 0)."""
    from mcp_schema_audit.capture.calls import probe_server
    from mcp_schema_audit.probe.plan import plan_calls, render_plan

    quiet_sdk_logs(server.verbose)
    target, where = server.target()

    def plan(snapshot: Any) -> list[Any]:
        chosen, left_out = plan_calls(snapshot, listed, auto=run.auto)
        skipped.extend(left_out)
        return chosen

    err(f"probing {where} …")
    with source.server_output_shown(server.verbose):
        listing, planned, records = probe_server(
            target,
            plan,
            label=run.label or "live",
            protocol=server.protocol,
            timeout_s=server.timeout,
            call_timeout_s=run.call_timeout,
            max_pages=server.max_pages,
            dry_run=run.dry_run,
            clock_started=run_started(),
        )
    if run.dry_run:
        write_output(render_plan(planned, skipped, settings.format), output)
        raise typer.Exit(int(ExitCode.OK))
    if run.record is not None:
        _write_recording(run.record, listing, records)
    return listing, records


def _write_recording(path: Path, listing: Any, records: list[dict[str, Any]]) -> None:
    """Write the run's recording (see ``probe.recording``); progress line on stderr."""
    import importlib.metadata

    from mcp_schema_audit import __version__
    from mcp_schema_audit.errors import CaptureError, InputError
    from mcp_schema_audit.probe import Recording, write_recording

    try:
        sdk: str | None = importlib.metadata.version("mcp")
    except importlib.metadata.PackageNotFoundError:
        sdk = None
    meta = {
        "recorded_at": listing.meta.get("captured_at"),
        "schema_audit_version": __version__,
        "sdk_version": sdk,
        "pages": listing.meta.get("pages"),
    }
    try:
        write_recording(Recording(snapshot=listing, calls=records, meta=meta), path)
    except InputError as exc:  # the server sent what JSON cannot carry (NaN, a lone surrogate, deep nesting)
        raise CaptureError(f"cannot record the results in {path}: {exc.one_line()}") from None
    err(f"wrote {path} ({len(records)} call{'s' if len(records) != 1 else ''}; it holds real results)")
