#!/usr/bin/env python3
"""The logic of the schema-audit GitHub Action (``action.yml``): snapshot, diff, summary, gate.

Standard library only; every piece of work is a subprocess call of the ``schema-audit`` CLI
(``python -m mcp_schema_audit`` with this interpreter, or the command in ``SCHEMA_AUDIT_CLI``); the git
worktree, setup commands and started servers of the zero-setup gate are in ``action_base.py``.

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
``INPUT_OUTPUT_DIR`` (default ``schema-audit-report``; always ``schema-audit.json`` and
``schema-audit.md`` there; with configurations, each one's files in ``<output-dir>/<name>/`` and a
combined ``schema-audit.md`` and ``schema-audit.sarif``), ``INPUT_FORMATS`` (more report files: ``sarif``,
``junit``, ``text``, ``github``), ``INPUT_SARIF`` (``true`` → ``schema-audit.sarif``), ``INPUT_ANNOTATIONS``
(``true``, default → workflow-command annotations on stdout), ``INPUT_SUMMARY`` (``true``, default → the
Markdown report appended to ``$GITHUB_STEP_SUMMARY``). Gate: ``INPUT_APPROVAL_LABEL`` (default
``schema-change-approved``; empty = no bypass): when the pull request in ``$GITHUB_EVENT_PATH``
carries it, a failed gate passes. ``INPUT_DEFER_EXIT=true`` exits 0 and leaves the verdict in the
``exit-code`` output (the action enforces it after uploading SARIF). When ``action.yml`` installed the CLI
into ``$RUNNER_TEMP/schema-audit-venv``, that venv's ``bin`` folder is appended to ``$GITHUB_PATH``, so later
steps of the job can run ``schema-audit`` (e.g. ``schema-audit probe``). Boolean inputs read
true/yes/on/1 and false/no/off/0 in any case; every input is parsed before anything runs, and a bad one
is exit 2 with one ``::error::`` line naming it.

Outputs (``$GITHUB_OUTPUT``): ``exit-code``, ``passed``, ``approved``, ``breaking``, ``warning``,
``info``, ``report-dir``, ``json-file``, ``markdown-file``, ``sarif-file`` (empty when not written),
``junit-file``, ``text-file``, ``github-file`` (written with ``INPUT_FORMATS`` naming them),
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
import re
import shlex
import subprocess
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import action_base  # noqa: E402  (the base revision, its worktree, setup commands, started servers)

DEFAULT_APPROVAL_LABEL = "schema-change-approved"
FAIL_ON = ("breaking", "warning", "info", "never")
EXTRA_FORMATS = {
    "sarif": "sarif",
    "junit": "junit.xml",
    "text": "txt",
    "github": "github.txt",
    "json": "json",
    "markdown": "md",
}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


class ActionError(Exception):
    """A failure with its exit code and a one-line message."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def _input(name: str, default: str = "") -> str:
    value = os.environ.get("INPUT_" + name.upper().replace("-", "_").replace(" ", "_"), "")
    return value.strip() if value.strip() else default


TRUE_WORDS, FALSE_WORDS = ("true", "yes", "on", "1"), ("false", "no", "off", "0")
PROTOCOLS = ("auto", "legacy", "2026-07-28")
MODES = ("backward", "forward", "full")
HOSTS = ("python-sdk", "ts-sdk-v1", "ts-sdk-v2")
_ENV_KEY_RE = re.compile(r"^[^=\s]+\Z")
_LABEL_RE = re.compile(r"^[A-Za-z0-9_+][A-Za-z0-9._+-]{0,127}\Z")  # as the CLI's snapshot labels


def _flag(name: str, default: bool) -> bool:
    """A boolean input, the one parser for all of them: true/yes/on/1 or false/no/off/0 (any case); empty =
    ``default``; anything else is ``ActionError`` (exit 2) naming the input."""
    raw = _input(name, "true" if default else "false")
    if raw.lower() in TRUE_WORDS:
        return True
    if raw.lower() in FALSE_WORDS:
        return False
    raise ActionError(f"input {name} must be true or false (or yes/no, on/off, 1/0; got {raw!r})")


