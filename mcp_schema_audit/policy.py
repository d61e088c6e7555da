"""Policy: configuration file, severity overrides, host restriction, compatibility modes, ignore list.

Configuration comes from ``--config FILE``, else ``.schema-audit.toml`` in the current folder, else
``[tool.schema-audit]`` in ``pyproject.toml``. Keys (all optional)::

    fail_on = "breaking"            # default for --fail-on
    mode = "backward"               # default for --mode
    hosts = ["python-sdk"]          # default for --host
    store = ".schema-audit"         # default for --store
    format = "text"                 # default for --format of diff and lint
    tools = ["get_*"]               # default for --tool (diff, lint, history): fnmatch globs on tool names
    exclude_tools = ["debug_*"]     # default for --exclude-tool
    [severity]                      # like --severity RULE=LEVEL
    "output-object-closed" = "info"
    [[ignore]]                      # accept a known change; reason is required
    fingerprint = "0123456789abcdef"    # or: rule / tool / surface / name / pointer (fnmatch patterns)
    reason = "clients pinned to 0.2.6 reconnect on deploy"
    expires = 2027-01-31                # optional; an expired entry no longer applies and is reported
    [[allow]]                       # lint allowlist: rule / tool / pointer patterns with a reason

Every value is checked for its type (``UsageError`` naming the key): a number or an array where a string
belongs was once turned into its text and matched nothing.
"""

from __future__ import annotations

import datetime as _dt
import fnmatch
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mcp_schema_audit.diff import diff_snapshots
from mcp_schema_audit.errors import UsageError
from mcp_schema_audit.findings import NEW_SIDE, SURFACES, Finding
from mcp_schema_audit.rules import RULES, SEVERITIES, unknown_rule_message
from mcp_schema_audit.schema import HOST_PROFILES
from mcp_schema_audit.snapshot import Snapshot
from mcp_schema_audit.surfaces import SYMMETRIC_RULES

MODES = ("backward", "forward", "full")
_KNOWN_KEYS = {"fail_on", "mode", "hosts", "store", "severity", "ignore", "allow", "format", "tools", "exclude_tools"}
#: What ``diff --format`` and ``lint --format`` accept (``ignore``: ready-to-paste ``[[ignore]]`` entries).
REPORT_FORMATS = ("text", "json", "markdown", "sarif", "github", "junit", "ignore")


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

    def matches(self, f: Finding) -> bool:
        """True when every given field matches ``f`` (patterns use fnmatch; fingerprint is exact)."""
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
            if pattern is not None and not fnmatch.fnmatchcase(value, pattern):
                return False
        return True

    def expired(self, today: _dt.date) -> bool:
        """True when ``expires`` is set and before ``today``."""
        return self.expires is not None and self.expires < today

    def describe(self) -> dict[str, Any]:
        """JSON-ready form (for reports)."""
        out = {
            k: v
            for k, v in (
                ("fingerprint", self.fingerprint),
                ("rule", self.rule),
                ("tool", self.tool),
                ("surface", self.surface),
                ("name", self.name),
                ("pointer", self.pointer),
                ("direction", self.direction),
            )
            if v is not None
        }
        out["reason"] = self.reason
        if self.expires:
            out["expires"] = self.expires.isoformat()
        return out


@dataclass
class Config:
    """Loaded configuration (see the module docstring). ``source`` is the file it came from, or None."""

    fail_on: str | None = None
    mode: str | None = None
    hosts: list[str] | None = None
    store: str | None = None
    fmt: str | None = None
    tools: list[str] | None = None
    exclude_tools: list[str] | None = None
    severity: dict[str, str] = field(default_factory=dict)
    ignore: list[IgnoreEntry] = field(default_factory=list)
    allow: list[IgnoreEntry] = field(default_factory=list)
    source: str | None = None
    #: one-line warnings about where the configuration came from (a misspelled table, a second config file
    #: that is ignored): the CLI prints each on stderr
    warnings: list[str] = field(default_factory=list)


def _toml_loads(text: str, source: str) -> dict[str, Any]:
    try:
        import tomllib  # type: ignore[import-not-found]
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{source}: invalid TOML: {exc}") from exc


