#!/usr/bin/env python3
"""The logic of the schema-audit GitHub Action (``action.yml``): snapshot, diff, summary, gate.

Standard library only; every piece of work is a subprocess call of the ``schema-audit`` CLI
(``python -m mcp_schema_audit`` with this interpreter, or the command in ``SCHEMA_AUDIT_CLI``).

Inputs are environment variables ``INPUT_<NAME>`` (upper case, ``-`` → ``_``), as ``action.yml``
maps them. NEW is one of:

- ``INPUT_SNAPSHOT``: a snapshot file, a raw ``tools/list`` JSON file, a store label or ``git:REF:PATH``;
- ``INPUT_COMMAND``: a stdio server command line (split like a shell, no shell runs it);
- ``INPUT_URL`` (Streamable HTTP) or ``INPUT_SSE`` (legacy SSE), with ``INPUT_HEADER_ENV`` lines
  ``Name=ENV_VAR`` (the token stays in the environment).

Capture options: ``INPUT_ENV`` (lines ``KEY=VALUE`` for a stdio server), ``INPUT_CWD``,
``INPUT_PROTOCOL``, ``INPUT_TIMEOUT``, ``INPUT_LABEL`` (default ``pr``). Diff options:
``INPUT_BASE`` (required: store label, file or ``git:origin/main:PATH``), ``INPUT_FAIL_ON``,
``INPUT_MODE``, ``INPUT_HOSTS`` and ``INPUT_SEVERITY`` (lists: commas or lines), ``INPUT_CONFIG``,
``INPUT_STORE``, ``INPUT_ARGS`` (more ``diff`` arguments, split like a shell). Outputs:
``INPUT_OUTPUT_DIR`` (default ``schema-audit-report``; always ``schema-audit.json`` and
``schema-audit.md`` there), ``INPUT_FORMATS`` (more report files: ``sarif``, ``junit``, ``text``,
``github``), ``INPUT_SARIF`` (``true`` → ``schema-audit.sarif``), ``INPUT_ANNOTATIONS`` (``true``,
default → workflow-command annotations on stdout), ``INPUT_SUMMARY`` (``true``, default → the
Markdown report appended to ``$GITHUB_STEP_SUMMARY``). Gate: ``INPUT_APPROVAL_LABEL`` (default
``schema-change-approved``; empty = no bypass): when the pull request in ``$GITHUB_EVENT_PATH``
carries it, a failed gate passes. ``INPUT_DEFER_EXIT=true`` exits 0 and leaves the verdict in the
``exit-code`` output (the action enforces it after uploading SARIF).

Outputs (``$GITHUB_OUTPUT``): ``exit-code``, ``passed``, ``approved``, ``breaking``, ``warning``,
``info``, ``report-dir``, ``json-file``, ``markdown-file``, ``sarif-file`` (empty when not written),
``snapshot`` (NEW as given to ``diff``).

Exit codes: 0 gate passed (or failed and approved by label) · 1 gate failed · 2 bad action input or
CLI usage/input error · 3 capture error · 4 internal error. The label never bypasses 2-4.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

DEFAULT_APPROVAL_LABEL = "schema-change-approved"
FAIL_ON = ("breaking", "warning", "info", "never")
EXTRA_FORMATS = {"sarif": "sarif", "junit": "junit.xml", "text": "txt", "github": "github.txt",
                 "json": "json", "markdown": "md"}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


class ActionError(Exception):
    """A failure with its exit code and a one-line message."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def _input(name: str, default: str = "") -> str:
    value = os.environ.get("INPUT_" + name.upper().replace("-", "_").replace(" ", "_"), "")
    return value.strip() if value.strip() else default


def _flag(name: str, default: bool) -> bool:
    raw = _input(name, "true" if default else "false").lower()
    if raw in ("true", "yes", "1", "on"):
        return True
    if raw in ("false", "no", "0", "off"):
        return False
    raise ActionError(f"input {name} must be true or false (got {raw!r})")


def _list(name: str) -> list[str]:
    """A list input: items separated by commas or new lines, blanks dropped."""
    return [x.strip() for x in re.split(r"[,\n]", _input(name)) if x.strip()]


def _lines(name: str) -> list[str]:
    """A list input whose items may contain commas: one item per line."""
    return [x.strip() for x in _input(name).splitlines() if x.strip()]


def _inert(text: str) -> str:
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}",
                        text)


def _md(text: str) -> str:
    """User or CLI text for Markdown: inert, every markup character a character reference, no mentions."""
    out = []
    for ch in _inert(text).replace("\t", " ").replace("\n", " "):
        if ch in "\\`*_{}[]()<>#!|~&$":
            out.append(f"&#{ord(ch)};")
        elif ch == "@":
            out.append("@\u200b")
        else:
            out.append(ch)
    return "".join(out).replace("://", ":\u200b//")


