#!/usr/bin/env python3
"""The logic of the schema-audit GitHub Action (``action.yml``): snapshot, diff, summary, gate.

Every piece of work is a subprocess call of the ``schema-audit`` CLI (``python -m mcp_schema_audit`` with this
interpreter, or the command in ``SCHEMA_AUDIT_CLI``). ``action.yml`` runs this script with the interpreter of the
venv it installed schema-audit into, and the script uses that package too: its escapers for every text it
writes, its strict JSON reader and its SARIF merge. The inputs are parsed in ``action_inputs.py``; the summary,
outputs and combined reports are written by ``action_report.py``; the zero-setup gate's flow (the base
revision, its git worktree, setup commands, started servers, each side captured) is the package's
``mcp_schema_audit.prcheck``, the code of ``schema-audit check``.

Inputs are environment variables ``INPUT_<NAME>`` (upper case, ``-`` → ``_``), as ``action.yml``
maps them. NEW is one of:

- ``INPUT_SNAPSHOT``: a snapshot file, a raw ``tools/list`` JSON file, a store label or ``git:REF:PATH``;
- ``INPUT_COMMAND``: a stdio server command line (split like a shell, no shell runs it);
- ``INPUT_URL`` (Streamable HTTP) or ``INPUT_SSE`` (legacy SSE), with ``INPUT_HEADER_ENV`` lines
  ``Name=ENV_VAR`` (the token stays in the environment) and optionally ``INPUT_START_COMMAND`` (a shell
  command that starts that server, run in the checkout, stopped after the capture);
- ``INPUT_CONFIGURATIONS``: a JSON list of configurations instead (each ``{"name", "command" | "url" |
  "sse", "env", "cwd", "protocol", "timeout", "header-env", "base-command", "start-command"}``), checked
  one after the other, one report section each.

OLD is ``INPUT_BASE`` (a store label, a file or ``git:origin/main:PATH``) or, zero-setup, the server at
``INPUT_BASE_REF`` (a git revision; default on a pull request: the merge base with the target branch;
on a tag push: the previous tag, none = a first release, nothing to compare): checked out in a
temporary ``git worktree``, set up with ``INPUT_INSTALL_COMMAND`` and ``INPUT_BUILD_COMMAND`` (shell
commands, also run in the pull request's checkout), captured with the same command, url and
start-command there (or ``INPUT_BASE_COMMAND``), and removed afterwards.

Capture options: ``INPUT_ENV`` (lines ``KEY=VALUE`` for a stdio server, or the environment of a
start-command), ``INPUT_CWD`` (relative to each side's checkout), ``INPUT_PROTOCOL``, ``INPUT_TIMEOUT``,
``INPUT_LABEL`` (default ``pr``). Diff options: ``INPUT_FAIL_ON``,
``INPUT_MODE``, ``INPUT_HOSTS`` and ``INPUT_SEVERITY`` (lists: commas or lines), ``INPUT_CONFIG``,
``INPUT_STORE``, ``INPUT_ARGS`` (more ``diff`` arguments, split like a shell). Outputs:
``INPUT_OUTPUT_DIR`` (default ``schema-audit-report``; always ``schema-audit.json``, ``schema-audit.md`` and
``schema-audit.html`` (a self-contained page) there; with configurations, each one's files in
``<output-dir>/<name>/`` and a combined ``schema-audit.md`` and ``schema-audit.sarif``), ``INPUT_FORMATS`` (more
report files: ``sarif``, ``junit``, ``text``, ``github``), ``INPUT_UPLOAD_SARIF`` (``true`` → ``schema-audit.sarif``),
``INPUT_ANNOTATIONS`` (``true``, default → workflow-command annotations on stdout), ``INPUT_SUMMARY`` (``true``,
default → the Markdown report appended to ``$GITHUB_STEP_SUMMARY``). Gate: ``INPUT_APPROVAL_LABEL`` (default
``schema-change-approved``; empty = no bypass): when the pull request in ``$GITHUB_EVENT_PATH``
carries it, a failed gate passes. ``INPUT_POLICY`` (``base``, default, or ``pull-request``): whose
configuration file decides the gate; by default the base revision's (read with ``git show``), the pull
request's own only when it lowers nothing or carries the approval label (``action_policy.py``); overrides that
lower it are in the summary. ``INPUT_DEFER_EXIT=true`` exits 0 and leaves the verdict in the ``exit-code``
output (the action enforces it after uploading SARIF). When ``action.yml`` installed the CLI
into ``$RUNNER_TEMP/schema-audit-venv``, that venv's ``bin`` folder is appended to ``$GITHUB_PATH``, so later
steps of the job can run ``schema-audit`` (e.g. ``schema-audit probe``). Boolean inputs read
true/yes/on/1 and false/no/off/0 in any case; every input is parsed before anything runs, and a bad one
is exit 2 with one ``::error::`` line naming it.

Outputs (``$GITHUB_OUTPUT``): ``exit-code``, ``passed``, ``approved``, ``breaking``, ``warning``,
``info``, ``report-dir``, ``json-file``, ``markdown-file``, ``html-file``, ``sarif-file`` (empty when not
written), ``junit-file``, ``text-file``, ``github-file`` (written with ``INPUT_FORMATS`` naming them),
``snapshot`` (NEW as given to ``diff``), ``base-ref`` (the commit captured as OLD, zero-setup only),
``base-snapshot`` (OLD as given to ``diff``), ``upload-sarif`` (``true`` when asked for). With configurations,
``json-file``, the other ``*-file`` outputs but ``markdown-file``/``sarif-file``, ``snapshot`` and
``base-snapshot`` list one path per configuration, one per line.

Exit codes: 0 gate passed (or failed and approved by label) · 1 gate failed · 2 bad action input or
CLI usage/input error · 3 capture error (also: the base could not be installed, built or started) · 4
internal error. The label never bypasses 2-4.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp_schema_audit.prcheck import processes, sides
from mcp_schema_audit.prcheck.base import BaseError, BaseRevision, FirstRelease, resolve_base
from mcp_schema_audit.report.escape import inert, no_workflow_commands
from mcp_schema_audit.report.github import gh_data
from mcp_schema_audit.report.markdown import md_escape, md_fence
from mcp_schema_audit.snapshot.store import is_label

sys.path.insert(0, str(Path(__file__).resolve().parent))
import action_policy  # noqa: E402  (whose configuration decides the gate)
from action_inputs import (  # noqa: E402  (every input, parsed)
    EXTRA_FORMATS,
    ActionError,
    Configuration,
    approval_label,
    configurations,
    diff_options,
    flag,
    head_label,
    input_value,
    lenient_flag,
    list_items,
    pr_labels,
)
from action_report import (  # noqa: E402  (summary, outputs, annotations, combined reports)
    WRITE_FAILURES,
    Checked,
    Result,
    append,
    approved_headline,
    combine,
    publish_cli,
    summary_tail,
    write_outputs,
)

#: Seconds the CLI gets to stop its server after the Action forwarded a SIGTERM (its own grace periods are 5 s).
CHILD_GRACE_S = 30.0
_CHILDREN: list[subprocess.Popen[str]] = []
_CANCELLED: list[int] = []


class Cancelled(BaseException):
    """The Action got SIGTERM (a cancelled job): everything it started has been stopped; exit 143."""


def _on_sigterm(signum: int, frame: object) -> None:
    """SIGTERM (or SIGINT, SIGHUP: a cancelled job): SIGTERM forwarded to a running CLI child, which stops its
    own server and exits (``_run`` then raises ``Cancelled``); with none running, ``Cancelled`` at once (setup
    commands' and servers' process groups are stopped on the way out by their context managers)."""
    _CANCELLED.append(signum)
    if len(_CANCELLED) > 1:
        return  # already stopping: the clean-up under way must finish
    if _CHILDREN:
        for child in _CHILDREN:
            with contextlib.suppress(OSError):
                child.send_signal(signal.SIGTERM)
        return
    raise Cancelled()


def _cli() -> list[str]:
    """The command that runs the CLI: ``SCHEMA_AUDIT_CLI`` split like a shell, else ``python -m mcp_schema_audit``
    with this interpreter."""
    override = os.environ.get("SCHEMA_AUDIT_CLI", "").strip()
    return shlex.split(override) if override else [sys.executable, "-m", "mcp_schema_audit"]


def _run(
    args: list[str],
    *,
    what: str,
    ok: tuple[int, ...] = (0,),
    capture_stdout: bool = False,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run the CLI; its stderr is echoed to ours. Raises ``ActionError`` (the CLI's code) when rc ∉ ``ok``."""
    cmd = _cli() + args
    try:
        child = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE if capture_stdout else subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            start_new_session=True,  # a signal to the Action's group reaches it once: forwarded, never twice
        )
    except FileNotFoundError as exc:
        raise ActionError(f"cannot run the schema-audit CLI ({cmd[0]}): {exc.strerror}", 4) from None
    _CHILDREN.append(child)  # a SIGTERM to the Action is forwarded to it, and waited for (``_on_sigterm``)
    try:
        out, errors = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        child.terminate()
        child.communicate(timeout=CHILD_GRACE_S)
        raise ActionError(f"{what} did not finish within {timeout:.0f} s", 3) from None
    finally:
        _CHILDREN.remove(child)
    if _CANCELLED:
        raise Cancelled()
    proc = subprocess.CompletedProcess(cmd, child.returncode, out, errors)
    if proc.stderr:  # echoed inert: a server's stderr quoted by the CLI forges no workflow command in the log
        sys.stderr.write("".join(no_workflow_commands(inert(ln)) + "\n" for ln in proc.stderr.splitlines()))
    if proc.returncode not in ok:
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        detail = lines[-1] if lines else f"exit code {proc.returncode}"
        code = proc.returncode if proc.returncode in (2, 3, 4) else 4
        raise ActionError(f"{what} failed: {detail}", code)
    return proc


