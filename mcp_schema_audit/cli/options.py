"""What every command shares: option help texts, settings merged from flags and the config file, loading
snapshots, tool filters, rendering and writing a report."""

from __future__ import annotations

import fnmatch
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from mcp_schema_audit.cli.app import _err
from mcp_schema_audit.errors import UsageError
from mcp_schema_audit.snapshot import DEFAULT_STORE, Snapshot, load_snapshot
from mcp_schema_audit.snapshot.atomic import atomic_write_text
from mcp_schema_audit.words import join_words, plural

_CONFIG_HELP_SHORT = "Config file (its 'store' is the default for --store)."


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


def _write_output(text: str, out: str | None) -> None:
    """Write a report to stdout (``out`` None or ``-``) or atomically to the file ``out``. Raises
    ``BrokenPipeError`` when the reader of stdout went away, ``InputError`` when stdout or the file cannot take
    it (a full disk: ``cannot write the report to stdout: No space left on device``)."""
    if out in (None, "-"):
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            from mcp_schema_audit.errors import InputError

            raise InputError(f"cannot write the report to stdout: {exc.strerror or exc}") from None
    elif not out.strip():
        from mcp_schema_audit.errors import UsageError

        raise UsageError("--output needs a file name (or - for stdout)")
    else:
        atomic_write_text(Path(out), text)


def _load(ref: str, store: Path) -> Snapshot:
    """A label in the store, a snapshot or tools/list file, or ``git:REF:PATH``."""
    from mcp_schema_audit.gitref import is_git_ref, load_git_snapshot

    return load_git_snapshot(ref) if is_git_ref(ref) else load_snapshot(ref, store=store)


def _ref_parts(ref: str) -> tuple[str, list[str]]:
    """A snapshot reference as (git revision or ``""``, path components with ``.json`` dropped)."""
    rev = ""
    if ref.startswith("git:") and ref.count(":") >= 2:
        rev, ref = ref[4:].split(":", 1)
    parts = [p for p in ref.replace(os.sep, "/").split("/") if p not in ("", ".")]
    if parts and parts[-1].endswith(".json"):
        parts[-1] = parts[-1][: -len(".json")]
    return rev, parts


def distinct_labels(
    old: Snapshot, new: Snapshot, old_ref: str, new_ref: str, old_label: str | None, new_label: str | None
) -> None:
    """Set the labels the reports show for OLD and NEW: ``--old-label``/``--new-label`` when given; else, when
    both carry one label (``a/tools.json``, ``b/tools.json``), the shortest ends of their references that
    tell them apart (``a/tools``, ``b/tools``; for one path at two revisions ``main:tools``, ``HEAD:tools``).
    Raises ``UsageError`` for an empty or multi-line label."""
    for flag, value in (("--old-label", old_label), ("--new-label", new_label)):
        if value is not None and (not value.strip() or len(value.splitlines()) > 1 or len(value) > 200):
            raise UsageError(f"{flag} must be one line of text, 1 to 200 characters (got {value!r})")
    if old_label is None and new_label is None and old.label == new.label:
        (rev_a, a), (rev_b, b) = _ref_parts(old_ref), _ref_parts(new_ref)
        if a != b:  # the shortest ends of the paths that differ
            k = 1
            while k < max(len(a), len(b)) and a[-k:] == b[-k:]:
                k += 1
            old.label, new.label = "/".join(a[-k:]) or old.label, "/".join(b[-k:]) or new.label
        elif rev_a != rev_b:  # one path at two revisions
            old.label, new.label = f"{rev_a or 'worktree'}:{old.label}", f"{rev_b or 'worktree'}:{new.label}"
    old.label = old_label.strip() if old_label is not None else old.label
    new.label = new_label.strip() if new_label is not None else new.label


def _settings(
    config: Path | None,
    fail_on: str | None,
    mode: str | None,
    host: list[str],
    severity: list[str],
    store: Path | None,
    *,
    fmt: str | None = None,
    formats: tuple[str, ...] = (),
    config_format: bool = True,
    tools: list[str] = (),
    exclude_tools: list[str] = (),
) -> dict[str, Any]:
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
    for warning in cfg.warnings:
        _err(f"warning: {warning}")
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
_TIME_BUDGET_HELP = (
    "Last-resort guard: seconds the whole comparison may run (default 900; 0 = no limit). "
    "Verdicts never depend on time (every budget that bounds them counts work); past this "
    "guard the run stops with exit 4 and writes no report."
)


