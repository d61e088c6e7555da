"""The inputs of the schema-audit GitHub Action, parsed and checked before anything runs.

Inputs are environment variables ``INPUT_<NAME>`` (upper case, ``-`` → ``_``), as ``action.yml`` maps them
(see ``action_run.py`` for the list). Every parser raises ``ActionError`` (exit 2, one line naming the input)
for a value it refuses. The configurations input is strict JSON (``mcp_schema_audit.snapshot.jsonio``: no key
twice, no NaN, no escaped lone surrogate). Used by ``action_run.py`` and ``action_report.py``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from mcp_schema_audit.errors import InputError
from mcp_schema_audit.report.formats import FORMATS
from mcp_schema_audit.snapshot.jsonio import parse_json_text
from mcp_schema_audit.snapshot.store import is_label
from mcp_schema_audit.vocabulary import FAIL_ON, HOST_CHOICES, MODES

DEFAULT_APPROVAL_LABEL = "schema-change-approved"
#: Report formats the ``formats`` input may name (every gate format: ``ignore`` writes config), with the part of
#: the file name after ``schema-audit.`` (from the format registry)
EXTRA_FORMATS = {name: fmt.file_name.removeprefix("schema-audit.") for name, fmt in FORMATS.items() if fmt.gate}


class ActionError(Exception):
    """A failure with its exit code (``.code``: 2 bad input, 3 capture, 4 internal) and a one-line message."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def input_value(name: str, default: str = "") -> str:
    """The input ``name`` (``INPUT_<NAME>``: upper case, ``-`` and blanks as ``_``) stripped of surrounding
    blanks, or ``default`` when it is unset or blank."""
    value = os.environ.get("INPUT_" + name.upper().replace("-", "_").replace(" ", "_"), "")
    return value.strip() if value.strip() else default


TRUE_WORDS, FALSE_WORDS = ("true", "yes", "on", "1"), ("false", "no", "off", "0")
PROTOCOLS = ("auto", "legacy", "2026-07-28")
HOSTS = HOST_CHOICES
_ENV_KEY_RE = re.compile(r"^[^=\s]+\Z")


def flag(name: str, default: bool) -> bool:
    """A boolean input, the one parser for all of them: true/yes/on/1 or false/no/off/0 (any case); empty =
    ``default``; anything else is ``ActionError`` (exit 2) naming the input."""
    raw = input_value(name, "true" if default else "false")
    if raw.lower() in TRUE_WORDS:
        return True
    if raw.lower() in FALSE_WORDS:
        return False
    raise ActionError(f"input {name} must be true or false (or yes/no, on/off, 1/0; got {raw!r})")


def lenient_flag(name: str, default: bool) -> bool:
    """``flag``, but ``default`` for a value it refuses (``run`` reports that value as an input error)."""
    try:
        return flag(name, default)
    except ActionError:
        return default


def check_pairs(items: list[str], what: str, form: str) -> list[str]:
    """``items`` when each is ``KEY=VALUE`` with a non-empty KEY (no blanks in it); else ``ActionError``."""
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not _ENV_KEY_RE.match(key) or (form == "Name=ENV_VAR" and not value.strip()):
            raise ActionError(f"{what}: expected {form}, got {item!r}")
        if form == "Name=ENV_VAR" and value.strip() not in os.environ:
            raise ActionError(f"{what} {key}: environment variable {value.strip()} is not set")
    return items


def check_protocol(value: str, what: str) -> str:
    """``value`` when empty or one of ``PROTOCOLS``; else ``ActionError`` naming ``what``."""
    if value and value not in PROTOCOLS:
        raise ActionError(f"{what} must be one of {', '.join(PROTOCOLS)} (got {value!r})")
    return value


def check_timeout(value: str, what: str) -> str:
    """``value`` when empty or a positive, finite number of seconds; else ``ActionError`` naming ``what``."""
    if value:
        try:
            seconds = float(value)
        except ValueError:
            seconds = float("nan")
        if not (0 < seconds < float("inf")):
            raise ActionError(f"{what} must be a positive number of seconds (got {value!r})")
    return value


def list_items(name: str) -> list[str]:
    """A list input: items separated by commas or new lines, blanks dropped."""
    return [x.strip() for x in re.split(r"[,\n]", input_value(name)) if x.strip()]


def line_items(name: str) -> list[str]:
    """A list input whose items may contain commas: one item per line."""
    return [x.strip() for x in input_value(name).splitlines() if x.strip()]


def diff_options() -> list[str]:
    """The ``schema-audit diff`` options the inputs give, in this order: ``--fail-on``, ``--mode``, ``--host``
    (each), ``--severity`` (each), ``--config``, ``--store``, then the words of ``args``. Each only when its input
    is set: an empty ``fail-on`` (the default) leaves the gate to the configuration's ``fail_on`` (else
    ``breaking``), which a flag given always would override. Raises one ``ActionError`` naming every value outside
    its choices, a line each (rule ids are checked against the CLI by ``action_run``)."""
    opts: list[str] = []
    problems: list[str] = []
    fail_on = input_value("fail-on")
    if fail_on and fail_on not in FAIL_ON:
        problems.append(f"input fail-on must be one of {', '.join(FAIL_ON)} (got {fail_on!r})")
    elif fail_on:
        opts += ["--fail-on", fail_on]
    mode = input_value("mode")
    if mode and mode not in MODES:
        problems.append(f"input mode must be one of {', '.join(MODES)} (got {mode!r})")
    elif mode:
        opts += ["--mode", mode]
    for host in list_items("hosts"):
        if host not in HOSTS:
            problems.append(f"input hosts: unknown host profile {host!r} (use {', '.join(HOSTS)})")
        opts += ["--host", host]
    for sev in list_items("severity"):
        rule, eq, level = sev.partition("=")
        if not eq or not rule.strip() or level.strip() not in ("breaking", "warning", "info"):
            problems.append(f"input severity: expected RULE=LEVEL (LEVEL breaking, warning or info), got {sev!r}")
        opts += ["--severity", sev]
    if input_value("config"):
        opts += ["--config", input_value("config")]
    if input_value("store"):
        opts += ["--store", input_value("store")]
    try:
        opts += shlex.split(input_value("args"))
    except ValueError as exc:
        problems.append(f"input args: {exc}")
    if problems:
        raise ActionError("\n".join(problems))
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
        """The HTTP endpoint (``url`` or ``sse``; ``""`` for a snapshot or a stdio command)."""
        return self.url or self.sse


