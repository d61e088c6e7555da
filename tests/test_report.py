"""Report renderers: golden files per format, and the JSON report against its schema.

Golden files live in ``tests/golden/<case>.<format-suffix>``; ``SCHEMA_AUDIT_UPDATE_GOLDEN=1
python -m pytest tests/test_report.py`` rewrites them (review the diff before committing). The other
formats: ``test_report_sarif.py``, ``test_report_junit_github_markdown.py``; server text in every format:
``test_report_inert.py``; forward wording: ``test_report_forward.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from report_cases import (
    ALL_CASES,
    CASES,
    GOLDEN,
    ROOT,
    SUFFIX,
    UPDATE,
    policy_report,
    render,
    report_validator,
    seed_report,
    undocumented_keys,
)
from runs import render_json, render_markdown, run_diff

from mcp_schema_audit.report.json import report_json_schema
from mcp_schema_audit.schema import HOST_PROFILES
from mcp_schema_audit.snapshot import snapshot_from_data

pytestmark = pytest.mark.usefixtures("at_repo_root")  # sources are repository-relative paths


# --- golden files --------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", list(SUFFIX))
@pytest.mark.parametrize("case", list(ALL_CASES))
def test_golden(case: str, fmt: str):
    out = render(ALL_CASES[case](), fmt)
    path = GOLDEN / f"{case}.{SUFFIX[fmt]}"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(out, encoding="utf-8", newline="\n")
    assert path.is_file(), f"missing golden file {path}: run with SCHEMA_AUDIT_UPDATE_GOLDEN=1"
    expected = path.read_text(encoding="utf-8")
    assert out == expected, f"{path.name} differs (SCHEMA_AUDIT_UPDATE_GOLDEN=1 rewrites it; review the diff)"


def test_renderers_are_pure_and_deterministic():
    for fmt in SUFFIX:
        assert render(seed_report(), fmt) == render(seed_report(), fmt)
    report = seed_report()
    before = json.dumps(report.to_json(), sort_keys=True)
    for fmt in SUFFIX:
        render(report, fmt)
    assert json.dumps(report.to_json(), sort_keys=True) == before


# --- json + its schema ----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", list(CASES))
def test_json_report_validates_against_its_schema(case: str):
    data = json.loads(render_json(CASES[case]()))
    report_validator().validate(data)
    schema = report_json_schema()
    assert undocumented_keys(data, schema, schema) == []


def test_json_report_keys_and_policy_fields():
    data = json.loads(render_json(policy_report()))
    assert data["mode"] == "full" and data["hosts"] == ["python-sdk", "ts-sdk-v2"]
    assert [i["finding"]["tool"] for i in data["ignored"]] == ["add_recipients"]
    assert data["ignored"][0]["reason"].startswith("recipients ships")
    assert data["expired_ignores"][0]["expires"] == "2026-01-31"
    assert data["gate"] == {"fail_on": "warning", "passed": False}
    default = json.loads(render_json(seed_report()))
    assert default["mode"] == "backward" and default["hosts"] == list(HOST_PROFILES)
    assert default["ignored"] == [] and default["expired_ignores"] == []
    # keys of the original contract are all still there
    assert {"report_version", "schema_audit_version", "old", "new", "findings", "summary", "gate", "notes"} <= set(
        default
    )


def test_report_schema_file_is_package_data_and_fresh_each_call():
    a = report_json_schema()
    a["title"] = "changed"
    assert report_json_schema()["title"] != "changed"
    assert (ROOT / "mcp_schema_audit" / "report_schema.json").is_file()
    assert report_json_schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_json_schema_rejects_a_broken_report():
    data = json.loads(render_json(seed_report()))
    data["findings"][0]["severity"] = "fatal"
    del data["gate"]["passed"]
    errors = list(report_validator().iter_errors(data))
    assert len(errors) == 2


def test_lone_surrogates_are_escaped_and_json_round_trips():
    # (a lone surrogate in a tool *name* currently fails in Finding.fingerprint: engine, not the renderers)
    def snap(desc: str, enum: list[str]) -> Any:
        return snapshot_from_data(
            {
                "tools": [
                    {
                        "name": "t",
                        "description": desc,
                        "inputSchema": {"type": "object"},
                        "outputSchema": {"type": "object", "required": ["v"], "properties": {"v": {"enum": enum}}},
                    }
                ]
            },
            source="s.json",
        )

    report = run_diff(snap("a", ["a"]), snap("b\ud800", ["a", "\udc00z"]))
    assert {f.rule for f in report.findings} >= {"tool-description-changed", "output-enum-value-added"}
    for fmt in SUFFIX:
        render(report, fmt).encode("utf-8")  # never raises
    data = json.loads(render_json(report))
    assert "\udc00z" in json.dumps(data, ensure_ascii=False)
    assert "\\udc00z" in render_markdown(report)
