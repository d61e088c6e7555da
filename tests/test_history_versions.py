"""The version rules on ``history`` (``--version-gate semver``): one release step per pair of consecutive versions,
from the oldest cached version to NEW, each with its suggested version and version findings; only the step that
releases NEW counts for the gate. Through the command line, on snapshot stores with several versions (files, and
the python-sdk release server captured live)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
from conftest import PYTHON, SERVERS

from mcp_schema_audit.report.json import history_json_schema


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcp_schema_audit", *args], capture_output=True, text=True, timeout=180, cwd=cwd
    )


def _store(tmp_path: Path, releases: dict[str, tuple[str, list[str]]]) -> None:
    folder = tmp_path / ".schema-audit" / "snapshots"
    folder.mkdir(parents=True)
    for label, (version, tools) in releases.items():
        listing = {
            "serverInfo": {"name": "mail", "version": version},
            "tools": [{"name": n, "inputSchema": {"type": "object"}} for n in tools],
        }
        (folder / f"{label}.json").write_text(json.dumps(listing), encoding="utf-8")


#: v1 → v2 removes ``b`` under a minor bump (released already); v3 brings ``b`` back and adds ``c`` with the
#: version unchanged.
THREE = {"v1": ("1.0.0", ["a", "b"]), "v2": ("1.1.0", ["a"]), "v3": ("1.1.0", ["a", "b", "c"])}


def _steps(report: dict[str, Any]) -> list[tuple[str, str, str | None, list[str], bool]]:
    return [
        (s["old"], s["new"], s["suggested_version"], [f["rule"] for f in s["findings"]], s["gated"])
        for s in report["steps"]
    ]


def test_history_judges_each_release_step_and_gates_only_the_one_that_releases_new(tmp_path: Path) -> None:
    _store(tmp_path, THREE)
    out = _cli("history", "v3", "--version-gate", "semver", "--format", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr  # the past step's break is reported, not gated; NEW's step is a warning
    report = json.loads(out.stdout)
    jsonschema.validate(report, history_json_schema())
    assert _steps(report) == [
        ("v1", "v2", "2.0.0", ["version-bump-too-small"], False),
        ("v2", "v3", "1.2.0", ["version-unchanged"], True),
    ]
    assert report["steps"][0]["findings"][0]["severity"] == "breaking"
    assert report["suggested_version"] == "1.2.0"
    # NEW's step's finding is also the newest cohort's (matrix, grouped findings, gate)
    v2 = next(c for c in report["cohorts"] if c["label"] == "v2")
    assert [f["rule"] for f in v2["findings"] if f["rule"].startswith("version-")] == ["version-unchanged"]
    assert report["matrix"]["server serverInfo"] == {"v1": "ok", "v2": "warning"}
    strict = _cli("history", "v3", "--version-gate", "semver", "--fail-on", "warning", cwd=tmp_path)
    assert strict.returncode == 1
    text = strict.stdout
    assert "Release steps (--version-gate semver; oldest first):" in text
    assert "v1 -> v2: 1.0.0 -> 1.1.0, suggested 2.0.0: version-bump-too-small (breaking) (released" in text
    assert "v2 -> v3: 1.1.0 -> 1.1.0, suggested 1.2.0: version-unchanged (warning)" in text
    md = _cli("history", "v3", "--version-gate", "semver", "--format", "markdown", cwd=tmp_path).stdout
    assert (
        "#### Release steps (version gate)" in md and "| v1 → v2 (released: not gated) | 1.0.0 → 1.1.0 | 2.0.0 |" in md
    )


def test_history_without_the_gate_carries_only_the_suggested_version(tmp_path: Path) -> None:
    _store(tmp_path, THREE)
    out = _cli("history", "v3", "--format", "json", cwd=tmp_path)
    report = json.loads(out.stdout)
    assert out.returncode == 0 and report["suggested_version"] == "1.2.0" and "steps" not in report
    assert not [f for f in report["findings"] if f["rule"].startswith("version-")]
    assert "Release steps" not in _cli("history", "v3", cwd=tmp_path).stdout
    # the config key turns it on for history too
    (tmp_path / ".schema-audit.toml").write_text('version_gate = "semver"\n', encoding="utf-8")
    configured = json.loads(_cli("history", "v3", "--format", "json", cwd=tmp_path).stdout)
    assert len(configured["steps"]) == 2


def test_a_breaking_release_step_to_new_fails_the_gate_and_a_missing_version_is_a_note(tmp_path: Path) -> None:
    _store(tmp_path, {"v1": ("1.0.0", ["a", "b"]), "v2": ("1.0.5", ["a", "b", "c"]), "v3": ("1.1.0", ["a"])})
    out = _cli("history", "v3", "--version-gate", "semver", "--format", "json", cwd=tmp_path)
    assert out.returncode == 1
    report = json.loads(out.stdout)
    assert _steps(report) == [
        ("v1", "v2", "1.1.0", [], False),  # a tool added under a patch bump: only the suggestion says so
        ("v2", "v3", "2.0.0", ["version-bump-too-small"], True),
    ]
    folder = tmp_path / ".schema-audit" / "snapshots"
    (folder / "v1.json").write_text(json.dumps({"serverInfo": {"name": "mail"}, "tools": []}), encoding="utf-8")
    again = json.loads(_cli("history", "v3", "--version-gate", "semver", "--format", "json", cwd=tmp_path).stdout)
    assert again["steps"][0]["suggested_version"] is None
    assert again["steps"][0]["notes"] == ["versions not judged: v1 sent no serverInfo.version"]


def test_history_release_steps_of_the_live_release_server(tmp_path: Path) -> None:
    """Releases 1 (1.0.0) and 2 (1.1.0, breaking) of the python-sdk release server, captured into a store."""
    for v in (1, 2):
        cap = _cli("snapshot", "--label", f"r{v}", "--protocol", "2026-07-28", "--", PYTHON,
                   str(SERVERS / "release_server.py"), "--version", str(v), cwd=tmp_path)  # fmt: skip
        assert cap.returncode == 0, cap.stderr
    out = _cli("history", "r2", "--version-gate", "semver", "--format", "json", cwd=tmp_path)
    assert out.returncode == 1
    report = json.loads(out.stdout)
    assert _steps(report) == [("r1", "r2", "2.0.0", ["version-bump-too-small"], True)]
    assert report["suggested_version"] == "2.0.0"
    assert report["steps"][0]["findings"][0]["witness"] is not None