def _check_snapshot_ref(ref: str, what: str, config: str | None) -> None:
    """Raise ``ActionError`` (exit 2) when the CLI cannot load snapshot ``ref`` (a label, a file, git:REF:PATH)
    with the configuration file ``config`` (``None``: the default lookup)."""
    located = [
        *(["--config", config] if config else []),
        *(["--store", input_value("store")] if input_value("store") else []),
    ]
    try:
        _run(
            ["diff", "--format", "json", "--fail-on", "never", *located, "--", ref, ref],
            what=f"reading {what}",
            capture_stdout=True,
        )
    except ActionError as exc:
        raise ActionError(str(exc), 2 if exc.code == 4 else exc.code) from None


def _capturer(cfg: Configuration) -> sides.Capturer:
    """One capture of ``cfg``'s server: ``schema-audit snapshot`` with its protocol, timeout, env and headers."""

    def capture(one: sides.Capture) -> None:
        args = ["snapshot", "--out", str(one.target), "--force", "--label", one.label]  # reruns replace it
        if cfg.protocol:
            args += ["--protocol", cfg.protocol]
        if cfg.timeout:
            args += ["--timeout", cfg.timeout]
        if one.command:
            for item in one.env:
                args += ["--env", item]
            if one.cwd is not None:
                args += ["--cwd", str(one.cwd)]
            _run([*args, "--", *one.command], what=one.what)
            return
        args += ["--url", one.url] if one.url else ["--sse", one.sse]
        for item in cfg.header_env:
            args += ["--header-env", item]
        _run(args, what=one.what)

    return capture