def _gh(text: str) -> str:
    return _inert(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _fence(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}"


def _cli() -> list[str]:
    override = os.environ.get("SCHEMA_AUDIT_CLI", "").strip()
    return shlex.split(override) if override else [sys.executable, "-m", "mcp_schema_audit"]


@dataclass
class Result:
    """What one run of the action found (written to the outputs and the summary)."""

    exit_code: int = 4
    passed: bool = False
    approved: bool = False
    counts: dict[str, int] = field(default_factory=lambda: {"breaking": 0, "warning": 0, "info": 0})
    files: dict[str, str] = field(default_factory=dict)
    new_ref: str = ""


def _run(args: list[str], *, what: str, ok: tuple[int, ...] = (0,), capture_stdout: bool = False,
         timeout: Optional[float] = None) -> subprocess.CompletedProcess[str]:
    """Run the CLI; its stderr is echoed to ours. Raises ``ActionError`` (the CLI's code) when rc ∉ ``ok``."""
    cmd = _cli() + args
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE if capture_stdout else subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace",
                              timeout=timeout)
    except FileNotFoundError as exc:
        raise ActionError(f"cannot run the schema-audit CLI ({cmd[0]}): {exc.strerror}", 4) from None
    except subprocess.TimeoutExpired:
        raise ActionError(f"{what} did not finish within {timeout:.0f} s", 3) from None
    if proc.stderr:
        sys.stderr.write(proc.stderr)
    if proc.returncode not in ok:
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        detail = lines[-1] if lines else f"exit code {proc.returncode}"
        code = proc.returncode if proc.returncode in (2, 3, 4) else 4
        raise ActionError(f"{what} failed: {detail}", code)
    return proc


def _diff_options() -> list[str]:
    opts: list[str] = []
    fail_on = _input("fail-on", "breaking")
    if fail_on not in FAIL_ON:
        raise ActionError(f"input fail-on must be one of {', '.join(FAIL_ON)} (got {fail_on!r})")
    opts += ["--fail-on", fail_on]
    if _input("mode"):
        opts += ["--mode", _input("mode")]
    for host in _list("hosts"):
        opts += ["--host", host]
    for sev in _list("severity"):
        opts += ["--severity", sev]
    if _input("config"):
        opts += ["--config", _input("config")]
    if _input("store"):
        opts += ["--store", _input("store")]
    try:
        opts += shlex.split(_input("args"))
    except ValueError as exc:
        raise ActionError(f"input args: {exc}") from None
    return opts


def _new_snapshot(out_dir: Path) -> str:
    """NEW for ``diff``: the ``snapshot`` input as given, or a capture written to ``out_dir/snapshot.json``."""
    sources = {k: _input(k) for k in ("snapshot", "command", "url", "sse") if _input(k)}
    if len(sources) != 1:
        raise ActionError("give exactly one of the inputs snapshot, command, url, sse"
                          + (f" (got {', '.join(sources)})" if sources else ""))
    if "snapshot" in sources:
        return sources["snapshot"]
    target = out_dir / "snapshot.json"
    args = ["snapshot", "--out", str(target), "--force", "--label", _input("label", "pr")]  # reruns replace it
    if _input("protocol"):
        args += ["--protocol", _input("protocol")]
    if _input("timeout"):
        args += ["--timeout", _input("timeout")]
    if "command" in sources:
        for item in _lines("env"):
            args += ["--env", item]
        if _input("cwd"):
            args += ["--cwd", _input("cwd")]
        try:
            command = shlex.split(sources["command"])
        except ValueError as exc:
            raise ActionError(f"input command: {exc}") from None
        args += ["--", *command]
    else:
        args += ["--url" if "url" in sources else "--sse", sources.get("url") or sources["sse"]]
        for item in _list("header-env"):
            args += ["--header-env", item]
    _run(args, what="snapshot")
    return str(target)


def approval_label() -> str:
    """The approval label: ``INPUT_APPROVAL_LABEL`` when set (empty = no bypass), else the default."""
    if "INPUT_APPROVAL_LABEL" in os.environ:
        return os.environ["INPUT_APPROVAL_LABEL"].strip()
    return DEFAULT_APPROVAL_LABEL


