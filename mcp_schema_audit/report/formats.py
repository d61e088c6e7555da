"""The registry of report formats: every format's name, what it is for, and the module that renders it.

Each format is one module of ``mcp_schema_audit.report`` exporting ``render_report(report, options)`` (a diff,
lint or probe ``Report``) and ``render_history(hist, options)`` (a ``History``); both are pure and return the
whole text. Adding a format is that module plus one entry in ``FORMATS``: the command line's ``--format``
choices and help, the config's ``format`` key and the GitHub Action's report files are read from here. The
modules are imported only when a report is rendered, so ``--help`` stays fast.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RenderOptions:
    """How to render for the reader at hand: ``color`` (ANSI styles) and ``width`` (columns) apply to ``text``."""

    color: bool = False
    width: int = 120


PLAIN = RenderOptions()


@dataclass(frozen=True)
class Format:
    """One report format. ``gate``: False when the command exits 0 whatever the findings (``ignore`` writes
    config, so ``>> .schema-audit.toml`` works); ``file_name``: the report file the GitHub Action writes."""

    name: str
    module: str
    doc: str
    file_name: str
    gate: bool = True

    def renderer(self, kind: str) -> Any:
        """The function of this format's module that renders a report of ``kind`` (``history`` or another)."""
        module = importlib.import_module(self.module)
        return module.render_history if kind == "history" else module.render_report


#: Every report format, in the order ``--help`` lists them.
FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("text", "mcp_schema_audit.report.text", "for people (colour on a terminal)", "schema-audit.txt"),
        Format(
            "json",
            "mcp_schema_audit.report.json",
            "the stable contract (schema-audit schema report)",
            "schema-audit.json",
        ),
        Format(
            "markdown", "mcp_schema_audit.report.markdown", "a pull-request comment or job summary", "schema-audit.md"
        ),
        Format("sarif", "mcp_schema_audit.report.sarif", "SARIF 2.1.0 for code scanning", "schema-audit.sarif"),
        Format(
            "github", "mcp_schema_audit.report.github", "GitHub workflow-command annotations", "schema-audit.github.txt"
        ),
        Format("junit", "mcp_schema_audit.report.junit", "JUnit XML, one test case per tool", "schema-audit.junit.xml"),
        Format(
            "html",
            "mcp_schema_audit.report.html",
            "one self-contained page for people (no network, no script)",
            "schema-audit.html",
        ),
        Format(
            "changelog",
            "mcp_schema_audit.report.changelog",
            "release notes for people (Markdown); exits 0",
            "schema-audit.changelog.md",
            gate=False,
        ),
        Format(
            "ignore",
            "mcp_schema_audit.report.ignore",
            "ready-to-paste [[ignore]] entries; exits 0",
            "schema-audit.ignore.toml",
            gate=False,
        ),
    )
}


def render(report: Any, fmt: str, options: RenderOptions = PLAIN) -> str:
    """``report`` (a ``Report`` or a ``History``: its ``kind`` tells) in format ``fmt`` (a key of ``FORMATS``).
    Raises ``KeyError`` for an unknown format."""
    return str(FORMATS[fmt].renderer(report.kind)(report, options))


def formats_help() -> str:
    """``text | json | … (changelog: …; ignore: …; both exit 0)``: the ``--format`` choices."""
    return " | ".join(FORMATS) + " (changelog: release notes; ignore: ready-to-paste [[ignore]] entries; both exit 0)"
