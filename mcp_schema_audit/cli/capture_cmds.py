"""``snapshot`` and ``demo``: the commands that start or reach an MCP server."""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from mcp_schema_audit import __version__
from mcp_schema_audit.cli import source
from mcp_schema_audit.cli.app import CAPTURE_EXITS, command, run_started
from mcp_schema_audit.cli.common import descriptor_of, err, quiet_sdk_logs, render_for, resolved, write_output
from mcp_schema_audit.errors import ExitCode, UsageError, not_one_of
from mcp_schema_audit.snapshot import (
    atomic_write_text,
    canonical_json,
    check_label,
    is_label,
    read_json_file,
    snapshot_from_data,
    store_path,
)
from mcp_schema_audit.vocabulary import FAIL_ON
from mcp_schema_audit.words import plural

_SNAPSHOT_HELP = """Capture what an MCP server advertises (stdio, Streamable HTTP or SSE) into a snapshot:
tools/list, and prompts/list, resources/list, resources/templates/list when it advertises them, its capabilities and
instructions.

A label already in the store (or an existing --out FILE) is never replaced without --force.

Examples:

\b
  schema-audit snapshot --label v0.2.6 -- node dist/index.js
  schema-audit snapshot --label v0.2.6 --url http://127.0.0.1:8000/mcp --header-env 'Authorization=MCP_TOKEN'
  schema-audit snapshot --label v0.2.5 --from-file tools-list.json
"""

SnapshotLabel = Annotated[
    str | None,
    typer.Option("--label", "-l", metavar="LABEL", help="Snapshot label, e.g. v0.2.6 (the file name in the store)."),
]
SnapshotStore = Annotated[
    Path | None, typer.Option("--store", metavar="DIR", help="Snapshot store folder (default .schema-audit).")
]
SnapshotConfig = Annotated[
    Path | None, typer.Option("--config", metavar="FILE", help="Config file (its 'store' is the default for --store).")
]
Out = Annotated[
    str | None,
    typer.Option(
        "--out",
        "--output",
        "-o",
        metavar="FILE",
        help="Write the snapshot to this file ('-' = stdout) instead of the store (--output too).",
    ),
]
FromFile = Annotated[
    Path | None,
    typer.Option(
        "--from-file",
        metavar="FILE",
        help='Import a tools/list result instead of capturing: {"tools": '
        "[...]}, a JSON-RPC response, or MCP Inspector CLI JSON; prompts, resources, resourceTemplates, "
        "capabilities and instructions beside tools are kept too.",
    ),
]
Force = Annotated[
    bool,
    typer.Option(
        "--force",
        help="Replace an existing snapshot: the label's file in the store, or the --out file. "
        "Without it, an existing one is an error (exit 2) and nothing is captured.",
    ),
]


@command("Capture what an MCP server lists into a snapshot.", _SNAPSHOT_HELP, exits=CAPTURE_EXITS)
def snapshot(
    command: source.ServerCommand = None,
    label: SnapshotLabel = None,
    url: source.Url = None,
    sse: source.Sse = None,
    header: source.Header = None,
    header_env: source.HeaderEnv = None,
    env: source.Env = None,
    cwd: source.Cwd = None,
    protocol: source.Protocol = "auto",
    timeout: source.Timeout = 60.0,
    max_pages: source.MaxPages = 1000,
    store: SnapshotStore = None,
    config: SnapshotConfig = None,
    out: Out = None,
    from_file: FromFile = None,
    verbose: source.Verbose = False,
    force: Force = False,
) -> None:
    server = source.ServerSource.of(locals())
    store = resolved(config, store=store).store
    dest = _destination(server, from_file, label, out, store, force)
    if from_file is not None:
        snap, started = _imported(from_file, label), time.monotonic()
    else:
        snap, started = _captured(server, label or _file_label(dest))
    _write(snap, dest, out, force, started)


def _file_label(dest: Path | None) -> str:
    """The label of a capture given no ``--label``: the ``--out`` file's name without ``.json`` (``v2.json`` →
    ``v2``, as a raw file is read), so two captures diff and ``history`` as two versions; ``snapshot`` on stdout."""
    stem = dest.name[: -len(".json")] if dest is not None and dest.name.endswith(".json") else ""
    return stem if is_label(stem) else "snapshot"