def _lenient_flag(name: str, default: bool) -> bool:
    """``_flag``, but ``default`` for a value it refuses (``run`` reports that value as an input error)."""
    try:
        return _flag(name, default)
    except ActionError:
        return default


def _pairs(items: list[str], what: str, form: str) -> list[str]:
    """``items`` when each is ``KEY=VALUE`` with a non-empty KEY (no blanks in it); else ``ActionError``."""
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not _ENV_KEY_RE.match(key) or (form == "Name=ENV_VAR" and not value.strip()):
            raise ActionError(f"{what}: expected {form}, got {item!r}")
        if form == "Name=ENV_VAR" and value.strip() not in os.environ:
            raise ActionError(f"{what} {key}: environment variable {value.strip()} is not set")
    return items


def _protocol(value: str, what: str) -> str:
    if value and value not in PROTOCOLS:
        raise ActionError(f"{what} must be one of {', '.join(PROTOCOLS)} (got {value!r})")
    return value


def _timeout(value: str, what: str) -> str:
    if value:
        try:
            seconds = float(value)
        except ValueError:
            seconds = float("nan")
        if not (0 < seconds < float("inf")):
            raise ActionError(f"{what} must be a positive number of seconds (got {value!r})")
    return value


def _list(name: str) -> list[str]:
    """A list input: items separated by commas or new lines, blanks dropped."""
    return [x.strip() for x in re.split(r"[,\n]", _input(name)) if x.strip()]


def _lines(name: str) -> list[str]:
    """A list input whose items may contain commas: one item per line."""
    return [x.strip() for x in _input(name).splitlines() if x.strip()]


def _inert(text: str) -> str:
    return _CONTROL.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text
    )


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
    base_revision: str = ""  #: the commit captured as OLD (base-ref mode)
    base_snapshot: str = ""  #: OLD as given to diff (the base input, or the captured base.json)
    note: str = ""  #: why nothing was compared (a first release)
    checks: list[Any] = field(default_factory=list)  #: each configuration's ``Checked``


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
        proc = subprocess.run(
            cmd,
            stdout=subprocess.PIPE if capture_stdout else subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=timeout,
        )
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


def _check_snapshot_ref(ref: str, what: str) -> None:
    """Raise ``ActionError`` (exit 2) when the CLI cannot load snapshot ``ref`` (a label, a file, git:REF:PATH)."""
    located = [opt for key in ("config", "store") if _input(key) for opt in (f"--{key}", _input(key))]
    try:
        _run(
            ["diff", "--format", "json", "--fail-on", "never", *located, "--", ref, ref],
            what=f"reading {what}",
            capture_stdout=True,
        )
    except ActionError as exc:
        raise ActionError(str(exc), 2 if exc.code == 4 else exc.code) from None


def _diff_options() -> list[str]:
    opts: list[str] = []
    fail_on = _input("fail-on", "breaking")
    if fail_on not in FAIL_ON:
        raise ActionError(f"input fail-on must be one of {', '.join(FAIL_ON)} (got {fail_on!r})")
    opts += ["--fail-on", fail_on]
    if _input("mode"):
        if _input("mode") not in MODES:
            raise ActionError(f"input mode must be one of {', '.join(MODES)} (got {_input('mode')!r})")
        opts += ["--mode", _input("mode")]
    for host in _list("hosts"):
        if host not in HOSTS:
            raise ActionError(f"input hosts: unknown host profile {host!r} (use {', '.join(HOSTS)})")
        opts += ["--host", host]
    for sev in _list("severity"):
        rule, eq, level = sev.partition("=")
        if not eq or not rule.strip() or level.strip() not in ("breaking", "warning", "info"):
            raise ActionError(f"input severity: expected RULE=LEVEL (LEVEL breaking, warning or info), got {sev!r}")
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


@dataclass
class Configuration:
    """One way to reach the server: the top-level inputs, or one entry of ``configurations``.

    Exactly one of ``snapshot`` (NEW as a file, label or ``git:REF:PATH``), ``command`` (stdio, split like a
    shell), ``url`` (Streamable HTTP) or ``sse``. ``base_command`` captures the base side instead of
    ``command``; ``start_command`` starts an HTTP server (in each side's folder) for ``url``/``sse``.
    """

    name: str
    snapshot: str = ""
    command: list[str] = field(default_factory=list)
    url: str = ""
    sse: str = ""
    env: list[str] = field(default_factory=list)
    cwd: str = ""
    protocol: str = ""
    timeout: str = ""
    header_env: list[str] = field(default_factory=list)
    base_command: list[str] = field(default_factory=list)
    start_command: str = ""

    def endpoint(self) -> str:
        return self.url or self.sse


