"""Reports and their renderers, one module per format, shared by ``diff``, ``history``, ``lint`` and ``probe``.

A ``Report`` (``model``) is a diff of two versions, a lint of one snapshot or a probe of one server
(``Report.kind``); a ``History`` (``mcp_schema_audit.history``) is one release against N cached versions.
Every format renders both, and every rendered report says what it is.

Formats (``RENDERERS``: format → ``render(report) -> str``, pure): ``text`` (humans, via rich without
markup), ``json`` (the stable contract, schema in ``report_schema.json``), ``markdown`` (a pull-request
comment or step summary), ``sarif`` (SARIF 2.1.0 for code scanning), ``github`` (workflow commands:
annotations) and ``junit`` (JUnit XML, one test case per tool). Machine formats always emit a whole
document, also with no findings.

Every piece of server-provided text (tool names, descriptions, enum values, schema keys, witness
values, validator errors, tool results) is shown inertly: control, bidi and zero-width characters
(ANSI escapes included) become visible ``\\xNN``/``\\uNNNN`` escapes (``inert``), rich markup is never
interpreted, and each format then escapes what is special to it (Markdown/HTML/mentions/links, SARIF
embedded links, workflow-command ``%``/newlines, XML via ElementTree).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp_schema_audit.report import github as _github
from mcp_schema_audit.report import json as _json
from mcp_schema_audit.report import junit as _junit
from mcp_schema_audit.report import markdown as _markdown
from mcp_schema_audit.report import sarif as _sarif
from mcp_schema_audit.report import text as _text
from mcp_schema_audit.report.escape import inert, json_text, one_line
from mcp_schema_audit.report.github import gh_data, gh_property, render_github
from mcp_schema_audit.report.json import history_json_schema, render_json, report_json_schema
from mcp_schema_audit.report.junit import render_junit
from mcp_schema_audit.report.markdown import (
    MARKDOWN_BUDGET,
    md_code,
    md_escape,
    md_fence,
    render_markdown,
)
from mcp_schema_audit.report.model import (
    FAIL_ON,
    KINDS,
    REPORT_VERSION,
    Report,
    roles,
    witness_sides,
)
from mcp_schema_audit.report.sarif import (
    SARIF_SCHEMA_URI,
    artifact_uri,
    render_sarif,
    sarif_log,
    sarif_text,
)
from mcp_schema_audit.report.text import render_text

#: format → renderer of a ``Report`` or a ``History`` (``text`` with its defaults: no colour, 120 columns).
RENDERERS: dict[str, Callable[[Any], str]] = {
    "text": _text.render,
    "json": _json.render,
    "markdown": _markdown.render,
    "sarif": _sarif.render,
    "github": _github.render,
    "junit": _junit.render,
}


def render(report: Any, fmt: str, *, color: bool = False, width: int = 120) -> str:
    """``report`` (a ``Report`` or a ``History``) in format ``fmt`` (a key of ``RENDERERS``).

    ``color``/``width`` apply to ``text`` only. Raises ``KeyError`` for an unknown format.
    """
    if fmt == "text":
        return _text.render(report, color=color, width=width)
    return RENDERERS[fmt](report)


__all__ = [
    "FAIL_ON",
    "KINDS",
    "MARKDOWN_BUDGET",
    "RENDERERS",
    "REPORT_VERSION",
    "SARIF_SCHEMA_URI",
    "Report",
    "artifact_uri",
    "gh_data",
    "gh_property",
    "inert",
    "json_text",
    "md_code",
    "md_escape",
    "md_fence",
    "one_line",
    "render",
    "render_github",
    "render_json",
    "render_junit",
    "render_markdown",
    "render_sarif",
    "render_text",
    "history_json_schema",
    "report_json_schema",
    "roles",
    "sarif_log",
    "sarif_text",
    "witness_sides",
]
