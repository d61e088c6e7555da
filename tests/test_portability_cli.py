"""``lint --host`` and ``diff --host`` for hosts and model providers, end to end: two releases of a real server
(``tests/servers/scenario_server.py`` over stdio, captured with ``schema-audit snapshot``), the findings, their
``hosts`` lists, the matrix in text, Markdown and JSON (valid against ``report_schema.json``), the config key, and
exit 2 for an unknown name."""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from gate_helpers import ROOT, cli
from jsonschema import Draft202012Validator

from mcp_schema_audit.report.json import report_json_schema

SERVER = ROOT / "tests" / "servers" / "scenario_server.py"
S = {"type": "string"}
V1 = [
    {
        "name": "search",
        "description": "d",
        "inputSchema": {"type": "object", "properties": {"q": S}, "required": ["q"]},
    },
    {
        "name": "lookup",
        "description": "d",
        "inputSchema": {"type": "object", "properties": {"id": S}, "required": ["id"]},
    },
    {
        "name": "stats",
        "description": "d",
        "inputSchema": {"type": "object", "properties": {"code": {"type": "string", "minLength": 3}}},
    },
]
# 0.2: search closes its object (google-genai's MCP adapter raises on additionalProperties: false, so Gemini loses
# every tool), lookup takes a union (Cursor's gateway refuses the request), stats drops its constraint (portable)
V2 = [
    {**V1[0], "inputSchema": {**V1[0]["inputSchema"], "additionalProperties": False}},
    {
        **V1[1],
        "inputSchema": {
            "type": "object",
            "properties": {"id": {"anyOf": [S, {"type": "integer"}]}},
            "required": ["id"],
        },
    },
    {**V1[2], "inputSchema": {"type": "object", "properties": {"code": S}}},
]