def _write(snap: Any, dest: Path | None, out: str | None, force: bool, started: float) -> None:
    """Write the snapshot to stdout (``--out -``) or atomically to ``dest`` (never replacing a file unless
    ``force``), then one line on stderr of what it holds (``source.captured``: the time since ``started``)."""
    stream = out is not None and descriptor_of(out) is not None  # -, /dev/stdout, /proc/self/fd/N: a stream
    text = canonical_json(snap.to_json(), "the snapshot to stdout" if stream else str(dest))
    bare = [str(t.get("name")) for t in snap.tools if "inputSchema" not in t]
    if bare:  # kept as listed, but never silently: every SDK client refuses such a listing
        err(
            f"warning: {plural(len(bare), 'tool')} listed without an inputSchema ({', '.join(bare[:5])}"
            f"{', …' if len(bare) > 5 else ''}): MCP requires one, and SDK clients reject the whole tools/list; "
            "`schema-audit lint` reports it"
        )
    if stream:
        write_output(text, out)
        return
    assert dest is not None
    atomic_write_text(dest, text, exclusive=not force)
    source.captured(snap, started, wrote=str(dest))


def _destination(
    server: source.ServerSource, from_file: Path | None, label: str | None, out: str | None, store: Path, force: bool
) -> Path | None:
    """Where the snapshot goes (None: stdout), checked before anything is captured: one source, a label (unless
    ``--out``), no existing file unless ``--force``. Raises ``UsageError``."""
    if out is not None and not out.strip():
        raise UsageError("--out needs a file name (or - for stdout)")
    if len([x for x in (bool(server.command), server.url, server.sse, from_file) if x]) != 1:
        raise UsageError("give exactly one source: -- SERVER_COMMAND..., --url, --sse or --from-file")
    source.check_protocol(server.protocol)
    if label is not None:
        check_label(label)
    elif out is None:
        raise UsageError("--label is required when writing into the store (or use --out FILE)")
    target_path = Path(out) if out is not None and descriptor_of(out) is None else None
    dest = target_path if out is not None else store_path(store, label or "")
    if dest is not None and not force and (dest.exists() or dest.is_symlink()):
        # checked before capturing: a release's snapshot is the baseline hosts cached; never lose it by accident
        what = f"snapshot {label!r} already exists in the store ({dest})" if out is None else f"{dest} already exists"
        raise UsageError(f"{what}; pass --force to replace it")
    return dest


def _imported(from_file: Path, label: str | None) -> Any:
    """The snapshot of a ``tools/list`` file (``--from-file``)."""
    snap = snapshot_from_data(read_json_file(from_file), source=str(from_file), label=label)
    snap.meta = {**snap.meta, "imported_from": from_file.name, "schema_audit_version": __version__}
    return snap


def _captured(server: source.ServerSource, label: str) -> tuple[Any, float]:
    """The snapshot of a live server (``capture.capture``) and when its capture started (``time.monotonic``); a
    progress line on stderr first."""
    from mcp_schema_audit.capture import capture

    quiet_sdk_logs(server.verbose)
    target, where = server.target()
    started = source.capturing(where)
    with source.server_output_shown(server.verbose):
        snap = capture(
            target,
            label=label,
            protocol=server.protocol,
            timeout_s=server.timeout,
            max_pages=server.max_pages,
            clock_started=run_started(),
        )
    return snap, started


_DEMO_HELP = """Run the whole pipeline on the bundled mail server: snapshot v1 and v2 over stdio, diff them,
then probe v2.

The probe calls v2's read-only tools (--auto) and checks the real results against v2's own schemas and
v1's cached ones: mailbox_stats breaks its own closed schema, get_message and wait_for_message break
hosts that cached v1.
"""

