"""The options several commands share, declared once as typed parameters (``Annotated`` aliases).

The help of an option that a config key backs is written from that key (``config.KEYS``: its choices, what it
does, its default), so ``--help``, the config file and docs/cli.md say the same. Importing this module loads no
engine code (``--help`` must stay fast).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mcp_schema_audit.config import KEY_NAMES, choices_of
from mcp_schema_audit.report.formats import formats_help


def key_help(name: str, *, choices: bool = True) -> str:
    """The help of the option a config key backs: ``a | b | c: what it does. Default: D, or the config file's
    NAME.``"""
    key = KEY_NAMES[name]
    head = f"{' | '.join(choices_of(key))}: " if choices and choices_of(key) else ""
    repeat = " (repeatable)" if key.kind in ("choices", "globs", "paths", "severity") else ""
    doc = key.doc if head else key.doc[0].upper() + key.doc[1:]
    return f"{head}{doc}{repeat}. Default: {key.default}, or the config file's {name}."


#: ``--time-budget``: the engine's default is ``engine.RUN_TIME_BUDGET_S`` (900 s; written here so --help does not
#: import the engine; a test checks they agree).
TIME_BUDGET_HELP = (
    "Last-resort guard: seconds the whole comparison may run (default 900; 0 = no limit). Verdicts never depend "
    "on time (every budget that bounds them counts work); past this guard the run stops with exit 4 and writes "
    "no report."
)
CONFIG_HELP = "Config file (default: .schema-audit.toml, else [tool.schema-audit] in pyproject.toml)."
SAMPLES_HELP = (
    "A probe recording of NEW (probe --record FILE): every recorded result a cached (OLD) outputSchema rejects is "
    "a breaking finding with the real payload as its witness."
)

Format = Annotated[
    str | None,
    typer.Option(
        "--format", "-f", metavar="FORMAT", help=formats_help() + ". Default: text, or the config file's format."
    ),
]
FailOn = Annotated[str | None, typer.Option("--fail-on", metavar="LEVEL", help=key_help("fail_on"))]
Mode = Annotated[str | None, typer.Option("--mode", metavar="MODE", help=key_help("mode"))]
Hosts = Annotated[list[str] | None, typer.Option("--host", metavar="NAME", help=key_help("hosts"))]
ServerValidator = Annotated[
    str | None, typer.Option("--server-validator", metavar="NAME", help=key_help("server_validator", choices=False))
]
Severity = Annotated[
    list[str] | None,
    typer.Option(
        "--severity",
        metavar="RULE=LEVEL",
        help="Override a rule's severity: RULE=breaking|warning|info (repeatable; over the config file's [severity]).",
    ),
]
Tools = Annotated[
    list[str] | None,
    typer.Option(
        "--tool",
        metavar="GLOB",
        help="Only tools whose name matches this glob (fnmatch: * ? [seq]; "
        "case-sensitive; repeatable). Default: the config file's tools, else every tool.",
    ),
]
ExcludeTools = Annotated[
    list[str] | None,
    typer.Option(
        "--exclude-tool",
        metavar="GLOB",
        help="Leave out tools whose name matches this glob (repeatable; "
        "applied after --tool). Default: the config file's exclude_tools.",
    ),
]
VersionSources = Annotated[
    list[str] | None,
    typer.Option("--version-source", metavar="FILE", help=key_help("version_sources")),
]
VersionGate = Annotated[
    str | None, typer.Option("--version-gate", metavar="off|semver", help=key_help("version_gate", choices=False))
]
Config = Annotated[Path | None, typer.Option("--config", metavar="FILE", help=CONFIG_HELP)]
Store = Annotated[
    Path | None,
    typer.Option(
        "--store",
        metavar="DIR",
        help="Snapshot store folder for labels (default: the config file's store, else .schema-audit).",
    ),
]
Output = Annotated[
    str | None,
    typer.Option(
        "--out", "--output", "-o", metavar="FILE", help="Write the report to this file (atomically; -o and --out too)."
    ),
]
TimeBudget = Annotated[float | None, typer.Option("--time-budget", metavar="SECONDS", help=TIME_BUDGET_HELP)]
Samples = Annotated[Path | None, typer.Option("--samples", metavar="FILE", help=SAMPLES_HELP)]
TRAFFIC_HELP = (
    "Real calls (repeatable): a recording (record, probe --record), an OTLP/JSON trace export or JSON Lines of "
    '{"tool", "arguments", "result"}. Every tool finding says how many recorded calls it breaks; a break only '
    "the traffic shows is a breaking finding with the real call as its witness."
)
Traffic = Annotated[list[Path] | None, typer.Option("--traffic", metavar="FILE", help=TRAFFIC_HELP)]
TrafficThreshold = Annotated[
    str | None,
    typer.Option(
        "--traffic-threshold",
        metavar="THRESHOLD",
        help="N or N%: with --traffic, a breaking finding fails only where at least N (and one) or N% of its tool's "
        "recorded calls are affected, or where it has none (potentially affected). Default: unset (schema-first), "
        "or the config file's traffic_threshold.",
    ),
]
Jobs = Annotated[
    int | None,
    typer.Option(
        "--jobs",
        "-j",
        metavar="N",
        help="Processes to compare tools on (default: every core this process "
        "may use; 1 = one process). Only catalogs with many changed tools are split; the report is the "
        "same either way.",
    ),
]
SourceRoot = Annotated[
    Path | None,
    typer.Option(
        "--source-root",
        metavar="DIR",
        help="The server's source folder: annotations and SARIF results point at each tool's registration found "
        'there (a registerTool("name", …) or server.tool("name", …) call, a @mcp.tool function named name) '
        "instead of at the snapshot file.",
    ),
]