#: The keys an entry of the configurations input may have.
CONFIG_KEYS = {
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


def _split(text: str, what: str) -> list[str]:
    """``text`` split like a shell; ``ActionError`` naming ``what`` when it cannot be (an open quote)."""
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise ActionError(f"{what}: {exc}") from None


def applicable(cfg: Configuration, where: str) -> Configuration:
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


def configurations() -> list[Configuration]:
    """The configurations to check, in order: ``INPUT_CONFIGURATIONS`` (a strict JSON list of objects, see
    ``CONFIG_KEYS``) or the top-level inputs as one configuration named ``""``. Raises ``ActionError`` (exit 2)
    for JSON that ``parse_json_text`` refuses (a key twice, NaN, …), an unknown key, a bad value or a setting
    that would be ignored (``applicable``)."""
    text = input_value("configurations")
    top = {k: input_value(k) for k in ("snapshot", "command", "url", "sse") if input_value(k)}
    if not text:
        if len(top) != 1:
            raise ActionError(
                "give exactly one of the inputs snapshot, command, url, sse"
                + (f" (got {', '.join(top)})" if top else "")
                + ", or configurations"
            )
        return [
            applicable(
                Configuration(
                    name="",
                    snapshot=top.get("snapshot", ""),
                    command=_split(top["command"], "input command") if "command" in top else [],
                    url=top.get("url", ""),
                    sse=top.get("sse", ""),
                    env=check_pairs(line_items("env"), "input env", "KEY=VALUE"),
                    cwd=input_value("cwd"),
                    protocol=check_protocol(input_value("protocol"), "input protocol"),
                    timeout=check_timeout(input_value("timeout"), "input timeout"),
                    header_env=check_pairs(list_items("header-env"), "input header-env", "Name=ENV_VAR"),
                    base_command=_split(input_value("base-command"), "input base-command"),
                    start_command=input_value("start-command"),
                ),
                "inputs",
            )
        ]
    if top:
        raise ActionError(f"input configurations replaces the inputs {', '.join(top)}: give one or the other")
    try:
        entries = parse_json_text(text, "input configurations")
    except InputError as exc:  # "duplicate key 'X' in input configurations", "...: not valid JSON: ... at line 1 ..."
        raise ActionError(str(exc)) from None
    if not isinstance(entries, list) or not entries:
        raise ActionError("input configurations must be a non-empty JSON list of objects")
    out: list[Configuration] = []
    for i, entry in enumerate(entries):
        where = f"input configurations[{i}]"
        if not isinstance(entry, dict):
            raise ActionError(f"{where} is not an object")
        unknown = sorted(set(entry) - CONFIG_KEYS)
        if unknown:
            raise ActionError(f"{where}: unknown key(s) {', '.join(unknown)} (use {', '.join(sorted(CONFIG_KEYS))})")
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
            env_items = check_pairs(list(env), f"{where} ({name}) env", "KEY=VALUE")
        else:
            raise ActionError(f"{where} ({name}): env must be an object of strings or a list of KEY=VALUE strings")
        check_pairs(env_items, f"{where} ({name}) env", "KEY=VALUE")
        headers = entry.get("header-env", [])
        headers = [h.strip() for h in headers.splitlines() if h.strip()] if isinstance(headers, str) else headers
        if not isinstance(headers, list) or not all(isinstance(h, str) for h in headers):
            raise ActionError(f"{where} ({name}): header-env must be a list of Name=ENV_VAR strings")
        check_pairs(headers, f"{where} ({name}) header-env", "Name=ENV_VAR")
        check_protocol(entry.get("protocol", ""), f"{where} ({name}): protocol")
        check_timeout(entry.get("timeout", ""), f"{where} ({name}): timeout")
        out.append(
            applicable(
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


def approval_label() -> str:
    """The approval label: ``INPUT_APPROVAL_LABEL`` when set (empty = no bypass), else the default."""
    if "INPUT_APPROVAL_LABEL" in os.environ:
        return os.environ["INPUT_APPROVAL_LABEL"].strip()
    return DEFAULT_APPROVAL_LABEL


def pr_labels(event_path: str | None) -> list[str]:
    """Names of the labels on the pull request of the triggering event, in its order (``[]`` when there is none).

    The event file is GitHub's own: read leniently (an unreadable file, or one of another shape, has no label).
    """
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


def head_label() -> str:
    """The label of the captured NEW side: the ``label`` input, else on a tag push the tag's name when it is a
    valid label (``v1.1.0``: the release notes and ``history`` name the version), else ``pr``."""
    given = input_value("label")
    if given:
        return given
    ref = os.environ.get("GITHUB_REF", "")
    tag = ref[len("refs/tags/") :] if ref.startswith("refs/tags/") else ""
    return tag if tag and is_label(tag) else "pr"