_JOBS_HELP = (
    "Processes to compare tools on (default: every core this process may use; 1 = one process). "
    "Only catalogs with many changed tools are split; the report is the same either way."
)


def _jobs(jobs: int | None) -> int | None:
    """``--jobs`` checked: None (every available core) or an integer ≥ 1; raises ``UsageError``."""
    if jobs is not None and jobs < 1:
        raise UsageError(f"--jobs must be a number of processes ≥ 1 (got {jobs})")
    return jobs


class _Progress:
    """A rich progress bar on stderr while tools are compared, only when stderr is a terminal (and ``TERM`` is
    not ``dumb``); otherwise nothing at all. Use as a context manager; ``update(done, total)`` is the
    engine's ``progress`` callback (a new pass, e.g. the forward half of ``--mode full`` or the next cohort
    of ``history``, starts again from 0). Refreshed by the callback, never by a thread (the worker pool forks)."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.bar: Any = None
        self.task: Any = None
        self.passes = 0
        self.last = -1
        self.shown = 0.0

    def __enter__(self) -> _Progress:
        if sys.stderr.isatty() and os.environ.get("TERM") != "dumb":
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                auto_refresh=False,
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(self.what, total=None)
        return self

    @property
    def callback(self) -> Any:
        """The ``progress(done, total)`` callback, or None when no bar is shown."""
        return self.update if self.bar is not None else None

    def update(self, done: int, total: int) -> None:
        if done <= self.last:
            self.passes += 1
        self.last = done
        label = self.what if not self.passes else f"{self.what} (pass {self.passes + 1})"
        self.bar.update(self.task, completed=done, total=total, description=label)
        now = time.monotonic()
        if done == total or now - self.shown >= 0.1:  # at most ten redraws a second
            self.shown = now
            self.bar.refresh()

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.stop()


def _budget(seconds: float | None) -> float | None:
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


HISTORY_FORMATS = DIFF_FORMATS


RULES_FORMATS = ("text", "json")


_FORMATS_HELP = (
    " | ".join(DIFF_FORMATS) + " (ignore: ready-to-paste [[ignore]] entries; exits 0). "
    "Default: text, or the config file's format."
)


_HISTORY_FORMATS_HELP = " | ".join(HISTORY_FORMATS) + " (ignore: ready-to-paste [[ignore]] entries; exits 0)."


_SAMPLES_HELP = (
    "A probe recording of NEW (probe --record FILE): every recorded result a cached (OLD) outputSchema "
    "rejects is a breaking finding with the real payload as its witness."
)


_TOOL_HELP = (
    "Only tools whose name matches this glob (fnmatch: * ? [seq]; case-sensitive; repeatable). "
    "Default: the config file's tools, else every tool."
)


_EXCLUDE_TOOL_HELP = (
    "Leave out tools whose name matches this glob (repeatable; applied after --tool). "
    "Default: the config file's exclude_tools."
)


def _tool_filter(snaps: list[Snapshot], include: list[str], exclude: list[str]) -> tuple[list[Snapshot], list[str]]:
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
    where = join_words((repr(x) for x in labels), "or") if len(labels) <= 3 else f"any of the {len(labels)} snapshots"
    for flag, globs in (("--tool", include), ("--exclude-tool", exclude)):
        for glob in globs:
            if not any(fnmatch.fnmatchcase(n, glob) for n in names):
                _err(f"warning: {flag} {glob!r} matches no tool in {where}")
    from mcp_schema_audit.snapshot import tool_selected

    kept = sum(1 for n in names if tool_selected(n, include, exclude))
    if names and not kept:
        raise UsageError(
            f"the tool filters leave none of the {plural(len(names), 'tool')} in scope; check --tool/--exclude-tool "
            "(or tools/exclude_tools in the config file)"
        )
    parts = ([f"--tool {', '.join(include)}"] if include else []) + (
        [f"--exclude-tool {', '.join(exclude)}"] if exclude else []
    )
    note = f"tool filter ({'; '.join(parts)}): {kept} of {plural(len(names), 'tool')} in scope"
    return [s.filtered(include, exclude) for s in snaps], [note]


def _render(report: Any, fmt: str, output: str | None) -> str:
    """``report`` (a ``Report`` or a ``History``) in ``fmt``; ``text`` in colour on a terminal (unless
    ``NO_COLOR``); ``ignore``: ready-to-paste ``[[ignore]]`` entries. Raises ``UsageError`` for another format."""
    from mcp_schema_audit.report import RENDERERS, render

    if fmt == "text":
        tty = output is None and sys.stdout.isatty()
        width = shutil.get_terminal_size((120, 24)).columns if tty else 120
        return render(report, "text", color=tty and "NO_COLOR" not in os.environ, width=width)
    if fmt == "ignore":
        from mcp_schema_audit.policy import ignore_entries_toml

        findings = report.all_findings() if hasattr(report, "all_findings") else report.findings
        return ignore_entries_toml(findings)
    if fmt not in RENDERERS:
        from mcp_schema_audit.policy import REPORT_FORMATS

        raise UsageError(f"--format must be one of {', '.join(REPORT_FORMATS)} (got {fmt!r})")
    return RENDERERS[fmt](report)


def run_diff(
    old: Snapshot,
    new: Snapshot,
    *,
    fail_on: str = "breaking",
    mode: str = "backward",
    hosts: list[str] | None = None,
    severity: dict[str, str] | None = None,
    ignore: list[Any] | None = None,
    time_budget: float | None = None,
    samples: Any = None,
    jobs: int | None = None,
    progress: Any = None,
) -> Any:
    """Diff two snapshots into a ``Report``: findings for ``mode``, then policy (hosts, severity, ignore).

    Findings are sorted by tool, direction, pointer, rule. ``time_budget``: seconds for the whole
    comparison (``engine.diff_snapshots``; default ``RUN_TIME_BUDGET_S``, 0 = none); ``jobs`` and ``progress``
    as there (processes, and a ``(done, total)`` callback). ``samples`` (a
    ``probe.Recording`` of NEW's real results, ``--samples``) adds a breaking finding for every recorded
    result OLD's outputSchema (or NEW's own) rejects, with the real payload as its witness, even where the
    schema comparison found nothing. Raises ``UsageError`` for a bad mode, or ``samples`` with ``mode``
    forward (the recording holds NEW's results; forward hosts cached NEW).
    """
    from mcp_schema_audit.policy import apply_policy, diff_with_mode
    from mcp_schema_audit.report import Report
    from mcp_schema_audit.schema import HOST_PROFILES

    notes = []
    if old.protocol_version and new.protocol_version and old.protocol_version != new.protocol_version:
        notes.append(
            f"protocol versions differ ({old.protocol_version} vs {new.protocol_version}): servers may "
            "advertise different schemas per protocol era; compare snapshots of the same era"
        )
    from mcp_schema_audit.surfaces import uncompared_note

    note = uncompared_note(old, new)
    if note:
        notes.append(note)
    findings = diff_with_mode(old, new, mode, time_budget=time_budget, jobs=jobs, progress=progress)
    if samples is not None:
        from mcp_schema_audit.probe import samples_findings

        if mode == "forward":
            raise UsageError(
                "--samples holds results of NEW, checked against hosts that cached OLD: it does not "
                "apply to --mode forward (use backward or full)"
            )
        found, sample_notes = samples_findings(samples, new, old)
        order = {"tool": 0, "input": 1, "output": 2}
        findings = sorted(findings + found, key=lambda f: (f.tool, order.get(f.direction, 3), f.pointer, f.rule))
        notes += sample_notes
    result = apply_policy(findings, severity=severity, hosts=hosts, ignore=ignore)
    return Report(
        old=old,
        new=new,
        findings=result.findings,
        fail_on=fail_on,
        notes=notes,
        mode=mode,
        hosts=list(hosts) if hosts else list(HOST_PROFILES),
        ignored=result.ignored,
        expired_ignores=result.expired,
    )