def load_config(path: Path | None = None, cwd: Path | None = None) -> Config:
    """Load the configuration. ``path`` given → that file must exist; else look in ``cwd``.

    Raises ``UsageError`` for unreadable or invalid files, unknown keys, bad values, and ignore
    entries without a ``reason``.
    """
    base = cwd or Path.cwd()
    data: dict[str, Any] | None = None
    source = None
    if path is not None:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read config {path}: {getattr(exc, 'strerror', None) or exc}") from exc
        raw = _toml_loads(text, str(path))
        data = _tool_table(raw, str(path)) if path.name == "pyproject.toml" else raw
        source = str(path)
        warnings = [w for w in [_misspelled_table(raw, str(path))] if w] if path.name == "pyproject.toml" else []
    else:
        own = base / ".schema-audit.toml"
        pyproject = base / "pyproject.toml"
        if own.is_file():
            cfg = load_config(own)
            table = _pyproject_table_name(pyproject)
            if table:
                cfg.warnings.append(
                    f"using {own.name}; [tool.{table}] in {pyproject.name} is ignored (one config "
                    f"file is read: move its settings into {own.name}, or delete {own.name} to use "
                    f"{pyproject.name})"
                )
            return cfg
        warnings = []
        if pyproject.is_file():
            try:
                raw = _toml_loads(pyproject.read_text(encoding="utf-8"), str(pyproject))
            except (OSError, UnicodeDecodeError):
                raw = {}
            data = _tool_table(raw, str(pyproject))
            source = str(pyproject) if data is not None else None
            warnings = [w for w in [_misspelled_table(raw, pyproject.name)] if w]
    if not data:
        return Config(source=source, warnings=warnings)
    cfg = _parse_config(data, source or "config")
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
        raw = _toml_loads(pyproject.read_text(encoding="utf-8"), str(pyproject))
    except (OSError, UnicodeDecodeError, UsageError):
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


def _parse_config(data: dict[str, Any], source: str) -> Config:
    unknown = set(data) - _KNOWN_KEYS
    if unknown:
        raise UsageError(f"{source}: unknown key(s) {', '.join(sorted(unknown))}{_did_you_mean(unknown, _KNOWN_KEYS)}")
    cfg = Config(source=source)
    if "fail_on" in data:
        cfg.fail_on = _choice(data["fail_on"], ("breaking", "warning", "info", "never"), f"{source}: fail_on")
    if "mode" in data:
        cfg.mode = _choice(data["mode"], MODES, f"{source}: mode")
    if "hosts" in data:
        if not isinstance(data["hosts"], list):
            raise UsageError(
                f"{source}: hosts must be an array of host profiles, not {_toml_type(data['hosts'])}, "
                f'e.g. hosts = ["python-sdk"]'
            )
        if not data["hosts"]:
            # an empty list selected no host: every breaking finding became info and the gate passed
            raise UsageError(
                f"{source}: hosts is empty: name at least one of {', '.join(HOST_PROFILES)} "
                "(leave hosts out for all of them)"
            )
        cfg.hosts = [_choice(h, HOST_PROFILES, f"{source}: hosts") for h in data["hosts"]]
    if "store" in data:
        cfg.store = _string(data["store"], f"{source}: store", 'store = ".schema-audit"')
        if not cfg.store.strip():
            raise UsageError(f"{source}: store must not be empty")
    if "format" in data:
        cfg.fmt = _choice(data["format"], REPORT_FORMATS, f"{source}: format")
    for key in ("tools", "exclude_tools"):
        if key in data:
            globs = data[key]
            if not isinstance(globs, list) or not all(isinstance(g, str) for g in globs):
                raise UsageError(f'{source}: {key} must be a list of glob strings, e.g. {key} = ["get_*"]')
            setattr(cfg, key, list(globs))
    sev = data.get("severity", {})
    if not isinstance(sev, dict):
        raise UsageError(f"{source}: [severity] must be a table of rule = level")
    for rule, level in sev.items():
        _string(level, f"{source}: [severity] {rule}", f'"{rule}" = "info"')
    cfg.severity = parse_severity_overrides([f"{k}={v}" for k, v in sev.items()], source)
    cfg.ignore = [
        _entry(e, f"{source}: [[ignore]] #{i + 1}", "ignore")
        for i, e in enumerate(_list(data.get("ignore", []), source, "ignore"))
    ]
    cfg.allow = [
        _entry(e, f"{source}: [[allow]] #{i + 1}", "allow")
        for i, e in enumerate(_list(data.get("allow", []), source, "allow"))
    ]
    return cfg


