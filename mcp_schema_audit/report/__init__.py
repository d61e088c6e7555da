"""Reports and their renderers, one module per format, shared by ``diff``, ``history``, ``lint`` and ``probe``.

A ``Report`` (``model``) is a diff of two versions, a lint of one snapshot or a probe of one server
(``Report.kind``); a ``History`` (``cohorts``) is one release against N cached versions. Every format renders
both, and every rendered report says what it is.

Formats (``formats.FORMATS``: the registry; ``formats.render(report, fmt)``): ``text`` (humans, via rich
without markup), ``json`` (the stable contract, schema in ``report_schema.json``), ``markdown`` (a
pull-request comment or step summary), ``sarif`` (SARIF 2.1.0 for code scanning), ``github`` (workflow
commands: annotations), ``junit`` (JUnit XML, one test case per tool) and ``ignore`` (ready-to-paste
``[[ignore]]`` entries). Machine formats always emit a whole document, also with no findings.

Every piece of server-provided text (tool names, descriptions, enum values, schema keys, witness
values, validator errors, tool results) is shown inertly: control, bidi and zero-width characters
(ANSI escapes included) become visible ``\\xNN``/``\\uNNNN`` escapes (``escape.inert``), rich markup is never
interpreted, and each format then escapes what is special to it (Markdown/HTML/mentions/links, SARIF
embedded links, workflow-command ``%``/newlines, XML via ElementTree).

Importing this package is cheap (the command line's ``--help`` reads the registry): format modules are
imported when a report is rendered.
"""

from __future__ import annotations

from mcp_schema_audit.report.formats import FORMATS, PLAIN, Format, RenderOptions, render

__all__ = ["FORMATS", "PLAIN", "Format", "RenderOptions", "render"]