def _capture(cfg: Configuration, *, side: str, label: str, target: Path, folder: Path | None) -> str:
    """Capture ``cfg``'s server as seen from ``folder`` (``None``: the current folder) into ``target``; returns
    ``str(target)``. ``side`` is ``base`` or ``head``: ``prcheck.sides.capture_side``, the flow of
    ``schema-audit check``, with ``schema-audit snapshot`` doing each capture."""
    try:
        timeout_s = float(cfg.timeout or 60)
    except ValueError:
        raise ActionError(f"timeout must be a number of seconds (got {cfg.timeout!r})") from None
    reached = sides.Side(
        command=tuple(cfg.command),
        base_command=tuple(cfg.base_command),
        url=cfg.url,
        sse=cfg.sse,
        env=tuple(cfg.env),
        cwd=cfg.cwd,
        start_command=cfg.start_command,
        timeout_s=timeout_s,
        name=cfg.name,
    )
    try:
        return str(
            sides.capture_side(reached, side, label=label, target=target, folder=folder, capturer=_capturer(cfg))
        )
    except BaseError as exc:
        raise ActionError(str(exc), exc.code) from None


def _no_symlink(folder: Path) -> Path:
    """``folder`` when neither it nor any folder on its way is a symbolic link, else ``ActionError`` (exit 2): a
    link committed as the output folder would make the Action delete and write report files outside the
    workspace."""
    here = Path(folder.anchor) if folder.is_absolute() else Path.cwd()
    for part in folder.parts[1:] if folder.is_absolute() else folder.parts:
        here = here / part
        if here.is_symlink():
            raise ActionError(f"output-dir {folder}: {here} is a symbolic link; give a real folder")
    return folder


