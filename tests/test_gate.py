"""The CI gate: modes, history and cohorts, conflicts, lint, config and ignore list, git inputs, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_schema_audit.history import check_history, order_snapshots, version_key
from mcp_schema_audit.lint import lint_snapshot
from mcp_schema_audit.policy import IgnoreEntry, apply_policy, diff_with_mode, load_config
from mcp_schema_audit.snapshot import load_snapshot, snapshot_from_data
from mcp_schema_audit.errors import UsageError

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "fixtures" / "seed"


def cli(*args: str, cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcp_schema_audit", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, timeout=timeout)


@pytest.fixture()
def seed_store(tmp_path: Path) -> Path:
    store = tmp_path / "store"
    for v in ("0.2.4", "0.2.5", "0.2.6", "0.2.7"):
        r = cli("snapshot", "--store", str(store), "--label", v, "--from-file", str(SEED / f"{v}.json"))
        assert r.returncode == 0, r.stderr
    return store


def test_history_shows_cohorts_and_the_transport_conflict(seed_store: Path):
    r = cli("history", "0.2.7", "--store", str(seed_store), "--format", "json")
    assert r.returncode == 1, r.stderr  # 0.2.7 still breaks hosts that cached 0.2.4/0.2.5
    data = json.loads(r.stdout)
    assert [c["label"] for c in data["cohorts"]] == ["0.2.4", "0.2.5", "0.2.6"]
    assert data["matrix"]["whoami"] == {"0.2.4": "warning", "0.2.5": "warning", "0.2.6": "warning"}
    assert data["matrix"]["get_thread"]["0.2.5"] == "breaking" and data["matrix"]["get_thread"]["0.2.6"] == "warning"
    # 0.2.4 and 0.2.5 cache the same value set: one group, one conflict with 0.2.6
    assert data["conflicts"] == [{"tool": "whoami", "pointer": "/properties/transport",
                                  "cohorts": ["0.2.4", "0.2.5", "0.2.6"],
                                  "values": {"0.2.4": ["stdio", "http"], "0.2.5": ["stdio", "http"],
                                             "0.2.6": ["stdio", "streamable-http"]},
                                  "common": ["stdio"]}]
    text = cli("history", "0.2.7", "--store", str(seed_store)).stdout
    assert "whoami /properties/transport: cohorts 0.2.4 and 0.2.5 and 0.2.6" in text
    assert 'both accept only ["stdio"]' in text


def test_history_against_named_cohorts_and_ordering(seed_store: Path):
    r = cli("history", "0.2.6", "--store", str(seed_store), "--against", "0.2.5", "--format", "json")
    data = json.loads(r.stdout)
    assert [c["label"] for c in data["cohorts"]] == ["0.2.5"] and data["conflicts"] == []
    assert version_key("v0.2.10") > version_key("v0.2.9")
    snaps = [snapshot_from_data({"tools": []}, source=f"{v}.json") for v in ("1.10.0", "1.2.0", "1.9.1")]
    assert [s.label for s in order_snapshots(snaps)] == ["1.2.0", "1.9.1", "1.10.0"]


def test_history_with_nothing_to_check_is_a_usage_error(tmp_path: Path):
    r = cli("history", str(SEED / "0.2.5.json"), "--store", str(tmp_path))
    assert r.returncode == 2 and "no cached versions" in r.stderr and "Traceback" not in r.stderr


def test_modes_forward_and_full():
    old = snapshot_from_data({"tools": [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {
        "type": "object", "properties": {"a": {"type": "string"}}}}]}, source="old")
    new = snapshot_from_data({"tools": [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {
        "type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}}]}, source="new")
    backward = diff_with_mode(old, new, "backward")
    assert [(f.rule, f.severity) for f in backward] == [("output-required-added", "warning")]
    forward = diff_with_mode(old, new, "forward")
    assert [(f.rule, f.severity) for f in forward] == [("output-required-removed", "breaking")]
    assert forward[0].tags == ["forward"] and forward[0].witness["instance"] == {}
    full = diff_with_mode(old, new, "full")
    assert sorted(f.rule for f in full) == ["output-required-added", "output-required-removed"]
    with pytest.raises(UsageError):
        diff_with_mode(old, new, "sideways")


@pytest.mark.parametrize("fail_on,code", [("breaking", 1), ("warning", 1), ("info", 1), ("never", 0)])
def test_exit_code_per_fail_on_with_breaking_findings(fail_on: str, code: int):
    r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--fail-on", fail_on, "--format", "json")
    assert r.returncode == code and json.loads(r.stdout)["gate"] == {"fail_on": fail_on, "passed": code == 0}


@pytest.mark.parametrize("fail_on,code", [("breaking", 0), ("warning", 1), ("info", 1), ("never", 0)])
def test_exit_code_per_fail_on_with_only_warnings(fail_on: str, code: int):
    r = cli("diff", str(SEED / "0.2.6.json"), str(SEED / "0.2.7.json"), "--fail-on", fail_on)
    assert r.returncode == code, r.stderr


def test_config_ignore_by_fingerprint_and_pattern_with_expiry(tmp_path: Path):
    report = json.loads(cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--format", "json").stdout)
    breaking = [f for f in report["findings"] if f["severity"] == "breaking"]
    whoami_fp = next(f["fingerprint"] for f in breaking if f["tool"] == "whoami")
    (tmp_path / ".schema-audit.toml").write_text(f'''
fail_on = "breaking"
[[ignore]]
fingerprint = "{whoami_fp}"
reason = "whoami hosts reconnect on deploy"
[[ignore]]
rule = "output-property-added-to-closed-object"
tool = "list_*"
reason = "list tools are re-listed by every host we support"
[[ignore]]
tool = "*"
reason = "this one has expired and must not apply"
expires = 2020-01-01
''')
    r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--format", "json", cwd=tmp_path)
    data = json.loads(r.stdout)
    assert r.returncode == 1  # other breaking findings remain
    tools_left = {f["tool"] for f in data["findings"] if f["rule"] == "output-property-added-to-closed-object"}
    assert not any(t.startswith("list_") for t in tools_left)
    assert whoami_fp not in {f["fingerprint"] for f in data["findings"]}
    assert data["expired_ignores"] == [{"tool": "*", "reason": "this one has expired and must not apply",
                                        "expires": "2020-01-01"}]
    assert len(data["findings"]) == len(report["findings"]) - len(data["ignored"])
    reasons = json.dumps(data["ignored"])
    assert "whoami hosts reconnect on deploy" in reasons and "list tools are re-listed" in reasons
    assert "must not apply" not in reasons


def test_ignore_entries_need_a_reason_and_valid_dates(tmp_path: Path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[[ignore]]\nrule = "tool-removed"\n')
    with pytest.raises(UsageError, match="reason"):
        load_config(cfg)
    cfg.write_text('[[ignore]]\nrule = "tool-removed"\nreason = "x"\nexpires = "soon"\n')
    with pytest.raises(UsageError, match="expires"):
        load_config(cfg)
    cfg.write_text('unknown_key = 1\n')
    r = cli("diff", str(SEED / "0.2.4.json"), str(SEED / "0.2.5.json"), "--config", str(cfg))
    assert r.returncode == 2 and "unknown key" in r.stderr


def test_pyproject_tool_table_is_read(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.schema-audit]\nfail_on = "never"\n')
    r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr


def test_format_ignore_prints_pasteable_entries(tmp_path: Path):
    r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--format", "ignore")
    assert r.returncode == 0 and r.stdout.count("[[ignore]]") > 5  # a config generator, not a gate
    text = r.stdout.replace('reason = ""', 'reason = "accepted"')
    (tmp_path / ".schema-audit.toml").write_text(text)
    r2 = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--format", "json", cwd=tmp_path)
    assert r2.returncode == 0 and json.loads(r2.stdout)["findings"] == []


def test_severity_override_and_host_restriction():
    r = cli("diff", str(SEED / "0.2.5.json"), str(SEED / "0.2.6.json"), "--format", "json",
            "--severity", "output-property-added-to-closed-object=info", "--severity", "output-enum-value-added=info",
            "--severity", "output-required-removed=warning")
    assert r.returncode == 0, r.stderr
    assert cli("diff", "a", "b", "--severity", "no-such-rule=info").returncode == 2
    old = snapshot_from_data({"tools": [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {
        "type": "object", "properties": {"at": {"type": "string", "format": "date-time"}}, "required": ["at"]}}]},
        source="o")
    new = snapshot_from_data({"tools": [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {
        "type": "object", "properties": {"at": {"type": "string"}}, "required": ["at"]}}]}, source="n")
    findings = diff_with_mode(old, new)
    assert [(f.rule, f.severity) for f in findings] == [("output-format-changed", "breaking")]
    py_only = apply_policy(findings, hosts=["python-sdk"]).findings
    assert py_only[0].severity == "info" and "not selected" in py_only[0].reason
    ts = apply_policy(findings, hosts=["ts-sdk-v2"]).findings
    assert ts[0].severity == "breaking" and ts[0].hosts == ["ts-sdk-v2"]
    entry = IgnoreEntry(reason="r", rule="output-*", pointer="/properties/at*")
    assert len(apply_policy(findings, ignore=[entry]).ignored) == 1


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@e", "PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": str(cwd)})


def test_git_inputs(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git("init", "-q", "-b", "main", cwd=repo)
    snap = repo / "snap.json"
    snap.write_text((SEED / "0.2.5.json").read_text())
    git("add", "snap.json", cwd=repo)
    git("commit", "-qm", "0.2.5", cwd=repo)
    snap.write_text((SEED / "0.2.6.json").read_text())
    r = cli("diff", "git:HEAD:snap.json", "snap.json", "--format", "json", cwd=repo)
    assert r.returncode == 1, r.stderr
    assert json.loads(r.stdout)["summary"]["breaking"] > 5
    r = cli("diff", "git:origin/main:snap.json", "snap.json", cwd=repo)
    assert r.returncode == 2 and "not found" in r.stderr and "git fetch origin origin/main" in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = cli("diff", "git:HEAD:missing.json", "snap.json", cwd=repo)
    assert r.returncode == 2 and "no file 'missing.json'" in r.stderr


def test_lint_hazards_listing_breakers_and_baseline(tmp_path: Path):
    snap = load_snapshot(str(SEED / "0.2.5.json"))
    findings = lint_snapshot(snap)
    rules = {f.rule for f in findings}
    assert rules == {"output-closed-object-hazard", "output-value-set-hazard"}
    assert all(f.severity == "warning" for f in findings)
    assert any(f.tool == "whoami" and f.pointer == "/properties/transport/enum" for f in findings)
    drift = [f for f in lint_snapshot(load_snapshot(str(SEED / "0.2.6.json")), baseline=snap)
             if f.rule == "output-required-drift"]
    assert [(f.tool, f.pointer) for f in drift] == [("whoami", "/properties/directory_names")]
    bad = snapshot_from_data({"protocolVersion": "2025-11-25", "tools": [
        {"name": "a", "inputSchema": {"properties": {}}},
        {"name": "b", "inputSchema": {"type": "object", "properties": {"x": True}}},
        {"name": "c", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}},
        {"name": "d", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "properties": {
            "s": {"type": "string", "pattern": "([a-z"}}}},
        {"name": "e", "inputSchema": {"type": "object", "properties": {"x": {"type": "text"}}}},
        {"name": "f", "inputSchema": {"type": "object"}, "outputSchema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "unevaluatedProperties": False}},
    ]}, source="bad")
    got = {(f.tool, f.rule, f.severity) for f in lint_snapshot(bad)}
    assert ("a", "input-schema-not-object", "breaking") in got
    assert ("b", "schema-boolean-property", "breaking") in got
    assert ("c", "output-schema-not-object", "breaking") in got
    assert ("d", "output-schema-uncompilable", "breaking") in got
    assert ("e", "schema-metaschema-invalid", "breaking") in got
    assert ("f", "dialect-portability", "warning") in got
    (tmp_path / ".schema-audit.toml").write_text(
        '[[allow]]\nrule = "output-*-hazard"\ntool = "*"\nreason = "we re-list on every call"\n')
    r = cli("lint", str(SEED / "0.2.5.json"), "--fail-on", "warning", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    r = cli("lint", str(SEED / "0.2.5.json"), "--fail-on", "warning")
    assert r.returncode == 1


def test_uncompilable_output_schema_names_the_hosts_that_cannot_compile_it():
    def tool(name: str, pattern: str, **extra: object) -> dict:
        return {"name": name, "inputSchema": {"type": "object"}, "outputSchema": {
            "type": "object", "properties": {"s": {"type": "string", "pattern": pattern, **extra}}}}

    no_type = tool("nullable_no_type", "^a$")
    no_type["outputSchema"]["properties"]["s"] = {"nullable": True, "enum": ["a", None]}  # Ajv: needs "type"

    snap = snapshot_from_data({"protocolVersion": "2025-11-25", "tools": [
        tool("python_only", "^(?P<n>a)$"),  # Python named group: a SyntaxError for new RegExp(p, "u")
        tool("ecma_only", "^\\p{L}+$"),  # Unicode property escape: Python re rejects it
        no_type,
        tool("fine", "^[a-z]+$"),
    ]}, source="regex")
    got = {f.tool: (f.pointer, sorted(f.hosts)) for f in lint_snapshot(snap) if f.rule == "output-schema-uncompilable"}
    assert got["python_only"] == ("/properties/s/pattern", ["ts-sdk-v1", "ts-sdk-v2"])
    assert got["ecma_only"] == ("/properties/s/pattern", ["python-sdk"])
    assert got["nullable_no_type"][1] == ["ts-sdk-v1", "ts-sdk-v2"]
    assert "fine" not in got


def test_new_listing_breaker_in_diff_is_breaking():
    old = snapshot_from_data({"protocolVersion": "2025-11-25", "tools": [
        {"name": "a", "inputSchema": {"type": "object"}}]}, source="o")
    new = snapshot_from_data({"protocolVersion": "2025-11-25", "tools": [
        {"name": "a", "inputSchema": {"type": "object"}}, {"name": "z", "inputSchema": {"type": "object"},
                                                           "outputSchema": {"type": "array"}}]}, source="n")
    findings = diff_with_mode(old, new)
    assert ("z", "output-schema-not-object", "breaking") in {(f.tool, f.rule, f.severity) for f in findings}


def test_rules_and_explain():
    r = cli("rules", "--format", "json")
    ids = {x["id"] for x in json.loads(r.stdout)}
    assert {"tool-removed", "output-property-added-to-closed-object", "input-required-added"} <= ids
    r = cli("explain", "output-enum-value-added")
    assert r.returncode == 0 and "before:" in r.stdout and "host error:" in r.stdout
    assert cli("explain", "nope").returncode == 2


def test_lint_value_set_hazard_skips_conditions_and_exclusions():
    snap = snapshot_from_data({"tools": [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {
        "type": "object", "properties": {"s": {"type": "string", "not": {"const": "x"}}, "k": {"enum": ["a", "b"]}},
        "if": {"properties": {"k": {"const": "a"}}}, "then": {"required": ["s"]},
        "dependentSchemas": {"s": {"properties": {"k": {"const": "b"}}}}}}]}, source="x")
    hazards = [(f.rule, f.pointer) for f in lint_snapshot(snap) if f.rule == "output-value-set-hazard"]
    assert hazards == [("output-value-set-hazard", "/properties/k/enum")]
