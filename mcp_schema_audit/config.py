"""The configuration file: where it is found, every key it may hold (declared once, in ``KEYS``), how each is checked.

Configuration comes from ``--config FILE``, else ``.schema-audit.toml`` in the current folder, else
``[tool.schema-audit]`` in ``pyproject.toml``. One file is read; a second candidate, or a table spelt
``[tool.schema_audit]``, is a one-line warning (``Config.warnings``), never a setting that silently fails to
apply. ``KEYS`` declares every key (name, the flag it is the default for, type, default, doc, example): the
loader checks values by it, the command line's help and ``docs/cli.md``'s key table are built from it.

Every value is checked for its type (``UsageError`` naming the key): a number or an array where a string
belongs was once turned into its text and matched nothing. This module imports no engine code (``--help``
reads ``KEYS``); the rule catalog is imported only to check rule ids.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_schema_audit.errors import InputError, UsageError, not_one_of
from mcp_schema_audit.globs import check_count, glob_match
from mcp_schema_audit.snapshot.jsonio import read_file_bytes
from mcp_schema_audit.tomltext import toml_loads
from mcp_schema_audit.vocabulary import FAIL_ON, HOST_CHOICES, MODES, SERVER_VALIDATORS, SEVERITIES, SURFACES


@dataclass(frozen=True)
class Key:
    """One configuration key. ``kind``: ``choice`` (one of ``choices``), ``choices`` (a non-empty array of them),
    ``string`` (non-empty), ``globs`` (fnmatch patterns), ``paths`` (file paths), ``severity`` (a table rule = level),
    ``entries`` (tables: ``[[ignore]]``, ``[[allow]]``). ``flag``: the option it is the default for (``""``: none);
    ``commands``: the commands that read it; ``default``: the value when neither flag nor file gives one, in words."""

    name: str
    kind: str
    doc: str
    example: str
    flag: str = ""
    choices: tuple[str, ...] = ()
    default: str = ""
    commands: tuple[str, ...] = ()


def _formats() -> tuple[str, ...]:
    from mcp_schema_audit.report.formats import FORMATS

    return tuple(FORMATS)


#: Every key of the configuration file, in the order docs/cli.md lists them.
KEYS: tuple[Key, ...] = (
    Key(
        name="fail_on",
        kind="choice",
        doc="exit 1 when a finding is at or above this level",
        example='fail_on = "warning"',
        flag="--fail-on",
        choices=FAIL_ON,
        default="breaking",
        commands=("diff", "history", "lint", "probe", "check"),
    ),
    Key(
        name="mode",
        kind="choice",
        doc="which hosts' cache is judged: backward (hosts cached OLD, server runs NEW), forward (hosts cached NEW, "
        "server runs OLD: a rollback, a rolling deploy), full (both)",
        example='mode = "full"',
        flag="--mode",
        choices=MODES,
        default="backward",
        commands=("diff", "check"),
    ),
    Key(
        name="hosts",
        kind="choices",
        doc="the hosts a server targets: SDK client profiles (only those named count for the verdict; none named: "
        "all of them) and hosts and model providers (openai-strict, openai, gemini, anthropic, claude-code, vscode, "
        "cursor), whose portability lint reports per tool and diff reports as regressions",
        example='hosts = ["python-sdk", "ts-sdk-v2", "gemini", "openai-strict"]',
        flag="--host",
        choices=HOST_CHOICES,
        default="all SDK profiles, no provider",
        commands=("diff", "history", "lint", "probe", "check"),
    ),
    Key(
        name="server_validator",
        kind="choice",
        doc="how the server's own framework reads the arguments hosts send: auto (inferred from the listing), "
        "published (the listed inputSchema), zod-strip, zod-strict, zod-passthrough, pydantic-ignore, "
        "pydantic-forbid",
        example='server_validator = "zod-strict"',
        flag="--server-validator",
        choices=SERVER_VALIDATORS,
        default="auto",
        commands=("diff", "history", "check"),
    ),
    Key(
        name="version_gate",
        kind="choice",
        doc="semver: hold NEW's serverInfo.version against the verdicts (a breaking change without a major bump, "
        "0.x a minor one, is version-bump-too-small; a change with the version unchanged is version-unchanged) "
        "and show the suggested version in the text and Markdown reports; off: only the JSON report's "
        "suggested_version (history: per release step; only NEW's step is gated)",
        example='version_gate = "semver"',
        flag="--version-gate",
        choices=("off", "semver"),
        default="off",
        commands=("diff", "history", "check"),
    ),
    Key(
        name="version_sources",
        kind="paths",
        doc="files whose version must agree with NEW's serverInfo.version: package.json, pyproject.toml "
        "([project] or [tool.poetry]), the MCP registry's server.json (paths relative to the current folder; the "
        "flag is diff's, check reads the key only)",
        example='version_sources = ["package.json", "server.json"]',
        flag="--version-source",
        default="none",
        commands=("diff", "check"),
    ),
    Key(
        name="traffic_threshold",
        kind="string",
        doc="with --traffic, a breaking finding fails only where N recorded calls (or N%) are affected or none exist",
        example='traffic_threshold = "1%"',
        flag="--traffic-threshold",
        commands=("diff", "history"),
    ),
    Key(
        name="store",
        kind="string",
        doc="the snapshot store folder that labels are read from and written to",
        example='store = ".schema-audit"',
        flag="--store",
        default=".schema-audit",
        commands=("snapshot", "diff", "history", "lint", "probe", "check"),
    ),
    Key(
        name="format",
        kind="choice",
        doc="the report format",
        example='format = "markdown"',
        flag="--format",
        default="text",
        commands=("diff", "lint", "probe", "check"),
    ),
    Key(
        name="tools",
        kind="globs",
        doc="only tools whose name matches one of these globs (fnmatch, case-sensitive)",
        example='tools = ["get_*", "list_*"]',
        flag="--tool",
        default="every tool",
        commands=("diff", "history", "lint", "check"),
    ),
    Key(
        name="exclude_tools",
        kind="globs",
        doc="leave out tools whose name matches one of these globs (applied after tools)",
        example='exclude_tools = ["debug_*"]',
        flag="--exclude-tool",
        default="none",
        commands=("diff", "history", "lint", "check"),
    ),
    Key(
        name="servers",
        kind="globs",
        doc="server names (fnmatch globs) whose stored snapshots are versions of NEW's server besides its own "
        "name: its names before a rename (each such cohort gets a server-renamed finding), or '*' for every "
        "snapshot in the store; snapshots of other names are left out, and a report note names them",
        example='servers = ["motherduck"]',
        flag="--server",
        default="none chosen: a store holding snapshots of other names than NEW's is exit 2",
        commands=("history",),
    ),
    Key(
        name="severity",
        kind="severity",
        doc="a rule's severity overridden: rule id = breaking | warning | info",
        example='[severity]\n"output-object-closed" = "info"',
        flag="--severity",
        default="the catalog's",
        commands=("diff", "history", "lint", "probe", "check"),
    ),
    Key(
        name="ignore",
        kind="entries",
        doc="accepted changes: findings matched by fingerprint, or by rule/tool/surface/name/pointer/direction "
        "patterns, each with a reason and an optional expiry date",
        example='[[ignore]]\nrule = "output-enum-value-added"\ntool = "wait_*"\nreason = "status is open-ended"',
        default="none",
        commands=("diff", "history", "lint", "probe", "check"),
    ),
    Key(
        name="allow",
        kind="entries",
        doc="another name of [[ignore]] (read by every command; lint's allowlist of hazards by that name)",
        example='[[allow]]\nrule = "output-closed-object-hazard"\ntool = "whoami"\nreason = "frozen by design"',
        default="none",
        commands=("diff", "history", "lint", "probe", "check"),
    ),
)
KEY_NAMES = {k.name: k for k in KEYS}


def choices_of(key: Key) -> tuple[str, ...]:
    """The values ``key`` accepts (the report formats come from their registry)."""
    return _formats() if key.name == "format" else key.choices


@dataclass
class IgnoreEntry:
    """One accepted change: matches by ``fingerprint`` or by rule/tool/surface/name/pointer fnmatch patterns.

    ``tool`` matches findings about tools only (a prompt called like a tool is not matched by it);
    ``name`` matches the item of any surface (tool, prompt and template name, resource uri,
    ``capabilities``/``instructions``); ``surface`` one of ``tool``, ``prompt``, ``resource``,
    ``resource-template``, ``server``.
    """

    reason: str
    fingerprint: str | None = None
    rule: str | None = None
    tool: str | None = None
    pointer: str | None = None
    direction: str | None = None
    expires: _dt.date | None = None
    surface: str | None = None
    name: str | None = None

    def matches(self, f: Any) -> bool:
        """True when every given field matches the ``Finding`` ``f`` (fnmatch patterns; the fingerprint exact)."""
        if self.fingerprint is not None and self.fingerprint != f.fingerprint:
            return False
        if self.tool is not None and f.surface != "tool":
            return False
        for pattern, value in (
            (self.rule, f.rule),
            (self.tool, f.tool),
            (self.pointer, f.pointer),
            (self.direction, f.direction),
            (self.surface, f.surface),
            (self.name, f.name),
        ):
            if pattern is not None and not glob_match(value, pattern):
                return False
        return True

    def expired(self, today: _dt.date) -> bool:
        """True when ``expires`` is set and before ``today``."""
        return self.expires is not None and self.expires < today

    def describe(self) -> dict[str, Any]:
        """JSON-ready form (for reports): the match fields given, ``reason``, ``expires`` as an ISO date."""
        out = {k: getattr(self, k) for k in _MATCH_FIELDS if getattr(self, k) is not None}
        out["reason"] = self.reason
        if self.expires:
            out["expires"] = self.expires.isoformat()
        return out


_MATCH_FIELDS = ("fingerprint", "rule", "tool", "surface", "name", "pointer", "direction")


@dataclass
class Config:
    """A loaded configuration file: one attribute per key of ``KEYS`` (None: not given), ``source`` (the file, or
    None) and ``warnings`` (one-line remarks about where the configuration came from, printed on stderr)."""

    fail_on: str | None = None
    mode: str | None = None
    hosts: list[str] | None = None
    server_validator: str | None = None
    version_sources: list[str] | None = None
    version_gate: str | None = None
    traffic_threshold: str | None = None
    store: str | None = None
    format: str | None = None
    tools: list[str] | None = None
    exclude_tools: list[str] | None = None
    servers: list[str] | None = None
    severity: dict[str, str] = field(default_factory=dict)
    ignore: list[IgnoreEntry] = field(default_factory=list)
    allow: list[IgnoreEntry] = field(default_factory=list)
    source: str | None = None
    warnings: list[str] = field(default_factory=list)


def load_config(path: Path | None = None, cwd: Path | None = None) -> Config:
    """Load the configuration. ``path`` given → that file must exist; else look in ``cwd`` (default: the current
    folder). Raises ``UsageError`` for unreadable or invalid files, unknown keys, bad values, and ignore entries
    without a ``reason``."""
    base = cwd or Path.cwd()
    if path is not None:
        raw = toml_loads(_config_text(path), str(path))
        if path.name != "pyproject.toml":
            return _parsed(raw, str(path), [])
        return _parsed(_tool_table(raw, str(path)), str(path), [w for w in [_misspelled_table(raw, str(path))] if w])
    own, pyproject = base / ".schema-audit.toml", base / "pyproject.toml"
    if own.exists() or own.is_symlink():  # a folder, device or dangling link there is exit 2, never skipped
        cfg = load_config(own)
        table = _pyproject_table_name(pyproject)
        if table:
            cfg.warnings.append(
                f"using {own.name}; [tool.{table}] in {pyproject.name} is ignored (one config file is read: move its "
                f"settings into {own.name}, or delete {own.name} to use {pyproject.name})"
            )
        return cfg
    if not pyproject.is_file():
        return Config()
    try:
        text = _config_text(pyproject)
    except UsageError:  # unreadable (a device, a folder, not UTF-8): no table to read
        text = ""
    raw = toml_loads(text, str(pyproject))
    data = _tool_table(raw, str(pyproject))
    warnings = [w for w in [_misspelled_table(raw, pyproject.name)] if w]
    return _parsed(data, str(pyproject) if data is not None else None, warnings)


def _config_text(path: Path) -> str:
    """The text of the configuration file ``path``: a regular file of at most ``MAX_INPUT_BYTES``, UTF-8 (a
    folder, FIFO or device such as ``/dev/zero`` is refused before it is read, so a configuration committed as a
    link to one neither hangs nor fills memory). Raises ``UsageError``: ``cannot read config …``."""
    try:
        return read_file_bytes(path, "a configuration file").decode("utf-8")
    except InputError as exc:
        raise UsageError(f"cannot read config {exc}") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"cannot read config {path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None


def _parsed(data: dict[str, Any] | None, source: str | None, warnings: list[str]) -> Config:
    cfg = parse_config(data, source or "config") if data else Config()
    cfg.source = source
    cfg.warnings += warnings
    return cfg


def _near_names(raw: dict[str, Any]) -> list[str]:
    """Keys of ``raw``'s ``[tool]`` table that look like schema-audit's other than ``schema-audit`` itself
    (``schema_audit``, ``schemaaudit``, ``Schema-Audit``, ``mcp-schema-audit``)."""
    tool = raw.get("tool")
    if not isinstance(tool, dict):
        return []
    squash = {"schemaaudit", "mcpschemaaudit"}
    return [
        k
        for k in tool
        if k != "schema-audit" and isinstance(k, str) and "".join(ch for ch in k.lower() if ch.isalnum()) in squash
    ]


def _misspelled_table(raw: dict[str, Any], source: str) -> str | None:
    """The warning for a ``[tool.schema_audit]``-like table in a ``pyproject.toml`` (its settings never apply)."""
    near = _near_names(raw)
    if not near:
        return None
    names = ", ".join(f"[tool.{k}]" for k in near)
    return (
        f"{source}: {names} is ignored: schema-audit reads [tool.schema-audit] (with a hyphen); rename the "
        "table so its settings apply"
    )


def _pyproject_table_name(pyproject: Path) -> str | None:
    """The name of schema-audit's table in ``pyproject`` (``schema-audit``, or a near spelling), None when
    the file or the table is absent or unreadable."""
    if not pyproject.is_file():
        return None
    try:
        raw = toml_loads(_config_text(pyproject), str(pyproject))
    except UsageError:
        return None
    tool = raw.get("tool")
    if isinstance(tool, dict) and "schema-audit" in tool:
        return "schema-audit"
    near = _near_names(raw)
    return near[0] if near else None


def _tool_table(raw: dict[str, Any], source: str) -> dict[str, Any] | None:
    """``[tool.schema-audit]`` of a parsed ``pyproject.toml`` (None when absent); ``UsageError`` when
    ``tool`` or ``tool.schema-audit`` is not a table."""
    tool = raw.get("tool")
    if tool is None:
        return None
    if not isinstance(tool, dict):
        raise UsageError(f"{source}: [tool] must be a table")
    data = tool.get("schema-audit")
    if data is not None and not isinstance(data, dict):
        raise UsageError(f"{source}: [tool.schema-audit] must be a table")
    return data


def parse_config(data: dict[str, Any], source: str) -> Config:
    """A ``Config`` from the key/value table ``data`` of the file ``source``, every value checked by its ``Key``.
    Raises ``UsageError`` naming the key (with a did-you-mean for an unknown one)."""
    unknown = set(data) - set(KEY_NAMES)
    if unknown:
        raise UsageError(
            f"{source}: unknown key(s) {', '.join(sorted(unknown))}{did_you_mean(unknown, set(KEY_NAMES))}"
        )
    cfg = Config(source=source)
    for name, value in data.items():
        setattr(cfg, name, _PARSERS[KEY_NAMES[name].kind](KEY_NAMES[name], value, source))
    return cfg


def _parse_choice(key: Key, value: Any, source: str) -> str:
    return check_choice(value, choices_of(key), f"{source}: {key.name}")


def _parse_choices(key: Key, value: Any, source: str) -> list[str]:
    if not isinstance(value, list):
        raise UsageError(
            f"{source}: {key.name} must be an array of host profiles, not {toml_type(value)}, e.g. {key.example}"
        )
    if not value:
        # an empty list selected no host: every breaking finding became info and the gate passed
        raise UsageError(
            f"{source}: {key.name} is empty: name at least one of {', '.join(choices_of(key))} "
            "(leave hosts out for all of them)"
        )
    return [check_choice(h, choices_of(key), f"{source}: {key.name}") for h in value]


def _parse_string(key: Key, value: Any, source: str) -> str:
    text = check_string(value, f"{source}: {key.name}", key.example)
    if not text.strip():
        raise UsageError(f"{source}: {key.name} must not be empty")
    return text


def _parse_globs(key: Key, value: Any, source: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(g, str) for g in value):
        raise UsageError(f"{source}: {key.name} must be a list of glob strings, e.g. {key.example}")
    return check_count(value, f"{source}: {key.name}")


def _parse_paths(key: Key, value: Any, source: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(g, str) and g for g in value):
        raise UsageError(f"{source}: {key.name} must be a list of file paths, e.g. {key.example}")
    return list(value)


def _parse_severity(key: Key, value: Any, source: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise UsageError(f"{source}: [{key.name}] must be a table of rule = level")
    for rule, level in value.items():
        check_string(level, f"{source}: [{key.name}] {rule}", f'"{rule}" = "info"')
    return parse_severity_overrides([f"{k}={v}" for k, v in value.items()], source)


def _parse_entries(key: Key, value: Any, source: str) -> list[IgnoreEntry]:
    if not isinstance(value, list):
        raise UsageError(f"{source}: {key.name} must be an array of tables ([[{key.name}]])")
    return [_entry(e, f"{source}: [[{key.name}]] #{i + 1}", key.name) for i, e in enumerate(value)]


_PARSERS = {
    "choice": _parse_choice,
    "choices": _parse_choices,
    "string": _parse_string,
    "globs": _parse_globs,
    "paths": _parse_paths,
    "severity": _parse_severity,
    "entries": _parse_entries,
}

_TOML_TYPES = (
    (bool, "a boolean"),
    (int, "an integer"),
    (float, "a float"),
    (str, "a string"),
    (list, "an array"),
    (dict, "a table"),
    (_dt.datetime, "a date-time"),
    (_dt.date, "a date"),
    (_dt.time, "a time"),
)
_FINGERPRINT_RE = re.compile(r"^[0-9a-f]{16}\Z")


def toml_type(value: Any) -> str:
    """What a TOML value is, in words (``an integer``, ``an array``, …)."""
    return next((name for t, name in _TOML_TYPES if isinstance(value, t)), type(value).__name__)


def check_string(value: Any, what: str, example: str) -> str:
    """``value`` when it is a string; else ``UsageError`` naming the key, the type found and an example."""
    if not isinstance(value, str):
        raise UsageError(f"{what} must be a string, not {toml_type(value)} ({value!r}), e.g. {example}")
    return value


def check_choice(value: Any, allowed: tuple[str, ...], what: str) -> str:
    """``value`` when it is one of ``allowed``; else ``UsageError`` naming ``what``, the choices and the value."""
    if not isinstance(value, str):
        raise UsageError(f"{what} must be a string, one of {', '.join(allowed)} (got {toml_type(value)} {value!r})")
    if value not in allowed:
        raise not_one_of(what, value, allowed)
    return str(value)


_EXAMPLES = {
    "fingerprint": "3f0c9a1b2c3d4e5f",
    "rule": "output-enum-value-added",
    "tool": "get_*",
    "surface": "prompt",
    "name": "summarize",
    "pointer": "/properties/status/enum",
    "direction": "output",
}
_ENTRY_KEYS = {"reason", "expires", *_MATCH_FIELDS}


def did_you_mean(unknown: set[str], known: set[str]) -> str:
    """``"; did you mean fail_on?"`` for the unknown keys that are close to a known one (``fail-on``, ``tol``);
    ``""`` when none is."""
    import difflib

    close = []
    for word in sorted(unknown):
        match = difflib.get_close_matches(word.replace("-", "_").lower(), sorted(known), n=1, cutoff=0.5)
        if match:
            close.append(f"{match[0]} (for {word})" if len(unknown) > 1 else match[0])
    return f"; did you mean {', '.join(close)}?" if close else ""


def _entry(e: Any, source: str, key: str) -> IgnoreEntry:
    from mcp_schema_audit.rules import RULES, unknown_rule_message

    if not isinstance(e, dict):
        raise UsageError(f"{source}: each [[{key}]] entry must be a table")
    extra = set(e) - _ENTRY_KEYS
    if extra:
        raise UsageError(
            f"{source}: [[{key}]] has unknown key(s) {', '.join(sorted(extra))}{did_you_mean(extra, _ENTRY_KEYS)}"
        )
    for k in _MATCH_FIELDS:
        if k in e:
            # a number or an array here was turned into its text and matched nothing: refuse it
            check_string(e[k], f"{source}: {k}", f'{k} = "{_EXAMPLES[k]}"')
    if "fingerprint" in e and not _FINGERPRINT_RE.match(e["fingerprint"]):
        raise UsageError(
            f'{source}: fingerprint must be 16 lowercase hex digits as in a report\'s "fingerprint" '
            f"(got {e['fingerprint']!r})"
        )
    reason = e.get("reason")
    if "reason" in e:
        check_string(reason, f"{source}: reason", 'reason = "why this change is accepted"')
    if not isinstance(reason, str) or not reason.strip():
        which = f" (fingerprint {e['fingerprint']})" if "fingerprint" in e else ""
        raise UsageError(f"{source}{which}: every [[{key}]] entry needs a non-empty reason")
    if not any(k in e for k in ("fingerprint", "rule", "tool", "surface", "name", "pointer")):
        raise UsageError(f"{source}: a [[{key}]] entry must name a fingerprint, rule, tool, surface, name or pointer")
    if "rule" in e and not any(glob_match(r, str(e["rule"])) for r in RULES):
        # a rule pattern that matches no rule id would never match a finding: a silent no-op, so refuse it
        raise UsageError(f"{source}: {unknown_rule_message(str(e['rule']))}")
    if "surface" in e and e["surface"] not in SURFACES:
        raise not_one_of(f"{source}: surface", e["surface"], SURFACES)
    vals = {k: (str(e[k]) if k in e else None) for k in _MATCH_FIELDS}
    return IgnoreEntry(reason=reason.strip(), expires=_expiry(e.get("expires"), source), **vals)


def _expiry(expires: Any, source: str) -> _dt.date | None:
    """An entry's ``expires`` as a date: a TOML date, a date-time (its date) or an ISO ``YYYY-MM-DD`` string."""
    if isinstance(expires, str):
        try:
            return _dt.date.fromisoformat(expires)
        except ValueError as exc:
            raise UsageError(f"{source}: expires must be a date YYYY-MM-DD (got {expires!r})") from exc
    if isinstance(expires, _dt.datetime):
        return expires.date()
    if expires is not None and not isinstance(expires, _dt.date):
        raise UsageError(f"{source}: expires must be a date YYYY-MM-DD")
    return expires


def parse_severity_overrides(items: list[str], source: str = "--severity") -> dict[str, str]:
    """Parse ``RULE=LEVEL`` items (level: breaking|warning|info). Raises ``UsageError`` on unknown ids."""
    from mcp_schema_audit.rules import RULES, unknown_rule_message

    out: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise UsageError(f"{source}: expected RULE=LEVEL (got {item!r})")
        rule, level = (x.strip() for x in item.split("=", 1))
        if rule not in RULES:
            raise UsageError(f"{source}: {unknown_rule_message(rule)}")
        if level not in SEVERITIES:
            raise UsageError(f"{source}: level for {rule} must be breaking, warning or info (got {level!r})")
        out[rule] = level
    return out
