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
from mcp_schema_audit.report.cohorts import History
from mcp_schema_audit.report.escape import json_text
from mcp_schema_audit.report.formats import PLAIN, RenderOptions
from mcp_schema_audit.report.model import REPORT_VERSION, Report, side_json


def render_report(report: Report, options: RenderOptions = PLAIN) -> str:
    """Canonical JSON of ``Report.to_json()`` with a final newline.

    Control, bidi and zero-width characters and lone surrogates from the input are written as JSON
    ``\\u`` escapes with four hex digits: the text is valid UTF-8 and parses back to exactly the same value.
    """
    return json_text(report.to_json(), sort_keys=True)


def history_json(hist: History) -> dict[str, Any]:
    """The JSON form of a history run: ``kind`` (``"history"``), ``new``, ``cohorts`` (each with its summary and
    findings), ``findings`` (each finding once, with the cohorts it occurs in: ``GroupedFinding.to_json``),
    ``matrix``, ``conflicts``, ``notes`` and ``gate``; ``suggested_version`` (after the newest cohort) when it sent
    a version; with ``--version-gate semver``, ``steps`` (``ReleaseStep.to_json``, oldest first); when the config's
    policy suppressed findings, ``ignored``
    (each with its ``reason`` and the ``cohort`` it was found against), and ``expired_ignores`` when entries
    expired."""
    out = {
        "report_version": REPORT_VERSION,
        "schema_audit_version": __version__,
        "kind": "history",
        "new": {**side_json(hist.new)},
        "cohorts": [
            {
                **side_json(c),
                "summary": {
                    s: sum(1 for f in hist.findings[c.label] if f.severity == s)
                    for s in ("breaking", "warning", "info")
                },
                "findings": [f.to_json() for f in hist.findings[c.label]],
            }
            for c in hist.cohorts
        ],
        "findings": [g.to_json() for g in hist.grouped()],
        "matrix": hist.matrix(),
        "conflicts": [c.to_json() for c in hist.conflicts],
        "notes": list(hist.notes),
        "gate": {"fail_on": hist.fail_on, "passed": hist.passed},
    }
    if hist.server_validators:
        out["server_validators"] = [dict(v) for v in hist.server_validators]
    if hist.suggested_version is not None:
        out["suggested_version"] = hist.suggested_version
    if hist.version_gate:
        out["steps"] = [step.to_json() for step in hist.steps]
    if hist.ignored:
        out["ignored"] = [{"finding": f.to_json(), "reason": r, "cohort": c} for f, r, c in hist.ignored]
    if hist.expired_ignores:
        out["expired_ignores"] = list(hist.expired_ignores)
    return out


def render_history(hist: History, options: RenderOptions = PLAIN) -> str:
    """``history_json`` as JSON text (indent 2, sorted keys, control characters as ``\\u`` escapes)."""
    return json_text(history_json(hist), sort_keys=True)


@functools.lru_cache(maxsize=1)
def _schema_text() -> str:
    from importlib import resources

    return resources.files("mcp_schema_audit").joinpath("report_schema.json").read_text(encoding="utf-8")