def _each(checks: list[Checked], single: bool, step: Callable[[Checked], None]) -> None:
    """Run ``step`` on each configuration not stopped yet; an ``ActionError`` stops the run when there is one
    configuration, else only that configuration (its ``exit_code`` and ``error`` set)."""
    for checked in checks:
        if checked.error:
            continue
        try:
            step(checked)
        except ActionError as exc:
            if single:
                raise
            checked.exit_code, checked.error = exc.code, str(exc)


def _capture_base(
    cfg: Configuration,
    checked: Checked,
    base: str,
    revision: BaseRevision | None,
    base_root: Path | None,
    setup: list[tuple[str, str]],
) -> None:
    """Make ``checked``'s output folder and set its base: ``base`` (a snapshot reference) without a base
    revision, else the base's server captured from ``base_root``, before the pull request's own setup runs
    (``setup``: the install and build commands given, for the next step when the base's server cannot start)."""
    folder = checked.folder = _no_symlink(checked.folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ActionError(f"cannot create output-dir {folder}: {exc.strerror}") from None
    if revision is not None and base_root is not None:
        try:
            checked.base_ref = _capture(
                cfg, side="base", label=revision.label, target=folder / "base.json", folder=base_root
            )
        except ActionError as exc:
            hint = sides.unbuilt_hint(str(exc), setup, str) if exc.code == 3 else None
            raise ActionError(f"{exc}; {hint}" if hint else str(exc), exc.code) from None
    else:
        checked.base_ref = base


def _check(
    cfg: Configuration,
    checked: Checked,
    revision: BaseRevision | None,
    opts: list[str],
    formats: list[str],
    annotations: bool,
) -> None:
    """Capture the head, diff and write every report of one configuration into ``checked`` (its base captured
    by ``_capture_base`` already)."""
    folder = checked.folder
    if cfg.snapshot:
        checked.new_ref = cfg.snapshot
    else:
        checked.new_ref = _capture(
            cfg,
            side="head",
            label=head_label(),
            target=folder / "snapshot.json",
            folder=Path.cwd() if revision is not None else None,
        )

    def diff(fmt: str, output: Path | None) -> subprocess.CompletedProcess[str]:
        # OLD and NEW after --: a value that starts with "-" is a path or label, never an option
        args = [
            "diff",
            "--format",
            fmt,
            *opts,
            "--source-root",  # annotations and SARIF on each tool's registration in the checkout when found
            str(Path.cwd()),
            *(["--output", str(output)] if output is not None else []),
            "--",
            checked.base_ref,
            checked.new_ref,
        ]
        if output is not None:
            try:
                output.unlink(missing_ok=True)  # a report left by an earlier run is never read as this one's
            except OSError as exc:
                raise ActionError(f"cannot replace {output}: {exc.strerror}") from None
        proc = _run(args, what=f"diff --format {fmt}", ok=(0, 1), capture_stdout=output is None)
        if output is not None and not output.is_file():
            raise ActionError(
                f"diff --format {fmt} wrote no report to {output} (does input args end it early, e.g. with --help?)"
            )
        return proc

    json_file = folder / "schema-audit.json"
    gate = diff("json", json_file).returncode
    try:
        report: dict[str, Any] = json.loads(json_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ActionError(f"cannot read the JSON report {json_file}: {exc}", 4) from None
    checked.counts = {k: int(report.get("summary", {}).get(k, 0)) for k in ("breaking", "warning", "info")}
    checked.passed = gate == 0
    checked.files["json-file"] = str(json_file)
    md_file = folder / "schema-audit.md"
    diff("markdown", md_file)
    checked.files["markdown-file"] = str(md_file)
    html_file = folder / "schema-audit.html"  # the page people open from the uploaded artifact
    diff("html", html_file)
    checked.files["html-file"] = str(html_file)
    for fmt in dict.fromkeys(formats):
        if fmt in ("json", "markdown", "html"):
            continue
        path = folder / f"schema-audit.{EXTRA_FORMATS[fmt]}"
        diff(fmt, path)
        checked.files[f"{fmt}-file"] = str(path)
    if annotations:
        checked.github = diff("github", None).stdout
    checked.exit_code = 0 if checked.passed else 1


def _inputs() -> tuple[list[str], list[str], bool, list[Configuration]]:
    """Every input parsed, before anything is created, set up or started: ``(diff options, extra formats,
    annotations, configurations)``. Raises one ``ActionError`` (exit 2) naming every bad input, a line each,
    in the order of action.yml's inputs, not only the first one met."""
    problems: list[str] = []
    if input_value("base") and input_value("base-ref"):
        problems.append(
            "give input base (a snapshot hosts cached) or base-ref (a revision to build and capture), not both"
        )

    def parsed(read: Callable[[], Any], default: Any) -> Any:
        try:
            return read()
        except ActionError as exc:
            problems.append(str(exc))
            return default

    parsed(lambda: flag("summary", True), True)
    parsed(lambda: flag("defer-exit", False), False)
    if not is_label(head_label()):
        problems.append(f"input label must be letters, digits, . _ + - (got {input_value('label')!r})")
    opts = parsed(diff_options, [])
    rules = [item.partition("=")[0].strip() for item in parsed(lambda: list_items("severity"), [])]
    if rules:  # rule ids are the CLI's: ask it once, before anything runs
        listed = _run(["rules", "--format", "json"], what="schema-audit rules", capture_stdout=True).stdout
        known = {r["id"] for r in json.loads(listed)}
        problems += [f"input severity: unknown rule {r!r} (see schema-audit rules)" for r in rules if r not in known]
    formats = parsed(lambda: list_items("formats"), [])
    unknown = [f for f in formats if f not in EXTRA_FORMATS]
    if unknown:
        problems.append(f"input formats: unknown {', '.join(unknown)} (use {', '.join(EXTRA_FORMATS)})")
    if parsed(lambda: flag("upload-sarif", False), False) and "sarif" not in formats:
        formats.append("sarif")
    annotations = parsed(lambda: flag("annotations", True), True)
    configs = parsed(configurations, [])
    if problems:
        raise ActionError("\n".join(problems))
    return opts, formats, annotations, configs


def run() -> Result:
    """Do the work; raise ``ActionError`` for any failure (its code is the exit code).

    With several configurations, one that fails (exit 2-4) does not stop the others: its section of the
    summary says why, and the run's exit code is that failure's.
    """
    result = Result()
    base, base_ref = input_value("base"), input_value("base-ref")
    opts, formats, annotations, configs = _inputs()
    out_dir = _no_symlink(Path(input_value("output-dir", "schema-audit-report")))
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ActionError(f"cannot create output-dir {out_dir}: {exc.strerror}") from None
    revision = None
    if not base:
        try:
            revision = resolve_base(base_ref, dict(os.environ))
        except FirstRelease as first:
            result.exit_code, result.passed, result.note = (
                0,
                True,
                (f"{first.args[0]} is the first tag: no host can have cached an earlier version, nothing to compare"),
            )
            return result
        except BaseError as exc:
            raise ActionError(str(exc), exc.code) from None
        result.base_revision = revision.sha
        if any(c.snapshot for c in configs):
            raise ActionError(
                "input snapshot gives NEW as a file: with base-ref, give command or url (the base is "
                "captured the same way)"
            )
    labelled = bool(approval_label()) and approval_label() in pr_labels(os.environ.get("GITHUB_EVENT_PATH"))
    policy_sha, policy_why = (revision.sha, revision.why) if revision is not None else action_policy.policy_base()
    policy = action_policy.decide(policy_sha, policy_why, labelled)
    if policy.config and policy.config != input_value("config"):
        opts += ["--config", policy.config]  # the last --config is the one diff reads
    result.policy = policy.markdown()
    for line in policy.shown():
        sys.stderr.write(
            f"schema-audit: policy: the pull request lowers the gate "
            f"({'applied' if policy.applied else 'not applied'}): {no_workflow_commands(inert(line))}\n"
        )
    if len(policy.lowering) > len(policy.shown()):
        sys.stderr.write(f"schema-audit: policy: … and {len(policy.lowering) - len(policy.shown())} more lowerings\n")
    # a snapshot given by name must load before any install, build or capture runs: the same CLI reads it
    # the same way (store, config, git:REF:PATH); comparing it with itself is all but free
    for what, ref in [("input base", base)] + [
        (f"input snapshot{f' ({c.name})' if c.name else ''}", c.snapshot) for c in configs
    ]:
        if ref:
            _check_snapshot_ref(ref, what, policy.config)
    single = len(configs) == 1 and not configs[0].name
    checks = [Checked(cfg, out_dir if single else out_dir / cfg.name) for cfg in configs]
    env = dict(os.environ)
    setup = [
        (key, command)
        for key, command in (
            ("install-command", input_value("install-command")),
            ("build-command", input_value("build-command")),
        )
        if command
    ]
    try:
        with sides.checked_out(revision, setup, env, "the pull request's checkout") as checkouts:
            # every base first, then the pull request's install and build: these cannot change a base's server
            _each(checks, single, lambda c: _capture_base(c.cfg, c, base, revision, checkouts.base_root, setup))
            checkouts.set_up_head()
            _each(checks, single, lambda c: _check(c.cfg, c, revision, opts, formats, annotations))
    except BaseError as exc:
        hint = sides.unbuilt_hint(str(exc), setup, str) if exc.code == 3 and " in the base " in str(exc) else None
        raise ActionError(f"{exc}; {hint}" if hint else str(exc), exc.code) from None
    label = approval_label()
    failed_gate = any(c.exit_code == 1 for c in checks) and not any(c.exit_code > 1 for c in checks)
    result.passed = all(c.exit_code == 0 for c in checks)
    result.approved = bool(label) and failed_gate and label in pr_labels(os.environ.get("GITHUB_EVENT_PATH"))
    combine(result, checks, single, out_dir, approved=result.approved)  # an approved run prints no ::error
    errors = [c.exit_code for c in checks if c.exit_code > 1]
    result.exit_code = errors[0] if errors else 0 if result.passed or result.approved else 1
    return result


def main(argv: list[str] | None = None) -> int:
    """Entry point: run, write the summary and outputs, return the exit code (0 when deferred).

    Takes no arguments (inputs are ``INPUT_*`` environment variables); ``--help`` prints this module's
    documentation and exits 0 without running, and any other argument is exit 2, before anything is written.
    """
    parser = argparse.ArgumentParser(
        prog="action_run.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.parse_args(sys.argv[1:] if argv is None else argv)
    # a summary or defer-exit value that flag() refuses is reported by run() (exit 2); until then, the default
    summary = os.environ.get("GITHUB_STEP_SUMMARY") if lenient_flag("summary", True) else None
    label = approval_label()
    publish_cli()
    processes.become_subreaper()  # a daemonizing start-command's server comes back here, to be stopped
    before = processes.children_of_self()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):  # a cancelled job: SIGINT, then SIGTERM
        signal.signal(sig, _on_sigterm)
    try:
        return _finish(summary, label, deferred_of())
    finally:  # a daemon a setup command double-forked came back here too: nothing is left running
        processes.stop_adopted(before)


def deferred_of() -> bool:
    """The ``defer-exit`` input, read leniently (``run`` reports a value ``flag`` refuses)."""
    return lenient_flag("defer-exit", False)


def _finish(summary: str | None, label: str, deferred: bool) -> int:
    """Run, then write the summary and outputs; the exit code (0 when ``deferred``)."""
    try:
        result = run()
    except Cancelled:
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):  # the outputs are written once
            signal.signal(sig, signal.SIG_IGN)
        result = Result(exit_code=143)
        name = signal.Signals(_CANCELLED[0]).name if _CANCELLED else "SIGTERM"
        message = f"cancelled ({name}): the CLI, the servers and the setup commands it started were stopped"
        sys.stderr.write(f"schema-audit: {message}\n")
        append(summary, f"### ⚠️ schema-audit was cancelled (exit 143)\n\n{md_escape(message)}\n")
        write_outputs(result)
        return 143
    except ActionError as exc:
        result = Result(exit_code=exc.code)
        message = str(exc)
        sys.stdout.write(f"::error title=schema-audit::{gh_data(message)}\n")
        append(summary, f"### ⚠️ schema-audit could not run (exit {exc.code})\n\n{md_fence(inert(message))}\n")
    else:
        md_file = result.files.get("markdown-file")
        if result.note:
            append(summary, f"### ✅ schema-audit: nothing to compare\n\n{md_escape(result.note)}\n")
            sys.stderr.write(f"schema-audit: {result.note}\n")
        elif md_file:
            text = Path(md_file).read_text(encoding="utf-8")
            headline = approved_headline(text, label) if result.approved else text
            append(summary, headline + summary_tail(result, label) + result.policy)
        verdict = (
            "passed"
            if result.passed
            else "failed, approved by label"
            if result.approved
            else f"not run for every configuration (exit {result.exit_code})"
            if result.exit_code > 1
            else "failed"
        )
        c = result.counts
        sys.stderr.write(
            f"schema-audit: {c['breaking']} breaking, {c['warning']} warning, {c['info']} info; gate {verdict}\n"
        )
    write_outputs(result)
    if WRITE_FAILURES:  # the summary or the outputs are not there: never a silent pass (one line said which)
        return result.exit_code if result.exit_code > 1 else 2
    return 0 if deferred else result.exit_code


if __name__ == "__main__":
    sys.exit(main())