DemoFailOn = Annotated[
    str, typer.Option("--fail-on", metavar="LEVEL", help="Gate for the demo's exit code (never: always exit 0).")
]
Keep = Annotated[
    Path | None, typer.Option("--keep", metavar="DIR", help="Keep the demo snapshots in this store folder.")
]
DemoTimeout = Annotated[
    float,
    typer.Option("--timeout", min=1.0, callback=source.at_most_a_day, metavar="SECONDS", help="Seconds per capture."),
]
DemoForce = Annotated[bool, typer.Option("--force", help="With --keep: replace snapshots v1/v2 already in DIR.")]


@command(
    "Run the whole pipeline on the bundled mail server.",
    _DEMO_HELP,
    exits="0 done (whatever the findings, unless --fail-on is set); 1 a finding at or above --fail-on; 2 usage "
    "error (a kept snapshot exists without --force); 3 the bundled server could not be captured; 4 internal error.",
)
def demo(
    fail_on: DemoFailOn = "never", keep: Keep = None, timeout: DemoTimeout = 60.0, force: DemoForce = False
) -> None:
    from mcp_schema_audit.settings import Settings

    if fail_on not in FAIL_ON:
        raise not_one_of("--fail-on", fail_on, FAIL_ON)
    if keep is not None and not force:
        for label in ("v1", "v2"):
            if store_path(keep, label).exists():
                raise UsageError(
                    f"snapshot {label!r} already exists in the store ({store_path(keep, label)}); "
                    "pass --force to replace it, or --keep another folder"
                )
    store = keep if keep is not None else Path(tempfile.mkdtemp(prefix="schema-audit-demo-"))
    quiet_sdk_logs(False)
    try:
        passed = _demo(store, Settings(fail_on=fail_on), timeout)
        if keep is not None:
            err(f"snapshots kept in {store}/snapshots; try: schema-audit diff --store {store} v1 v2 --format json")
    finally:
        if keep is None:
            shutil.rmtree(store, ignore_errors=True)
    raise typer.Exit(int(ExitCode.OK if passed else ExitCode.GATE_FAILED))


def _demo(store: Path, settings: Any, timeout: float) -> bool:
    """Snapshot the mail server's releases 1 and 2 into ``store``, print their diff, probe release 2 against
    release 1 and print that; True when both gates passed."""
    from mcp_schema_audit.audit import diff_report, probe_report
    from mcp_schema_audit.capture import CaptureTarget, capture
    from mcp_schema_audit.capture.calls import probe_server
    from mcp_schema_audit.probe.plan import plan_calls

    snaps = []
    for version in ("1", "2"):
        label = f"v{version}"
        cmd = [sys.executable, "-m", "mcp_schema_audit.demo_server.mail_server", "--version", version]
        started = source.capturing("python " + " ".join(cmd[1:]), label)
        snap = capture(CaptureTarget("stdio", command=cmd), label=label, protocol="auto", timeout_s=timeout)
        atomic_write_text(store_path(store, label), canonical_json(snap.to_json(), str(store_path(store, label))))
        source.captured(snap, started, label)
        snaps.append(snap)
    report = diff_report(snaps[0], snaps[1], settings)
    write_output(render_for(report, "text", None), None)
    cmd = [sys.executable, "-m", "mcp_schema_audit.demo_server.mail_server", "--version", "2"]
    err("v2: probing python " + " ".join(cmd[1:]) + " (--auto, against v1) …")
    t0 = time.monotonic()
    skipped: list[dict[str, str]] = []

    def planned(snap: Any) -> Any:  # --auto's calls, and the tools it leaves out with the reason
        calls, left_out = plan_calls(snap, [], auto=True)
        skipped.extend(left_out)
        return calls

    listing, _planned, records = probe_server(
        CaptureTarget("stdio", command=cmd), planned, label="v2", protocol="auto", timeout_s=timeout
    )
    probed = probe_report(listing, records, [snaps[0]], settings, skipped=skipped, auto=True)
    checked = sum(1 for c in probed.calls if c.get("checked"))
    left_out = f"--auto left out {plural(len(skipped), 'tool')} (the report says why)"
    err(
        f"v2: {plural(len(records), 'call')} made, {checked} checked against an outputSchema; {left_out}; "
        f"{time.monotonic() - t0:.1f} s"
    )
    write_output("\n" + render_for(probed, "text", None), None)
    return report.passed and probed.passed