def report_json_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of ``render_report`` output (a fresh dict each call).

    Loaded from the package data file ``mcp_schema_audit/report_schema.json``. Objects allow keys
    the schema does not list, because the report only ever gains keys.
    """
    schema: dict[str, Any] = json.loads(_schema_text())
    return schema


#: The values of a ``history`` matrix cell (``History.matrix``).
MATRIX_CELLS = ("ok", "new", "absent", "warning", "breaking")


def history_json_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of ``render_history`` output (``history --format json``), a fresh dict.

    Built on the report schema's definitions (``side``, ``finding`` …, and its ``summary``, ``gate`` and
    ``notes``), so the two contracts cannot drift apart; objects admit keys they do not list (keys are only
    ever added).
    """
    report = report_json_schema()
    props = report["properties"]
    severity = {"enum": ["breaking", "warning", "info"]}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://schema-audit.invalid/schemas/history-v1.json",
        "title": "schema-audit history JSON report (report_version 1)",
        "description": "Output of 'schema-audit history --format json': NEW checked against every cached version "
        "(cohort). Stable contract: keys are only ever added, so every object here admits keys it "
        "does not list.",
        "type": "object",
        "required": [
            "report_version",
            "schema_audit_version",
            "kind",
            "new",
            "cohorts",
            "findings",
            "matrix",
            "conflicts",
            "notes",
            "gate",
        ],
        "properties": {
            "report_version": props["report_version"],
            "schema_audit_version": props["schema_audit_version"],
            "kind": {"const": "history"},
            "new": {"$ref": "#/$defs/side", "description": "NEW: the version the server runs."},
            "cohorts": {
                "type": "array",
                "description": "The cached versions NEW was checked against, oldest first.",
                "items": {
                    "$ref": "#/$defs/side",
                    "required": ["summary", "findings"],
                    "properties": {
                        "summary": props["summary"],
                        "findings": {
                            "type": "array",
                            "items": {"$ref": "#/$defs/finding"},
                            "description": "This cohort's findings (backward: hosts cached it, the server runs NEW).",
                        },
                    },
                },
            },
            "findings": {
                "type": "array",
                "description": "Each finding once (by fingerprint) with the cohorts it occurs in.",
                "items": {
                    "type": "object",
                    "required": [
                        "rule",
                        "tool",
                        "surface",
                        "name",
                        "direction",
                        "pointer",
                        "fingerprint",
                        "severity",
                        "cohorts",
                    ],
                    "properties": {
                        "rule": {"type": "string"},
                        "tool": {"type": "string"},
                        "surface": {"type": "string"},
                        "name": {"type": "string"},
                        "direction": {"type": "string"},
                        "pointer": {"$ref": "#/$defs/pointer"},
                        "fingerprint": {"type": "string", "pattern": "^[0-9a-f]{16}$"},
                        "severity": {**severity, "description": "The worst over its cohorts."},
                        "cohorts": {
                            "type": "object",
                            "additionalProperties": severity,
                            "description": "Cohort label -> severity there.",
                        },
                        "fix": {
                            "type": "string",
                            "description": "How to ship the change without breaking cached hosts (the newest "
                            "cohort's finding: a host finding's own remedy, else the rule's advice; absent when "
                            "there is none).",
                        },
                    },
                },
            },
            "matrix": {
                "type": "object",
                "description": "Row (a tool's name, or another item's subject such as 'prompt summarize') -> cohort "
                "label -> ok | new (the cohort did not have the tool) | absent (neither NEW nor the "
                "cohort has it) | warning | breaking.",
                "additionalProperties": {"type": "object", "additionalProperties": {"enum": list(MATRIX_CELLS)}},
            },
            "conflicts": {
                "type": "array",
                "description": "Positions where cohorts cache different value sets: any value outside the common "
                "ones breaks one of them.",
                "items": {
                    "type": "object",
                    "required": ["tool", "pointer", "cohorts", "values", "common"],
                    "properties": {
                        "tool": {"type": "string"},
                        "pointer": {"$ref": "#/$defs/pointer"},
                        "cohorts": {"type": "array", "items": {"type": "string"}},
                        "values": {"type": "object"},
                        "common": {"type": "array"},
                    },
                },
            },
            "notes": props["notes"],
            "gate": props["gate"],
            "server_validators": {
                **props["server_validators"],
                "description": "How the server's own framework reads the arguments hosts send to NEW.",
            },
            "ignored": {
                **props["ignored"],
                "description": "Present when the ignore list suppressed findings: each with the matching entry's "
                "reason and the cohort it was found against.",
                "items": {
                    **props["ignored"]["items"],
                    "required": [*props["ignored"]["items"]["required"], "cohort"],
                    "properties": {**props["ignored"]["items"]["properties"], "cohort": {"type": "string"}},
                },
            },
            "expired_ignores": {**props["expired_ignores"], "description": "Present when ignore entries expired."},
            "suggested_version": {
                "type": "string",
                "description": "The version NEW should carry after the newest cached version, for the findings "
                "against it (absent when that version sent no parsable serverInfo.version).",
            },
            "steps": {
                "type": "array",
                "description": "With --version-gate semver: each release step of the chain (the cached versions "
                "oldest first, then NEW) with its version findings; only the step that releases NEW (gated) "
                "counts for the gate, its findings are also the newest cohort's.",
                "items": {
                    "type": "object",
                    "required": [
                        "old",
                        "new",
                        "old_version",
                        "new_version",
                        "suggested_version",
                        "gated",
                        "findings",
                        "notes",
                    ],
                    "properties": {
                        "old": {"type": "string"},
                        "new": {"type": "string"},
                        "old_version": {"type": ["string", "null"]},
                        "new_version": {"type": ["string", "null"]},
                        "suggested_version": {"type": ["string", "null"]},
                        "gated": {"type": "boolean"},
                        "findings": {"type": "array", "items": {"$ref": "#/$defs/finding"}},
                        "notes": {"type": "array", "items": {"type": "string"}},
                    },
                },
            },
        },
        "$defs": report["$defs"],
    }