def _list(value: Any, source: str, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise UsageError(f"{source}: {key} must be an array of tables ([[{key}]])")
    return value


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


def _toml_type(value: Any) -> str:
    """What a TOML value is, in words (``an integer``, ``an array``, …)."""
    return next((name for t, name in _TOML_TYPES if isinstance(value, t)), type(value).__name__)


def _string(value: Any, what: str, example: str) -> str:
    """``value`` when it is a string; else ``UsageError`` naming the key, the type found and an example."""
    if not isinstance(value, str):
        raise UsageError(f"{what} must be a string, not {_toml_type(value)} ({value!r}), e.g. {example}")
    return value


def _choice(value: Any, allowed: tuple[str, ...], what: str) -> str:
    if not isinstance(value, str):
        raise UsageError(f"{what} must be a string, one of {', '.join(allowed)} (got {_toml_type(value)} {value!r})")
    if value not in allowed:
        raise UsageError(f"{what} must be one of {', '.join(allowed)} (got {value!r})")
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


_ENTRY_KEYS = {"reason", "fingerprint", "rule", "tool", "surface", "name", "pointer", "direction", "expires"}


def _did_you_mean(unknown: set[str], known: set[str]) -> str:
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
    if not isinstance(e, dict):
        raise UsageError(f"{source}: each [[{key}]] entry must be a table")
    extra = set(e) - _ENTRY_KEYS
    if extra:
        raise UsageError(
            f"{source}: [[{key}]] has unknown key(s) {', '.join(sorted(extra))}{_did_you_mean(extra, _ENTRY_KEYS)}"
        )
    for k in ("fingerprint", "rule", "tool", "surface", "name", "pointer", "direction"):
        if k in e:
            # a number or an array here was turned into its text and matched nothing: refuse it
            _string(e[k], f"{source}: {k}", f'{k} = "{_EXAMPLES[k]}"')
    if "fingerprint" in e and not _FINGERPRINT_RE.match(e["fingerprint"]):
        raise UsageError(
            f'{source}: fingerprint must be 16 lowercase hex digits as in a report\'s "fingerprint" '
            f"(got {e['fingerprint']!r})"
        )
    reason = e.get("reason")
    if "reason" in e:
        _string(reason, f"{source}: reason", 'reason = "why this change is accepted"')
    if not isinstance(reason, str) or not reason.strip():
        which = f" (fingerprint {e['fingerprint']})" if "fingerprint" in e else ""
        raise UsageError(f"{source}{which}: every [[{key}]] entry needs a non-empty reason")
    if not any(k in e for k in ("fingerprint", "rule", "tool", "surface", "name", "pointer")):
        raise UsageError(f"{source}: a [[{key}]] entry must name a fingerprint, rule, tool, surface, name or pointer")
    if "rule" in e and not any(fnmatch.fnmatchcase(r, str(e["rule"])) for r in RULES):
        # a rule pattern that matches no rule id would never match a finding: a silent no-op, so refuse it
        raise UsageError(f"{source}: {unknown_rule_message(str(e['rule']))}")
    if "surface" in e and e["surface"] not in SURFACES:
        raise UsageError(f"{source}: surface must be one of {', '.join(SURFACES)} (got {e['surface']!r})")
    expires = e.get("expires")
    if isinstance(expires, str):
        try:
            expires = _dt.date.fromisoformat(expires)
        except ValueError as exc:
            raise UsageError(f"{source}: expires must be a date YYYY-MM-DD (got {expires!r})") from exc
    elif isinstance(expires, _dt.datetime):
        expires = expires.date()
    elif expires is not None and not isinstance(expires, _dt.date):
        raise UsageError(f"{source}: expires must be a date YYYY-MM-DD")
    vals = {
        k: (str(e[k]) if k in e else None)
        for k in ("fingerprint", "rule", "tool", "surface", "name", "pointer", "direction")
    }
    return IgnoreEntry(reason=reason.strip(), expires=expires, **vals)


def parse_severity_overrides(items: list[str], source: str = "--severity") -> dict[str, str]:
    """Parse ``RULE=LEVEL`` items (level: breaking|warning|info). Raises ``UsageError`` on unknown ids."""
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


@dataclass
class PolicyResult:
    """Findings after policy, the suppressed ones with their reasons, and expired ignore entries."""

    findings: list[Finding]
    ignored: list[tuple[Finding, str]]
    expired: list[dict[str, Any]]


def apply_policy(
    findings: list[Finding],
    *,
    severity: dict[str, str] | None = None,
    hosts: list[str] | None = None,
    ignore: list[IgnoreEntry] | None = None,
    today: _dt.date | None = None,
) -> PolicyResult:
    """Apply, in order: host restriction, severity overrides, the ignore list.

    - ``hosts``: a breaking finding confirmed only for hosts outside ``hosts`` becomes ``info``
      with a ``reason``; the confirmed list is narrowed to the selected hosts.
    - ``severity``: rule id → level overrides.
    - ``ignore``: matching findings move to ``ignored``; expired entries never match and are returned.
    Findings keep their order. Inputs are not mutated.
    """
    today = today or _dt.date.today()
    out: list[Finding] = []
    ignored: list[tuple[Finding, str]] = []
    active = [e for e in (ignore or []) if not e.expired(today)]
    expired = [e.describe() for e in (ignore or []) if e.expired(today)]
    for f in findings:
        g = replace(f, hosts=list(f.hosts), tags=list(f.tags))
        if hosts is not None and g.severity == "breaking" and g.hosts:
            chosen = [h for h in g.hosts if h in hosts]
            if not chosen:
                g.severity = "info"
                g.reason = f"breaks only {', '.join(g.hosts)}, not selected by --host"
            g.hosts = chosen or g.hosts
            if chosen and "python-sdk" not in chosen and g.ajv_error and isinstance(g.witness, dict):
                g.witness = {**g.witness, "error": g.ajv_error}  # the selected (TS) hosts' own words
        if severity and g.rule in severity:
            g.severity = severity[g.rule]
        entry = next((e for e in active if e.matches(g)), None)
        if entry is not None:
            ignored.append((g, entry.reason))
        else:
            out.append(g)
    return PolicyResult(out, ignored, expired)


#: The engine's role words (it speaks of the cached and the new side): in a forward finding "new" is the
#: side the server runs, i.e. the OLD snapshot. Applied once, left to right, to the engine's message.
_ROLE_WORDS = re.compile(r"\bthe (new|cached) (schema|server|object)\b|\bnew (tool)\b")
_SWAPPED = {"old": "new", "new": "old"}


def diff_with_mode(
    old: Snapshot,
    new: Snapshot,
    mode: str = "backward",
    *,
    time_budget: float | None = None,
    jobs: int | None = None,
    progress: Any = None,
) -> list[Finding]:
    """Findings for ``mode`` (DESIGN.md §2): ``backward`` = hosts cached OLD, server runs NEW;
    ``forward`` = hosts cached NEW, server runs OLD (rollback, mixed replicas); ``full`` = both.

    Forward findings are computed by swapping the sides, then mapped back to the snapshots as given,
    so that in every finding ``old`` means OLD and ``new`` means NEW: ``old``/``new`` (values),
    ``old_pointer``/``new_pointer`` and the witness's ``accepted_by`` (``"old"`` when the OLD snapshot
    accepts the witness: for an output witness the version the server runs, for an argument witness the
    version hosts cached). ``pointer`` (and so the fingerprint) stays the location in the served (OLD)
    schema. Each forward finding carries the tag ``forward`` and a message that names both versions by
    label (``[forward: hosts cached NEW, server runs OLD] … the served OLD schema …``). ``time_budget``
    (seconds) bounds each direction's ``diff_snapshots`` call; ``jobs`` and ``progress`` are passed to it.
    Raises ``UsageError`` for an unknown mode.
    """
    if mode not in MODES:
        raise UsageError(f"--mode must be one of {', '.join(MODES)} (got {mode!r})")
    out: list[Finding] = []
    if mode in ("backward", "full"):
        out += diff_snapshots(old, new, time_budget=time_budget, jobs=jobs, progress=progress)
    if mode in ("forward", "full"):
        # a tool-level change (description, annotations) is one finding, whichever side is cached; so is a
        # change of a prompt's, resource's or template's text or mimeType, or of the instructions
        have = {(f.rule, f.tool, f.pointer) for f in out if f.direction == "tool"}
        same = {(f.rule, f.surface, f.name, f.pointer) for f in out if f.rule in SYMMETRIC_RULES}
        out += [
            _as_forward(f, old, new)
            for f in diff_snapshots(new, old, time_budget=time_budget, jobs=jobs, progress=progress)
            if not (
                f.direction == "tool"
                and f.rule not in ("tool-added", "tool-removed")
                and (f.rule, f.tool, f.pointer) in have
            )
            and (f.rule, f.surface, f.name, f.pointer) not in same
        ]
    return out


def _as_forward(f: Finding, old: Snapshot, new: Snapshot) -> Finding:
    """A finding of ``diff_snapshots(new, old)`` (engine "old" = NEW, engine "new" = OLD) in the terms of the
    command line: values, pointers and ``accepted_by`` swapped back; message with labels, tag ``forward``."""

    def word(m: re.Match[str]) -> str:
        if m.group(3):  # "new tool": a tool only the served OLD version lists
            return f"tool only {old.label} (served) lists"
        if m.group(1) == "new":
            return f"the {old.label} server" if m.group(2) == "server" else f"the served {old.label} {m.group(2)}"
        return f"the cached {new.label} {m.group(2)}"

    g = replace(
        f,
        old=f.new,
        new=f.old,
        old_pointer=f.new_pointer,
        new_pointer=f.old_pointer,
        tags=[*f.tags, "forward"],
        hosts=list(f.hosts),
        delta=f.new if f.delta is NEW_SIDE else f.delta,
    )
    if isinstance(f.witness, dict):
        g.witness = dict(f.witness)
        if g.witness.get("accepted_by") in _SWAPPED:
            g.witness["accepted_by"] = _SWAPPED[g.witness["accepted_by"]]
    rule = RULES.get(f.rule)
    head = f"{f.subject}: {rule.title} at {f.pointer or '(root)'}: " if rule is not None else ""
    if not (head and f.message.startswith(head)):
        head = ""  # the engine's "tool: Title at pointer: " head holds server text: never rewritten
    detail = f.message[len(head) :]
    # quoted values ('…' as repr, "…" as JSON) are the server's text: role words are rewritten outside them only
    parts = _QUOTED.split(detail)
    detail = "".join(part if i % 2 else _ROLE_WORDS.sub(word, part) for i, part in enumerate(parts))
    g.message = f"[forward: hosts cached {new.label}, server runs {old.label}] {head}{detail}"
    return g


#: A quoted value: ``'…'`` (repr) or ``"…"`` (JSON), opening after no letter (the ``'`` of ``schema's`` opens none)
_QUOTED = re.compile(r"""((?<!\w)'(?:[^'\\]|\\.)*'|(?<!\w)"(?:[^"\\]|\\.)*")""")


def ignore_entries_toml(findings: list[Finding]) -> str:
    """Ready-to-paste ``[[ignore]]`` TOML entries for ``findings`` (one per fingerprint, reason to fill in)."""
    import json

    lines = ["# Paste into .schema-audit.toml (or [tool.schema-audit] in pyproject.toml) and give each a reason.", ""]
    seen = set()
    for f in findings:
        if f.fingerprint in seen:
            continue
        seen.add(f.fingerprint)
        lines += [
            "[[ignore]]",
            f"fingerprint = {json.dumps(f.fingerprint)}",
            f"# {f.severity} {f.rule} {json.dumps(f.tool) if f.surface == 'tool' else f.surface} "
            f"{json.dumps(f.name) if f.surface != 'tool' else f.direction} {json.dumps(f.pointer)}",
            'reason = ""',
            "# expires = 2099-12-31",
            "",
        ]
    return "\n".join(lines) + "\n"