def pr_labels(event_path: Optional[str]) -> list[str]:
    """Names of the labels on the pull request of the triggering event (``[]`` when there is none)."""
    if not event_path:
        return []
    try:
        event = json.loads(Path(event_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    pr = event.get("pull_request") if isinstance(event, dict) else None
    if not isinstance(pr, dict):
        return []
    return [lab["name"] for lab in pr.get("labels") or [] if isinstance(lab, dict) and isinstance(lab.get("name"), str)]


def run() -> Result:
    """Do the work; raise ``ActionError`` for any failure (its code is the exit code)."""
    result = Result()
    base = _input("base")
    if not base:
        raise ActionError("input base is required (a store label, a snapshot file, or git:origin/main:PATH)")
    out_dir = Path(_input("output-dir", "schema-audit-report"))
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ActionError(f"cannot create output-dir {out_dir}: {exc.strerror}") from None
    opts = _diff_options()
    formats = _list("formats")
    unknown = [f for f in formats if f not in EXTRA_FORMATS]
    if unknown:
        raise ActionError(f"input formats: unknown {', '.join(unknown)} (use {', '.join(EXTRA_FORMATS)})")
    if _flag("sarif", False) and "sarif" not in formats:
        formats.append("sarif")
    annotations = _flag("annotations", True)
    result.new_ref = _new_snapshot(out_dir)

    def diff(fmt: str, output: Optional[Path]) -> subprocess.CompletedProcess[str]:
        args = ["diff", base, result.new_ref, "--format", fmt, *opts]
        if output is not None:
            args += ["--output", str(output)]
        return _run(args, what=f"diff --format {fmt}", ok=(0, 1), capture_stdout=output is None)

    json_file = out_dir / "schema-audit.json"
    gate = diff("json", json_file).returncode
    try:
        report: dict[str, Any] = json.loads(json_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ActionError(f"cannot read the JSON report {json_file}: {exc}", 4) from None
    result.counts = {k: int(report.get("summary", {}).get(k, 0)) for k in ("breaking", "warning", "info")}
    result.passed = gate == 0
    result.files["json-file"] = str(json_file)
    md_file = out_dir / "schema-audit.md"
    diff("markdown", md_file)
    result.files["markdown-file"] = str(md_file)
    for fmt in dict.fromkeys(formats):
        if fmt in ("json", "markdown"):
            continue
        path = out_dir / f"schema-audit.{EXTRA_FORMATS[fmt]}"
        diff(fmt, path)
        result.files[f"{fmt}-file"] = str(path)
    if annotations:
        sys.stdout.write(diff("github", None).stdout)
        sys.stdout.flush()
    label = approval_label()
    result.approved = bool(label) and not result.passed and label in pr_labels(os.environ.get("GITHUB_EVENT_PATH"))
    result.exit_code = 0 if result.passed or result.approved else 1
    return result


def _summary_tail(result: Result, label: str) -> str:
    if result.passed:
        return ""
    if result.approved:
        return (f"\n> **Approved:** the pull request carries the label **{_md(label)}**, so this gate failure "
                "is accepted. Hosts holding a cached `tools/list` still break until they reconnect.\n")
    if label:
        return (f"\n> To accept these changes, fix them or add the label **{_md(label)}** to the pull request "
                "and re-run this check.\n")
    return ""


def _append(path: Optional[str], text: str) -> None:
    if not path:
        return
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text)


def _write_outputs(result: Result) -> None:
    path = os.environ.get("GITHUB_OUTPUT")
    if not path:
        return
    values = {"exit-code": str(result.exit_code), "passed": str(result.passed).lower(),
              "approved": str(result.approved).lower(), **{k: str(v) for k, v in result.counts.items()},
              "report-dir": _input("output-dir", "schema-audit-report"), "json-file": "", "markdown-file": "",
              "sarif-file": "", "snapshot": result.new_ref, **result.files}
    lines = []
    for key, value in values.items():
        if "\n" in value or "\r" in value:
            delim = f"EOF_{uuid.uuid4().hex}"
            lines.append(f"{key}<<{delim}\n{value}\n{delim}")
        else:
            lines.append(f"{key}={value}")
    _append(path, "\n".join(lines) + "\n")


def main() -> int:
    """Entry point: run, write the summary and outputs, return the exit code (0 when deferred)."""
    summary = os.environ.get("GITHUB_STEP_SUMMARY") if _input("summary", "true").lower() != "false" else None
    label = approval_label()
    try:
        result = run()
    except ActionError as exc:
        result = Result(exit_code=exc.code)
        message = str(exc)
        sys.stdout.write(f"::error title=schema-audit::{_gh(message)}\n")
        _append(summary, f"### ⚠️ schema-audit could not run (exit {exc.code})\n\n{_fence(_inert(message))}\n")
    else:
        md_file = result.files.get("markdown-file")
        if md_file:
            _append(summary, Path(md_file).read_text(encoding="utf-8") + _summary_tail(result, label))
        verdict = ("passed" if result.passed else "failed, approved by label" if result.approved else "failed")
        c = result.counts
        sys.stderr.write(f"schema-audit: {c['breaking']} breaking, {c['warning']} warning, {c['info']} info; "
                         f"gate {verdict}\n")
    _write_outputs(result)
    deferred = _input("defer-exit", "false").lower() == "true"
    return 0 if deferred else result.exit_code


if __name__ == "__main__":
    sys.exit(main())
