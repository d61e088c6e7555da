"""The ``schema-audit`` command line: parse options, run one stage pipeline, map every error to an exit code.

Exit codes: 0 gate passed · 1 gate failed · 2 usage or input error · 3 capture error · 4 internal error.
The report goes to stdout (or ``--output``); progress and errors go to stderr, one line each.
"""

from __future__ import annotations

import fnmatch
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


class _Command(typer.core.TyperCommand):
    """A command whose ``--help`` shows metavars (``FILE``, ``KEY=VALUE``), never Python type names.

    typer prints ``<list[str]>``, ``<float range>`` or ``<str>`` for a parameter without a metavar,
    and appends that type to every argument even when it has one. Here an option shows its metavar
    (an option declared without one gets its name in capitals, e.g. ``--max-pages MAX_PAGES``) and an
    argument shows its metavar alone, in the help list and in the usage line.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if param.metavar is None and not getattr(param, "is_flag", False) and not getattr(param, "count", False):
                param.metavar = (param.name or "value").upper()

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        return pieces + [param.metavar or (param.name or "").upper()
                         for param in self.get_params(ctx) if param.param_type_name == "argument"]

    def format_options(self, ctx: Any, formatter: Any) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                # typer's record is "<metavar> <type>": keep the metavar, drop the type placeholder
                arguments.append((param.metavar or (param.name or "").upper(), record[1]))
            else:
                options.append(record)
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def _command() -> Callable[[Callable[..., Any]], Any]:
    """``@app.command()`` with the help formatting of :class:`_Command`."""
    return app.command(cls=_Command)


def _err(message: str) -> None:
    """One line on stderr, control characters escaped."""
    from mcp_schema_audit.report import inert

    sys.stderr.write(f"schema-audit: {' '.join(inert(message).splitlines())}\n")  # one line, whatever it quotes
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


_CONFIG_HELP_SHORT = "Config file (its 'store' is the default for --store)."


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


def _quiet_sdk_logs(verbose: bool) -> None:
    """The SDK logs parse failures of server stdout noise with tracebacks: keep them off stderr unless -v."""
    import logging

    log = logging.getLogger("mcp")
    if verbose:
        logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
    else:
        log.addHandler(logging.NullHandler())
        log.propagate = False


def _write_output(text: str, out: Optional[str]) -> None:
    if out in (None, "-"):
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        atomic_write_text(Path(out), text)


@_command()
@_guarded
def snapshot(
    command: Optional[List[str]] = typer.Argument(
        None, metavar="[-- SERVER_COMMAND...]", show_default=False,
        help="stdio server: everything after -- is the command and its arguments."),
    label: Optional[str] = typer.Option(None, "--label", "-l", metavar="LABEL",
                                        help="Snapshot label, e.g. v0.2.6 (the file name in the store)."),
    url: Optional[str] = typer.Option(None, "--url", metavar="URL",
                                      help="Streamable HTTP endpoint, e.g. http://127.0.0.1:8000/mcp."),
    sse: Optional[str] = typer.Option(None, "--sse", metavar="URL", help="Legacy HTTP+SSE endpoint URL."),
    header: List[str] = typer.Option([], "--header", "-H", metavar="'NAME: VALUE'",
                                     help="HTTP header 'Name: value' (repeatable). Never stored or printed."),
    header_env: List[str] = typer.Option([], "--header-env", metavar="NAME=ENV_VAR",
                                         help="HTTP header from the environment: 'Name=ENV_VAR' (repeatable)."),
    env: List[str] = typer.Option([], "--env", "-e", metavar="KEY=VALUE", help=(
        "KEY=VALUE for the stdio server (repeatable). The MCP SDK passes the server only HOME, LOGNAME, PATH, "
        "SHELL, TERM and USER from this environment: pass anything else it needs here. Values are never stored.")),
    cwd: Optional[Path] = typer.Option(None, "--cwd", metavar="DIR", help="Working directory of the stdio server."),
    protocol: str = typer.Option("auto", "--protocol", metavar="auto|legacy|2026-07-28", help=(
        "auto | legacy | 2026-07-28. auto probes server/discover and falls back to the initialize handshake; a "
        "legacy server that ignores unknown requests costs the SDK's 10 s probe timeout (use legacy).")),
    timeout: float = typer.Option(60.0, "--timeout", min=0.1, metavar="SECONDS", help="Seconds for the whole capture."),
    max_pages: int = typer.Option(1000, "--max-pages", min=1, metavar="N",
                                  help="Give up after this many tools/list pages."),
    store: Optional[Path] = typer.Option(None, "--store", metavar="DIR",
                                         help="Snapshot store folder (default .schema-audit)."),
    config: Optional[Path] = typer.Option(None, "--config", metavar="FILE", help=_CONFIG_HELP_SHORT),
    out: Optional[str] = typer.Option(None, "--out", "-o", metavar="FILE",
                                      help="Write the snapshot to this file ('-' = stdout) instead of the store."),
    from_file: Optional[Path] = typer.Option(None, "--from-file", metavar="FILE", help=(
        "Import a tools/list result instead of capturing: {\"tools\": [...]}, a JSON-RPC response, "
        "or MCP Inspector CLI JSON.")),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show the MCP SDK's own log messages on stderr."),
    force: bool = typer.Option(False, "--force", help=(
        "Replace an existing snapshot: the label's file in the store, or the --out file. Without it, "
        "an existing one is an error (exit 2) and nothing is captured.")),
) -> None:
    """Capture tools/list from a running MCP server (stdio, Streamable HTTP or SSE) into a snapshot.

    A label already in the store (or an existing --out FILE) is never replaced without --force.

    Examples:

    \b
      schema-audit snapshot --label v0.2.6 -- node dist/index.js
      schema-audit snapshot --label v0.2.6 --url http://127.0.0.1:8000/mcp --header-env 'Authorization=MCP_TOKEN'
      schema-audit snapshot --label v0.2.5 --from-file tools-list.json
    """
    store = _settings(config, None, None, [], [], store)["store"]
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
    if dest is not None and not force and (dest.exists() or dest.is_symlink()):
        # checked before capturing: a release's snapshot is the baseline hosts cached; never lose it by accident
        what = (f"snapshot {label!r} already exists in the store ({dest})" if out is None
                else f"{dest} already exists")
        raise UsageError(f"{what}; pass --force to replace it")
    if from_file is not None:
        snap = snapshot_from_data(read_json_file(from_file), source=str(from_file), label=label)
        snap.meta = {**snap.meta, "imported_from": from_file.name, "schema_audit_version": __version__}
    else:
        from mcp_schema_audit.capture import CaptureTarget, capture, redact_url

        _quiet_sdk_logs(verbose)
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
    atomic_write_text(dest, text, exclusive=not force)
    proto = snap.protocol_version or "unknown protocol"
    _err(f"wrote {dest} ({len(snap.tools)} tools, {proto})")


def _load(ref: str, store: Path) -> Snapshot:
    """A label in the store, a snapshot or tools/list file, or ``git:REF:PATH``."""
    from mcp_schema_audit.gitref import is_git_ref, load_git_snapshot

    return load_git_snapshot(ref) if is_git_ref(ref) else load_snapshot(ref, store=store)


def _settings(config: Optional[Path], fail_on: Optional[str], mode: Optional[str], host: List[str],
              severity: List[str], store: Optional[Path], *, fmt: Optional[str] = None,
              formats: tuple[str, ...] = (), config_format: bool = True, tools: List[str] = (),
              exclude_tools: List[str] = ()) -> dict[str, Any]:
    """Merge flags over the config file over built-in defaults; validate every value (UsageError).

    Returns ``{"config", "fail_on", "mode", "hosts", "severity", "store", "format", "tools",
    "exclude_tools"}``. ``formats`` (when given) are the values this command's ``--format`` accepts; the
    config's ``format`` is the default when ``config_format`` (diff, lint). A ``--tool``/``--exclude-tool``
    flag replaces the config's ``tools``/``exclude_tools`` list.
    """
    from mcp_schema_audit.policy import MODES, load_config, parse_severity_overrides
    from mcp_schema_audit.report import FAIL_ON
    from mcp_schema_audit.schema import HOST_PROFILES

    cfg = load_config(config)
    out = {
        "config": cfg,
        "fail_on": fail_on or cfg.fail_on or "breaking",
        "mode": mode or cfg.mode or "backward",
        "hosts": list(host) or cfg.hosts,
        "severity": {**cfg.severity, **parse_severity_overrides(list(severity))},
        "store": store or (Path(cfg.store) if cfg.store else DEFAULT_STORE),
        "format": fmt or (cfg.fmt if config_format else None) or "text",
        "tools": list(tools) or list(cfg.tools or []),
        "exclude_tools": list(exclude_tools) or list(cfg.exclude_tools or []),
    }
    if formats and out["format"] not in formats:
        raise UsageError(f"--format must be one of {', '.join(formats)} (got {out['format']!r})")
    if out["fail_on"] not in FAIL_ON:
        raise UsageError(f"--fail-on must be one of {', '.join(FAIL_ON)} (got {out['fail_on']!r})")
    if out["mode"] not in MODES:
        raise UsageError(f"--mode must be one of {', '.join(MODES)} (got {out['mode']!r})")
    for h in out["hosts"] or []:
        if h not in HOST_PROFILES:
            raise UsageError(f"--host must be one of {', '.join(HOST_PROFILES)} (got {h!r})")
    return out


_CONFIG_HELP = "Config file (default: .schema-audit.toml, else [tool.schema-audit] in pyproject.toml)."
_SEVERITY_HELP = "Override a rule's severity: RULE=breaking|warning|info (repeatable)."
#: "60" is ``engine.RUN_TIME_BUDGET_S`` (kept literal so --help does not import the engine; a test checks it).
_TIME_BUDGET_HELP = ("Seconds the whole comparison may take (default 60; 0 = no limit). Tools not reached "
                     "in time get a schema-undecidable warning each.")


def _budget(seconds: Optional[float]) -> Optional[float]:
    """``--time-budget`` checked: None (the engine's default) or a finite number ≥ 0; raises ``UsageError``."""
    if seconds is None:
        return None
    if not (seconds >= 0) or seconds == float("inf"):
        raise UsageError(f"--time-budget must be a number of seconds ≥ 0 (got {seconds!r})")
    return seconds


_HOST_HELP = "Only these host profiles count for the verdict: python-sdk, ts-sdk-v1, ts-sdk-v2 (repeatable)."
#: What ``diff``/``lint`` (``policy.REPORT_FORMATS``, kept here too so ``--help`` needs no engine import; a test
#: checks they are equal), ``history`` and ``rules`` accept for ``--format``. The help strings are built from
#: these tuples, so they cannot drift apart.
DIFF_FORMATS = ("text", "json", "markdown", "sarif", "github", "junit", "ignore")
HISTORY_FORMATS = ("text", "json", "markdown", "sarif")
RULES_FORMATS = ("text", "json")
_FORMATS_HELP = (" | ".join(DIFF_FORMATS) + " (ignore: ready-to-paste [[ignore]] entries; exits 0). "
                 "Default: text, or the config file's format.")
_HISTORY_FORMATS_HELP = " | ".join(HISTORY_FORMATS) + " (default text)."
_TOOL_HELP = ("Only tools whose name matches this glob (fnmatch: * ? [seq]; case-sensitive; repeatable). "
              "Default: the config file's tools, else every tool.")
_EXCLUDE_TOOL_HELP = ("Leave out tools whose name matches this glob (repeatable; applied after --tool). "
                      "Default: the config file's exclude_tools.")


def _tool_filter(snaps: List[Snapshot], include: List[str], exclude: List[str]) -> tuple[List[Snapshot], List[str]]:
    """Apply ``--tool``/``--exclude-tool`` to ``snaps``: ``(filtered copies, report notes)``.

    A glob that matches no tool name in any of ``snaps`` is a one-line warning on stderr, not an
    error; filters that leave no tool in scope while the snapshots have tools raise ``UsageError``
    (exit 2: a typo in a CI filter must not pass the gate with "No schema changes"). With no globs the
    snapshots are returned as they are and there is no note.
    """
    if not include and not exclude:
        return list(snaps), []
    names = {t["name"] for s in snaps for t in s.tools}
    labels = list(dict.fromkeys(s.label for s in snaps))
    where = " or ".join(repr(x) for x in labels) if len(labels) <= 3 else f"any of the {len(labels)} snapshots"
    for flag, globs in (("--tool", include), ("--exclude-tool", exclude)):
        for glob in globs:
            if not any(fnmatch.fnmatchcase(n, glob) for n in names):
                _err(f"warning: {flag} {glob!r} matches no tool in {where}")
    from mcp_schema_audit.snapshot import tool_selected

    kept = sum(1 for n in names if tool_selected(n, include, exclude))
    if names and not kept:
        raise UsageError(f"the tool filters leave none of the {len(names)} tools in scope; check --tool/--exclude-tool "
                         "(or tools/exclude_tools in the config file)")
    parts = ([f"--tool {', '.join(include)}"] if include else []) + (
        [f"--exclude-tool {', '.join(exclude)}"] if exclude else [])
    note = f"tool filter ({'; '.join(parts)}): {kept} of {len(names)} tools in scope"
    return [s.filtered(include, exclude) for s in snaps], [note]


def _render(report: Any, fmt: str, output: Optional[str]) -> str:
    from mcp_schema_audit.report import RENDERERS, render_text

    if fmt == "text":
        tty = output is None and sys.stdout.isatty()
        width = shutil.get_terminal_size((120, 24)).columns if tty else 120
        return render_text(report, color=tty and "NO_COLOR" not in os.environ, width=width)
    if fmt == "ignore":
        from mcp_schema_audit.policy import ignore_entries_toml

        return ignore_entries_toml(report.findings)
    if fmt not in RENDERERS:
        from mcp_schema_audit.policy import REPORT_FORMATS

        raise UsageError(f"--format must be one of {', '.join(REPORT_FORMATS)} (got {fmt!r})")
    return RENDERERS[fmt](report)


@_command()
@_guarded
def diff(
    old: str = typer.Argument(..., metavar="OLD",
                              help="Old version: a store label, a snapshot or tools/list file, or git:REF:PATH."),
    new: str = typer.Argument(..., metavar="NEW", help="New version: same forms as OLD."),
    fmt: Optional[str] = typer.Option(None, "--format", "-f", metavar="FORMAT", help=_FORMATS_HELP),
    fail_on: Optional[str] = typer.Option(None, "--fail-on", metavar="LEVEL", help=(
        "breaking | warning | info | never: exit 1 when a finding is at or above it (default breaking).")),
    mode: Optional[str] = typer.Option(None, "--mode", metavar="MODE", help=(
        "backward (hosts cached OLD, server runs NEW; default) | forward (hosts cached NEW, server runs OLD: "
        "rollback, rolling deploy) | full (both).")),
    host: List[str] = typer.Option([], "--host", metavar="NAME", help=_HOST_HELP),
    severity: List[str] = typer.Option([], "--severity", metavar="RULE=LEVEL", help=_SEVERITY_HELP),
    tool: List[str] = typer.Option([], "--tool", metavar="GLOB", help=_TOOL_HELP),
    exclude_tool: List[str] = typer.Option([], "--exclude-tool", metavar="GLOB", help=_EXCLUDE_TOOL_HELP),
    config: Optional[Path] = typer.Option(None, "--config", metavar="FILE", help=_CONFIG_HELP),
    store: Optional[Path] = typer.Option(None, "--store", metavar="DIR",
                                         help="Snapshot store folder for labels (default .schema-audit)."),
    output: Optional[str] = typer.Option(None, "--output", metavar="FILE",
                                         help="Write the report to this file (atomically)."),
    time_budget: Optional[float] = typer.Option(None, "--time-budget", metavar="SECONDS", help=_TIME_BUDGET_HELP),
) -> None:
    """Classify every schema change between OLD and NEW for hosts that cached OLD.

    Breaking findings carry a witness: a value the new version may send (or the model may build) that
    the other side rejects, confirmed with jsonschema. In --mode forward|full, forward findings (tag
    forward) compare hosts that cached NEW with a server running OLD; their witnesses still say
    accepted_by old|new for the snapshots as given here.
    """
    from mcp_schema_audit.policy import REPORT_FORMATS

    opts = _settings(config, fail_on, mode, host, severity, store, fmt=fmt, formats=REPORT_FORMATS, tools=tool,
                     exclude_tools=exclude_tool)
    fmt = opts["format"]
    old_snap = _load(old, opts["store"])
    new_snap = _load(new, opts["store"])
    (old_snap, new_snap), notes = _tool_filter([old_snap, new_snap], opts["tools"], opts["exclude_tools"])
    report = run_diff(old_snap, new_snap, fail_on=opts["fail_on"], mode=opts["mode"], hosts=opts["hosts"],
                      severity=opts["severity"], ignore=opts["config"].ignore, time_budget=_budget(time_budget))
    report.notes += notes
    _write_output(_render(report, fmt, output), output)
    # --format ignore writes config for the findings it lists: it is not a gate (so `>> .schema-audit.toml` works)
    raise typer.Exit(int(ExitCode.OK if report.passed or fmt == "ignore" else ExitCode.GATE_FAILED))


def run_diff(old: Snapshot, new: Snapshot, *, fail_on: str = "breaking", mode: str = "backward",
             hosts: Optional[List[str]] = None, severity: Optional[dict[str, str]] = None,
             ignore: Optional[list[Any]] = None, time_budget: Optional[float] = None) -> Any:
    """Diff two snapshots into a ``Report``: findings for ``mode``, then policy (hosts, severity, ignore).

    Findings are sorted by tool, direction, pointer, rule. ``time_budget``: seconds for the whole
    comparison (``engine.diff_snapshots``; default ``RUN_TIME_BUDGET_S``, 0 = none). Raises
    ``UsageError`` for a bad mode.
    """
    from mcp_schema_audit.policy import apply_policy, diff_with_mode
    from mcp_schema_audit.report import Report
    from mcp_schema_audit.schema import HOST_PROFILES

    notes = []
    if old.protocol_version and new.protocol_version and old.protocol_version != new.protocol_version:
        notes.append(f"protocol versions differ ({old.protocol_version} vs {new.protocol_version}): servers may "
                     "advertise different schemas per protocol era; compare snapshots of the same era")
    result = apply_policy(diff_with_mode(old, new, mode, time_budget=time_budget), severity=severity, hosts=hosts,
                          ignore=ignore)
    return Report(old=old, new=new, findings=result.findings, fail_on=fail_on, notes=notes, mode=mode,
                  hosts=list(hosts) if hosts else list(HOST_PROFILES), ignored=result.ignored,
                  expired_ignores=result.expired)


@_command()
@_guarded
def history(
    new: str = typer.Argument(..., metavar="NEW", help="The release to check: a store label, a file, or git:REF:PATH."),
    against: List[str] = typer.Option([], "--against", metavar="LABEL",
                                      help="Cached versions to check against (repeatable); "
                                      "default: every stored snapshot older than NEW."),
    fmt: str = typer.Option("text", "--format", "-f", metavar="FORMAT", help=_HISTORY_FORMATS_HELP),
    fail_on: Optional[str] = typer.Option(None, "--fail-on", metavar="LEVEL",
                                          help="breaking | warning | info | never."),
    tool: List[str] = typer.Option([], "--tool", metavar="GLOB", help=_TOOL_HELP),
    exclude_tool: List[str] = typer.Option([], "--exclude-tool", metavar="GLOB", help=_EXCLUDE_TOOL_HELP),
    config: Optional[Path] = typer.Option(None, "--config", metavar="FILE", help=_CONFIG_HELP),
    store: Optional[Path] = typer.Option(None, "--store", metavar="DIR",
                                         help="Snapshot store folder (default .schema-audit)."),
    output: Optional[str] = typer.Option(None, "--output", metavar="FILE",
                                         help="Write the report to this file (atomically)."),
    time_budget: Optional[float] = typer.Option(None, "--time-budget", metavar="SECONDS",
                                                help=_TIME_BUDGET_HELP + " Per cached version."),
) -> None:
    """Check NEW against every version hosts may still have cached (one cohort per snapshot).

    Prints a matrix tools x cached versions (ok / warning / breaking), the conflicts (positions where
    two cohorts cache different value sets, so no single value satisfies both) and the findings, one
    line each with the cached versions it breaks. Cohorts are ordered by capture time, else by label
    as a version. markdown suits a pull-request comment; sarif gives one result per finding, located
    in NEW's snapshot file.
    """
    from mcp_schema_audit.history import (check_history, order_snapshots, render_history_json,
                                          render_history_markdown, render_history_sarif, render_history_text,
                                          same_server, stored_snapshots)
    from mcp_schema_audit.rules import SEVERITY_RANK

    opts = _settings(config, fail_on, None, [], [], store, fmt=fmt, formats=HISTORY_FORMATS, config_format=False,
                     tools=tool, exclude_tools=exclude_tool)
    new_snap = _load(new, opts["store"])
    if against:
        cohorts = order_snapshots([_load(a, opts["store"]) for a in against])
    else:
        stored = order_snapshots(stored_snapshots(opts["store"]))
        labels = [s.label for s in stored]
        cohorts = stored[: labels.index(new_snap.label)] if new_snap.label in labels else stored
        cohorts = [c for c in cohorts if c.label != new_snap.label]
        cohorts, skipped = same_server(new_snap, cohorts)
        if skipped:
            _err(f"skipped {len(skipped)} stored snapshot(s) of other servers: "
                 f"{', '.join(s.label for s in skipped)}")
    labels = [c.label for c in cohorts]
    if len(set(labels)) != len(labels) or new_snap.label in labels:
        twice = sorted({x for x in labels if labels.count(x) > 1 or x == new_snap.label})
        raise UsageError(f"two versions carry the same label ({', '.join(map(repr, twice))}): history keeps one "
                         "column per label; give the snapshots distinct labels")
    if not cohorts:
        # a first release: no host can have cached an older version, so there is nothing that can break
        _err(f"nothing to check: the store ({opts['store']}) holds no version older than {new_snap.label!r} "
             "(a first release; name cached versions with --against)")
        raise typer.Exit(int(ExitCode.OK))
    (new_snap, *cohorts), notes = _tool_filter([new_snap, *cohorts], opts["tools"], opts["exclude_tools"])
    hist = check_history(new_snap, cohorts, time_budget=_budget(time_budget))
    hist.notes += notes
    limit = SEVERITY_RANK.get(opts["fail_on"], 99)
    passed = opts["fail_on"] == "never" or not any(SEVERITY_RANK[f.severity] >= limit for f in hist.all_findings())
    renderers = {"json": render_history_json, "markdown": render_history_markdown, "sarif": render_history_sarif}
    if opts["format"] in renderers:
        text = renderers[opts["format"]](hist, opts["fail_on"], passed)
    else:
        text = render_history_text(hist, fail_on=opts["fail_on"], passed=passed)
    _write_output(text, output)
    raise typer.Exit(int(ExitCode.OK if passed else ExitCode.GATE_FAILED))


@_command()
@_guarded
def lint(
    snapshots: List[str] = typer.Argument(..., metavar="SNAPSHOT...",
                                          help="Snapshots to lint: store labels, files or git:REF:PATH."),
    baseline: Optional[str] = typer.Option(None, "--baseline", metavar="LABEL",
                                           help="Require output required sets to equal this "
                                           "snapshot's (e.g. the version whose required set is frozen)."),
    fmt: Optional[str] = typer.Option(None, "--format", "-f", metavar="FORMAT", help=(
        _FORMATS_HELP + " Formats other than text and github take one snapshot at a time.")),
    fail_on: Optional[str] = typer.Option(None, "--fail-on", metavar="LEVEL",
                                          help="breaking | warning | info | never."),
    severity: List[str] = typer.Option([], "--severity", metavar="RULE=LEVEL", help=_SEVERITY_HELP),
    tool: List[str] = typer.Option([], "--tool", metavar="GLOB", help=_TOOL_HELP),
    exclude_tool: List[str] = typer.Option([], "--exclude-tool", metavar="GLOB", help=_EXCLUDE_TOOL_HELP),
    config: Optional[Path] = typer.Option(None, "--config", metavar="FILE", help=_CONFIG_HELP),
    store: Optional[Path] = typer.Option(None, "--store", metavar="DIR",
                                         help="Snapshot store folder (default .schema-audit)."),
    output: Optional[str] = typer.Option(None, "--output", metavar="FILE",
                                         help="Write the report to this file (atomically)."),
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

    opts = _settings(config, fail_on, None, [], severity, store, fmt=fmt, formats=REPORT_FORMATS, tools=tool,
                     exclude_tools=exclude_tool)
    where = "" if fmt else " (the config file's format)"
    fmt = opts["format"]
    if len(snapshots) > 1 and fmt not in ("text", "github"):
        raise UsageError(f"--format {fmt}{where} takes one snapshot at a time (got {len(snapshots)}); "
                         "use text or github")
    base = _load(baseline, opts["store"]) if baseline else None
    snaps = [_load(ref, opts["store"]) for ref in snapshots]
    filtered, notes = _tool_filter(snaps + ([base] if base else []), opts["tools"], opts["exclude_tools"])
    snaps, base = filtered[: len(snaps)], (filtered[-1] if base else None)
    passed_all = True
    texts = []
    for snap in snaps:
        result = apply_policy(lint_snapshot(snap, baseline=base), severity=opts["severity"],
                              ignore=opts["config"].allow + opts["config"].ignore)
        report = Report(old=base or snap, new=snap, findings=result.findings, fail_on=opts["fail_on"],
                        notes=[f"lint of {snap.label}" + (f" against baseline {base.label}" if base else ""), *notes],
                        mode="lint", ignored=result.ignored, expired_ignores=result.expired)
        passed_all = passed_all and report.passed
        texts.append(_render(report, fmt, output))
    _write_output("".join(texts), output)
    # --format ignore writes config for the hazards it lists: not a gate, as in diff
    raise typer.Exit(int(ExitCode.OK if passed_all or fmt == "ignore" else ExitCode.GATE_FAILED))


@_command()
@_guarded
def schema(what: str = typer.Argument(..., metavar="NAME",
                                      help="report: the JSON Schema of 'diff --format json'.")) -> None:
    """Print a published JSON Schema (report)."""
    import json

    if what != "report":
        raise UsageError(f"unknown schema {what!r} (available: report)")
    from mcp_schema_audit.report import report_json_schema

    sys.stdout.write(json.dumps(report_json_schema(), indent=2, sort_keys=True) + "\n")


@_command()
@_guarded
def demo(
    fail_on: str = typer.Option("never", "--fail-on", metavar="LEVEL",
                                help="Gate for the demo's exit code (default never: exit 0)."),
    keep: Optional[Path] = typer.Option(None, "--keep", metavar="DIR",
                                        help="Keep the demo snapshots in this store folder."),
    timeout: float = typer.Option(60.0, "--timeout", min=1.0, metavar="SECONDS", help="Seconds per capture."),
    force: bool = typer.Option(False, "--force", help="With --keep: replace snapshots v1/v2 already in DIR."),
) -> None:
    """Run the whole pipeline on the bundled mail server: snapshot v1 and v2 over stdio, then diff them."""
    from mcp_schema_audit.capture import CaptureTarget, capture
    from mcp_schema_audit.report import FAIL_ON, render_text

    if fail_on not in FAIL_ON:
        raise UsageError(f"--fail-on must be one of {', '.join(FAIL_ON)} (got {fail_on!r})")
    if keep is not None and not force:
        for label in ("v1", "v2"):
            if store_path(keep, label).exists():
                raise UsageError(f"snapshot {label!r} already exists in the store ({store_path(keep, label)}); "
                                 "pass --force to replace it, or --keep another folder")
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


@_command()
@_guarded
def rules(fmt: str = typer.Option("text", "--format", "-f", metavar="FORMAT",
                                  help=" | ".join(RULES_FORMATS) + " (default text).")) -> None:
    """List the rule catalog: id, direction, default severity, title."""
    import json

    from mcp_schema_audit.rules import RULES

    if fmt == "json":
        data = [{"id": r.id, "direction": r.direction, "severity": r.severity, "title": r.title} for r in RULES.values()]
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
        return
    if fmt != "text":
        raise UsageError(f"--format must be one of {', '.join(RULES_FORMATS)} (got {fmt!r})")
    width = max(len(r) for r in RULES)
    for r in RULES.values():
        sys.stdout.write(f"{r.id:<{width}}  {r.direction:<6}  {r.severity:<8}  {r.title}\n")


@_command()
@_guarded
def explain(rule_id: str = typer.Argument(..., metavar="RULE_ID", help="A rule id from 'schema-audit rules'.")) -> None:
    """Print a rule's rationale, a before/after example and the error a host raises."""
    from mcp_schema_audit.rules import RULES

    rule = RULES.get(rule_id)
    if rule is None:
        raise UsageError(f"unknown rule {rule_id!r} (see 'schema-audit rules')")
    lines = [f"{rule.id} ({rule.direction}, default {rule.severity}): {rule.title}", "", rule.rationale, ""]
    if rule.before:
        lines += [f"before: {rule.before}"]
    if rule.after:
        lines += [f"after:  {rule.after}"]
    if rule.error:
        lines += [f"host error: {rule.error}"]
    if rule.fix:
        lines += [f"fix: {rule.fix}"]
    if rule.source:
        lines += [f"source: {rule.source}"]
    sys.stdout.write("\n".join(lines) + "\n")


def main() -> None:
    """Console-script entry point. Usage errors exit 2 (typer/click); see the module docstring."""
    try:
        code = app(standalone_mode=False)
    except KeyboardInterrupt:  # pragma: no cover - interactive
        _err("interrupted")
        sys.exit(130)
    except Exception as exc:  # click/typer usage errors: one line, exit 2 (their own exit_code)
        if type(exc).__name__ == "NoArgsIsHelpError":
            sys.stderr.write(exc.format_message() + "\n")  # type: ignore[attr-defined]
            sys.exit(2)
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):
            ctx = getattr(exc, "ctx", None)
            where = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            _err(f"error: {exc.format_message()}{where}")
            sys.exit(int(exc.exit_code))
        if type(exc).__name__ == "Abort":
            _err("aborted")
            sys.exit(130)
        raise
    sys.exit(code if isinstance(code, int) else 0)
