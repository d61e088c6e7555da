"""``check``: the pull-request check in one command: the base built and captured, the head captured, both
diffed (``prcheck.sides``, the flow the GitHub Action runs too)."""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from mcp_schema_audit.cli import params, source
from mcp_schema_audit.cli.app import command, gate_exits
from mcp_schema_audit.cli.common import (
    Progress,
    distinct_labels,
    err,
    gate_exit,
    load_ref,
    quiet_sdk_logs,
    render_for,
    run_limits,
    settings_of,
    tool_filter,
    write_output,
)
from mcp_schema_audit.errors import CaptureError, ExitCode, InputError, UsageError

_CHECK_HELP = """The pull-request check on your machine: what a host that cached the base sees once the server
runs the current checkout.

With --base-ref REF, REF is checked out in a temporary git worktree, set up there with --install-command and
--build-command (which run in the current checkout too), its server captured with the same command (or
--base-command, or the --url server that --start-command starts in each checkout), the current checkout's
server captured, and both diffed as `schema-audit diff` does (the worktree is removed afterwards). The GitHub
Action runs this same flow.

Without --base-ref, --base-command and --head-command (or the command after --) compare two live servers
started in the current folder; --base SNAPSHOT compares a stored snapshot (a label, a file, git:REF:PATH)
with the live server.

Examples:

\b
  schema-audit check --base-ref main --build-command 'npm run build' -- node dist/index.js
  schema-audit check --base-ref v1.2.0 --install-command 'pip install -e .' -- python -m my_server
  schema-audit check --base-ref main --start-command 'node dist/http.js' --url http://127.0.0.1:3000/mcp
  schema-audit check --base-command 'node old/index.js' --head-command 'node dist/index.js'
  schema-audit check --base v1.2.0 -- node dist/index.js
"""

BaseRef = Annotated[
    str | None,
    typer.Option(
        "--base-ref",
        metavar="REV",
        help="Git revision whose server is the base (main, v1.2.0, a sha): checked out, set up and captured.",
    ),
]
BaseSnapshot = Annotated[
    str | None,
    typer.Option("--base", metavar="SNAPSHOT", help="The base as a snapshot: a store label, a file or git:REF:PATH."),
]
BaseCommand = Annotated[
    str | None,
    typer.Option(
        "--base-command",
        "-b",
        metavar="'CMD'",
        help="stdio command of the base's server (split like a shell): in the base's checkout with --base-ref, "
        "else in the current folder.",
    ),
]
HeadCommand = Annotated[
    str | None,
    typer.Option(
        "--head-command", "-t", metavar="'CMD'", help="stdio command of the current server (instead of -- CMD...)."
    ),
]
InstallCommand = Annotated[
    str | None,
    typer.Option("--install-command", metavar="'SHELL'", help="Installs dependencies (npm ci), in each checkout."),
]
BuildCommand = Annotated[
    str | None,
    typer.Option(
        "--build-command", metavar="'SHELL'", help="Builds the server (npm run build), after install, in each checkout."
    ),
]
StartCommand = Annotated[
    str | None,
    typer.Option(
        "--start-command",
        metavar="'SHELL'",
        help="With --url/--sse: starts that HTTP server in each checkout; stopped after its capture.",
    ),
]
OldLabel = Annotated[
    str | None, typer.Option("--old-label", metavar="NAME", help="Name the base so in the report (as diff).")
]
NewLabel = Annotated[
    str | None, typer.Option("--new-label", metavar="NAME", help="Name the current server so in the report.")
]
Keep = Annotated[
    Path | None,
    typer.Option("--keep", metavar="DIR", help="Keep the captured snapshots there (base.json, head.json)."),
]


