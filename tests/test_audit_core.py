"""One audit core: every command's policy is the same step, so one config judges a change alike in ``diff``,
``history``, ``lint`` and ``probe`` (through the real command line), and the core is what the commands call."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_schema_audit.audit import diff_report, history_report
from mcp_schema_audit.config import load_config
from mcp_schema_audit.settings import resolve
from mcp_schema_audit.snapshot import load_snapshot

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "fixtures" / "seed"
#: the issue's config: one rule's severity lowered, one rule's findings accepted
CONFIG = """\
[severity]
"output-enum-value-added" = "info"
[[ignore]]
rule = "output-property-added-to-closed-object"
reason = "accepted for 0.2.6: hosts reconnect on deploy"
"""


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcp_schema_audit", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def configured(tmp_path: Path) -> Path:
    (tmp_path / ".schema-audit.toml").write_text(CONFIG, encoding="utf-8")
    return tmp_path


def _ignored(items: list[dict]) -> list[tuple[str, str]]:
    return sorted((i["finding"]["fingerprint"], i["reason"]) for i in items)


def test_history_honours_severity_and_ignore_exactly_as_diff(configured: Path):
    old, new = str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json")
    diff = cli("diff", old, new, "--format", "json", cwd=configured)
    hist = cli("history", new, "--against", old, "--format", "json", cwd=configured)
    d, h = json.loads(diff.stdout), json.loads(hist.stdout)
    assert d["summary"]["breaking"] == 1 and len(d["ignored"]) == 10, d["summary"]
    (cohort,) = h["cohorts"]
    assert cohort["summary"] == d["summary"]
    assert sorted(f["fingerprint"] for f in cohort["findings"]) == sorted(f["fingerprint"] for f in d["findings"])
    assert {f["rule"]: f["severity"] for f in cohort["findings"]}["output-enum-value-added"] == "info"
    assert _ignored(h["ignored"]) == _ignored(d["ignored"])
    assert {i["cohort"] for i in h["ignored"]} == {"0.2.5"}
    assert diff.returncode == hist.returncode == 1  # the one break left still fails both gates
    text = cli("history", new, "--against", old, cwd=configured).stdout
    assert text.rstrip().endswith("10 ignored") and "ignored  0.2.5: " in text


def test_history_without_the_config_is_unchanged(tmp_path: Path):
    old, new = str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json")
    h = json.loads(cli("history", new, "--against", old, "--format", "json", cwd=tmp_path).stdout)
    assert h["cohorts"][0]["summary"]["breaking"] == 13
    assert "ignored" not in h and "expired_ignores" not in h  # only present when the policy suppressed something


def test_history_honours_the_config_hosts_as_diff(tmp_path: Path):
    (tmp_path / ".schema-audit.toml").write_text('hosts = ["ts-sdk-v1"]\n', encoding="utf-8")
    old, new = str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json")
    d = json.loads(cli("diff", old, new, "--format", "json", cwd=tmp_path).stdout)
    h = json.loads(cli("history", new, "--against", old, "--format", "json", cwd=tmp_path).stdout)
    assert d["hosts"] == ["ts-sdk-v1"]
    assert h["cohorts"][0]["summary"] == d["summary"]
    by_fp = {f["fingerprint"]: (f["severity"], f["hosts"]) for f in d["findings"]}
    assert {f["fingerprint"]: (f["severity"], f["hosts"]) for f in h["cohorts"][0]["findings"]} == by_fp


def test_the_core_applies_one_policy_to_diff_and_history(configured: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(configured)
    settings = resolve(load_config())
    old, new = load_snapshot(str(SEED / "0.2.5.json")), load_snapshot(str(SEED / "0.2.6.json"))
    report = diff_report(old, new, settings)
    hist = history_report(new, [old], settings)
    assert [f.fingerprint for f in hist.findings[old.label]] == [f.fingerprint for f in report.findings]
    assert [(f.fingerprint, r) for f, r, _ in hist.ignored] == [(f.fingerprint, r) for f, r in report.ignored]
    assert hist.passed is report.passed is False