_CONFIG_KEYS = {
    "name",
    "command",
    "url",
    "sse",
    "env",
    "cwd",
    "protocol",
    "timeout",
    "header-env",
    "base-command",
    "start-command",
}
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook``: a key given twice in one object is an error (JSON parsers keep the last one)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


def _split(text: str, what: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise ActionError(f"{what}: {exc}") from None


def _applicable(cfg: Configuration, where: str) -> Configuration:
    """``cfg`` when each of its settings applies to its source, else ``ActionError`` (exit 2): an input that
    would be ignored (``header-env`` for a stdio command, ``start-command`` without a URL, anything but the
    file for a snapshot) is a mistake to point out, not to skip in silence."""
    kinds = {"snapshot": cfg.snapshot, "command": cfg.command, "url": cfg.url, "sse": cfg.sse}
    source = next(k for k, v in kinds.items() if v)
    given = {
        "env": cfg.env,
        "cwd": cfg.cwd,
        "protocol": cfg.protocol,
        "timeout": cfg.timeout,
        "header-env": cfg.header_env,
        "base-command": cfg.base_command,
        "start-command": cfg.start_command,
    }
    allowed = {
        "snapshot": set(),
        "command": {"env", "cwd", "protocol", "timeout", "base-command"},
        "url": {"protocol", "timeout", "header-env", "base-command", "start-command"},
    }
    allowed["sse"] = allowed["url"]
    if cfg.start_command:  # the started server gets env and runs in cwd
        allowed[source] = allowed[source] | {"env", "cwd"}
    ignored = [k for k, v in given.items() if v and k not in allowed[source]]
    if ignored:
        why = {
            "snapshot": "nothing is captured when NEW is a snapshot file",
            "command": "a stdio command has no HTTP headers and starts itself",
        }.get(source, "env and cwd reach only a stdio command or a start-command")
        raise ActionError(f"{where}: {', '.join(ignored)} does not apply to {source} ({why})")
    return cfg


def _configurations() -> list[Configuration]:
    """The configurations to check: ``INPUT_CONFIGURATIONS`` (a JSON list) or the top-level inputs as one."""
    text = _input("configurations")
    top = {k: _input(k) for k in ("snapshot", "command", "url", "sse") if _input(k)}
    if not text:
        if len(top) != 1:
            raise ActionError(
                "give exactly one of the inputs snapshot, command, url, sse"
                + (f" (got {', '.join(top)})" if top else "")
                + ", or configurations"
            )
        return [
            _applicable(
                Configuration(
                    name="",
                    snapshot=top.get("snapshot", ""),
                    command=_split(top["command"], "input command") if "command" in top else [],
                    url=top.get("url", ""),
                    sse=top.get("sse", ""),
                    env=_pairs(_lines("env"), "input env", "KEY=VALUE"),
                    cwd=_input("cwd"),
                    protocol=_protocol(_input("protocol"), "input protocol"),
                    timeout=_timeout(_input("timeout"), "input timeout"),
                    header_env=_pairs(_list("header-env"), "input header-env", "Name=ENV_VAR"),
                    base_command=_split(_input("base-command"), "input base-command"),
                    start_command=_input("start-command"),
                ),
                "inputs",
            )
        ]
    if top:
        raise ActionError(f"input configurations replaces the inputs {', '.join(top)}: give one or the other")
    try:
        entries = json.loads(text, object_pairs_hook=_unique_keys)
    except _DuplicateKey as exc:
        raise ActionError(f"duplicate key {exc.args[0]!r} in input configurations") from None
    except ValueError as exc:
        raise ActionError(f"input configurations is not valid JSON: {exc}") from None
    if not isinstance(entries, list) or not entries:
        raise ActionError("input configurations must be a non-empty JSON list of objects")
    out: list[Configuration] = []
    for i, entry in enumerate(entries):
        where = f"input configurations[{i}]"
        if not isinstance(entry, dict):
            raise ActionError(f"{where} is not an object")
        unknown = sorted(set(entry) - _CONFIG_KEYS)
        if unknown:
            raise ActionError(f"{where}: unknown key(s) {', '.join(unknown)} (use {', '.join(sorted(_CONFIG_KEYS))})")
        if not all(isinstance(v, str) for k, v in entry.items() if k not in ("env", "header-env")):
            raise ActionError(f"{where}: every value but env and header-env must be a string")
        name = entry.get("name", "")
        if not _NAME_RE.match(name):
            raise ActionError(f"{where}: name must be 1-64 letters, digits, . _ - (got {name!r})")
        if name in {c.name for c in out}:
            raise ActionError(f"{where}: duplicate name {name!r}")
        sources = [k for k in ("command", "url", "sse") if entry.get(k)]
        if len(sources) != 1:
            raise ActionError(f"{where} ({name}): give exactly one of command, url, sse")
        env = entry.get("env", {})
        if isinstance(env, dict) and all(isinstance(v, str) for v in env.values()):
            env_items = [f"{k}={v}" for k, v in env.items()]
        elif isinstance(env, list) and all(isinstance(v, str) for v in env):
            env_items = _pairs(list(env), f"{where} ({name}) env", "KEY=VALUE")
        else:
            raise ActionError(f"{where} ({name}): env must be an object of strings or a list of KEY=VALUE strings")
        _pairs(env_items, f"{where} ({name}) env", "KEY=VALUE")
        headers = entry.get("header-env", [])
        headers = [h.strip() for h in headers.splitlines() if h.strip()] if isinstance(headers, str) else headers
        if not isinstance(headers, list) or not all(isinstance(h, str) for h in headers):
            raise ActionError(f"{where} ({name}): header-env must be a list of Name=ENV_VAR strings")
        _pairs(headers, f"{where} ({name}) header-env", "Name=ENV_VAR")
        _protocol(entry.get("protocol", ""), f"{where} ({name}): protocol")
        _timeout(entry.get("timeout", ""), f"{where} ({name}): timeout")
        out.append(
            _applicable(
                Configuration(
                    name=name,
                    command=_split(entry["command"], f"{where}.command") if entry.get("command") else [],
                    url=entry.get("url", ""),
                    sse=entry.get("sse", ""),
                    env=env_items,
                    cwd=entry.get("cwd", ""),
                    protocol=entry.get("protocol", ""),
                    timeout=entry.get("timeout", ""),
                    header_env=headers,
                    base_command=_split(entry.get("base-command", ""), f"{where}.base-command"),
                    start_command=entry.get("start-command", ""),
                ),
                f"{where} ({name})",
            )
        )
    return out


def _capture(cfg: Configuration, *, side: str, label: str, target: Path, folder: Path | None) -> str:
    """Capture ``cfg``'s server as seen from ``folder`` (``None``: the current folder) into ``target``; returns
    ``str(target)``. ``side`` is ``base`` or ``head`` (the base uses ``base_command`` when given). An HTTP
    configuration with ``start_command`` starts its server in ``folder`` first and stops it afterwards."""
    args = ["snapshot", "--out", str(target), "--force", "--label", label]  # reruns replace it
    if cfg.protocol:
        args += ["--protocol", cfg.protocol]
    if cfg.timeout:
        args += ["--timeout", cfg.timeout]
    where = f"{side} ({cfg.name})" if cfg.name else side
    command = cfg.base_command if side == "base" and cfg.base_command else cfg.command
    if command:
        for item in cfg.env:
            args += ["--env", item]
        if cfg.cwd or folder is not None:
            args += ["--cwd", str((folder or Path.cwd()) / cfg.cwd)]
        _run([*args, "--", *command], what=f"snapshot of the {where}")
        return str(target)
    args += ["--url" if cfg.url else "--sse", cfg.endpoint()]
    for item in cfg.header_env:
        args += ["--header-env", item]
    if not cfg.start_command:
        if folder is not None:
            raise ActionError(
                f"configuration {cfg.name or '(inputs)'}: with base-ref an HTTP server must be started "
                "from each side's checkout: give start-command (or base-command for a stdio base)"
            )
        _run(args, what=f"snapshot of the {where}")
        return str(target)
    given = dict(item.split("=", 1) for item in cfg.env)
    try:
        timeout_s = float(cfg.timeout or 60)
    except ValueError:
        raise ActionError(f"timeout must be a number of seconds (got {cfg.timeout!r})") from None
    try:
        with action_base.started_server(
            cfg.start_command,
            cfg.endpoint(),
            (folder or Path.cwd()) / cfg.cwd,
            {**os.environ, **given},
            f"{where} server",
            timeout_s=timeout_s,
            secrets=tuple(v for v in given.values() if len(v) >= 4),
        ):
            _run(args, what=f"snapshot of the {where}")
    except action_base.BaseError as exc:
        raise ActionError(str(exc), exc.code) from None
    return str(target)


def approval_label() -> str:
    """The approval label: ``INPUT_APPROVAL_LABEL`` when set (empty = no bypass), else the default."""
    if "INPUT_APPROVAL_LABEL" in os.environ:
        return os.environ["INPUT_APPROVAL_LABEL"].strip()
    return DEFAULT_APPROVAL_LABEL


def pr_labels(event_path: str | None) -> list[str]:
    """Names of the labels on the pull request of the triggering event (``[]`` when there is none)."""
    if not event_path:
        return []
    try:
        event = json.loads(Path(event_path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return []
    pr = event.get("pull_request") if isinstance(event, dict) else None
    labels = pr.get("labels") if isinstance(pr, dict) else None
    if not isinstance(labels, list):
        return []  # no pull request, or an event file of another shape: no label
    return [lab["name"] for lab in labels if isinstance(lab, dict) and isinstance(lab.get("name"), str)]


@dataclass
class Checked:
    """One configuration's outcome: its folder, files, counts, gate, or the error that stopped it."""

    cfg: Configuration
    folder: Path
    exit_code: int = 4
    passed: bool = False
    counts: dict[str, int] = field(default_factory=lambda: {"breaking": 0, "warning": 0, "info": 0})
    files: dict[str, str] = field(default_factory=dict)
    new_ref: str = ""
    base_revision: str = ""  #: the commit captured as OLD (base-ref mode)
    base_snapshot: str = ""  #: OLD as given to diff (the base input, or the captured base.json)
    note: str = ""  #: why nothing was compared (a first release)
    checks: list[Any] = field(default_factory=list)  #: each configuration's ``Checked``
    base_ref: str = ""
    github: str = ""
    error: str = ""


def _check(
    cfg: Configuration,
    checked: Checked,
    base: str,
    revision: action_base.BaseRevision | None,
    base_root: Path | None,
    opts: list[str],
    formats: list[str],
    annotations: bool,
) -> None:
    """Capture (base and head), diff and write every report of one configuration into ``checked``."""
    folder = checked.folder
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ActionError(f"cannot create output-dir {folder}: {exc.strerror}") from None
    if revision is not None and base_root is not None:
        checked.base_ref = _capture(
            cfg, side="base", label=revision.label, target=folder / "base.json", folder=base_root
        )
    else:
        checked.base_ref = base
    if cfg.snapshot:
        checked.new_ref = cfg.snapshot
    else:
        checked.new_ref = _capture(
            cfg,
            side="head",
            label=_input("label", "pr"),
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
    for fmt in dict.fromkeys(formats):
        if fmt in ("json", "markdown"):
            continue
        path = folder / f"schema-audit.{EXTRA_FORMATS[fmt]}"
        diff(fmt, path)
        checked.files[f"{fmt}-file"] = str(path)
    if annotations:
        checked.github = diff("github", None).stdout
    checked.exit_code = 0 if checked.passed else 1


def run() -> Result:
    """Do the work; raise ``ActionError`` for any failure (its code is the exit code).

    With several configurations, one that fails (exit 2-4) does not stop the others: its section of the
    summary says why, and the run's exit code is that failure's.
    """
    result = Result()
    base, base_ref = _input("base"), _input("base-ref")
    if base and base_ref:
        raise ActionError(
            "give input base (a snapshot hosts cached) or base-ref (a revision to build and capture), not both"
        )
    # every input is parsed here, before anything is created, set up or started: one error line each
    _flag("summary", True)
    _flag("defer-exit", False)
    if not _LABEL_RE.match(_input("label", "pr")):
        raise ActionError(f"input label must be letters, digits, . _ + - (got {_input('label')!r})")
    opts = _diff_options()
    rules = [item.partition("=")[0].strip() for item in _list("severity")]
    if rules:  # rule ids are the CLI's: ask it once, before anything runs
        known = {
            r["id"]
            for r in json.loads(
                _run(["rules", "--format", "json"], what="schema-audit rules", capture_stdout=True).stdout
            )
        }
        unknown = [r for r in rules if r not in known]
        if unknown:
            raise ActionError(f"input severity: unknown rule {unknown[0]!r} (see schema-audit rules)")
    formats = _list("formats")
    unknown = [f for f in formats if f not in EXTRA_FORMATS]
    if unknown:
        raise ActionError(f"input formats: unknown {', '.join(unknown)} (use {', '.join(EXTRA_FORMATS)})")
    if _flag("sarif", False) and "sarif" not in formats:
        formats.append("sarif")
    annotations = _flag("annotations", True)
    configs = _configurations()
    out_dir = Path(_input("output-dir", "schema-audit-report"))
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ActionError(f"cannot create output-dir {out_dir}: {exc.strerror}") from None
    revision = None
    if not base:
        try:
            revision = action_base.resolve_base(base_ref, dict(os.environ))
        except action_base.FirstRelease as first:
            result.exit_code, result.passed, result.note = (
                0,
                True,
                (f"{first.args[0]} is the first tag: no host can have cached an earlier version, nothing to compare"),
            )
            return result
        except action_base.BaseError as exc:
            raise ActionError(str(exc), exc.code) from None
        result.base_revision = revision.sha
        if any(c.snapshot for c in configs):
            raise ActionError(
                "input snapshot gives NEW as a file: with base-ref, give command or url (the base is "
                "captured the same way)"
            )
    # a snapshot given by name must load before any install, build or capture runs: the same CLI reads it
    # the same way (store, config, git:REF:PATH); comparing it with itself is all but free
    for what, ref in [("input base", base)] + [
        (f"input snapshot{f' ({c.name})' if c.name else ''}", c.snapshot) for c in configs
    ]:
        if ref:
            _check_snapshot_ref(ref, what)
    single = len(configs) == 1 and not configs[0].name
    checks = [Checked(cfg, out_dir if single else out_dir / cfg.name) for cfg in configs]
    env = dict(os.environ)
    setup = [
        (key, command)
        for key, command in (("install-command", _input("install-command")), ("build-command", _input("build-command")))
        if command
    ]
    with action_base.worktree(revision.sha) if revision is not None else contextlib.nullcontext() as root:
        try:
            base_root = root / action_base.repo_prefix() if root is not None else None
            for key, command in setup:
                if base_root is not None:
                    action_base.run_setup(command, base_root, f"{key} in the base ({revision.why})", env)
                action_base.run_setup(command, Path.cwd(), f"{key} in the pull request's checkout", env)
        except action_base.BaseError as exc:
            raise ActionError(str(exc), exc.code) from None
        for checked in checks:
            try:
                _check(checked.cfg, checked, base, revision, base_root, opts, formats, annotations)
            except ActionError as exc:
                if single:
                    raise
                checked.exit_code, checked.error = exc.code, str(exc)
    _combine(result, checks, single, out_dir)
    label = approval_label()
    failed_gate = any(c.exit_code == 1 for c in checks) and not any(c.exit_code > 1 for c in checks)
    result.passed = all(c.exit_code == 0 for c in checks)
    result.approved = bool(label) and failed_gate and label in pr_labels(os.environ.get("GITHUB_EVENT_PATH"))
    errors = [c.exit_code for c in checks if c.exit_code > 1]
    result.exit_code = errors[0] if errors else 0 if result.passed or result.approved else 1
    return result


def _combine(result: Result, checks: list[Checked], single: bool, out_dir: Path) -> None:
    """The run's counts, files, annotations and (several configurations) combined Markdown and SARIF."""
    for c in checks:
        for key in result.counts:
            result.counts[key] += c.counts[key]
    result.checks = checks
    if single:
        c = checks[0]
        result.files, result.new_ref, result.base_snapshot = dict(c.files), c.new_ref, c.base_ref
        sys.stdout.write(c.github)
        sys.stdout.flush()
        return
    result.new_ref = "\n".join(c.new_ref for c in checks if c.new_ref)
    result.base_snapshot = "\n".join(c.base_ref for c in checks if c.base_ref)
    for key in {k for c in checks for k in c.files}:
        result.files[key] = "\n".join(c.files[key] for c in checks if key in c.files)
    for c in checks:  # each annotation names its configuration
        for line in c.github.splitlines():
            parts = line.split("::", 2)
            if len(parts) == 3 and line.startswith("::"):
                line = f"::{parts[1]}::[{_gh(c.cfg.name)}] {parts[2]}"
            sys.stdout.write(line + "\n")
    sys.stdout.flush()
    md = out_dir / "schema-audit.md"
    md.write_text(_combined_markdown(result, checks), encoding="utf-8")
    result.files["markdown-file"] = str(md)
    sarifs = [c for c in checks if "sarif-file" in c.files]
    if sarifs:
        path = out_dir / "schema-audit.sarif"
        path.write_text(_merged_sarif(sarifs), encoding="utf-8")
        result.files["sarif-file"] = str(path)


def _combined_markdown(result: Result, checks: list[Checked]) -> str:
    """One Markdown document: the overall verdict, then each configuration's report (or its error)."""
    c = result.counts
    failed = any(x.exit_code != 0 for x in checks)
    icon = "❌" if failed else "✅"
    parts = [
        f"### {icon} schema-audit: {c['breaking']} breaking, {c['warning']} warning, {c['info']} info in "
        f"{len(checks)} configurations — {'gate failed' if failed else 'gate passed'}"
    ]
    for x in checks:
        parts.append(f"---\n\n**Configuration {_md(x.cfg.name)}**")
        if x.error:
            parts.append(f"⚠️ could not run (exit {x.exit_code}):\n\n{_fence(_inert(x.error))}")
            continue
        text = Path(x.files["markdown-file"]).read_text(encoding="utf-8")
        parts.append(text.replace("### ", "#### ", 1).rstrip("\n"))
    return "\n\n".join(parts) + "\n"


def _merged_sarif(checks: list[Checked]) -> str:
    """One SARIF log with one run holding every configuration's results (code scanning takes one run per
    category): each result's message starts with ``[name]``, ``properties.configuration`` names it and
    ``partialFingerprints["schemaAudit/configuration"]`` keeps the same finding of two configurations apart."""
    merged: dict[str, Any] | None = None
    for c in checks:
        try:
            log = json.loads(Path(c.files["sarif-file"]).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ActionError(f"cannot read {c.files['sarif-file']}: {exc}", 4) from None
        run_ = log["runs"][0]
        for res in run_.get("results", []):
            res["message"]["text"] = f"[{c.cfg.name}] {res['message']['text']}"
            res.setdefault("properties", {})["configuration"] = c.cfg.name
            res.setdefault("partialFingerprints", {})["schemaAudit/configuration"] = c.cfg.name
        if merged is None:
            merged = log
            merged["runs"][0]["properties"] = {"configurations": {c.cfg.name: run_.get("properties", {})}}
            continue
        target = merged["runs"][0]
        target["results"] += run_.get("results", [])
        uris = {a["location"]["uri"] for a in target.get("artifacts", [])}
        target.setdefault("artifacts", []).extend(
            a for a in run_.get("artifacts", []) if a["location"]["uri"] not in uris
        )
        target["properties"]["configurations"][c.cfg.name] = run_.get("properties", {})
    return json.dumps(merged, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _summary_tail(result: Result, label: str) -> str:
    if result.passed:
        return ""
    if result.approved:
        return (
            f"\n> **Approved:** the pull request carries the label **{_md(label)}**, so this gate failure "
            "is accepted. Hosts holding a cached `tools/list` still break until they reconnect.\n"
        )
    if label:
        return (
            f"\n> To accept these changes, fix them or add the label **{_md(label)}** to the pull request "
            "and re-run this check.\n"
        )
    return ""


def _approved_headline(markdown: str, label: str) -> str:
    """``markdown`` (a report whose gate failed) with its headline saying the failure was approved:
    ``### ☑️ schema-audit diff: … — gate failed, approved by label **L** (fail-on: breaking)``, so the job
    summary does not open with a red failure for a check that passed."""
    head, sep, rest = markdown.partition("\n")
    if head.startswith("### ❌") and "gate failed" in head:
        approved = f"gate failed, approved by label **{_md(label)}**"
        head = "### ☑️" + head[len("### ❌") :].replace("gate failed", approved, 1)
    return head + sep + rest


def _append(path: str | None, text: str) -> None:
    if not path:
        return
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text)


def _write_outputs(result: Result) -> None:
    path = os.environ.get("GITHUB_OUTPUT")
    if not path:
        return
    values = {
        "exit-code": str(result.exit_code),
        "passed": str(result.passed).lower(),
        "approved": str(result.approved).lower(),
        **{k: str(v) for k, v in result.counts.items()},
        "report-dir": _input("output-dir", "schema-audit-report"),
        "json-file": "",
        "markdown-file": "",
        "sarif-file": "",
        "snapshot": result.new_ref,
        "base-ref": result.base_revision,
        "base-snapshot": result.base_snapshot,
        "upload-sarif": str(_lenient_flag("sarif", False)).lower(),
        **result.files,
    }
    lines = []
    for key, value in values.items():
        if "\n" in value or "\r" in value:
            delim = f"EOF_{uuid.uuid4().hex}"
            lines.append(f"{key}<<{delim}\n{value}\n{delim}")
        else:
            lines.append(f"{key}={value}")
    _append(path, "\n".join(lines) + "\n")


def _publish_cli() -> None:
    """Append the bin folder of the venv ``action.yml`` installs schema-audit into
    (``$RUNNER_TEMP/schema-audit-venv/bin``) to ``$GITHUB_PATH`` when it holds ``schema-audit``, so later steps
    of the job find the CLI (the action's own steps call it by path)."""
    path_file, temp = os.environ.get("GITHUB_PATH"), os.environ.get("RUNNER_TEMP")
    if not path_file or not temp:
        return
    bin_dir = Path(temp) / "schema-audit-venv" / "bin"
    if (bin_dir / "schema-audit").is_file():
        _append(path_file, f"{bin_dir}\n")


def main(argv: list[str] | None = None) -> int:
    """Entry point: run, write the summary and outputs, return the exit code (0 when deferred).

    Takes no arguments (inputs are ``INPUT_*`` environment variables); ``--help`` prints this module's
    documentation and exits 0 without running, and any other argument is exit 2, before anything is written.
    """
    parser = argparse.ArgumentParser(
        prog="action_run.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.parse_args(sys.argv[1:] if argv is None else argv)
    # a summary or defer-exit value _flag refuses is reported by run() (exit 2); until then, the default
    summary = os.environ.get("GITHUB_STEP_SUMMARY") if _lenient_flag("summary", True) else None
    label = approval_label()
    _publish_cli()
    try:
        result = run()
    except ActionError as exc:
        result = Result(exit_code=exc.code)
        message = str(exc)
        sys.stdout.write(f"::error title=schema-audit::{_gh(message)}\n")
        _append(summary, f"### ⚠️ schema-audit could not run (exit {exc.code})\n\n{_fence(_inert(message))}\n")
    else:
        md_file = result.files.get("markdown-file")
        if result.note:
            _append(summary, f"### ✅ schema-audit: nothing to compare\n\n{_md(result.note)}\n")
            sys.stderr.write(f"schema-audit: {result.note}\n")
        elif md_file:
            text = Path(md_file).read_text(encoding="utf-8")
            _append(
                summary, (_approved_headline(text, label) if result.approved else text) + _summary_tail(result, label)
            )
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
    _write_outputs(result)
    deferred = _lenient_flag("defer-exit", False)
    return 0 if deferred else result.exit_code


if __name__ == "__main__":
    sys.exit(main())