@command(
    "The pull-request check: build the base, capture both, diff.",
    _CHECK_HELP,
    exits=gate_exits(live=True, budget=True),
)
def check(
    command: source.ServerCommand = None,
    base_ref: BaseRef = None,
    base: BaseSnapshot = None,
    base_command: BaseCommand = None,
    head_command: HeadCommand = None,
    url: source.Url = None,
    sse: source.Sse = None,
    install_command: InstallCommand = None,
    build_command: BuildCommand = None,
    start_command: StartCommand = None,
    header: source.Header = None,
    header_env: source.HeaderEnv = None,
    env: source.Env = None,
    cwd: source.Cwd = None,
    protocol: source.Protocol = "auto",
    timeout: source.Timeout = 60.0,
    keep: Keep = None,
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
    jobs: params.Jobs = None,
    time_budget: params.TimeBudget = None,
    version_gate: params.VersionGate = None,
    old_label: OldLabel = None,
    new_label: NewLabel = None,
    source_root: params.SourceRoot = None,
    verbose: source.Verbose = False,
) -> None:
    plan, limits = _Plan.of(locals()), run_limits(time_budget, jobs)  # every usage error before anything runs
    sides = _labelled(_both_sides(plan, (settings := settings_of(locals())).store), old_label, new_label)
    _finish(_compared(*sides, settings, limits, source_root or Path.cwd()), settings, output)


def _finish(report: Any, settings: Any, output: str | None) -> NoReturn:
    """Write ``report`` in the settings' format (to ``output``, else stdout) and exit with the gate's code."""
    write_output(render_for(report, settings.format, output), output)
    raise typer.Exit(gate_exit(report.passed, settings.format))


def _labelled(sides: tuple[Any, Any], old_label: str | None, new_label: str | None) -> tuple[Any, Any]:
    """The two snapshots named as ``diff`` names its sides (``--old-label``/``--new-label``; else ``base-<sha>`` or
    the ref's name, and ``head``). Raises ``UsageError`` for a label that is not one line."""
    if old_label is not None or new_label is not None:
        distinct_labels(*sides, "base", "head", old_label, new_label)
    return sides


def _compared(old: Any, new: Any, settings: Any, limits: Any, source_root: Path) -> Any:
    """The diff of the two sides (``audit.diff_report``) in the scope of the tool filter (``--tool``,
    ``--exclude-tool``, the config's ``tools``/``exclude_tools``, as in ``diff``), located on the server's source
    under ``source_root``."""
    from mcp_schema_audit.audit import diff_report, locate_sources

    (old, new), notes = tool_filter([old, new], settings.tools, settings.exclude_tools)

    with Progress("comparing tools") as bar:
        report = diff_report(old, new, settings, replace(limits, progress=bar.callback), notes=notes)
    return locate_sources(report, source_root)


@dataclass(frozen=True)
class _Plan:
    """What ``check`` was asked to compare, checked before anything runs."""

    server: source.ServerSource
    head: tuple[str, ...]
    base_ref: str | None
    base: str | None
    base_command: tuple[str, ...]
    setup: list[tuple[str, str]]
    start_command: str
    keep: Path | None

    @classmethod
    def of(cls, options: dict[str, Any]) -> _Plan:
        """The plan of ``check``'s parameters; ``UsageError`` for a missing or doubled side."""
        head = tuple(options["command"] or ()) or _split(options["head_command"], "--head-command")
        if options["command"] and options["head_command"]:
            raise UsageError("give the current server once: -- SERVER_COMMAND... or --head-command")
        server = source.ServerSource.of({**options, "command": list(head) or None})
        if not server.live:
            raise UsageError("give the current server: -- SERVER_COMMAND..., --head-command, --url or --sse")
        if sum(1 for x in (bool(head), server.url, server.sse) if x) != 1:
            raise UsageError("give one current server: -- SERVER_COMMAND..., --head-command, --url or --sse")
        source.check_protocol(server.protocol)
        base_command = _split(options["base_command"], "--base-command")
        ways = [w for w, given in (("--base-ref", options["base_ref"]), ("--base", options["base"])) if given]
        if base_command and not options["base_ref"]:
            ways.append("--base-command")
        if len(ways) != 1:
            got = f" (got {' and '.join(ways)})" if ways else ""
            raise UsageError(
                "give the base once: --base-ref REV (built and captured), --base-command 'CMD' (a live server) "
                f"or --base SNAPSHOT{got}"
            )
        if options["start_command"] and not (server.url or server.sse):
            raise UsageError("--start-command starts the --url/--sse server: give --url or --sse")
        setup = [(k, options[k.replace("-", "_")]) for k in ("install-command", "build-command")]
        return cls(
            server=server,
            head=head,
            base_ref=options["base_ref"],
            base=options["base"],
            base_command=base_command,
            setup=[(k, v) for k, v in setup if v],
            start_command=options["start_command"] or "",
            keep=options["keep"],
        )


