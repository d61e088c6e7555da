"""Settings of one run: the command line's flags over the configuration file over built-in defaults, typed.

``resolve`` merges and checks them (``UsageError`` for a bad value, naming the flag); ``Settings`` is what the
audit core (``audit``) reads, ``RunLimits`` how much a comparison may use (a last-resort time guard, worker
processes) and whom it tells about its progress. The keys themselves are declared once, in ``config.KEYS``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import cast

from mcp_schema_audit.config import KEY_NAMES, Config, IgnoreEntry, check_choice, choices_of, load_config
from mcp_schema_audit.errors import UsageError, not_one_of
from mcp_schema_audit.snapshot import DEFAULT_STORE
from mcp_schema_audit.vocabulary import FailOn, Mode


@dataclass(frozen=True)
class Settings:
    """What a command was asked to do, merged and checked.

    ``hosts`` is None for every host profile; ``server_validator`` is how the server's framework reads
    arguments (``auto``: inferred from the served listing; ``engine.servers.PROFILES``); ``severity`` maps rule id
    → level; ``ignore`` and ``allow`` are the config's ``[[ignore]]``/``[[allow]]`` entries;
    ``tools``/``exclude_tools`` are fnmatch globs on tool names (empty: no filter); ``servers`` the fnmatch globs
    of server names ``history`` counts as NEW's server besides its own (None: not chosen; empty: NEW's own name
    only); ``config`` is the loaded file (its ``source`` and ``warnings``)."""

    fail_on: FailOn = "breaking"
    mode: Mode = "backward"
    hosts: tuple[str, ...] | None = None
    server_validator: str = "auto"
    traffic_threshold: str | None = None
    severity: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    ignore: tuple[IgnoreEntry, ...] = ()
    allow: tuple[IgnoreEntry, ...] = ()
    store: Path = DEFAULT_STORE
    format: str = "text"
    tools: tuple[str, ...] = ()
    exclude_tools: tuple[str, ...] = ()
    servers: tuple[str, ...] | None = None
    #: files whose version must agree with NEW's serverInfo.version (``--version-source``)
    version_sources: tuple[str, ...] = ()
    #: ``semver``: the version rules run and text/Markdown show the suggested version (``--version-gate``)
    version_gate: str = "off"
    config: Config = field(default_factory=Config)


@dataclass(frozen=True)
class RunLimits:
    """How much one comparison may use. ``time_budget``: seconds of a last-resort guard (None: the engine's
    default, ``engine.RUN_TIME_BUDGET_S``; 0: none); verdicts never depend on it. ``jobs``: worker processes
    (None: every available core, when the catalog is large enough to pay for it). ``progress(done, total)`` is
    called as tools needing work are finished (None: nobody is told)."""

    time_budget: float | None = None
    jobs: int | None = None
    progress: Callable[[int, int], None] | None = None


def resolve(
    config: Config | Path | None = None,
    *,
    fail_on: str | None = None,
    mode: str | None = None,
    hosts: Iterable[str] = (),
    server_validator: str | None = None,
    traffic_threshold: str | None = None,
    severity: Iterable[str] = (),
    store: Path | None = None,
    fmt: str | None = None,
    formats: tuple[str, ...] | None = None,
    config_format: bool = True,
    tools: Iterable[str] = (),
    exclude_tools: Iterable[str] = (),
    servers: Iterable[str] = (),
    version_sources: Iterable[str] = (),
    version_gate: str | None = None,
) -> Settings:
    """Merge the flags over the configuration file (``config``: a loaded ``Config``, a file to load, else the one
    found in the current folder) over the built-in defaults, and check every value.

    A flag replaces the config's value (for the list keys ``hosts``, ``tools``, ``exclude_tools``, ``servers`` and
    ``version_sources``, the whole list; ``--severity`` items override the config's ``[severity]`` rule by rule).
    ``formats``: what this
    command's ``--format`` accepts (None: every report format); the config's ``format`` is the default only when
    ``config_format``. Raises ``UsageError`` for a bad value (naming the flag) or a bad config file."""
    from mcp_schema_audit.config import parse_severity_overrides

    cfg = config if isinstance(config, Config) else load_config(config)
    merged = Settings(
        fail_on=cast(FailOn, _checked("fail_on", fail_on or cfg.fail_on or "breaking")),
        mode=cast(Mode, _checked("mode", mode or cfg.mode or "backward")),
        hosts=_hosts(list(hosts) or cfg.hosts),
        server_validator=_checked("server_validator", server_validator or cfg.server_validator or "auto"),
        traffic_threshold=_threshold(traffic_threshold or cfg.traffic_threshold),
        severity=MappingProxyType({**cfg.severity, **parse_severity_overrides(list(severity))}),
        ignore=tuple(cfg.ignore),
        allow=tuple(cfg.allow),
        store=store or (Path(cfg.store) if cfg.store else DEFAULT_STORE),
        format=fmt or (cfg.format if config_format else None) or "text",
        tools=tuple(tools) or tuple(cfg.tools or ()),
        exclude_tools=tuple(exclude_tools) or tuple(cfg.exclude_tools or ()),
        servers=tuple(servers) or (tuple(cfg.servers) if cfg.servers is not None else None),
        version_sources=tuple(version_sources) or tuple(cfg.version_sources or ()),
        version_gate=_checked("version_gate", version_gate or cfg.version_gate or "off"),
        config=cfg,
    )
    allowed = formats if formats is not None else choices_of(KEY_NAMES["format"])
    if merged.format not in allowed:
        raise not_one_of("--format", merged.format, allowed)
    return merged


def _threshold(value: str | None) -> str | None:
    """``traffic_threshold`` checked: ``N`` (calls) or ``N%``. Raises ``UsageError``."""
    if value is None:
        return None
    text = value.strip()
    number = text[:-1] if text.endswith("%") else text
    try:
        ok = float(number) >= 0 if text.endswith("%") else int(number) >= 0
    except ValueError:
        ok = False
    if not ok:
        raise UsageError(f"--traffic-threshold must be a number of calls (5) or a percentage (1%), got {value!r}")
    return text


def _checked(name: str, value: str) -> str:
    key = KEY_NAMES[name]
    return check_choice(value, choices_of(key), key.flag)


def _hosts(hosts: list[str] | None) -> tuple[str, ...] | None:
    if not hosts:
        return None
    return tuple(_checked("hosts", h) for h in hosts)
