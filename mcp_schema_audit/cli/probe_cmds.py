"""``probe``: call a server's tools and check the real results against its own and every cached outputSchema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from mcp_schema_audit.cli import source
from mcp_schema_audit.cli.app import _command, _err, _guarded, run_started
from mcp_schema_audit.cli.options import (
    _CONFIG_HELP,
    _FORMATS_HELP,
    _HOST_HELP,
    _SEVERITY_HELP,
    _load,
    _quiet_sdk_logs,
    _render,
    _settings,
    _write_output,
)
from mcp_schema_audit.errors import ExitCode, UsageError
from mcp_schema_audit.words import plural

_CALL_TIMEOUT_S = 30.0


@_command("Call the server's tools and check their real results.")
@_guarded
def probe(
    command: list[str] | None = source.SERVER_COMMAND,
    calls: Path | None = typer.Option(
        None,
        "--calls",
        metavar="FILE",
        help=(
            'The calls to make: {"calls": [{"tool": "get_chart", "arguments": {...}, "id": "optional name"}]}. '
            "Only listed tools are called."
        ),
    ),
    auto: bool = typer.Option(
        False,
        "--auto",
        help=(
            "Also call tools annotated readOnlyHint: true (and not destructiveHint: true) whose required arguments "
            "can all be filled from the schema's own const, single-value enum, default or examples; nothing else."
        ),
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help=("Connect and list the tools, print the plan (tool, arguments, why) and call nothing.")
    ),
    against: list[str] = typer.Option(
        [],
        "--against",
        metavar="SNAPSHOT",
        help=(
            "A cached version to check every real result against, as hosts holding it would: a store label, a "
            "snapshot file or git:REF:PATH (repeatable)."
        ),
    ),
    record: Path | None = typer.Option(
        None,
        "--record",
        metavar="FILE",
        help=(
            "Write what was seen (the listing and every call's raw result) to FILE: canonical JSON, atomically. "
            "It holds real results."
        ),
    ),
    replay: Path | None = typer.Option(
        None,
        "--replay",
        metavar="FILE",
        help=("Check a recording again without a server (e.g. against a newer --against)."),
    ),
    label: str | None = typer.Option(
        None,
        "--label",
        "-l",
        metavar="LABEL",
        help=("Name of the probed version in the report (default: live; a recording's own label with --replay)."),
    ),
    call_timeout: float = typer.Option(
        _CALL_TIMEOUT_S,
        "--call-timeout",
        min=0.1,
        callback=source.at_most_a_day,
        metavar="SECONDS",
        help="Seconds each call may take; --timeout bounds the whole run.",
    ),
    url: str | None = source.URL,
    sse: str | None = source.SSE,
    header: list[str] = source.HEADER,
    header_env: list[str] = source.HEADER_ENV,
    env: list[str] = source.ENV,
    cwd: Path | None = source.CWD,
    protocol: str = source.PROTOCOL,
    timeout: float = source.TIMEOUT,
    max_pages: int = source.MAX_PAGES,
    fmt: str | None = typer.Option(
        None, "--format", "-f", metavar="FORMAT", help=_FORMATS_HELP + (" With --dry-run: text or json (the plan).")
    ),
    fail_on: str | None = typer.Option(
        None,
        "--fail-on",
        metavar="LEVEL",
        help=("breaking | warning | info | never: exit 1 when a finding is at or above it (default breaking)."),
    ),
    host: list[str] = typer.Option([], "--host", metavar="NAME", help=_HOST_HELP),
    severity: list[str] = typer.Option([], "--severity", metavar="RULE=LEVEL", help=_SEVERITY_HELP),
    config: Path | None = typer.Option(None, "--config", metavar="FILE", help=_CONFIG_HELP),
    store: Path | None = typer.Option(
        None, "--store", metavar="DIR", help="Snapshot store folder for --against labels (default .schema-audit)."
    ),
    output: str | None = typer.Option(
        None, "--output", metavar="FILE", help="Write the report (or the --dry-run plan) to this file (atomically)."
    ),
    verbose: bool = source.VERBOSE,
) -> None:
    """Call the server's tools and check what it really returns, against its own outputSchema and every cached one.

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
    """
    from mcp_schema_audit.policy import REPORT_FORMATS
    from mcp_schema_audit.probe import load_recording
    from mcp_schema_audit.probe.plan import load_calls_file, plan_calls, render_plan

    formats = ("text", "json") if dry_run else REPORT_FORMATS
    opts = _settings(config, fail_on, None, host, severity, store, fmt=fmt, formats=formats, config_format=not dry_run)
    live = source.has_server(command, url, sse)
    if replay is not None:
        if live:
            raise UsageError("--replay checks a recording without a server: drop the server command/--url/--sse")
        for flag, given in (("--calls", calls), ("--auto", auto), ("--dry-run", dry_run), ("--record", record)):
            if given:
                raise UsageError(f"{flag} does not apply to --replay (a recording is checked as it was recorded)")
    else:
        if not live:
            raise UsageError("give a server to probe (-- SERVER_COMMAND..., --url or --sse) or --replay FILE")
        if calls is None and not auto:
            raise UsageError("nothing to call: give --calls FILE and/or --auto")
        source.check_protocol(protocol)
    if label is not None:
        from mcp_schema_audit.snapshot import check_label

        check_label(label)
    cached = [_load(ref, opts["store"]) for ref in against]
    labels = [c.label for c in cached]
    if len(set(labels)) != len(labels):
        twice = sorted({x for x in labels if labels.count(x) > 1})
        raise UsageError(
            f"two --against versions carry the same label ({', '.join(map(repr, twice))}): give the "
            "snapshots distinct labels"
        )
    listed = load_calls_file(calls) if calls is not None else []

    if replay is not None:
        rec = load_recording(replay)
        listing, records = rec.snapshot, rec.calls
        if label is not None:
            listing.label = label
        artifact = str(replay)
    else:
        from mcp_schema_audit.capture.calls import probe_server

        _quiet_sdk_logs(verbose)
        target, where = source.build_target(command, url, sse, header, header_env, env, cwd)
        skipped: list[dict[str, str]] = []

        def plan(snapshot: Any) -> list[Any]:
            chosen, left_out = plan_calls(snapshot, listed, auto=auto)
            skipped.extend(left_out)
            return chosen

        _err(f"probing {where} …")
        listing, planned, records = probe_server(
            target,
            plan,
            label=label or "live",
            protocol=protocol,
            timeout_s=timeout,
            call_timeout_s=call_timeout,
            max_pages=max_pages,
            dry_run=dry_run,
            clock_started=run_started(),
        )
        if dry_run:
            _write_output(render_plan(planned, skipped, opts["format"]), output)
            raise typer.Exit(int(ExitCode.OK))
        artifact = str(calls) if calls is not None else (str(record) if record is not None else None)
        if record is not None:
            _write_recording(record, listing, records)
    report = run_probe(
        listing,
        records,
        cached,
        fail_on=opts["fail_on"],
        hosts=opts["hosts"],
        severity=opts["severity"],
        ignore=opts["config"].ignore,
        artifact=artifact,
        skipped=None if replay is not None else skipped,
        auto=auto,
    )
    made = sum(1 for c in report.calls if c.get("outcome") != "not-called")
    checked = sum(1 for c in report.calls if c.get("checked"))
    _err(
        f"{plural(made, 'call')} made, {checked} checked against an outputSchema"
        + (f"; --auto left out {plural(len(skipped), 'tool')}" if auto and replay is None else "")
    )
    fmt = opts["format"]
    _write_output(_render(report, fmt, output), output)
    raise typer.Exit(int(ExitCode.OK if report.passed or fmt == "ignore" else ExitCode.GATE_FAILED))


def run_probe(
    listing: Any,
    records: list[dict[str, Any]],
    cached: list[Any],
    *,
    fail_on: str = "breaking",
    hosts: list[str] | None = None,
    severity: dict[str, str] | None = None,
    ignore: list[Any] | None = None,
    artifact: str | None = None,
    skipped: list[dict[str, str]] | None = None,
    auto: bool = False,
) -> Any:
    """The probe ``Report`` of call ``records`` made on the server whose listing is ``listing``: findings
    (``probe.check_records`` against the listing and each ``cached`` snapshot), then policy (hosts, severity,
    ignore list), the calls summarized (each with ``checked``: its result was held against an outputSchema),
    run-level notes. When no call's result was checked, a ``probe-nothing-checked`` warning says why and what
    to do (``skipped``/``auto``: the tools ``--auto`` left out). ``artifact``: the calls file or recording that
    SARIF and GitHub annotations point at."""
    from mcp_schema_audit.policy import apply_policy
    from mcp_schema_audit.probe import call_summary, check_records
    from mcp_schema_audit.probe.check import checked_calls, nothing_checked
    from mcp_schema_audit.report import Report
    from mcp_schema_audit.schema import HOST_PROFILES

    checked = checked_calls(listing, records, cached)
    calls = [{**call_summary(r), "checked": str(r.get("id")) in checked} for r in records]
    findings = check_records(listing, records, cached)
    if not checked:
        findings.append(nothing_checked(calls, skipped=skipped, auto=auto))
    result = apply_policy(findings, severity=severity, hosts=hosts, ignore=ignore)
    return Report(
        old=None,
        new=listing,
        findings=result.findings,
        fail_on=fail_on,
        notes=_notes(listing, cached, records),
        mode="backward",
        hosts=list(hosts) if hosts else list(HOST_PROFILES),
        ignored=result.ignored,
        expired_ignores=result.expired,
        kind="probe",
        cached=list(cached),
        calls=calls,
        artifact=artifact,
    )


def _write_recording(path: Path, listing: Any, records: list[dict[str, Any]]) -> None:
    """Write the run's recording (see ``probe.recording``); progress line on stderr."""
    import importlib.metadata

    from mcp_schema_audit import __version__
    from mcp_schema_audit.probe import Recording, write_recording

    try:
        sdk = importlib.metadata.version("mcp")
    except importlib.metadata.PackageNotFoundError:
        sdk = None
    meta = {
        "recorded_at": listing.meta.get("captured_at"),
        "schema_audit_version": __version__,
        "sdk_version": sdk,
        "pages": listing.meta.get("pages"),
    }
    from mcp_schema_audit.errors import CaptureError, InputError

    try:
        write_recording(Recording(snapshot=listing, calls=records, meta=meta), path)
    except InputError as exc:  # the server sent what JSON cannot carry (NaN, a lone surrogate, deep nesting)
        raise CaptureError(f"cannot record the results in {path}: {exc.one_line()}") from None
    _err(f"wrote {path} ({len(records)} call{'s' if len(records) != 1 else ''}; it holds real results)")


def _notes(listing: Any, cached: list[Any], records: list[dict[str, Any]]) -> list[str]:
    """Run-level remarks: cached versions of another protocol era or another server, cached versions against which
    no result was checked (none of the tools that returned a result has an outputSchema there)."""
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