def _split(text: str | None, what: str) -> tuple[str, ...]:
    """``text`` split like a shell (``()`` for none); ``UsageError`` when it does not parse or is empty."""
    if text is None:
        return ()
    try:
        parts = tuple(shlex.split(text))
    except ValueError as exc:
        raise UsageError(f"{what}: {exc}") from None
    if not parts:
        raise UsageError(f"{what} needs a command")
    return parts


def _both_sides(plan: _Plan, store: Path) -> tuple[Any, Any]:
    """``(base, head)`` snapshots: the base revision checked out and set up, each side captured (``prcheck``)."""
    from mcp_schema_audit.prcheck import processes, sides
    from mcp_schema_audit.prcheck.base import BaseError, resolve_base

    quiet_sdk_logs(plan.server.verbose)
    # as the Action does: a daemonizing start-command's server (a double fork, setsid) comes back to this
    # process, to be found and stopped with its side; whatever else came back is stopped at the end
    processes.become_subreaper()
    before = processes.children_of_self()
    given = load_ref(plan.base, store) if plan.base else None
    folder = plan.keep or Path(tempfile.mkdtemp(prefix="schema-audit-check-"))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        revision = resolve_base(plan.base_ref, {}, "--base-ref") if plan.base_ref else None
        side = sides.Side(
            command=plan.head,
            base_command=plan.base_command,
            url=plan.server.url or "",
            sse=plan.server.sse or "",
            env=plan.server.env,
            cwd=str(plan.server.cwd or ""),
            start_command=plan.start_command,
            timeout_s=plan.server.timeout,
        )
        capturer = _capturer(plan.server)
        with sides.checked_out(revision, plan.setup, dict(os.environ), "the current checkout") as checkouts:
            if given is None:
                label = revision.label if revision is not None else "base"
                try:
                    sides.capture_side(
                        side,
                        "base",
                        label=label,
                        target=folder / "base.json",
                        folder=checkouts.base_root,
                        capturer=capturer,
                    )
                except CaptureError as exc:
                    hint = sides.unbuilt_hint(str(exc), plan.setup, lambda key: f"--{key}") if revision else None
                    if hint is None or exc.hint:
                        raise
                    raise CaptureError(str(exc), hint=hint, output=exc.output) from None
            checkouts.set_up_head()  # after the base's capture: the head's build cannot change the base's server
            head_folder = Path.cwd() if revision is not None else None
            sides.capture_side(
                side, "head", label="head", target=folder / "head.json", folder=head_folder, capturer=capturer
            )
        old = given if given is not None else load_ref(str(folder / "base.json"), store)
        return old, load_ref(str(folder / "head.json"), store)
    except BaseError as exc:
        if exc.code != ExitCode.CAPTURE:
            raise UsageError(str(exc)) from None
        in_base = plan.base_ref is not None and " in the base " in str(exc)
        hint = sides.unbuilt_hint(str(exc), plan.setup, lambda key: f"--{key}") if in_base else None
        raise CaptureError(str(exc), hint=hint) from None
    except OSError as exc:
        raise InputError(f"cannot use {folder}: {exc.strerror}") from None
    finally:
        processes.stop_adopted(before)
        if plan.keep is None:
            shutil.rmtree(folder, ignore_errors=True)
        else:
            kept = [n for n in ("base.json", "head.json") if (folder / n).is_file()]
            err(f"snapshots kept in {folder} ({', '.join(kept)})" if kept else f"no snapshot was written to {folder}")


def _capturer(server: source.ServerSource) -> Any:
    """One capture in this process (``capture.capture``), its snapshot written to the capture's target."""
    from mcp_schema_audit.capture import capture
    from mcp_schema_audit.snapshot import atomic_write_text, canonical_json

    def run(one: Any) -> None:
        target, where = source.build_target(
            list(one.command) or None,
            one.url or None,
            one.sse or None,
            list(server.header),
            list(server.header_env),
            list(one.env),
            one.cwd,
        )
        started = source.capturing(where, one.what)
        try:
            with source.server_output_shown(server.verbose):
                snap = capture(target, label=one.label, protocol=server.protocol, timeout_s=server.timeout)
        except CaptureError as exc:
            raise CaptureError(f"{one.what} failed: {exc}", hint=exc.hint, output=exc.output) from None
        atomic_write_text(one.target, canonical_json(snap.to_json(), str(one.target)))
        source.captured(snap, started, one.what)

    return run
