"""``snapshot`` and ``demo``: the commands that start or reach an MCP server."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import typer

from mcp_schema_audit import __version__
from mcp_schema_audit.cli import source
from mcp_schema_audit.cli.app import _command, _err, _guarded, run_started
from mcp_schema_audit.cli.options import (
    _CONFIG_HELP_SHORT,
    _quiet_sdk_logs,
    _settings,
    _write_output,
    run_diff,
)
from mcp_schema_audit.errors import ExitCode, UsageError
from mcp_schema_audit.snapshot import (
    atomic_write_text,
    canonical_json,
    check_label,
    read_json_file,
    snapshot_from_data,
    store_path,
)
from mcp_schema_audit.words import plural


@_command("Capture what an MCP server lists into a snapshot.")
@_guarded
def snapshot(
    command: list[str] | None = source.SERVER_COMMAND,
    label: str | None = typer.Option(
        None, "--label", "-l", metavar="LABEL", help="Snapshot label, e.g. v0.2.6 (the file name in the store)."
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
    store: Path | None = typer.Option(
        None, "--store", metavar="DIR", help="Snapshot store folder (default .schema-audit)."
    ),
    config: Path | None = typer.Option(None, "--config", metavar="FILE", help=_CONFIG_HELP_SHORT),
    out: str | None = typer.Option(
        None, "--out", "-o", metavar="FILE", help="Write the snapshot to this file ('-' = stdout) instead of the store."
    ),
    from_file: Path | None = typer.Option(
        None,
        "--from-file",
        metavar="FILE",
        help=(
            'Import a tools/list result instead of capturing: {"tools": [...]}, a JSON-RPC response, '
            "or MCP Inspector CLI JSON; prompts, resources, resourceTemplates, capabilities and instructions "
            "beside tools are kept too."
        ),
    ),
    verbose: bool = source.VERBOSE,
    force: bool = typer.Option(
        False,
        "--force",
        help=(
            "Replace an existing snapshot: the label's file in the store, or the --out file. Without it, "
            "an existing one is an error (exit 2) and nothing is captured."
        ),
    ),
) -> None:
    """Capture what an MCP server advertises (stdio, Streamable HTTP or SSE) into a snapshot: tools/list, and
    prompts/list, resources/list, resources/templates/list when it advertises them, its capabilities and
    instructions.

    A label already in the store (or an existing --out FILE) is never replaced without --force.

    Examples:

    \b
      schema-audit snapshot --label v0.2.6 -- node dist/index.js
      schema-audit snapshot --label v0.2.6 --url http://127.0.0.1:8000/mcp --header-env 'Authorization=MCP_TOKEN'
      schema-audit snapshot --label v0.2.5 --from-file tools-list.json
    """
    store = _settings(config, None, None, [], [], store)["store"]
    if out is not None and not out.strip():
        raise UsageError("--out needs a file name (or - for stdout)")
    sources = [x for x in (bool(command), url, sse, from_file) if x]
    if len(sources) != 1:
        raise UsageError("give exactly one source: -- SERVER_COMMAND..., --url, --sse or --from-file")
    source.check_protocol(protocol)
    if label is not None:
        check_label(label)
    elif out is None:
        raise UsageError("--label is required when writing into the store (or use --out FILE)")
    target_path = Path(out) if out not in (None, "-") else None
    dest = target_path if out is not None else store_path(store, label or "")
    if dest is not None and not force and (dest.exists() or dest.is_symlink()):
        # checked before capturing: a release's snapshot is the baseline hosts cached; never lose it by accident
        what = f"snapshot {label!r} already exists in the store ({dest})" if out is None else f"{dest} already exists"
        raise UsageError(f"{what}; pass --force to replace it")
    if from_file is not None:
        snap = snapshot_from_data(read_json_file(from_file), source=str(from_file), label=label)
        snap.meta = {**snap.meta, "imported_from": from_file.name, "schema_audit_version": __version__}
    else:
        from mcp_schema_audit.capture import capture

        _quiet_sdk_logs(verbose)
        target, where = source.build_target(command, url, sse, header, header_env, env, cwd)
        _err(f"capturing tools, prompts, resources and resource templates from {where} …")
        snap = capture(
            target,
            label=label or "snapshot",
            protocol=protocol,
            timeout_s=timeout,
            max_pages=max_pages,
            clock_started=run_started(),
        )
    text = canonical_json(snap.to_json(), "the snapshot to stdout" if out == "-" else str(dest))
    if out == "-":
        _write_output(text, "-")
        return
    atomic_write_text(dest, text, exclusive=not force)
    proto = snap.protocol_version or "unknown protocol"
    counts = [plural(len(snap.tools), "tool")] + [
        plural(len(getattr(snap, s)), w)
        for s, w in (("prompts", "prompt"), ("resources", "resource"), ("resource_templates", "resource template"))
        if getattr(snap, s) is not None
    ]
    _err(f"wrote {dest} ({', '.join(counts)}, {proto})")


@_command("Run the whole pipeline on the bundled mail server.")
@_guarded
def demo(
    fail_on: str = typer.Option(
        "never", "--fail-on", metavar="LEVEL", help="Gate for the demo's exit code (never: always exit 0)."
    ),
    keep: Path | None = typer.Option(
        None, "--keep", metavar="DIR", help="Keep the demo snapshots in this store folder."
    ),
    timeout: float = typer.Option(
        60.0, "--timeout", min=1.0, callback=source.at_most_a_day, metavar="SECONDS", help="Seconds per capture."
    ),
    force: bool = typer.Option(False, "--force", help="With --keep: replace snapshots v1/v2 already in DIR."),
) -> None:
    """Run the whole pipeline on the bundled mail server: snapshot v1 and v2 over stdio, diff them, then probe v2.

    The probe calls v2's read-only tools (--auto) and checks the real results against v2's own schemas and
    v1's cached ones: mailbox_stats breaks its own closed schema, get_message and wait_for_message break
    hosts that cached v1.
    """
    from mcp_schema_audit.capture import CaptureTarget, capture
    from mcp_schema_audit.capture.calls import probe_server
    from mcp_schema_audit.cli.probe_cmds import run_probe
    from mcp_schema_audit.probe.plan import plan_calls
    from mcp_schema_audit.report import FAIL_ON, render_text

    if fail_on not in FAIL_ON:
        raise UsageError(f"--fail-on must be one of {', '.join(FAIL_ON)} (got {fail_on!r})")
    if keep is not None and not force:
        for label in ("v1", "v2"):
            if store_path(keep, label).exists():
                raise UsageError(
                    f"snapshot {label!r} already exists in the store ({store_path(keep, label)}); "
                    "pass --force to replace it, or --keep another folder"
                )
    store = keep if keep is not None else Path(tempfile.mkdtemp(prefix="schema-audit-demo-"))
    snaps = []
    _quiet_sdk_logs(False)
    try:
        for version in ("1", "2"):
            label = f"v{version}"
            cmd = [sys.executable, "-m", "mcp_schema_audit.demo_server.mail_server", "--version", version]
            _err(f"snapshot {label}: python {' '.join(cmd[1:])}")
            t0 = time.monotonic()
            snap = capture(CaptureTarget("stdio", command=cmd), label=label, protocol="auto", timeout_s=timeout)
            atomic_write_text(store_path(store, label), canonical_json(snap.to_json(), str(store_path(store, label))))
            _err(
                f"  {plural(len(snap.tools), 'tool')}, protocol {snap.protocol_version}, {time.monotonic() - t0:.1f} s"
            )
            snaps.append(snap)
        report = run_diff(snaps[0], snaps[1], fail_on=fail_on)
        tty = sys.stdout.isatty()
        color, width = tty and "NO_COLOR" not in os.environ, shutil.get_terminal_size((120, 24)).columns if tty else 120
        sys.stdout.write(render_text(report, color=color, width=width))
        cmd = [sys.executable, "-m", "mcp_schema_audit.demo_server.mail_server", "--version", "2"]
        _err("probe v2 --auto --against v1: python " + " ".join(cmd[1:]))
        t0 = time.monotonic()
        listing, _planned, records = probe_server(
            CaptureTarget("stdio", command=cmd),
            lambda snap: plan_calls(snap, [], auto=True)[0],
            label="v2",
            protocol="auto",
            timeout_s=timeout,
        )
        _err(f"  {len(records)} calls, {time.monotonic() - t0:.1f} s")
        probed = run_probe(listing, records, [snaps[0]], fail_on=fail_on)
        sys.stdout.write("\n" + render_text(probed, color=color, width=width))
        if keep is not None:
            _err(f"snapshots kept in {store}/snapshots; try: schema-audit diff --store {store} v1 v2 --format json")
    finally:
        if keep is None:
            shutil.rmtree(store, ignore_errors=True)
    raise typer.Exit(int(ExitCode.OK if report.passed and probed.passed else ExitCode.GATE_FAILED))
