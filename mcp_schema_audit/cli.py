"""The ``schema-audit`` command line: parse options, run one stage pipeline, map every error to an exit code.

Exit codes: 0 gate passed · 1 gate failed · 2 usage or input error · 3 capture error · 4 internal error.
The report goes to stdout (or ``--output``); progress and errors go to stderr, one line each.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, List, Optional

import typer

from mcp_schema_audit import __version__
from mcp_schema_audit.errors import ExitCode, SchemaAuditError, UsageError
from mcp_schema_audit.snapshot import (
    DEFAULT_STORE,
    Snapshot,
    atomic_write_text,
    canonical_json,
    check_label,
    load_snapshot,
    read_json_file,
    snapshot_from_data,
    store_path,
)

app = typer.Typer(
    name="schema-audit",
    help="Find MCP tool schema changes that break hosts holding a cached tools/list.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _err(message: str) -> None:
    """One line on stderr, control characters escaped."""
    from mcp_schema_audit.report import inert

    sys.stderr.write(f"schema-audit: {inert(message)}\n")
    sys.stderr.flush()


def _guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run a command body; map SchemaAuditError → its exit code, anything unexpected → 4 (one line)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except SchemaAuditError as exc:
            _err(f"error: {exc.one_line()}")
            raise typer.Exit(int(exc.exit_code)) from None
        except KeyboardInterrupt:
            _err("interrupted")
            raise typer.Exit(130) from None
        except Exception as exc:  # a bug: never a traceback unless asked for
            if os.environ.get("SCHEMA_AUDIT_DEBUG"):
                raise
            _err(f"internal error: {type(exc).__name__}: {' '.join(str(exc).split())[:300]} "
                 "(set SCHEMA_AUDIT_DEBUG=1 for a traceback)")
            raise typer.Exit(int(ExitCode.INTERNAL)) from None

    return wrapper


def _version_callback(value: bool) -> None:
    if value:
        sys.stdout.write(f"schema-audit {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version_callback, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    """Find MCP tool schema changes that break hosts holding a cached tools/list.

    Exit codes: 0 gate passed, 1 gate failed (findings at or above --fail-on),
    2 usage or input error, 3 capture error, 4 internal error.
    """


def _parse_pairs(values: list[str], sep: str, what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in values:
        if sep not in item:
            raise UsageError(f"{what} must look like NAME{sep}VALUE (got an entry without '{sep}')")
        k, v = item.split(sep, 1)
        k, v = k.strip(), v.strip() if sep == ":" else v
        if not k:
            raise UsageError(f"{what} has an empty name")
        out[k] = v
    return out


def _write_output(text: str, out: Optional[str]) -> None:
    if out in (None, "-"):
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        atomic_write_text(Path(out), text)


@app.command()
@_guarded
def snapshot(
    command: Optional[List[str]] = typer.Argument(
        None, metavar="[-- SERVER_COMMAND...]", show_default=False,
        help="stdio server: everything after -- is the command and its arguments."),
    label: Optional[str] = typer.Option(None, "--label", "-l",
                                        help="Snapshot label, e.g. v0.2.6 (the file name in the store)."),
    url: Optional[str] = typer.Option(None, "--url", help="Streamable HTTP endpoint, e.g. http://127.0.0.1:8000/mcp."),
    sse: Optional[str] = typer.Option(None, "--sse", help="Legacy HTTP+SSE endpoint URL."),
    header: List[str] = typer.Option([], "--header", "-H",
                                     help="HTTP header 'Name: value' (repeatable). Never stored or printed."),
    header_env: List[str] = typer.Option([], "--header-env",
                                         help="HTTP header from the environment: 'Name=ENV_VAR' (repeatable)."),
    env: List[str] = typer.Option([], "--env", "-e", help=(
        "KEY=VALUE for the stdio server (repeatable). The MCP SDK passes the server only HOME, LOGNAME, PATH, "
        "SHELL, TERM and USER from this environment: pass anything else it needs here. Values are never stored.")),
    cwd: Optional[Path] = typer.Option(None, "--cwd", help="Working directory of the stdio server."),
    protocol: str = typer.Option("auto", "--protocol", help=(
        "auto | legacy | 2026-07-28. auto probes server/discover and falls back to the initialize handshake; a "
        "legacy server that ignores unknown requests costs the SDK's 10 s probe timeout (use legacy).")),
    timeout: float = typer.Option(60.0, "--timeout", min=0.1, help="Seconds for the whole capture."),
    max_pages: int = typer.Option(1000, "--max-pages", min=1, help="Give up after this many tools/list pages."),
    store: Path = typer.Option(DEFAULT_STORE, "--store", help="Snapshot store folder."),
    out: Optional[str] = typer.Option(None, "--out", "-o",
                                      help="Write the snapshot to this file ('-' = stdout) instead of the store."),
    from_file: Optional[Path] = typer.Option(None, "--from-file", help=(
        "Import a tools/list result instead of capturing: {\"tools\": [...]}, a JSON-RPC response, "
        "or MCP Inspector CLI JSON.")),
) -> None:
    """Capture tools/list from a running MCP server (stdio, Streamable HTTP or SSE) into a snapshot.

    Examples:
      schema-audit snapshot --label v0.2.6 -- node dist/index.js
      schema-audit snapshot --label v0.2.6 --url http://127.0.0.1:8000/mcp --header-env 'Authorization=MCP_TOKEN'
      schema-audit snapshot --label v0.2.5 --from-file tools-list.json
    """
    sources = [x for x in (bool(command), url, sse, from_file) if x]
    if len(sources) != 1:
        raise UsageError("give exactly one source: -- SERVER_COMMAND..., --url, --sse or --from-file")
    if protocol not in ("auto", "legacy", "2026-07-28"):
        raise UsageError(f"--protocol must be auto, legacy or 2026-07-28 (got {protocol!r})")
    if label is not None:
        check_label(label)
    elif out is None:
        raise UsageError("--label is required when writing into the store (or use --out FILE)")
    target_path = Path(out) if out not in (None, "-") else None
    dest = target_path if out is not None else store_path(store, label or "")
    if from_file is not None:
        snap = snapshot_from_data(read_json_file(from_file), source=str(from_file), label=label)
        snap.meta = {**snap.meta, "imported_from": from_file.name, "schema_audit_version": __version__}
    else:
        from mcp_schema_audit.capture import CaptureTarget, capture, redact_url

        headers = _parse_pairs(header, ":", "--header")
        for name, var in _parse_pairs(header_env, "=", "--header-env").items():
            if var not in os.environ:
                raise UsageError(f"--header-env {name}: environment variable {var} is not set")
            headers[name] = os.environ[var]
        if command:
            target = CaptureTarget("stdio", command=list(command), env=_parse_pairs(env, "=", "--env"),
                                   cwd=str(cwd) if cwd else None)
            where = command[0]
        else:
            endpoint = url or sse or ""
            if not endpoint.lower().startswith(("http://", "https://")):
                raise UsageError("--url/--sse must be an http:// or https:// URL")
            target = CaptureTarget("http" if url else "sse", url=endpoint, headers=headers)
            where = redact_url(endpoint)
        _err(f"capturing tools/list from {where} …")
        snap = capture(target, label=label or "snapshot", protocol=protocol, timeout_s=timeout, max_pages=max_pages)
    text = canonical_json(snap.to_json())
    if out == "-":
        _write_output(text, "-")
        return
    atomic_write_text(dest, text)
    proto = snap.protocol_version or "unknown protocol"
    _err(f"wrote {dest} ({len(snap.tools)} tools, {proto})")


@app.command()
@_guarded
def diff(
    old: str = typer.Argument(..., help="Old version: a label in the store, a snapshot file, or a tools/list JSON file."),
    new: str = typer.Argument(..., help="New version: same forms as OLD."),
    fmt: str = typer.Option("text", "--format", "-f", help="text | json"),
    fail_on: str = typer.Option("breaking", "--fail-on",
                                help="breaking | warning | info | never: exit 1 when a finding is at or above it."),
    store: Path = typer.Option(DEFAULT_STORE, "--store", help="Snapshot store folder for labels."),
    output: Optional[str] = typer.Option(None, "--output", help="Write the report to this file (atomically)."),
) -> None:
    """Classify every schema change between OLD and NEW for hosts that cached OLD.

    Breaking findings carry a witness: a value the new version may send (or the model may build) that
    the other side rejects, confirmed with jsonschema.
    """
    from mcp_schema_audit.report import FAIL_ON, RENDERERS

    if fmt not in RENDERERS:
        raise UsageError(f"--format must be one of {', '.join(RENDERERS)} (got {fmt!r})")
    if fail_on not in FAIL_ON:
        raise UsageError(f"--fail-on must be one of {', '.join(FAIL_ON)} (got {fail_on!r})")
    old_snap = load_snapshot(old, store=store)
    new_snap = load_snapshot(new, store=store)
    report = run_diff(old_snap, new_snap, fail_on=fail_on)
    if fmt == "text":
        from mcp_schema_audit.report import render_text

        tty = output is None and sys.stdout.isatty()
        width = shutil.get_terminal_size((120, 24)).columns if tty else 120
        text = render_text(report, color=tty and "NO_COLOR" not in os.environ, width=width)
    else:
        text = RENDERERS[fmt](report)
    _write_output(text, output)
    raise typer.Exit(int(ExitCode.OK if report.passed else ExitCode.GATE_FAILED))


def run_diff(old: Snapshot, new: Snapshot, *, fail_on: str = "breaking") -> Any:
    """Diff two snapshots into a ``Report`` (findings sorted by tool, direction, pointer, rule)."""
    from mcp_schema_audit.engine import diff_snapshots
    from mcp_schema_audit.report import Report

    notes = []
    if old.protocol_version and new.protocol_version and old.protocol_version != new.protocol_version:
        notes.append(f"protocol versions differ ({old.protocol_version} vs {new.protocol_version}): servers may "
                     "advertise different schemas per protocol era; compare snapshots of the same era")
    return Report(old=old, new=new, findings=diff_snapshots(old, new), fail_on=fail_on, notes=notes)


@app.command()
@_guarded
def demo(
    fail_on: str = typer.Option("never", "--fail-on", help="Gate for the demo's exit code (default never: exit 0)."),
    keep: Optional[Path] = typer.Option(None, "--keep", help="Keep the demo snapshots in this store folder."),
    timeout: float = typer.Option(60.0, "--timeout", min=1.0, help="Seconds per capture."),
) -> None:
    """Run the whole pipeline on the bundled mail server: snapshot v1 and v2 over stdio, then diff them."""
    from mcp_schema_audit.capture import CaptureTarget, capture
    from mcp_schema_audit.report import FAIL_ON, render_text

    if fail_on not in FAIL_ON:
        raise UsageError(f"--fail-on must be one of {', '.join(FAIL_ON)} (got {fail_on!r})")
    store = keep if keep is not None else Path(tempfile.mkdtemp(prefix="schema-audit-demo-"))
    snaps = []
    try:
        for version in ("1", "2"):
            label = f"v{version}"
            cmd = [sys.executable, "-m", "mcp_schema_audit.demo_server.mail_server", "--version", version]
            _err(f"snapshot {label}: {' '.join(cmd[1:])}")
            t0 = time.monotonic()
            snap = capture(CaptureTarget("stdio", command=cmd), label=label, protocol="auto", timeout_s=timeout)
            atomic_write_text(store_path(store, label), canonical_json(snap.to_json()))
            _err(f"  {len(snap.tools)} tools, protocol {snap.protocol_version}, {time.monotonic() - t0:.1f} s")
            snaps.append(snap)
        report = run_diff(snaps[0], snaps[1], fail_on=fail_on)
        tty = sys.stdout.isatty()
        sys.stdout.write(render_text(report, color=tty and "NO_COLOR" not in os.environ,
                                     width=shutil.get_terminal_size((120, 24)).columns if tty else 120))
        if keep is not None:
            _err(f"snapshots kept in {store}/snapshots; try: schema-audit diff --store {store} v1 v2 --format json")
    finally:
        if keep is None:
            shutil.rmtree(store, ignore_errors=True)
    raise typer.Exit(int(ExitCode.OK if report.passed else ExitCode.GATE_FAILED))


@app.command()
@_guarded
def rules(fmt: str = typer.Option("text", "--format", "-f", help="text | json")) -> None:
    """List the rule catalog: id, direction, default severity, title."""
    import json

    from mcp_schema_audit.rules import RULES

    if fmt == "json":
        data = [{"id": r.id, "direction": r.direction, "severity": r.severity, "title": r.title} for r in RULES.values()]
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
        return
    if fmt != "text":
        raise UsageError(f"--format must be text or json (got {fmt!r})")
    width = max(len(r) for r in RULES)
    for r in RULES.values():
        sys.stdout.write(f"{r.id:<{width}}  {r.direction:<6}  {r.severity:<8}  {r.title}\n")


@app.command()
@_guarded
def explain(rule_id: str = typer.Argument(..., help="A rule id from 'schema-audit rules'.")) -> None:
    """Print a rule's rationale, a before/after example and the error a host raises."""
    from mcp_schema_audit.rules import RULES

    rule = RULES.get(rule_id)
    if rule is None:
        raise UsageError(f"unknown rule {rule_id!r} (see 'schema-audit rules')")
    lines = [f"{rule.id} ({rule.direction}, default {rule.severity}): {rule.title}", "", rule.rationale]
    if rule.before or rule.after:
        lines += ["", f"before: {rule.before}", f"after:  {rule.after}"]
    if rule.error:
        lines += [f"host error: {rule.error}"]
    if rule.source:
        lines += [f"source: {rule.source}"]
    sys.stdout.write("\n".join(lines) + "\n")


def main() -> None:
    """Console-script entry point. Usage errors exit 2 (typer/click); see the module docstring."""
    try:
        app()
    except SystemExit:
        raise
    except KeyboardInterrupt:  # pragma: no cover - interactive
        _err("interrupted")
        sys.exit(130)