def _capture(tmp_path: Path, label: str, tools: list[dict[str, Any]]) -> None:
    scenario = tmp_path / f"{label}.scenario.json"
    scenario.write_text(json.dumps({"name": "shop", "version": label, "tools": tools, "results": {}}), encoding="utf-8")
    proc = cli(
        "snapshot",
        "--label",
        label,
        "--store",
        str(tmp_path / "store"),
        "--",
        sys.executable,
        str(SERVER),
        "--scenario",
        str(scenario),
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def releases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("portability")
    _capture(home, "0.1", V1)
    _capture(home, "0.2", V2)
    return home


def _json(proc: Any) -> dict[str, Any]:
    report = json.loads(proc.stdout)
    Draft202012Validator(report_json_schema()).validate(report)
    return report


def test_diff_names_the_hosts_each_regression_holds_on(releases: Path) -> None:
    store = str(releases / "store")
    proc = cli(
        "diff",
        "0.1",
        "0.2",
        "--store",
        store,
        "--host",
        "gemini",
        "--host",
        "cursor",
        "--host",
        "vscode",
        "--format",
        "json",
        cwd=releases,
    )
    assert proc.returncode == 1, proc.stderr
    report = _json(proc)
    found = {(f["rule"], f["tool"], f["pointer"]): f for f in report["findings"] if f["rule"].startswith("host-")}
    closed = found[("host-newly-unusable", "search", "/additionalProperties")]
    assert closed["hosts"] == ["gemini"] and closed["severity"] == "breaking"
    assert (
        "whole tool listing" in closed["message"]
        and "(host rule gemini-boolean-schema, seen in the provider's code)" in closed["message"]
    )
    assert (
        closed["fix"].startswith("leave additionalProperties out")
        and "gemini-boolean-schema in docs/hosts.md" in closed["fix"]
    )
    union = found[("host-newly-unusable", "lookup", "/properties/id/anyOf")]
    assert union["hosts"] == ["cursor"]
    assert union["fix"].startswith(
        'use the portable spelling {"type":["string","integer"]}, equivalent under the SDK profiles'
    )
    # stats is lost with the listing search now fails on Gemini, and lookup on Cursor (its own schema got more
    # portable): one finding per host, each naming its culprit
    lost = {f["hosts"][0]: f for f in report["findings"] if f["tool"] == "stats" and f["rule"] == "host-newly-unusable"}
    assert sorted(lost) == ["cursor", "gemini"] and all(len(f["hosts"]) == 1 for f in lost.values())
    assert "(search)" in lost["gemini"]["message"] and "(lookup)" in lost["cursor"]["message"]
    assert lost["gemini"]["fingerprint"] != lost["cursor"]["fingerprint"]
    assert not [f for f in report["findings"] if "vscode" in f["hosts"]]
    assert report["hosts"] == ["python-sdk", "ts-sdk-v1", "ts-sdk-v2", "gemini", "vscode", "cursor"]
    matrix = report["portability"]
    assert matrix["hosts"] == ["gemini", "vscode", "cursor"]
    rows = {r["tool"]: r for r in matrix["tools"]}
    assert rows["stats"]["was"]["gemini"] == "degraded" and rows["stats"]["states"]["gemini"] == "unusable"
    assert matrix["listing_fails"] == {"gemini": ["search"], "vscode": [], "cursor": ["lookup"]}


def test_back_to_portable_is_info(releases: Path) -> None:
    proc = cli(
        "diff", "0.2", "0.1", "--store", str(releases / "store"), "--host", "gemini", "--format", "json", cwd=releases
    )
    report = _json(proc)
    again = [f for f in report["findings"] if f["rule"] == "host-usable-again"]
    assert {f["tool"] for f in again} == {"search", "lookup", "stats"} and all(f["severity"] == "info" for f in again)
    assert all(f["hosts"] == ["gemini"] for f in again)


def test_lint_reports_unusable_and_degraded_with_the_matrix(releases: Path) -> None:
    store = str(releases / "store")
    proc = cli("lint", "0.1", "--store", store, "--host", "gemini", "--host", "openai-strict", cwd=releases)
    assert proc.returncode == 0, proc.stdout  # 0.1 only degrades: warnings do not fail the default gate
    assert "portability: openai-strict: 2 usable, 1 degraded, 0 unusable; gemini: 2 usable, 1 degraded" in proc.stdout
    assert "degraded on gemini: parameter 'code': minLength is dropped" in proc.stdout
    assert (
        "degraded on openai-strict: parameter 'code': optional \"code\"" in proc.stdout
        or "optional 'code'" in proc.stdout
    )
    proc = cli("lint", "0.2", "--store", store, "--host", "gemini", "--format", "markdown", cwd=releases)
    assert proc.returncode == 1
    assert "| tool | gemini |" in proc.stdout and "| search | unusable |" in proc.stdout
    report = _json(
        cli(
            "lint",
            "0.2",
            "--store",
            store,
            "--host",
            "gemini",
            "--host",
            "python-sdk",
            "--format",
            "json",
            cwd=releases,
        )
    )
    unusable = [f for f in report["findings"] if f["rule"] == "host-tool-unusable"]
    assert [(f["tool"], f["hosts"]) for f in unusable] == [("search", ["gemini"])]
    assert unusable[0]["witness"]["instance"]["name"] == "search"


def test_config_hosts_key_selects_providers_for_lint(releases: Path) -> None:
    config = releases / "schema-audit.toml"
    config.write_text('hosts = ["cursor"]\nstore = "store"\n', encoding="utf-8")
    try:
        report = _json(cli("lint", "0.2", "--config", str(config), "--format", "json", cwd=releases))
    finally:
        config.unlink()
    assert report["portability"]["hosts"] == ["cursor"]
    assert {f["tool"] for f in report["findings"] if f["rule"] == "host-tool-unusable"} == {"lookup"}


def test_unknown_host_is_exit_2_listing_the_names(releases: Path) -> None:
    proc = cli("lint", "0.2", "--store", str(releases / "store"), "--host", "gemnii", cwd=releases)
    assert proc.returncode == 2
    assert "gemini" in proc.stderr and "openai-strict" in proc.stderr and "python-sdk" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("fmt", ["text", "markdown", "html", "junit"])
def test_every_format_shows_a_host_findings_own_fix(releases: Path, fmt: str) -> None:
    """A host finding's fix is its own (the portable spelling the engine checked), not the rule's generic one,
    in every format that shows fixes."""
    hosts = ["--host", "gemini", "--host", "cursor"]
    proc = cli("diff", "0.1", "0.2", "--store", str(releases / "store"), *hosts, "--format", fmt, cwd=releases)
    assert proc.returncode == 1, proc.stderr
    out = html.unescape(proc.stdout) if fmt != "text" else proc.stdout
    out = out.replace("&quot;", '"')
    if fmt == "markdown":  # its backslash escapes read as the characters they escape
        out = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", out)
    assert 'use the portable spelling {"type":["string","integer"]}, equivalent under the SDK profiles' in out, out
    assert "the portable spelling the finding names" not in out
    assert "see host rule lost-with-listing" not in out and "host rule lost-with-listing," not in out
    assert "make the tools that now fail the listing portable" in " ".join(out.split())
