"""The JSON report (``--format json``): the stable machine contract of diff, lint, probe and history.

``Report.to_json`` is the contract of a diff, a lint and a probe (its JSON Schema is the package data
file ``report_schema.json``, printed by ``schema-audit schema report``); a history has its own shape
(``history_json``). Every finding inside either is ``Finding.to_json``: one place builds it.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from mcp_schema_audit import __version__
from mcp_schema_audit.history import History
from mcp_schema_audit.report.escape import json_text
from mcp_schema_audit.report.model import REPORT_VERSION, Report, side_json


def render(report: Report | History) -> str:
    """The JSON text of ``report`` (a ``Report`` or a ``History``)."""
    if isinstance(report, History):
        return render_history_json(report)
    return render_json(report)


def render_json(report: Report) -> str:
    """Canonical JSON of ``Report.to_json()`` with a final newline.

    Control, bidi and zero-width characters and lone surrogates from the input are written as JSON
    ``\\u`` escapes with four hex digits: the text is valid UTF-8 and parses back to exactly the same value.
    """
    return json_text(report.to_json(), sort_keys=True)


def history_json(hist: History) -> dict[str, Any]:
    """The JSON form of a history run: ``kind`` (``"history"``), ``new``, ``cohorts`` (each with its summary and
    findings), ``findings`` (each finding once, with the cohorts it occurs in: ``GroupedFinding.to_json``),
    ``matrix``, ``conflicts``, ``notes`` and ``gate``."""
    return {
        "report_version": REPORT_VERSION, "schema_audit_version": __version__, "kind": "history",
        "new": {**side_json(hist.new)},
        "cohorts": [{**side_json(c),
                     "summary": {s: sum(1 for f in hist.findings[c.label] if f.severity == s)
                                 for s in ("breaking", "warning", "info")},
                     "findings": [f.to_json() for f in hist.findings[c.label]]} for c in hist.cohorts],
        "findings": [g.to_json() for g in hist.grouped()],
        "matrix": hist.matrix(),
        "conflicts": [c.to_json() for c in hist.conflicts],
        "notes": list(hist.notes),
        "gate": {"fail_on": hist.fail_on, "passed": hist.passed},
    }


def render_history_json(hist: History) -> str:
    """``history_json`` as JSON text (indent 2, sorted keys, control characters as ``\\u`` escapes)."""
    return json_text(history_json(hist), sort_keys=True)


@functools.lru_cache(maxsize=1)
def _schema_text() -> str:
    from importlib import resources

    return resources.files("mcp_schema_audit").joinpath("report_schema.json").read_text(encoding="utf-8")


def report_json_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of ``render_json`` output (a fresh dict each call).

    Loaded from the package data file ``mcp_schema_audit/report_schema.json``. Objects allow keys
    the schema does not list, because the report only ever gains keys.
    """
    return json.loads(_schema_text())
